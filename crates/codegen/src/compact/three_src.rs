//! Compaction of three-source instructions (`mad`, `lrp`, `bfe`, `bfi2`, `csel`, `madm`),
//! gen8 to gen11; before gen8 they never compact. Two keys, each with a 4-entry table:
//! control (`{36:35 (gen9+), 34:32, 28:8}`) and source (`{126:125, 105:104, 84 (gen9+) or
//! 125, 104 (gen8), 83, 114:107, 93:86, 72:65, 55:37}`: types, modifiers, writemask, dst
//! subregister, swizzles and the high bit of each source register number); register numbers
//! (7 bits), Align16 subregisters and replicate controls, saturate and debug control are
//! copied. Mesa `brw_eu_compact.c`: `brw_try_compact_3src_instruction`,
//! `set_3src_control_index`, `set_3src_source_index`, `has_3src_unmapped_bits`,
//! `brw_uncompact_3src_instruction` and its `set_uncompacted_3src_*` helpers.
//!
//! Gen8 here is Broadwell: Cherryview, also gen8, has gen9's 26- and 49-bit keys, which a
//! per-generation [`Gen`] cannot tell apart.

use eubatch_ir::Gen;

use super::fields::three_src as n3;
use super::fields::{cbits, compacted as c, compacted::three_src as c3, cset, Native};
use super::tables::{index_of, GFX8_3SRC_CONTROL_INDEX_TABLE, GFX8_3SRC_SOURCE_INDEX_TABLE};
use super::Refusal;

/// Whether hardware opcode `op` is a three-source instruction on `gen` (Mesa `is_3src`
/// over `brw_eu.c` `opcode_descs`: bfe 24, bfi2 26, mad 91 from gen7; lrp 92 to gen10;
/// csel 18 and madm 93 from gen8).
pub(crate) fn is_3src(op: u8, gen: Gen) -> bool {
    match op {
        24 | 26 | 91 => true,
        92 => gen <= Gen::Gen9,
        18 | 93 => gen >= Gen::Gen8,
        _ => false,
    }
}

/// The 26-bit (gen8: 24-bit) control key.
fn control_key(n: &Native, gen: Gen) -> u32 {
    let mut k = (n.bits(34, 32) << 21) | n.bits(28, 8);
    if gen >= Gen::Gen9 {
        k |= n.bits(36, 35) << 24;
    }
    k as u32
}

fn set_control(n: &mut Native, gen: Gen, k: u32) {
    let k = u64::from(k);
    n.set_bits(34, 32, (k >> 21) & 0x7);
    n.set_bits(28, 8, k & 0x1f_ffff);
    if gen >= Gen::Gen9 {
        n.set_bits(36, 35, (k >> 24) & 0x3);
    }
}

/// The 49-bit (gen8: 46-bit) source key.
fn source_key(n: &Native, gen: Gen) -> u64 {
    let mut k = (n.bits(83, 83) << 43)
        | (n.bits(114, 107) << 35)
        | (n.bits(93, 86) << 27)
        | (n.bits(72, 65) << 19)
        | n.bits(55, 37);
    if gen >= Gen::Gen9 {
        k |= (n.bits(126, 125) << 47) | (n.bits(105, 104) << 45) | (n.bits(84, 84) << 44);
    } else {
        k |= (n.bits(125, 125) << 45) | (n.bits(104, 104) << 44);
    }
    k
}

fn set_source(n: &mut Native, gen: Gen, k: u64) {
    n.set_bits(83, 83, (k >> 43) & 0x1);
    n.set_bits(114, 107, (k >> 35) & 0xff);
    n.set_bits(93, 86, (k >> 27) & 0xff);
    n.set_bits(72, 65, (k >> 19) & 0xff);
    n.set_bits(55, 37, k & 0x7_ffff);
    if gen >= Gen::Gen9 {
        n.set_bits(126, 125, (k >> 47) & 0x3);
        n.set_bits(105, 104, (k >> 45) & 0x3);
        n.set_bits(84, 84, (k >> 44) & 0x1);
    } else {
        n.set_bits(125, 125, (k >> 45) & 0x1);
        n.set_bits(104, 104, (k >> 44) & 0x1);
    }
}

/// Compacts a three-source instruction (gen8-11).
pub(crate) fn compact(n: &Native, gen: Gen) -> Result<u64, Refusal> {
    // has_3src_unmapped_bits: on Broadwell the Src1Type/Src2Type bits (36:35, mixed
    // precision) have no place in the compacted form.
    if gen == Gen::Gen8 && n.bits(36, 35) != 0 {
        return Err(Refusal::UnmappedBits);
    }
    let control = index_of(&GFX8_3SRC_CONTROL_INDEX_TABLE, control_key(n, gen))
        .ok_or(Refusal::ThreeSrcControl)?;
    let source = index_of(&GFX8_3SRC_SOURCE_INDEX_TABLE, source_key(n, gen))
        .ok_or(Refusal::ThreeSrcSource)?;

    // Reserved bits Mesa asserts clear (checked after Mesa's own rules): 7 and 127 (gen9+), 7, 127:126, 105 and 84 (gen8).
    let reserved = if gen >= Gen::Gen9 {
        n.bits(7, 7) | n.bits(127, 127)
    } else {
        n.bits(7, 7) | n.bits(127, 126) | n.bits(105, 105) | n.bits(84, 84)
    };
    if reserved != 0 {
        return Err(Refusal::Reserved);
    }
    let mut fields = vec![
        (c::OPCODE, u64::from(n.opcode())),
        (c3::CONTROL_INDEX, control),
        (c3::SOURCE_INDEX, source),
        // Seven bits: a destination above g127 does not compact (Mesa would assert).
        (c3::DST_REG_NR, n.bits(n3::DST_REG_NR.0, n3::DST_REG_NR.1)),
        ((c3::DEBUG_CONTROL, c3::DEBUG_CONTROL), n.bits(30, 30)),
        (
            (c3::SATURATE, c3::SATURATE),
            n.bits(n3::SATURATE, n3::SATURATE),
        ),
        ((c::CMPT_CONTROL, c::CMPT_CONTROL), 1),
    ];
    for s in 0..3 {
        let rep = n3::SRC_REP_CTRL[s];
        fields.push(((c3::SRC_REP_CTRL[s], c3::SRC_REP_CTRL[s]), n.bits(rep, rep)));
        // The register number's high bit is in the source key (zero in every entry).
        let (hi, lo) = n3::SRC_REG_NR[s];
        fields.push((c3::SRC_REG_NR[s], n.bits(hi - 1, lo)));
        let (hi, lo) = n3::SRC_SUBREG_NR[s];
        fields.push((c3::SRC_SUBREG_NR[s], n.bits(hi, lo)));
    }
    let mut word = 0u64;
    for (field, v) in fields {
        word = cset(word, field, v).ok_or(Refusal::RegisterNumber)?;
    }
    Ok(word)
}

/// Expands a compacted three-source instruction (gen8-11).
pub(crate) fn uncompact(w: u64, gen: Gen) -> Native {
    let mut n = Native::default();
    n.set_bits(6, 0, cbits(w, c::OPCODE));
    set_control(
        &mut n,
        gen,
        GFX8_3SRC_CONTROL_INDEX_TABLE[cbits(w, c3::CONTROL_INDEX) as usize],
    );
    set_source(
        &mut n,
        gen,
        GFX8_3SRC_SOURCE_INDEX_TABLE[cbits(w, c3::SOURCE_INDEX) as usize],
    );
    n.set_bits(n3::DST_REG_NR.0, n3::DST_REG_NR.1, cbits(w, c3::DST_REG_NR));
    n.set_bits(30, 30, (w >> c3::DEBUG_CONTROL) & 1);
    n.set_bits(n3::SATURATE, n3::SATURATE, (w >> c3::SATURATE) & 1);
    for s in 0..3 {
        let rep = n3::SRC_REP_CTRL[s];
        n.set_bits(rep, rep, (w >> c3::SRC_REP_CTRL[s]) & 1);
        let (hi, lo) = n3::SRC_REG_NR[s];
        n.set_bits(hi - 1, lo, cbits(w, c3::SRC_REG_NR[s]));
        let (hi, lo) = n3::SRC_SUBREG_NR[s];
        n.set_bits(hi, lo, cbits(w, c3::SRC_SUBREG_NR[s]));
    }
    n
}
