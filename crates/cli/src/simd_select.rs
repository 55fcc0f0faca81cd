//! Which compute-shader variant Mesa 22.3 keeps: `brw_compile_cs` (brw_fs.cpp) with
//! `brw_simd_should_compile`, `brw_simd_mark_compiled` and `brw_simd_select`
//! (brw_simd_selection.c). The driver compiles every CS variant whose dump is in the
//! corpus, narrowest first, and then asks [`cs_not_kept`] which of them Mesa's rules would
//! not have kept, so that eubatch's totals and `--stats` have the variants Mesa's
//! statistics have (`--keep-all-cs-variants` keeps every one that allocates).
//!
//! Mesa 22.3, for a workgroup of fixed size (every compute shader of the corpora: Vulkan
//! pipelines with ncnn's local size 8×8×1):
//! - it tries SIMD8, SIMD16, SIMD32 in turn, and skips a width when a narrower compiled
//!   variant spilled (`prog_spilled`: "SIMD%u skipped because would spill", set for every
//!   wider width by `brw_simd_mark_compiled`), when a subgroup size is required and is
//!   another, when the workgroup already fits in the narrower compiled width, when its
//!   threads would not fit, and SIMD32 when a narrower width compiled ("SIMD32 skipped
//!   because not required");
//! - a width compiles (`run_cs`) with spilling allowed only when no narrower width
//!   compiled (`allow_spilling = !prog_data->prog_mask`): a wider one that would spill
//!   fails and is dropped (the driver's `mesa_lets_spill`);
//! - `brw_simd_select` keeps one: the widest compiled that did not spill, or, when every
//!   compiled width spilled, the narrowest (`ffs(prog_mask)`); `prog_mask = 1 << selected`.
//!
//! Which widths Mesa tried is read from which dumps are in the corpus (Mesa writes a dump
//! only for a width it compiles): the rules that do not depend on allocation (subgroup
//! size, workgroup size, SIMD32 not required) are already decided there. What allocation
//! decides — a narrower variant spilled, a wider one did not fit, which one is selected —
//! is decided here on eubatch's own results. A variable workgroup size (Mesa then keeps
//! every width and lets each spill) is not in the dumps and not modelled.

use crate::compile::Fate;

/// Why Mesa 22.3 would not keep each of the variants of one compute shader, given what
/// allocation made of each: `variants` are (SIMD width, fate), narrowest first; the answer
/// has one entry per variant, `None` for the one kept and for those that did not allocate
/// (Mesa's failed compiles, counted where they are dropped), `Some(why)` for a variant
/// that allocated and is not kept.
pub fn cs_not_kept(variants: &[(u8, Fate)]) -> Vec<Option<String>> {
    let mut why = vec![None; variants.len()];
    // brw_compile_cs's loop: `compiled` (prog_mask) and whether each spilled.
    let mut compiled: Vec<(usize, bool)> = Vec::new();
    let mut narrower_spilled = false;
    for (k, &(width, fate)) in variants.iter().enumerate() {
        if narrower_spilled {
            // brw_simd_should_compile: `prog_spilled` has this width.
            if fate.kept {
                why[k] = Some(format!(
                    "SIMD{width}: a narrower variant spilled, Mesa does not try this width (\"SIMD{width} skipped because would spill\")"
                ));
            }
            continue;
        }
        if fate.kept {
            compiled.push((k, fate.spilled));
            narrower_spilled |= fate.spilled;
        }
    }
    // brw_simd_select: the widest not spilled, else the narrowest compiled.
    let selected = match compiled.iter().rev().find(|(_, spilled)| !spilled) {
        Some(&(k, _)) => Some(k),
        None => compiled.first().map(|&(k, _)| k),
    };
    for &(k, spilled) in &compiled {
        if Some(k) == selected {
            continue;
        }
        let (width, chosen) = (variants[k].0, selected.map_or(0, |s| variants[s].0));
        why[k] = Some(if chosen > width {
            format!("SIMD{width}: a wider variant compiled without spilling, brw_simd_select keeps the widest")
        } else if spilled {
            format!("SIMD{width}: spilled, as every variant compiled; brw_simd_select keeps the narrowest")
        } else {
            format!("SIMD{width}: not the one brw_simd_select keeps (SIMD{chosen})")
        });
    }
    why
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fate(kept: bool, spilled: bool) -> Fate {
        Fate {
            kept,
            spilled,
            throughput: None,
        }
    }

    fn kept(variants: &[(u8, Fate)]) -> Vec<u8> {
        let why = cs_not_kept(variants);
        variants
            .iter()
            .zip(&why)
            .filter(|((_, f), w)| f.kept && w.is_none())
            .map(|((width, _), _)| *width)
            .collect()
    }

    /// The common case (259 of vulkan-fp16-skl's 261 shaders): both fit, SIMD16 is kept.
    #[test]
    fn the_widest_that_fits_is_kept() {
        let v = [(8, fate(true, false)), (16, fate(true, false))];
        assert_eq!(kept(&v), [16]);
        let why = cs_not_kept(&v);
        assert!(why[0].as_deref().unwrap().contains("a wider variant"));
    }

    /// SIMD16 does not fit without spilling (Mesa's run_cs fails: it may not spill), so
    /// SIMD8 is kept; SIMD16 has no reason here (it is counted as dropped).
    #[test]
    fn a_wider_variant_that_would_spill_leaves_the_narrower() {
        let v = [(8, fate(true, false)), (16, fate(false, false))];
        assert_eq!(kept(&v), [8]);
        assert_eq!(cs_not_kept(&v), [None, None]);
    }

    /// SIMD8 spilled: Mesa never tries SIMD16, and keeps the spilled SIMD8.
    #[test]
    fn a_spilled_narrower_variant_stops_the_wider_ones() {
        let v = [(8, fate(true, true)), (16, fate(true, false))];
        assert_eq!(kept(&v), [8]);
        let why = cs_not_kept(&v);
        assert!(why[1]
            .as_deref()
            .unwrap()
            .contains("skipped because would spill"));
    }

    /// No narrower variant compiled (SIMD8 failed), so SIMD16 was allowed to spill and did:
    /// it is the one compiled, and kept.
    #[test]
    fn the_narrowest_compiled_is_kept_when_all_spilled() {
        let v = [(8, fate(false, false)), (16, fate(true, true))];
        assert_eq!(kept(&v), [16]);
        // One variant alone (a required subgroup size): kept whatever it did.
        assert_eq!(kept(&[(32, fate(true, true))]), [32]);
        assert_eq!(kept(&[(16, fate(false, false))]), Vec::<u8>::new());
    }

    /// Three widths compiled without spilling: one is kept, the widest.
    #[test]
    fn one_variant_of_three_is_kept() {
        let v = [
            (8, fate(true, false)),
            (16, fate(true, false)),
            (32, fate(true, false)),
        ];
        assert_eq!(kept(&v), [32]);
    }
}
