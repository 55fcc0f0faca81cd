//! `barrier` (brw_fs_generator.cpp `generate_barrier`, brw_eu_emit.c `brw_barrier`): the
//! message to the gateway (one send, NoMask), then the wait for the other threads:
//! `wait(1) n0` before gen12, `sync.bar` from gen12 ([`rules::barrier_wait`]). The
//! message keeps its virtual form (the simulator models it: for the one thread it runs,
//! a barrier is a no-op); the wait follows it.

use eubatch_ir::operand::arf;
use eubatch_ir::{Inst, Opcode, Operand, Region, Type};

use super::{no_mask, rules, Emit};

pub(super) fn expand(e: &mut Emit<'_>, inst: Inst) -> bool {
    let (ctl, gen) = (e.shader.insts.control[inst], e.shader.target);
    e.keep(inst);
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
        assert_eq!(opcodes(&s), [Barrier, Wait]);
        assert_eq!(final_instruction_count(&s), 2);
    }
}
