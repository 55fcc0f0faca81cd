//! `eubatch compile`: import shaders and run a pipeline on them in parallel, printing the
//! instruction counts before and after, the time, and what every pass did. With `--verify`
//! the simulator compares every pass's input and output; `--dump-after PASS` prints the
//! IR after that pass, `--dump-all DIR` writes it after every pass (what Mesa's
//! `INTEL_DEBUG=optimizer` gives). `--regalloc NAME` allocates registers after the pipeline
//! with that allocator (`eubatch_regalloc`), spilling what does not fit
//! (`allocate_with_spills`), checks every allocation with the checker (a violation is a
//! failure) and, with `--verify`, every spilled shader against the unspilled one in the
//! simulator, and prints registers used, spills and fills; a SIMD16/SIMD32 variant Mesa
//! does not let spill (fragment; compute with a narrower variant) and that does not fit is
//! dropped and counted, as Mesa drops it, unless `--keep-spilling-variants`; of the
//! variants that allocate, a SIMD32 fragment one is kept as Mesa's `brw_compile_fs` keeps
//! it ([`simd32_fate`]) and one per compute shader as `brw_compile_cs` chooses it
//! ([`crate::simd_select`]) unless `--keep-all-simd32` / `--keep-all-cs-variants`. `--stats`
//! then has each shader's spills and fills. The register-form code is scheduled in Mesa's
//! post-RA mode before the generator (`eubatch_passes::schedule::post_ra`) unless
//! `--no-post-ra-schedule`.
//!
//! `--regalloc A,B,...` compares allocators in one run: the pipeline runs once and each
//! allocator starts from the same lowered shader; the totals of each are printed, then a
//! shader-by-shader report of A against each other one (`eubatch report`'s tables), and
//! `--stats F` writes one file per allocator (`F` with the allocator's name before the
//! extension) for `eubatch report` later.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use eubatch_ir::import::{discover, load_text, InputKind};
use eubatch_ir::Gen;
use eubatch_passes::manager::{self, Check, Checks, Stats, PASSES};

pub struct Options {
    pub target: Option<Gen>,
    pub jobs: usize,
    /// The pipeline (`--passes`, or what `--stop-after` names).
    pub pipeline: String,
    /// Compare every pass's input and output in the simulator, on these seeds.
    pub verify_seeds: Option<u64>,
    /// With `verify_seeds`: a shader the simulator cannot run is a failure.
    pub verify_strict: bool,
    pub dump_after: Option<String>,
    pub dump_all: Option<PathBuf>,
    /// Print how many instructions of each opcode the output has.
    pub histogram: bool,
    /// Write per-shader statistics here (JSON lines or CSV, by extension).
    pub stats: Option<PathBuf>,
    /// The stage the pipeline stops after, recorded in the statistics file.
    pub stage: String,
    /// Allocate registers after the pipeline with these allocators (none: no allocation),
    /// each from the same lowered shader, spilling what does not fit, and check the result.
    pub regalloc: Vec<String>,
    /// Read Mesa's `*-pre_register_allocate` dumps instead of the start dumps and run no
    /// pass: an allocator given exactly the IR Mesa allocated (with `regalloc`). The
    /// variant's start dump beside each gives the thread's input layout and, with
    /// `--verify`, the outputs the allocated code must compute.
    pub from_pre_ra: bool,
    /// With `regalloc`: the pre-RA scheduling modes to try, in order (Mesa's four, or one).
    pub schedule: Vec<eubatch_passes::schedule::Mode>,
    /// Spill and keep SIMD16/SIMD32 variants Mesa does not let spill (it drops them).
    pub keep_spilling_variants: bool,
    /// With `regalloc`: keep every SIMD32 fragment variant that allocates, where Mesa keeps
    /// one only when it is faster than the narrower ones ([`simd32_fate`]).
    pub keep_all_simd32: bool,
    /// With `regalloc`: keep every compute variant that allocates, where Mesa's
    /// `brw_compile_cs` keeps one per shader ([`crate::simd_select`]).
    pub keep_all_cs_variants: bool,
    /// With `regalloc`: schedule the register-form code for latency before the generator
    /// (Mesa's `SCHEDULE_POST`, `eubatch_passes::schedule::post_ra`).
    pub post_ra_schedule: bool,
    /// With `post_ra_schedule`: Mesa's candidate choice rather than eubatch's
    /// (`eubatch_passes::schedule::post_ra::PostRaScheduler::mesa_choice`).
    pub mesa_post_ra_choice: bool,
    /// With `regalloc`: move allocated values between register banks before that, as
    /// Mesa's `opt_bank_conflicts` does (`eubatch_regalloc::bank_conflicts`).
    pub bank_conflicts: bool,
    /// With `regalloc`: write each shader's final code (the first allocator's) into this
    /// directory, as Mesa's listing or as the raw binary.
    pub emit: Option<(Emit, PathBuf)>,
}

/// What `--emit` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Emit {
    /// Mesa's listing (`asm.txt` format): `NAME.asm`.
    Asm,
    /// The program's bytes as the EU reads them: `NAME.bin`.
    Bin,
}

/// Register allocation totals of one thread (`--regalloc`).
#[derive(Clone, Default)]
pub struct RaTotals {
    /// Shaders allocated and checked.
    pub allocated: u64,
    /// Of them, shaders that spilled, and what: VGRFs spilled, spill and fill messages
    /// (Mesa's counts).
    pub spilled: u64,
    pub vgrfs_spilled: u64,
    pub spills: u64,
    pub fills: u64,
    /// SIMD16/SIMD32 variants that do not fit without spilling where Mesa does not let
    /// them spill (fragment shaders, compute shaders with a narrower variant:
    /// `mesa_lets_spill`), dropped as Mesa drops them: not spilled, not among those
    /// allocated and checked. Kept, spilled, with `--keep-spilling-variants`.
    pub dropped: u64,
    /// SIMD16 and SIMD32 fragment variants allocated but not kept, as Mesa's
    /// `brw_compile_fs` would not keep them given their narrower siblings, by reason
    /// ([`simd16_fate`], [`simd32_fate`]); their other totals are not counted.
    pub simd32_dropped: std::collections::BTreeMap<&'static str, u64>,
    /// Compute variants allocated but not kept, as Mesa's `brw_compile_cs` keeps one per
    /// shader, by reason ([`crate::simd_select::cs_not_kept`]); their other totals are not
    /// counted.
    pub cs_not_kept: std::collections::BTreeMap<String, u64>,
    /// With `--verify`: spilled shaders compared with the unspilled ones in the simulator
    /// (equal), and those it could not run.
    pub spills_simulated: u64,
    pub spills_not_simulated: u64,
    /// Mesa's `grf_used` (one past the highest register), summed.
    pub grf_used: u64,
    /// Registers taken (each counted once), summed.
    pub taken: u64,
    /// Registers holding two or more values live at once, summed: false dependencies
    /// before gen12, whose scoreboard tracks whole registers.
    pub shared: u64,
    /// With `--verify`: allocated shaders the simulator ran in register form against their
    /// start IR, with the same outputs (a difference is a failure).
    pub sim_agree: u64,
    /// With `--verify`: allocated shaders the simulator could not compare, by reason (not
    /// verified, and counted; with `--verify=strict` a failure).
    pub sim_not_run: std::collections::BTreeMap<String, u64>,
    /// Shaders by the scheduling mode kept (Mesa's names).
    pub modes: std::collections::BTreeMap<&'static str, u64>,
    /// Time in the allocator and in the checker.
    pub alloc_time: Duration,
    pub check_time: Duration,
    /// Shaders the allocator's rules do not cover (a stage whose thread layout is not
    /// modelled yet, say), by reason: left out of allocation and counted, not failures.
    pub not_allocated: std::collections::BTreeMap<String, u64>,
    /// Allocated shaders expanded as Mesa's generator expands them
    /// (`eubatch_codegen::generate`), with their final instruction counts summed; those
    /// whose count is not known, by reason (an opcode not expanded).
    pub expanded: u64,
    pub final_instructions: u64,
    /// Their encoded instructions, the generator's NOPs included (Mesa's listing header).
    pub encoded_instructions: u64,
    pub not_expanded: std::collections::BTreeMap<String, u64>,
    /// Shaders scheduled after allocation, the scheduler's estimate of their cycles before
    /// and after (block schedule lengths summed, Mesa's scheduler latencies), and its time.
    pub post_ra_scheduled: u64,
    pub post_ra_estimate: eubatch_passes::schedule::post_ra::Estimate,
    pub post_ra_time: Duration,
    /// Bank-conflict mitigation: shaders whose registers it moved, atoms moved, and the
    /// three-source instructions incurring a conflict before and after, over all shaders.
    pub bank_shaders_changed: u64,
    pub bank_atoms_moved: u64,
    pub bank_conflicts_before: u64,
    pub bank_conflicts_after: u64,
    /// Expanded shaders encoded (`eubatch_codegen::final_code`): their bytes, and before
    /// compaction; instructions compacted; Mesa's cycle estimate of the decoded binary,
    /// summed over those it prices, and why the others have none.
    pub encoded: u64,
    pub bytes: u64,
    pub bytes_native: u64,
    pub compacted: u64,
    pub cycles: u64,
    pub priced: u64,
    pub not_priced: std::collections::BTreeMap<String, u64>,
    /// Expanded shaders that did not encode, by reason.
    pub not_encoded: std::collections::BTreeMap<String, u64>,
    /// With `--verify`: of `sim_agree`, the shaders whose decoded binary ran (the others
    /// ran in register form: not encoded).
    pub sim_binary: u64,
}

/// Adds one to `map[why]`.
fn count(map: &mut std::collections::BTreeMap<String, u64>, why: String) {
    *map.entry(why).or_default() += 1;
}

impl RaTotals {
    fn add(&mut self, o: &RaTotals) {
        self.allocated += o.allocated;
        self.spilled += o.spilled;
        self.vgrfs_spilled += o.vgrfs_spilled;
        self.spills += o.spills;
        self.fills += o.fills;
        self.dropped += o.dropped;
        for (why, n) in &o.simd32_dropped {
            *self.simd32_dropped.entry(why).or_default() += n;
        }
        for (why, n) in &o.cs_not_kept {
            *self.cs_not_kept.entry(why.clone()).or_default() += n;
        }
        self.spills_simulated += o.spills_simulated;
        self.spills_not_simulated += o.spills_not_simulated;
        self.grf_used += o.grf_used;
        self.taken += o.taken;
        self.shared += o.shared;
        self.sim_agree += o.sim_agree;
        for (why, n) in &o.sim_not_run {
            *self.sim_not_run.entry(why.clone()).or_default() += n;
        }
        for (m, n) in &o.modes {
            *self.modes.entry(m).or_default() += n;
        }
        self.alloc_time += o.alloc_time;
        self.check_time += o.check_time;
        for (why, n) in &o.not_allocated {
            *self.not_allocated.entry(why.clone()).or_default() += n;
        }
        self.expanded += o.expanded;
        self.final_instructions += o.final_instructions;
        self.encoded_instructions += o.encoded_instructions;
        for (why, n) in &o.not_expanded {
            *self.not_expanded.entry(why.clone()).or_default() += n;
        }
        self.post_ra_scheduled += o.post_ra_scheduled;
        self.post_ra_estimate += o.post_ra_estimate;
        self.post_ra_time += o.post_ra_time;
        self.bank_shaders_changed += o.bank_shaders_changed;
        self.bank_atoms_moved += o.bank_atoms_moved;
        self.bank_conflicts_before += o.bank_conflicts_before;
        self.bank_conflicts_after += o.bank_conflicts_after;
        self.encoded += o.encoded;
        self.bytes += o.bytes;
        self.bytes_native += o.bytes_native;
        self.compacted += o.compacted;
        self.cycles += o.cycles;
        self.priced += o.priced;
        for (why, n) in &o.not_priced {
            *self.not_priced.entry(why.clone()).or_default() += n;
        }
        for (why, n) in &o.not_encoded {
            *self.not_encoded.entry(why.clone()).or_default() += n;
        }
        self.sim_binary += o.sim_binary;
    }
}

/// What one thread keeps from shader to shader.
pub struct Worker {
    /// Pass runs, progress and time.
    pub stats: Stats,
    /// Instructions per opcode in the output (`--histogram`).
    pub opcodes: std::collections::BTreeMap<&'static str, usize>,
    /// The file being read, reused: its capacity grows to the largest shader seen.
    text: String,
    /// Shaders compiled, and their instruction counts before and after and most registers
    /// live at once after, summed.
    pub compiled: usize,
    pub sums: [u64; 3],
    /// vec4 (Align16) shaders compiled, those of them some pass changed, those whose
    /// changes the simulator compared (`--verify`), and the pass runs compared: the
    /// summary says how many vec4 shaders the simulator really checked.
    pub vec4: [u64; 4],
    /// The targets the shaders were compiled for.
    pub targets: std::collections::BTreeSet<&'static str>,
    /// Register allocation (`--regalloc`), one per allocator.
    pub ra: Vec<RaTotals>,
    /// The final-code listing of the directory being compiled, read once for its dumps.
    listings: eubatch_ir::import::Listings,
    /// The last shader's access table, whose storage the next one's takes
    /// ([`eubatch_passes::PassCx::reusing`]).
    access_storage: Option<eubatch_passes::analysis::access_table::AccessTable>,
    /// One of each allocator of `--regalloc`, kept from shader to shader: what an allocator
    /// builds per shader (the `mesa` allocator's interference graph, megabytes on a large
    /// shader) reuses the storage of the last one instead of the allocator's memory being
    /// returned to the system and faulted in again.
    allocators: Vec<Box<dyn eubatch_regalloc::Allocator>>,
}

/// What compiling one shader leaves for the end of the run, in the order of the input: a
/// few empty pointers when there is nothing to keep, so memory grows with the shaders in
/// flight and not with the corpus; totals go to the thread's [`Worker`]. What is kept was
/// asked for: statistics (`--stats`, or several allocators to compare), IR dumps
/// (`--dump-after`), errors.
#[derive(Default)]
pub struct Compiled {
    /// The shader's statistics: one, or one per allocator compared (`--regalloc A,B`);
    /// none for an allocator that dropped the variant, as Mesa drops it (its final code
    /// is not kept: Mesa's statistics do not have it either).
    pub stats: Option<Box<[Option<crate::stats::ShaderStats>]>>,
    /// With `--regalloc`: per allocator, what became of the variant, which decides whether
    /// Mesa would keep a wider variant of the same fragment shader ([`simd32_fate`]).
    pub fates: Box<[Fate]>,
    pub failure: Option<Box<str>>,
    /// The shader was left out: a pass of the pipeline does not handle it (why).
    pub refused: Option<Box<str>>,
    /// With `--verify`: why the simulator could not check the shader, if it could not.
    pub unchecked: Option<Box<str>>,
    /// `--dump-after`: the IR after that pass, printed in input order at the end.
    pub dumps: Option<Box<Vec<(String, String)>>>,
}

/// How the reason for leaving out a shader no allocator takes begins.
const ALLOCATION_REFUSAL: &str = "register allocation: ";

/// Fault injection for the driver's failure-isolation test: a shader whose path contains
/// this variable's value panics in the middle of its compilation.
const INJECT_PANIC: &str = "EUBATCH_INJECT_PANIC";

pub fn run(paths: &[PathBuf], opts: &Options) -> ExitCode {
    let steps = match manager::parse(&opts.pipeline) {
        _ if opts.from_pre_ra => Vec::new(),
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let Some(p) = &opts.dump_after {
        // `ra`: the code in register form after --regalloc.
        let register_form = p == "ra" && !opts.regalloc.is_empty();
        if manager::pass_index(p).is_none() && !register_form {
            eprintln!("error: --dump-after: unknown pass `{p}`");
            return ExitCode::FAILURE;
        }
    }
    for (k, name) in opts.regalloc.iter().enumerate() {
        if opts.regalloc[..k].contains(name) {
            eprintln!("error: --regalloc: `{name}` is named twice");
            return ExitCode::FAILURE;
        }
        if eubatch_regalloc::by_name(name).is_none() {
            eprintln!(
                "error: --regalloc: unknown allocator `{name}` (allocators: {})",
                eubatch_regalloc::allocator_names()
            );
            return ExitCode::FAILURE;
        }
    }
    let files = match inputs(paths, opts.from_pre_ra) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let start = Instant::now();
    let bar = crate::parallel::progress(files.len(), "compiling");
    let (results, workers) = compile_files(&files, paths, opts, &steps, &bar);
    let elapsed = start.elapsed();
    let mut stats = Stats::new();
    let mut opcodes = std::collections::BTreeMap::<&'static str, usize>::new();
    for w in &workers {
        stats.add(&w.stats);
        for (k, v) in &w.opcodes {
            *opcodes.entry(k).or_default() += v;
        }
    }
    let mut sums = [0u64; 3];
    let mut vec4 = [0u64; 4];
    let mut compiled = 0usize;
    let mut targets = std::collections::BTreeSet::new();
    let mut ra = vec![RaTotals::default(); opts.regalloc.len()];
    for w in &workers {
        for (t, o) in ra.iter_mut().zip(&w.ra) {
            t.add(o);
        }
        compiled += w.compiled;
        for k in 0..3 {
            sums[k] += w.sums[k];
        }
        for (total, n) in vec4.iter_mut().zip(w.vec4) {
            *total += n;
        }
        targets.extend(w.targets.iter().copied());
    }
    // Per-shader statistics: one list, or one per allocator compared.
    let mut shaders = vec![Vec::new(); opts.regalloc.len().max(1)];
    let mut failures = Vec::new();
    // Shaders left out, by reason: (count, first shader).
    let mut refused = std::collections::BTreeMap::<Box<str>, (u64, PathBuf)>::new();
    let mut unchecked = std::collections::BTreeMap::<Box<str>, u64>::new();
    for (r, path) in results.into_iter().zip(&files) {
        for (what, text) in r.dumps.iter().flat_map(|d| d.iter()) {
            println!("# {what}\n{text}");
        }
        for (list, s) in shaders
            .iter_mut()
            .zip(r.stats.into_iter().flat_map(|s| s.into_vec()))
        {
            list.extend(s);
        }
        failures.extend(r.failure);
        if let Some(why) = r.refused {
            refused.entry(why).or_insert((0, path.clone())).0 += 1;
        }
        if let Some(why) = r.unchecked {
            *unchecked.entry(why).or_default() += 1;
        }
    }
    let [before, after, pressure_after] = sums;
    // Sorted by key: the same file whatever the thread count.
    for list in &mut shaders {
        list.sort_by(|a, b| a.key.cmp(&b.key));
    }
    let left_out_list: Vec<crate::stats::LeftOut> = refused
        .iter()
        .map(|(why, (n, _))| crate::stats::LeftOut {
            shaders: *n,
            reason: why.to_string(),
        })
        .collect();
    let headers: Vec<crate::stats::Header> = (0..shaders.len())
        .map(|k| header(opts, opts.regalloc.get(k), &targets, &left_out_list))
        .collect();
    if let Some(out) = &opts.stats {
        for (k, (header, list)) in headers.iter().zip(&shaders).enumerate() {
            let file = match opts.regalloc.len() {
                0 | 1 => out.clone(),
                _ => stats_file_of(out, &opts.regalloc[k]),
            };
            if let Err(e) = crate::stats::write(&file, header, list) {
                eprintln!("error: {}: {e}", file.display());
                return ExitCode::FAILURE;
            }
        }
    }
    println!("pass          runs  progress      time");
    for (k, pass) in PASSES.iter().enumerate() {
        println!(
            "{:12} {:6} {:9} {:>9}",
            pass.name,
            stats.runs[k],
            stats.progress[k],
            format_duration(stats.time[k])
        );
    }
    for f in &failures {
        println!("error: {f}");
    }
    let left_out: u64 = refused.values().map(|(n, _)| n).sum();
    for (why, (n, first)) in &refused {
        println!(
            "not compiled: {n} shader{} ({}{}): {why}",
            if *n == 1 { "" } else { "s" },
            first.display(),
            if *n > 1 { ", ..." } else { "" }
        );
    }
    let reduction = if before > 0 {
        100.0 * (before as f64 - after as f64) / before as f64
    } else {
        0.0
    };
    if opts.histogram {
        let mut ops: Vec<_> = opcodes.iter().collect();
        ops.sort_by_key(|(_, n)| std::cmp::Reverse(**n));
        for (name, n) in ops {
            println!("{n:9}  {name}");
        }
    }
    println!(
        "register pressure after (most registers live at once, summed over shaders): {pressure_after}"
    );
    for (name, ra) in opts.regalloc.iter().zip(&ra) {
        if opts.verify_seeds.is_some() {
            let not_run: u64 = ra.sim_not_run.values().sum();
            println!(
                "simulator, register form: {} allocated shaders ran against their start IR with the same outputs ({} of them as the binary, decoded from its bytes); {not_run} not run{}",
                ra.sim_agree,
                ra.sim_binary,
                if not_run > 0 { ":" } else { "" }
            );
            for (why, n) in &ra.sim_not_run {
                println!("  {n:6}  {why}");
            }
        }
        println!(
            "register allocation (`{name}`): {} shaders allocated and checked, {} spilled ({} VGRFs; {} spills, {} fills), {} fit without spilling; {} SIMD16/SIMD32 variants dropped, not fitting without spilling where Mesa does not let them spill (fragment; compute with a narrower variant){}; registers used (Mesa's grf_used) {} in all, registers taken {} in all, shared by values live at once (false dependencies before gen12) {}; allocator {}, checker {}",
            ra.allocated,
            ra.spilled,
            ra.vgrfs_spilled,
            ra.spills,
            ra.fills,
            ra.allocated - ra.spilled,
            ra.dropped,
            if opts.keep_spilling_variants { " (kept: --keep-spilling-variants)" } else { "" },
            ra.grf_used,
            ra.taken,
            ra.shared,
            format_duration(ra.alloc_time),
            format_duration(ra.check_time)
        );
        if !opts.keep_all_simd32 {
            print_not_kept(
                "SIMD16/SIMD32 fragment variants allocated and not kept, as Mesa's brw_compile_fs would not keep them (not counted above or below; --keep-all-simd32 keeps them)",
                &ra.simd32_dropped,
            );
        }
        if !opts.keep_all_cs_variants {
            print_not_kept(
                "compute variants allocated and not kept, as Mesa's brw_compile_cs keeps one per shader (brw_simd_select; not counted above or below; --keep-all-cs-variants keeps them)",
                &ra.cs_not_kept,
            );
        }
        let modes: Vec<String> = ra.modes.iter().map(|(m, n)| format!("{m} {n}")).collect();
        println!(
            "scheduling mode kept (the first of those tried whose allocation fits): {}",
            modes.join(", ")
        );
        if opts.verify_seeds.is_some() {
            println!(
                "spilled shaders in the simulator: {} equal to the unspilled ones, {} not run",
                ra.spills_simulated, ra.spills_not_simulated
            );
        }
        for (why, n) in &ra.not_allocated {
            println!(
                "not allocated: {n} shader{}: {why}",
                if *n == 1 { "" } else { "s" }
            );
        }
        if opts.bank_conflicts {
            println!(
                "bank conflicts (Mesa's opt_bank_conflicts): registers moved in {} shaders ({} atoms); three-source instructions reading two sources from one bank: {} before, {} after",
                ra.bank_shaders_changed,
                ra.bank_atoms_moved,
                ra.bank_conflicts_before,
                ra.bank_conflicts_after
            );
        }
        if opts.post_ra_schedule {
            let e = ra.post_ra_estimate;
            let change = if e.before > 0 {
                format!(
                    " ({:+.2}%)",
                    (e.after as f64 - e.before as f64) * 100.0 / e.before as f64
                )
            } else {
                String::new()
            };
            println!(
                "post-RA scheduling (Mesa's SCHEDULE_POST): {} shaders; the scheduler's estimate (block schedule lengths summed, Mesa's scheduler latencies) {} cycles before, {} after{change}; {}",
                ra.post_ra_scheduled,
                e.before,
                e.after,
                format_duration(ra.post_ra_time)
            );
        }
        println!(
            "final code (the generator's expansion): {} instructions in {} shaders ({} encoded, with the NOPs Mesa's statistic leaves out)",
            ra.final_instructions, ra.expanded, ra.encoded_instructions
        );
        for (why, n) in &ra.not_expanded {
            println!(
                "final instruction count not known for {n} shader{} ({why})",
                if *n == 1 { "" } else { "s" }
            );
        }
        println!(
            "binary: {} shaders encoded, {} bytes ({} before compaction; {} instructions compacted); cycles (Mesa's model on the decoded binary): {} in {} shaders",
            ra.encoded, ra.bytes, ra.bytes_native, ra.compacted, ra.cycles, ra.priced
        );
        for (why, n) in &ra.not_encoded {
            println!(
                "not encoded: {n} shader{}: {why}",
                if *n == 1 { "" } else { "s" }
            );
        }
        for (why, n) in &ra.not_priced {
            println!(
                "no cycle estimate: {n} shader{}: {why}",
                if *n == 1 { "" } else { "s" }
            );
        }
    }
    let secs = elapsed.as_secs_f64();
    if opts.verify_seeds.is_some() {
        let runs: u64 = stats.checked.iter().sum();
        let not_run: u64 = unchecked.values().sum();
        println!(
            "simulator: checked {} of {compiled} compiled shaders ({runs} pass runs that changed them compared with their input, equal); {not_run} not run by the simulator{}",
            compiled as u64 - not_run,
            if not_run > 0 { ":" } else { "" }
        );
        for (why, n) in &unchecked {
            println!("  {n:6}  {why}");
        }
        if vec4[0] > 0 {
            println!(
                "simulator, vec4 (Align16) shaders: {} compiled; {} changed by some pass, {} of them compared in the simulator ({} pass runs compared); {} changed by no pass (nothing to compare)",
                vec4[0],
                vec4[1],
                vec4[2],
                vec4[3],
                vec4[0] - vec4[1]
            );
        }
    }
    if opts.regalloc.len() > 1 {
        // Several allocators: each against the first, shader by shader.
        let mut sides = headers.into_iter().zip(shaders).zip(&opts.regalloc).map(
            |((header, shaders), name)| crate::report::Side {
                path: format!("--regalloc {name}"),
                header,
                shaders,
            },
        );
        let a = sides.next().expect("two allocators or more");
        for b in sides {
            let r = crate::report::compare(&a.shaders, &b.shaders);
            println!(
                "\n# allocators compared on the same shaders: {} (A) and {} (B)\n{}",
                a.path,
                b.path,
                crate::report::render_text(&a, &b, &r, &[], 10)
            );
        }
    }
    println!(
        "compiled {compiled} of {} shaders with `{}`: {before} instructions before, {after} after ({reduction:.2}% fewer) in {secs:.2} s ({:.0} shaders/s); {} failures{}",
        files.len(),
        opts.pipeline,
        files.len() as f64 / secs.max(1e-9),
        failures.len(),
        if left_out > 0 && refused.keys().any(|r| r.starts_with(ALLOCATION_REFUSAL)) {
            format!(", {left_out} not compiled (no pass of the pipeline or no allocator takes them)")
        } else if left_out > 0 {
            format!(", {left_out} not compiled (no pass of the pipeline may change them)")
        } else {
            String::new()
        }
    );
    if failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// The header of a statistics file: what changes the numbers is the pipeline and, after
/// it, the allocator and the scheduling modes tried.
fn header(
    opts: &Options,
    allocator: Option<&String>,
    targets: &std::collections::BTreeSet<&'static str>,
    left_out: &[crate::stats::LeftOut],
) -> crate::stats::Header {
    crate::stats::Header {
        tool: "eubatch".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        target: crate::stats::target_name(opts.target, targets),
        stage: opts.stage.clone(),
        options: match allocator {
            Some(name) => format!(
                "{} --regalloc {name} --schedule {}",
                opts.pipeline,
                opts.schedule
                    .iter()
                    .map(|m| m.name())
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            None => opts.pipeline.clone(),
        },
        left_out: left_out.to_vec(),
    }
}

/// Allocator `name`'s statistics file when several are compared: `out` with the name
/// before the extension (`s.json` → `s.mesa.json`), so `eubatch report` reads each.
pub fn stats_file_of(out: &Path, name: &str) -> PathBuf {
    let stem = out.file_stem().unwrap_or_default().to_string_lossy();
    match out.extension() {
        Some(ext) => out.with_file_name(format!("{stem}.{name}.{}", ext.to_string_lossy())),
        None => out.with_file_name(format!("{stem}.{name}")),
    }
}

/// What `compile` takes under `paths`: start dumps and eubatch files, sorted; finding
/// nothing is an error.
pub fn inputs(paths: &[PathBuf], pre_ra: bool) -> Result<Vec<PathBuf>, String> {
    let files = discover(paths, |k| match k {
        InputKind::Mesa(d) if pre_ra => d.is_pre_register_allocate(),
        InputKind::Mesa(d) => d.is_start(),
        InputKind::Eubatch => !pre_ra,
    })
    .map_err(|e| e.to_string())?;
    if files.is_empty() {
        return Err(format!(
            "nothing to compile: no {} under {}",
            if pre_ra {
                "pre-RA dumps (`*-pre_register_allocate`)"
            } else {
                "start dumps (`*-00-00-start`) or .eu files"
            },
            paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    Ok(files)
}

/// The start dump of the variant whose pre-RA dump is `path` (the same directory).
fn start_beside(
    path: &Path,
    target: Option<eubatch_ir::Gen>,
) -> Result<eubatch_ir::Shader, String> {
    let file = path.file_name().unwrap_or_default().to_string_lossy();
    let name = eubatch_ir::import::DumpName::parse(&file)
        .ok_or_else(|| format!("`{file}` is not a Mesa dump name"))?;
    let start = path.with_file_name(name.start_file_name());
    let text = std::fs::read_to_string(&start).map_err(|e| {
        format!(
            "the variant's start dump {} (where its thread inputs sit, and what the allocated code must compute): {e}",
            start.display()
        )
    })?;
    load_text(&start, &text, &start.to_string_lossy(), target).map_err(|e| e.to_string())
}

/// The SFID and descriptors of the sends of `pre_ra` (a Mesa pre-RA dump read from
/// `path`), from the final code beside it and eubatch's lowering of the variant's start
/// dump `start` ([`crate::pre_ra`]); `mesa22`: the dump is Mesa 22.3's, whose
/// printer drops fixed registers' sub-registers.
fn recover_sends(
    path: &Path,
    pre_ra: &mut eubatch_ir::Shader,
    start: &eubatch_ir::Shader,
    mesa22: bool,
) -> Result<crate::pre_ra::Recovered, crate::pre_ra::NotRecovered> {
    use crate::pre_ra::{reason, NotRecovered};
    let file = path.file_name().unwrap_or_default().to_string_lossy();
    let program = eubatch_ir::import::DumpName::parse(&file)
        .map(|d| d.program)
        .unwrap_or_default();
    let asm = path.with_file_name("asm.txt");
    let listing = match std::fs::read_to_string(&asm) {
        Ok(text) => eubatch_codegen::asm::read_asm(&text, &asm.to_string_lossy(), pre_ra.target)
            .map_err(|e| NotRecovered {
                reason: reason::NO_LISTING,
                detail: format!("{}:{}:{}: {}", asm.display(), e.line, e.col, e.msg),
            })?,
        Err(e) => {
            return Err(NotRecovered {
                reason: reason::NO_LISTING,
                detail: format!("{}: {e}", asm.display()),
            })
        }
    };
    // eubatch's own lowering of the start dump (what `--stop-after lower` gives), only
    // when a send's message is not otherwise known. For a Mesa 22.3 dump without
    // `zero_samples`: Mesa 22.3 keeps trailing zero sampler parameters (its
    // `opt_zero_samples` finds none on gen7+), so its sends are those of a lowering that
    // keeps them; Mesa 25 leaves them out as eubatch does.
    let mut lowered = || {
        let pipeline = if mesa22 {
            let keeping = manager::LOWER.replace("zero_samples,", "");
            debug_assert_ne!(keeping, manager::LOWER, "the lowering names zero_samples");
            keeping
        } else {
            manager::LOWER.to_string()
        };
        let steps = manager::parse(&pipeline).ok()?;
        let mut s = start.clone();
        let mut checks = Checks {
            verify_ir: false,
            equivalence: None,
            after_pass: None,
        };
        let mut stats = Stats::new();
        let mut cx = eubatch_passes::PassCx::default();
        manager::run_with(&mut s, &steps, &mut checks, &mut stats, &mut cx).ok()?;
        Some(s)
    };
    // Each part is recovered even where an earlier one is not, so that the allocator has
    // what can be known (a send's response size, say) whether or not the shader can run;
    // the first part not recovered is the reason it cannot.
    let mut first_missing = None;
    // Float immediates the printer rounded to six digits, from the start dump's constants.
    let floats = eubatch_ir::import::float_immediates::recover(pre_ra, start);
    if let Some(&(ip, v)) = floats.unknown.first() {
        first_missing.get_or_insert(NotRecovered {
            reason: reason::FLOAT_IMMEDIATE,
            detail: format!(
                "ip {ip}: `{v}f`{}",
                match floats.unknown.len() {
                    1 => String::new(),
                    n => format!(" and {} more", n - 1),
                }
            ),
        });
    }
    if mesa22 {
        // pln first: the final code's plane reads are `pln`s.
        crate::pre_ra::linterps_as_plns(pre_ra);
        let mut undo = pre_ra.clone();
        if let Err(e) = crate::pre_ra::fixed_scalars(pre_ra, start, &listing, &program) {
            // From the variant of another width, its own sub-registers put back from
            // its final code (the variant Mesa kept, where Mesa dropped this one).
            let wider = sibling_beside(path, &undo, &listing, &program, start.target);
            match wider.map(|w| crate::pre_ra::fixed_scalars_from_wider(&mut undo, start, &w)) {
                Some(Ok(_)) => *pre_ra = undo,
                _ => {
                    first_missing.get_or_insert(e);
                }
            }
        }
    }
    let sends = crate::pre_ra::recover(pre_ra, &program, &listing, &mut lowered);
    if std::env::var_os("EUBATCH_PRESSURE_DIAG").is_some() {
        if let Err(e) = &sends {
            eprintln!("SENDS {e}");
        }
    }
    match first_missing {
        Some(e) => Err(e),
        None => sends,
    }
}

/// The pre-RA dump of another width's variant of `pre_ra` beside `path` (SIMD16 first,
/// then SIMD8, then SIMD32), linterps made plns and its fixed-register scalars'
/// sub-registers put back from its own final code in `listing`: the first for which
/// that succeeds, if any.
fn sibling_beside(
    path: &Path,
    pre_ra: &eubatch_ir::Shader,
    listing: &[eubatch_codegen::asm::AsmProgram],
    program: &str,
    target: Gen,
) -> Option<eubatch_ir::Shader> {
    if !matches!(pre_ra.stage, eubatch_ir::Stage::Cs | eubatch_ir::Stage::Fs) {
        return None;
    }
    let file = path.file_name()?.to_string_lossy().into_owned();
    let abbrev = pre_ra.stage.abbrev();
    let rest = file.strip_prefix(&format!("{abbrev}{}-", pre_ra.dispatch_width))?;
    let gen = Some(target);
    [16u8, 8, 32]
        .into_iter()
        .filter(|&w| w != pre_ra.dispatch_width)
        .find_map(|width| {
            let wide_path = path.with_file_name(format!("{abbrev}{width}-{rest}"));
            let text = std::fs::read_to_string(&wide_path).ok()?;
            let mut wide = load_text(&wide_path, &text, &wide_path.to_string_lossy(), gen).ok()?;
            let mut start = start_beside(&wide_path, gen).ok()?;
            start.freeze_inputs();
            wide.inputs = start.inputs.clone();
            crate::pre_ra::linterps_as_plns(&mut wide);
            crate::pre_ra::fixed_scalars(&mut wide, &start, listing, program).ok()?;
            Some(wide)
        })
}

/// The driver proper: compiles `files` (found under `roots`) on `opts.jobs` threads and
/// returns what each gave, in the order of `files`, and every thread's totals. With
/// `--regalloc` a fragment shader's variants are compiled together, narrowest first, so
/// that its SIMD32 variant is kept or not as Mesa decides it ([`simd32_fate`]), and so are
/// a compute shader's, of which Mesa keeps one ([`crate::simd_select`]).
pub fn compile_files(
    files: &[PathBuf],
    roots: &[PathBuf],
    opts: &Options,
    steps: &[manager::Step],
    bar: &indicatif::ProgressBar,
) -> (Vec<Compiled>, Vec<Worker>) {
    let inject_panic = std::env::var(INJECT_PANIC).ok().filter(|s| !s.is_empty());
    let allocating = !opts.regalloc.is_empty();
    let groups = variant_groups(
        files,
        allocating && !opts.keep_all_simd32,
        allocating && !opts.keep_all_cs_variants,
    );
    let one = |w: &mut Worker, path: &PathBuf| {
        // A panic in a pass is a bug to report, not the end of the run.
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            compile_one(path, roots, opts, steps, w, inject_panic.as_deref())
        }))
        .unwrap_or_else(|p| {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            Compiled {
                failure: Some(
                    format!("{}: eubatch bug: a pass panicked: {msg}", path.display()).into(),
                ),
                ..Compiled::default()
            }
        })
    };
    // One group of variants ([`variant_groups`]) on the worker's thread, with Mesa's choice
    // of which it keeps where the group is one.
    let compile_group = |w: &mut Worker, group: &[Variant]| -> Vec<Compiled> {
        bar.inc(group.len() as u64 - 1);
        let mut done: Vec<Compiled> = Vec::with_capacity(group.len());
        if group.len() > 1 && group[0].compute {
            // A compute shader's variants each with totals of their own, then those
            // of the one Mesa keeps (and of the failed ones, counted as dropped).
            let mut parts = Vec::with_capacity(group.len());
            for v in group {
                let fresh = vec![RaTotals::default(); opts.regalloc.len()];
                let totals = std::mem::replace(&mut w.ra, fresh);
                done.push(one(w, &files[v.file]));
                parts.push(std::mem::replace(&mut w.ra, totals));
            }
            for k in 0..opts.regalloc.len() {
                let fates: Vec<(u8, Fate)> = group
                    .iter()
                    .zip(&done)
                    .map(|(v, c)| (v.width, c.fates.get(k).copied().unwrap_or_default()))
                    .collect();
                let why = crate::simd_select::cs_not_kept(&fates);
                for (j, why) in why.into_iter().enumerate() {
                    let Some(why) = why else {
                        w.ra[k].add(&parts[j][k]);
                        continue;
                    };
                    count(&mut w.ra[k].cs_not_kept, why);
                    let r = &mut done[j];
                    r.fates[k].kept = false;
                    if let Some(stats) = r.stats.as_mut() {
                        stats[k] = None;
                    }
                    if let (0, Some((kind, dir))) = (k, &opts.emit) {
                        let _ =
                            std::fs::remove_file(emitted_file(dir, *kind, &files[group[j].file]));
                    }
                }
            }
            return done;
        }
        for v in group {
            let path = &files[v.file];
            if !matches!(v.width, 16 | 32) || group.len() == 1 {
                done.push(one(w, path));
                continue;
            }
            // A SIMD16 or SIMD32 variant after its narrower siblings: kept, or taken
            // back out of the totals as Mesa would not have kept it.
            let before = w.ra.clone();
            let mut r = one(w, path);
            let sibling = |width: u8, k: usize| {
                group
                    .iter()
                    .zip(&done)
                    .find(|(s, _)| s.width == width)
                    .map(|(_, c)| c.fates.get(k).copied().unwrap_or_default())
            };
            for k in 0..r.fates.len() {
                let fate = if v.width == 32 {
                    simd32_fate(r.fates[k], sibling(8, k), sibling(16, k))
                } else {
                    simd16_fate(r.fates[k], sibling(8, k))
                };
                let Some(why) = fate else {
                    continue;
                };
                w.ra[k] = before[k].clone();
                *w.ra[k].simd32_dropped.entry(why).or_default() += 1;
                r.fates[k].kept = false;
                if let Some(stats) = r.stats.as_mut() {
                    stats[k] = None;
                }
                if let (0, Some((kind, dir))) = (k, &opts.emit) {
                    let _ = std::fs::remove_file(emitted_file(dir, *kind, path));
                }
            }
            done.push(r);
        }
        done
    };
    // The groups of one directory go to one thread one after another: its dumps share the
    // final-code listing beside them, which the thread's importer then reads and takes
    // apart once ([`eubatch_ir::import::Listings`]) instead of once per dump.
    let batches = directory_batches(files, &groups);
    let (per_batch, workers) = crate::parallel::map_with(
        &batches,
        opts.jobs,
        |batch| {
            batch
                .iter()
                .flat_map(|&g| &groups[g])
                .map(|v| crate::parallel::file_size(&files[v.file]))
                .sum()
        },
        || Worker {
            stats: Stats::new(),
            opcodes: Default::default(),
            text: String::new(),
            compiled: 0,
            sums: [0; 3],
            vec4: [0; 4],
            targets: Default::default(),
            ra: vec![RaTotals::default(); opts.regalloc.len()],
            listings: Default::default(),
            access_storage: None,
            allocators: opts
                .regalloc
                .iter()
                .map(|name| eubatch_regalloc::by_name(name).expect("allocator names checked"))
                .collect(),
        },
        |w, batch| {
            bar.inc(batch.len() as u64 - 1);
            batch
                .iter()
                .map(|&g| compile_group(w, &groups[g]))
                .collect::<Vec<_>>()
        },
        bar,
    );
    let mut results: Vec<Option<Compiled>> = (0..files.len()).map(|_| None).collect();
    for (batch, done) in batches.iter().zip(per_batch) {
        for (&g, done) in batch.iter().zip(done) {
            for (v, r) in groups[g].iter().zip(done) {
                results[v.file] = Some(r);
            }
        }
    }
    let results = results
        .into_iter()
        .map(|r| r.expect("every file is in one group"))
        .collect();
    (results, workers)
}

/// The groups of `groups` (indices) batched by the directory of their files, each batch in
/// the groups' order, the batches in the order of their first group.
fn directory_batches(files: &[PathBuf], groups: &[Vec<Variant>]) -> Vec<Vec<usize>> {
    let mut batches: Vec<Vec<usize>> = Vec::new();
    let mut index = std::collections::HashMap::<&Path, usize>::new();
    for (g, group) in groups.iter().enumerate() {
        let dir = group
            .first()
            .and_then(|v| files[v.file].parent())
            .unwrap_or(Path::new(""));
        let b = *index.entry(dir).or_insert_with(|| {
            batches.push(Vec::new());
            batches.len() - 1
        });
        batches[b].push(g);
    }
    batches
}

/// One file of a group of variants: its index in the input, its dispatch width, and
/// whether it is a compute shader's.
#[derive(Clone, Copy, Debug)]
pub struct Variant {
    pub file: usize,
    pub width: u8,
    pub compute: bool,
}

/// The input as groups compiled together: the SIMD8, SIMD16 and SIMD32 variants of one
/// shader (same directory, stage, program and dump) in that order, for fragment shaders
/// when `fs` ([`simd32_fate`]) and compute shaders when `cs`
/// ([`crate::simd_select`]); every other file alone.
pub fn variant_groups(files: &[PathBuf], fs: bool, cs: bool) -> Vec<Vec<Variant>> {
    use eubatch_ir::import::DumpName;
    let mut groups: Vec<Vec<Variant>> = Vec::new();
    let mut index = std::collections::HashMap::<(PathBuf, String), usize>::new();
    for (file, path) in files.iter().enumerate() {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(DumpName::parse);
        let grouped = name.filter(|n| match n.stage {
            eubatch_ir::Stage::Fs => fs,
            eubatch_ir::Stage::Cs => cs,
            _ => false,
        });
        let Some((mut name, width)) = grouped.and_then(|n| n.width.map(|w| (n, w))) else {
            groups.push(vec![Variant {
                file,
                width: 0,
                compute: false,
            }]);
            continue;
        };
        name.width = None;
        let compute = name.stage == eubatch_ir::Stage::Cs;
        let key = (
            path.parent().map(Path::to_path_buf).unwrap_or_default(),
            format!(
                "{}-{}-{}-{}-{}",
                name.stage.abbrev(),
                name.program,
                name.iteration,
                name.pass_num,
                name.pass
            ),
        );
        let g = *index.entry(key).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[g].push(Variant {
            file,
            width,
            compute,
        });
    }
    for g in &mut groups {
        g.sort_by_key(|v| v.width);
    }
    groups
}

/// What allocation made of one variant, for one allocator: kept (final code), spilled,
/// and Mesa's throughput estimate of its binary.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Fate {
    pub kept: bool,
    pub spilled: bool,
    pub throughput: Option<f32>,
}

/// Why Mesa 22.3 would not keep a SIMD16 fragment variant that allocated, given its SIMD8
/// sibling (`None`: it keeps it, or there is nothing to decide). brw_fs.cpp
/// `brw_compile_fs`: SIMD16 is tried only when the SIMD8 variant did not spill
/// (`if (!has_spilled && v8->max_dispatch_width >= 16 ...)`, `has_spilled =
/// v8->spilled_any_registers`). The dispatch-width limit is Mesa's front end's, decided
/// before its first dump: a SIMD16 variant whose dump is in the corpus passed it.
pub fn simd16_fate(simd16: Fate, simd8: Option<Fate>) -> Option<&'static str> {
    (simd16.kept && simd8.is_some_and(|f| f.spilled))
        .then_some("the SIMD8 variant spilled: Mesa does not try SIMD16")
}

/// Why Mesa 22.3 would not keep a SIMD32 fragment variant that allocated, given its SIMD8
/// and SIMD16 siblings (`None`: it keeps it, or there is nothing to decide). brw_fs.cpp
/// `brw_compile_fs`: SIMD32 is tried only when no narrower variant spilled
/// (`has_spilled`) and SIMD16, if tried, compiled (`simd16_failed`); and kept only when
/// its throughput beats the best of the narrower ones (`throughput >= perf.throughput`:
/// "SIMD32 shader inefficient"). Where a throughput is unknown (a binary the model does
/// not price) the variant is kept.
pub fn simd32_fate(
    simd32: Fate,
    simd8: Option<Fate>,
    simd16: Option<Fate>,
) -> Option<&'static str> {
    if !simd32.kept {
        return None;
    }
    let narrower = [simd8, simd16];
    if narrower.iter().flatten().any(|f| f.spilled) {
        return Some("a narrower variant spilled: Mesa does not try SIMD32");
    }
    if simd16.is_some_and(|f| !f.kept) {
        return Some("the SIMD16 variant was not kept: Mesa does not try SIMD32");
    }
    let t32 = simd32.throughput?;
    let mut best = 0.0f32;
    for f in narrower.iter().flatten().filter(|f| f.kept) {
        best = best.max(f.throughput?);
    }
    (best >= t32).then_some("not faster than the narrower variants by Mesa's throughput estimate (\"SIMD32 shader inefficient\")")
}

fn format_duration(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

fn compile_one(
    path: &Path,
    roots: &[PathBuf],
    opts: &Options,
    steps: &[manager::Step],
    w: &mut Worker,
    inject_panic: Option<&str>,
) -> Compiled {
    let name = path.to_string_lossy().into_owned();
    let mut out = Compiled::default();
    w.text.clear();
    if let Err(e) = std::fs::File::open(path).and_then(|mut f| {
        use std::io::Read;
        f.read_to_string(&mut w.text)
    }) {
        out.failure = Some(format!("{name}: cannot read: {e}").into());
        return out;
    }
    // A Mesa 25 pre-RA dump (its dumps open with `START B0`; 22.3's do not).
    let mesa25_ir = opts.from_pre_ra && w.text.trim_start().starts_with("START B");
    let mut shader = match eubatch_ir::import::load_text_with(
        path,
        &w.text,
        &name,
        opts.target,
        &mut w.listings,
    ) {
        Ok(s) => s,
        Err(e) => {
            out.failure = Some(e.to_string().into());
            return out;
        }
    };
    // vec4 URB reads Mesa's scheduler may have reordered: their offsets where exactly one
    // assignment agrees with the final code beside the dump.
    crate::urb_match::from_final_code(path, &mut shader, &mut w.listings);
    // A shader some pass of the pipeline does not handle is left out whole, and counted.
    if let Some(e) = manager::refusal(&shader, steps) {
        out.refused = Some(format!("`{}` {}", e.pass, e.msg).into());
        return out;
    }
    // Code no allocator takes (vec4) is left out of an allocating run whole, and counted,
    // as it was when no pass lowered it: its statistics would be missing anyway.
    if !opts.regalloc.is_empty() {
        if let Some(why) =
            eubatch_regalloc::constraints::Constraints::refuses_backend(shader.backend)
        {
            out.refused = Some(format!("{ALLOCATION_REFUSAL}{why}").into());
            return out;
        }
    }
    // The allocated code is compared with the shader as imported (--regalloc --verify);
    // from a pre-RA dump, with the variant's start dump, which also says where the
    // thread's inputs sit.
    let verify_ra = !opts.regalloc.is_empty() && opts.verify_seeds.is_some();
    // Why the simulator cannot run the allocated code, found before allocation: a pre-RA
    // send whose descriptor is not recovered (`pre_ra`).
    let mut not_runnable: Option<&'static str> = None;
    let imported = if opts.from_pre_ra {
        match start_beside(path, opts.target) {
            Ok(mut start) => {
                start.freeze_inputs();
                shader.inputs = start.inputs.clone();
                // What the dump leaves out, put back whether or not the result is run
                // (the allocator is given the same IR either way): send descriptors and
                // response sizes, sub-registers, rounded immediates. What cannot be
                // recovered keeps the simulator from running the shader.
                if !opts.regalloc.is_empty() {
                    let mesa22 = !mesa25_ir;
                    let recovered = recover_sends(path, &mut shader, &start, mesa22);
                    if let (Err(e), true) = (recovered, verify_ra) {
                        if opts.verify_strict {
                            out.failure =
                                Some(format!("{name}: not checked (--verify=strict): {e}").into());
                            return out;
                        }
                        not_runnable = Some(e.reason);
                        out.unchecked = Some(e.to_string().into());
                    }
                }
                verify_ra.then_some(start)
            }
            Err(e) => {
                out.failure = Some(format!("{name}: {e}").into());
                return out;
            }
        }
    } else {
        verify_ra.then(|| shader.clone())
    };
    // The passes' analyses, kept for the statistics of the result.
    let mut cx = eubatch_passes::PassCx::reusing(w.access_storage.take());
    w.targets.insert(shader.target.name());
    let before = shader.num_insts() as u64;
    let mut dumps: Vec<(String, String)> = Vec::new();
    let wants_dumps = opts.dump_after.is_some() || opts.dump_all.is_some();
    let mut hook = |pass: &str, s: &eubatch_ir::Shader| {
        if inject_panic.is_some_and(|p| name.contains(p)) {
            panic!("injected by {INJECT_PANIC} after {pass}");
        }
        if opts.dump_all.is_some() || opts.dump_after.as_deref() == Some(pass) {
            dumps.push((pass.to_string(), eubatch_ir::text::print_shader(s)));
        }
    };
    // The spilled shader's check, on the inputs of the shader as imported.
    let spill_check = opts
        .verify_seeds
        .filter(|_| !opts.regalloc.is_empty())
        .map(|seeds| simulator_check(seeds, &shader));
    // The simulator's check, keeping the first reason it could not compare for.
    let first_unchecked = std::cell::RefCell::new(None::<String>);
    let simulator = opts.verify_seeds.map(|seeds| {
        let check = simulator_check(seeds, &shader);
        let first_unchecked = &first_unchecked;
        move |a: &eubatch_ir::Shader, b: &eubatch_ir::Shader| {
            let c = check(a, b);
            if let Check::Unchecked(why) = &c {
                first_unchecked
                    .borrow_mut()
                    .get_or_insert_with(|| why.clone());
            }
            c
        }
    });
    // The verifier after every pass with --verify; otherwise once, on the result.
    let mut checks = Checks {
        verify_ir: opts.verify_seeds.is_some(),
        equivalence: simulator.as_ref().map(|f| f as manager::Equivalence<'_>),
        after_pass: if wants_dumps || inject_panic.is_some() {
            Some(&mut hook)
        } else {
            None
        },
    };
    let compared_before: u64 = w.stats.checked.iter().sum();
    let result = manager::run_with(&mut shader, steps, &mut checks, &mut w.stats, &mut cx);
    let compared = w.stats.checked.iter().sum::<u64>() - compared_before;
    let changed = matches!(result, Ok(true));
    drop(checks);
    if let Some(why) = first_unchecked.into_inner() {
        if opts.verify_strict && result.is_ok() {
            out.failure = Some(
                format!(
                    "{name}: not checked (--verify=strict): the simulator cannot run it: {why}"
                )
                .into(),
            );
        }
        out.unchecked = Some(why.into());
    }
    if let Err(e) = result {
        out.failure = Some(format!("{name}: {e}").into());
    } else if let Some(e) = eubatch_ir::verify::verify(&shader).first() {
        out.failure = Some(format!("{name}: the verifier fails after the pipeline: {e}").into());
    } else if (opts.stage == "lower" || !opts.regalloc.is_empty()) && !opts.from_pre_ra {
        // (Mesa's pre-RA code is taken as Mesa allocated it: the hardware-form rules judge
        // eubatch's lowering, and Mesa keeps forms they refuse, such as a dword `mul` on
        // hsw emitted after its own integer-multiply lowering.)
        // Lowered code must be in hardware form: a rule nothing could meet is an error
        // naming the instruction, the rule and the target.
        if let Some(e) = eubatch_ir::verify::hardware_form_errors(&shader).first() {
            let why = e.inst.and_then(|i| why_left_logical(&shader, i));
            let why = why.map_or_else(String::new, |w| {
                format!(" (lower_logical_sends left it: {w})")
            });
            out.failure =
                Some(format!("{name}: not in hardware form after lowering: {e}{why}").into());
        }
    }
    // The code in register form, and the spill and fill counts, when the shader is kept:
    // the first allocator's (on `shader`, whose statistics follow), and the statistics of
    // the others compared with it (`--regalloc A,B`), each on a copy of the shader as the
    // pipeline left it, with analyses of its own.
    let mut register_form = None;
    let mut others = Vec::new();
    let mut fates = Vec::with_capacity(opts.regalloc.len());
    let lowered = (opts.regalloc.len() > 1 && out.failure.is_none()).then(|| shader.clone());
    for (k, allocator) in opts.regalloc.iter().enumerate() {
        if out.failure.is_some() {
            break;
        }
        let simulate = |a: &eubatch_ir::Shader, b: &eubatch_ir::Shader| {
            spill_check
                .as_ref()
                .map_or_else(|| Check::Unchecked("no --verify".into()), |f| f(a, b))
        };
        let verify = match not_runnable {
            Some(why) => Err(why),
            None => Ok(imported.as_ref().zip(opts.verify_seeds)),
        };
        let (mut copy, mut copy_cx);
        let (s, c) = match &lowered {
            Some(lowered) if k > 0 => {
                copy = lowered.clone();
                copy_cx = eubatch_passes::PassCx::default();
                (&mut copy, &mut copy_cx)
            }
            _ => (&mut shader, &mut cx),
        };
        let may_spill = opts.keep_spilling_variants || mesa_lets_spill(path, s);
        let done = allocate_registers(
            s,
            c,
            w.allocators[k].as_mut(),
            opts,
            mesa25_ir,
            may_spill,
            &simulate,
            verify,
            &mut w.ra[k],
        );
        let kept = match done {
            Err(e) => {
                out.failure = Some(format!("{name}: {allocator}: {e}").into());
                // `c` may describe a spilled copy of the shader (allocate_registers
                // invalidates it only on success).
                c.invalidate(eubatch_passes::analysis::changed::Changed::EVERYTHING);
                break;
            }
            Ok(kept) => kept,
        };
        if let Some(kept) = &kept {
            if opts.dump_all.is_some() || opts.dump_after.as_deref() == Some("ra") {
                let pass = if lowered.is_some() {
                    format!("ra ({allocator})")
                } else {
                    "ra".into()
                };
                dumps.push((pass, eubatch_ir::text::print_shader(&kept.code)));
            }
        }
        if let (0, Some((kind, dir)), Some(bytes)) =
            (k, &opts.emit, kept.as_ref().and_then(|k| k.output.as_ref()))
        {
            let file = emitted_file(dir, *kind, path);
            if let Err(e) = std::fs::create_dir_all(dir).and_then(|_| std::fs::write(&file, bytes))
            {
                out.failure = Some(format!("{}: {e}", file.display()).into());
            }
        }
        fates.push(Fate {
            kept: kept.is_some(),
            spilled: kept
                .as_ref()
                .is_some_and(|k| k.counts.spills + k.counts.fills > 0),
            throughput: kept.as_ref().and_then(|k| k.throughput),
        });
        if k == 0 {
            register_form = kept;
        } else {
            // A variant this allocator did not keep has no final code to count.
            others.push(kept.map(|kept| {
                let pressure = c.pressure(s).map_or(0, |p| p.max as u64);
                let mut stats = shader_stats(path, roots, s, pressure);
                allocated_shader_stats(&mut stats, &kept);
                stats
            }));
        }
    }
    if opts.histogram {
        for inst in shader.layout.insts() {
            *w.opcodes
                .entry(shader.insts.opcode[inst].name())
                .or_default() += 1;
        }
    }
    let pressure = cx.pressure(&shader).map_or(0, |p| p.max as u64);
    w.access_storage = cx.into_storage();
    w.compiled += 1;
    if shader.backend == eubatch_ir::Backend::Vec4 {
        w.vec4[0] += 1;
        w.vec4[1] += changed as u64;
        w.vec4[2] += (compared > 0) as u64;
        w.vec4[3] += compared;
    }
    // Register pressure is a statistic of the result: computed once, at the end (the
    // input's would cost a liveness analysis of the largest form of the shader).
    for (k, v) in [before, shader.num_insts() as u64, pressure]
        .into_iter()
        .enumerate()
    {
        w.sums[k] += v;
    }
    if opts.stats.is_some() || !others.is_empty() {
        let mut stats = shader_stats(path, roots, &shader, pressure);
        let stats = match &register_form {
            Some(kept) => {
                allocated_shader_stats(&mut stats, kept);
                Some(stats)
            }
            // Without allocation the statistics are the pipeline's; with it, a variant
            // not kept has no final code to count (nor in Mesa's statistics).
            None if opts.regalloc.is_empty() => Some(stats),
            None => None,
        };
        others.insert(0, stats);
        out.stats = Some(others.into_boxed_slice());
    }
    out.fates = fates.into_boxed_slice();
    for (k, (pass, text)) in dumps.into_iter().enumerate() {
        if let Some(dir) = &opts.dump_all {
            let flat = flat_name(path);
            let file = dir.join(format!("{flat}-{:03}-{pass}.eu", k + 1));
            if let Err(e) = std::fs::create_dir_all(dir).and_then(|_| std::fs::write(&file, &text))
            {
                out.failure = Some(format!("{}: {e}", file.display()).into());
            }
        } else {
            out.dumps
                .get_or_insert_with(Default::default)
                .push((format!("{name} after {pass}"), text));
        }
    }
    out
}

/// The whole path of a dump, flattened into one file name: dumps of many directories share
/// file names.
/// Where `--emit` writes the final code of the shader at `path`.
fn emitted_file(dir: &Path, kind: Emit, path: &Path) -> PathBuf {
    let ext = match kind {
        Emit::Asm => "asm",
        Emit::Bin => "bin",
    };
    dir.join(format!("{}.{ext}", flat_name(path)))
}

fn flat_name(path: &Path) -> String {
    path.to_string_lossy()
        .trim_start_matches(['.', '/'])
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The simulator's comparison of a pass's input and output on seeds `0..seeds`, with the
/// inputs and pipeline state of the shader as imported, as the pass manager takes it.
pub fn simulator_check(
    seeds: u64,
    imported: &eubatch_ir::Shader,
) -> impl Fn(&eubatch_ir::Shader, &eubatch_ir::Shader) -> Check {
    let profile = eubatch_sim::profile::Profile::of(imported);
    move |before, after| {
        use eubatch_sim::Comparison;
        let limit = eubatch_sim::CHECK_STEP_LIMIT;
        match eubatch_sim::compare(before, after, 0..seeds, limit, &profile) {
            Comparison::Equal => Check::Equal,
            Comparison::Unchecked(why) => Check::Unchecked(why),
            Comparison::Differs(m) => Check::Differs(m.to_string()),
        }
    }
}

/// The statistics of a compiled shader, keyed by where its dump is under the paths given.
/// Schedules and allocates `shader`'s registers with allocator `name` Mesa's way
/// (`eubatch_regalloc::strategy`: the scheduling modes of `opts` in turn, spilling in the
/// last), checks the allocation (the checker; a spilled shader against the unspilled one in
/// the simulator with `simulate`, and in hardware form), applies it, and adds to `totals`.
/// With `verify` (the shader as imported, and seeds) the register-form code is run in the
/// simulator against the imported shader: different outputs are an error; `Err(why)`: the
/// simulator cannot run it, for that reason (counted). What is kept of
/// the shader (its register form and spill counts; none for a variant dropped for spilling,
/// or one the allocator's rules do not cover, which is counted with the reason).
/// `allow_spilling`: whether Mesa lets the variant spill ([`mesa_lets_spill`]).
#[allow(clippy::too_many_arguments)] // Each is one thing the driver decided for this shader.
fn allocate_registers(
    shader: &mut eubatch_ir::Shader,
    cx: &mut eubatch_passes::PassCx,
    allocator: &mut dyn eubatch_regalloc::Allocator,
    opts: &Options,
    mesa25_ir: bool,
    allow_spilling: bool,
    simulate: &dyn Fn(&eubatch_ir::Shader, &eubatch_ir::Shader) -> Check,
    verify: Result<Option<(&eubatch_ir::Shader, u64)>, &'static str>,
    totals: &mut RaTotals,
) -> Result<Option<Kept>, String> {
    use eubatch_regalloc::constraints::Options as RaOptions;
    let start = Instant::now();
    let scheduled = eubatch_regalloc::strategy::schedule_and_allocate(
        shader,
        cx,
        allocator,
        &opts.schedule,
        &RaOptions {
            mesa25_ir,
            // Mesa's pre-RA dumps keep its UNDEFs; eubatch's `dce` removes them.
            mesa_undefs: opts.from_pre_ra,
            ..RaOptions::default()
        },
        allow_spilling,
    );
    totals.alloc_time += start.elapsed();
    let shader = &*shader;
    let r = match scheduled {
        Ok(s) if s.spilled.allocated.allocation.needs_spills() => {
            totals.dropped += 1;
            return Ok(None);
        }
        Ok(s) => {
            *totals.modes.entry(s.mode.name()).or_default() += 1;
            s.spilled
        }
        Err(refusal) => {
            *totals.not_allocated.entry(refusal.to_string()).or_default() += 1;
            return Ok(None);
        }
    };
    let allocated = r.shader(shader);
    let (c, a) = (&r.allocated.constraints, &r.allocated.allocation);
    let start = Instant::now();
    let checked = eubatch_regalloc::checker::check(allocated, cx, c, a);
    totals.check_time += start.elapsed();
    checked.map_err(|e| format!("the register allocation fails the checker: {e}"))?;
    if r.shader.is_some() {
        if let Some(e) = eubatch_ir::verify::verify_hardware(allocated).first() {
            return Err(format!("the spilled shader is not in hardware form: {e}"));
        }
        match simulate(shader, allocated) {
            Check::Differs(m) => {
                return Err(format!("the spilled shader differs in the simulator: {m}"))
            }
            Check::Equal => totals.spills_simulated += 1,
            Check::Unchecked(_) => totals.spills_not_simulated += 1,
        }
    }
    totals.allocated += 1;
    let counts = allocated_stats(shader, &r, cx, totals);
    if r.shader.is_some() {
        // `cx` described the spilled shader; the caller goes on with `shader`.
        cx.invalidate(eubatch_passes::analysis::changed::Changed::EVERYTHING);
    }
    let mut code = eubatch_regalloc::assign::assign(allocated, &r.allocated.allocation)
        .map_err(|e| format!("applying the allocation: {e}"))?;
    // Mesa moves values out of conflicting banks after allocation, then schedules for
    // latency, before the generator.
    if opts.bank_conflicts {
        let o = eubatch_regalloc::bank_conflicts::opt_bank_conflicts(allocated, &mut code);
        totals.bank_shaders_changed += (o.moved > 0) as u64;
        totals.bank_atoms_moved += o.moved as u64;
        totals.bank_conflicts_before += o.conflicts_before as u64;
        totals.bank_conflicts_after += o.conflicts_after as u64;
    }
    if opts.post_ra_schedule {
        let start = Instant::now();
        let estimate = POST_RA.with(|p| {
            let mut p = p.borrow_mut();
            p.mesa_choice = opts.mesa_post_ra_choice;
            p.schedule(&mut code)
        });
        if let Some(e) = estimate {
            totals.post_ra_scheduled += 1;
            totals.post_ra_estimate += e;
        }
        totals.post_ra_time += start.elapsed();
    }
    // What Mesa's generator emits, before the simulator's check so that it runs that.
    use eubatch_codegen::generate;
    let final_instructions = match generate::expand(&mut code) {
        Ok(()) => {
            let n = generate::final_instruction_count(&code) as u64;
            totals.expanded += 1;
            totals.final_instructions += n;
            totals.encoded_instructions += generate::encoded_instruction_count(&code) as u64;
            Some(n)
        }
        Err(e) => {
            *totals.not_expanded.entry(e.to_string()).or_default() += 1;
            None
        }
    };
    // The binary, its listing and the program decoded from it, for expanded code.
    let what = format!("unnamed {} shader {}", code.stage.mesa_name(), code.name);
    let encoded = final_instructions.and_then(|n| {
        let spills = (counts.spills as u32, counts.fills as u32);
        let want_listing = opts.emit.as_ref().is_some_and(|e| e.0 == Emit::Asm);
        match eubatch_codegen::final_code::final_code(
            &code,
            code.target,
            &what,
            n as usize,
            spills,
            want_listing,
        ) {
            Ok(f) => {
                totals.encoded += 1;
                totals.bytes += f.program.byte_len() as u64;
                totals.bytes_native += 16 * f.program.encoded.len() as u64;
                totals.compacted += f.program.compacted() as u64;
                match &f.cycles {
                    Ok(e) => {
                        totals.cycles += e.cycles as u64;
                        totals.priced += 1;
                    }
                    Err(why) => count(&mut totals.not_priced, reason(why)),
                }
                Some(f)
            }
            Err(why) => {
                count(&mut totals.not_encoded, reason(&why));
                None
            }
        }
    });
    let verify = match verify {
        Ok(v) => v,
        Err(why) => {
            *totals.sim_not_run.entry(why.to_string()).or_default() += 1;
            None
        }
    };
    if let Some((imported, seeds)) = verify {
        use eubatch_sim::crosscheck::Verdict;
        // The decoded binary when there is one, else the register-form code.
        let (run, form) = match &encoded {
            Some(f) => (&f.decoded.shader, "binary"),
            None => (&code, "register form"),
        };
        match eubatch_sim::crosscheck::crosscheck(
            imported,
            run,
            0..seeds,
            eubatch_sim::CHECK_STEP_LIMIT,
        ) {
            Verdict::Agree => {
                totals.sim_agree += 1;
                totals.sim_binary += encoded.is_some() as u64;
            }
            Verdict::Differ { seed, what } => {
                return Err(format!(
                    "the allocated code ({form}) differs from the start IR in the simulator (seed {seed}): {what}"
                ))
            }
            Verdict::NotModelled(why) => {
                // The cross-check calls its second shader final code; here it is ours.
                let why = match why.strip_prefix("final code: ") {
                    Some(w) => format!("{form}: {w}"),
                    None => why,
                };
                *totals.sim_not_run.entry(why).or_default() += 1;
            }
        }
    }
    let emit = opts.emit.as_ref().map(|e| e.0);
    let estimate = encoded.as_ref().and_then(|f| f.cycles.as_ref().ok());
    Ok(Some(Kept {
        cycles: estimate.map(|e| e.cycles as u64),
        throughput: estimate.map(|e| e.throughput(code.dispatch_width as u32)),
        output: encoded.and_then(|f| match emit? {
            Emit::Asm => f.listing.map(String::into_bytes),
            Emit::Bin => Some(f.program.bytes()),
        }),
        code,
        counts,
        final_instructions,
    }))
}

thread_local! {
    /// The post-RA scheduler's storage, reused from shader to shader on each thread.
    static POST_RA: std::cell::RefCell<eubatch_passes::schedule::post_ra::PostRaScheduler> =
        Default::default();
}

/// Whether Mesa 22.3 allocates the variant at `path` with spilling allowed (brw_fs.cpp):
/// a fragment shader at SIMD8 only (`brw_compile_fs` runs SIMD16 and SIMD32 with
/// `allow_spilling = false` once SIMD8 compiled); a compute shader at the narrowest width
/// compiled only (`brw_compile_cs`: `allow_spilling = first < 0`, no narrower width
/// compiled; a wider one that would spill is dropped), which is the narrowest whose start
/// dump is beside it (a variable workgroup size, which lets every width spill, is not in
/// the dumps); every other stage, which has one width. A variant that may not spill and
/// does not fit is dropped, as Mesa drops it.
fn mesa_lets_spill(path: &Path, shader: &eubatch_ir::Shader) -> bool {
    use eubatch_ir::Stage;
    match shader.stage {
        Stage::Fs => shader.dispatch_width <= 8,
        Stage::Cs if shader.dispatch_width > 8 => {
            let file = path.file_name().unwrap_or_default().to_string_lossy();
            let Some(mut name) = eubatch_ir::import::DumpName::parse(&file) else {
                return true;
            };
            ![8u8, 16]
                .into_iter()
                .filter(|&w| w < shader.dispatch_width)
                .any(|w| {
                    name.width = Some(w);
                    path.with_file_name(name.start_file_name()).is_file()
                })
        }
        _ => true,
    }
}

/// What is kept of an allocated shader: its code in register form and its spill and fill
/// counts.
struct Kept {
    code: eubatch_ir::Shader,
    counts: eubatch_regalloc::spill::Counts,
    /// Mesa's `instructions` statistic of the expanded code; `None` when an instruction
    /// was not expanded.
    final_instructions: Option<u64>,
    /// Mesa's cycle estimate of the binary; `None` when not encoded or not priced.
    cycles: Option<u64>,
    /// Mesa's throughput estimate of the binary (channels per cycle), likewise.
    throughput: Option<f32>,
    /// What `--emit` writes for the shader (when asked and encoded).
    output: Option<Vec<u8>>,
}

/// A reason without the instruction number it starts with (`instruction 12: ...`), so
/// that reasons group.
fn reason(why: &str) -> String {
    match why
        .strip_prefix("instruction ")
        .and_then(|r| r.split_once(": "))
    {
        Some((n, rest)) if n.bytes().all(|b| b.is_ascii_digit()) => rest.to_string(),
        _ => why.to_string(),
    }
}

/// Adds a checked allocation to `totals`; its spill and fill counts.
fn allocated_stats(
    shader: &eubatch_ir::Shader,
    r: &eubatch_regalloc::Spilled,
    cx: &mut eubatch_passes::PassCx,
    totals: &mut RaTotals,
) -> eubatch_regalloc::spill::Counts {
    let allocated = r.shader(shader);
    let (c, a) = (&r.allocated.constraints, &r.allocated.allocation);
    totals.grf_used += a.grf_used(allocated, c) as u64;
    totals.taken += a.registers_taken(allocated, c) as u64;
    totals.shared += a.shared_registers(allocated, cx, c) as u64;
    if r.shader.is_some() {
        totals.spilled += 1;
        totals.vgrfs_spilled += r.spilled as u64;
        totals.spills += r.counts.spills as u64;
        totals.fills += r.counts.fills as u64;
    }
    r.counts
}

/// Adds what allocation gave to a shader's statistics: spills, fills, registers touched,
/// and the instruction count of the final code (absent when not known).
fn allocated_shader_stats(stats: &mut crate::stats::ShaderStats, kept: &Kept) {
    let (code, counts) = (&kept.code, kept.counts);
    stats.instructions = kept.final_instructions;
    stats.cycles = kept.cycles;
    stats.spills = Some(counts.spills as u64);
    stats.fills = Some(counts.fills as u64);
    stats.registers = Some(eubatch_regalloc::usage::registers_touched(code) as u64);
}

fn shader_stats(
    path: &Path,
    roots: &[PathBuf],
    shader: &eubatch_ir::Shader,
    pressure: u64,
) -> crate::stats::ShaderStats {
    let mut root = roots
        .iter()
        .find(|r| r.is_dir() && path.starts_with(r))
        .cloned()
        .unwrap_or_else(|| path.parent().unwrap_or(Path::new("")).to_path_buf());
    // Keys relative to the directory above the roots when there are several, so that two
    // roots' shaders of the same relative path (`a/12/FS8`, `b/12/FS8`) stay apart.
    if roots.len() > 1 {
        root = root.parent().map(Path::to_path_buf).unwrap_or_default();
    }
    let file = path.file_name().unwrap_or_default().to_string_lossy();
    let key = match eubatch_ir::import::DumpName::parse(&file) {
        Some(name) => crate::stats::key(&root, path, &name),
        None => path
            .strip_prefix(&root)
            .unwrap_or(path)
            .to_string_lossy()
            .into_owned(),
    };
    let count = |f: &dyn Fn(eubatch_ir::Opcode) -> bool| -> u64 {
        shader
            .layout
            .insts()
            .filter(|&i| f(shader.insts.opcode[i]))
            .count() as u64
    };
    crate::stats::ShaderStats {
        key,
        stage: shader.stage.abbrev().to_string(),
        simd: (shader.backend == eubatch_ir::Backend::Scalar).then_some(shader.dispatch_width),
        instructions: Some(shader.num_insts() as u64),
        sends: Some(count(&|o| o.is_message())),
        loops: Some(count(&|o| o == eubatch_ir::Opcode::Do)),
        cycles: None,
        spills: None,
        fills: None,
        max_live_registers: Some(pressure),
        registers: None,
    }
}

/// Prints `what`, how many variants were not kept in all, and the count of each reason.
fn print_not_kept<K: std::fmt::Display>(what: &str, why: &std::collections::BTreeMap<K, u64>) {
    let n: u64 = why.values().sum();
    println!("{what}: {n}{}", if n > 0 { ":" } else { "" });
    for (why, n) in why {
        println!("  {n:6}  {why}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fate(kept: bool, spilled: bool, throughput: f32) -> Fate {
        Fate {
            kept,
            spilled,
            throughput: Some(throughput),
        }
    }

    /// brw_compile_fs keeps SIMD32 only when its throughput beats the best narrower one
    /// (`throughput >= perf.throughput` is "inefficient": a tie is not kept).
    #[test]
    fn simd32_is_kept_only_when_faster() {
        let (v8, v16) = (
            fate(true, false, 8.0 / 948.0),
            fate(true, false, 16.0 / 1024.0),
        );
        assert_eq!(
            simd32_fate(fate(true, false, 32.0 / 2046.0), Some(v8), Some(v16)),
            None
        );
        let why = simd32_fate(fate(true, false, 32.0 / 2052.0), Some(v8), Some(v16));
        assert!(why.unwrap().contains("SIMD32 shader inefficient"));
        assert!(simd32_fate(fate(true, false, 32.0 / 2048.0), Some(v8), Some(v16)).is_some());
        // The SIMD8 variant counts too: SIMD16 may be slower than SIMD8.
        let slow16 = fate(true, false, 16.0 / 3430.0);
        let fast8 = fate(true, false, 8.0 / 1344.0);
        assert!(simd32_fate(fate(true, false, 32.0 / 5888.0), Some(fast8), Some(slow16)).is_some());
        assert_eq!(
            simd32_fate(fate(true, false, 32.0 / 5000.0), Some(fast8), Some(slow16)),
            None
        );
    }

    /// SIMD32 is not tried after a narrower variant spilled, nor when SIMD16 was tried and
    /// failed (`simd16_failed`); a SIMD32 variant that did not allocate has nothing to decide.
    #[test]
    fn simd32_is_not_tried_after_a_spill_or_a_failed_simd16() {
        let fast = fate(true, false, 1.0);
        let (v8, v16) = (fate(true, false, 0.01), fate(true, false, 0.01));
        assert!(simd32_fate(fast, Some(fate(true, true, 0.01)), Some(v16))
            .unwrap()
            .contains("spilled"));
        assert!(simd32_fate(fast, Some(v8), Some(fate(true, true, 0.01)))
            .unwrap()
            .contains("spilled"));
        assert!(simd32_fate(fast, Some(v8), Some(fate(false, false, 0.0)))
            .unwrap()
            .contains("SIMD16 variant was not kept"));
        // No SIMD16 dump (Mesa's front end limited the width to 8 and 32 was still
        // allowed, or SIMD16 is not in the corpus): SIMD8 alone is compared.
        assert_eq!(simd32_fate(fast, Some(v8), None), None);
        assert_eq!(
            simd32_fate(fate(false, false, 1.0), Some(v8), Some(v16)),
            None
        );
    }

    /// SIMD16 is not tried after SIMD8 spilled; otherwise it is kept whatever its speed
    /// (Mesa compares throughputs for SIMD32 only).
    #[test]
    fn simd16_is_not_tried_after_simd8_spilled() {
        let v16 = fate(true, false, 0.001);
        assert!(simd16_fate(v16, Some(fate(true, true, 1.0)))
            .unwrap()
            .contains("SIMD8 variant spilled"));
        assert_eq!(simd16_fate(v16, Some(fate(true, false, 1.0))), None);
        assert_eq!(simd16_fate(v16, None), None);
        assert_eq!(
            simd16_fate(fate(false, false, 0.0), Some(fate(true, true, 1.0))),
            None
        );
    }
}

/// Why `lower_logical_sends` leaves the logical message `inst` of `shader` as it is: the
/// pass run again on a copy (only for a shader that failed), which tries each message the
/// same way and says why it kept one.
fn why_left_logical(shader: &eubatch_ir::Shader, inst: eubatch_ir::Inst) -> Option<String> {
    if !shader.insts.opcode[inst].is_message() {
        return None;
    }
    let mut copy = shader.clone();
    let outcome = eubatch_passes::lower::logical_sends::lower(&mut copy);
    outcome
        .left_logical
        .into_iter()
        .find(|(i, _)| *i == inst)
        .map(|(_, why)| why)
}
