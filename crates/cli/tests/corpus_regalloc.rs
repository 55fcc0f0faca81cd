//! Issue 16's goal figures on shader-db for Skylake, held as a test: `compile --stop-after
//! final --verify` (the pipeline, Mesa's scheduling strategy, the `mesa` allocator, the
//! generator's expansion and encoding) fits every SIMD8 variant of shaderdb-skl without
//! spilling (Mesa 22.3 spills three: 168 spills, 261 fills in its stats.txt), keeps at least
//! as many variants as when last raised ([`KEPT_FLOOR`]; Mesa 22.3 kept 1,648, and the
//! count printed is beside it), encodes every one, and runs the binary of each, decoded
//! from its bytes, in the simulator against its start IR with the same outputs.
//!
//! Variants are kept by Mesa's rules: a SIMD16/SIMD32 fragment variant that would spill is
//! dropped, and a SIMD32 one is kept only when Mesa's throughput estimate of its binary
//! beats the narrower ones' (`--keep-all-simd32` would keep every one that allocates).
//! The kept set is held against Mesa's stats.txt width by width (`--stats` against
//! `stats --mesa --stage final`): every SIMD8 and SIMD16 variant Mesa kept and no other,
//! and of the SIMD32 ones at least [`SIMD32_BOTH_FLOOR`] kept by both, at most
//! [`SIMD32_ONLY_OURS_CEILING`] by eubatch alone and [`SIMD32_ONLY_MESA_CEILING`] by Mesa
//! alone: a rule that kept every SIMD32 variant that allocates (330 more) or dropped the
//! ones Mesa's throughput comparison keeps fails here, not only one that keeps fewer.
//!
//! Skipped with a message when `../shared` is absent (a failure under
//! EUBATCH_REQUIRE_CORPORA). About 30 s on 2 threads.

mod common;
#[path = "../../ir/tests/common/mod.rs"]
mod corpora;

use std::collections::{BTreeMap, BTreeSet};

use common::{eubatch, line_starting, mesa_final_stats};

/// Variants Mesa 22.3.6 kept of shaderdb-skl (its stats.txt files).
const MESA_22_KEPT: usize = 1648;
/// Variants eubatch keeps by Mesa's rules, when last raised (fewer than Mesa: every
/// SIMD16 variant Mesa kept is kept, but eubatch's throughput estimate decides 37 SIMD32
/// variants against and 13 for where Mesa's decided the other way: of the 37, 22 have a
/// SIMD16 variant much faster than Mesa's by the same model, so SIMD32 does not beat it).
const KEPT_FLOOR: usize = 1624;
/// SIMD32 fragment variants both Mesa 22.3 and eubatch keep, when last raised (Mesa: 152).
/// (114 since the post-RA scheduler takes the longest path and leaves render-target
/// writes no barrier: eubatch's SIMD16 code got faster than Mesa's by more than its SIMD32.)
const SIMD32_BOTH_FLOOR: usize = 114;
/// SIMD32 fragment variants eubatch keeps and Mesa 22.3 does not, when last lowered.
const SIMD32_ONLY_OURS_CEILING: usize = 17;
/// SIMD32 fragment variants Mesa 22.3 keeps and eubatch does not, when last lowered.
const SIMD32_ONLY_MESA_CEILING: usize = 38;

/// The keys of the variants in a statistics file, by stage and width.
fn kept(path: &std::path::Path) -> BTreeMap<(String, u8), BTreeSet<String>> {
    let mut by = BTreeMap::<(String, u8), BTreeSet<String>>::new();
    for s in eubatch::stats::read(path).unwrap().1 {
        by.entry((s.stage.clone(), s.simd.unwrap_or(0)))
            .or_default()
            .insert(s.key);
    }
    by
}

#[test]
fn mesa_allocates_shaderdb_skl_without_spilling() {
    let Some(dir) = corpora::corpus("shaderdb-skl") else {
        return;
    };
    let tmp = std::env::temp_dir().join(format!("eubatch-corpus-ra-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let (ours, theirs) = (tmp.join("ours.json"), tmp.join("mesa.json"));
    mesa_final_stats(dir.to_str().unwrap(), "skl", &theirs, "shaderdb-skl");
    let (ok, out) = eubatch(&[
        "compile",
        dir.to_str().unwrap(),
        "--target",
        "skl",
        "--stop-after",
        "final",
        "--verify",
        "-j",
        "2",
        "--stats",
        ours.to_str().unwrap(),
    ]);
    assert!(ok, "{out}");
    // Width by width against Mesa's kept variants.
    let (a, b) = (kept(&theirs), kept(&ours));
    let none = BTreeSet::new();
    for (key, mesa) in &a {
        let eu = b.get(key).unwrap_or(&none);
        let both = mesa.intersection(eu).count();
        let only_mesa: Vec<_> = mesa.difference(eu).collect();
        let only_ours: Vec<_> = eu.difference(mesa).collect();
        println!(
            "{} SIMD{}: Mesa 22.3 {}, eubatch {}, both {both}",
            key.0,
            key.1,
            mesa.len(),
            eu.len()
        );
        if key.1 == 32 {
            assert!(
                both >= SIMD32_BOTH_FLOOR
                    && only_ours.len() <= SIMD32_ONLY_OURS_CEILING
                    && only_mesa.len() <= SIMD32_ONLY_MESA_CEILING,
                "SIMD32: {both} kept by both, {} by eubatch only: {only_ours:?}; {} by Mesa only: {only_mesa:?}",
                only_ours.len(),
                only_mesa.len()
            );
        } else {
            assert!(
                only_mesa.is_empty() && only_ours.is_empty(),
                "{key:?}: kept by Mesa only {only_mesa:?}, by eubatch only {only_ours:?}"
            );
        }
    }
    assert!(
        b.keys().all(|k| a.contains_key(k)),
        "widths Mesa kept none of: {:?}",
        b.keys().filter(|k| !a.contains_key(*k)).collect::<Vec<_>>()
    );
    let _ = std::fs::remove_dir_all(&tmp);
    let line = |prefix: &str| line_starting(&out, prefix, "shaderdb-skl").to_string();
    let ra = line("register allocation (`mesa`): ");
    let kept: usize = ra["register allocation (`mesa`): ".len()..]
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    println!("{ra}");
    assert!(
        ra.contains(" 0 spilled (0 VGRFs; 0 spills, 0 fills)"),
        "{ra}"
    );
    println!("{kept} variants kept, Mesa 22.3 {MESA_22_KEPT}");
    assert!(kept >= KEPT_FLOOR, "{kept} variants kept: {ra}");
    let sim = line("simulator, register form: ");
    assert!(
        sim.starts_with(&format!(
            "simulator, register form: {kept} allocated shaders ran against their start IR with the same outputs ({kept} of them as the binary, decoded from its bytes); 0 not run"
        )),
        "{sim}"
    );
}
