//! Bank-conflict mitigation (`eubatch_regalloc::bank_conflicts`, Mesa's
//! `opt_bank_conflicts`) on random shaders from the shared generator
//! (`eubatch_ir::generate`), lowered, allocated by `linear` and put in register form: the
//! code with its registers moved computes in the simulator what the register form before
//! computes, on the start IR's thread inputs; only operands that were virtual registers
//! move, each to a register of the same bank parity offset within its atom; the
//! instructions stay where they were.

use arbitrary::Unstructured;
use proptest::prelude::*;

use eubatch_ir::{RegFile, Shader};
use eubatch_regalloc::bank_conflicts::{count_conflicts, opt_bank_conflicts, Outcome};
use eubatch_sim::crosscheck::{crosscheck, Verdict};

/// The start IR, the allocated shader and its register form; `None` when it is not
/// allocated whole.
fn shaders(bytes: &[u8]) -> Result<Option<(Shader, Shader, Shader)>, String> {
    let mut u = Unstructured::new(bytes);
    let Ok(shader) = eubatch_ir::generate::shader(&mut u) else {
        return Ok(None);
    };
    let start = shader.clone();
    Ok(
        eubatch_regalloc::register_form::allocated_and_register_form(shader, "linear")?
            .map(|(allocated, code)| (start, allocated, code)),
    )
}

/// Runs the pass and checks what holds whatever the simulator says: the same instructions
/// in the same places, fixed operands untouched, the conflict counts it reports.
fn moved(allocated: &Shader, code: &Shader) -> Result<(Shader, Outcome), String> {
    let mut out = code.clone();
    let o = opt_bank_conflicts(allocated, &mut out);
    if out.layout.blocks != code.layout.blocks {
        return Err("instructions moved".into());
    }
    for i in code.layout.insts() {
        let pairs = std::iter::once((
            &allocated.insts.dst[i],
            &code.insts.dst[i],
            &out.insts.dst[i],
        ))
        .chain(
            allocated
                .srcs(i)
                .iter()
                .zip(code.srcs(i))
                .zip(out.srcs(i))
                .map(|((a, b), c)| (a, b, c)),
        );
        for (was, before, after) in pairs {
            if was.file != RegFile::Vgrf && before != after {
                return Err(format!("instruction {i:?}: an operand that was not a virtual register moved: {before:?} -> {after:?}"));
            }
            if before.offset != after.offset || before.region != after.region {
                return Err(format!("instruction {i:?}: more than the register changed"));
            }
        }
    }
    if o.conflicts_before != count_conflicts(code) || o.conflicts_after != count_conflicts(&out) {
        return Err(format!("conflict counts misreported: {o:?}"));
    }
    if o.moved == 0 && out.insts.dst != code.insts.dst {
        return Err("nothing moved, yet operands changed".into());
    }
    Ok((out, o))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn registers_moved_out_of_conflicting_banks_compute_the_same(bytes in proptest::collection::vec(any::<u8>(), 64..2048)) {
        let (start, allocated, code) = match shaders(&bytes) {
            Ok(Some(s)) => s,
            Ok(None) => return Ok(()),
            Err(e) => return Err(TestCaseError::fail(e)),
        };
        let (out, _) = moved(&allocated, &code).map_err(TestCaseError::fail)?;
        if let Verdict::Agree = crosscheck(&start, &code, 0..2, eubatch_sim::CHECK_STEP_LIMIT) {
            let v = crosscheck(&start, &out, 0..2, eubatch_sim::CHECK_STEP_LIMIT);
            prop_assert_eq!(
                &v,
                &Verdict::Agree,
                "before:\n{}\nafter:\n{}",
                eubatch_ir::text::print_shader(&code),
                eubatch_ir::text::print_shader(&out)
            );
        }
    }
}

#[test]
fn some_random_shaders_get_registers_moved_and_still_agree() {
    // The property above on a fixed sample, which must not be vacuous: some shaders have
    // conflicts the pass removes, and run in the simulator.
    let (mut changed, mut compared, mut before, mut after) = (0, 0, 0, 0);
    for seed in 0..96u64 {
        let bytes = eubatch_ir::generate::fixed_sample(seed, 1536);
        let Ok(Some((start, allocated, code))) = shaders(&bytes) else {
            continue;
        };
        let (out, o) = moved(&allocated, &code).unwrap();
        before += o.conflicts_before;
        after += o.conflicts_after;
        if o.moved == 0 {
            continue;
        }
        changed += 1;
        if let Verdict::Agree = crosscheck(&start, &code, 0..2, eubatch_sim::CHECK_STEP_LIMIT) {
            assert_eq!(
                crosscheck(&start, &out, 0..2, eubatch_sim::CHECK_STEP_LIMIT),
                Verdict::Agree
            );
            compared += 1;
        }
    }
    println!("{changed} of 96 shaders had registers moved, {compared} of them compared; conflicts {before} before, {after} after");
    assert!(
        changed > 0 && compared > 0,
        "{changed} changed, {compared} compared"
    );
    assert!(after < before, "{before} conflicts before, {after} after");
}
