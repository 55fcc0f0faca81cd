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
//! Elements of 4 bytes only: 64-bit (DF) Align16 operands, whose swizzles select pairs of
//! dwords and whose second half follows gen7's `vstride 0` rule (seed 000), are refused by
//! [`check_operand`] until they are modelled.

use eubatch_ir::{Operand, RegFile, Region};

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

/// Refuses what this model does not cover: elements other than 4 bytes wide.
pub fn check_operand(op: &Operand) -> Result<(), SimError> {
    if op.file == RegFile::Imm || op.file == RegFile::Bad || op.file == RegFile::Arf {
        return Ok(());
    }
    if op.ty.size() != 4 {
        return Err(SimError::msg(format!(
            "vec4 operands of {}-byte elements ({:?}) are not simulated yet",
            op.ty.size(),
            op.ty
        )));
    }
    Ok(())
}

/// Byte of channel `i` of a VGRF or MRF operand within its register (file) space: a
/// source reads its swizzled component, a destination (`dst`) its own.
pub fn vgrf_byte(op: &Operand, i: u32, dst: bool) -> u64 {
    let (h, c) = half_comp(i);
    let k = if dst { c } else { swizzled(op, i) };
    op.offset as u64 + (h * HALF_BYTES + k * op.ty.size()) as u64
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

/// Logical input byte of component `k` of half `h` of a uniform or attribute operand
/// (its swizzle not applied).
pub fn input_component_addr(op: &Operand, h: u32, k: u32) -> (Space, u64) {
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
            input_byte(Space::Attr, op.nr, op.offset + h * HALF_BYTES + k),
        ),
    }
}

/// Byte of channel `i` of an Align16 fixed-register source within its register: the
/// halves `vstride` elements apart, the swizzle within a half.
pub fn fixed_src_byte(op: &Operand, i: u32) -> u64 {
    let (h, _) = half_comp(i);
    let sz = op.ty.size() as u64;
    let r = op.region;
    let hstride = if r.hstride == 0 && r.width != 1 {
        1
    } else {
        r.hstride as u64
    };
    op.offset as u64 + h as u64 * r.vstride as u64 * sz + swizzled(op, i) as u64 * hstride * sz
}

/// Whether an operand is read through the vec4 rules (rather than element by element).
pub fn is_vec4_file(op: &Operand) -> bool {
    matches!(
        op.file,
        RegFile::Vgrf | RegFile::Mrf | RegFile::Uniform | RegFile::Attr | RegFile::FixedGrf
    )
}

/// The identity swizzle, for building operands of whole vec4s.
pub const XYZW: u8 = Region::XYZW;

#[cfg(test)]
mod tests {
    use super::*;
    use eubatch_ir::Type;

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
    }

    #[test]
    fn df_operands_are_refused() {
        let op = Operand::vgrf(0, 0, Type::DF, 1);
        assert!(check_operand(&op).is_err());
    }
}
