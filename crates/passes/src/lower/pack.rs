//! `pack` becomes moves: source `i` of `pack dst, s0, s1, ...` goes by a `mov` into the
//! `i`-th piece of each destination element — the destination read as the sources' type,
//! with a stride of the number of sources, `i` elements in (Mesa: brw_fs.cpp `lower_pack`,
//! `subscript(dst, src.type, i)`). Two 32-bit halves of a 64-bit value, two half floats of
//! a dword: the hardware has no instruction that packs, it writes strided pieces.
//!
//! Rules that limit it: the destination is a VGRF of unit stride; every source has the
//! same type, and together they fill the destination element exactly; the instruction is
//! not saturated and has no conditional modifier (it only moves bits). Anything else stays
//! as it is, and the hardware-form verifier does not accept it.

use eubatch_ir::shader::CondMod;
use eubatch_ir::{Builder, Opcode, RegFile, Shader};

use crate::analysis::changed::Changed;
use crate::PassCx;

/// Scalar code: operands read as Align1 regions.
pub const SCOPE: crate::manager::Scope = crate::manager::Scope::SCALAR;

pub fn run(shader: &mut Shader, cx: &mut PassCx) -> Changed {
    // It runs once per pipeline: whatever it changed, every analysis is dropped.
    Changed::when(lower_all(shader, cx), Changed::EVERYTHING)
}

fn lower_all(shader: &mut Shader, _cx: &mut PassCx) -> bool {
    super::replace_each(shader, Opcode::Pack, |shader, inst| {
        if !lowerable(shader, inst) {
            return None;
        }
        let ctl = shader.insts.control[inst];
        let dst = shader.insts.dst[inst];
        let srcs = shader.srcs(inst).to_vec();
        let n = srcs.len() as u32;
        let moves = srcs
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let mut piece = dst;
                piece.ty = s.ty;
                piece.stride = n as u8;
                piece.offset += i as u32 * s.ty.size();
                Builder::with_control(ctl).mov(shader, piece, *s)
            })
            .collect();
        Some(moves)
    })
}

/// Whether `inst`, a `pack`, can be moves (the rules in the module's documentation).
fn lowerable(shader: &Shader, inst: eubatch_ir::Inst) -> bool {
    let ctl = shader.insts.control[inst];
    let dst = shader.insts.dst[inst];
    let srcs = shader.srcs(inst);
    let Some(first) = srcs.first() else {
        return false;
    };
    dst.file == RegFile::Vgrf
        && dst.stride == 1
        && !ctl.saturate()
        && ctl.cmod == CondMod::None
        && srcs.iter().all(|s| !s.is_bad() && s.ty == first.ty)
        && srcs.len() as u32 * first.ty.size() == dst.ty.size()
        && srcs.len() <= 4
}
