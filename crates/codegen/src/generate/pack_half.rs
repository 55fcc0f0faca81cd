//! `pack_half_2x16_split` (brw_fs_generator.cpp `generate_pack_half_2x16_split`): two
//! floats into the halves of each dword. `f32to16` writes the low word of each dword of
//! the destination seen as words with stride 2 (W on gen7; from gen8 a `mov` to HF,
//! `brw_F32TO16`). A constant `y`
//! is one `mov` of its half in the high word; otherwise `f32to16` of `y` and a `shl` by 16
//! put it there. Then `f32to16` of `x` fills the low word: two or three instructions.

use eubatch_ir::{Gen, Inst, Opcode, Operand, RegFile, Region, Type};

use super::{retype, with_region, Emit};

pub(super) fn expand(e: &mut Emit<'_>, inst: Inst) -> bool {
    let s = &*e.shader;
    let (ctl, dst) = (s.insts.control[inst], s.insts.dst[inst]);
    let srcs = s.srcs(inst);
    let (Some(&x), Some(&y)) = (srcs.first(), srcs.get(1)) else {
        return false;
    };
    if dst.file != RegFile::FixedGrf {
        return false;
    }
    // brw_F32TO16: from gen8 a converting `mov` to HF, on gen7 the opcode to W.
    let (t, convert) = if s.target >= Gen::Gen8 {
        (Type::HF, Opcode::Mov)
    } else {
        (Type::W, Opcode::F32to16)
    };
    let h = dst.region.hstride.max(1) * 2;
    let w = ctl.exec_size.clamp(1, 8);
    let dst_w = with_region(retype(dst, t), Region::new(w * h, w, h));
    let dst = retype(dst, Type::UD);
    if y.file == RegFile::Imm {
        let half = half::f16::from_f32(f32::from_bits(y.imm_bits() as u32)).to_bits() as u64;
        e.push(
            Opcode::Mov,
            ctl,
            dst,
            &[Operand::imm(Type::UD, half << 16)],
            None,
        );
    } else {
        e.push(convert, ctl, dst_w, &[y], None);
        let src = with_region(dst, Region::new(8, 8, 1));
        e.push(
            Opcode::Shl,
            ctl,
            dst,
            &[src, Operand::imm(Type::UD, 16)],
            None,
        );
    }
    e.push(convert, ctl, dst_w, &[x], None);
    true
}

#[cfg(test)]
mod tests {
    use super::super::expand;
    use super::super::test_util::{opcodes, parse};
    use eubatch_ir::Opcode::*;

    #[test]
    fn two_registers_take_three_instructions_a_constant_y_two() {
        let mut s = parse(
            "skl",
            8,
            "CS",
            "    pack_half_2x16_split(8) g10<8,8,1>:UD, g2<8,8,1>:F, g3<8,8,1>:F\n    pack_half_2x16_split(8) g11<8,8,1>:UD, g2<8,8,1>:F, 1f\n",
        );
        expand(&mut s).unwrap();
        assert_eq!(opcodes(&s), [Mov, Shl, Mov, Mov, Mov]);
    }
}
