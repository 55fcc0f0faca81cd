//! Shaders from the shared random generator (`eubatch_ir::generate`, the one behind the
//! property test `crates/sim/tests/generated.rs`): each must verify, print and parse back
//! to the same IR, and run to completion with the same outputs twice and no reads of
//! undefined bytes; and the optimization loop keeps it equivalent, every pass checked in
//! the simulator.
//!
//! `cargo fuzz run generated` (nightly, cargo-fuzz).

#![no_main]

use arbitrary::Unstructured;
use eubatch_ir::generate;
use eubatch_ir::shader::same_ir;
use eubatch_ir::text::{parse_shader, print_shader};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(text) = generate::shader_text(&mut u) else {
        return;
    };
    let shader = parse_shader(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let errs = eubatch_ir::verify::verify(&shader);
    assert!(errs.is_empty(), "{errs:?}\n{text}");
    let back = parse_shader(&print_shader(&shader)).expect("printed shader parses");
    same_ir(&shader, &back).unwrap_or_else(|d| panic!("{d}\n{text}"));
    let a = eubatch_sim::run(&shader, 0, None).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let b = eubatch_sim::run(&back, 0, None).unwrap();
    assert_eq!(a, b, "not deterministic\n{text}");
    assert_eq!(a.poison_reads, 0, "reads of undefined bytes\n{text}");
    // The optimization loop keeps it equivalent: every pass checked in the simulator.
    let mut opt = shader.clone();
    let steps = eubatch_passes::manager::parse("opt").unwrap();
    use eubatch_passes::manager::Check;
    let profile = eubatch_sim::profile::Profile::of(&shader);
    let check = |before: &eubatch_ir::Shader, after: &eubatch_ir::Shader| {
        let limit = eubatch_sim::CHECK_STEP_LIMIT;
        match eubatch_sim::compare(before, after, 0..2, limit, &profile) {
            eubatch_sim::Comparison::Equal => Check::Equal,
            eubatch_sim::Comparison::Unchecked(why) => Check::Unchecked(why),
            eubatch_sim::Comparison::Differs(m) => Check::Differs(m.to_string()),
        }
    };
    let mut checks = eubatch_passes::manager::Checks {
        verify_ir: true,
        equivalence: Some(&check),
        after_pass: None,
    };
    let mut stats = eubatch_passes::manager::Stats::new();
    if let Err(e) = eubatch_passes::manager::run(&mut opt, &steps, &mut checks, &mut stats) {
        panic!("{e}\n{text}");
    }
    // The generator's shaders all run: every pass that changed one was compared.
    assert!(stats.unchecked_reasons.is_empty(), "{:?}\n{text}", stats.unchecked_reasons);
});
