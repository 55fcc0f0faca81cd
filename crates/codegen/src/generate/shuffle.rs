//! `shuffle` (brw_fs_generator.cpp `generate_shuffle`): each channel reads the channel of
//! `src` its index names. In pieces of [`rules::shuffle_width`] channels (the address
//! register's size): for a uniform source or an immediate index one `mov` per piece;
//! otherwise, per piece, VxH indirect addressing: `mov a0<1>:UW start` (the whole address
//! register made valid, NoMask), `shl a0, index, log2(element bytes)` (a dword index read
//! as words with stride 2), `add a0, a0, start`, and `mov dst, g[a0]<VxH,1,0>`. Types
//! become the unsigned integer of the same size.

use eubatch_ir::text::imm::replicate16;
use eubatch_ir::{Control, Inst, Opcode, Operand, RegFile, Region, Type};

use super::{
    address_dst, byte_of, byte_offset, indirect_vxh, retype, rules, unsigned_of_size, with_region,
    Emit,
};

pub(super) fn expand(e: &mut Emit<'_>, inst: Inst) -> bool {
    let s = &*e.shader;
    let Some((ctl, dst, src, idx)) = super::indexed(s, inst) else {
        return false;
    };
    if idx.file != RegFile::Imm && (idx.file != RegFile::FixedGrf || idx.ty.size() > 4) {
        return false;
    }
    let reg_size = e.reg_size();
    let exec = ctl.exec_size as u32;
    let size = src.ty.size();
    let ty = unsigned_of_size(size);
    let (src, dst) = (retype(src, ty), retype(dst, ty));
    let lower = rules::shuffle_width(s.target, size.max(dst.ty.size()), exec);
    let uw = |v: u32| Operand::imm(Type::UW, replicate16(v as u16));
    let dst_h = dst.region.hstride.max(1) as u32;
    let mut group = 0;
    while group < exec {
        let mut c = ctl;
        c.exec_size = lower as u8;
        c.group = group as u8;
        let w = (lower as u8).min(8);
        let group_dst = with_region(
            byte_offset(dst, group * dst_h * size, reg_size),
            Region::new(w * dst_h as u8, w, dst_h as u8),
        );
        let uniform = src.region.vstride == 0 && src.region.hstride == 0;
        if uniform || idx.file == RegFile::Imm {
            let i = if idx.file == RegFile::Imm {
                idx.imm_bits() as u32
            } else {
                0
            };
            let from = with_region(byte_offset(src, i * size, reg_size), Region::new(0, 1, 0));
            e.push(Opcode::Mov, c, group_dst, &[from], None);
        } else {
            let mut gi = byte_offset(idx, group * idx.ty.size(), reg_size);
            if idx.ty.size() == 4 {
                let r = gi.region;
                gi = with_region(
                    retype(gi, Type::W),
                    Region::new(r.vstride.saturating_mul(2), r.width.min(w), r.hstride * 2),
                );
            }
            let start = byte_of(&src, reg_size);
            let h = src.region.hstride.max(1) as u32;
            let shift = (size * h).trailing_zeros();
            let mut init = Control::new(lower as u8);
            init.group = group as u8;
            init.set(Control::NO_MASK, true);
            let a0 = address_dst(0, Type::UW, lower as u8);
            e.push(Opcode::Mov, init, a0, &[uw(start)], None);
            e.push(Opcode::Shl, c, a0, &[gi, uw(shift)], None);
            let a0_src = with_region(a0, Region::new(8, 8, 1));
            e.push(Opcode::Add, c, a0, &[a0_src, uw(start)], None);
            e.push(Opcode::Mov, c, group_dst, &[indirect_vxh(ty)], None);
        }
        group += lower;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::super::expand;
    use super::super::test_util::{opcodes, parse};
    use eubatch_ir::Opcode::*;

    #[test]
    fn a_register_index_is_four_instructions_per_piece() {
        // SIMD16 words on gen9: one piece of 16 (Mesa's listing: mov a0, shl a0, add a0,
        // mov g[a0]<VxH,1,0>).
        let mut s = parse(
            "skl",
            16,
            "CS",
            "    shuffle(16) g76<8,8,1>:W, g20<8,8,1>:W, g66<8,8,1>:D\n",
        );
        expand(&mut s).unwrap();
        assert_eq!(opcodes(&s), [Mov, Shl, Add, Mov]);
        // On gen7, pieces of eight.
        let mut s = parse(
            "hsw",
            16,
            "CS",
            "    shuffle(16) g76<8,8,1>:D, g20<8,8,1>:D, g66<8,8,1>:D\n",
        );
        expand(&mut s).unwrap();
        assert_eq!(opcodes(&s), [Mov, Shl, Add, Mov, Mov, Shl, Add, Mov]);
    }

    #[test]
    fn an_immediate_index_is_one_move_per_piece() {
        let mut s = parse(
            "skl",
            16,
            "CS",
            "    shuffle(16) g76<8,8,1>:D, g20<8,8,1>:D, 3u\n",
        );
        expand(&mut s).unwrap();
        assert_eq!(opcodes(&s), [Mov]);
    }
}
