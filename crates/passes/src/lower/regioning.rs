//! Destination regions the hardware cannot write: a conversion to a narrower type writes
//! its elements as far apart as the execution type's (`mov d:F, x:DF` writes every other
//! dword, `mov d:HF, x:F` every other word). Such an instruction writes a temporary of
//! that stride instead, and a raw integer move packs the temporary into the destination
//! (Mesa: brw_fs_lower_regioning.cpp `lower_dst_region`):
//!
//! ```text
//! mov(8) tmp<2>:F, x:DF
//! mov(8) d:UD, tmp<2>:UD
//! ```
//!
//! The rule is the target's ([`eubatch_ir::region_rules::dst_breaks`]). A predicated
//! instruction (other than `sel`, which writes every channel) first copies the old
//! destination into the temporary, so that the channels it leaves keep their values. The
//! saturate and conditional modifier stay on the instruction: they apply to the converted
//! value, which the raw move copies bit for bit.
//!
//! Rules that limit it: the destination is a VGRF whose type is at most 4 bytes (the raw
//! move copies it in one integer type of its size).

use eubatch_ir::shader::Predicate;
use eubatch_ir::{Builder, Inst, Opcode, Operand, RegFile, Shader, Type, VgrfLayout};

use crate::analysis::changed::Changed;
use crate::PassCx;

/// Scalar code: operands read as Align1 regions.
pub const SCOPE: crate::manager::Scope = crate::manager::Scope::SCALAR;

pub fn run(shader: &mut Shader, cx: &mut PassCx) -> Changed {
    // It runs once per pipeline: whatever it changed, every analysis is dropped.
    Changed::when(lower_all(shader, cx), Changed::EVERYTHING)
}

fn lower_all(shader: &mut Shader, _cx: &mut PassCx) -> bool {
    super::replace_all(shader, |shader, inst| {
        let (before, after) = lower(shader, inst)?;
        Some(before.into_iter().chain([inst]).chain(after).collect())
    })
}

fn raw_type(size: u32) -> Option<Type> {
    match size {
        1 => Some(Type::UB),
        2 => Some(Type::UW),
        4 => Some(Type::UD),
        _ => None,
    }
}

/// The moves before and after `inst` once it writes a temporary of the required stride.
fn lower(shader: &mut Shader, inst: Inst) -> Option<(Vec<Inst>, Vec<Inst>)> {
    eubatch_ir::region_rules::dst_breaks(shader, inst)?;
    let ctl = shader.insts.control[inst];
    let dst = shader.insts.dst[inst];
    let raw = raw_type(dst.ty.size())?;
    let exec = ctl.exec_size as u32;
    let required = eubatch_ir::region_rules::exec_type_size(shader.srcs(inst), &dst);
    let stride = required / dst.ty.size();
    if dst.file != RegFile::Vgrf || stride * dst.ty.size() != required {
        return None;
    }
    let bytes = exec * required;
    let tmp_nr = shader.vgrfs.push(VgrfLayout::flat(bytes)).index() as u32;
    let tmp = Operand::vgrf(tmp_nr, 0, dst.ty, stride as u8);
    // The moves run in the instruction's channels, unpredicated.
    let plain = Builder::channels_of(ctl);
    let as_raw = |o: Operand| Operand { ty: raw, ..o };
    let mov = |shader: &mut Shader, to: Operand, from: Operand| plain.mov(shader, to, from);
    let mut before = Vec::new();
    if ctl.predicate != Predicate::None && shader.insts.opcode[inst] != Opcode::Sel {
        before.push(mov(shader, as_raw(tmp), as_raw(dst)));
    }
    shader.insts.dst[inst] = tmp;
    shader.insts.size_written[inst] = tmp.footprint(exec);
    let after = vec![mov(shader, as_raw(dst), as_raw(tmp))];
    Some((before, after))
}
