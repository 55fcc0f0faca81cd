//! The optimization loop and lowering (`lower`: opt, SIMD-width splitting, logical sends,
//! load_payload to moves, opt again) over every start dump of every corpus: every pass that makes progress
//! is compared in the simulator with its input (2 seeds), and the final shader with the
//! imported one (4 seeds); no output may differ, and the result must pass the hardware-form
//! verifier. Prints the number of shader × seed runs, the instruction counts, and the
//! messages still logical with why.
//!
//! What it found is compared with `tests/corpus/NAME.counts` (workspace root), so that a
//! change shows in the diff: the shaders no pass of `lower` handles (refused, by reason,
//! exact), the instruction totals of the rest at the start, after `opt` and after `lower`
//! (exact), and the shaders the simulator cannot run, by reason (bounds: at most so many).
//! `EUBATCH_BLESS=1` rewrites the files with what the run found. Skipped where `../shared`
//! is absent, a failure under `EUBATCH_REQUIRE_CORPORA=1`. Run in release mode.

#[path = "../../ir/tests/common/mod.rs"]
mod common;
mod simulator;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use eubatch_ir::import::{discover, load_file, InputKind};
use eubatch_ir::Gen;
use eubatch_passes::manager::{self, Checks, ErrorKind, Stats};

/// What a corpus walk found, as its counts file holds it.
#[derive(Debug, Default, PartialEq, Eq)]
struct Counts {
    shaders: usize,
    /// Shaders refused by a pass's scope, by reason.
    refused: BTreeMap<String, usize>,
    /// Instructions of the compiled shaders: at the start, after `opt`, after `lower`.
    start: usize,
    opt: usize,
    lower: usize,
    /// Shaders the simulator cannot run, by reason.
    unsimulated: BTreeMap<String, usize>,
}

impl Counts {
    fn print(&self, corpus: &str) -> String {
        let mut o = format!(
            "# The corpus walk of {corpus} (crates/passes/tests/corpus.rs), rewritten by\n\
             # EUBATCH_BLESS=1. Every line but `unsimulated` is exact; an `unsimulated` line is a\n\
             # bound: at most that many shaders the simulator cannot run, for that reason.\n"
        );
        o += &format!("shaders {}\n", self.shaders);
        for (why, n) in &self.refused {
            o += &format!("refused {n}: {why}\n");
        }
        o += &format!(
            "instructions start {}\ninstructions opt {}\ninstructions lower {}\n",
            self.start, self.opt, self.lower
        );
        for (why, n) in &self.unsimulated {
            o += &format!("unsimulated {n}: {why}\n");
        }
        o
    }

    fn parse(text: &str, path: &std::path::Path) -> Counts {
        let mut c = Counts::default();
        for (i, line) in text.lines().enumerate() {
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            let bad = || -> ! { panic!("{}:{}: unexpected line `{line}`", path.display(), i + 1) };
            let (key, rest) = line.split_once(' ').unwrap_or_else(|| bad());
            let num = |s: &str| s.parse::<usize>().unwrap_or_else(|_| bad());
            match key {
                "shaders" => c.shaders = num(rest),
                "instructions" => match rest.split_once(' ').unwrap_or_else(|| bad()) {
                    ("start", n) => c.start = num(n),
                    ("opt", n) => c.opt = num(n),
                    ("lower", n) => c.lower = num(n),
                    _ => bad(),
                },
                "refused" | "unsimulated" => {
                    let (n, why) = rest.split_once(": ").unwrap_or_else(|| bad());
                    let map = if key == "refused" {
                        &mut c.refused
                    } else {
                        &mut c.unsimulated
                    };
                    map.insert(why.to_string(), num(n));
                }
                _ => bad(),
            }
        }
        c
    }

    /// How `self` (this run) breaks `expected`: exact counts that differ, and unsimulated
    /// reasons over their bound or not in the file.
    fn check(&self, expected: &Counts) -> Vec<String> {
        let mut errors = Vec::new();
        let exact = [
            ("shaders", self.shaders, expected.shaders),
            ("instructions at the start", self.start, expected.start),
            ("instructions after opt", self.opt, expected.opt),
            ("instructions after lower", self.lower, expected.lower),
        ];
        for (what, got, want) in exact {
            if got != want {
                errors.push(format!("{what}: {got}, expected {want}"));
            }
        }
        if self.refused != expected.refused {
            errors.push(format!(
                "refused shaders: {:?}, expected {:?}",
                self.refused, expected.refused
            ));
        }
        for (why, &n) in &self.unsimulated {
            let bound = expected.unsimulated.get(why).copied().unwrap_or(0);
            if n > bound {
                errors.push(format!(
                    "{n} shaders the simulator cannot run ({why}), at most {bound} allowed"
                ));
            }
        }
        errors
    }
}

/// Compares what the walk of `corpus` found with its counts file, or rewrites the file
/// under `EUBATCH_BLESS=1`.
fn compare_counts(corpus: &str, found: &Counts) {
    let path = common::workspace_root().join(format!("tests/corpus/{corpus}.counts"));
    if std::env::var_os("EUBATCH_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, found.print(corpus)).unwrap();
        return;
    }
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (EUBATCH_BLESS=1 writes it)\nthis run:\n{}",
            path.display(),
            found.print(corpus)
        )
    });
    let errors = found.check(&Counts::parse(&text, &path));
    assert!(
        errors.is_empty(),
        "{corpus}: the walk differs from {} (EUBATCH_BLESS=1 rewrites it if the change is meant):\n  {}\nthis run:\n{}",
        path.display(),
        errors.join("\n  "),
        found.print(corpus)
    );
}

fn walk(corpus: &str, target: Gen) {
    let Some(dir) = common::corpus(corpus) else {
        return;
    };
    let files = discover(&[dir], |k| matches!(k, InputKind::Mesa(d) if d.is_start())).unwrap();
    let steps = manager::parse("lower").unwrap();
    let next = AtomicUsize::new(0);
    let (before, after_opt, after, runs) = (
        AtomicUsize::new(0),
        AtomicUsize::new(0),
        AtomicUsize::new(0),
        AtomicUsize::new(0),
    );
    let refused = Mutex::new(BTreeMap::<String, usize>::new());
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
                let check = simulator::check(2, &original);
                // `lower` begins with `opt`, which ends with the first `compact`: the count
                // there is the count after `opt`.
                let mut opt_count = None;
                let mut at_opt_end = |pass: &str, s: &eubatch_ir::Shader| {
                    if pass == "compact" && opt_count.is_none() {
                        opt_count = Some(s.num_insts());
                    }
                };
                let mut checks = Checks {
                    verify_ir: true,
                    equivalence: Some(&check),
                    after_pass: Some(&mut at_opt_end),
                };
                let mut stats = Stats::new();
                match manager::run(&mut shader, &steps, &mut checks, &mut stats) {
                    Err(e) if e.kind == ErrorKind::Refused => {
                        *refused
                            .lock()
                            .unwrap()
                            .entry(format!("`{}` {}", e.pass, e.msg))
                            .or_default() += 1;
                        continue;
                    }
                    Err(e) => {
                        failures.lock().unwrap().push(format!("{name}: {e}"));
                        continue;
                    }
                    Ok(_) => {}
                }
                drop(checks);
                after_opt.fetch_add(opt_count.unwrap_or(0), Ordering::Relaxed);
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
                let mut left: Vec<String> = outcome
                    .left_logical
                    .into_iter()
                    .map(|(_, why)| why)
                    .collect();
                // Messages the pass does not take yet, by opcode.
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
                    if eubatch_passes::lower::logical_sends::kept_for_generator(op) {
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
                            // message it does not model yet). Counted, and bounded by the
                            // counts file.
                            unsimulated.lock().unwrap().push(eubatch_sim::reason(&e));
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
    let refused = refused.into_inner().unwrap();
    eprintln!(
        "{corpus}: {} shaders, {} refused, {} -> {} instructions, {} shader x seed simulator comparisons, {} mismatches; {} shaders the simulator cannot run yet",
        files.len(),
        refused.values().sum::<usize>(),
        before.load(Ordering::Relaxed),
        after.load(Ordering::Relaxed),
        runs.load(Ordering::Relaxed),
        failures.len(),
        unsimulated.len()
    );
    for (r, n) in &refused {
        eprintln!("  {n:5}  refused: {r}");
    }
    let mut reasons = BTreeMap::<String, usize>::new();
    for r in &unsimulated {
        *reasons.entry(r.clone()).or_default() += 1;
    }
    for (r, n) in &reasons {
        eprintln!("  {n:5}  not simulated: {r}");
    }
    let found = Counts {
        shaders: files.len(),
        refused,
        start: before.load(Ordering::Relaxed),
        opt: after_opt.load(Ordering::Relaxed),
        lower: after.load(Ordering::Relaxed),
        unsimulated: reasons,
    };
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
    compare_counts(corpus, &found);
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

/// The counts check fails on what it guards: an exact count that moved, a bound exceeded,
/// a reason not in the file; and holds when a bound is undercut.
#[test]
fn counts_check_fails_on_a_change() {
    let path = std::path::Path::new("t.counts");
    let expected = Counts::parse(
        "# c\nshaders 3\nrefused 1: `split` does not handle vec4\ninstructions start 10\n\
         instructions opt 8\ninstructions lower 9\nunsimulated 2: not modelled: x\n",
        path,
    );
    let same = Counts::parse(&expected.print("t"), path);
    assert_eq!(same, expected, "printing and parsing back");
    assert!(same.check(&expected).is_empty());
    let mut fewer = Counts::parse(&expected.print("t"), path);
    fewer.unsimulated.insert("not modelled: x".into(), 1);
    assert!(fewer.check(&expected).is_empty(), "a bound undercut holds");
    let mut more = Counts::parse(&expected.print("t"), path);
    more.unsimulated.insert("not modelled: x".into(), 3);
    assert_eq!(more.check(&expected).len(), 1);
    let mut new_reason = Counts::parse(&expected.print("t"), path);
    new_reason.unsimulated.insert("not modelled: y".into(), 1);
    assert_eq!(new_reason.check(&expected).len(), 1);
    let mut moved = Counts::parse(&expected.print("t"), path);
    moved.opt = 7;
    moved.refused.clear();
    assert_eq!(moved.check(&expected).len(), 2);
}

/// Under `EUBATCH_REQUIRE_CORPORA=1` a missing corpus fails the test instead of skipping.
#[test]
fn a_missing_corpus_fails_when_required() {
    assert!(common::missing_when::<()>(false, "nothing").is_none());
    let required = std::panic::catch_unwind(|| common::missing_when::<()>(true, "nothing"));
    assert!(required.is_err());
}
