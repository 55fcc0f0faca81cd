//! Text fixtures of post-RA scheduling (`schedule::post_ra`): `tests/fixtures/post_ra/*.fixture`
//! at the workspace root, each a shader in register form (every operand a fixed register,
//! as `eubatch_regalloc::assign` leaves it), the pipeline (`post-ra-schedule`: eubatch's
//! candidate choice, the default; `post-ra-schedule-mesa`: Mesa's), and the
//! expected output: the scheduler's estimate before and after (block schedule lengths in
//! Mesa's scheduler cycles), what the simulator says of the output against the input (8
//! seeds), and the scheduled shader. `EUBATCH_BLESS=1 cargo test` rewrites expectations.

#[path = "../../ir/tests/common/mod.rs"]
mod common;

use eubatch_ir::text::{parse_shader, print_shader};
use eubatch_passes::schedule::post_ra::PostRaScheduler;

fn run(pipeline: &str, input: &str) -> String {
    let mesa_choice = match pipeline {
        "post-ra-schedule" => false,
        "post-ra-schedule-mesa" => true,
        _ => panic!("unknown pipeline `{pipeline}`"),
    };
    let before = match parse_shader(input) {
        Ok(s) => s,
        Err(e) => return format!("parse error: {e}\n"),
    };
    let mut after = before.clone();
    let mut scheduler = PostRaScheduler::default();
    scheduler.mesa_choice = mesa_choice;
    let estimate = match scheduler.schedule(&mut after) {
        Some(e) => format!("estimate: {} cycles before, {} after\n", e.before, e.after),
        None => "not scheduled\n".to_string(),
    };
    let profile = eubatch_sim::profile::Profile::of(&before);
    let limit = eubatch_sim::CHECK_STEP_LIMIT;
    let simulated = match eubatch_sim::compare(&before, &after, 0..8, limit, &profile) {
        eubatch_sim::Comparison::Equal => "simulator: equal on 8 seeds\n".to_string(),
        eubatch_sim::Comparison::Unchecked(why) => format!("simulator: not checked: {why}\n"),
        eubatch_sim::Comparison::Differs(m) => format!("simulator: DIFFERS: {m}\n"),
    };
    format!("{estimate}{simulated}{}", print_shader(&after))
}

#[test]
fn fixtures() {
    common::fixture::run_dir("tests/fixtures/post_ra", run);
}
