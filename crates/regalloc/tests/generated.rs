//! Every allocator ([`ALLOCATORS`]) on random shaders from the shared generator
//! (`eubatch_ir::generate`), lowered to hardware form first: every allocation passes the
//! checker, and a shader that fits needs no VGRF left out.

use arbitrary::Unstructured;
use proptest::prelude::*;

use eubatch_passes::manager::{self, Checks, Stats};
use eubatch_passes::PassCx;
use eubatch_regalloc::{allocate, checker, Placement, ALLOCATORS};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn allocations_of_random_shaders_pass_the_checker(bytes in proptest::collection::vec(any::<u8>(), 64..2048)) {
        let mut u = Unstructured::new(&bytes);
        let Ok(mut shader) = eubatch_ir::generate::shader(&mut u) else { return Ok(()) };
        let text = eubatch_ir::text::print_shader(&shader);
        let steps = manager::parse("lower").unwrap();
        let mut checks = Checks { verify_ir: false, equivalence: None, after_pass: None };
        let mut cx = PassCx::default();
        if let Err(e) = manager::run_with(&mut shader, &steps, &mut checks, &mut Stats::new(), &mut cx) {
            return Err(TestCaseError::fail(format!("lowering: {e}\n{text}")));
        }
        let lowered = eubatch_ir::text::print_shader(&shader);
        let iv = cx.intervals(&shader).unwrap();
        for registered in ALLOCATORS {
            let (name, mut allocator) = (registered.name, (registered.make)());
            let r = match allocate(&shader, &mut cx, allocator.as_mut()) {
                Ok(r) => r,
                Err(e) => return Err(TestCaseError::fail(format!("{name}: refused: {e}\n{text}"))),
            };
            if let Err(e) = checker::check(&shader, &mut cx, &r.constraints, &r.allocation) {
                return Err(TestCaseError::fail(format!("{name}: {e}\n{lowered}")));
            }
            // Every accessed VGRF has a place or did not fit; an unaccessed one takes nothing.
            for (v, _) in shader.vgrfs.iter_enumerated() {
                let p = r.allocation.get(v);
                prop_assert_eq!(iv.vgrf(&shader, v).is_empty(), p == Placement::Unused, "{}: vgrf{}\n{}", name, v.index(), lowered);
            }
        }
    }
}
