//! EU instruction compaction, gen7 to gen11: the 8-byte form of a 16-byte native
//! instruction, where groups of native fields are replaced by indices into per-generation
//! tables. Follows Mesa `src/intel/compiler/brw_eu_compact.c` (`brw_try_compact_instruction`,
//! `brw_uncompact_instruction`), bit for bit.
//!
//! - [`compact`] / [`try_compact`]: the compacted word of a native instruction, when every
//!   field group has a table entry; [`uncompact`]: the native instruction a compacted word
//!   stands for. For gen7-11 `uncompact(compact(x)?) == x` exactly: where Mesa would
//!   silently drop a set bit that no compacted field keeps (reserved bits it asserts clear,
//!   src1 bits 127:121), [`try_compact`] refuses ([`Refusal::Reserved`]).
//! - [`precompact`]: Mesa's type rewrite of an instruction with an immediate src0 before
//!   compacting (see that module). Mesa's decision for a generated instruction `x` is
//!   `compact(precompact(x)?)`, with `x` itself kept when that is `None`.
//! - [`tables`]: the tables, with their Mesa names, gen12 / Xe-HP ones included as data.
//!
//! Gen12 (Tiger Lake) has other keys and another compacted layout: [`compact`] returns
//! `None` there (an instruction may always stay native) and [`uncompact`] an error.
//!
//! # What the encoder does around this (not here: `crate::encode::line`)
//! Mesa `brw_compact_instructions` runs once the whole program is generated, with JIP/UIP
//! already set by `brw_set_uip_jip`:
//! 1. Every instruction is tried, in order, no opcode skipped (gen7+): `precompact`, then
//!    compaction; a compacted one takes 8 bytes, others are moved down unchanged. The
//!    decision for a jump is taken with its *uncompacted* JIP/UIP, so a `while`/`endif`/...
//!    whose jump only fits after step 2 stays native (the jump fields are in the immediate
//!    dword, which compacts only when sign-extended from 13 bits; UIP, in bits 127:112 on
//!    gen7 and 95:64 on gen8+, rarely fits).
//! 2. Jumps are then fixed: for `break`, `cont`, `halt`, `if`, `else`, `endif`, `while`,
//!    each of JIP and UIP (JIP only for `endif`, `while`, and gen7 `else`) loses the number
//!    of instructions compacted between the jump and its target (`compacted_between`, in
//!    8-byte units; gen8+ counts bytes, so `<< 3`). A compacted jump is uncompacted, fixed and
//!    compacted again (Mesa asserts this succeeds). An `add` to the IP register is fixed the
//!    same way. Jump units: gen7 JIP 111:96 and UIP 127:112 count 8-byte units; gen8+ JIP
//!    127:96 and UIP 95:64 count bytes.
//! 3. If the program's length is not a multiple of 16 bytes, a compacted `nop` (opcode 126,
//!    compaction bit set, all else zero) pads it. The `INTEL_DEBUG` listings (`asm.txt`) do
//!    not show that NOP, but count it in "Compacted A to B bytes" (B), as the corpus test
//!    checks for every program.
//!
//! Never compacted: EOT `send`/`sendc`; three-source instructions before gen8; on gen8-11
//! anything with bit 95, 47 or 11 set (gen7: 95:91 or 47).

pub mod tables;

mod fields;
mod imm;
mod precompact;
mod three_src;
mod two_src;

pub use precompact::precompact;

use eubatch_ir::Gen;

use fields::{compacted, Native};

/// Why an instruction does not compact (or cannot be expanded), for diagnostics.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Refusal {
    /// Gen12 compaction is not implemented (tables only).
    UnsupportedGen,
    /// The input has its compaction bit (29) set: it is not a native instruction, or for
    /// [`uncompact`] the word is not a compacted one.
    CompactionBit,
    /// A three-source instruction before gen8.
    ThreeSrcBeforeGen8,
    /// An EOT `send`/`sendc`.
    Eot,
    /// A bit Mesa's `has_unmapped_bits` / `has_3src_unmapped_bits` refuses.
    UnmappedBits,
    /// A reserved bit set, or a bit no compacted field keeps.
    Reserved,
    /// An immediate that is not 13 bits sign-extended.
    Immediate,
    Control,
    Datatype,
    Subreg,
    Src0Region,
    Src1Region,
    ThreeSrcControl,
    ThreeSrcSource,
    /// A three-source register number above 127 (the compacted field has 7 bits).
    RegisterNumber,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = match self {
            Refusal::UnsupportedGen => "compaction not implemented for this generation",
            Refusal::CompactionBit => "compaction bit in the wrong state",
            Refusal::ThreeSrcBeforeGen8 => "three-source before gen8",
            Refusal::Eot => "EOT send",
            Refusal::UnmappedBits => "unmapped bits set",
            Refusal::Reserved => "reserved or unkept bits set",
            Refusal::Immediate => "immediate not 13-bit sign-extended",
            Refusal::Control => "no control index",
            Refusal::Datatype => "no datatype index",
            Refusal::Subreg => "no subreg index",
            Refusal::Src0Region => "no src0 index",
            Refusal::Src1Region => "no src1 index",
            Refusal::ThreeSrcControl => "no three-source control index",
            Refusal::ThreeSrcSource => "no three-source source index",
            Refusal::RegisterNumber => "register number above 127",
        };
        f.write_str(s)
    }
}

impl std::error::Error for Refusal {}

/// The compacted form of `native` on `gen`, or why there is none. `native` is Mesa's
/// `brw_inst` as two little-endian words (bytes 0-7, 8-15).
pub fn try_compact(native: [u64; 2], gen: Gen) -> Result<u64, Refusal> {
    let set = tables::table_set(gen).ok_or(Refusal::UnsupportedGen)?;
    let n = Native(native);
    if n.cmpt_control() {
        return Err(Refusal::CompactionBit);
    }
    if three_src::is_3src(n.opcode(), gen) {
        if gen < Gen::Gen8 {
            return Err(Refusal::ThreeSrcBeforeGen8);
        }
        return three_src::compact(&n, gen);
    }
    two_src::compact(&n, gen, &set)
}

/// The compacted form of `native` on `gen`, if it has one (Mesa
/// `brw_try_compact_instruction`; no [`precompact`] applied).
pub fn compact(native: [u64; 2], gen: Gen) -> Option<u64> {
    try_compact(native, gen).ok()
}

/// The native instruction compacted word `c` stands for on `gen` (Mesa
/// `brw_uncompact_instruction`). Errors: gen12, or `c` without its compaction bit.
pub fn uncompact(c: u64, gen: Gen) -> Result<[u64; 2], Refusal> {
    let set = tables::table_set(gen).ok_or(Refusal::UnsupportedGen)?;
    if (c >> compacted::CMPT_CONTROL) & 1 == 0 {
        return Err(Refusal::CompactionBit);
    }
    let op = fields::cbits(c, compacted::OPCODE) as u8;
    let n = if gen >= Gen::Gen8 && three_src::is_3src(op, gen) {
        three_src::uncompact(c, gen)
    } else {
        two_src::uncompact(c, gen, &set)
    };
    Ok(n.0)
}

/// The two words of a native instruction from its 16 bytes as listed (little-endian).
pub fn native_from_bytes(b: &[u8; 16]) -> [u64; 2] {
    let mut lo = [0u8; 8];
    let mut hi = [0u8; 8];
    lo.copy_from_slice(&b[..8]);
    hi.copy_from_slice(&b[8..]);
    [u64::from_le_bytes(lo), u64::from_le_bytes(hi)]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> Vec<u8> {
        s.split_whitespace()
            .map(|b| u8::from_str_radix(b, 16).unwrap())
            .collect()
    }

    /// `pln(8) g52<1>F g8<0,1,0>F g2<8,8,1>F { align1 1Q compacted }` on gen9, from the
    /// `asm` module's example listing.
    #[test]
    fn a_gen9_pln_round_trips() {
        let b = hex("5a 4b 02 20 e0 34 08 02");
        let c = u64::from_le_bytes(b.try_into().unwrap());
        let n = uncompact(c, Gen::Gen9).unwrap();
        assert_eq!(n[0] & 0x7f, 0x5a);
        assert_eq!((n[0] >> 21) & 7, 3, "exec size 8");
        assert_eq!((n[0] >> 53) & 0xff, 52, "dst g52");
        assert_eq!(compact(n, Gen::Gen9), Some(c));
    }

    #[test]
    fn an_eot_send_never_compacts() {
        // send(8) null g123 with EOT: opcode 49, bit 127.
        let n = [49u64 | (3 << 21), 1 << 63];
        assert_eq!(try_compact(n, Gen::Gen9), Err(Refusal::Eot));
    }

    #[test]
    fn gen12_is_an_error_not_a_panic() {
        assert_eq!(uncompact(1 << 29, Gen::Gen12), Err(Refusal::UnsupportedGen));
        assert_eq!(compact([0, 0], Gen::Gen12), None);
        assert_eq!(uncompact(0, Gen::Gen9), Err(Refusal::CompactionBit));
    }
}
