//! The optimization loop and lowering (`lower`: opt, SIMD-width splitting, logical sends,
//! load_payload to moves, opt again) over every start dump of every corpus: every pass that makes progress
//! is compared in the simulator with its input (2 seeds), and the final shader with the
//! imported one (4 seeds); no output may differ, and the result must pass the hardware-form
//! verifier. Prints the number of shader × seed runs, the instruction counts, and the
//! messages still logical with why. Skipped where `../shared` is absent.
//! Run in release mode.

#[path = "../../ir/tests/common/mod.rs"]
mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use eubatch_ir::import::{discover, load_file, InputKind};
use eubatch_ir::Gen;
use eubatch_passes::manager::{self, Checks, Stats};

fn walk(corpus: &str, target: Gen) {
    let Some(dir) = common::corpus(corpus) else {
        return;
    };
    let files = discover(&[dir], |k| matches!(k, InputKind::Mesa(d) if d.is_start())).unwrap();
    let steps = manager::parse("lower").unwrap();
    let next = AtomicUsize::new(0);
    let (before, after, runs) = (
        AtomicUsize::new(0),
        AtomicUsize::new(0),
        AtomicUsize::new(0),
    );
    let failures = Mutex::new(Vec::new());
    let unsimulated = Mutex::new(Vec::<String>::new());
    let left_logical = Mutex::new(Vec::<String>::new());
    std::thread::scope(|s| {
        for _ in 0..std::thread::available_parallelism().map_or(2, |n| n.get()) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(path) = files.get(i) else { break };
                let name = path.to_string_lossy();
                let original = load_file(path, &name, Some(target)).unwrap();
                let mut shader = original.clone();
                let mut checks = Checks {
                    verify_ir: true,
                    simulate_seeds: Some(0..2),
                    after_pass: None,
                };
                let mut stats = Stats::new();
                if let Err(e) = manager::run(&mut shader, &steps, &mut checks, &mut stats) {
                    failures.lock().unwrap().push(format!("{name}: {e}"));
                    continue;
                }
                if let Some(e) = eubatch_ir::verify::verify_hardware(&shader).first() {
                    failures
                        .lock()
                        .unwrap()
                        .push(format!("{name}: not in hardware form: {e}"));
                    continue;
                }
                // Messages still logical, and why: lowering a copy again reports them.
                let mut probe = shader.clone();
                let outcome = eubatch_passes::lower::logical_sends::lower(&mut probe);
                let vec4 = shader.backend == eubatch_ir::shader::Backend::Vec4;
                let mut left: Vec<String> = outcome
                    .left_logical
                    .into_iter()
                    .filter(|_| !vec4)
                    .map(|(_, why)| why)
                    .collect();
                // Messages the pass does not take yet, by opcode (vec4 shaders are not
                // lowered at all yet: counted apart).
                let handled = eubatch_passes::lower::logical_sends::handles;
                for inst in shader.layout.insts() {
                    let op = shader.insts.opcode[inst];
                    let send = matches!(
                        op,
                        eubatch_ir::Opcode::Send
                            | eubatch_ir::Opcode::Sendc
                            | eubatch_ir::Opcode::Sends
                            | eubatch_ir::Opcode::Sendsc
                    );
                    if vec4 && op.is_message() && !send {
                        left.push("a vec4 shader's message (vec4 is not lowered yet)".into());
                    } else if eubatch_passes::lower::logical_sends::kept_for_generator(op) {
                        left.push(format!(
                            "`{}`: virtual until the generator, as in Mesa's pre-RA IR",
                            op.name()
                        ));
                    } else if op.is_message() && !send && !handled(op) {
                        left.push(format!("`{}`: not lowered yet", op.name()));
                    }
                }
                left_logical.lock().unwrap().extend(left);
                before.fetch_add(original.num_insts(), Ordering::Relaxed);
                after.fetch_add(shader.num_insts(), Ordering::Relaxed);
                let profile = eubatch_sim::profile::Profile::of(&original);
                for seed in 0..4 {
                    let a = match eubatch_sim::run_profiled(
                        &original,
                        seed,
                        &profile,
                        eubatch_sim::STEP_LIMIT,
                        None,
                    ) {
                        Ok(a) => a,
                        Err(e) => {
                            // Not a miscompile: the simulator cannot run the input (a
                            // message or a vec4 construct it does not model yet).
                            let why = e.to_string();
                            let why = why.split_once(": ").map_or(why.as_str(), |w| w.1);
                            unsimulated
                                .lock()
                                .unwrap()
                                .push(why.chars().take(90).collect::<String>());
                            break;
                        }
                    };
                    if seed == 0 {
                        let checked: u64 = stats.progress.iter().sum();
                        runs.fetch_add(2 * checked as usize, Ordering::Relaxed);
                    }
                    let b = match eubatch_sim::run_profiled(
                        &shader,
                        seed,
                        &profile,
                        eubatch_sim::STEP_LIMIT,
                        None,
                    ) {
                        Ok(b) => b,
                        Err(e) => {
                            failures
                                .lock()
                                .unwrap()
                                .push(format!("{name}: optimized shader fails: {e}"));
                            break;
                        }
                    };
                    runs.fetch_add(1, Ordering::Relaxed);
                    if let Some(d) = eubatch_sim::first_difference(&a, &b) {
                        failures
                            .lock()
                            .unwrap()
                            .push(format!("{name} (seed {seed}): {d}"));
                        break;
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    let unsimulated = unsimulated.into_inner().unwrap();
    eprintln!(
        "{corpus}: {} shaders, {} -> {} instructions, {} shader x seed simulator comparisons, {} mismatches; {} shaders the simulator cannot run yet",
        files.len(),
        before.load(Ordering::Relaxed),
        after.load(Ordering::Relaxed),
        runs.load(Ordering::Relaxed),
        failures.len(),
        unsimulated.len()
    );
    let mut reasons = std::collections::BTreeMap::<&str, usize>::new();
    for r in &unsimulated {
        *reasons.entry(r.as_str()).or_default() += 1;
    }
    let mut reasons: Vec<_> = reasons.into_iter().collect();
    reasons.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
    for (r, n) in reasons.iter().take(5) {
        eprintln!("  {n:5}  {r}");
    }
    let left_logical = left_logical.into_inner().unwrap();
    eprintln!("  messages left logical: {}", left_logical.len());
    let mut reasons = std::collections::BTreeMap::<&str, usize>::new();
    for r in &left_logical {
        *reasons.entry(r.as_str()).or_default() += 1;
    }
    let mut reasons: Vec<_> = reasons.into_iter().collect();
    reasons.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
    for (r, n) in &reasons {
        eprintln!("  {n:5}  left logical: {r}");
    }
    assert!(
        failures.is_empty(),
        "{} failures; first:\n{}",
        failures.len(),
        failures[..failures.len().min(10)].join("\n")
    );
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
