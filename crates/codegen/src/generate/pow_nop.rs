//! The gen8–9 NOP after `math pow` (brw_fs_generator.cpp `generate_code`, before each
//! instruction): when the last instruction encoded is a POW and the next IR instruction's
//! destination spans more than one register (`inst->dst.component_size(inst->exec_size) >
//! REG_SIZE`), a `nop` goes between them ([`rules::nop_after_pow`]). Mesa's listing
//! header counts these NOPs, its `instructions` statistic does not (`nop_count`). The rule
//! looks at the order instructions are encoded in, so a schedule other than Mesa's gives
//! other NOPs.

use eubatch_ir::{Control, Inst, Opcode, Operand, Type};

use super::{component_size, encodes_nothing, rules, Emit};

/// Whether the last instruction encoded so far is a POW.
#[derive(Default)]
pub(super) struct Tracker {
    last_is_pow: bool,
}

impl Tracker {
    /// Before IR instruction `inst` is expanded: the NOP, if the rule asks for one.
    pub fn before(&mut self, e: &mut Emit<'_>, inst: Inst) {
        let s = &*e.shader;
        if !self.last_is_pow || !rules::nop_after_pow(s.target) {
            return;
        }
        let exec = s.insts.control[inst].exec_size as u32;
        if component_size(&s.insts.dst[inst], exec) > s.reg_size() {
            e.push(
                Opcode::Nop,
                Control::new(1),
                Operand::bad(Type::UD),
                &[],
                None,
            );
            self.last_is_pow = false;
        }
    }

    /// After an IR instruction was expanded into `e.out[start..]`.
    pub fn after(&mut self, e: &Emit<'_>, start: usize) {
        let ops = &e.shader.insts.opcode;
        if let Some(&last) = e.out[start..]
            .iter()
            .rev()
            .find(|&&i| !encodes_nothing(ops[i]))
        {
            self.last_is_pow = ops[last] == Opcode::Pow;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{opcodes, parse};
    use super::super::{encoded_instruction_count, expand, final_instruction_count};
    use eubatch_ir::Opcode::*;

    const BODY: &str = "    pow(8) g3<8,8,1>:F, g2<8,8,1>:F, g4<8,8,1>:F\n    undef(16) g10<8,8,1>:UD NoMask\n    mov(16) g6<8,8,1>:F, g2<8,8,1>:F\n    pow(8) g3<8,8,1>:F, g2<8,8,1>:F, g4<8,8,1>:F\n    mov(8) g8<8,8,1>:F, g2<8,8,1>:F\n";

    #[test]
    fn a_pow_then_a_two_register_destination_gets_a_nop_on_gen9() {
        let mut s = parse("skl", 16, "FS", BODY);
        expand(&mut s).unwrap();
        // The undef is skipped, not an instruction between them; a one-register
        // destination after the second POW needs none.
        assert_eq!(opcodes(&s), [Pow, Nop, Mov, Pow, Mov]);
        assert_eq!(encoded_instruction_count(&s), 5);
        assert_eq!(final_instruction_count(&s), 4);
    }

    #[test]
    fn no_nop_on_gen7_or_gen11() {
        for target in ["hsw", "icl"] {
            let mut s = parse(target, 16, "FS", BODY);
            expand(&mut s).unwrap();
            assert_eq!(opcodes(&s), [Pow, Mov, Pow, Mov], "{target}");
        }
    }
}
