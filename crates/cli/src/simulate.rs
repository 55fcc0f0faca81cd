//! `eubatch run`: simulate one shader and print its outputs, or many and summarize which
//! ran to completion and why the others stopped.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use eubatch_ir::import::{discover, load_file, InputKind};
use eubatch_ir::Gen;

/// Where a shader's inputs come from.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Inputs {
    /// Push constants, attributes and payload as separate seeded spaces.
    Logical,
    /// Push constants and attributes in the registers Mesa's thread setup puts them in
    /// (what `crosscheck` runs start dumps with).
    Hardware,
}

pub struct RunOptions {
    pub target: Option<Gen>,
    pub seed: u64,
    pub seeds: u64,
    pub steps: u64,
    pub trace: bool,
    pub inputs: Inputs,
}

pub fn run(paths: &[PathBuf], opts: &RunOptions) -> ExitCode {
    let RunOptions {
        target,
        seed,
        seeds,
        steps,
        trace,
        inputs,
    } = *opts;
    let single = paths.len() == 1 && paths[0].is_file();
    if single && paths[0].file_name().is_some_and(|n| n == "asm.txt") {
        return run_listing(&paths[0], opts);
    }
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
        let mut shader = match load_file(path, &path.to_string_lossy(), target) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::FAILURE;
            }
        };
        // vec4 URB reads Mesa's scheduler may have reordered: their offsets where the
        // final code beside the dump gives them (as `compile` and `crosscheck` take them).
        crate::urb_match::from_final_code(path, &mut shader, &mut Default::default());
        let mut tracer = |line: &str| eprintln!("{line}");
        let tr: Option<&mut dyn FnMut(&str)> = if trace { Some(&mut tracer) } else { None };
        let result = match inputs {
            Inputs::Logical => eubatch_sim::run_limited(&shader, seed, steps, tr),
            Inputs::Hardware => eubatch_sim::HardwareInputs::of(&shader, seed)
                .and_then(|hw| eubatch_sim::run_hardware(&shader, seed, &hw, steps, tr)),
        };
        return match result {
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
        let mut shader = match load_file(path, &path.to_string_lossy(), target) {
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
        crate::urb_match::from_final_code(path, &mut shader, &mut Default::default());
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

/// `eubatch run asm.txt`: every program of a Mesa final-code listing, on the register file
/// of the seed.
fn run_listing(path: &std::path::Path, opts: &RunOptions) -> ExitCode {
    let target = opts
        .target
        .or_else(|| eubatch_ir::import::guess_target(path))
        .unwrap_or(Gen::Gen9);
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
    };
    let programs = match eubatch_codegen::asm::read_asm(&text, &path.to_string_lossy(), target) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {}", e.in_file(&path.display().to_string()));
            return ExitCode::FAILURE;
        }
    };
    let mut status = ExitCode::SUCCESS;
    for (i, p) in programs.iter().enumerate() {
        let width = if p.vec4 {
            "vec4".to_string()
        } else {
            format!("SIMD{}", p.shader.dispatch_width)
        };
        println!(
            "# program {i}: {} {} {width} (line {})",
            p.stage.abbrev(),
            p.program,
            p.line
        );
        let mut tracer = |line: &str| eprintln!("{line}");
        let tr: Option<&mut dyn FnMut(&str)> = if opts.trace { Some(&mut tracer) } else { None };
        let run = if p.vec4 {
            eubatch_sim::run_limited_vec4
        } else {
            eubatch_sim::run_limited
        };
        match run(&p.shader, opts.seed, opts.steps, tr) {
            Ok(out) => print!("{}", out.to_text()),
            Err(e) => {
                eprintln!("error: {}: program {i}: {e}", path.display());
                status = ExitCode::FAILURE;
            }
        }
    }
    status
}
