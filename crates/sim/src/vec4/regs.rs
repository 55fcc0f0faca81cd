//! SIMD4x2 operand addressing: where channel `i` of an Align16 operand lives.
//!
//! A vec4 instruction of execution size 8 runs two vertices (halves) of four components:
//! channel `i` is component `i % 4` of half `i / 4` (PRM Vol. 7 "Align16 Access Mode";
//! Mesa brw_vec4.h: a VGRF register holds one vec4 per vertex, 16 bytes each). A source's
//! swizzle picks the component each channel reads; a destination's writemask says which
//! components are written at all. Per file:
//! - VGRF and MRF (start IR): half `h` at byte `offset + 16h`, component `k` at `4k`. On
//!   gen7 the message registers are GRFs from g112 on (`GFX7_MRF_HACK_START`, brw_reg.h),
//!   where Mesa's generator puts them, so `mN` is `g(112+N)` in both runs.
//! - Uniform `uN+O`: a 16-byte slot per number, the same for both halves (Mesa
//!   `convert_to_hw_regs` gives push constants a `<0,4,1>` region); pushed UBO ranges
//!   (`u65532`..) are addressed by byte offset.
//! - Attribute `attrN+R.B`: one register per attribute, a vec4 per half
//!   (`vec4_vs_visitor::setup_attributes`).
//! - Fixed registers (final code): the hardware region, `vstride` elements between the
//!   halves, the swizzle within a half (the scalar reader's `swizzled_addr`).
//!
//! 64-bit (DF) elements: in the IR (VGRF, MRF, uniforms) a half holds a dvec4, 32 bytes,
//! and swizzles and writemasks name whole 64-bit components (Mesa brw_vec4.cpp
//! `apply_logical_swizzle`: "64-bit logical swizzle"). In final code the hardware's rules
//! apply ([`fixed_df_src_dwords`]): Align16 rows are 16 bytes (an OWord: vstride 4 is the
//! next row, 0 the same; Mesa brw_eu_emit.c encodes DF vstride 2 as 4), two DF a row, a
//! swizzle of four 32-bit channels per row (the pair `swizzle[2j], swizzle[2j+1]` for the
//! row's DF `j`), a writemask bit per DF channel of a half; and on gen7 the second half of
//! a compressed (SIMD4x2, execution size 8) instruction starts one GRF after the first
//! whatever the vertical stride (seed 000, bug 92760 comment 82: "an instruction
//! decompression bug ... increment the register offset of the second half by a fixed
//! amount of one GRF"), where gen8 follows the region. 64-bit attributes are refused by
//! [`check_operand`].

use eubatch_ir::{Operand, RegFile};

use crate::inputs::{input_byte, Space};
use crate::layout::UBO_START;
use crate::SimError;

/// First GRF of the message registers on gen7 (Mesa brw_reg.h `GFX7_MRF_HACK_START`).
pub const MRF_START: u32 = 112;

/// Bytes of one half (one vertex's vec4 of dwords).
pub const HALF_BYTES: u32 = 16;

/// The half and component of channel `i`.
pub fn half_comp(i: u32) -> (u32, u32) {
    (i / 4, i % 4)
}

/// The component a source's swizzle makes channel `i` read.
pub fn swizzled(op: &Operand, i: u32) -> u32 {
    let (_, c) = half_comp(i);
    ((op.region.swizzle >> (2 * c)) & 3) as u32
}

/// Whether a destination's writemask lets channel `i` be written.
pub fn writes_channel(op: &Operand, i: u32) -> bool {
    let (_, c) = half_comp(i);
    op.region.swizzle & (1 << c) != 0
}

/// Refuses what this model does not cover: elements other than 4 or 8 bytes wide, and
/// 64-bit attributes.
pub fn check_operand(op: &Operand) -> Result<(), SimError> {
    if op.file == RegFile::Imm || op.file == RegFile::Bad || op.file == RegFile::Arf {
        return Ok(());
    }
    if op.ty.size() == 8 && op.file == RegFile::Attr {
        return Err(SimError::msg(
            "64-bit vec4 attributes are not simulated yet",
        ));
    }
    if op.ty.size() != 4 && op.ty.size() != 8 {
        return Err(SimError::msg(format!(
            "vec4 operands of {}-byte elements ({:?}) are not simulated yet",
            op.ty.size(),
            op.ty
        )));
    }
    Ok(())
}

/// Bytes of one half of an IR operand: a vec4 of its elements (16 bytes of dwords, 32 of
/// DF).
pub fn half_bytes(op: &Operand) -> u32 {
    4 * op.ty.size()
}

/// Byte of channel `i` of a VGRF or MRF operand within its register (file) space: a
/// source reads its swizzled component, a destination (`dst`) its own.
pub fn vgrf_byte(op: &Operand, i: u32, dst: bool) -> u64 {
    let (h, c) = half_comp(i);
    let k = if dst { c } else { swizzled(op, i) };
    op.offset as u64 + (h * half_bytes(op) + k * op.ty.size()) as u64
}

/// The two dwords (low, high; bytes within the register file from the operand's register)
/// channel `i` of a DF fixed-register source of an instruction of `exec` channels reads
/// (see the module's comment for the rules).
pub fn fixed_df_src_dwords(op: &Operand, i: u32, exec: u32, gen7: bool) -> (u64, u64) {
    let (h, j) = if exec > 4 { half_comp(i) } else { (0, i) };
    let row_bytes = op.region.vstride as u64 * 4;
    let row = (j / 2) as u64;
    let half = if h == 0 {
        0
    } else if gen7 {
        32
    } else {
        2 * row_bytes
    };
    let base = op.offset as u64 + half + row * row_bytes;
    let pair = 2 * (j % 2);
    let dword = |k: u32| base + 4 * ((op.region.swizzle >> (2 * k)) & 3) as u64;
    (dword(pair), dword(pair + 1))
}

/// Byte of channel `i` of a DF fixed-register destination: 8 bytes a channel, a half
/// (execution size 8) 32 bytes on.
pub fn fixed_df_dst_byte(op: &Operand, i: u32) -> u64 {
    op.offset as u64 + 8 * i as u64
}

/// Register-file byte of channel `i` of a message register operand.
pub fn mrf_byte(op: &Operand, i: u32, dst: bool, reg_size: u32) -> u64 {
    (MRF_START + op.nr) as u64 * reg_size as u64 + vgrf_byte(op, i, dst)
}

/// Logical input byte ([`input_byte`]) of channel `i` of a uniform or attribute source.
pub fn input_addr(op: &Operand, i: u32) -> (Space, u64) {
    let (h, _) = half_comp(i);
    input_component_addr(op, h, swizzled(op, i))
}

/// [`input_addr`], or for `patch` inputs (a TES's attributes: patch data, the same for both
/// halves) the address of slot `N + O / 16` of `attrN+O` whatever the half.
pub fn input_addr_of(op: &Operand, i: u32, patch: bool) -> (Space, u64) {
    if patch && op.file == RegFile::Attr {
        let slot = op.nr + op.offset / HALF_BYTES;
        let k = swizzled(op, i) * op.ty.size();
        return (
            Space::Attr,
            input_byte(Space::Attr, slot, op.offset % HALF_BYTES + k),
        );
    }
    input_addr(op, i)
}

/// Logical input byte of component `k` of half `h` of a uniform or attribute operand
/// (its swizzle not applied).
pub fn input_component_addr(op: &Operand, h: u32, k: u32) -> (Space, u64) {
    let half = half_bytes(op);
    let k = k * op.ty.size();
    match op.file {
        RegFile::Uniform if op.nr >= UBO_START => (
            Space::Uniform,
            input_byte(Space::Uniform, op.nr, op.offset + k),
        ),
        // Slot N is dwords 4N..4N+3 of the logical uniform space.
        RegFile::Uniform => (
            Space::Uniform,
            input_byte(Space::Uniform, op.nr * 4, op.offset + k),
        ),
        _ => (
            Space::Attr,
            input_byte(Space::Attr, op.nr, op.offset + h * half + k),
        ),
    }
}

/// Byte of channel `i` of an Align16 fixed-register source within its register: the
/// halves `vstride` elements apart (`<8>` read as `<4>`,
/// [`eubatch_ir::region_rules::align16_vstride`]), the swizzle within a half.
pub fn fixed_src_byte(op: &Operand, i: u32) -> u64 {
    let (h, _) = half_comp(i);
    let sz = op.ty.size() as u64;
    let r = op.region;
    let hstride = if r.hstride == 0 && r.width != 1 {
        1
    } else {
        r.hstride as u64
    };
    let vstride = eubatch_ir::region_rules::align16_vstride(r.vstride) as u64;
    op.offset as u64 + h as u64 * vstride * sz + swizzled(op, i) as u64 * hstride * sz
}

/// Whether an operand is read through the vec4 rules (rather than element by element).
pub fn is_vec4_file(op: &Operand) -> bool {
    matches!(
        op.file,
        RegFile::Vgrf | RegFile::Mrf | RegFile::Uniform | RegFile::Attr | RegFile::FixedGrf
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use eubatch_ir::{Region, Type};

    #[test]
    fn swizzle_picks_the_component_within_each_half() {
        let mut op = Operand::vgrf(3, 32, Type::F, 1);
        op.region.swizzle = 0b00_00_01_10; // .zyxx
        assert_eq!(vgrf_byte(&op, 0, false), 32 + 8);
        assert_eq!(vgrf_byte(&op, 1, false), 32 + 4);
        assert_eq!(vgrf_byte(&op, 3, false), 32);
        assert_eq!(vgrf_byte(&op, 4, false), 32 + 16 + 8);
        // As a destination: its own component.
        assert_eq!(vgrf_byte(&op, 5, true), 32 + 16 + 4);
    }

    #[test]
    fn writemask_selects_components() {
        let mut op = Operand::vgrf(0, 0, Type::F, 1);
        op.region.swizzle = 0b0101; // .xz
        let w: Vec<u32> = (0..8).filter(|&i| writes_channel(&op, i)).collect();
        assert_eq!(w, vec![0, 2, 4, 6]);
    }

    #[test]
    fn uniforms_are_the_same_for_both_halves_attributes_are_not() {
        let mut u = Operand::vgrf(2, 0, Type::F, 1);
        u.file = RegFile::Uniform;
        u.region.swizzle = 0b11_10_01_00;
        assert_eq!(input_addr(&u, 1), input_addr(&u, 5));
        assert_eq!(input_addr(&u, 1).1, 2 * 16 + 4);
        let mut a = u;
        a.file = RegFile::Attr;
        assert_ne!(input_addr(&a, 1), input_addr(&a, 5));
    }

    #[test]
    fn vstride_zero_reads_the_same_half_twice() {
        let op = Operand::fixed(1, 0, Type::UD, Region::new(0, 4, 1));
        assert_eq!(fixed_src_byte(&op, 2), fixed_src_byte(&op, 6));
        let op = Operand::fixed(1, 0, Type::UD, Region::new(4, 4, 1));
        assert_eq!(fixed_src_byte(&op, 6), 16 + 8);
        // The IR's `g1.0.xyzw` (`<8,8,1>`) is encoded `<4>`: the same bytes.
        let ir = Operand::fixed(1, 0, Type::UD, Region::new(8, 8, 1));
        assert_eq!(fixed_src_byte(&ir, 6), 16 + 8);
    }

    #[test]
    fn df_attributes_are_refused() {
        let mut op = Operand::vgrf(0, 0, Type::DF, 1);
        assert!(check_operand(&op).is_ok());
        op.file = RegFile::Attr;
        assert!(check_operand(&op).is_err());
    }

    /// Seed 000: a compressed DF source with vstride 0 and swizzle `.xyxy` reads r0's first
    /// DF in every channel of the first half; the second half reads r1 on gen7 (the
    /// decompression quirk), r0 again on gen8.
    #[test]
    fn df_vstride_zero_second_half_is_one_grf_on_gen7_only() {
        let mut op = Operand::fixed(0, 0, Type::DF, Region::new(0, 2, 1));
        op.region.swizzle = 0b01_00_01_00; // .xyxy
        for i in 0..4 {
            assert_eq!(fixed_df_src_dwords(&op, i, 8, true), (0, 4));
        }
        for i in 4..8 {
            assert_eq!(fixed_df_src_dwords(&op, i, 8, true), (32, 36));
            assert_eq!(fixed_df_src_dwords(&op, i, 8, false), (0, 4));
        }
        // `.zwzw` at vstride 4: the second DF of each row (y, w).
        op.region = Region::new(4, 2, 1);
        op.region.swizzle = 0b11_10_11_10;
        assert_eq!(fixed_df_src_dwords(&op, 0, 8, true), (8, 12));
        assert_eq!(fixed_df_src_dwords(&op, 2, 8, true), (24, 28));
        // The identity: channel j of a half is DF j.
        op.region.swizzle = Region::XYZW;
        let all: Vec<u64> = (0..8)
            .map(|i| fixed_df_src_dwords(&op, i, 8, true).0)
            .collect();
        assert_eq!(all, vec![0, 8, 16, 24, 32, 40, 48, 56]);
    }

    #[test]
    fn df_logical_halves_are_32_bytes() {
        let mut op = Operand::vgrf(0, 0, Type::DF, 1);
        op.region.swizzle = 0b00_00_00_01; // .yxxx
        assert_eq!(vgrf_byte(&op, 0, false), 8);
        assert_eq!(vgrf_byte(&op, 4, false), 40);
        assert_eq!(vgrf_byte(&op, 6, true), 48);
    }
}
