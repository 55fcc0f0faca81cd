//! Saturate propagation: `mov.sat D, X` where X is read nowhere else becomes a plain move
//! and the instruction that computed X saturates instead — clamping where the value is
//! made is free on the hardware. Copy propagation and coalescing then remove the move.
//! (Mesa: brw_fs_saturate_propagation.cpp.)
//!
//! Rules that limit it: X is the whole destination of an earlier instruction in the same
//! block, a float ALU instruction (or `linterp`, a PLN) of X's type with no conditional
//! modifier (the flag would see the clamped value; a `sel`'s or `csel`'s only chooses, and
//! may stay) and no predicate (but a predicated `sel`'s, which chooses, and may be retyped
//! from an integer type of the size when its sources have no modifiers), in the same
//! channels; nothing between writes X; the move reads X without modifiers, as the same type.

use eubatch_ir::shader::{CondMod, Predicate};
use eubatch_ir::{Control, Opcode, RegFile, Shader};

use crate::analysis::changed::Changed;
use crate::PassCx;

/// Scalar code: operands read as Align1 regions.
pub const SCOPE: crate::manager::Scope = crate::manager::Scope::SCALAR;

pub fn run(shader: &mut Shader, _cx: &mut PassCx) -> Changed {
    // How many instructions read each VGRF.
    let mut reads = vec![0u32; shader.vgrfs.len()];
    for inst in shader.layout.insts() {
        for s in shader.srcs(inst) {
            if s.file == RegFile::Vgrf && (s.nr as usize) < reads.len() {
                reads[s.nr as usize] += 1;
            }
        }
    }
    let mut progress = false;
    // The block's instructions as the walk found them (one buffer for the run).
    let mut insts: Vec<eubatch_ir::Inst> = Vec::new();
    for b in 0..shader.layout.blocks.len() {
        let block = eubatch_ir::Block::from_usize(b);
        insts.clear();
        insts.extend_from_slice(&shader.layout.blocks[block].insts);
        for (k, &mov) in insts.iter().enumerate() {
            let ctl = shader.insts.control[mov];
            if shader.insts.opcode[mov] != Opcode::Mov
                || !ctl.saturate()
                || ctl.predicate != Predicate::None
                || ctl.cmod != CondMod::None
            {
                continue;
            }
            let x = shader.srcs(mov)[0];
            let dst = shader.insts.dst[mov];
            if x.file != RegFile::Vgrf
                || x.mods != eubatch_ir::Mods::NONE
                || x.stride != 1
                || x.ty != dst.ty
                || !x.ty.is_float()
                || reads[x.nr as usize] != 1
            {
                continue;
            }
            for &prev in insts[..k].iter().rev() {
                let pd = shader.insts.dst[prev];
                if pd.file == RegFile::Vgrf && pd.nr == x.nr {
                    let pctl = shader.insts.control[prev];
                    let op = shader.insts.opcode[prev];
                    // A predicated `sel` chooses one of its sources in every channel (the
                    // predicate is the choice, not a write mask); with no modifiers on its
                    // sources and one type throughout, it only moves bits, so it may be
                    // retyped to the move's float type of the same size and saturate
                    // (Mesa 25's brw_opt_saturate_propagation, `can_change_types`:
                    // unity/286's b32csel of floats typed UD, then fsat).
                    let chooses = op == Opcode::Sel && pctl.predicate != Predicate::None;
                    let retype = chooses
                        && pd.ty != x.ty
                        && pd.ty.size() == x.ty.size()
                        && pctl.cmod == CondMod::None
                        && shader.srcs(prev).iter().all(|s| {
                            s.ty == pd.ty
                                && s.mods == eubatch_ir::Mods::NONE
                                && matches!(s.file, RegFile::Vgrf | RegFile::Uniform | RegFile::Imm)
                        });
                    let ok = pd.offset == x.offset
                        && (pd.ty == x.ty || retype)
                        && !pctl.saturate()
                        && pd.stride == 1
                        && (op.alu_arity().is_some()
                            || matches!(op, Opcode::Linterp | Opcode::Pln))
                        // A select's conditional modifier picks min or max and writes
                        // no flag (PRM Vol. 2a "SEL", "CSEL"): saturating the chosen
                        // value is the move's clamp.
                        && (pctl.cmod == CondMod::None
                            || matches!(op, Opcode::Sel | Opcode::Csel))
                        && (pctl.predicate == Predicate::None || chooses)
                        && pctl.exec_size == ctl.exec_size
                        && pctl.group == ctl.group
                        && pctl.no_mask() == ctl.no_mask();
                    if ok {
                        if retype {
                            shader.insts.dst[prev].ty = x.ty;
                            for s in shader.srcs_mut(prev) {
                                s.ty = x.ty;
                            }
                        }
                        shader.insts.control[prev].set(Control::SATURATE, true);
                        shader.insts.control[mov].set(Control::SATURATE, false);
                        progress = true;
                    }
                    break;
                }
            }
        }
    }
    Changed::when(
        progress,
        Changed::INSTRUCTION_DETAIL | Changed::INSTRUCTION_DATA_FLOW,
    )
}
