//! `eubatch run`: simulate one shader and print its outputs, or many and summarize which
//! ran to completion and why the others stopped.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use eubatch_ir::import::{discover, load_file, InputKind};
use eubatch_ir::Gen;

pub fn run(paths: &[PathBuf], target: Option<Gen>, seed: u64, seeds: u64, trace: bool) -> ExitCode {
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
        return match eubatch_sim::run(&shader, seed, tr) {
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
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    for path in &files {
        let shader = match load_file(path, &path.to_string_lossy(), target) {
            Ok(s) => s,
            Err(e) => {
                failed += 1;
                *reasons.entry(format!("import: {}", e.msg)).or_default() += 1;
                continue;
            }
        };
        let mut err = None;
        for s in seed..seed + seeds.max(1) {
            if let Err(e) = eubatch_sim::run(&shader, s, None) {
                err = Some(e.msg);
                break;
            }
        }
        match err {
            None => ok += 1,
            Some(m) => {
                failed += 1;
                *reasons.entry(m).or_default() += 1;
            }
        }
    }
    let mut top: Vec<(String, usize)> = reasons.into_iter().collect();
    top.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    for (m, n) in top.iter().take(15) {
        println!("{n:6}  {m}");
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
