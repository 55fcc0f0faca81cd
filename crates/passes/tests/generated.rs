//! The optimization loop on random shaders from the shared generator
//! (`eubatch_ir::generate`): every pass that makes progress must keep the simulator's
//! outputs (3 seeds) and the verifier happy.

use arbitrary::Unstructured;
use proptest::prelude::*;

use eubatch_passes::manager::{self, Checks, Stats};

mod simulator;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    #[test]
    fn opt_keeps_random_shaders_equivalent(bytes in proptest::collection::vec(any::<u8>(), 64..2048)) {
        let mut u = Unstructured::new(&bytes);
        let Ok(mut shader) = eubatch_ir::generate::shader(&mut u) else { return Ok(()) };
        let text = eubatch_ir::text::print_shader(&shader);
        let check = simulator::check(3, &shader);
        let mut checks = Checks { verify_ir: true, equivalence: Some(&check), after_pass: None };
        let steps = manager::parse("opt").unwrap();
        let mut stats = Stats::new();
        if let Err(e) = manager::run(&mut shader, &steps, &mut checks, &mut stats) {
            return Err(TestCaseError::fail(format!("{e}\n{text}")));
        }
        // The generator's shaders all run: a pass run left unchecked is a failure here.
        prop_assert!(stats.unchecked_reasons.is_empty(), "unchecked: {:?}\n{}", stats.unchecked_reasons, text);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    /// SIMD-width lowering alone (on the generator's SIMD8/16/32 shaders, mixed types, HF and
    /// DF, partial writes, predication): every split keeps the outputs.
    #[test]
    fn simd_width_lowering_keeps_random_shaders_equivalent(bytes in proptest::collection::vec(any::<u8>(), 64..2048)) {
        let mut u = Unstructured::new(&bytes);
        let Ok(mut shader) = eubatch_ir::generate::shader(&mut u) else { return Ok(()) };
        let text = eubatch_ir::text::print_shader(&shader);
        let check = simulator::check(3, &shader);
        let mut checks = Checks { verify_ir: true, equivalence: Some(&check), after_pass: None };
        let steps = manager::parse("lower_simd_width,lower_load_payload").unwrap();
        let mut stats = Stats::new();
        if let Err(e) = manager::run(&mut shader, &steps, &mut checks, &mut stats) {
            return Err(TestCaseError::fail(format!("{e}\n{text}")));
        }
        // The generator's shaders all run: a pass run left unchecked is a failure here.
        prop_assert!(stats.unchecked_reasons.is_empty(), "unchecked: {:?}\n{}", stats.unchecked_reasons, text);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    /// The whole lowering pipeline followed by SIMD8 coalescing: every pass that makes
    /// progress keeps the outputs, and coalescing only merges where the NoMask write is
    /// unobservable.
    #[test]
    fn lowering_and_simd8_coalescing_keep_random_shaders_equivalent(bytes in proptest::collection::vec(any::<u8>(), 64..2048)) {
        let mut u = Unstructured::new(&bytes);
        let Ok(mut shader) = eubatch_ir::generate::shader(&mut u) else { return Ok(()) };
        let text = eubatch_ir::text::print_shader(&shader);
        let check = simulator::check(3, &shader);
        let mut checks = Checks { verify_ir: true, equivalence: Some(&check), after_pass: None };
        let steps = manager::parse("lower,coalesce_simd8").unwrap();
        let mut stats = Stats::new();
        if let Err(e) = manager::run(&mut shader, &steps, &mut checks, &mut stats) {
            return Err(TestCaseError::fail(format!("{e}\n{text}")));
        }
        // The generator's shaders all run: a pass run left unchecked is a failure here.
        prop_assert!(stats.unchecked_reasons.is_empty(), "unchecked: {:?}\n{}", stats.unchecked_reasons, text);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(150))]
    /// Pre-RA scheduling in each of Mesa's modes after the whole lowering pipeline: every
    /// reordering keeps the outputs (a dependency the graph missed shows here).
    #[test]
    fn scheduling_keeps_random_shaders_equivalent(bytes in proptest::collection::vec(any::<u8>(), 64..2048)) {
        let mut u = Unstructured::new(&bytes);
        let Ok(shader) = eubatch_ir::generate::shader(&mut u) else { return Ok(()) };
        let text = eubatch_ir::text::print_shader(&shader);
        for mode in ["schedule_top_down", "schedule_non_lifo", "schedule_lifo"] {
            let mut shader = shader.clone();
            let check = simulator::check(3, &shader);
            let mut checks = Checks { verify_ir: true, equivalence: Some(&check), after_pass: None };
            let steps = manager::parse(&format!("lower,{mode}")).unwrap();
            let mut stats = Stats::new();
            if let Err(e) = manager::run(&mut shader, &steps, &mut checks, &mut stats) {
                return Err(TestCaseError::fail(format!("{mode}: {e}\n{text}")));
            }
            prop_assert!(stats.unchecked_reasons.is_empty(), "unchecked: {:?}\n{}", stats.unchecked_reasons, text);
        }
    }
}
