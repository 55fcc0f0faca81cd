//! Compaction of one- and two-source instructions (every opcode but the three-source ones),
//! gen7 to gen11: the native fields are gathered into five keys (control, datatype, subreg,
//! src0 region, src1 region), each replaced by its index in the generation's table, and the
//! register numbers, condition modifier and a few single bits are copied. Mesa
//! `brw_eu_compact.c`: `try_compact_instruction`, `set_control_index`,
//! `set_datatype_index`, `set_subreg_index`, `set_src0_index`, `set_src1_index`,
//! `has_unmapped_bits`, and the inverse `uncompact_instruction` with its
//! `set_uncompacted_*` helpers.

use eubatch_ir::Gen;

use super::fields::{cbits, compacted as c, cset, Native};
use super::fields::{ACC_WR_CONTROL, DEBUG_CONTROL, DST_REG_NR, SRC0_REG_NR, SRC1_REG_NR};
use super::imm::{compact_immediate, has_immediate, uncompact_immediate};
use super::tables::{index_of, TableSet};
use super::Refusal;

/// `send` and `sendc` (hardware opcodes 49 and 50 before gen12).
const SEND: u8 = 49;
const SENDC: u8 = 50;

/// The control key: gen8+ `{33:31, 23:12, 10:9, 34, 8}` (19 bits), gen7 `{90:89, 31, 23:8}`
/// (flag register and subregister are part of it on gen7).
fn control_key(n: &Native, gen: Gen) -> u32 {
    let k = if gen >= Gen::Gen8 {
        (n.bits(33, 31) << 16)
            | (n.bits(23, 12) << 4)
            | (n.bits(10, 9) << 2)
            | (n.bits(34, 34) << 1)
            | n.bits(8, 8)
    } else {
        (n.bits(90, 89) << 17) | (n.bits(31, 31) << 16) | n.bits(23, 8)
    };
    k as u32
}

fn set_control(n: &mut Native, gen: Gen, k: u32) {
    let k = u64::from(k);
    if gen >= Gen::Gen8 {
        n.set_bits(33, 31, k >> 16);
        n.set_bits(23, 12, (k >> 4) & 0xfff);
        n.set_bits(10, 9, (k >> 2) & 0x3);
        n.set_bits(34, 34, (k >> 1) & 0x1);
        n.set_bits(8, 8, k & 0x1);
    } else {
        n.set_bits(31, 31, (k >> 16) & 0x1);
        n.set_bits(23, 8, k & 0xffff);
        n.set_bits(90, 89, k >> 17);
    }
}

/// The datatype key: gen8+ `{63:61, 94:89, 46:35}` (21 bits), gen7 `{63:61, 46:32}` (18).
fn datatype_key(n: &Native, gen: Gen) -> u32 {
    let k = if gen >= Gen::Gen8 {
        (n.bits(63, 61) << 18) | (n.bits(94, 89) << 12) | n.bits(46, 35)
    } else {
        (n.bits(63, 61) << 15) | n.bits(46, 32)
    };
    k as u32
}

fn set_datatype(n: &mut Native, gen: Gen, k: u32) {
    let k = u64::from(k);
    if gen >= Gen::Gen8 {
        n.set_bits(63, 61, k >> 18);
        n.set_bits(94, 89, (k >> 12) & 0x3f);
        n.set_bits(46, 35, k & 0xfff);
    } else {
        n.set_bits(63, 61, k >> 15);
        n.set_bits(46, 32, k & 0x7fff);
    }
}

/// The subregister key `{100:96, 68:64, 52:48}`; src1's part (100:96) is left out when an
/// immediate occupies those bits.
fn subreg_key(n: &Native, immediate: bool) -> u16 {
    let mut k = n.bits(52, 48) | (n.bits(68, 64) << 5);
    if !immediate {
        k |= n.bits(100, 96) << 10;
    }
    k as u16
}

fn set_subreg(n: &mut Native, k: u16) {
    let k = u64::from(k);
    n.set_bits(100, 96, k >> 10);
    n.set_bits(68, 64, (k >> 5) & 0x1f);
    n.set_bits(52, 48, k & 0x1f);
}

/// Bits Mesa's `has_unmapped_bits` refuses: gen8+ 95 (Src0.AddrImm[9], UIP[31]), 47
/// (Dst.AddrImm[9]), 11 (NibCtrl); gen7 95:91 (high immediate bits of a 64-bit form) and 47
/// (NibCtrl). And an EOT `send`/`sendc`.
fn has_unmapped_bits(n: &Native, gen: Gen) -> Option<Refusal> {
    if matches!(n.opcode(), SEND | SENDC) && n.eot() {
        return Some(Refusal::Eot);
    }
    let unmapped = if gen >= Gen::Gen8 {
        n.bits(95, 95) != 0 || n.bits(47, 47) != 0 || n.bits(11, 11) != 0
    } else {
        n.bits(95, 91) != 0 || n.bits(47, 47) != 0
    };
    unmapped.then_some(Refusal::UnmappedBits)
}

/// Compacts a one- or two-source instruction (Mesa `try_compact_instruction`, gen7-11).
pub(crate) fn compact(n: &Native, gen: Gen, t: &TableSet) -> Result<u64, Refusal> {
    let immediate = has_immediate(n, gen);
    let mut imm = 0;
    if immediate {
        imm = compact_immediate(n.imm_ud()).ok_or(Refusal::Immediate)?;
    }
    if let Some(r) = has_unmapped_bits(n, gen) {
        return Err(r);
    }
    let control = index_of(t.control_index, control_key(n, gen)).ok_or(Refusal::Control)?;
    let datatype = index_of(t.datatype, datatype_key(n, gen)).ok_or(Refusal::Datatype)?;
    let subreg = index_of(t.subreg, subreg_key(n, immediate)).ok_or(Refusal::Subreg)?;
    let src0 = index_of(t.src0_index, n.bits(88, 77) as u16).ok_or(Refusal::Src0Region)?;
    let (src1, src1_reg) = if immediate {
        (imm >> 8, imm & 0xff)
    } else {
        let i = index_of(t.src1_index, n.bits(120, 109) as u16).ok_or(Refusal::Src1Region)?;
        (i, n.bits(SRC1_REG_NR.0, SRC1_REG_NR.1))
    };

    // Bits no compacted field keeps: bit 7 (reserved, Mesa asserts it clear) and, when src1
    // is a register, 127:121 (reserved or Src1.AddrImm[9]). Mesa would drop them silently;
    // refusing keeps `uncompact(compact(x)) == x` exact. Checked last, so that every other
    // refusal is Mesa's.
    if n.bits(7, 7) != 0 || (!immediate && n.bits(127, 121) != 0) {
        return Err(Refusal::Reserved);
    }

    let fields = [
        (c::OPCODE, u64::from(n.opcode())),
        (
            (c::DEBUG_CONTROL, c::DEBUG_CONTROL),
            n.bits(DEBUG_CONTROL, DEBUG_CONTROL),
        ),
        (c::CONTROL_INDEX, control),
        (c::DATATYPE_INDEX, datatype),
        (c::SUBREG_INDEX, subreg),
        (c::SRC0_INDEX, src0),
        (c::SRC1_INDEX, src1),
        (
            (c::ACC_WR_CONTROL, c::ACC_WR_CONTROL),
            n.bits(ACC_WR_CONTROL, ACC_WR_CONTROL),
        ),
        (c::COND_MODIFIER, n.cond_modifier()),
        (c::DST_REG_NR, n.bits(DST_REG_NR.0, DST_REG_NR.1)),
        (c::SRC0_REG_NR, n.bits(SRC0_REG_NR.0, SRC0_REG_NR.1)),
        (c::SRC1_REG_NR, src1_reg),
        ((c::CMPT_CONTROL, c::CMPT_CONTROL), 1),
    ];
    let mut word = 0u64;
    for (field, v) in fields {
        word = cset(word, field, v).ok_or(Refusal::Reserved)?;
    }
    Ok(word)
}

/// Expands a compacted one- or two-source instruction (Mesa `uncompact_instruction`,
/// gen7-11). Indices are 5 bits, so every compacted word names table entries.
pub(crate) fn uncompact(w: u64, gen: Gen, t: &TableSet) -> Native {
    let mut n = Native::default();
    n.set_bits(6, 0, cbits(w, c::OPCODE));
    n.set_bits(DEBUG_CONTROL, DEBUG_CONTROL, (w >> c::DEBUG_CONTROL) & 1);
    set_control(
        &mut n,
        gen,
        t.control_index[cbits(w, c::CONTROL_INDEX) as usize],
    );
    set_datatype(
        &mut n,
        gen,
        t.datatype[cbits(w, c::DATATYPE_INDEX) as usize],
    );
    set_subreg(&mut n, t.subreg[cbits(w, c::SUBREG_INDEX) as usize]);
    n.set_bits(
        88,
        77,
        u64::from(t.src0_index[cbits(w, c::SRC0_INDEX) as usize]),
    );
    if has_immediate(&n, gen) {
        let imm = (cbits(w, c::SRC1_INDEX) << 8) | cbits(w, c::SRC1_REG_NR);
        n.set_bits(127, 96, u64::from(uncompact_immediate(imm)));
    } else {
        n.set_bits(
            120,
            109,
            u64::from(t.src1_index[cbits(w, c::SRC1_INDEX) as usize]),
        );
        n.set_bits(SRC1_REG_NR.0, SRC1_REG_NR.1, cbits(w, c::SRC1_REG_NR));
    }
    n.set_bits(ACC_WR_CONTROL, ACC_WR_CONTROL, (w >> c::ACC_WR_CONTROL) & 1);
    n.set_bits(27, 24, cbits(w, c::COND_MODIFIER));
    n.set_bits(DST_REG_NR.0, DST_REG_NR.1, cbits(w, c::DST_REG_NR));
    n.set_bits(SRC0_REG_NR.0, SRC0_REG_NR.1, cbits(w, c::SRC0_REG_NR));
    n
}
