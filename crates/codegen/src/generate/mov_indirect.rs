//! `mov_indirect` (brw_fs_generator.cpp `generate_mov_indirect`): each channel reads
//! `src` at a byte offset. An immediate offset is a plain `mov` from the register it
//! lands in; a register offset uses VxH indirect addressing: from gen7 a NoMask
//! `mov a0<1>:UW start` ([`rules::mov_indirect_initialises_address`]), `add a0, offset
//! (dwords read as words with stride 2), start`, and `mov dst, g[a0]<VxH,1,0>`. A 64-bit
//! value moves as two dwords where [`rules::split_64bit_mov_indirect`] says.

use eubatch_ir::text::imm::replicate16;
use eubatch_ir::{Control, Inst, Opcode, Operand, RegFile, Region, Type};

use super::{
    address_dst, byte_of, byte_offset, indirect_vxh, retype, rules, unsigned_of_size, with_region,
    Emit,
};

pub(super) fn expand(e: &mut Emit<'_>, inst: Inst) -> bool {
    let s = &*e.shader;
    let Some((ctl, dst, src, off)) = super::indexed(s, inst) else {
        return false;
    };
    let reg_size = e.reg_size();
    let size = src.ty.size();
    let ty = unsigned_of_size(size);
    let (src, dst) = (retype(src, ty), retype(dst, ty));
    let split = size > 4 && rules::split_64bit_mov_indirect(s.target);
    if off.file == RegFile::Imm {
        let from = byte_offset(src, off.imm_bits() as u32, reg_size);
        if split {
            for k in 0..2 {
                let d = dword_half(dst, k, reg_size);
                let f = dword_half(from, k, reg_size);
                e.push(Opcode::Mov, ctl, d, &[f], None);
            }
        } else {
            e.push(Opcode::Mov, ctl, dst, &[from], None);
        }
        return true;
    }
    if off.file != RegFile::FixedGrf {
        return false;
    }
    let start = byte_of(&src, reg_size);
    let uw = |v: u32| Operand::imm(Type::UW, replicate16(v as u16));
    let a0 = address_dst(0, Type::UW, ctl.exec_size);
    if rules::mov_indirect_initialises_address(s.target) {
        let mut init = ctl;
        init.set(Control::NO_MASK, true);
        init.predicate = eubatch_ir::shader::Predicate::None;
        e.push(Opcode::Mov, init, a0, &[uw(start)], None);
    }
    let r = off.region;
    let w = ctl.exec_size.clamp(1, 8);
    let off_w = with_region(
        retype(off, Type::UW),
        Region::new(r.vstride.saturating_mul(2), r.width.min(w), r.hstride * 2),
    );
    e.push(Opcode::Add, ctl, a0, &[off_w, uw(start)], None);
    if split {
        for k in 0..2 {
            let f = Operand {
                offset: 4 * k,
                ..indirect_vxh(Type::D)
            };
            e.push(Opcode::Mov, ctl, dword_half(dst, k, reg_size), &[f], None);
        }
    } else {
        e.push(Opcode::Mov, ctl, dst, &[indirect_vxh(ty)], None);
    }
    true
}

/// Mesa's `subscript(reg, D, k)`: dword `k` of each 64-bit element.
fn dword_half(op: Operand, k: u32, reg_size: u32) -> Operand {
    let r = op.region;
    with_region(
        retype(byte_offset(op, 4 * k, reg_size), Type::D),
        Region::new(r.vstride.saturating_mul(2), r.width, r.hstride * 2),
    )
}

#[cfg(test)]
mod tests {
    use super::super::expand;
    use super::super::test_util::{opcodes, parse};
    use eubatch_ir::Opcode::*;

    #[test]
    fn a_register_offset_initialises_a0_then_adds() {
        let mut s = parse(
            "skl",
            8,
            "FS",
            "    mov_indirect(8) g10<8,8,1>:F, g20<0,1,0>:F, g30<8,8,1>:UD, 64u\n    mov_indirect(8) g11<8,8,1>:F, g20<0,1,0>:F, 8u, 64u\n",
        );
        expand(&mut s).unwrap();
        assert_eq!(opcodes(&s), [Mov, Add, Mov, Mov]);
    }
}
