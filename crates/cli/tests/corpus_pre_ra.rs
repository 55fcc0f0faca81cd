//! Mesa's own pre-RA dumps, allocated and run: `compile --from pre-ra --regalloc mesa
//! --verify` on each of the 8 corpora allocates exactly the IR Mesa allocated and runs the
//! register-form code in the simulator against the variant's start dump. No shader may
//! fail (a different output is a failure); what the simulator cannot run is counted by
//! reason (`pre_ra`: send descriptors, sub-registers and float immediates Mesa's
//! printer leaves out), and at least as many run and agree as when last raised.
//!
//! Skipped with a message when `../shared` is absent (a failure under
//! EUBATCH_REQUIRE_CORPORA). About 25 s on 2 threads for the 8 corpora.

mod common;
#[path = "../../ir/tests/common/mod.rs"]
mod corpora;

use common::eubatch;

/// (corpus, target, shaders that ran and agreed when this was last raised).
const CORPORA: [(&str, &str, usize); 8] = [
    ("shaderdb-skl", "skl", 1157),
    ("shaderdb-bdw", "bdw", 1166),
    ("shaderdb-hsw", "hsw", 746),
    ("piglit-fp64-skl", "skl", 2563),
    ("piglit-fp64-hsw", "hsw", 1537),
    ("vulkan-fp16-skl", "skl", 215),
    ("vulkan-fp16-bdw", "bdw", 215),
    ("shaderdb-skl-mesa25", "skl", 1590),
];

/// The number before `key` in `line` (`1102 allocated shaders ran`).
fn number_before(line: &str, key: &str) -> usize {
    let i = line
        .find(key)
        .unwrap_or_else(|| panic!("no `{key}` in {line}"));
    line[..i]
        .trim_end()
        .rsplit([' ', ';', ','])
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

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
            "mesa",
            "--from",
            "pre-ra",
            "--verify",
            "-j",
            "2",
        ]);
        let line = |prefix: &str| {
            out.lines()
                .find(|l| l.starts_with(prefix))
                .unwrap_or_else(|| panic!("{name}: no `{prefix}` line:\n{out}"))
        };
        let compiled = line("compiled ");
        let failures = number_before(compiled, " failures");
        let ran = line("simulator, register form:");
        let agree = number_before(ran, " allocated shaders ran");
        let not_run = number_before(ran, " not run");
        // The reasons, as the driver lists them under the summary.
        let reasons: Vec<&str> = out
            .lines()
            .skip_while(|l| !l.starts_with("simulator, register form:"))
            .skip(1)
            .take_while(|l| l.starts_with(' '))
            .collect();
        table.push(format!(
            "{name}: {agree} ran and agreed, {not_run} not run, {failures} failures ({:.1} s)\n{}",
            started.elapsed().as_secs_f64(),
            reasons.join("\n")
        ));
        let errors: Vec<&str> = out.lines().filter(|l| l.starts_with("error:")).collect();
        assert_eq!(failures, 0, "{name}:\n{}", errors.join("\n"));
        assert!(
            agree >= floor,
            "{name}: {agree} ran and agreed, fewer than the {floor} when last raised:\n{out}"
        );
    }
    eprintln!("{}", table.join("\n"));
}
