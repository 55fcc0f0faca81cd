//! Issue 17's whole pipeline on the other seven corpora (shaderdb-skl is
//! `corpus_regalloc.rs`): `compile --stop-after final --verify` allocates every scalar
//! shader it keeps, encodes each, and runs the binary decoded from its bytes in the
//! simulator against the start IR with the same outputs: no failure, nothing left
//! unencoded, nothing the simulator could not run.
//!
//! Skipped with a message when `../shared` is absent (a failure under
//! EUBATCH_REQUIRE_CORPORA). About 3 minutes on 2 threads.

mod common;
#[path = "../../ir/tests/common/mod.rs"]
mod corpora;

use common::{eubatch, line_starting, number_before};

const CORPORA: [(&str, &str); 7] = [
    ("shaderdb-bdw", "bdw"),
    ("shaderdb-hsw", "hsw"),
    ("piglit-fp64-skl", "skl"),
    ("piglit-fp64-hsw", "hsw"),
    ("vulkan-fp16-skl", "skl"),
    ("vulkan-fp16-bdw", "bdw"),
    ("shaderdb-skl-mesa25", "skl"),
];

#[test]
fn every_kept_scalar_shader_runs_as_its_binary() {
    let mut table = Vec::new();
    for (name, target) in CORPORA {
        let Some(dir) = corpora::corpus(name) else {
            return;
        };
        let (ok, out) = eubatch(&[
            "compile",
            dir.to_str().unwrap(),
            "--target",
            target,
            "--stop-after",
            "final",
            "--verify",
            "-j",
            "2",
        ]);
        let line = |prefix: &str| line_starting(&out, prefix, &name).to_string();
        let errors: Vec<&str> = out.lines().filter(|l| l.starts_with("error:")).collect();
        assert!(ok && errors.is_empty(), "{name}:\n{}", errors.join("\n"));
        let compiled = line("compiled ");
        assert_eq!(
            number_before(&compiled, " failures"),
            0,
            "{name}: {compiled}"
        );
        let ra = line("register allocation (`mesa`): ");
        let allocated = number_before(&ra, " shaders allocated");
        let sim = line("simulator, register form: ");
        let agree = number_before(&sim, " allocated shaders ran");
        let binary = number_before(&sim, " of them as the binary");
        let not_run = number_before(&sim, " not run");
        let encoded = line("binary: ");
        let unencoded: Vec<&str> = out
            .lines()
            .filter(|l| {
                l.starts_with("not encoded:") || l.starts_with("final instruction count not known")
            })
            .collect();
        assert!(unencoded.is_empty(), "{name}:\n{}", unencoded.join("\n"));
        assert_eq!(
            (agree, binary, not_run),
            (allocated, allocated, 0),
            "{name}: {sim}"
        );
        table.push(format!("{name}: {ra}\n  {encoded}"));
    }
    eprintln!("{}", table.join("\n"));
}
