//! Post-RA scheduling (`eubatch_passes::schedule::post_ra`) on random shaders from the shared
//! generator (`eubatch_ir::generate`), lowered, allocated by `linear`, checked and put in
//! register form (`assign`): each block keeps its instructions (a permutation, control
//! flow and barriers where they were), and the scheduled code computes in the simulator
//! what the register form before scheduling computes, on the start IR's thread inputs.

use arbitrary::Unstructured;
use proptest::prelude::*;

use eubatch_ir::Shader;
use eubatch_passes::schedule::post_ra;
use eubatch_sim::crosscheck::{crosscheck, Verdict};

/// The start IR and register form of a random shader; `None` when it is not allocated
/// whole (refused, or some value does not fit: spilling is not what this tests).
fn register_form(bytes: &[u8]) -> Result<Option<(Shader, Shader)>, String> {
    let mut u = Unstructured::new(bytes);
    let Ok(shader) = eubatch_ir::generate::shader(&mut u) else {
        return Ok(None);
    };
    let start = shader.clone();
    Ok(eubatch_regalloc::register_form::register_form(shader, "linear")?.map(|c| (start, c)))
}

/// Shaders compared in the simulator (the test is not vacuous).
static COMPARED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn post_ra_schedules_of_random_shaders_compute_the_same(bytes in proptest::collection::vec(any::<u8>(), 64..2048)) {
        let (start, code) = match register_form(&bytes) {
            Ok(Some(s)) => s,
            Ok(None) => return Ok(()),
            Err(e) => return Err(TestCaseError::fail(e)),
        };
        let mut scheduled = code.clone();
        let estimate = post_ra::schedule(&mut scheduled);
        let text = eubatch_ir::text::print_shader(&code);
        // Vec4 code is left as it is.
        let Some(estimate) = estimate else {
            prop_assert_eq!(&scheduled.layout.blocks, &code.layout.blocks);
            return Ok(());
        };
        prop_assert!(estimate.before > 0 || code.layout.insts().count() == 0);
        for (b, (x, y)) in code.layout.blocks.iter().zip(&scheduled.layout.blocks).enumerate() {
            let (mut x, mut y) = (x.insts.clone(), y.insts.clone());
            // Barriers keep their place (a render-target write that does not end the
            // thread is none under eubatch's choice: it keeps its order among messages).
            for (k, &i) in x.iter().enumerate() {
                if post_ra::is_barrier(&code, i) && !post_ra::is_render_target_write(&code, i) {
                    prop_assert_eq!(y[k], i, "block {}: barrier moved\n{}", b, text);
                }
            }
            x.sort();
            y.sort();
            prop_assert_eq!(x, y, "block {}: not a permutation\n{}", b, text);
        }
        // Only where the unscheduled register form runs is the comparison meaningful.
        if let Verdict::Agree = crosscheck(&start, &code, 0..2, eubatch_sim::CHECK_STEP_LIMIT) {
            COMPARED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            match crosscheck(&start, &scheduled, 0..2, eubatch_sim::CHECK_STEP_LIMIT) {
                Verdict::Agree => {}
                v => {
                    let after = eubatch_ir::text::print_shader(&scheduled);
                    return Err(TestCaseError::fail(format!("{v:?}\nbefore:\n{text}\nafter:\n{after}")));
                }
            }
        }
    }
}

#[test]
fn some_random_shaders_are_compared() {
    // The property above on a fixed sample: some of them must run in the simulator.
    let (mut compared, mut reordered) = (0, 0);
    for seed in 0..64u64 {
        let bytes = eubatch_ir::generate::fixed_sample(seed, 1024);
        let Ok(Some((start, code))) = register_form(&bytes) else {
            continue;
        };
        let mut scheduled = code.clone();
        post_ra::schedule(&mut scheduled);
        if let Verdict::Agree = crosscheck(&start, &code, 0..2, eubatch_sim::CHECK_STEP_LIMIT) {
            reordered += (scheduled.layout.blocks != code.layout.blocks) as u32;
            assert_eq!(
                crosscheck(&start, &scheduled, 0..2, eubatch_sim::CHECK_STEP_LIMIT),
                Verdict::Agree
            );
            compared += 1;
        }
    }
    println!("{compared} of 64 shaders compared, {reordered} of them reordered");
    assert!(
        compared > 0,
        "no random shader ran in the simulator in register form"
    );
    assert!(reordered > 0, "no random shader was reordered");
}
