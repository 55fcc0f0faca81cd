//! `barrier` (brw_fs_generator.cpp `generate_barrier`, brw_eu_emit.c `brw_barrier`): the
//! message to the gateway — one NoMask `send null:UW, src` of mlen 1, no response, the
//! barrier sub-function (`BRW_MESSAGE_GATEWAY_SFID_BARRIER_MSG`, 4) — then the wait for
//! the other threads: `wait(1) n0` before gen12, `sync.bar` from gen12
//! ([`rules::barrier_wait`]).

use eubatch_ir::message::{message_desc, sfid};
use eubatch_ir::operand::arf;
use eubatch_ir::shader::SendInfo;
use eubatch_ir::{Control, Inst, Opcode, Operand, RegFile, Region, Type};

use super::{no_mask, rules, Emit};

/// `BRW_MESSAGE_GATEWAY_SFID_BARRIER_MSG` (brw_eu_defines.h), descriptor bits 2:0.
const BARRIER_MSG: u32 = 4;

pub(super) fn expand(e: &mut Emit<'_>, inst: Inst) -> bool {
    let (mut ctl, gen) = (e.shader.insts.control[inst], e.shader.target);
    let Some(&src) = e.shader.srcs(inst).last() else {
        return false;
    };
    if src.file != RegFile::FixedGrf {
        return false;
    }
    ctl.set(Control::NO_MASK, true);
    let info = SendInfo {
        mlen: 1,
        sfid: sfid::GATEWAY,
        desc: message_desc(1, 0, false) | BARRIER_MSG,
        ..SendInfo::default()
    };
    super::messages::send(e, Opcode::Send, ctl, super::messages::null_uw(), src, info);
    let wait = rules::barrier_wait(gen);
    let dst = if wait == Opcode::Wait {
        Operand::arf(arf::NOTIFICATION_COUNT, 0, Type::UD, Region::new(1, 1, 1))
    } else {
        Operand::bad(Type::UD)
    };
    e.push(wait, no_mask(ctl, 1), dst, &[], None);
    true
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{opcodes, parse};
    use super::super::{expand, final_instruction_count};
    use eubatch_ir::Opcode::*;

    #[test]
    fn a_barrier_is_its_message_and_a_wait() {
        let mut s = parse(
            "skl",
            16,
            "CS",
            "    barrier(16) (null):UD, g5<8,8,1>:UD NoMask\n",
        );
        expand(&mut s).unwrap();
        assert_eq!(opcodes(&s), [Send, Wait]);
        assert_eq!(final_instruction_count(&s), 2);
    }
}
