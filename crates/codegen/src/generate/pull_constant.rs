//! `uniform_pull_const_gfx7` (brw_fs_generator.cpp
//! `generate_uniform_pull_constant_load_gfx7`): a constant-cache OWord block read of
//! `exec_size` dwords, NoMask, header present, one payload register. An immediate surface
//! index is one `send`; a surface index in a register goes through the address register:
//! `and(1) a0.0, index, 0xff`, then the send with its descriptor in `a0.0`
//! (`brw_send_indirect_message`: `or(1) a0.0, a0.0, desc` and the send).

use eubatch_ir::message::{constant_cache, message_desc, sfid};
use eubatch_ir::shader::SendInfo;
use eubatch_ir::{Control, Inst, Opcode, Operand, RegFile, Region, Type};

use super::send::descriptor_to_address;
use super::{address_dst, address_src, no_mask, retype, with_region, Emit};

pub(super) fn expand(e: &mut Emit<'_>, inst: Inst) -> bool {
    let s = &*e.shader;
    let (ctl, dst) = (s.insts.control[inst], s.insts.dst[inst]);
    let srcs = s.srcs(inst);
    let (Some(&index), Some(&payload)) = (srcs.first(), srcs.get(1)) else {
        return false;
    };
    if payload.file != RegFile::FixedGrf {
        return false;
    }
    let rlen = s.insts.size_written[inst].div_ceil(s.reg_size());
    let imm_index = index.file == RegFile::Imm;
    let surface = if imm_index {
        index.imm_bits() as u32
    } else {
        0
    };
    let Some(dp) = constant_cache::block_read_desc(surface, ctl.exec_size as u32 * 4) else {
        return false;
    };
    let desc = message_desc(1, rlen, true) | dp;
    let mut send_ctl = ctl;
    send_ctl.set(Control::NO_MASK, true);
    let payload = retype(payload, Type::UD);
    let mut srcs = vec![payload];
    let mut info = SendInfo {
        mlen: 1,
        header_size: 1,
        sfid: sfid::CONSTANT_CACHE,
        desc,
        ..SendInfo::default()
    };
    if !imm_index {
        let index1 = with_region(retype(index, Type::UD), Region::new(0, 1, 0));
        e.push(
            Opcode::And,
            no_mask(ctl, 1),
            address_dst(0, Type::UD, 1),
            &[index1, Operand::imm(Type::UD, 0xff)],
            None,
        );
        let a0 = descriptor_to_address(e, ctl, address_src(0, Type::UD), desc);
        srcs.push(a0);
        info.desc = 0;
    }
    let id = e.push(
        Opcode::Send,
        send_ctl,
        retype(dst, Type::UD),
        &srcs,
        Some(info),
    );
    e.shader.insts.size_written[id] = rlen * e.reg_size();
    true
}

#[cfg(test)]
mod tests {
    use super::super::expand;
    use super::super::test_util::{opcodes, parse, printed};
    use eubatch_ir::Opcode::*;

    #[test]
    fn an_immediate_surface_is_one_constant_cache_send() {
        let mut s = parse(
            "skl",
            16,
            "FS",
            "    uniform_pull_const_gfx7(16) (mlen: 1) (size: 64) g55<8,8,1>:UD, 0u, g80<8,8,1>:UD NoMask group0\n",
        );
        expand(&mut s).unwrap();
        assert_eq!(opcodes(&s), [Send]);
        // Mesa's listing: `send(16) g55<1>UD g80<0,1,0>UD 0x02280300`, `const MsgDesc`.
        let text = printed(&s);
        assert!(
            text.contains("(sfid: 9)") && text.contains("0x02280300"),
            "{text}"
        );
    }

    #[test]
    fn a_register_surface_goes_through_a0() {
        let mut s = parse(
            "skl",
            8,
            "FS",
            "    uniform_pull_const_gfx7(8) (mlen: 1) (size: 32) g55<8,8,1>:UD, g3<0,1,0>:UD, g80<8,8,1>:UD NoMask group0\n",
        );
        expand(&mut s).unwrap();
        assert_eq!(opcodes(&s), [And, Or, Send]);
    }
}
