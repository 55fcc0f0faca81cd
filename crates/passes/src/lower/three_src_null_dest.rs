//! A three-source instruction whose result is unused (its destination made null by DCE,
//! kept for the flag its conditional modifier writes) gets a fresh VGRF as destination:
//! before gen10 three-source instructions are Align16 and their destination is a general
//! register, with no register-file field to name the null register (PRM Vol. 2a,
//! "Three-Source Instruction Format"; Mesa: brw_fs.cpp `fs_visitor::fixup_3src_null_dest`,
//! which allocates `dispatch_width / 8` registers; `brw_alu3` asserts a GRF destination).
//!
//! Rules that limit it: none; it runs once, after the last optimization loop (which could
//! null a destination again), so that register allocation sees the temporary.

use eubatch_ir::vgrf::VgrfLayout;
use eubatch_ir::{Operand, RegFile, Shader};

use crate::analysis::changed::Changed;
use crate::PassCx;

/// Scalar code: the operands are Align1 VGRFs.
pub const SCOPE: crate::manager::Scope = crate::manager::Scope::SCALAR;

pub fn run(shader: &mut Shader, _cx: &mut PassCx) -> Changed {
    let mut changed = false;
    let regs = (shader.dispatch_width as u32 / 8).max(1);
    let bytes = regs * shader.reg_size();
    let insts: Vec<_> = shader.layout.order();
    for inst in insts {
        let op = shader.insts.opcode[inst];
        let dst = shader.insts.dst[inst];
        if op.alu_arity() != Some(3) || !dst.is_null() {
            continue;
        }
        let nr = shader.vgrfs.push(VgrfLayout::flat(bytes)).index() as u32;
        shader.insts.dst[inst] = Operand {
            file: RegFile::Vgrf,
            nr,
            offset: 0,
            stride: 1,
            ..dst
        };
        shader.insts.size_written[inst] = shader.default_size_written(inst);
        changed = true;
    }
    Changed::when(changed, Changed::EVERYTHING)
}
