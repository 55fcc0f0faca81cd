//! The final `halt` (brw_fs_generator.cpp `fs_generator::patch_halt_jumps`, called at
//! SHADER_OPCODE_HALT_TARGET): when the program halted any channel (a `discard`), gen6+
//! emits an unconditional `halt` right where the halts jump to, since "by the end of the
//! program, every channel must have HALTed to that UIP". Without halts the target emits
//! nothing. The `halt_target` marker stays after it (encoding nothing), where the reader of
//! Mesa's listings puts it too.

use eubatch_ir::shader::{CondMod, Predicate};
use eubatch_ir::{Control, Inst, Opcode, Operand, Shader, Type};

use super::Emit;

/// Whether the shader has a `halt` (one before its `halt_target`: there is one target, at
/// the end of the program).
pub(super) fn has_halts(shader: &Shader) -> bool {
    shader
        .layout
        .insts()
        .any(|i| shader.insts.opcode[i] == Opcode::Halt)
}

/// Emits the final `halt` (with `halt_target`'s execution size, channel group and mask
/// control, unpredicated) when `halts`, then keeps the target.
pub(super) fn expand(e: &mut Emit<'_>, target: Inst, halts: bool) {
    if halts {
        let c = e.shader.insts.control[target];
        let control = Control {
            predicate: Predicate::None,
            cmod: CondMod::None,
            flags: c.flags & Control::NO_MASK,
            ..c
        };
        e.push(Opcode::Halt, control, Operand::bad(Type::UD), &[], None);
    }
    e.keep(target);
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{opcodes, parse};
    use super::super::{expand, final_instruction_count};
    use eubatch_ir::Opcode::*;

    #[test]
    fn a_shader_that_halts_gets_a_final_halt_before_its_target() {
        let mut s = parse(
            "skl",
            8,
            "FS",
            "    cmp.nz.f0.0(8) null<8,8,1>:F, g2<8,8,1>:F, 0f\n    (-f0.0) halt(8) (null):UD\nblock1:\n    mov(8) g3<8,8,1>:F, g2<8,8,1>:F\n    halt_target(8) (null):UD\n    mov(8) g4<8,8,1>:F, g3<8,8,1>:F\n",
        );
        expand(&mut s).unwrap();
        assert_eq!(opcodes(&s), [Cmp, Halt, Mov, Halt, HaltTarget, Mov]);
        assert_eq!(final_instruction_count(&s), 5);
    }

    #[test]
    fn without_halts_the_target_emits_nothing() {
        let mut s = parse(
            "skl",
            8,
            "FS",
            "    mov(8) g3<8,8,1>:F, g2<8,8,1>:F\n    halt_target(8) (null):UD\n",
        );
        expand(&mut s).unwrap();
        assert_eq!(opcodes(&s), [Mov, HaltTarget]);
        assert_eq!(final_instruction_count(&s), 1);
    }
}
