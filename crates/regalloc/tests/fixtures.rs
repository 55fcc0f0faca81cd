//! Text fixtures of spilling: `tests/fixtures/regalloc/*.fixture` at the workspace root,
//! each an input in eubatch's format (lowered code), a pipeline, and the expected output:
//! the spill and fill counts, what the checker, the hardware-form verifier and the
//! simulator (input against output, 8 seeds) say, and the shader after the pipeline. `EUBATCH_BLESS=1 cargo test` rewrites
//! expectations.
//!
//! Pipelines:
//! - `spill vgrfA vgrfB ... [scratch N]`: spills those VGRFs ([`Spiller`]), nothing else,
//!   their scratch starting at byte N (0 by default: as if N bytes were spilled before),
//!   and checks what the spill says it changed (`Changed::check_claim`);
//! - `allocate NAME registers N`: allocates with allocator NAME under a budget of N
//!   registers, spilling what does not fit ([`allocate_with_spills`]), and prints the
//!   allocation beside the checker's verdict.

#[path = "../../ir/tests/common/mod.rs"]
mod common;

use eubatch_ir::text::{parse_shader, print_shader};
use eubatch_ir::{Shader, Vgrf};
use eubatch_passes::analysis::changed::Snapshot;
use eubatch_passes::PassCx;
use eubatch_regalloc::constraints::Options;
use eubatch_regalloc::spill::Spiller;
use eubatch_regalloc::{allocate_with_spills, by_name, checker, Placement};

/// What the verifier says of the spilled shader: spill code must be in hardware form.
fn verified(after: &Shader) -> String {
    match eubatch_ir::verify::verify_hardware(after).first() {
        None => "verifier: hardware form\n".into(),
        Some(e) => format!("verifier: NOT IN HARDWARE FORM: {e}\n"),
    }
}

/// What the simulator says of `after` against `before`, on 8 seeds.
fn simulated(before: &Shader, after: &Shader) -> String {
    let profile = eubatch_sim::profile::Profile::of(before);
    match eubatch_sim::compare(before, after, 0..8, eubatch_sim::CHECK_STEP_LIMIT, &profile) {
        eubatch_sim::Comparison::Equal => "simulator: equal on 8 seeds\n".into(),
        eubatch_sim::Comparison::Unchecked(why) => format!("simulator: not checked: {why}\n"),
        eubatch_sim::Comparison::Differs(m) => format!("simulator: DIFFERS: {m}\n"),
    }
}

fn run(pipeline: &str, input: &str) -> String {
    let shader = match parse_shader(input) {
        Ok(s) => s,
        Err(e) => return format!("parse error: {e}\n"),
    };
    let words: Vec<&str> = pipeline.split_whitespace().collect();
    match words.as_slice() {
        ["spill", args @ ..] => {
            let (vgrfs, start) = match args {
                [v @ .., "scratch", n] => (v, n.parse().unwrap()),
                v => (v, 0),
            };
            let vgrfs: Vec<Vgrf> = vgrfs
                .iter()
                .map(|v| Vgrf::from_usize(v.trim_start_matches("vgrf").parse().unwrap()))
                .collect();
            let mut out = shader.clone();
            let mut spiller = Spiller::new();
            spiller.last_scratch = start;
            let before = Snapshot::of(&out);
            match spiller.spill(&mut out, &vgrfs) {
                Ok(changed) => {
                    if let Err(e) = changed.check_claim(&before, &out) {
                        return format!("error: the spill's claim is wrong: {e}\n");
                    }
                }
                Err(e) => return format!("error: {e}\n"),
            }
            let c = spiller.counts;
            format!(
                "spills {} fills {} scratch {} bytes\n{}{}{}",
                c.spills,
                c.fills,
                spiller.last_scratch,
                verified(&out),
                simulated(&shader, &out),
                print_shader(&out)
            )
        }
        ["allocate", name, "registers", n] => {
            let mut allocator = by_name(name).unwrap();
            let options = Options {
                registers: Some(n.parse().unwrap()),
                ..Options::default()
            };
            let mut cx = PassCx::default();
            let r = match allocate_with_spills(&shader, &mut cx, allocator.as_mut(), &options) {
                Ok(r) => r,
                Err(e) => return format!("error: {e}\n"),
            };
            let after = r.shader(&shader);
            let a = &r.allocated;
            let verdict = match checker::check(after, &mut cx, &a.constraints, &a.allocation) {
                Ok(()) => "checker: accepted\n".to_string(),
                Err(e) => format!("checker: REJECTS: {e}\n"),
            };
            let mut placed = String::from("allocation:");
            for (k, p) in a.allocation.placement.iter().enumerate() {
                if let Placement::At(at) = p {
                    placed += &format!(" vgrf{k}={at}");
                }
            }
            format!(
                "spills {} fills {} ({} VGRFs, {} rounds)\n{verdict}{}{}{placed}\n{}",
                r.counts.spills,
                r.counts.fills,
                r.spilled,
                r.rounds,
                verified(after),
                simulated(&shader, after),
                print_shader(after)
            )
        }
        _ => panic!("unknown pipeline `{pipeline}`"),
    }
}

#[test]
fn fixtures() {
    common::fixture::run_dir("tests/fixtures/regalloc", run);
}
