//! `eubatch compile`: import shaders and run a pipeline on them in parallel, printing the
//! instruction counts before and after, the time, and what every pass did. With `--verify`
//! the simulator compares every pass's input and output; `--dump-after PASS` prints the
//! IR after that pass, `--dump-all DIR` writes it after every pass (what Mesa's
//! `INTEL_DEBUG=optimizer` gives).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use eubatch_ir::import::{discover, load_file, InputKind};
use eubatch_ir::Gen;
use eubatch_passes::manager::{self, Checks, Stats, PASSES};

pub struct Options {
    pub target: Option<Gen>,
    pub jobs: usize,
    /// The pipeline (`--passes`, or what `--stop-after` names).
    pub pipeline: String,
    /// Compare every pass's input and output in the simulator, on these seeds.
    pub verify_seeds: Option<u64>,
    pub dump_after: Option<String>,
    pub dump_all: Option<PathBuf>,
    /// Print how many instructions of each opcode the output has.
    pub histogram: bool,
}

#[derive(Default)]
struct Totals {
    files: usize,
    before: usize,
    after: usize,
    /// Sums over shaders of the most registers live at once, before and after.
    pressure_before: u64,
    pressure_after: u64,
    /// Instructions per opcode in the output.
    opcodes: std::collections::BTreeMap<&'static str, usize>,
    stats: Option<Stats>,
    failures: Vec<String>,
}

pub fn run(paths: &[PathBuf], opts: &Options) -> ExitCode {
    let steps = match manager::parse(&opts.pipeline) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let Some(p) = &opts.dump_after {
        if !PASSES.iter().any(|(n, _)| n == p) {
            eprintln!("error: --dump-after: unknown pass `{p}`");
            return ExitCode::FAILURE;
        }
    }
    // Start dumps and eubatch files: the input of the optimization loop.
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
    let start = Instant::now();
    let totals = Mutex::new(Totals::default());
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..opts.jobs.max(1) {
            s.spawn(|| {
                let mut local = Totals {
                    stats: Some(Stats::new()),
                    ..Totals::default()
                };
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(path) = files.get(i) else { break };
                    compile_one(path, opts, &steps, &mut local);
                }
                let mut t = totals.lock().unwrap();
                t.files += local.files;
                t.before += local.before;
                t.after += local.after;
                t.pressure_before += local.pressure_before;
                t.pressure_after += local.pressure_after;
                for (k, v) in local.opcodes {
                    *t.opcodes.entry(k).or_default() += v;
                }
                t.failures.extend(local.failures);
                match (&mut t.stats, &local.stats) {
                    (Some(a), Some(b)) => a.add(b),
                    (a @ None, b) => *a = b.clone(),
                    _ => {}
                }
            });
        }
    });
    let elapsed = start.elapsed();
    let t = totals.into_inner().unwrap();
    let stats = t.stats.unwrap_or_else(Stats::new);
    println!("pass          runs  progress      time");
    for (k, (name, _)) in PASSES.iter().enumerate() {
        println!(
            "{name:12} {:6} {:9} {:>9}",
            stats.runs[k],
            stats.progress[k],
            format_duration(stats.time[k])
        );
    }
    for f in t.failures.iter().take(20) {
        println!("error: {f}");
    }
    let reduction = if t.before > 0 {
        100.0 * (t.before as f64 - t.after as f64) / t.before as f64
    } else {
        0.0
    };
    if opts.histogram {
        let mut ops: Vec<_> = t.opcodes.iter().collect();
        ops.sort_by_key(|(_, n)| std::cmp::Reverse(**n));
        for (name, n) in ops {
            println!("{n:9}  {name}");
        }
    }
    println!(
        "register pressure (most registers live at once, summed over shaders): {} before, {} after",
        t.pressure_before, t.pressure_after
    );
    println!(
        "compiled {} shaders with `{}`: {} instructions before, {} after ({:.2}% fewer) in {:.2} s; {} failures{}",
        t.files,
        opts.pipeline,
        t.before,
        t.after,
        reduction,
        elapsed.as_secs_f64(),
        t.failures.len(),
        if opts.verify_seeds.is_some() { ", every pass checked in the simulator" } else { "" }
    );
    if t.failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn format_duration(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

fn compile_one(path: &Path, opts: &Options, steps: &[manager::Step], totals: &mut Totals) {
    let name = path.to_string_lossy().into_owned();
    let mut shader = match load_file(path, &name, opts.target) {
        Ok(s) => s,
        Err(e) => {
            totals.failures.push(e.to_string());
            return;
        }
    };
    totals.files += 1;
    totals.before += shader.num_insts();
    let max_pressure = |s: &eubatch_ir::Shader| {
        eubatch_passes::PassCx::default()
            .pressure(s)
            .map_or(0, |p| p.max as u64)
    };
    totals.pressure_before += max_pressure(&shader);
    let mut dumps: Vec<(String, String)> = Vec::new();
    let wants_dumps = opts.dump_after.is_some() || opts.dump_all.is_some();
    let mut hook = |pass: &str, s: &eubatch_ir::Shader| {
        if opts.dump_all.is_some() || opts.dump_after.as_deref() == Some(pass) {
            dumps.push((pass.to_string(), eubatch_ir::text::print_shader(s)));
        }
    };
    let mut checks = Checks {
        verify_ir: true,
        simulate_seeds: opts.verify_seeds.map(|n| 0..n),
        after_pass: if wants_dumps { Some(&mut hook) } else { None },
    };
    let result = manager::run(
        &mut shader,
        steps,
        &mut checks,
        totals.stats.as_mut().unwrap(),
    );
    drop(checks);
    if let Err(e) = result {
        totals.failures.push(format!("{name}: {e}"));
    }
    totals.after += shader.num_insts();
    if opts.histogram {
        for inst in shader.layout.insts() {
            *totals
                .opcodes
                .entry(shader.insts.opcode[inst].name())
                .or_default() += 1;
        }
    }
    totals.pressure_after += max_pressure(&shader);
    for (k, (pass, text)) in dumps.iter().enumerate() {
        if let Some(dir) = &opts.dump_all {
            // The whole path, flattened: dumps of many directories share file names.
            let flat: String = path
                .to_string_lossy()
                .trim_start_matches(['.', '/'])
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || matches!(c, '-' | '.') {
                        c
                    } else {
                        '_'
                    }
                })
                .collect();
            let file = dir.join(format!("{flat}-{:03}-{pass}.eu", k + 1));
            if let Err(e) = std::fs::create_dir_all(dir).and_then(|_| std::fs::write(&file, text)) {
                totals.failures.push(format!("{}: {e}", file.display()));
            }
        } else {
            println!("# {name} after {pass}\n{text}");
        }
    }
}
