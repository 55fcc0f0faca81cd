//! `eubatch`: the command-line driver.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use eubatch_ir::Gen;

use eubatch::{check, compile, crosscheck, mesa_stats, report, simulate};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

extern "C" {
    /// mimalloc's option setter (built into the `mimalloc` crate's C library).
    fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
}

/// `mi_option_purge_delay` in mimalloc v3's `mimalloc.h` (the version the `mimalloc` crate
/// in Cargo.lock builds): how long freed memory stays with the process before it goes back
/// to the system.
const MI_OPTION_PURGE_DELAY: std::ffi::c_int = 15;

/// Freed memory goes back to the system after 50 ms instead of mimalloc's default of one
/// second: the driver frees each shader's analyses within milliseconds, and a second's
/// worth of them (hundreds of shaders) held on to made the peak resident size of a corpus
/// run much higher than what is live. Measured on shaderdb-skl `--stop-after lower -j 2`
/// (5 runs each, alternating): peak 69 MiB against 85 MiB at the default, wall time 0.99×.
/// Shorter delays cost time (10 ms: 63 MiB, 1.08× the time: returning memory is a system
/// call). `MIMALLOC_PURGE_DELAY` still overrides it.
fn return_freed_memory_sooner() {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: setting an allocator option at start-up, before any other thread
        // exists; mimalloc reads it on each purge decision.
        unsafe { mi_option_set(MI_OPTION_PURGE_DELAY, 50) };
    }
}

#[derive(Parser)]
#[command(
    name = "eubatch",
    version,
    about = "A batch compiler back end for Intel GPU execution units"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Parse and verify shaders (Mesa dumps or .eu files, or directories of them); print a
    /// summary and every error.
    Check {
        /// Files or directories.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// GPU the Mesa dumps were made for (skl, bdw, hsw, ...); guessed from directory
        /// names such as `shaderdb-skl` when absent.
        #[arg(long, value_parser = parse_target)]
        target: Option<Gen>,
        /// Worker threads (default: the number of cores).
        #[arg(short = 'j', long)]
        jobs: Option<usize>,
        /// Also print every shader in eubatch's format, parse it back and require the same IR.
        #[arg(long)]
        round_trip: bool,
    },
    /// Import shaders and run passes on them (in parallel): instruction counts before and
    /// after, time, and what every pass did.
    Compile {
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        #[arg(long, value_parser = parse_target)]
        target: Option<Gen>,
        /// Worker threads (default: the number of cores).
        #[arg(short = 'j', long)]
        jobs: Option<usize>,
        /// The stage to stop after: `opt` (the optimization loop), `lower` (the loop,
        /// lowering to hardware form — payloads, SIMD widths, regions, integer multiplies,
        /// logical messages to sends — the loop again and constants into registers; the
        /// result must pass the hardware-form verifier, comparable to Mesa's
        /// pre_register_allocate dumps) or `final` (then register allocation with `mesa`
        /// unless --regalloc names another, the generator's expansion and encoding: final
        /// instructions, bytes and Mesa's cycle estimate of the binary). Default: `final`
        /// (none with --passes, which names the pipeline itself).
        #[arg(long)]
        stop_after: Option<String>,
        /// A pipeline instead: pass names and `loop(...)`, comma-separated
        /// (`algebraic,copy_prop,dce`, `loop(copy_prop,dce)`, `opt`).
        #[arg(long)]
        passes: Option<String>,
        /// Which of seed 000's DF swizzle splitting classes `lower_df_swizzles` in the
        /// pipeline may use, the chain enabled step by step: `e` (one instruction per
        /// component), `d-`, `c-`, `b`, `a+`, `all` (with C+ and D+), or `mesa` (Mesa 22.3's
        /// rule: native or per component). The pipeline's `lower_df_swizzles` becomes that
        /// level's pass (`lower_df_swizzles_e`, ...).
        #[arg(long)]
        df_swizzle_classes: Option<String>,
        /// Compare every pass's input and output in the simulator (on 2 seeds), and say how
        /// many shaders were checked and why the others were not; `--verify=strict` makes
        /// a shader the simulator cannot run a failure.
        #[arg(long, num_args = 0..=1, default_missing_value = "on", value_parser = ["on", "strict"])]
        verify: Option<String>,
        /// Print the IR after this pass, each time it runs.
        #[arg(long)]
        dump_after: Option<String>,
        /// Write the IR after every pass into this directory.
        #[arg(long)]
        dump_all: Option<PathBuf>,
        /// Print how many instructions of each opcode the output has.
        #[arg(long)]
        histogram: bool,
        /// Write per-shader statistics (JSON lines for .json/.jsonl, CSV for .csv).
        #[arg(long)]
        stats: Option<PathBuf>,
        /// Allocate registers with this allocator (`linear`, `mesa`, `subreg`: eubatch_regalloc's
        /// ALLOCATORS) after lowering (the pipeline is `lower` unless --passes names one),
        /// spilling what does not fit as Mesa 22.3 does, check every allocation (and, with
        /// --verify, every spilled shader in the simulator), and print registers used,
        /// spills and fills. Several, comma-separated (`linear,mesa`), compares them in one
        /// run: each allocates the same lowered shaders, and a shader-by-shader report of
        /// the first against each other one follows the totals (--stats writes one file
        /// per allocator, its name before the extension).
        #[arg(long, value_delimiter = ',')]
        regalloc: Vec<String>,
        /// What to read: `start` (Mesa's start dumps, or .eu files, through the pipeline) or
        /// `pre-ra` (Mesa's `*-pre_register_allocate` dumps, no pass: with --regalloc, an
        /// allocator on exactly the IR Mesa allocated; the variant's start dump beside each
        /// is read for its input layout and, with --verify, its outputs).
        #[arg(long, default_value = "start", value_parser = ["start", "pre-ra"])]
        from: String,
        /// With --regalloc: pre-RA scheduling. `mesa` tries Mesa's modes in Mesa's order
        /// (top-down, non-lifo, none, lifo) and keeps the first whose allocation fits; a
        /// mode's name uses that mode only (`none`: the order as it is).
        #[arg(long, default_value = "mesa", value_parser = ["mesa", "top-down", "non-lifo", "none", "lifo"])]
        schedule: String,
        /// With --regalloc: spill SIMD16/SIMD32 variants Mesa does not let spill (fragment
        /// shaders; compute shaders with a narrower variant) and keep them, where Mesa drops
        /// them (they are counted as dropped otherwise).
        #[arg(long)]
        keep_spilling_variants: bool,
        /// With --regalloc: keep every SIMD32 fragment variant that allocates (and every
        /// SIMD16 one). By default one is kept only as Mesa's brw_compile_fs keeps it: no
        /// narrower variant spilled, the SIMD16 variant compiled, and its throughput
        /// (Mesa's performance model on its binary) beats theirs, and a SIMD16 one only when
        /// the SIMD8 variant did not spill; the others are counted and left out of the
        /// totals and --stats, as Mesa's statistics leave them out.
        #[arg(long)]
        keep_all_simd32: bool,
        /// With --regalloc: keep every compute variant that allocates. By default one per
        /// shader is kept, as Mesa's brw_compile_cs keeps it (brw_simd_select): the widest
        /// that allocated without spilling, no wider width tried once a narrower one
        /// spilled; the others are counted and left out of the totals and --stats.
        #[arg(long)]
        keep_all_cs_variants: bool,
        /// With --regalloc (or --stop-after final): write each shader's final code into
        /// --emit-dir, as Mesa's listing (`asm`: NAME.asm, asm.txt's format, disassembled
        /// from the bytes) or as the binary (`bin`: NAME.bin).
        #[arg(long, value_parser = ["asm", "bin"], requires = "emit_dir")]
        emit: Option<String>,
        /// Where --emit writes.
        #[arg(long, requires = "emit")]
        emit_dir: Option<PathBuf>,
        /// With --regalloc: leave the order register allocation leaves. By default the
        /// register-form code is scheduled for latency before the generator, in Mesa's
        /// post-RA mode (SCHEDULE_POST: latencies from Mesa's table, each block's
        /// instructions reordered within their register, flag and accumulator dependencies).
        #[arg(long)]
        no_post_ra_schedule: bool,
        /// With --regalloc: schedule after allocation choosing candidates by Mesa's rule
        /// (the first unblocked) rather than eubatch's default (the longest path to the
        /// block's end among the candidates ready by the scheduler's clock)
        #[arg(long, conflicts_with = "no_post_ra_schedule")]
        mesa_post_ra_choice: bool,
        /// With --regalloc: leave allocated values in the registers allocation gave them.
        /// By default they are moved between register banks first, as Mesa's
        /// opt_bank_conflicts does, so that fewer three-source instructions read two
        /// sources from one bank (a cycle lost per register on gen7-gen9).
        #[arg(long)]
        no_bank_conflicts: bool,
    },
    /// The Mesa cross-check: simulate each start dump and Mesa's final code for it (asm.txt
    /// in the same directory) on the same inputs and count where they agree.
    Crosscheck {
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        #[arg(long, value_parser = parse_target)]
        target: Option<Gen>,
        /// Seeds to run each pair on.
        #[arg(long, default_value_t = 4)]
        seeds: u64,
        /// Worker threads (default: the number of cores).
        #[arg(short = 'j', long)]
        jobs: Option<usize>,
        /// Print every disagreement.
        #[arg(long)]
        verbose: bool,
        /// Print both runs of every disagreeing pair (seed of the difference).
        #[arg(long)]
        trace: bool,
    },
    /// Simulate shaders: one file prints its outputs; several (or a directory of start dumps)
    /// print how many ran to completion and why the others stopped.
    Run {
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        #[arg(long, value_parser = parse_target)]
        target: Option<Gen>,
        /// Seed of the generated inputs (the same seed gives the same run).
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// With several shaders: seeds to run each on, from --seed.
        #[arg(long, default_value_t = 4)]
        seeds: u64,
        /// Stop a run after this many executed instructions (an infinite loop?).
        #[arg(long, default_value_t = eubatch_sim::STEP_LIMIT)]
        steps: u64,
        /// Print every executed instruction with its channel mask (one shader).
        #[arg(long)]
        trace: bool,
        /// Where inputs come from: `logical` (seeded spaces for push constants and
        /// attributes) or `hardware` (Mesa's register layout, as `crosscheck` uses).
        #[arg(long, value_enum, default_value_t = simulate::Inputs::Logical)]
        inputs: simulate::Inputs,
    },
    /// Statistics Mesa reports for a corpus, in the format of `compile --stats`: the
    /// pre_register_allocate dumps of every variant, or stats.txt's final code of the variants
    /// Mesa kept.
    Stats {
        /// The corpus (a directory of Mesa dumps, such as ../shared/corpora/shaderdb-skl).
        #[arg(long, required = true)]
        mesa: PathBuf,
        /// Which numbers: `pre-ra` (to compare with eubatch before register allocation) or
        /// `final`.
        #[arg(long, value_enum, default_value_t = mesa_stats::MesaStage::PreRa)]
        stage: mesa_stats::MesaStage,
        #[arg(long, value_parser = parse_target)]
        target: Option<Gen>,
        /// Worker threads (default: the number of cores).
        #[arg(short = 'j', long)]
        jobs: Option<usize>,
        /// The statistics file to write (JSON lines for .json/.jsonl, CSV for .csv).
        #[arg(short = 'o', long)]
        out: PathBuf,
    },
    /// Compare two statistics files (`compile --stats`, `stats --mesa`): totals, helped and
    /// hurt shaders per statistic, the most changed shaders, shaders only one side has.
    Report {
        /// The baseline.
        a: PathBuf,
        /// The new numbers.
        b: PathBuf,
        /// Also write one self-contained HTML page with the tables and plots.
        #[arg(long)]
        html: Option<PathBuf>,
        /// How many shaders to list as most helped and most hurt.
        #[arg(long, default_value_t = 10)]
        top: usize,
        /// Compare files for different targets, versions or stages anyway.
        #[arg(long)]
        force: bool,
    },
    /// The DF swizzle lowering's table (seed 000, issue 19): the vec4 start dumps' DF
    /// Align16 instructions by splitting class, and the instruction counts after
    /// `lower_df_swizzles` at each level (E only, D-, C-, B, A+, all, Mesa's rule) beside
    /// Mesa's pre_register_allocate dumps.
    DfSwizzles {
        paths: Vec<PathBuf>,
        #[arg(long, value_parser = parse_target)]
        target: Option<Gen>,
    },
    /// Print one shader in eubatch's format.
    Print {
        file: PathBuf,
        #[arg(long, value_parser = parse_target)]
        target: Option<Gen>,
    },
}

fn parse_target(s: &str) -> Result<Gen, String> {
    Gen::from_name(s).ok_or_else(|| {
        format!(
            "unknown target `{s}`; known: {}",
            Gen::all_names().collect::<Vec<_>>().join(", ")
        )
    })
}

/// `-j`, or the number of cores.
fn default_jobs(jobs: Option<usize>) -> usize {
    jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1)
}

fn main() -> ExitCode {
    return_freed_memory_sooner();
    // Output piped into `head` and closed early ends the program quietly, as a Unix tool
    // does, instead of panicking on the failed write (Rust ignores SIGPIPE by default).
    #[cfg(unix)]
    // SAFETY: restoring the default disposition of one signal at start-up, before any
    // other thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    match cli.cmd {
        Cmd::Check {
            paths,
            target,
            jobs,
            round_trip,
        } => check::run(&paths, target, default_jobs(jobs), round_trip),
        Cmd::Run {
            paths,
            target,
            seed,
            seeds,
            steps,
            trace,
            inputs,
        } => simulate::run(
            &paths,
            &simulate::RunOptions {
                target,
                seed,
                seeds,
                steps,
                trace,
                inputs,
            },
        ),
        Cmd::Compile {
            paths,
            target,
            jobs,
            stop_after,
            passes,
            verify,
            dump_after,
            dump_all,
            histogram,
            stats,
            regalloc,
            from,
            schedule,
            keep_spilling_variants,
            keep_all_simd32,
            keep_all_cs_variants,
            emit,
            emit_dir,
            no_post_ra_schedule,
            mesa_post_ra_choice,
            no_bank_conflicts,
            df_swizzle_classes,
        } => {
            let from_pre_ra = from == "pre-ra";
            // What users compare is final code (issue 17): the whole pipeline unless a stage
            // or a pipeline of one's own is named.
            let stop_after = stop_after
                .unwrap_or_else(|| if passes.is_some() { "opt" } else { "final" }.to_string());
            // `final`: the whole pipeline, allocated with Mesa's allocator unless one is named.
            let mut regalloc = regalloc;
            if stop_after == "final" && regalloc.is_empty() {
                regalloc.push("mesa".into());
            }
            if emit.is_some() && regalloc.is_empty() {
                eprintln!("error: --emit writes final code: it needs --stop-after final or --regalloc NAME");
                return ExitCode::FAILURE;
            }
            if from_pre_ra && (passes.is_some() || regalloc.is_empty()) {
                eprintln!("error: --from pre-ra runs no pass and needs --regalloc NAME or --stop-after final (Mesa's pre-RA dumps are already lowered)");
                return ExitCode::FAILURE;
            }
            let custom = passes.is_some();
            let passes = match (passes, df_swizzle_classes) {
                (p, None) => p,
                (Some(p), Some(level)) => {
                    let Some(level) = eubatch_passes::lower::df_swizzles::Level::from_name(&level)
                    else {
                        eprintln!("error: --df-swizzle-classes: unknown level `{level}` (levels: e, d-, c-, b, a+, all, mesa)");
                        return ExitCode::FAILURE;
                    };
                    // `lower` runs the DF lowering at level `all`: a level asked for there
                    // would be ignored, and the figures would be another level's.
                    let names = |t: &str| {
                        t.split([',', '(', ')'])
                            .map(str::trim)
                            .filter(|n| !n.is_empty())
                            .map(String::from)
                            .collect::<Vec<_>>()
                    };
                    if names(&p).iter().any(|n| n == "lower") {
                        eprintln!(
                            "error: --df-swizzle-classes chooses the level of `lower_df_swizzles` named in --passes; `lower` runs it at level `all`: name vec4's lowering instead, e.g. --passes '{}'",
                            eubatch_passes::manager::LOWER_VEC4
                        );
                        return ExitCode::FAILURE;
                    }
                    Some(
                        p.split(',')
                            .map(|name| {
                                let t = name.trim();
                                let bare = t.trim_start_matches("loop(").trim_end_matches(')');
                                if bare == "lower_df_swizzles" {
                                    t.replace(bare, level.pass_name())
                                } else {
                                    t.to_string()
                                }
                            })
                            .collect::<Vec<_>>()
                            .join(","),
                    )
                }
                (None, Some(_)) => {
                    eprintln!("error: --df-swizzle-classes chooses the level of `lower_df_swizzles` in a pipeline given with --passes");
                    return ExitCode::FAILURE;
                }
            };
            let pipeline = match (passes, stop_after.as_str()) {
                _ if from_pre_ra => "none (Mesa's pre-RA dumps)".to_string(),
                (Some(p), _) => p,
                // Registers are allocated in hardware form.
                (None, _) if !regalloc.is_empty() => "lower".to_string(),
                (None, "opt") => "opt".to_string(),
                (None, "lower") => "lower".to_string(),
                (None, other) => {
                    eprintln!(
                        "error: --stop-after: unknown stage `{other}` (stages: opt, lower, final)"
                    );
                    return ExitCode::FAILURE;
                }
            };
            compile::run(
                &paths,
                &compile::Options {
                    target,
                    jobs: default_jobs(jobs),
                    pipeline,
                    verify_seeds: verify.is_some().then_some(2),
                    verify_strict: verify.as_deref() == Some("strict"),
                    dump_after,
                    dump_all,
                    histogram,
                    stats,
                    // A pipeline of one's own is not a stage: the options name it.
                    stage: if custom {
                        "passes".into()
                    } else if from_pre_ra {
                        "mesa-pre-ra+ra".into()
                    } else if stop_after == "final" {
                        "final".into()
                    } else if !regalloc.is_empty() {
                        "ra".into()
                    } else {
                        stop_after.clone()
                    },
                    regalloc,
                    from_pre_ra,
                    schedule: eubatch_regalloc::strategy::modes_named(&schedule)
                        .expect("clap checked the name"),
                    keep_spilling_variants,
                    keep_all_simd32,
                    keep_all_cs_variants,
                    emit: emit.zip(emit_dir).map(|(kind, dir)| {
                        let kind = if kind == "asm" {
                            compile::Emit::Asm
                        } else {
                            compile::Emit::Bin
                        };
                        (kind, dir)
                    }),
                    post_ra_schedule: !no_post_ra_schedule,
                    mesa_post_ra_choice,
                    bank_conflicts: !no_bank_conflicts,
                },
            )
        }
        Cmd::Crosscheck {
            paths,
            target,
            seeds,
            jobs,
            verbose,
            trace,
        } => crosscheck::run(
            &paths,
            &crosscheck::Options {
                target,
                seeds,
                jobs: default_jobs(jobs),
                verbose,
                trace,
            },
        ),
        Cmd::Stats {
            mesa,
            stage,
            target,
            jobs,
            out,
        } => mesa_stats::run(
            &mesa,
            &mesa_stats::Options {
                target,
                stage,
                jobs: default_jobs(jobs),
                out,
            },
        ),
        Cmd::Report {
            a,
            b,
            html,
            top,
            force,
        } => report::run(&a, &b, &report::Options { force, html, top }),
        Cmd::DfSwizzles { paths, target } => eubatch::df_table::run(&paths, target),
        Cmd::Print { file, target } => {
            let name = file.to_string_lossy().into_owned();
            match eubatch_ir::import::load_file(&file, &name, target) {
                Ok(shader) => {
                    let errs = eubatch_ir::verify::verify(&shader);
                    print!("{}", eubatch_ir::text::print_shader(&shader));
                    for e in &errs {
                        eprintln!("{}: {e}", file.display());
                    }
                    if errs.is_empty() {
                        ExitCode::SUCCESS
                    } else {
                        ExitCode::FAILURE
                    }
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    ExitCode::FAILURE
                }
            }
        }
    }
}
