//! The README's example allocator, kept here so that it compiles and passes the checker:
//! on every scalar shader of the example corpus (lowered as `compile --regalloc` lowers
//! it) and on random shaders, whatever it places is proven by [`checker::check`], and
//! the README shows exactly this code (a test below compares them).

use eubatch_ir::import::{discover, load_file, InputKind};
use eubatch_passes::manager::{self, Checks, Stats};
use eubatch_passes::PassCx;
use eubatch_regalloc::{allocate, checker};

// README example begins
use eubatch_regalloc::{Allocation, Allocator, Input, Placement, Reg};

/// Every live VGRF its own registers, never reused: end-of-thread payloads from the top
/// of the file down, the rest from the first free register up, until they meet. g127 is
/// left out: a SIMD8 message may not return to it.
struct Bump;

impl Allocator for Bump {
    fn allocate(&mut self, input: &Input<'_>) -> Allocation {
        let (p, c) = (input.problem, input.constraints);
        let mut out = Allocation::unused(p.regs.len());
        let (mut low, mut high) = (c.first_free_grf, c.grf_count - 1);
        for eot in [true, false] {
            let live = |v: &usize| c.is_eot[*v] == eot && !p.live[*v].is_empty();
            for v in (0..p.regs.len()).filter(live) {
                let n = p.regs[v].max(1);
                out.placement[v] = if high < low + n || (eot && high - n < c.eot_first_grf) {
                    Placement::NoFit
                } else if eot {
                    high -= n;
                    Placement::At(Reg {
                        grf: high,
                        offset: 0,
                    })
                } else {
                    low += n;
                    Placement::At(Reg {
                        grf: low - n,
                        offset: 0,
                    })
                };
            }
        }
        out
    }
}
// README example ends

#[test]
fn the_example_allocator_passes_the_checker_on_the_example_corpus() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/corpus");
    let files = discover(&[root], |k| matches!(k, InputKind::Mesa(d) if d.is_start())).unwrap();
    let steps = manager::parse("lower").unwrap();
    let (mut allocated, mut placed) = (0, 0);
    for path in &files {
        let name = path.to_string_lossy();
        let mut shader = load_file(path, &name, None).unwrap();
        if manager::refusal(&shader, &steps).is_some() {
            continue;
        }
        let mut cx = PassCx::default();
        let mut checks = Checks {
            verify_ir: false,
            equivalence: None,
            after_pass: None,
        };
        manager::run_with(&mut shader, &steps, &mut checks, &mut Stats::new(), &mut cx).unwrap();
        let Ok(r) = allocate(&shader, &mut cx, &mut Bump) else {
            continue; // A stage the rules do not cover yet.
        };
        checker::check(&shader, &mut cx, &r.constraints, &r.allocation)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        allocated += 1;
        placed += r
            .allocation
            .placement
            .iter()
            .filter(|p| matches!(p, Placement::At(_)))
            .count();
    }
    assert!(
        allocated >= 10 && placed > 100,
        "{allocated} shaders, {placed} VGRFs placed"
    );
}

#[test]
fn the_readme_shows_this_allocator() {
    let this = include_str!("example_allocator.rs");
    let code = this
        .split("// README example begins\n")
        .nth(1)
        .and_then(|rest| rest.split("// README example ends").next())
        .unwrap();
    let readme = include_str!("../../../README.md");
    assert!(
        readme.contains(code),
        "README.md must show the example allocator of crates/regalloc/tests/example_allocator.rs as it is:\n{code}"
    );
}
