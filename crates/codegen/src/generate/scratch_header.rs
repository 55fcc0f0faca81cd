//! `scratch_header` (brw_fs_generator.cpp `generate_scratch_header`, gen9+ spills): the
//! header of the scratch messages, built from zero: `mov(8) dst:UD 0`, then the
//! per-thread scratch size `and(1) dst.3, g0.3, 0xf` and the scratch base address
//! `and(1) dst.5, g0.5, 0xfffffc00`.

use eubatch_ir::{Inst, Opcode, Operand, RegFile, Region, Type};

use super::{byte_offset, no_mask, retype, scalar_dst, Emit};

pub(super) fn expand(e: &mut Emit<'_>, inst: Inst) -> bool {
    let s = &*e.shader;
    let (ctl, dst) = (s.insts.control[inst], s.insts.dst[inst]);
    if dst.file != RegFile::FixedGrf || ctl.exec_size != 8 {
        return false;
    }
    let reg_size = e.reg_size();
    let dst = retype(dst, Type::UD);
    let mut all = ctl;
    all.set(eubatch_ir::Control::NO_MASK, true);
    e.push(Opcode::Mov, all, dst, &[Operand::imm(Type::UD, 0)], None);
    for (dword, mask) in [(3u32, 0xfu64), (5, 0xffff_fc00)] {
        let d = scalar_dst(byte_offset(dst, 4 * dword, reg_size));
        let g0 = Operand::fixed(0, 4 * dword, Type::UD, Region::new(0, 1, 0));
        let m = Operand::imm(Type::UD, mask);
        e.push(Opcode::And, no_mask(ctl, 1), d, &[g0, m], None);
    }
    true
}

#[cfg(test)]
mod tests {
    use super::super::expand;
    use super::super::test_util::{opcodes, parse};
    use eubatch_ir::Opcode::*;

    #[test]
    fn the_header_is_a_move_and_two_ands() {
        let mut s = parse(
            "skl",
            8,
            "FS",
            "    scratch_header(8) g5<8,8,1>:UD NoMask\n",
        );
        expand(&mut s).unwrap();
        assert_eq!(opcodes(&s), [Mov, And, And]);
    }
}
