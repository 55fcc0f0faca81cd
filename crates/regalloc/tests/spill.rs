//! Spilling forced on random shaders: every allocator ([`ALLOCATORS`]), under a register
//! budget small enough to make the generator's shaders spill ([`Options::registers`]), on
//! gen9, gen8 and gen7.5 (the generator's shaders re-targeted), through
//! [`allocate_with_spills`]: the final allocation passes the checker, nothing is left out,
//! and the spilled shader gives the lowered one's outputs in the simulator.

use arbitrary::Unstructured;
use proptest::prelude::*;

use eubatch_passes::manager::{self, Checks, Stats};
use eubatch_passes::PassCx;
use eubatch_regalloc::constraints::Options;
use eubatch_regalloc::{allocate_with_spills, checker, ALLOCATORS};

mod common;
use common::widest_instruction;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(150))]
    #[test]
    fn spilled_random_shaders_check_and_simulate(
        bytes in proptest::collection::vec(any::<u8>(), 64..2048),
        target in prop::sample::select(vec!["skl", "bdw", "hsw"]),
        slack in 0u32..4,
    ) {
        let mut u = Unstructured::new(&bytes);
        let Ok(text) = eubatch_ir::generate::shader_text(&mut u) else { return Ok(()) };
        let text = text.replacen("target skl", &format!("target {target}"), 1);
        let Ok(mut shader) = eubatch_ir::text::parse_shader(&text) else { return Ok(()) };
        let steps = manager::parse("lower").unwrap();
        if manager::refusal(&shader, &steps).is_some() {
            return Ok(());
        }
        let mut checks = Checks { verify_ir: false, equivalence: None, after_pass: None };
        let mut cx = PassCx::default();
        if manager::run_with(&mut shader, &steps, &mut checks, &mut Stats::new(), &mut cx).is_err() {
            // (Lowering for another generation may refuse what the generator wrote for SKL.)
            return Ok(());
        }
        let lowered = eubatch_ir::text::print_shader(&shader);
        // Room for the widest instruction's temporaries, the scratch header and one more,
        // and some slack: tight enough that most shaders spill (about 70% of the cases).
        let budget = widest_instruction(&shader) + 2 + slack;
        let options = Options { registers: Some(budget), ..Options::default() };
        let profile = eubatch_sim::profile::Profile::of(&shader);
        for registered in ALLOCATORS {
            let (name, mut allocator) = (registered.name, (registered.make)());
            let mut cx = PassCx::default();
            let r = match allocate_with_spills(&shader, &mut cx, allocator.as_mut(), &options) {
                Ok(r) => r,
                Err(e) => return Err(TestCaseError::fail(format!("{name}, budget {budget}: {e}\n{lowered}"))),
            };
            let after = r.shader(&shader);
            let a = &r.allocated;
            prop_assert!(!a.allocation.needs_spills(), "{}: VGRFs left out", name);
            if let Err(e) = checker::check(after, &mut cx, &a.constraints, &a.allocation) {
                return Err(TestCaseError::fail(format!("{name}, budget {budget}: {e}\n{}", eubatch_ir::text::print_shader(after))));
            }
            if r.shader.is_some() {
                let cmp = eubatch_sim::compare(&shader, after, 0..4, eubatch_sim::CHECK_STEP_LIMIT, &profile);
                if let eubatch_sim::Comparison::Differs(m) = cmp {
                    return Err(TestCaseError::fail(format!("{name}, budget {budget}: {m}\n{lowered}\n{}", eubatch_ir::text::print_shader(after))));
                }
            }
        }
    }
}
