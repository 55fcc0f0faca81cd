//! `eubatch check`: parse and verify many files in parallel, report every error.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
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
    let bar = crate::parallel::progress(files.len(), "checking");
    let (results, _) = crate::parallel::map_with(
        &files,
        jobs,
        crate::parallel::file_size,
        || (),
        |_, path| check_file(path, target, round_trip),
        &bar,
    );
    let (mut insts, mut bytes, mut bad) = (0usize, 0usize, 0usize);
    for r in &results {
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
