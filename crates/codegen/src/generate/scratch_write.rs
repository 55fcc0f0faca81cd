//! `gfx4_scratch_write` before gen9 (brw_fs_generator.cpp `generate_scratch_write`,
//! brw_eu_emit.c `brw_oword_block_write_scratch`): a spill, through the message registers
//! Mesa's MRF hack keeps at the top of the register file
//! (`eubatch_regalloc::constraints::spill_mrf_first_grf`). In pieces of the instruction's
//! width (NoMask) or at most 16 channels (the SIMD32 messages only respect the first half's
//! channel enables), each: `mov` of the data after the header register, the header copied
//! from `g0` (`mov(8)`, NoMask) with the offset in OWords in its dword 2 (`mov(1)`), and
//! the data-cache OWord block write (`send`): four instructions.

use eubatch_ir::message::{message_desc, scratch, sfid};
use eubatch_ir::shader::SendInfo;
use eubatch_ir::{Control, Inst, Opcode, Operand, RegFile, Region, Type};

use super::{byte_offset, no_mask, retype, scalar_dst, with_region, Emit};

pub(super) fn expand(e: &mut Emit<'_>, inst: Inst) -> bool {
    let s = &*e.shader;
    let ctl = s.insts.control[inst];
    let srcs = s.srcs(inst);
    let (Some(&value), Some(&off)) = (srcs.first(), srcs.last()) else {
        return false;
    };
    if value.file != RegFile::FixedGrf || off.file != RegFile::Imm || srcs.len() < 2 {
        return false;
    }
    let reg_size = e.reg_size();
    let exec = ctl.exec_size as u32;
    let lower = if ctl.no_mask() { exec } else { exec.min(16) };
    let block = 4 * lower / reg_size;
    let mrf = eubatch_regalloc::constraints::spill_mrf_first_grf(s.dispatch_width as u32);
    let Some(dp) = scratch::block_desc(true, block) else {
        return false;
    };
    let offset = off.imm_bits() as u32;
    let header = Operand::fixed(mrf, 0, Type::UD, Region::new(8, 8, 1));
    for i in 0..exec / lower {
        let mut piece = ctl;
        piece.exec_size = lower as u8;
        piece.group = ctl.group + (lower * i) as u8;
        let data = retype(byte_offset(value, block * i * reg_size, reg_size), Type::UD);
        let to = Operand::fixed(mrf + 1, 0, Type::UD, Region::new(8, 8, 1));
        e.push(Opcode::Mov, piece, to, &[data], None);
        let mut copy = no_mask(piece, 8);
        copy.group = piece.group;
        let g0 = Operand::fixed(0, 0, Type::UD, Region::new(8, 8, 1));
        e.push(Opcode::Mov, copy, header, &[g0], None);
        let at = (offset + block * reg_size * i) / 16;
        let dw2 = scalar_dst(byte_offset(header, 8, reg_size));
        e.push(
            Opcode::Mov,
            no_mask(piece, 1),
            dw2,
            &[Operand::imm(Type::UD, at as u64)],
            None,
        );
        let info = SendInfo {
            mlen: (1 + block) as u8,
            header_size: 1,
            sfid: sfid::DATA_CACHE,
            desc: message_desc(1 + block, 0, true) | dp,
            ..SendInfo::default()
        };
        let null = with_region(
            Operand::arf(
                eubatch_ir::operand::arf::NULL,
                0,
                Type::UW,
                Region::new(8, 8, 1),
            ),
            Region::new(8, 8, 1),
        );
        let mut send = piece;
        send.set(Control::SATURATE, false);
        e.push(Opcode::Send, send, null, &[header], Some(info));
    }
    true
}

#[cfg(test)]
mod tests {
    use super::super::expand;
    use super::super::test_util::{opcodes, parse};
    use eubatch_ir::Opcode::*;

    #[test]
    fn a_simd8_spill_is_four_instructions_a_simd32_one_eight() {
        // Mesa's listing (bdw, SIMD8): mov(8) g127 <- data; mov(8) g126 <- g0 (WE_all);
        // mov(1) g126.2 <- offset / 16; send(8) null g126 0x040a02fd.
        let mut s = parse(
            "bdw",
            8,
            "FS",
            "    gfx4_scratch_write(8) (mlen: 2) (size: 0) null<8,8,1>:F, g31<8,8,1>:F, 1632u\n",
        );
        expand(&mut s).unwrap();
        assert_eq!(opcodes(&s), [Mov, Mov, Mov, Send]);
        let mut s = parse(
            "bdw",
            32,
            "FS",
            "    gfx4_scratch_write(32) (mlen: 2) (size: 0) null<8,8,1>:F, g31<8,8,1>:F, 1632u\n",
        );
        expand(&mut s).unwrap();
        assert_eq!(opcodes(&s).len(), 8);
    }
}
