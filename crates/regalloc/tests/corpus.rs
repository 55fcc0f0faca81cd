//! Every allocator ([`ALLOCATORS`]) on every scalar shader of the eight shared corpora
//! (`../shared/corpora`, archives unpacked once into `target/corpora`; skipped with a
//! message when absent, a failure under `EUBATCH_REQUIRE_CORPORA`), lowered as `eubatch
//! compile --stop-after lower` lowers it, then scheduled and allocated Mesa's way (each
//! pre-RA scheduling mode in turn until one allocates without spilling, spilling in the
//! last, [`schedule_and_allocate`]): every allocation passes the checker, and every
//! allocation, applied ([`assign`]) to the shader as spilled and scheduled after allocation
//! ([`post_ra`], as `compile --regalloc` does by default), runs in the simulator on the
//! thread's register file with the same outputs as the start IR on two seeds (the Mesa
//! cross-check's comparison, as `compile --regalloc NAME --verify` makes it). Prints per allocator what
//! was allocated, checked and simulated, and why the rest was not.

#[path = "../../ir/tests/common/mod.rs"]
mod common;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use eubatch_ir::import::{discover, load_file, InputKind};
use eubatch_ir::{Backend, Gen, Shader};
use eubatch_passes::manager::{self, Checks, Stats};
use eubatch_passes::schedule::{post_ra, PRE_MODES};
use eubatch_passes::PassCx;
use eubatch_regalloc::constraints::Options;
use eubatch_regalloc::strategy::schedule_and_allocate;
use eubatch_regalloc::{assign::assign, checker, ALLOCATORS};
use eubatch_sim::{first_difference, run_hardware, HardwareInputs, Outputs, CHECK_STEP_LIMIT};

/// Seeds each allocated shader is simulated on.
const SEEDS: u64 = 2;

/// One allocator's totals over a corpus.
#[derive(Default)]
struct Totals {
    allocated: u64,
    /// Of them, shaders that spilled, and their spill and fill messages.
    spills: u64,
    spill_messages: u64,
    fill_messages: u64,
    regs: u64,
    taken: u64,
    shared: u64,
    /// Allocated code that ran with the start IR's outputs.
    agree: u64,
    /// Why allocated code that fits was not simulated, by reason.
    not_run: BTreeMap<String, u64>,
}

/// The start IR's outputs on each seed, computed once for every allocator; an error when
/// the simulator cannot run it.
fn start_outputs(start: &Shader) -> Result<Vec<(HardwareInputs, Outputs)>, String> {
    (0..SEEDS)
        .map(|seed| {
            let hw = HardwareInputs::of(start, seed).map_err(|e| format!("layout: {}", e.msg))?;
            let out = run_hardware(start, seed, &hw, CHECK_STEP_LIMIT, None)
                .map_err(|e| format!("start IR: {}", e.msg))?;
            Ok((hw, out))
        })
        .collect()
}

fn walk(corpus: &str, target: Gen) {
    let Some(dir) = common::corpus(corpus) else {
        return;
    };
    let files = discover(&[dir], |k| matches!(k, InputKind::Mesa(d) if d.is_start())).unwrap();
    assert!(!files.is_empty(), "{corpus}: no start dumps");
    let steps = manager::parse("lower").unwrap();
    let next = AtomicUsize::new(0);
    let totals: Mutex<Vec<Totals>> =
        Mutex::new(ALLOCATORS.iter().map(|_| Totals::default()).collect());
    let left_out = Mutex::new(BTreeMap::<String, u64>::new());
    let failures = Mutex::new(Vec::<String>::new());
    let leave_out = |why: String| *left_out.lock().unwrap().entry(why).or_default() += 1;
    std::thread::scope(|s| {
        for _ in 0..std::thread::available_parallelism().map_or(2, |n| n.get()) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(path) = files.get(i) else { break };
                let name = path.to_string_lossy();
                let start = load_file(path, &name, Some(target)).unwrap();
                if start.backend == Backend::Vec4 {
                    leave_out("vec4 (Align16) code: scalar back end only".into());
                    continue;
                }
                if let Some(e) = manager::refusal(&start, &steps) {
                    leave_out(format!("lowering: `{}` {}", e.pass, e.msg));
                    continue;
                }
                let mut shader = start.clone();
                let mut cx = PassCx::default();
                let mut checks = Checks {
                    verify_ir: false,
                    equivalence: None,
                    after_pass: None,
                };
                let lowered =
                    manager::run_with(&mut shader, &steps, &mut checks, &mut Stats::new(), &mut cx);
                if let Err(e) = lowered {
                    failures
                        .lock()
                        .unwrap()
                        .push(format!("{name}: lowering: {e}"));
                    continue;
                }
                let mut expected = None;
                for (k, registered) in ALLOCATORS.iter().enumerate() {
                    let who = registered.name;
                    let mut allocator = (registered.make)();
                    // Scheduled Mesa's way for each allocator, from the lowered order.
                    let mut shader = shader.clone();
                    let mut cx = PassCx::default();
                    let scheduled = schedule_and_allocate(
                        &mut shader,
                        &mut cx,
                        allocator.as_mut(),
                        &PRE_MODES,
                        &Options::default(),
                        true,
                    );
                    let spilled = match scheduled {
                        Ok(s) => s.spilled,
                        Err(e) => {
                            // Counted once a shader, not once an allocator.
                            if k == 0 {
                                leave_out(format!("not allocated: {e}"));
                            }
                            continue;
                        }
                    };
                    let fail =
                        |m: String| failures.lock().unwrap().push(format!("{name}: {who}: {m}"));
                    // The shader the allocation is of: spilled, or as scheduled.
                    let code = spilled.shader(&shader);
                    let r = &spilled.allocated;
                    if let Err(e) = checker::check(code, &mut cx, &r.constraints, &r.allocation) {
                        fail(e.to_string());
                        continue;
                    }
                    let a = &r.allocation;
                    let verdict = match assign(code, a) {
                        Err(e) => {
                            fail(format!("applying the allocation: {e}"));
                            continue;
                        }
                        Ok(mut assigned) => {
                            post_ra::schedule(&mut assigned);
                            simulate(
                                expected.get_or_insert_with(|| start_outputs(&start)),
                                &assigned,
                            )
                        }
                    };
                    let mut t = totals.lock().unwrap();
                    let t = &mut t[k];
                    t.allocated += 1;
                    t.regs += a.grf_used(code, &r.constraints) as u64;
                    t.taken += a.registers_taken(code, &r.constraints) as u64;
                    t.shared += a.shared_registers(code, &mut cx, &r.constraints) as u64;
                    if spilled.shader.is_some() {
                        t.spills += 1;
                        t.spill_messages += spilled.counts.spills as u64;
                        t.fill_messages += spilled.counts.fills as u64;
                    }
                    match verdict {
                        Ok(()) => t.agree += 1,
                        Err(Verdict::NotRun(why)) => *t.not_run.entry(why).or_default() += 1,
                        Err(Verdict::Differs(what)) => fail(format!(
                            "the allocated code differs from the start IR in the simulator: {what}"
                        )),
                    }
                }
            });
        }
    });
    let totals = totals.into_inner().unwrap();
    for (who, t) in ALLOCATORS.iter().map(|a| a.name).zip(&totals) {
        let not_run: u64 = t.not_run.values().sum();
        println!(
            "{corpus}, {who}: {} shaders scheduled, allocated and checked, {} of them spilled ({} spills, {} fills); {} ran in register form with the start IR's outputs on {SEEDS} seeds, {not_run} not run; registers used (Mesa's grf_used) {}, registers taken {}, registers holding two values live at once {}",
            t.allocated,
            t.spills,
            t.spill_messages,
            t.fill_messages,
            t.agree,
            t.regs,
            t.taken,
            t.shared
        );
        for (why, n) in &t.not_run {
            println!("  not run: {n:5}  {why}");
        }
    }
    for (why, n) in left_out.into_inner().unwrap() {
        println!("  left out: {n:5}  {why}");
    }
    let failures = failures.into_inner().unwrap();
    for f in failures.iter().take(10) {
        println!("  FAILED: {f}");
    }
    assert!(failures.is_empty(), "{corpus}: {} failures", failures.len());
    assert!(
        totals.iter().all(|t| t.agree > 0),
        "{corpus}: some allocator had no shader checked in the simulator"
    );
}

/// Why an allocated shader was not shown to compute the start IR's outputs.
enum Verdict {
    NotRun(String),
    Differs(String),
}

/// Runs `assigned` on the inputs of each of `expected`'s runs and compares.
fn simulate(
    expected: &Result<Vec<(HardwareInputs, Outputs)>, String>,
    assigned: &Shader,
) -> Result<(), Verdict> {
    let runs = expected.as_ref().map_err(|e| Verdict::NotRun(e.clone()))?;
    for (seed, (hw, want)) in runs.iter().enumerate() {
        let got = run_hardware(assigned, seed as u64, hw, CHECK_STEP_LIMIT, None)
            .map_err(|e| Verdict::NotRun(format!("register form: {}", e.msg)))?;
        if let Some(what) = first_difference(want, &got) {
            return Err(Verdict::Differs(format!("seed {seed}: {what}")));
        }
    }
    Ok(())
}

#[test]
fn shaderdb_skl() {
    walk("shaderdb-skl", Gen::Gen9);
}

#[test]
fn shaderdb_bdw() {
    walk("shaderdb-bdw", Gen::Gen8);
}

#[test]
fn shaderdb_hsw() {
    walk("shaderdb-hsw", Gen::Gen75);
}

#[test]
fn piglit_fp64_skl() {
    walk("piglit-fp64-skl", Gen::Gen9);
}

#[test]
fn piglit_fp64_hsw() {
    walk("piglit-fp64-hsw", Gen::Gen75);
}

#[test]
fn vulkan_fp16_skl() {
    walk("vulkan-fp16-skl", Gen::Gen9);
}

#[test]
fn vulkan_fp16_bdw() {
    walk("vulkan-fp16-bdw", Gen::Gen8);
}

#[test]
fn shaderdb_skl_mesa25() {
    walk("shaderdb-skl-mesa25", Gen::Gen9);
}
