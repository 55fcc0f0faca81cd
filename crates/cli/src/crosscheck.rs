//! `eubatch crosscheck DIRS`: the Mesa cross-check over corpus directories. In every
//! directory holding an `asm.txt`, each start dump is paired with the program of Mesa's
//! final code for the same stage, program and SIMD width, both are simulated on the same
//! inputs ([`eubatch_sim::crosscheck`]), and the verdicts are counted per stage:
//! agree, differ (a bug to find), or not modelled yet (with the reasons).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use eubatch_codegen::asm::read_asm;
use eubatch_ir::import::listing::{listed_programs, AmbiguousReads, ListedProgram};
use eubatch_ir::import::{guess_target, load_file, DumpName};
use eubatch_ir::Gen;
use eubatch_sim::crosscheck::{crosscheck, Verdict};

/// Step limit per run: far above what corpus shaders need.
const STEPS: u64 = 1_000_000;

pub struct Options {
    pub target: Option<Gen>,
    pub seeds: u64,
    pub jobs: usize,
    /// Print every disagreement (not only the counts and the first few).
    pub verbose: bool,
    /// Print both runs of every disagreeing pair, instruction by instruction.
    pub trace: bool,
}

fn listings(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.flatten().collect();
    entries.sort_by_key(|e| e.path());
    for e in entries {
        let p = e.path();
        if p.is_dir() {
            listings(&p, out)?;
        } else if p.file_name().is_some_and(|n| n == "asm.txt") {
            out.push(p);
        }
    }
    Ok(())
}

#[derive(Default)]
struct Tally {
    /// Per stage: (agree, differ, not modelled).
    by_stage: BTreeMap<String, (usize, usize, usize)>,
    /// Not-modelled reasons with a count and the first pair.
    reasons: BTreeMap<String, (usize, String)>,
    differences: Vec<String>,
    /// Agreeing pairs whose reordered URB reads took their offsets by [`by_assignment`].
    by_assignment: usize,
}

pub fn run(paths: &[PathBuf], opts: &Options) -> ExitCode {
    let mut files = Vec::new();
    for p in paths {
        if let Err(e) = listings(p, &mut files) {
            eprintln!("error: {}: {e}", p.display());
            return ExitCode::FAILURE;
        }
    }
    if files.is_empty() {
        eprintln!("error: no asm.txt found");
        return ExitCode::FAILURE;
    }
    let tally = Mutex::new(Tally::default());
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..opts.jobs.max(1) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(asm) = files.get(i) else { break };
                check_dir(asm, opts, &tally);
            });
        }
    });
    let t = tally.into_inner().unwrap();
    let (mut agree, mut differ, mut other) = (0, 0, 0);
    for (stage, (a, d, n)) in &t.by_stage {
        let total = a + d + n;
        println!(
            "{stage:4} {total:6} pairs: {a:6} agree ({:.1}%), {d:5} differ, {n:6} not modelled yet",
            100.0 * *a as f64 / total.max(1) as f64
        );
        agree += a;
        differ += d;
        other += n;
    }
    let mut reasons: Vec<_> = t.reasons.into_iter().collect();
    reasons.sort_by_key(|r| std::cmp::Reverse(r.1 .0));
    for (r, (n, first)) in reasons.iter().take(12) {
        println!("  {n:6}  {r}\n          first: {first}");
    }
    let shown = if opts.verbose {
        t.differences.len()
    } else {
        t.differences.len().min(10)
    };
    for d in &t.differences[..shown] {
        println!("differ: {d}");
    }
    if t.by_assignment > 0 {
        println!(
            "  of the pairs that agree, {} have vec4 URB reads Mesa's scheduler reordered: \
             their offsets are the only assignment of the final code's, among those the \
             data flow allows, that agrees",
            t.by_assignment
        );
    }
    println!(
        "cross-checked {} pairs on {} seeds: {agree} agree, {differ} differ, {other} not modelled yet",
        agree + differ + other,
        opts.seeds
    );
    if differ == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn check_dir(asm: &Path, opts: &Options, tally: &Mutex<Tally>) {
    let dir = asm.parent().unwrap();
    let target = opts
        .target
        .or_else(|| guess_target(asm))
        .unwrap_or(Gen::Gen9);
    let note = |stage: &str, reason: String, what: String| {
        let mut t = tally.lock().unwrap();
        t.by_stage.entry(stage.to_string()).or_default().2 += 1;
        let e = t.reasons.entry(reason).or_default();
        e.0 += 1;
        if e.1.is_empty() {
            e.1 = what;
        }
    };
    let text = match std::fs::read_to_string(asm) {
        Ok(t) => t,
        Err(e) => {
            return note(
                "?",
                format!("reading asm.txt: {e}"),
                asm.display().to_string(),
            )
        }
    };
    let mut starts: Vec<(DumpName, PathBuf)> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = DumpName::parse(&e.file_name().to_string_lossy())?;
            name.is_start().then_some((name, e.path()))
        })
        .collect();
    starts.sort_by(|a, b| a.1.cmp(&b.1));
    let programs = match read_asm(&text, &asm.to_string_lossy(), target) {
        Ok(p) => p,
        Err(e) => {
            for (name, path) in &starts {
                note(
                    name.stage.abbrev(),
                    format!("asm.txt: {}", e.msg),
                    path.display().to_string(),
                );
            }
            return;
        }
    };
    // The listing's URB messages, read once where a pair needs them.
    let mut listed: Option<Vec<ListedProgram>> = None;
    for (name, path) in &starts {
        let stage = name.stage.abbrev();
        // A vec4 dump (no width) pairs with the program's vec4 code.
        let Some(prog) = programs.iter().find(|p| {
            p.stage == name.stage
                && p.program == name.program
                && match name.width {
                    Some(w) => p.shader.dispatch_width == w && !p.vec4,
                    None => p.vec4,
                }
        }) else {
            // Mesa dropped this width (it keeps only the widths it will use).
            continue;
        };
        let start = match load_file(path, &path.to_string_lossy(), Some(target)) {
            Ok(s) => s,
            Err(e) => {
                note(
                    stage,
                    format!("import: {}", e.msg),
                    path.display().to_string(),
                );
                continue;
            }
        };
        let runs = if prog.vec4 {
            let listed = listed.get_or_insert_with(|| listed_programs(&text).unwrap_or_default());
            listed
                .iter()
                .find(|p| p.stage == name.stage && p.program == name.program && p.width.is_none())
                .map(|p| crate::urb_match::reordered_runs(path, name, &text, p, &start))
                .unwrap_or_default()
        } else {
            Vec::new()
        };
        let verdict = if runs.is_empty() {
            crosscheck(&start, &prog.shader, 0..opts.seeds, STEPS)
        } else {
            by_assignment(&start, &prog.shader, &runs, opts.seeds)
        };
        match verdict {
            Verdict::Agree => {
                let mut t = tally.lock().unwrap();
                t.by_stage.entry(stage.into()).or_default().0 += 1;
                t.by_assignment += usize::from(!runs.is_empty());
            }
            Verdict::Differ { seed, what } => {
                if opts.trace {
                    print_traces(&start, &prog.shader, seed);
                }
                let mut t = tally.lock().unwrap();
                t.by_stage.entry(stage.into()).or_default().1 += 1;
                t.differences
                    .push(format!("{} (seed {seed}): {what}", path.display()));
            }
            Verdict::NotModelled(m) => note(stage, m, path.display().to_string()),
        }
    }
}

/// The cross-check of a vec4 pair whose start IR has URB reads Mesa's scheduler may have
/// reordered among themselves (`runs`): agreement where exactly one assignment of their
/// offsets agrees ([`crate::urb_match::unique_assignment`]), else its verdict.
fn by_assignment(
    start: &eubatch_ir::Shader,
    final_code: &eubatch_ir::Shader,
    runs: &[AmbiguousReads],
    seeds: u64,
) -> Verdict {
    match crate::urb_match::unique_assignment(start, final_code, runs, seeds) {
        Ok(_) => Verdict::Agree,
        Err(v) => v,
    }
}

/// Both runs of a pair on `seed`, instruction by instruction, with each destination's value.
fn print_traces(start: &eubatch_ir::Shader, final_code: &eubatch_ir::Shader, seed: u64) {
    let Ok(hw) = eubatch_sim::HardwareInputs::of(start, seed) else {
        return;
    };
    for (what, shader) in [("start IR", start), ("final code", final_code)] {
        let mut lines = Vec::new();
        let mut tr = |l: &str| lines.push(l.to_string());
        let _ = eubatch_sim::run_hardware(shader, seed, &hw, STEPS, Some(&mut tr));
        println!(
            "== {what}: {} (seed {seed})\n{}",
            shader.name,
            lines.join("\n")
        );
    }
}
