//! `broadcast` (brw_eu_emit.c `brw_broadcast`, Align1): one channel of a value, picked by
//! an index, copied to a scalar destination. A uniform source or an immediate index is one
//! `mov(1)`; a register index becomes `shl(1) a0.0` (the index scaled to bytes), an
//! `add(1) a0.0` when the source register starts at or past byte
//! [`rules::INDIRECT_IMMEDIATE_LIMIT`] (the indirect immediate is too small to reach it),
//! and `mov(1) dst, g[a0.0 offset]<0,1,0>`. Without 64-bit integers a 64-bit value moves
//! as two dwords ([`rules::split_64bit_broadcast`]). Types become the unsigned integer of
//! the same size.

use eubatch_ir::{Inst, Opcode, Operand, RegFile, Region, Type};

use super::{
    address_dst, address_src, byte_of, byte_offset, indirect_scalar, no_mask, retype, rules,
    scalar_dst, unsigned_of_size, with_region, Emit,
};

pub(super) fn expand(e: &mut Emit<'_>, inst: Inst) -> bool {
    let s = &*e.shader;
    let Some((ctl, dst, src, idx)) = super::indexed(s, inst) else {
        return false;
    };
    let reg_size = e.reg_size();
    let size = src.ty.size();
    let ty = unsigned_of_size(size);
    let split = size > 4 && rules::split_64bit_broadcast(s.target);
    let one = no_mask(ctl, 1);
    let dst = retype(dst, ty);
    // The value's move(s) from `from` (a scalar region of type `ty`).
    let moves = |e: &mut Emit<'_>, from: Operand| {
        if split {
            for k in 0..2 {
                let d = scalar_dst(retype(byte_offset(dst, 4 * k, reg_size), Type::D));
                let f = if from.file == RegFile::Indirect {
                    Operand {
                        offset: from.offset + 4 * k,
                        ..retype(from, Type::D)
                    }
                } else {
                    retype(byte_offset(from, 4 * k, reg_size), Type::D)
                };
                e.push(Opcode::Mov, one, d, &[f], None);
            }
        } else {
            e.push(Opcode::Mov, one, scalar_dst(dst), &[from], None);
        }
    };
    let uniform = src.region.vstride == 0 && src.region.hstride == 0;
    if uniform || idx.file == RegFile::Imm {
        let i = if idx.file == RegFile::Imm {
            idx.imm_bits() as u32
        } else {
            0
        };
        let from = with_region(
            retype(byte_offset(src, i * size, reg_size), ty),
            Region::new(0, 1, 0),
        );
        moves(e, from);
        return true;
    }
    let mut offset = byte_of(&src, reg_size);
    let h = src.region.hstride.max(1) as u32;
    let shift = (size * h).trailing_zeros();
    let idx1 = with_region(idx, Region::new(0, 1, 0));
    e.push(
        Opcode::Shl,
        one,
        address_dst(0, Type::UD, 1),
        &[idx1, Operand::imm(Type::UD, shift as u64)],
        None,
    );
    let limit = rules::INDIRECT_IMMEDIATE_LIMIT;
    if offset >= limit {
        e.push(
            Opcode::Add,
            one,
            address_dst(0, Type::UD, 1),
            &[
                address_src(0, Type::UD),
                Operand::imm(Type::UD, (offset - offset % limit) as u64),
            ],
            None,
        );
        offset %= limit;
    }
    moves(e, indirect_scalar(0, offset, ty));
    true
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{parse, printed};
    use super::super::{expand, final_instruction_count};

    #[test]
    fn a_register_index_goes_through_the_address_register() {
        let mut s = parse(
            "skl",
            8,
            "FS",
            "    broadcast(8) g120<8,8,1>:UD, g3<8,8,1>:UD, g115<0,1,0>:UD NoMask\n    broadcast(8) g121<8,8,1>:UD, g103<8,8,1>:UD, g115<0,1,0>:UD NoMask\n",
        );
        expand(&mut s).unwrap();
        let text = printed(&s);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 5, "{text}");
        // g3 is byte 96, below 512: shl and the indirect mov. g103 is byte 3296: the add
        // moves a0 by 3072, the immediate is the rest, 224.
        assert!(lines[0].starts_with("shl(1) a0"), "{text}");
        assert!(lines[1].contains("g[a0.0+96]"), "{text}");
        assert!(
            lines[3].starts_with("add(1) a0") && lines[3].contains("3072u"),
            "{text}"
        );
        assert!(lines[4].contains("g[a0.0+224]"), "{text}");
        assert_eq!(final_instruction_count(&s), 5);
    }

    #[test]
    fn an_immediate_index_is_one_move() {
        let mut s = parse(
            "skl",
            8,
            "FS",
            "    broadcast(8) g120<8,8,1>:F, g3<8,8,1>:F, 2u NoMask\n",
        );
        expand(&mut s).unwrap();
        let text = printed(&s);
        assert_eq!(text.lines().count(), 1, "{text}");
        assert!(
            text.starts_with("mov(1) g120") && text.contains("g3.2<0,1,0>:UD"),
            "{text}"
        );
    }
}
