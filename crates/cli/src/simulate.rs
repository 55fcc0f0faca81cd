//! `eubatch run`: simulate one shader and print its outputs, or many and summarize which
//! ran to completion and why the others stopped.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use eubatch_ir::import::{discover, load_file, InputKind};
use eubatch_ir::Gen;

pub struct RunOptions {
    pub target: Option<Gen>,
    pub seed: u64,
    pub seeds: u64,
    pub steps: u64,
    pub trace: bool,
}

pub fn run(paths: &[PathBuf], opts: &RunOptions) -> ExitCode {
    let RunOptions {
        target,
        seed,
        seeds,
        steps,
        trace,
    } = *opts;
    let single = paths.len() == 1 && paths[0].is_file();
    let files = match discover(paths, |k| match k {
        InputKind::Mesa(d) => d.is_start(),
        InputKind::Eubatch => true,
    }) {
        Ok(f) if !f.is_empty() => f,
        Ok(_) => {
            eprintln!("error: no start dumps or .eu files found");
            return ExitCode::FAILURE;
        }
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    if single {
        let path = &files[0];
        let shader = match load_file(path, &path.to_string_lossy(), target) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::FAILURE;
            }
        };
        let mut tracer = |line: &str| eprintln!("{line}");
        let tr: Option<&mut dyn FnMut(&str)> = if trace { Some(&mut tracer) } else { None };
        return match eubatch_sim::run_limited(&shader, seed, steps, tr) {
            Ok(out) => {
                print!("{}", out.to_text());
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: {}: {e}", path.display());
                ExitCode::FAILURE
            }
        };
    }
    // Many shaders: how many complete on every seed, and the reasons the others stop.
    let (mut ok, mut failed) = (0usize, 0usize);
    // Each reason with how many shaders stopped for it and the first of them.
    let mut reasons: BTreeMap<String, (usize, String)> = BTreeMap::new();
    for path in &files {
        let shader = match load_file(path, &path.to_string_lossy(), target) {
            Ok(s) => s,
            Err(e) => {
                failed += 1;
                let r = reasons.entry(format!("import: {}", e.msg)).or_default();
                r.0 += 1;
                if r.1.is_empty() {
                    r.1 = path.display().to_string();
                }
                continue;
            }
        };
        let mut err = None;
        for s in seed..seed + seeds.max(1) {
            if let Err(e) = eubatch_sim::run_limited(&shader, s, steps, None) {
                err = Some(format!("{} (seed {s})", e.msg));
                break;
            }
        }
        match err {
            None => ok += 1,
            Some(m) => {
                failed += 1;
                let (msg, seed_note) = m.rsplit_once(" (seed ").unwrap();
                let r = reasons.entry(msg.to_string()).or_default();
                r.0 += 1;
                if r.1.is_empty() {
                    r.1 = format!("{} (seed {seed_note}", path.display());
                }
            }
        }
    }
    let mut top: Vec<(String, (usize, String))> = reasons.into_iter().collect();
    top.sort_by(|a, b| b.1 .0.cmp(&a.1 .0).then(a.0.cmp(&b.0)));
    for (m, (n, first)) in top.iter().take(15) {
        println!("{n:6}  {m}\n        first: {first}");
    }
    println!(
        "ran {} shaders on {} seeds: {} completed, {} stopped",
        files.len(),
        seeds.max(1),
        ok,
        failed
    );
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
