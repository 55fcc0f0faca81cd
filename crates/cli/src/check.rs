//! `eubatch check`: parse and verify many files in parallel, report every error.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use eubatch_ir::import::{discover, load_text};
use eubatch_ir::Gen;

/// What checking one file found.
struct FileResult {
    insts: usize,
    bytes: usize,
    errors: Vec<String>,
}

fn check_file(path: &Path, target: Option<Gen>, round_trip: bool) -> FileResult {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            return FileResult {
                insts: 0,
                bytes: 0,
                errors: vec![format!("{}: cannot read: {e}", path.display())],
            }
        }
    };
    let name = path.to_string_lossy();
    let mut res = FileResult {
        insts: 0,
        bytes: text.len(),
        errors: Vec::new(),
    };
    match load_text(path, &text, &name, target) {
        Err(e) => res.errors.push(e.to_string()),
        Ok(shader) => {
            res.insts = shader.num_insts();
            for e in eubatch_ir::verify::verify(&shader) {
                res.errors.push(format!("{}: {e}", path.display()));
            }
            if round_trip {
                if let Err(e) = eubatch_ir::text::file::check_round_trip(&shader) {
                    res.errors
                        .push(format!("{}: round trip: {e}", path.display()));
                }
            }
        }
    }
    res
}

pub fn run(paths: &[PathBuf], target: Option<Gen>, jobs: usize, round_trip: bool) -> ExitCode {
    let start = Instant::now();
    let files = match discover(paths, |_| true) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    if files.is_empty() {
        eprintln!(
            "error: no shader files found under {}",
            paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
        return ExitCode::FAILURE;
    }
    // Work is handed out one file at a time from a shared counter: files differ in size by
    // two orders of magnitude, so fixed chunks would leave threads idle.
    let next = AtomicUsize::new(0);
    let mut results: Vec<Option<FileResult>> = (0..files.len()).map(|_| None).collect();
    let chunks: Vec<Vec<(usize, FileResult)>> = crossbeam::thread::scope(|s| {
        let handles: Vec<_> = (0..jobs.min(files.len()))
            .map(|_| {
                s.spawn(|_| {
                    let mut out = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= files.len() {
                            break;
                        }
                        out.push((i, check_file(&files[i], target, round_trip)));
                    }
                    out
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("checker thread panicked"))
            .collect()
    })
    .expect("checker threads panicked");
    for (i, r) in chunks.into_iter().flatten() {
        results[i] = Some(r);
    }
    let (mut insts, mut bytes, mut bad) = (0usize, 0usize, 0usize);
    for r in results.iter().flatten() {
        insts += r.insts;
        bytes += r.bytes;
        if !r.errors.is_empty() {
            bad += 1;
            for e in &r.errors {
                println!("error: {e}");
            }
        }
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "checked {} files, {} instructions, {:.1} MB in {:.2} s ({:.1} MB/s, {:.2} M instructions/s); {} files with errors",
        files.len(),
        insts,
        bytes as f64 / 1e6,
        secs,
        bytes as f64 / 1e6 / secs,
        insts as f64 / 1e6 / secs,
        bad
    );
    if bad == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
