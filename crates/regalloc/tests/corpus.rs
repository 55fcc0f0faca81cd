//! `linear` on every scalar shader of shaderdb-skl (`../shared/corpora`, skipped with a
//! message when absent), lowered as `eubatch compile --stop-after lower` lowers it: every
//! allocation passes the checker. Prints shaders allocated, needing spills, refused, and
//! the registers used in all.

use std::path::{Path, PathBuf};

use eubatch_ir::import::{discover, load_text, InputKind};
use eubatch_ir::Backend;
use eubatch_passes::manager::{self, Checks, Stats};
use eubatch_passes::PassCx;
use eubatch_regalloc::{allocate, by_name, checker};

/// `../shared/corpora/NAME` beside the workspace root, if present.
fn corpus(name: &str) -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let p = root.join("../shared/corpora").join(name);
    if p.is_dir() {
        Some(p)
    } else {
        eprintln!("skipping: {} not found", p.display());
        None
    }
}

#[test]
fn linear_allocates_shaderdb_skl_and_the_checker_agrees() {
    let Some(dir) = corpus("shaderdb-skl") else {
        return;
    };
    let files = discover(&[dir], |k| matches!(k, InputKind::Mesa(d) if d.is_start())).unwrap();
    assert!(!files.is_empty());
    let steps = manager::parse("lower").unwrap();
    let mut linear = by_name("linear").unwrap();
    let (mut allocated, mut spills, mut vec4, mut refused, mut regs) = (0u64, 0u64, 0u64, 0, 0u64);
    let mut taken = 0u64;
    let mut unplaced = 0u64;
    let mut failures = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let name = path.to_string_lossy();
        let mut shader = load_text(path, &text, &name, None).unwrap();
        if shader.backend == Backend::Vec4 {
            vec4 += 1;
            continue;
        }
        if manager::refusal(&shader, &steps).is_some() {
            refused += 1;
            continue;
        }
        let mut cx = PassCx::default();
        let mut checks = Checks {
            verify_ir: false,
            equivalence: None,
            after_pass: None,
        };
        if let Err(e) =
            manager::run_with(&mut shader, &steps, &mut checks, &mut Stats::new(), &mut cx)
        {
            failures.push(format!("{name}: lowering: {e}"));
            continue;
        }
        let r = match allocate(&shader, &mut cx, linear.as_mut()) {
            Ok(r) => r,
            Err(e) => {
                failures.push(format!("{name}: refused: {e}"));
                continue;
            }
        };
        if let Err(e) = checker::check(&shader, &mut cx, &r.constraints, &r.allocation) {
            failures.push(format!("{name}: {e}"));
            continue;
        }
        allocated += 1;
        regs += r.allocation.grf_used(&shader, &r.constraints) as u64;
        taken += r.allocation.registers_taken(&shader, &r.constraints) as u64;
        if r.allocation.needs_spills() {
            spills += 1;
            unplaced += r.allocation.unplaced().count() as u64;
        }
    }
    println!(
        "shaderdb-skl, linear: {allocated} shaders allocated and checked, {spills} needing spills ({unplaced} VGRFs without a register), {} checker or lowering failures, {vec4} vec4 and {refused} refused by lowering left out; registers used (Mesa's grf_used, to the EOT payload at g127) {regs} in all, registers taken {taken} in all",
        failures.len()
    );
    for f in failures.iter().take(10) {
        println!("  {f}");
    }
    assert!(failures.is_empty(), "{} failures", failures.len());
}
