//! Allocation fixtures: `tests/fixtures/allocators/*.fixture` at the workspace root, each an
//! allocator name (`pipeline:`), a shader in hardware form and the allocation expected:
//! every VGRF's place, the VGRFs without one (for `mesa` in the order Mesa's loop spilled
//! them) and the checker's verdict. `EUBATCH_BLESS=1 cargo test` rewrites the expectations.

use std::fmt::Write;
use std::path::{Path, PathBuf};

use eubatch_passes::PassCx;
use eubatch_regalloc::problem::Problem;
use eubatch_regalloc::{allocate, by_name, checker, mesa, Input, Placement};

/// The workspace root and the IR crate's fixture runner, shared.
mod common {
    use super::*;

    pub fn workspace_root() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .canonicalize()
            .unwrap()
    }

    #[path = "../../../ir/tests/common/fixture.rs"]
    pub mod fixture;
}

fn run(allocator: &str, input: &str) -> String {
    let shader = match eubatch_ir::text::parse_shader(input) {
        Ok(s) => s,
        Err(e) => return format!("parse error: {e}\n"),
    };
    let Some(mut a) = by_name(allocator) else {
        return format!("unknown allocator `{allocator}`\n");
    };
    let mut cx = PassCx::default();
    let r = match allocate(&shader, &mut cx, a.as_mut()) {
        Ok(r) => r,
        Err(e) => return format!("refused: {e}\n"),
    };
    let mut out = String::new();
    for (v, p) in r.allocation.placement.iter().enumerate() {
        match p {
            Placement::At(reg) => writeln!(out, "vgrf{v} {reg}").unwrap(),
            Placement::NoFit => writeln!(out, "vgrf{v} none").unwrap(),
            Placement::Unused => writeln!(out, "vgrf{v} unused").unwrap(),
        }
    }
    let spilled: Vec<usize> = if allocator == "mesa" {
        let problem = Problem::build(&shader, &mut cx).unwrap();
        let intervals = cx.intervals(&shader).unwrap();
        let input = Input {
            shader: &shader,
            problem: &problem,
            intervals: &intervals,
            constraints: &r.constraints,
            only_if_fits: false,
        };
        mesa::run(&input)
            .spilled
            .iter()
            .map(|v| v.index())
            .collect()
    } else {
        r.allocation.unplaced().map(|v| v.index()).collect()
    };
    let names: Vec<String> = spilled.iter().map(|v| format!("vgrf{v}")).collect();
    writeln!(out, "without a register: {}", names.join(" ")).unwrap();
    writeln!(
        out,
        "registers used {}, taken {}",
        r.allocation.grf_used(&shader, &r.constraints),
        r.allocation.registers_taken(&shader, &r.constraints)
    )
    .unwrap();
    match checker::check(&shader, &mut cx, &r.constraints, &r.allocation) {
        Ok(()) => writeln!(out, "checker: ok").unwrap(),
        Err(e) => writeln!(out, "checker: {e}").unwrap(),
    }
    out
}

#[test]
fn fixtures() {
    common::fixture::run_dir("tests/fixtures/allocators", run);
}
