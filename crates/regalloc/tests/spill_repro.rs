//! A known spilling failure, kept as a reproduction for whoever fixes it (hence ignored:
//! `cargo test --release -p eubatch-regalloc --test spill_repro -- --ignored` runs it). The
//! random generator's memory messages found it (2026-12-01, in `spill.rs` with `linear`
//! under a register budget): in this SIMD32 gen8 fragment shader, spilling VGRF 5 alone — a
//! SIMD16 value rewritten in halves by SIMD8 typed atomics with a header, read and
//! rewritten by SIMD8 and SIMD16 instructions around them — gives other outputs than the
//! shader before spilling (seed 0, `fb_write` channel 1). Every other single VGRF but 36
//! (its twin for channels 16-31) spills without a difference. Not explained yet.

#[test]
#[ignore]
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
