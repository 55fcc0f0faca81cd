//! Every allocator ([`ALLOCATORS`]) on every scalar shader of shaderdb-skl
//! (`../shared/corpora`, skipped with a message when absent), lowered as `eubatch compile
//! --stop-after lower` lowers it: every allocation passes the checker. Prints, per
//! allocator, shaders allocated, needing spills, refused, the registers used and taken in
//! all, and the registers holding two values live at once (false dependencies before
//! gen12).

use std::path::{Path, PathBuf};

use eubatch_ir::import::{discover, load_text, InputKind};
use eubatch_ir::Backend;
use eubatch_passes::manager::{self, Checks, Stats};
use eubatch_passes::PassCx;
use eubatch_regalloc::{allocate, checker, ALLOCATORS};

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

/// One allocator's totals over the corpus.
#[derive(Default)]
struct Totals {
    allocated: u64,
    spills: u64,
    unplaced: u64,
    regs: u64,
    taken: u64,
    shared: u64,
}

#[test]
fn allocators_allocate_shaderdb_skl_and_the_checker_agrees() {
    let Some(dir) = corpus("shaderdb-skl") else {
        return;
    };
    let files = discover(&[dir], |k| matches!(k, InputKind::Mesa(d) if d.is_start())).unwrap();
    assert!(!files.is_empty());
    let steps = manager::parse("lower").unwrap();
    let mut allocators: Vec<_> = ALLOCATORS.iter().map(|a| (a.make)()).collect();
    let mut totals: Vec<Totals> = ALLOCATORS.iter().map(|_| Totals::default()).collect();
    let (mut vec4, mut refused) = (0u64, 0);
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
        for ((allocator, t), who) in allocators
            .iter_mut()
            .zip(&mut totals)
            .zip(ALLOCATORS.iter().map(|a| a.name))
        {
            let r = match allocate(&shader, &mut cx, allocator.as_mut()) {
                Ok(r) => r,
                Err(e) => {
                    failures.push(format!("{name}: {who}: refused: {e}"));
                    continue;
                }
            };
            if let Err(e) = checker::check(&shader, &mut cx, &r.constraints, &r.allocation) {
                failures.push(format!("{name}: {who}: {e}"));
                continue;
            }
            let a = &r.allocation;
            t.allocated += 1;
            t.regs += a.grf_used(&shader, &r.constraints) as u64;
            t.taken += a.registers_taken(&shader, &r.constraints) as u64;
            t.shared += a.shared_registers(&shader, &mut cx, &r.constraints) as u64;
            if a.needs_spills() {
                t.spills += 1;
                t.unplaced += a.unplaced().count() as u64;
            }
        }
    }
    for (who, t) in ALLOCATORS.iter().map(|a| a.name).zip(&totals) {
        println!(
            "shaderdb-skl, {who}: {} shaders allocated and checked, {} needing spills ({} VGRFs without a register); registers used (Mesa's grf_used, to the EOT payload at g127) {} in all, registers taken {} in all, registers holding two values live at once {} in all",
            t.allocated, t.spills, t.unplaced, t.regs, t.taken, t.shared
        );
    }
    println!(
        "{} checker or lowering failures, {vec4} vec4 and {refused} refused by lowering left out",
        failures.len()
    );
    for f in failures.iter().take(10) {
        println!("  {f}");
    }
    assert!(failures.is_empty(), "{} failures", failures.len());
}
