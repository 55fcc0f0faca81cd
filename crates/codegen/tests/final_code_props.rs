//! The whole back end on random shaders from the shared generator
//! (`eubatch_ir::generate`): lowered, allocated by `linear`, checked, put in register form,
//! scheduled after allocation, expanded as Mesa's generator does and encoded
//! (`final_code`). Every expanded shader must encode, its listing must read back with as
//! many instructions as were encoded, and where the register form runs in the simulator
//! against the start IR, the binary decoded from its bytes must compute the same.

use arbitrary::Unstructured;
use proptest::prelude::*;

use eubatch_codegen::final_code::final_code;
use eubatch_codegen::generate;
use eubatch_ir::Shader;
use eubatch_sim::crosscheck::{crosscheck, Verdict};

/// The start IR and the expanded register form of a random shader; `None` when it is not
/// allocated whole (refused, or spilling) or not expanded (a virtual opcode the generator
/// does not expand, reported as such).
fn expanded(bytes: &[u8]) -> Result<Option<(Shader, Shader)>, String> {
    let mut u = Unstructured::new(bytes);
    let Ok(shader) = eubatch_ir::generate::shader(&mut u) else {
        return Ok(None);
    };
    let start = shader.clone();
    let Some(mut code) = eubatch_regalloc::register_form::register_form(shader, "linear")? else {
        return Ok(None);
    };
    eubatch_passes::schedule::post_ra::schedule(&mut code);
    if generate::expand(&mut code).is_err() {
        return Ok(None);
    }
    Ok(Some((start, code)))
}

/// Shaders whose binary was compared in the simulator (the test is not vacuous).
fn check(bytes: &[u8]) -> Result<bool, String> {
    let Some((start, code)) = expanded(bytes)? else {
        return Ok(false);
    };
    let text = eubatch_ir::text::print_shader(&code);
    let n = generate::final_instruction_count(&code);
    let f = final_code(
        &code,
        code.target,
        "unnamed fragment shader t",
        n,
        (0, 0),
        false,
    )
    .map_err(|e| format!("not encoded: {e}\n{text}"))?;
    let decoded = f.decoded.shader.layout.insts().count();
    if f.program.encoded.len() != generate::encoded_instruction_count(&code) {
        return Err(format!(
            "{} instructions encoded, {} expanded\n{text}",
            f.program.encoded.len(),
            generate::encoded_instruction_count(&code)
        ));
    }
    if decoded < f.program.encoded.len() {
        return Err(format!("{decoded} instructions read back\n{text}"));
    }
    if crosscheck(&start, &code, 0..2, eubatch_sim::CHECK_STEP_LIMIT) != Verdict::Agree {
        return Ok(false);
    }
    match crosscheck(
        &start,
        &f.decoded.shader,
        0..2,
        eubatch_sim::CHECK_STEP_LIMIT,
    ) {
        Verdict::Agree => Ok(true),
        v => Err(format!("{v:?}\nregister form:\n{text}")),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn binaries_of_random_shaders_compute_what_their_register_form_does(
        bytes in proptest::collection::vec(any::<u8>(), 64..2048)
    ) {
        if let Err(e) = check(&bytes) {
            return Err(TestCaseError::fail(e));
        }
    }
}

#[test]
fn some_random_binaries_are_compared() {
    let mut compared = 0;
    for seed in 0..64u64 {
        let bytes = eubatch_ir::generate::fixed_sample(seed, 1024);
        compared += check(&bytes).unwrap_or_else(|e| panic!("seed {seed}: {e}")) as u32;
    }
    println!("{compared} of 64 random shaders compared as binaries");
    assert!(compared > 0, "no random binary ran in the simulator");
}
