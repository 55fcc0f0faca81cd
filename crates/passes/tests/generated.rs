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

/// The generator's memory messages (untyped, scattered and typed reads, writes and
/// atomics, varying pull-constant loads) on fixed
/// samples: the whole lowering pipeline turns every one into a `send`, the simulator
/// compares each pass that changed the shader, and the messages are there to compare
/// (the property tests above would pass vacuously on shaders without them). Outputs the
/// lowering must keep: every write's and atomic's memory records, in order, and what the
/// reads return (folded into the colour).
#[test]
fn memory_messages_of_random_shaders_are_lowered_and_proven() {
    use eubatch_ir::Opcode;
    // (The data-port messages the generator makes, by the message tables: surface reads
    // and writes, atomics, varying pull constants.)
    let memory = |shader: &eubatch_ir::Shader, i: eubatch_ir::Inst| {
        let (op, srcs) = (shader.insts.opcode[i], shader.srcs(i));
        eubatch_ir::message::surface::logical_shape(op, srcs).is_some()
            || eubatch_ir::message::atomic::logical(op, srcs, true).is_some()
            || op == Opcode::VaryingPullConstLogical
    };
    let (mut shaders, mut messages, mut sends) = (0, 0, 0);
    let mut by_opcode = std::collections::BTreeMap::new();
    for seed in 0..120 {
        let bytes = eubatch_ir::generate::fixed_sample(seed, 1536);
        let mut u = Unstructured::new(&bytes);
        let Ok(mut shader) = eubatch_ir::generate::shader(&mut u) else {
            continue;
        };
        let mut n = 0;
        for i in shader.layout.insts() {
            if memory(&shader, i) {
                n += 1;
                *by_opcode.entry(shader.insts.opcode[i].name()).or_insert(0) += 1;
            }
        }
        if n == 0 {
            continue;
        }
        shaders += 1;
        messages += n;
        let text = eubatch_ir::text::print_shader(&shader);
        let check = simulator::check(3, &shader);
        let mut checks = Checks {
            verify_ir: true,
            equivalence: Some(&check),
            after_pass: None,
        };
        let mut stats = Stats::new();
        manager::run(
            &mut shader,
            &manager::parse("lower").unwrap(),
            &mut checks,
            &mut stats,
        )
        .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
        assert!(
            stats.unchecked_reasons.is_empty(),
            "seed {seed}: unchecked {:?}\n{text}",
            stats.unchecked_reasons
        );
        let left: Vec<_> = shader
            .layout
            .insts()
            .filter(|&i| memory(&shader, i))
            .collect();
        assert!(
            left.is_empty(),
            "seed {seed}: {} memory messages left logical\n{text}",
            left.len()
        );
        sends += shader
            .layout
            .insts()
            .filter(|&i| shader.insts.opcode[i] == Opcode::Send)
            .count();
    }
    eprintln!("{shaders} shaders, {messages} memory messages ({by_opcode:?}), {sends} sends");
    // Every family the generator makes is there.
    assert_eq!(by_opcode.len(), 11, "{by_opcode:?}");
    // Fixed samples: these counts only change with the generator.
    assert!(
        shaders >= 80 && messages >= 250,
        "{shaders} shaders with {messages} memory messages"
    );
    assert!(sends >= messages, "{sends} sends for {messages} messages");
}
