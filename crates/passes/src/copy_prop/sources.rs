//! Propagation into ALU sources: a VGRF source read through the newest copy that can
//! replace it, immediates moved into the second source where the hardware takes them
//! (commutative sources swapped, comparisons mirrored), raw selects retyped to a modified
//! float copy, and `broadcast`'s value.

use eubatch_ir::shader::{CondMod, Predicate};
use eubatch_ir::{Inst, Opcode, Operand, RegFile, Shader};

use super::copies::*;

/// Replaces each VGRF source of `inst` that one of the copies `copies(vgrf)` (newest
/// first) covers by what the copy read, where the instruction takes it; `local(vgrf)`
/// are those of them made in the instruction's block.
pub(super) fn rewrite_sources<
    'a,
    I: IntoIterator<Item = &'a Copy>,
    J: IntoIterator<Item = &'a Copy>,
>(
    shader: &mut Shader,
    inst: Inst,
    copies: impl Fn(u32) -> I,
    local: impl Fn(u32) -> J,
) -> bool {
    let op = shader.insts.opcode[inst];
    let ctl = shader.insts.control[inst];
    let exec = ctl.exec_size as u32;
    let mut progress = false;
    let n = shader.srcs(inst).len();
    // Integer addition and multiplication into a destination of their sources' size give
    // the same low bits whether a negate wrapped before or is applied in the instruction.
    let dst_ty = shader.insts.dst[inst].ty;
    let wrapping = matches!(op, Opcode::Add | Opcode::Mul)
        && !dst_ty.is_float()
        && !ctl.saturate()
        && shader
            .srcs(inst)
            .iter()
            .all(|s| !s.ty.is_float() && s.ty.size() == dst_ty.size());
    for k in 0..n {
        let s = shader.srcs(inst)[k];
        if s.file != RegFile::Vgrf {
            continue;
        }
        let mut found = copies(s.nr)
            .into_iter()
            .find_map(|c| propagate(c, &s, exec, ctl.group as u32, ctl.no_mask(), wrapping));
        // A negated or absolute float copy into a raw select (integer-typed, choosing by
        // the flag): the select changes type to the copy's, which chooses the same bits,
        // and takes the modifier (Mesa's `can_change_types`).
        if found.is_none() && raw_select(shader, inst) {
            let retyped = copies(s.nr).into_iter().find_map(|c| {
                let modified_float = c.src.mods != eubatch_ir::Mods::NONE
                    && c.src.ty.is_float()
                    && c.src.ty.size() == s.ty.size();
                if !modified_float {
                    return None;
                }
                let read = Operand { ty: c.src.ty, ..s };
                propagate(c, &read, exec, ctl.group as u32, ctl.no_mask(), false)
                    .map(|n| (c.src.ty, n))
            });
            if let Some((ty, new)) = retyped {
                // A raw select has no immediate: every operand is a register.
                shader.insts.dst[inst].ty = ty;
                for o in shader.srcs_mut(inst) {
                    o.ty = ty;
                }
                found = Some(new);
            }
        }
        let Some(new) = found else { continue };
        if new.mods != eubatch_ir::Mods::NONE && !takes_modifiers(op) {
            continue;
        }
        // A region the instruction cannot read (a strided half-float into an Align16
        // `mad`): the copy stays (Mesa can_take_stride).
        if new.file != RegFile::Imm
            && eubatch_ir::region_rules::source_breaks(
                shader.target,
                op,
                &new,
                &shader.insts.dst[inst],
            )
            .is_some()
        {
            continue;
        }
        if new.file == RegFile::Imm && !takes_immediate(&shader.target.target(), op, k, &new) {
            // A commutative operation takes it as its other source.
            let other = shader.srcs(inst).get(1).copied();
            let swap = match op {
                _ if is_commutative(op) => Some((ctl.cmod, ctl.pred_invert())),
                // A comparison swaps its operands by mirroring its test.
                Opcode::Cmp => swapped_cmod(ctl.cmod).map(|c| (c, ctl.pred_invert())),
                // A predicated select swaps by inverting its predicate; integer min and
                // max (`sel.l`, `sel.ge`) are commutative, and float ones are too against
                // a constant that is neither zero nor NaN (of +0 and -0 they return the
                // second, and of a NaN and a number the number either way).
                // Against a zero they swap by making the test strict or not: `sel.ge c, x`
                // keeps `c` on a tie (+0 against -0 included), and so does `sel.g x, c`
                // (the test fails); `sel.l c, x` keeps `x` on one, as `sel.le x, c`
                // does. A NaN `x` gives `c` in all four, whether the hardware's `.g` and
                // `.le` return the number of a NaN and a number (as `.ge` and `.l` do)
                // or compare plainly (the test fails, and the second source is `c`). Mesa
                // swaps `sel.ge`/`sel.l` against zero as they are (brw_fs_copy_propagation
                // `try_constant_propagate`: "Only GE and L are commutative"), which can
                // change the sign of a zero result; this keeps every bit.
                Opcode::Sel => match ctl.cmod {
                    CondMod::None if ctl.predicate != Predicate::None => {
                        Some((CondMod::None, !ctl.pred_invert()))
                    }
                    CondMod::Ge | CondMod::L
                        if !shader.insts.dst[inst].ty.is_float() || nonzero_number(&new) =>
                    {
                        Some((ctl.cmod, ctl.pred_invert()))
                    }
                    CondMod::Ge if float_number(&new) => Some((CondMod::G, ctl.pred_invert())),
                    CondMod::L if float_number(&new) => Some((CondMod::Le, ctl.pred_invert())),
                    _ => None,
                },
                _ => None,
            };
            let can_swap = k == 0
                && n == 2
                && swap.is_some()
                && other.is_some_and(|o| o.file != RegFile::Imm)
                && takes_immediate(&shader.target.target(), op, 1, &new);
            if !can_swap {
                continue;
            }
            // Both sources copies of immediates (a `sel` between two constants), the
            // second's made in this block and the first's in an earlier one: the second
            // takes its own where it is, and the first stays a register — as in Mesa,
            // whose block-local pass propagates the block's constant into the second
            // source before the dataflow brings the earlier block's into the first
            // (brw_fs_copy_propagation.cpp `opt_copy_propagation`: local, then with the
            // copies live in), so that the earlier constant, often shared by many blocks,
            // stays in its one register instead of each block's constant needing one of
            // its own from `opt_combine_constants`.
            let imm_from = |copies: &mut dyn Iterator<Item = &Copy>, o: &Operand| {
                for c in copies {
                    if let Some(n) =
                        propagate(c, o, exec, ctl.group as u32, ctl.no_mask(), wrapping)
                    {
                        return n.file == RegFile::Imm;
                    }
                }
                false
            };
            let other_local = other.filter(|o| o.file == RegFile::Vgrf).is_some_and(|o| {
                imm_from(&mut local(o.nr).into_iter(), &o)
                    && takes_immediate(&shader.target.target(), op, 1, &new)
            });
            if other_local && !imm_from(&mut local(s.nr).into_iter(), &s) {
                continue;
            }
            let (cmod, invert) = swap.unwrap();
            let c = &mut shader.insts.control[inst];
            c.cmod = cmod;
            c.set(eubatch_ir::Control::PRED_INVERT, invert);
            let srcs = shader.srcs_mut(inst);
            srcs[0] = other.unwrap();
            srcs[1] = new;
            progress = true;
            continue;
        }
        if new.file == RegFile::Imm && is_three_source(op) {
            continue;
        }
        shader.srcs_mut(inst)[k] = new;
        progress = true;
    }
    progress
}

/// `broadcast dst, value, index` reads `value` in any channel and `index` as a scalar:
/// only a copy made in every channel (NoMask) of a register, without modifiers, can stand
/// in for either.
pub(super) fn rewrite_broadcast<'a, I: IntoIterator<Item = &'a Copy>>(
    shader: &mut Shader,
    inst: Inst,
    copies: impl Fn(u32) -> I,
) -> bool {
    let ctl = shader.insts.control[inst];
    let exec = ctl.exec_size as u32;
    let mut progress = false;
    for k in 0..shader.srcs(inst).len().min(2) {
        let s = shader.srcs(inst)[k];
        if s.file != RegFile::Vgrf || s.mods != eubatch_ir::Mods::NONE {
            continue;
        }
        let found = copies(s.nr).into_iter().find_map(|c| {
            propagate(c, &s, exec, ctl.group as u32, true, false)
                .filter(|n| n.file == RegFile::Vgrf && n.mods == eubatch_ir::Mods::NONE)
        });
        if let Some(new) = found {
            shader.srcs_mut(inst)[k] = new;
            progress = true;
        }
    }
    progress
}

/// A predicated `sel` without a conditional modifier or saturation whose destination and
/// register sources are all integers of one size, 32 or 64 bits, and that has no
/// immediate: it moves bits, so it may read and write them as floats of that size as well
/// (Mesa `can_change_types`: `(+f0) sel d:DF, -x:DF, x:DF` for an fp64 sign flip).
pub(super) fn raw_select(shader: &Shader, inst: Inst) -> bool {
    use eubatch_ir::Type;
    let ctl = shader.insts.control[inst];
    let size = shader.insts.dst[inst].ty.size();
    let int = |t: Type| matches!(t, Type::D | Type::UD | Type::Q | Type::UQ) && t.size() == size;
    shader.insts.opcode[inst] == Opcode::Sel
        && ctl.predicate != Predicate::None
        && ctl.cmod == CondMod::None
        && !ctl.saturate()
        && int(shader.insts.dst[inst].ty)
        && shader
            .srcs(inst)
            .iter()
            .all(|o| o.file != RegFile::Imm && int(o.ty) && o.mods == eubatch_ir::Mods::NONE)
}

/// A 32-bit float immediate that is neither ±0 nor NaN.
pub(super) fn nonzero_number(imm: &Operand) -> bool {
    float_number(imm) && imm.imm_bits() as u32 & 0x7fff_ffff != 0
}

/// A 32-bit float immediate that is not NaN.
fn float_number(imm: &Operand) -> bool {
    imm.file == RegFile::Imm
        && imm.ty == eubatch_ir::Type::F
        && !f32::from_bits(imm.imm_bits() as u32).is_nan()
}

/// Two-source operations whose sources may swap.
pub(super) fn is_commutative(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::Add | Opcode::Mul | Opcode::And | Opcode::Or | Opcode::Xor
    )
}

/// The test that compares `b` with `a` as `cmod` compares `a` with `b` (Mesa's
/// `brw_swap_cmod`); none for the unordered and overflow tests.
pub(super) fn swapped_cmod(cmod: CondMod) -> Option<CondMod> {
    match cmod {
        CondMod::Z | CondMod::Nz => Some(cmod),
        CondMod::G => Some(CondMod::L),
        CondMod::Ge => Some(CondMod::Le),
        CondMod::L => Some(CondMod::G),
        CondMod::Le => Some(CondMod::Ge),
        _ => None,
    }
}

pub(super) fn is_three_source(op: Opcode) -> bool {
    op.alu_arity() == Some(3)
}
