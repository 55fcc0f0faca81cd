//! Text fixtures of the passes: `tests/fixtures/passes/*.fixture` at the workspace root, each
//! an input in eubatch's format, a pipeline, and the expected output (the shader after the
//! pipeline). Every pass run is also checked in the simulator, input against output, on 4
//! seeds, and by the verifier; a failure, a refusal, and every pass run the simulator could
//! not compare (with why) are printed at the top of the output.
//! `EUBATCH_BLESS=1 cargo test` rewrites expectations.
//!
//! Pipeline: `passes PIPELINE` (as `eubatch compile --passes`).

#[path = "../../ir/tests/common/mod.rs"]
mod common;
mod simulator;

use eubatch_ir::text::{parse_shader, print_shader};
use eubatch_passes::manager::{self, Checks, Stats};

fn run_pipeline(pipeline: &str, input: &str) -> String {
    let Some(steps) = pipeline.strip_prefix("passes ") else {
        panic!("unknown pipeline `{pipeline}`");
    };
    let steps = manager::parse(steps).unwrap_or_else(|e| panic!("{e}"));
    let mut shader = match parse_shader(input) {
        Ok(s) => s,
        Err(e) => return format!("parse error: {e}\n"),
    };
    let check = simulator::check(4, &shader);
    let mut checks = Checks {
        verify_ir: true,
        equivalence: Some(&check),
        after_pass: None,
    };
    let mut out = String::new();
    let mut stats = Stats::new();
    if let Err(e) = manager::run(&mut shader, &steps, &mut checks, &mut stats) {
        out.push_str(&format!("error: {e}\n"));
    }
    // What the simulator could not compare is said, never taken as checked.
    for (why, n) in &stats.unchecked_reasons {
        out.push_str(&format!(
            "not checked in the simulator ({n} pass run{}): {why}\n",
            if *n == 1 { "" } else { "s" }
        ));
    }
    out.push_str(&print_shader(&shader));
    out
}

#[test]
fn fixtures() {
    common::fixture::run_dir("tests/fixtures/passes", run_pipeline);
}
