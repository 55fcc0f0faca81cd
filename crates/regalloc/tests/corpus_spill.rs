//! Spilling on shaderdb-skl, shaderdb-bdw and shaderdb-hsw (`../shared/corpora`, the
//! archives unpacked once into `target/corpora`; skipped with a message when absent), every
//! scalar shader lowered as `eubatch compile --stop-after lower` lowers it, with
//! every allocator ([`ALLOCATORS`]) through [`allocate_with_spills`]: as the file is
//! (the shaders that do not fit spill), and, for every fourth shader, under a budget of
//! 16 registers (or the widest instruction's registers + 2, what its spill temporaries
//! need, when more) that makes many of them spill. Each final allocation passes the checker
//! and each spilled shader gives the lowered one's outputs in the simulator (2 seeds).
//! Prints, per allocator and case, the shaders spilled, spills, fills and rounds.

#[path = "../../ir/tests/common/mod.rs"]
mod common;
#[path = "common/mod.rs"]
mod shaders;
use shaders::widest_instruction;

use eubatch_ir::import::{discover, load_text, InputKind};
use eubatch_ir::{Backend, Gen};
use eubatch_passes::manager::{self, Checks, Stats};
use eubatch_passes::PassCx;
use eubatch_regalloc::constraints::Options;
use eubatch_regalloc::{allocate_with_spills, checker, ALLOCATORS};

#[derive(Default)]
struct Totals {
    allocated: u64,
    spilled: u64,
    spills: u64,
    fills: u64,
    rounds: u64,
    simulated: u64,
    unchecked: u64,
}

#[test]
fn shaderdb_skl_spills_check_and_simulate() {
    spill_corpus("shaderdb-skl", Gen::Gen9);
}

#[test]
fn shaderdb_bdw_spills_check_and_simulate() {
    spill_corpus("shaderdb-bdw", Gen::Gen8);
}

#[test]
fn shaderdb_hsw_spills_check_and_simulate() {
    spill_corpus("shaderdb-hsw", Gen::Gen75);
}

fn spill_corpus(corpus: &str, target: Gen) {
    let Some(dir) = common::corpus(corpus) else {
        return;
    };
    let files = discover(&[dir], |k| matches!(k, InputKind::Mesa(d) if d.is_start())).unwrap();
    assert!(!files.is_empty());
    let steps = manager::parse("lower").unwrap();
    let cases = [
        ("the whole file", Options::default(), 1),
        (
            "a budget of 16",
            Options {
                registers: Some(16),
                ..Options::default()
            },
            4,
        ),
    ];
    let mut totals: Vec<Totals> = (0..ALLOCATORS.len() * cases.len())
        .map(|_| Totals::default())
        .collect();
    let mut failures = Vec::new();
    for (k, path) in files.iter().enumerate() {
        let text = std::fs::read_to_string(path).unwrap();
        let name = path.to_string_lossy();
        let mut shader = load_text(path, &text, &name, Some(target)).unwrap();
        if shader.backend == Backend::Vec4 || manager::refusal(&shader, &steps).is_some() {
            continue;
        }
        let profile = eubatch_sim::profile::Profile::of(&shader);
        let mut checks = Checks {
            verify_ir: false,
            equivalence: None,
            after_pass: None,
        };
        let mut cx = PassCx::default();
        if let Err(e) =
            manager::run_with(&mut shader, &steps, &mut checks, &mut Stats::new(), &mut cx)
        {
            failures.push(format!("{name}: lowering: {e}"));
            continue;
        }
        for (c, (case, options, every)) in cases.iter().enumerate() {
            if k % every != 0 {
                continue;
            }
            let options = &Options {
                registers: options
                    .registers
                    .map(|n| n.max(widest_instruction(&shader) + 2)),
                ..Options::default()
            };
            for (a, registered) in ALLOCATORS.iter().enumerate() {
                let who = registered.name;
                let t = &mut totals[c * ALLOCATORS.len() + a];
                let mut allocator = (registered.make)();
                let mut cx = PassCx::default();
                let r = match allocate_with_spills(&shader, &mut cx, allocator.as_mut(), options) {
                    Ok(r) => r,
                    Err(e) => {
                        failures.push(format!("{name}: {who}, {case}: {e}"));
                        continue;
                    }
                };
                let after = r.shader(&shader);
                let al = &r.allocated;
                if let Err(e) = checker::check(after, &mut cx, &al.constraints, &al.allocation) {
                    failures.push(format!("{name}: {who}, {case}: {e}"));
                    continue;
                }
                t.allocated += 1;
                t.rounds += r.rounds as u64;
                if r.shader.is_none() {
                    continue;
                }
                t.spilled += 1;
                t.spills += r.counts.spills as u64;
                t.fills += r.counts.fills as u64;
                let limit = eubatch_sim::CHECK_STEP_LIMIT;
                match eubatch_sim::compare(&shader, after, 0..2, limit, &profile) {
                    eubatch_sim::Comparison::Equal => t.simulated += 1,
                    eubatch_sim::Comparison::Unchecked(_) => t.unchecked += 1,
                    eubatch_sim::Comparison::Differs(m) => {
                        failures.push(format!("{name}: {who}, {case}: simulator: {m}"))
                    }
                }
            }
        }
    }
    for (c, (case, _, _)) in cases.iter().enumerate() {
        for (a, registered) in ALLOCATORS.iter().enumerate() {
            let t = &totals[c * ALLOCATORS.len() + a];
            println!(
                "{corpus}, {}, {case}: {} allocated and checked, {} spilled ({} spills, {} fills, {} rounds in all), {} spilled shaders equal in the simulator, {} not simulated",
                registered.name, t.allocated, t.spilled, t.spills, t.fills, t.rounds, t.simulated, t.unchecked
            );
        }
    }
    println!("{} failures", failures.len());
    for f in failures.iter().take(10) {
        println!("  {f}");
    }
    assert!(failures.is_empty(), "{} failures", failures.len());
    // The budget must have made shaders spill, or the test proves nothing.
    assert!(totals[ALLOCATORS.len()..].iter().all(|t| t.spilled > 0));
}
