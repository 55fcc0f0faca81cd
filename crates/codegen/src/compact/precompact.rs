//! Mesa's `precompact` (`brw_eu_compact.c`): before trying to compact an instruction with
//! an immediate src0, Mesa rewrites a copy of it in ways that do not change what it
//! computes but that the compaction tables have entries for, and keeps the rewritten copy
//! only if it then compacts (`brw_compact_instructions` moves the original down otherwise):
//!
//! 1. src1's hardware type is set to 0 (`:UD`): "all compaction mappings that have an
//!    immediate in src0 use a:ud for src1". Not for Haswell's `dim`, nor for 64-bit
//!    immediates on gen8+ (DF, Q, UQ: src1's fields are the immediate's low dword there).
//! 2. `0.0:F` into an `:F` destination with stride 1 becomes `0.0:VF` (a packed vector of
//!    four zeros): the tables have no entry for an `:F` immediate in src0.
//! 3. A `:D` destination with a `:D` immediate that compacts (13 bits sign-extended) and no
//!    condition modifier becomes `:UD`/`:UD`: no entry for `dst:d | i:d`.
//!
//! It needs only the native bits, so it is given here for the encoder to call:
//! `compact(precompact(x)?)` is Mesa's decision for `x` (`crate::encode::line::mesa_compaction`).
//! This is the one statement of these rewrites: a compacted line of Mesa's listings prints
//! the rewritten copy, and the encoder's don't-care policy has no rule for it. Gen12's rules (an Xe-HP region
//! rewrite; no type rewrites) are not implemented.

use eubatch_ir::Gen;

use super::fields::{Native, FILE_IMM};
use super::imm::compact_immediate;
use super::Refusal;

/// The hardware type codes precompact reads or writes, per generation (Mesa
/// `brw_reg_type.c`: `hw_reg_type`, `hw_imm_type`).
struct Codes {
    reg_f: u64,
    reg_d: u64,
    reg_ud: u64,
    imm_f: u64,
    imm_vf: u64,
    imm_d: u64,
    imm_ud: u64,
    /// Immediate codes of DF, Q and UQ (none before gen8).
    imm_64: &'static [u64],
}

fn codes(gen: Gen) -> Option<Codes> {
    match gen {
        Gen::Gen7 | Gen::Gen75 => Some(Codes {
            reg_f: 7,
            reg_d: 1,
            reg_ud: 0,
            imm_f: 7,
            imm_vf: 5,
            imm_d: 1,
            imm_ud: 0,
            imm_64: &[],
        }),
        Gen::Gen8 | Gen::Gen9 => Some(Codes {
            reg_f: 7,
            reg_d: 1,
            reg_ud: 0,
            imm_f: 7,
            imm_vf: 5,
            imm_d: 1,
            imm_ud: 0,
            imm_64: &[10, 9, 8],
        }),
        Gen::Gen11 => Some(Codes {
            reg_f: 9,
            reg_d: 1,
            reg_ud: 0,
            imm_f: 9,
            imm_vf: 11,
            imm_d: 1,
            imm_ud: 0,
            imm_64: &[10, 7, 6],
        }),
        Gen::Gen12 => None,
    }
}

/// Haswell's `dim` (hardware opcode 10).
const DIM: u8 = 10;
/// Horizontal stride encoding 1 (`BRW_HORIZONTAL_STRIDE_1`).
const HSTRIDE_1: u64 = 1;

/// Mesa's `precompact` rewrite of `native` (gen7-11); an error on gen12.
pub fn precompact(native: [u64; 2], gen: Gen) -> Result<[u64; 2], Refusal> {
    let k = codes(gen).ok_or(Refusal::UnsupportedGen)?;
    let mut n = Native(native);
    if n.src0_file(gen) != FILE_IMM {
        return Ok(native);
    }
    let src0_64 = k.imm_64.contains(&n.src0_hw_type(gen));
    let hsw_dim = gen == Gen::Gen75 && n.opcode() == DIM;
    if !hsw_dim && !src0_64 {
        n.set_src1_hw_type(gen, 0);
    }
    if n.imm_ud() == 0
        && n.src0_hw_type(gen) == k.imm_f
        && n.dst_hw_type(gen) == k.reg_f
        && n.dst_hstride() == HSTRIDE_1
    {
        n.set_src0_hw_type(gen, k.imm_vf);
    }
    if compact_immediate(n.imm_ud()).is_some()
        && n.cond_modifier() == 0
        && n.src0_hw_type(gen) == k.imm_d
        && n.dst_hw_type(gen) == k.reg_d
    {
        n.set_src0_hw_type(gen, k.imm_ud);
        n.set_dst_hw_type(gen, k.reg_ud);
    }
    Ok(n.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compact::{compact, uncompact};

    fn word(bytes: [u8; 8]) -> u64 {
        u64::from_le_bytes(bytes)
    }

    /// `mov(8) g22<1>F 0x0VF { align1 1Q compacted }` (shaderdb-skl): Mesa generated
    /// `mov(8) g22<1>F 0.0F` (src1's type copied from src0, as brw_set_src0 does) and
    /// precompact made it compactable.
    #[test]
    fn zero_float_becomes_vf() {
        let c = word([0x01, 0xab, 0x00, 0x20, 0x00, 0x16, 0x00, 0x00]);
        let done = uncompact(c, Gen::Gen9).unwrap();
        let mut original = Native(done);
        original.set_src0_hw_type(Gen::Gen9, 7);
        original.set_src1_hw_type(Gen::Gen9, 7);
        assert_ne!(original.0, done);
        assert_eq!(compact(original.0, Gen::Gen9), None);
        assert_eq!(precompact(original.0, Gen::Gen9), Ok(done));
        assert_eq!(compact(done, Gen::Gen9), Some(c));
        assert_eq!(precompact(done, Gen::Gen9), Ok(done), "idempotent");
    }

    /// `mov(8) g27<1>UD 0x00000001UD { align1 1Q compacted }`: from `mov(8) g27<1>D 1D`;
    /// with a condition modifier the types stay.
    #[test]
    fn small_signed_immediates_become_unsigned() {
        let c = word([0x01, 0x6b, 0x00, 0x20, 0x00, 0x1b, 0x00, 0x01]);
        let done = uncompact(c, Gen::Gen9).unwrap();
        let mut original = Native(done);
        original.set_dst_hw_type(Gen::Gen9, 1);
        original.set_src0_hw_type(Gen::Gen9, 1);
        original.set_src1_hw_type(Gen::Gen9, 1);
        assert_eq!(precompact(original.0, Gen::Gen9), Ok(done));
        let mut with_cmod = original;
        with_cmod.set_bits(27, 24, 1);
        let pre = Native(precompact(with_cmod.0, Gen::Gen9).unwrap());
        assert_eq!(pre.dst_hw_type(Gen::Gen9), 1);
        assert_eq!(pre.src1_hw_type(Gen::Gen9), 0);
        assert_eq!(precompact([0, 0], Gen::Gen12), Err(Refusal::UnsupportedGen));
    }
}
