//! A spilling failure the random generator's memory messages found (2026-12-01, in
//! `spill.rs` with `linear` under a register budget), kept as a regression test: in this
//! SIMD32 gen8 fragment shader, spilling VGRF 5 alone — a SIMD16 value rewritten in halves
//! by SIMD8 typed atomics with a header — gave other outputs (seed 0, `fb_write` channel 1).
//! The cause: a typed message before gen9 runs only the channels its header's sample mask
//! enables (`g1.7`'s pixel mask here), so its response is a write of some channels; the
//! spiller took it as a whole write, stored its fresh temporary without filling it first,
//! and the channels the mask left out came back from scratch undefined. The rule is now
//! `eubatch_ir::message::typed::masked_by_header`, which the simulator, the slot analysis
//! (`writes_conditionally`) and the spiller share.

#[test]
fn spilling_one_vgrf_of_typed_atomic_results_keeps_the_outputs() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/spill_repro_typed_atomics_bdw.eu"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let shader = eubatch_ir::text::parse_shader(&text).unwrap();
    let profile = eubatch_sim::profile::Profile::of(&shader);
    let mut failures = Vec::new();
    for v in 0..shader.vgrfs.len() {
        let mut s = shader.clone();
        let mut spiller = eubatch_regalloc::spill::Spiller::new();
        if spiller
            .spill(&mut s, &[eubatch_ir::Vgrf::from_usize(v)])
            .is_err()
        {
            continue;
        }
        let cmp = eubatch_sim::compare(&shader, &s, 0..4, eubatch_sim::CHECK_STEP_LIMIT, &profile);
        if let eubatch_sim::Comparison::Differs(m) = cmp {
            failures.push(format!("vgrf{v}: {m}"));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
