//! Algebraic simplification and constant folding: operations on immediates only become
//! moves of the result, operations with an identity operand become moves, and moves of a
//! register onto itself go. Only identities that hold bit for bit (IEEE 754 included:
//! `x + -0.0` is `x` for every x, `x + 0.0` is not for x = -0.0; `x * 1.0` is `x`, `x * 0.0`
//! is not for NaN or infinities) — what the simulator checks. The instruction keeps its
//! saturate, conditional modifier and predicate, which act on the same result.
//! (Mesa: brw_fs.cpp `fs_visitor::opt_algebraic`.)

use eubatch_ir::{Mods, Opcode, Operand, RegFile, Shader, Type};

use crate::analysis::changed::Changed;
use crate::PassCx;

fn imm_is(op: &Operand, ty_float: f64, ty_int: i64) -> bool {
    if op.file != RegFile::Imm || op.mods != Mods::NONE {
        return false;
    }
    let bits = op.imm_bits();
    match op.ty {
        Type::F => bits as u32 == (ty_float as f32).to_bits(),
        Type::DF => bits == ty_float.to_bits(),
        Type::HF => (bits & 0xffff) as u16 == half::f16::from_f64(ty_float).to_bits(),
        Type::D | Type::UD => bits as u32 == ty_int as u32,
        Type::W | Type::UW => (bits & 0xffff) as u16 == ty_int as u16,
        Type::Q | Type::UQ => bits == ty_int as u64,
        _ => false,
    }
}

/// The bits of `op` on immediate sources, written as `ty`, if it can be folded.
fn fold(op: Opcode, srcs: &[Operand], ty: Type, ctl: eubatch_ir::Control) -> Option<u64> {
    use Opcode::*;
    let foldable = matches!(
        op,
        Add | Mul
            | And
            | Or
            | Xor
            | Not
            | Shl
            | Shr
            | Asr
            | Sel
            | Mad
            | Frc
            | Rndd
            | Rnde
            | Rndu
            | Rndz
    );
    if !foldable
        || srcs.is_empty()
        || ctl.predicate != eubatch_ir::shader::Predicate::None
        || (op == Sel && ctl.cmod == eubatch_ir::shader::CondMod::None)
        || !matches!(
            ty,
            Type::F | Type::D | Type::UD | Type::DF | Type::Q | Type::UQ
        )
        || srcs
            .iter()
            .any(|s| s.file != RegFile::Imm || s.ty.is_vector_imm() || s.ty.size() < 4)
    {
        return None;
    }
    let vals: Vec<_> = srcs
        .iter()
        .map(|s| eubatch_semantics::value::decode(s.ty, s.imm_bits()))
        .collect();
    let tys: Vec<Type> = srcs.iter().map(|s| s.ty).collect();
    let v = eubatch_semantics::alu::eval(op, ctl.cmod, &vals, &tys).ok()?;
    Some(eubatch_semantics::value::encode(ty, v, ctl.saturate()))
}

/// The one element `broadcast value, index` reads, as a scalar operand: the value itself
/// where every channel reads the same element, else the element an immediate index names.
fn broadcast_element(v: &Operand, index: &Operand) -> Option<Operand> {
    let scalar = match v.file {
        RegFile::Imm => !v.ty.is_vector_imm(),
        RegFile::Vgrf | RegFile::Uniform | RegFile::Attr => v.stride == 0,
        RegFile::FixedGrf => v.region.vstride == 0 && v.region.hstride == 0,
        _ => false,
    };
    if scalar {
        return Some(*v);
    }
    if index.file != RegFile::Imm || v.file != RegFile::Vgrf {
        return None;
    }
    let k = index.imm_bits() as u32;
    if k >= 32 {
        return None;
    }
    let mut e = *v;
    e.offset += k * v.stride as u32 * v.ty.size();
    e.stride = 0;
    Some(e)
}

/// Scalar code: operands read as Align1 regions.
pub const SCOPE: crate::manager::Scope = crate::manager::Scope::SCALAR;

pub fn run(shader: &mut Shader, _cx: &mut PassCx) -> Changed {
    let mut progress = false;
    let mut remove = Vec::new();
    // The sources of the instruction at hand, copied out (the shader is rewritten while
    // they are looked at): one buffer for the run, not one per instruction.
    let mut srcs: Vec<Operand> = Vec::new();
    for inst in shader.layout.order() {
        let op = shader.insts.opcode[inst];
        srcs.clear();
        srcs.extend_from_slice(shader.srcs(inst));
        let dst = shader.insts.dst[inst];
        let float = dst.ty.is_float();
        // Constant folding: every source an immediate, the result computed by the
        // simulator's own definition of the operation (so folding is exact by
        // construction). Math-box functions, vector immediates and 16-bit results stay.
        if let Some(bits) = fold(op, &srcs, dst.ty, shader.insts.control[inst]) {
            shader.insts.opcode[inst] = Opcode::Mov;
            let r = shader.insts.srcs[inst];
            shader.operands[r.start as usize] = Operand::imm(dst.ty, bits);
            shader.insts.srcs[inst].len = 1;
            shader.insts.control[inst].set(eubatch_ir::Control::SATURATE, false);
            progress = true;
            continue;
        }
        // The operand that the result equals, if any.
        let same = match (op, srcs.as_slice()) {
            (Opcode::Mul, [a, b]) if a.ty == dst.ty && imm_is(b, 1.0, 1) => Some(*a),
            (Opcode::Add, [a, b]) if a.ty == dst.ty && float && imm_is(b, -0.0, i64::MIN) => {
                Some(*a)
            }
            (
                Opcode::Add | Opcode::Or | Opcode::Xor | Opcode::Shl | Opcode::Shr | Opcode::Asr,
                [a, b],
            ) if !float && a.ty == dst.ty && imm_is(b, f64::NAN, 0) => Some(*a),
            (Opcode::And, [a, b]) if !float && a.ty == dst.ty && imm_is(b, f64::NAN, -1) => {
                Some(*a)
            }
            // Whatever the flag or the comparison chooses, it is the same value.
            (Opcode::Sel, [a, b]) if a == b => Some(*a),
            // A broadcast of a value every channel holds alike, or of a channel named by an
            // immediate, is a move of that one element (Mesa opt_algebraic's
            // SHADER_OPCODE_BROADCAST cases). The broadcast writes every channel (NoMask),
            // and so does the move.
            (Opcode::Broadcast, [v, index])
                if shader.insts.control[inst].no_mask()
                    && v.ty.size() == dst.ty.size()
                    && v.ty.is_float() == dst.ty.is_float()
                    && v.mods == Mods::NONE =>
            {
                broadcast_element(v, index)
            }
            _ => None,
        };
        if let Some(a) = same {
            shader.insts.opcode[inst] = Opcode::Mov;
            let r = shader.insts.srcs[inst];
            shader.operands[r.start as usize] = a;
            shader.insts.srcs[inst].len = 1;
            // A `sel` chose by the flag; the move no longer reads it.
            if op == Opcode::Sel {
                shader.insts.control[inst].predicate = eubatch_ir::shader::Predicate::None;
                shader.insts.control[inst].cmod = eubatch_ir::shader::CondMod::None;
                shader.insts.control[inst].set(eubatch_ir::Control::PRED_INVERT, false);
            }
            progress = true;
            continue;
        }
        // A move of a register onto itself.
        let ctl = shader.insts.control[inst];
        if op == Opcode::Mov
            && srcs.len() == 1
            && srcs[0] == dst
            && dst.file == RegFile::Vgrf
            && !ctl.saturate()
            && ctl.cmod == eubatch_ir::shader::CondMod::None
        {
            remove.push(inst);
            progress = true;
        }
    }
    let mut changed = Changed::when(
        progress,
        Changed::INSTRUCTION_DETAIL | Changed::INSTRUCTION_DATA_FLOW,
    );
    if !remove.is_empty() {
        let remove: hashbrown::HashSet<_> = remove.into_iter().collect();
        changed |= crate::remove_set(shader, &remove);
    }
    changed
}
