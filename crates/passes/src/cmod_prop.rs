//! Conditional-modifier propagation: `cmp.<c>.fN null, X, 0` (or `mov.<c>.fN null, X`)
//! right after the instruction that computed X becomes that instruction's own conditional
//! modifier, and the comparison goes: the hardware compares every result with zero
//! when asked. (Mesa: brw_fs_cmod_propagation.cpp.)
//!
//! A test for non-zero of a comparison's own result, with the flag that comparison already
//! set, goes too, and so does a test repeated with nothing in between writing its value or
//! the flag (instructions that only read the flag may be in between). Those two also work
//! on a scalar read of X (`X<0>`) where every channel of X's definition is equal, and when
//! the earlier flag write was NoMask and the later one is not (it covers the channels).
//!
//! Rules that limit it: X is the whole destination of an earlier instruction in the same
//! block, of the comparison's type, with no source modifier in the comparison; that
//! instruction is a plain ALU one or an interpolation that takes a conditional modifier
//! (not `sel`, `csel`, math-box functions, or one already with one), not predicated or saturated, in the same
//! channels (execution size, group, NoMask); nothing in between writes X or touches the
//! flag. Zero and non-zero tests carry over between integer types of one size, and a
//! comparison's result (all ones or zero) tested for non-zero as an integer of its size —
//! or as either 32-bit half of a 64-bit result — is the comparison's own flag whatever type
//! it was written as.

use eubatch_ir::shader::{CondMod, Predicate};
use eubatch_ir::{Inst, Opcode, RegFile, Shader};

use crate::analysis::access::{for_each_def_run, for_each_use_run, SLOT};
use crate::analysis::changed::Changed;
use crate::PassCx;

/// The compared value of a comparison with zero whose result only goes to the flag.
fn compare_with_zero(shader: &Shader, inst: Inst) -> Option<eubatch_ir::Operand> {
    let op = shader.insts.opcode[inst];
    let ctl = shader.insts.control[inst];
    let dst = shader.insts.dst[inst];
    if ctl.cmod == CondMod::None
        || ctl.predicate != Predicate::None
        || ctl.saturate()
        || !dst.is_null()
    {
        return None;
    }
    let srcs = shader.srcs(inst);
    let x = match (op, srcs) {
        (Opcode::Cmp, [x, z]) if z.file == RegFile::Imm && z.imm_bits() == 0 && z.ty == x.ty => *x,
        // A move between integer types of one size tests the same bits for zero.
        (Opcode::Mov, [x])
            if x.ty == dst.ty
                || (x.ty.size() == dst.ty.size()
                    && !x.ty.is_float()
                    && !dst.ty.is_float()
                    && matches!(ctl.cmod, CondMod::Z | CondMod::Nz)) =>
        {
            *x
        }
        _ => return None,
    };
    (x.file == RegFile::Vgrf && x.mods == eubatch_ir::Mods::NONE && x.stride <= 2).then_some(x)
}

/// Whether every channel of `inst` computes the same value: all its sources are scalars
/// (immediates or `<0>` regions).
fn uniform_sources(shader: &Shader, inst: Inst) -> bool {
    shader
        .srcs(inst)
        .iter()
        .all(|s| s.file == RegFile::Imm || s.stride == 0)
}

fn takes_cmod(op: Opcode) -> bool {
    use Opcode::*;
    // Interpolation is a `pln`, which takes one (Mesa's cmod propagation gives it to
    // `linterp`).
    matches!(op, Linterp | Pln)
        || op.alu_arity().is_some()
            && !matches!(
                op,
                Sel | Csel
                    | Rcp
                    | Rsq
                    | Sqrt
                    | Exp2
                    | Log2
                    | Sin
                    | Cos
                    | Pow
                    | IntQuot
                    | IntRem
                    | Mac
                    | Mach
                    | Addc
                    | Subb
            )
}

/// `x` negated: a float immediate with its sign flipped (both halves of a replicated
/// half-float), a register operand with its negate modifier flipped (not under `abs`).
fn negated(x: eubatch_ir::Operand) -> Option<eubatch_ir::Operand> {
    use eubatch_ir::Type;
    let mut n = x;
    if x.file == RegFile::Imm {
        let flip = match x.ty {
            Type::F => 0x8000_0000u64,
            Type::HF => 0x8000_8000u64,
            Type::DF => 1u64 << 63,
            _ => return None,
        };
        n = eubatch_ir::Operand::imm(x.ty, x.imm_bits() ^ flip);
    } else {
        if x.mods.abs() {
            return None;
        }
        n.mods = eubatch_ir::Mods(x.mods.0 ^ eubatch_ir::Mods::NEGATE);
    }
    Some(n)
}

/// The test `c` of `a` against `b` as a test of `b - a` against zero.
fn swapped(c: CondMod) -> CondMod {
    match c {
        CondMod::G => CondMod::L,
        CondMod::L => CondMod::G,
        CondMod::Ge => CondMod::Le,
        CondMod::Le => CondMod::Ge,
        other => other,
    }
}

/// A float `cmp.<c>.fN null, A, B` with B not zero, where an earlier `add D, A, -B` (or
/// `add D, -A, B`, the test then mirrored) in the same block computed the difference the
/// comparison tests: the add takes the conditional modifier (or already has it) and the
/// comparison goes. Returns the add and its test. (Mesa 25: `cmod_propagate_cmp_to_add` in
/// brw_opt_cmod_propagation.cpp.) The rounded difference of two finite floats is zero only
/// when they are equal and has the sign of the exact one, so `A - B <c> 0` is `A <c> B`;
/// Inf - Inf is NaN, for which only `<` and `>` agree with the comparison, so the other
/// tests need a finite immediate B (a NaN B is false either way but for `!=`, true
/// either way). Unlike Mesa's, the add is not saturated, runs in the comparison's channels
/// (execution size, group, NoMask), and nothing between writes A, B or any flag (a flag
/// read between lets only an add already setting this test through).
fn cmp_to_add(
    shader: &Shader,
    slots: &crate::analysis::access::Slots,
    flag_first: crate::analysis::access::Slot,
    insts: &[Inst],
    k: usize,
) -> Option<(Inst, CondMod)> {
    let cmp = insts[k];
    let ctl = shader.insts.control[cmp];
    let [a, b] = *shader.srcs(cmp) else {
        return None;
    };
    if shader.insts.opcode[cmp] != Opcode::Cmp
        || !shader.insts.dst[cmp].is_null()
        || ctl.predicate != Predicate::None
        || ctl.saturate()
        || !matches!(
            ctl.cmod,
            CondMod::Z | CondMod::Nz | CondMod::G | CondMod::Ge | CondMod::L | CondMod::Le
        )
        || !a.ty.is_float()
        || b.ty != a.ty
        || (b.file == RegFile::Imm && b.imm_bits() == 0)
    {
        return None;
    }
    // Only values passes can tell apart by their operands: VGRFs (checked for writes
    // below), push constants and immediates.
    let plain =
        |x: &eubatch_ir::Operand| matches!(x.file, RegFile::Vgrf | RegFile::Uniform | RegFile::Imm);
    if !plain(&a) || !plain(&b) {
        return None;
    }
    if !matches!(ctl.cmod, CondMod::L | CondMod::G) {
        if b.file != RegFile::Imm {
            return None;
        }
        let infinite = match b.ty {
            eubatch_ir::Type::F => (b.imm_bits() as u32 & 0x7fff_ffff) == 0x7f80_0000,
            eubatch_ir::Type::HF => (b.imm_bits() as u16 & 0x7fff) == 0x7c00,
            eubatch_ir::Type::DF => (b.imm_bits() & !(1u64 << 63)) == 0x7ff0u64 << 48,
            _ => true,
        };
        if infinite {
            return None;
        }
    }
    let (na, nb) = (negated(a)?, negated(b)?);
    let exec = ctl.exec_size as u32;
    // The slots of the VGRF sources: nothing between may write them.
    let span = |x: &eubatch_ir::Operand| {
        (x.file == RegFile::Vgrf).then(|| {
            let r = slots.vgrf(shader, x.nr);
            let first = r.start + x.offset / SLOT;
            (first, r.start + (x.offset + x.span(exec)).div_ceil(SLOT))
        })
    };
    let (sa, sb) = (span(&a), span(&b));
    let hits = |r: &crate::analysis::access::SlotRange| {
        [sa, sb]
            .iter()
            .flatten()
            .any(|&(f, l)| r.start < l && f < r.end)
    };
    let mut flag_read = false;
    for &prev in insts[..k].iter().rev() {
        let pctl = shader.insts.control[prev];
        if shader.insts.opcode[prev] == Opcode::Add {
            let [s0, s1] = *shader.srcs(prev) else {
                return None;
            };
            let dst = shader.insts.dst[prev];
            let cond = if (s0 == a && s1 == nb) || (s1 == a && s0 == nb) {
                Some(ctl.cmod)
            } else if (s0 == na && s1 == b) || (s1 == na && s0 == b) {
                Some(swapped(ctl.cmod))
            } else {
                None
            };
            if let Some(cond) = cond {
                let mut clobbers = false;
                for_each_def_run(shader, slots, prev, |r, _, _| clobbers |= hits(&r));
                let fits = dst.file == RegFile::Vgrf
                    && dst.stride == 1
                    && dst.ty == a.ty
                    && !clobbers
                    && pctl.predicate == Predicate::None
                    && !pctl.saturate()
                    && pctl.exec_size == ctl.exec_size
                    && pctl.group == ctl.group
                    && pctl.no_mask() == ctl.no_mask()
                    && ((pctl.cmod == CondMod::None && !flag_read)
                        || (pctl.cmod == cond && pctl.flag_subreg == ctl.flag_subreg));
                return fits.then_some((prev, cond));
            }
        }
        let mut blocks = false;
        for_each_def_run(shader, slots, prev, |r, _, _| {
            blocks |= hits(&r) || r.end > flag_first;
        });
        for_each_use_run(shader, slots, prev, |r| flag_read |= r.end > flag_first);
        if blocks {
            return None;
        }
    }
    None
}

/// Scalar code: operands read as Align1 regions.
pub const SCOPE: crate::manager::Scope = crate::manager::Scope::SCALAR;

pub fn run(shader: &mut Shader, cx: &mut PassCx) -> Changed {
    // The slot numbering of the cached accesses (dead-code elimination, next in the loop,
    // asks for the table anyway).
    let table = cx.access(shader);
    let slots = &table.slots;
    let flag_first = slots.first_flag();
    let mut progress = false;
    let mut removed = Vec::new();
    // The block's instructions as the walk found them (one buffer for the run).
    let mut insts: Vec<eubatch_ir::Inst> = Vec::with_capacity(crate::largest_block(shader));
    for b in 0..shader.layout.blocks.len() {
        let block = eubatch_ir::Block::from_usize(b);
        insts.clear();
        insts.extend_from_slice(&shader.layout.blocks[block].insts);
        for (k, &cmp) in insts.iter().enumerate() {
            if let Some((add, cond)) = cmp_to_add(shader, slots, flag_first, &insts, k) {
                let flag_subreg = shader.insts.control[cmp].flag_subreg;
                let c = &mut shader.insts.control[add];
                c.cmod = cond;
                c.flag_subreg = flag_subreg;
                removed.push(cmp);
                progress = true;
                continue;
            }
            let Some(x) = compare_with_zero(shader, cmp) else {
                continue;
            };
            let cctl = shader.insts.control[cmp];
            let exec = cctl.exec_size as u32;
            // X's slots.
            let range = slots.vgrf(shader, x.nr);
            let first = range.start + x.offset / SLOT;
            let last = range.start + (x.offset + x.span(exec)).div_ceil(SLOT);
            // Whether an instruction between reads the flag: the comparison may then still
            // be found redundant, but not moved earlier.
            let mut flag_read = false;
            for &prev in insts[..k].iter().rev() {
                let dst = shader.insts.dst[prev];
                let pctl = shader.insts.control[prev];
                // The earlier flag write covers the channels of this one (NoMask covers
                // any); the flag bits of other channels this one would not touch anyway.
                let same_channels = pctl.exec_size == cctl.exec_size
                    && pctl.group == cctl.group
                    && (pctl.no_mask() || !cctl.no_mask())
                    && pctl.predicate == Predicate::None;
                // The same test of the same value into the same flag: this one is redundant.
                if compare_with_zero(shader, prev) == Some(x)
                    && shader.insts.opcode[prev] == shader.insts.opcode[cmp]
                    && pctl.cmod == cctl.cmod
                    && pctl.flag_subreg == cctl.flag_subreg
                    && same_channels
                {
                    removed.push(cmp);
                    progress = true;
                    break;
                }
                // Zero and non-zero tests mean the same for any integer type of the size.
                let same_type = dst.ty == x.ty
                    || (dst.ty.size() == x.ty.size()
                        && !dst.ty.is_float()
                        && !x.ty.is_float()
                        && matches!(cctl.cmod, CondMod::Z | CondMod::Nz));
                // A comparison's result is all ones or zero whatever its type says: read
                // as an integer of its size, non-zero means true.
                let op = shader.insts.opcode[prev];
                let boolean_as_int = op == Opcode::Cmp
                    && dst.ty.size() == x.ty.size()
                    && !x.ty.is_float()
                    && cctl.cmod == CondMod::Nz;
                // A scalar read of X (`<0>`) tests channel 0 in every channel: the same
                // test as the definition's own only where every channel of it is equal.
                let defines_x = dst.file == RegFile::Vgrf
                    && dst.nr == x.nr
                    && dst.offset == x.offset
                    && (same_type || boolean_as_int)
                    && dst.stride == 1
                    && (x.stride == 1 || uniform_sources(shader, prev));
                // A 64-bit comparison's result read as a 32-bit half of each element
                // (`cmp.l.f0.0 d:DF, ...` then `mov.nz.f0.0 null, d<2>:UD`): both halves
                // are all ones or zero, so the test is the comparison's own flag.
                let half_of_boolean = op == Opcode::Cmp
                    && dst.file == RegFile::Vgrf
                    && dst.nr == x.nr
                    && dst.stride == 1
                    && dst.ty.size() == 8
                    && x.ty.size() == 4
                    && !x.ty.is_float()
                    && x.stride == 2
                    && (x.offset == dst.offset || x.offset == dst.offset + 4);
                // X came from a comparison (all ones or zero per channel) that set the
                // same flag: testing X, or a half of it, for non-zero sets the flag it
                // already holds.
                if (half_of_boolean || (defines_x && op == Opcode::Cmp))
                    && pctl.cmod != CondMod::None
                    && cctl.cmod == CondMod::Nz
                    && pctl.flag_subreg == cctl.flag_subreg
                    && same_channels
                {
                    removed.push(cmp);
                    progress = true;
                    break;
                }
                if defines_x {
                    // The definition already sets this flag by this test. (Not a
                    // comparison: its conditional modifier is the comparison's own test
                    // of its sources, not of its result against zero; `cmp.z` of a
                    // comparison's result is the opposite of its flag.)
                    if pctl.cmod == cctl.cmod
                        && pctl.flag_subreg == cctl.flag_subreg
                        && same_channels
                        && crate::analysis::access::writes_flag(op, pctl.cmod)
                        && !matches!(op, Opcode::Cmp | Opcode::Cmpn)
                        && dst.ty == x.ty
                    {
                        removed.push(cmp);
                        progress = true;
                        break;
                    }
                    if takes_cmod(op)
                        && x.stride == 1
                        && same_type
                        && !flag_read
                        && pctl.cmod == CondMod::None
                        && pctl.predicate == Predicate::None
                        && !pctl.saturate()
                        && pctl.exec_size == cctl.exec_size
                        && pctl.group == cctl.group
                        && pctl.no_mask() == cctl.no_mask()
                    {
                        let c = &mut shader.insts.control[prev];
                        c.cmod = cctl.cmod;
                        c.flag_subreg = cctl.flag_subreg;
                        removed.push(cmp);
                        progress = true;
                    }
                    break;
                }
                // Anything else in between must leave X and the flag alone.
                let mut blocks = false;
                for_each_def_run(shader, &slots, prev, |r, _, _| {
                    blocks |= r.start < last && first < r.end || r.end > flag_first;
                });
                for_each_use_run(shader, &slots, prev, |r| flag_read |= r.end > flag_first);
                if blocks {
                    break;
                }
            }
        }
    }
    let mut changed = Changed::when(
        progress,
        Changed::INSTRUCTION_DETAIL | Changed::INSTRUCTION_DATA_FLOW,
    );
    if !removed.is_empty() {
        let removed: hashbrown::HashSet<_> = removed.into_iter().collect();
        changed |= crate::remove_set(shader, &removed);
    }
    changed
}
