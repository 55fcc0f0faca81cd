//! Running one job per file across threads, with results in input order.
//!
//! Work is handed out one item at a time from a shared counter (the degenerate form of work
//! stealing when all the work is known up front): shader sizes differ by two orders of
//! magnitude, so fixed chunks would leave threads idle at the end. Each thread keeps a state
//! of its own (`init`), reused from item to item — counters, caches, scratch memory — and
//! handed back at the end; results come back in the order of `items`, so what is printed or
//! written does not depend on the thread count. Items are processed from the largest
//! (`weight`) down, so that a big shader started last does not keep one thread busy alone.

use std::sync::atomic::{AtomicUsize, Ordering};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A progress bar on standard error when it is a terminal, nothing otherwise.
pub fn progress(len: usize, what: &str) -> ProgressBar {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return ProgressBar::with_draw_target(Some(len as u64), ProgressDrawTarget::hidden());
    }
    let bar = ProgressBar::new(len as u64);
    bar.set_style(
        ProgressStyle::with_template(&format!(
            "{{spinner}} {what} {{bar:40}} {{pos}}/{{len}} [{{elapsed}}, {{eta}} left] {{wide_msg}}"
        ))
        .expect("a valid progress template"),
    );
    bar
}

/// Runs `job(state, item)` for every item on `jobs` threads; returns the results in the
/// order of `items` and every thread's final state.
pub fn map_with<T: Sync, S: Send, R: Send>(
    items: &[T],
    jobs: usize,
    weight: impl Fn(&T) -> u64,
    init: impl Fn() -> S + Sync,
    job: impl Fn(&mut S, &T) -> R + Sync,
    bar: &ProgressBar,
) -> (Vec<R>, Vec<S>) {
    let mut order: Vec<usize> = (0..items.len()).collect();
    let weights: Vec<u64> = items.iter().map(&weight).collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(weights[i]), i));
    let next = AtomicUsize::new(0);
    let threads = jobs.clamp(1, items.len().max(1));
    let per_thread: Vec<(Vec<(usize, R)>, S)> = crossbeam::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|_| {
                    let mut state = init();
                    let mut out = Vec::new();
                    loop {
                        let k = next.fetch_add(1, Ordering::Relaxed);
                        let Some(&i) = order.get(k) else { break };
                        out.push((i, job(&mut state, &items[i])));
                        bar.inc(1);
                    }
                    (out, state)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a worker thread panicked outside a job"))
            .collect()
    })
    .expect("a worker thread panicked outside a job");
    bar.finish_and_clear();
    let mut results: Vec<Option<R>> = (0..items.len()).map(|_| None).collect();
    let mut states = Vec::with_capacity(per_thread.len());
    for (out, state) in per_thread {
        for (i, r) in out {
            results[i] = Some(r);
        }
        states.push(state);
    }
    let results = results
        .into_iter()
        .map(|r| r.expect("every item was processed"))
        .collect();
    (results, states)
}

/// The size of a file in bytes (0 when it cannot be read: the job reports that).
pub fn file_size(path: &std::path::PathBuf) -> u64 {
    std::fs::metadata(path).map_or(0, |m| m.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_in_input_order_whatever_the_thread_count() {
        let items: Vec<u64> = (0..200).map(|i| (i * 7919) % 101).collect();
        for jobs in [1, 2, 5] {
            let (out, states) = map_with(
                &items,
                jobs,
                |&w| w,
                || 0u64,
                |n, &x| {
                    *n += 1;
                    x * 2
                },
                &ProgressBar::hidden(),
            );
            assert_eq!(out, items.iter().map(|x| x * 2).collect::<Vec<_>>());
            assert_eq!(states.iter().sum::<u64>(), 200);
        }
    }
}
