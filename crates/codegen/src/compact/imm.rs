//! Immediates in compacted instructions (gen6-11): 12 bits kept as they are and a 13th
//! replicated through the upper 19, so an immediate compacts only if its low dword
//! (`imm_ud`, bits 127:96) is a 13-bit value sign-extended. The 13 bits live in the
//! compacted src1 index (high 5) and src1 register number (low 8). Mesa
//! `brw_eu_compact.c` `compact_immediate`, `uncompact_immediate` (their `ver < 12` halves),
//! `has_immediate`; hardware type codes from `brw_reg_type.c` (`hw_imm_type`).

use eubatch_ir::Gen;

use super::fields::{Native, FILE_IMM};

/// The 13 bits a compacted instruction keeps of `imm`, if `imm` sign-extends from them
/// (Mesa `compact_immediate`, gen6-11: the type does not matter there).
pub(crate) fn compact_immediate(imm: u32) -> Option<u64> {
    let high = (imm as i32) >> 12;
    (high == 0 || high == -1).then_some(u64::from(imm & 0x1fff))
}

/// The dword a compacted immediate stands for: bit 12 replicated into bits 31:13
/// (Mesa `uncompact_immediate`).
pub(crate) fn uncompact_immediate(c: u64) -> u32 {
    (((c as u32) << 19) as i32 >> 19) as u32
}

/// Whether an immediate type code is one the hardware defines (Mesa
/// `brw_hw_type_to_reg_type` returning a type for `BRW_IMMEDIATE_VALUE`): every 3-bit code
/// before gen8, codes 0-11 from gen8 (UQ 8, Q 9, DF 10, HF 11 on gen8/9; gen11 renumbers
/// within 0-11).
fn valid_imm_type(gen: Gen, hw: u64) -> bool {
    gen < Gen::Gen8 || hw < 12
}

/// Whether src0 or src1 is an immediate of a defined type (Mesa `has_immediate`: src0 is
/// looked at first, and an immediate of an undefined type code counts as none).
pub(crate) fn has_immediate(n: &Native, gen: Gen) -> bool {
    if n.src0_file(gen) == FILE_IMM {
        valid_imm_type(gen, n.src0_hw_type(gen))
    } else if n.src1_file(gen) == FILE_IMM {
        valid_imm_type(gen, n.src1_hw_type(gen))
    } else {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thirteen_bits_sign_extended() {
        assert_eq!(compact_immediate(0), Some(0));
        assert_eq!(compact_immediate(0xfff), Some(0xfff));
        assert_eq!(compact_immediate(0x1000), None);
        assert_eq!(compact_immediate(0xffff_f000), Some(0x1000));
        assert_eq!(compact_immediate(0xffff_efff), None);
        assert_eq!(compact_immediate(0x3f80_0000), None); // 1.0f
        for v in [0u32, 1, 0xfff, 0xffff_f000, 0xffff_ffff, 0xffff_f123] {
            assert_eq!(uncompact_immediate(compact_immediate(v).unwrap()), v);
        }
    }
}
