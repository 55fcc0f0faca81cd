//! `f16to32` and `f32to16` from gen8, where the hardware has half-float types instead of
//! these opcodes (brw_eu_emit.c `brw_F16TO32`, `brw_F32TO16`): a converting `mov` with the
//! half-float side retyped HF. A dword half-float side is read (`f16to32`) or written
//! (`f32to16`) as its low word, `spread(retype(x, W), 2)`; `f32to16` to a dword
//! destination then zeroes the high words with a second `mov` of `0:W` one word in ("the
//! Gfx8 implementation in terms of a converting MOV" does not write 32-bit destinations).
//! Gen7 keeps the opcodes, which it has.

use eubatch_ir::{Gen, Inst, Opcode, Operand, RegFile, Type};

use super::{byte_offset, retype, with_region, Emit};

/// `spread(retype(op, W), 2)`: the low word of each dword.
fn low_words(op: Operand) -> Operand {
    let r = op.region;
    let mut o = with_region(
        retype(op, Type::W),
        eubatch_ir::Region::new(r.vstride * 2, r.width, r.hstride * 2),
    );
    o.region.swizzle = r.swizzle;
    o
}

pub(super) fn expand(e: &mut Emit<'_>, inst: Inst) -> bool {
    let s = &*e.shader;
    if s.target < Gen::Gen8 {
        return false;
    }
    let (op, ctl, dst) = (
        s.insts.opcode[inst],
        s.insts.control[inst],
        s.insts.dst[inst],
    );
    let Some(&src) = s.srcs(inst).first() else {
        return false;
    };
    if dst.file != RegFile::FixedGrf || !matches!(src.file, RegFile::FixedGrf | RegFile::Imm) {
        return false;
    }
    if op == Opcode::F16to32 {
        let src = if src.ty == Type::UD {
            low_words(src)
        } else {
            src
        };
        e.push(Opcode::Mov, ctl, dst, &[retype(src, Type::HF)], None);
        return true;
    }
    let zero_fill = dst.ty == Type::UD;
    let d = if zero_fill { low_words(dst) } else { dst };
    e.push(Opcode::Mov, ctl, retype(d, Type::HF), &[src], None);
    if zero_fill {
        let high = byte_offset(d, 2, e.reg_size());
        e.push(Opcode::Mov, ctl, high, &[Operand::imm(Type::W, 0)], None);
    }
    true
}
