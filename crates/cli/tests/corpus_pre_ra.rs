//! Mesa's own pre-RA dumps, allocated and run: `compile --from pre-ra --regalloc
//! mesa,linear,subreg --verify` on each of the 8 corpora allocates exactly the IR Mesa
//! allocated, with every allocator, and runs the register-form code in the simulator
//! against the variant's start dump. No shader may
//! fail (a different output is a failure); what the simulator cannot run is counted by
//! reason (`pre_ra`: send descriptors, sub-registers and float immediates Mesa's
//! printer leaves out), and at least as many run and agree as when last raised.
//!
//! Skipped with a message when `../shared` is absent (a failure under
//! EUBATCH_REQUIRE_CORPORA). About 25 s on 2 threads for the 8 corpora.

mod common;
#[path = "../../ir/tests/common/mod.rs"]
mod corpora;

use common::{eubatch, line_starting, number_before};

/// (corpus, target, shaders that ran and agreed when this was last raised).
const CORPORA: [(&str, &str, usize); 8] = [
    ("shaderdb-skl", "skl", 1530),
    ("shaderdb-bdw", "bdw", 1564),
    ("shaderdb-hsw", "hsw", 1120),
    ("piglit-fp64-skl", "skl", 3338),
    ("piglit-fp64-hsw", "hsw", 2299),
    ("vulkan-fp16-skl", "skl", 408),
    ("vulkan-fp16-bdw", "bdw", 408),
    ("shaderdb-skl-mesa25", "skl", 1680),
];

/// The allocators run, `mesa` first (the floors are its).
const ALLOCATORS: [&str; 3] = ["mesa", "linear", "subreg"];

#[test]
fn pre_ra_dumps_allocate_and_run_against_their_start_ir() {
    let mut table = Vec::new();
    for (name, target, floor) in CORPORA {
        let Some(dir) = corpora::corpus(name) else {
            return;
        };
        let started = std::time::Instant::now();
        let (_, out) = eubatch(&[
            "compile",
            dir.to_str().unwrap(),
            "--target",
            target,
            "--regalloc",
            &ALLOCATORS.join(","),
            "--from",
            "pre-ra",
            // Every variant Mesa allocated, whatever Mesa's SIMD32 and compute-width rules
            // say of eubatch's results: what is compared is code, not the choice of variants.
            "--keep-all-simd32",
            "--keep-all-cs-variants",
            "--verify",
            "-j",
            "2",
        ]);
        let line = |prefix: &str| line_starting(&out, prefix, &name);
        let compiled = line("compiled ");
        let failures = number_before(compiled, " failures");
        let errors: Vec<&str> = out.lines().filter(|l| l.starts_with("error:")).collect();
        assert_eq!(failures, 0, "{name}:\n{}", errors.join("\n"));
        // One summary per allocator, in the order given, each with its reasons under it.
        let lines: Vec<&str> = out.lines().collect();
        let summaries: Vec<usize> = (0..lines.len())
            .filter(|&k| lines[k].starts_with("simulator, register form:"))
            .collect();
        assert_eq!(summaries.len(), ALLOCATORS.len(), "{name}:\n{out}");
        for (allocator, &at) in ALLOCATORS.iter().zip(&summaries) {
            let ran = lines[at];
            let agree = number_before(ran, " allocated shaders ran");
            let not_run = number_before(ran, " not run");
            let reasons: Vec<&str> = lines[at + 1..]
                .iter()
                .take_while(|l| l.starts_with(' '))
                .copied()
                .collect();
            table.push(format!(
                "{name}, {allocator}: {agree} ran and agreed, {not_run} not run\n{}",
                reasons.join("\n")
            ));
            // The floor is mesa's; the others drop more wide variants (they fit fewer).
            if *allocator == "mesa" {
                assert!(
                    agree >= floor,
                    "{name}: {agree} ran and agreed, fewer than the {floor} when last raised:\n{out}"
                );
            }
        }
        table.push(format!(
            "{name}: {failures} failures ({:.1} s)",
            started.elapsed().as_secs_f64()
        ));
    }
    eprintln!("{}", table.join("\n"));
}
