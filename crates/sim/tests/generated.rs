//! Random shaders from the shared generator (`eubatch_ir::generate`, also behind the
//! cargo-fuzz target `generated`): each verifies, prints and parses back to the same IR,
//! and runs to completion with the same outputs every time.

use arbitrary::Unstructured;
use proptest::prelude::*;

use eubatch_ir::generate;
use eubatch_ir::shader::same_ir;
use eubatch_ir::text::{parse_shader, print_shader};

fn check(bytes: &[u8]) -> Result<(), TestCaseError> {
    let mut u = Unstructured::new(bytes);
    let Ok(text) = generate::shader_text(&mut u) else {
        return Ok(());
    };
    let shader = parse_shader(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
    let errs = eubatch_ir::verify::verify(&shader);
    prop_assert!(errs.is_empty(), "{errs:?}\n{text}");
    let printed = print_shader(&shader);
    let back =
        parse_shader(&printed).map_err(|e| TestCaseError::fail(format!("{e}\n{printed}")))?;
    if let Err(d) = same_ir(&shader, &back) {
        return Err(TestCaseError::fail(format!("{d}\n{text}")));
    }
    for seed in 0..2 {
        let a = eubatch_sim::run(&shader, seed, None)
            .map_err(|e| TestCaseError::fail(format!("seed {seed}: {e}\n{text}")))?;
        let b = eubatch_sim::run(&back, seed, None).unwrap();
        prop_assert_eq!(&a, &b, "not deterministic\n{}", text);
        prop_assert_eq!(a.poison_reads, 0, "reads of undefined bytes\n{}", text);
        prop_assert!(!a.records.is_empty(), "no output\n{}", text);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]
    #[test]
    fn generated_shaders_verify_round_trip_and_run(bytes in proptest::collection::vec(any::<u8>(), 64..2048)) {
        check(&bytes)?;
    }
}
