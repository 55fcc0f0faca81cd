//! Sends with a descriptor in a register (brw_fs_generator.cpp `generate_send`; brw_eu_emit.c
//! `brw_send_indirect_message`, `brw_send_indirect_split_message`). SHADER_OPCODE_SEND's
//! sources are the descriptor, the extended descriptor and one or two payloads. A
//! descriptor in a register is ORed with the instruction's immediate part (the message
//! type and the lengths: `inst->desc | brw_message_desc(mlen, rlen, header)`) into `a0.0`
//! by an `or(1)`, and the send reads `a0.0`. A split send (`sends` before gen12: any
//! extended descriptor) whose extended descriptor is a register gets an `or(1) a0.2`,
//! and an immediate one that does not fit the instruction
//! ([`rules::ex_desc_fits_instruction`]) a `mov(1) a0.2`; both carry the SFID and EOT
//! bits. A send whose descriptor went to `a0.0` takes final code's sources (payloads,
//! then `a0.0<0,1,0>:UD`), as the reader of Mesa's listings gives them. A render target
//! write becomes `sendc`/`sendsc` (Mesa's `check_tdr`).

use eubatch_ir::{Gen, Inst, Opcode, Operand, RegFile, Type};

use super::{address_dst, address_src, no_mask, rules, with_region, Emit};

/// The `or(1) a0.0, desc, imm` before a send whose descriptor is `desc` (a scalar
/// register), and the send's source naming `a0.0`.
pub(super) fn descriptor_to_address(
    e: &mut Emit<'_>,
    of: eubatch_ir::Control,
    desc: Operand,
    imm: u32,
) -> Operand {
    let desc = with_region(
        Operand {
            ty: Type::UD,
            ..desc
        },
        eubatch_ir::Region::new(0, 1, 0),
    );
    e.push(
        Opcode::Or,
        no_mask(of, 1),
        address_dst(0, Type::UD, 1),
        &[desc, Operand::imm(Type::UD, imm as u64)],
        None,
    );
    address_src(0, Type::UD)
}

pub(super) fn expand(e: &mut Emit<'_>, inst: Inst) {
    let s = &*e.shader;
    let srcs = s.srcs(inst).to_vec();
    // Final code's sends (payloads first) are already what the hardware runs.
    let send_form = srcs.len() >= 3
        && srcs[2].file != RegFile::Arf
        && !matches!(srcs[0].file, RegFile::Arf | RegFile::Bad);
    let Some(info) = s.send_info(inst).copied().filter(|_| send_form) else {
        e.keep(inst);
        return;
    };
    let (ctl, dst, gen) = (s.insts.control[inst], s.insts.dst[inst], s.target);
    let rlen = if dst.is_null() {
        0
    } else {
        s.insts.size_written[inst] / s.reg_size()
    };
    let desc_imm = info.desc
        | eubatch_ir::message::message_desc(info.mlen as u32, rlen, info.header_size != 0);
    let ex_desc_imm = info.ex_desc | eubatch_ir::message::ex_desc(info.ex_mlen as u32);
    let (desc, ex_desc) = (srcs[0], srcs[1]);
    let ex_value = if ex_desc.file == RegFile::Imm {
        ex_desc.imm_bits() as u32
    } else {
        0
    };
    // Split sends exist from gen9 (`sends`); before, a message has no extended descriptor
    // to carry (`brw_message_ex_desc` is 0 there and Mesa never takes the split path).
    let split = rules::split_sends(gen)
        && (ex_desc.file != RegFile::Imm || ex_value != 0 || ex_desc_imm != 0);
    let desc_src =
        (desc.file != RegFile::Imm).then(|| descriptor_to_address(e, ctl, desc, desc_imm));
    if split {
        let fits = ex_desc.file == RegFile::Imm
            && rules::ex_desc_fits_instruction(gen, ex_value | ex_desc_imm);
        if !fits {
            let imm_part = ex_desc_imm | info.sfid as u32 | (ctl.eot() as u32) << 5;
            let a02 = address_dst(1, Type::UD, 1);
            if ex_desc.file == RegFile::Imm {
                let v = Operand::imm(Type::UD, (ex_value | imm_part) as u64);
                e.push(Opcode::Mov, no_mask(ctl, 1), a02, &[v], None);
            } else {
                let x = with_region(
                    Operand {
                        ty: Type::UD,
                        ..ex_desc
                    },
                    eubatch_ir::Region::new(0, 1, 0),
                );
                let v = Operand::imm(Type::UD, imm_part as u64);
                e.push(Opcode::Or, no_mask(ctl, 1), a02, &[x, v], None);
            }
        }
        if gen < Gen::Gen12 && e.shader.insts.opcode[inst] == Opcode::Send {
            e.shader.insts.opcode[inst] = Opcode::Sends;
        } else if gen < Gen::Gen12 && e.shader.insts.opcode[inst] == Opcode::Sendc {
            e.shader.insts.opcode[inst] = Opcode::Sendsc;
        }
    }
    // A render target write waits for the thread dependency (pixel order): Mesa's
    // `lower_fb_write_logical_send` sets `check_tdr`, and `generate_send` then emits
    // SENDC (SENDSC for a split send) — the pre-RA dumps print `send`.
    let rt_write = info.sfid == eubatch_ir::message::sfid::RENDER_CACHE
        && (desc_imm >> 14) & 0xf == eubatch_ir::message::render_target::WRITE;
    if rt_write {
        let op = &mut e.shader.insts.opcode[inst];
        *op = match *op {
            Opcode::Send => Opcode::Sendc,
            Opcode::Sends => Opcode::Sendsc,
            other => other,
        };
    }
    if let Some(a0) = desc_src {
        let mut finals: Vec<Operand> = srcs[2..].to_vec();
        finals.push(a0);
        e.shader.set_srcs(inst, &finals);
    }
    e.keep(inst);
}

#[cfg(test)]
mod tests {
    use super::super::expand;
    use super::super::test_util::{opcodes, parse, printed};
    use eubatch_ir::Opcode::*;

    #[test]
    fn a_register_descriptor_goes_to_a0_through_an_or() {
        let mut s = parse(
            "skl",
            8,
            "FS",
            "    send(8) (mlen: 4) (sfid: 2) (size: 128) g19<8,8,1>:F, g106<0,1,0>:UD, 0u, g19<8,8,1>:F\n",
        );
        expand(&mut s).unwrap();
        assert_eq!(opcodes(&s), [Or, Send]);
        let text = printed(&s);
        // mlen 4, rlen 4 (128 bytes), no header.
        assert!(
            text.contains("0x08400000") || text.contains("138412032u"),
            "{text}"
        );
    }

    #[test]
    fn an_immediate_descriptor_is_one_send() {
        let mut s = parse(
            "skl",
            8,
            "FS",
            "    send(8) (mlen: 1) (sfid: 2) (desc: 0x02427000) (size: 128) g19<8,8,1>:F, 0u, 0u, g2<8,8,1>:F\n",
        );
        expand(&mut s).unwrap();
        assert_eq!(opcodes(&s), [Send]);
    }
}
