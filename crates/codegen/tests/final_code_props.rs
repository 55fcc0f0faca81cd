//! The whole back end on random shaders from the shared generator
//! (`eubatch_ir::generate`): lowered, allocated by `linear`, checked, put in register form,
//! scheduled after allocation, expanded as Mesa's generator does and encoded
//! (`final_code`). Every expanded shader must encode, the program read back from its bytes
//! must have as many instructions as were encoded and be what the listing reader reads
//! from its listing (the binary reader against the text reader, on shaders no corpus has),
//! and where the register form runs in the simulator against the start IR, the binary
//! decoded from its bytes must compute the same.

use arbitrary::Unstructured;
use proptest::prelude::*;

use eubatch_codegen::asm::{read_asm, AsmProgram};
use eubatch_codegen::final_code::{final_code, FinalCode};
use eubatch_codegen::generate;
use eubatch_ir::text::print_shader;
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

/// The program `final_code` read from the bytes is the one the listing reader reads from
/// the listing: instructions, hints, NOPs, blocks and statistics.
fn same_as_listing(f: &FinalCode, code: &Shader) -> Result<(), String> {
    let listing = f.listing.as_deref().ok_or("no listing")?;
    let mut read = read_asm(listing, &code.name, code.target)
        .map_err(|e| format!("listing not read: {e}\n{listing}"))?;
    let text = match (read.pop(), read.is_empty()) {
        (Some(p), true) => p,
        _ => return Err("the listing is not one program".into()),
    };
    let d = &f.decoded;
    let (a, b) = (print_shader(&text.shader), print_shader(&d.shader));
    if a != b {
        return Err(format!(
            "read from the listing:\n{a}\nread from the bytes:\n{b}"
        ));
    }
    let span = |p: &AsmProgram| -> Vec<(u32, u32, u32)> {
        p.blocks.iter().map(|b| (b.num, b.first, b.end)).collect()
    };
    let fields = [
        ("hints", text.hints == d.hints),
        ("encoded", text.encoded == d.encoded),
        ("nops", text.nops == d.nops),
        ("blocks", span(&text) == span(d)),
        ("stats", text.stats == d.stats),
    ];
    match fields.iter().find(|(_, same)| !same) {
        Some((what, _)) => Err(format!("{what} differ between the listing and the bytes")),
        None => Ok(()),
    }
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
        true,
    )
    .map_err(|e| format!("not encoded: {e}\n{text}"))?;
    same_as_listing(&f, &code).map_err(|e| format!("{e}\n{text}"))?;
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
