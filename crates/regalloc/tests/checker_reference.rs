//! The checker goes by runs of slots and register-file words (issue 15: it ran on every
//! allocated shader at 8% of the throughput budget); it must say exactly what the slot-by-
//! slot, byte-by-byte checker it replaced says (`reference/slot_by_slot.rs`). Random
//! shaders from the shared generator, lowered, allocated by every allocator, then their
//! allocations broken at random (a VGRF moved onto another's register, anywhere in the
//! file, a few bytes over, left without a register or said never accessed): both checkers
//! give the same verdict and the same violation, and every sound allocation passes.

use arbitrary::Unstructured;
use proptest::prelude::*;

use eubatch_passes::manager::{self, Checks, Stats};
use eubatch_passes::PassCx;
use eubatch_regalloc::constraints::Constraints;
use eubatch_regalloc::{allocate, checker, Allocation, Placement, Reg, ALLOCATORS};

#[path = "reference/slot_by_slot.rs"]
mod slot_by_slot;

/// `a` with one to three placements changed as `u` says.
fn broken(u: &mut Unstructured, a: &Allocation, c: &Constraints) -> arbitrary::Result<Allocation> {
    let mut a = a.clone();
    let n = a.placement.len();
    for _ in 0..u.int_in_range(1..=3)? {
        let v = u.choose_index(n)?;
        let old = a.placement[v];
        a.placement[v] = match u.int_in_range(0..=5)? {
            // Onto another VGRF's register: values live together share bytes.
            0 | 1 => a.placement[u.choose_index(n)?],
            // Anywhere in the file, at some slot of a register.
            2 => Placement::At(Reg {
                grf: u.int_in_range(0..=c.grf_count - 1)?,
                offset: u.int_in_range(0..=c.reg_size / 4 - 1)? * 4,
            }),
            // A few bytes up or down from where it was.
            3 => match old {
                Placement::At(r) => {
                    let byte =
                        (r.grf * c.reg_size + r.offset) as i64 + 4 * u.int_in_range(-8i64..=8)?;
                    let byte = byte.clamp(0, (c.grf_count * c.reg_size - 4) as i64) as u32;
                    Placement::At(Reg {
                        grf: byte / c.reg_size,
                        offset: byte % c.reg_size,
                    })
                }
                p => p,
            },
            4 => Placement::NoFit,
            _ => Placement::Unused,
        };
    }
    Ok(a)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    #[test]
    fn the_checker_says_what_the_slot_by_slot_checker_says(bytes in proptest::collection::vec(any::<u8>(), 64..4096)) {
        let mut u = Unstructured::new(&bytes);
        let Ok(mut shader) = eubatch_ir::generate::shader(&mut u) else { return Ok(()) };
        let steps = manager::parse("lower").unwrap();
        let mut checks = Checks { verify_ir: false, equivalence: None, after_pass: None };
        let mut cx = PassCx::default();
        if manager::run_with(&mut shader, &steps, &mut checks, &mut Stats::new(), &mut cx).is_err() {
            return Ok(());
        }
        if shader.vgrfs.is_empty() {
            return Ok(());
        }
        let lowered = eubatch_ir::text::print_shader(&shader);
        for registered in ALLOCATORS {
            let Ok(r) = allocate(&shader, &mut cx, (registered.make)().as_mut()) else { continue };
            let (c, sound) = (&r.constraints, &r.allocation);
            let ours = checker::check(&shader, &mut cx, c, sound);
            prop_assert_eq!(&ours, &Ok(()), "{}\n{}", registered.name, lowered);
            prop_assert_eq!(&ours, &slot_by_slot::check(&shader, &mut cx, c, sound));
            for _ in 0..8 {
                let Ok(a) = broken(&mut u, sound, c) else { break };
                let ours = checker::check(&shader, &mut cx, c, &a);
                let reference = slot_by_slot::check(&shader, &mut cx, c, &a);
                prop_assert_eq!(
                    &ours, &reference,
                    "{}: {:?}\n{}", registered.name,
                    a.placement.iter().enumerate()
                        .filter(|(v, p)| sound.placement[*v] != **p)
                        .collect::<Vec<_>>(),
                    lowered
                );
            }
        }
    }
}
