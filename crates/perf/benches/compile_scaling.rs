//! Corpus compile throughput and how it scales with threads: the driver of `eubatch compile`
//! (file reading, import, the `opt` pipeline, statistics per shader) over the whole SKL
//! corpus with 1, 2, ... threads up to the number of cores, best of 3 each, with mimalloc as
//! the binary has it. Prints shaders/s and instructions/s per thread count and the speed-up
//! over one thread. Wall-clock: compare the figures of one run with each other only.
//!
//! `cargo bench -p eubatch-perf --bench compile_scaling`

use std::time::Instant;

use eubatch::compile::{compile_files, inputs, Options};
use eubatch_ir::Gen;
use eubatch_perf::workspace_root;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let dir = workspace_root().join("../shared/corpora/shaderdb-skl");
    if !dir.is_dir() {
        eprintln!("skipping: {} not found", dir.display());
        return;
    }
    let roots = [dir];
    let files = inputs(&roots, false).expect("the SKL corpus has start dumps");
    let steps = eubatch_passes::manager::parse("opt").unwrap();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut jobs: Vec<usize> = std::iter::successors(Some(1), |j| Some(j * 2))
        .take_while(|&j| j < cores)
        .collect();
    jobs.push(cores);
    let mut one_thread = None;
    for j in jobs {
        let opts = Options {
            target: Some(Gen::Gen9),
            jobs: j,
            pipeline: "opt".into(),
            verify_seeds: None,
            verify_strict: false,
            dump_after: None,
            dump_all: None,
            histogram: false,
            stats: Some("unused".into()),
            stage: "opt".into(),
            regalloc: Vec::new(),
            from_pre_ra: false,
            schedule: Vec::new(),
            keep_spilling_variants: false,
            keep_all_simd32: false,
            keep_all_cs_variants: false,
            post_ra_schedule: true,
            mesa_post_ra_choice: false,
            bank_conflicts: true,
            emit: None,
        };
        let mut best = f64::INFINITY;
        let mut insts = 0;
        for round in 0..3 {
            let start = Instant::now();
            let (results, workers) = compile_files(
                &files,
                &roots,
                &opts,
                &steps,
                &indicatif::ProgressBar::hidden(),
            );
            let secs = start.elapsed().as_secs_f64();
            assert!(results.iter().all(|r| r.failure.is_none()));
            insts = workers.iter().map(|w| w.sums[0]).sum::<u64>();
            eprintln!("-j {j} round {round}: {secs:.3} s");
            best = best.min(secs);
        }
        let base = *one_thread.get_or_insert(best);
        println!(
            "shaderdb-skl compile (opt), -j {j}: {} shaders, {insts} instructions in; best of 3: {best:.2} s = {:.0} shaders/s, {:.2} M instructions/s; {:.2}x one thread",
            files.len(),
            files.len() as f64 / best,
            insts as f64 / 1e6 / best,
            base / best
        );
    }
}
