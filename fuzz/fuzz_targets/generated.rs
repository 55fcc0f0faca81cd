//! Shaders from the shared random generator (`eubatch_ir::generate`, the one behind the
//! property test `crates/sim/tests/generated.rs`): each must verify, print and parse back
//! to the same IR, and run to completion with the same outputs twice and no reads of
//! undefined bytes. As passes land, this target runs them too and checks the result with
//! `eubatch_sim::equivalent`.
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
});
