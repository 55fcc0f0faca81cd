//! Plain ALU instructions: every opcode without a family of its own (`mov`, `add`, `mul`,
//! `mad`, `cmp`, `sel`, `mach`, ...). Each enabled channel's sources are read with their
//! modifiers and evaluated by [`crate::alu::eval`], the definitions constant folding
//! shares; all channels are read before any is written, since a source may overlap the
//! destination. What `eval` cannot know is handled here: `cmp`'s all-ones result,
//! predicated `sel`, and the accumulator that `mach` and pre-gen8 dword multiplies use.

use eubatch_ir::operand::arf::ACCUMULATOR;
use eubatch_ir::shader::{CondMod, Predicate};
use eubatch_ir::{Mods, Opcode, Operand, RegFile, Type};

use super::{compare_with_zero, Step};
use crate::alu::{compare, eval};
use crate::state::Thread;
use crate::value::{decode, encode, Value};
use crate::SimError;

/// Executes a plain ALU instruction. One with too few sources is malformed (the verifier
/// refuses it too).
pub(super) fn execute(s: &Step, t: &mut Thread) -> Result<bool, SimError> {
    if let Some(n) = s.op.alu_arity() {
        if s.srcs.len() < n {
            return Err(s.fail(format!(
                "`{}` with {} sources ({n} expected)",
                s.op.name(),
                s.srcs.len()
            )));
        }
    }
    let tys: Vec<Type> = s.srcs.iter().map(|o| o.ty).collect();
    // A predicated `sel` runs in every enabled channel: its predicate picks the source.
    let is_sel_pred = s.op == Opcode::Sel && s.ctl.predicate != Predicate::None;
    // An integer written to the accumulator keeps its exact value for `mach`.
    let to_acc = s.dst.file == RegFile::Arf && s.dst.nr == ACCUMULATOR;
    // (channel, bits, flag, computed from defined sources only)
    let mut results: Vec<(u32, u64, Option<bool>, bool)> = Vec::with_capacity(s.exec as usize);
    let mut vals: Vec<Value> = Vec::with_capacity(s.srcs.len());
    let negate_is_not = s.op.is_logic() && s.shader.target.target().logic_negate_is_not;
    for i in s.channels(s.enabled) {
        let p = s.pred & (1 << (s.group + i)) != 0;
        if !is_sel_pred && !p {
            continue;
        }
        vals.clear();
        let poison = t.poison_reads;
        for src in s.srcs.iter().filter(|o| !o.is_bad()) {
            let bits = s.read(t, src, i)?;
            vals.push(if negate_is_not && src.mods.negate() {
                not_modifier(src, bits)?
            } else {
                with_modifiers(src, decode(src.ty, bits))
            });
        }
        let (bits, flag) = if s.op == Opcode::Cmp {
            compare_result(s, &vals)
        } else if is_sel_pred {
            let v = if p { vals[0] } else { vals[1] };
            (encode(s.dst.ty, v, s.ctl.saturate()), None)
        } else {
            let v = arithmetic_value(s, t, &vals, &tys, i, to_acc)?;
            arithmetic_result(s, t, v, i, to_acc)
        };
        // A value computed from undefined bytes is undefined itself: any value may stand
        // for it (Mesa may compute something else there, and that is no miscompile).
        results.push((i, bits, flag, t.poison_reads == poison));
    }
    for (i, bits, flag, defined) in results {
        t.write_copy(&s.dst, i, bits, defined)
            .map_err(|e| e.with_inst(s.inst))?;
        if let Some(f) = flag {
            t.set_flag(s.ctl.flag_subreg, s.group + i, f);
        }
    }
    Ok(false)
}

/// Source `src` (read as `bits`) of a logic instruction with a negate modifier where that
/// is a bitwise not (gen8+: [`eubatch_ir::target::Target::logic_negate_is_not`]); an
/// absolute value there is not modelled.
fn not_modifier(src: &Operand, bits: u64) -> Result<Value, SimError> {
    if src.mods.abs() {
        return Err(SimError::msg(
            "an absolute-value modifier on a logic instruction (gen8+) is not modelled",
        ));
    }
    Ok(decode(src.ty, !bits))
}

/// Value `v` of source `src` with the source's modifiers applied.
fn with_modifiers(src: &Operand, mut v: Value) -> Value {
    if src.mods.abs() {
        v = match v {
            Value::Int(x) => Value::Int(x.abs()),
            Value::Float(f) => Value::Float(f.abs()),
        };
    }
    if src.mods.negate() {
        v = match v {
            Value::Int(x) => Value::Int(-x),
            Value::Float(f) => Value::Float(-f),
        };
    }
    if src.mods != Mods::NONE && !src.ty.is_float() {
        // An integer modifier works in the source's own width (two's complement): `-x:UD`
        // is 2^32 - x, as a `mov` of it would write.
        v = decode(src.ty, encode(src.ty, v, false));
    }
    v
}

/// `cmp`: all ones of the destination's size where the comparison holds, zero elsewhere,
/// and the comparison as the flag.
fn compare_result(s: &Step, vals: &[Value]) -> (u64, Option<bool>) {
    let r = compare(s.ctl.cmod, vals[0], vals[1]);
    let ones = match s.dst.ty.size() {
        1 => 0xff,
        2 => 0xffff,
        4 => 0xffff_ffff,
        _ => u64::MAX,
    };
    (if r { ones } else { 0 }, Some(r))
}

/// What any other ALU instruction writes in channel `i` for the value `v` it computed:
/// the destination's bits, and the flag its conditional modifier sets (`sel` and `csel`
/// use theirs to choose, not to set a flag). An integer written to the accumulator also
/// keeps its exact value there (`to_acc`).
fn arithmetic_result(
    s: &Step,
    t: &mut Thread,
    v: Value,
    i: u32,
    to_acc: bool,
) -> (u64, Option<bool>) {
    if to_acc && !s.dst.ty.is_float() {
        let e = (s.dst.offset / s.dst.ty.size()) as usize + i as usize;
        if let (Some(slot), Value::Int(x)) = (t.acc_exact.get_mut(e), v) {
            *slot = x;
        }
    }
    let bits = encode(s.dst.ty, v, s.ctl.saturate());
    let flag = (s.ctl.cmod != CondMod::None && !matches!(s.op, Opcode::Sel | Opcode::Csel))
        .then(|| compare_with_zero(s.ctl.cmod, s.dst.ty, bits));
    (bits, flag)
}

/// The value an ALU instruction computes in channel `i`, before it is converted to the
/// destination's type.
fn arithmetic_value(
    s: &Step,
    t: &Thread,
    vals: &[Value],
    tys: &[Type],
    i: u32,
    to_acc: bool,
) -> Result<Value, SimError> {
    if s.op == Opcode::Mach {
        // dst = (acc + src0 * (src1's high word) << 16) >> 32: with the low word's product
        // in acc (`mul acc0, a, b<2>:UW`), the high dword of a * b.
        let acc = t
            .acc_exact
            .get(i as usize)
            .copied()
            .ok_or_else(|| s.fail("mach wider than the accumulator (16 elements)"))?;
        let (a, b) = (vals[0].as_i128(), vals[1].as_i128());
        return Ok(Value::Int((acc + ((a * (b >> 16)) << 16)) >> 32));
    }
    if s.op == Opcode::Mul
        && to_acc
        && !s.shader.target.target().has_integer_dword_mul
        && tys.iter().all(|ty| matches!(ty, Type::D | Type::UD))
    {
        // Before gen8 a dword multiply reads only the low word of its second source
        // (`Target::has_integer_dword_mul`): Mesa's MULH on gen7 is `mul acc0:D, a:D, b:D`
        // and relies on it.
        return Ok(Value::Int(vals[0].as_i128() * (vals[1].as_i128() & 0xffff)));
    }
    eval(s.op, s.ctl.cmod, vals, tys).map_err(|m| s.fail(m))
}
