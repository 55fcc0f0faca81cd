//! A 64-bit immediate beside another source goes through a register: `mov` of the
//! immediate into a temporary of the instruction's channels, and the instruction reads the
//! temporary. The hardware has no room for it there
//! ([`eubatch_ir::target::Target::WIDE_IMMEDIATE_ONLY_ALONE`]); Mesa's NIR front end never
//! puts one there (`setup_imm_df` loads 64-bit constants by `mov`, and copy propagation
//! does not propagate them), but eubatch's input may (the random shader generator does).
//!
//! Rules that limit it: scalar ALU instructions; the `mov` copies the instruction's channel
//! group without its predicate, conditional modifier or saturation (it writes a temporary
//! nobody else reads, so extra channels are harmless).

use eubatch_ir::shader::{CondMod, Predicate};
use eubatch_ir::vgrf::VgrfLayout;
use eubatch_ir::{Builder, Control, Operand, RegFile, Shader};

use crate::analysis::changed::Changed;
use crate::PassCx;

/// Scalar code: operands read as Align1 regions.
pub const SCOPE: crate::manager::Scope = crate::manager::Scope::SCALAR;

pub fn run(shader: &mut Shader, _cx: &mut PassCx) -> Changed {
    let changed = super::replace_all(shader, |shader, inst| {
        let op = shader.insts.opcode[inst];
        let is_wide = |s: &Operand| s.file == RegFile::Imm && s.ty.size() == 8;
        // (Most instructions have none: looked at in place before anything is copied.)
        if op.alu_arity().is_none() || !shader.srcs(inst).iter().any(is_wide) {
            return None;
        }
        let srcs = shader.srcs(inst).to_vec();
        let present = srcs.iter().filter(|s| !s.is_bad()).count();
        if present < 2 {
            return None;
        }
        let wide: Vec<usize> = (0..srcs.len()).filter(|&k| is_wide(&srcs[k])).collect();
        if wide.is_empty() {
            return None;
        }
        let ctl = shader.insts.control[inst];
        let copy = Control {
            predicate: Predicate::None,
            cmod: CondMod::None,
            flags: ctl.flags & !Control::SATURATE & !Control::PRED_INVERT,
            ..ctl
        };
        let mut out = Vec::with_capacity(wide.len() + 1);
        let mut new_srcs = srcs.clone();
        for k in wide {
            let imm = srcs[k];
            let bytes = ctl.exec_size as u32 * 8;
            let nr = shader.vgrfs.push(VgrfLayout::flat(bytes)).index() as u32;
            let tmp = Operand::vgrf(nr, 0, imm.ty, 1);
            out.push(Builder::with_control(copy).mov(
                shader,
                tmp,
                Operand {
                    mods: eubatch_ir::Mods::NONE,
                    ..imm
                },
            ));
            new_srcs[k] = Operand {
                mods: imm.mods,
                ..tmp
            };
        }
        shader.set_srcs(inst, &new_srcs);
        out.push(inst);
        Some(out)
    });
    Changed::when(changed, Changed::EVERYTHING)
}
