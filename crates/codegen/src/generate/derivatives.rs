//! Pixel coordinates and screen-space derivatives: one `mov` or `add` each, with the
//! regions (and on gen7 the Align16 swizzles) that make the hardware read the right pixel
//! of each 2×2 subspan.
//!
//! Mesa 23.0 brw_fs_generator.cpp:
//! - `FS_OPCODE_PIXEL_X`/`_Y` (`generate_code`): the payload's UW coordinates at
//!   sub-register 0 (x) or 4 (y) with region `<8,4,1>`, moved, or added to the coarse-pixel
//!   offset in the second source;
//! - `generate_ddx`: gen8+ `add dst, src+1<V,W,0>, -src<V,W,0>` with `<2,2,0>` (fine) or
//!   `<4,4,0>` (coarse); gen7 Align16 `add dst, -src<4>.xxzz, src<4>.yyww` (fine) or
//!   `.xxxx`/`.yyyy` (coarse);
//! - `generate_ddy`: fine, Align16 `add dst, -src<4>.xyxy, src<4>.zwzw` (the half-float
//!   BDW form is several instructions: [`super::rules::ddy_fine_pieces`]); coarse, gen8+
//!   `add dst, -src<4,4,0>, src+2<4,4,0>`, gen7 Align16 `.xxxx`/`.zzzz`.

use eubatch_ir::{Control, Gen, Inst, Opcode, Operand, Region};

use super::{byte_offset, with_region, Emit};

/// BRW_SWIZZLE4(a, b, c, d).
const fn swizzle(a: u8, b: u8, c: u8, d: u8) -> u8 {
    a | b << 2 | c << 4 | d << 6
}

fn negate(op: Operand) -> Operand {
    let mut o = op;
    o.mods.0 ^= eubatch_ir::Mods::NEGATE;
    o
}

/// `op` as an Align16 source `<4>` with `swz`.
fn align16(op: Operand, swz: u8) -> Operand {
    let mut o = with_region(op, Region::new(4, 4, 1));
    o.region.swizzle = swz;
    o
}

/// Emits the hardware form of `pixel_x`, `pixel_y`, `ddx_*` or `ddy_*`; false when the
/// opcode or its form is not this module's (`ddy_fine` of half floats on Broadwell).
pub(super) fn expand(e: &mut Emit<'_>, inst: Inst) -> bool {
    let s = &*e.shader;
    let (op, ctl, dst, gen) = (
        s.insts.opcode[inst],
        s.insts.control[inst],
        s.insts.dst[inst],
        s.target,
    );
    let srcs = s.srcs(inst).to_vec();
    let Some(&src) = srcs.first() else {
        return false;
    };
    if src.file != eubatch_ir::RegFile::FixedGrf {
        return false;
    }
    let reg = e.reg_size();
    let size = src.ty.size();
    let gen8 = gen >= Gen::Gen8;
    let mut a16 = ctl;
    a16.set(Control::ALIGN16, true);
    let mut a16_dst = dst;
    a16_dst.region.swizzle = Region::WRITEMASK_XYZW;
    match op {
        Opcode::PixelX | Opcode::PixelY => {
            let sub = if op == Opcode::PixelX { 0 } else { 4 * size };
            let coord = with_region(Operand { offset: sub, ..src }, Region::new(8, 4, 1));
            match srcs.get(1) {
                Some(o) if o.file != eubatch_ir::RegFile::Imm => {
                    e.push(Opcode::Add, ctl, dst, &[coord, *o], None);
                }
                _ => {
                    e.push(Opcode::Mov, ctl, dst, &[coord], None);
                }
            }
        }
        Opcode::DdxFine | Opcode::DdxCoarse if gen8 => {
            let (v, w) = if op == Opcode::DdxFine {
                (2, 2)
            } else {
                (4, 4)
            };
            let r = Region::new(v, w, 0);
            let src0 = with_region(byte_offset(src, size, reg), r);
            let src1 = with_region(src, r);
            e.push(Opcode::Add, ctl, dst, &[src0, negate(src1)], None);
        }
        Opcode::DdxFine | Opcode::DdxCoarse => {
            let (s0, s1) = if op == Opcode::DdxFine {
                (swizzle(0, 0, 2, 2), swizzle(1, 1, 3, 3))
            } else {
                (swizzle(0, 0, 0, 0), swizzle(1, 1, 1, 1))
            };
            let (src0, src1) = (align16(src, s0), align16(src, s1));
            e.push(Opcode::Add, a16, a16_dst, &[negate(src0), src1], None);
        }
        Opcode::DdyFine => {
            if super::rules::ddy_fine_pieces(
                gen,
                src.ty == eubatch_ir::Type::HF,
                ctl.exec_size as u32,
            ) != 1
            {
                return false;
            }
            let src0 = align16(src, swizzle(0, 1, 0, 1));
            let src1 = align16(src, swizzle(2, 3, 2, 3));
            e.push(Opcode::Add, a16, a16_dst, &[negate(src0), src1], None);
        }
        Opcode::DdyCoarse if gen8 => {
            let r = Region::new(4, 4, 0);
            let src0 = with_region(src, r);
            let src1 = with_region(byte_offset(src, 2 * size, reg), r);
            e.push(Opcode::Add, ctl, dst, &[negate(src0), src1], None);
        }
        Opcode::DdyCoarse => {
            let src0 = align16(src, swizzle(0, 0, 0, 0));
            let src1 = align16(src, swizzle(2, 2, 2, 2));
            e.push(Opcode::Add, a16, a16_dst, &[negate(src0), src1], None);
        }
        _ => return false,
    }
    true
}
