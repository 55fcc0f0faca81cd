//! What a copy is (a raw move whose destination then holds its source) and how a read of
//! the destination goes through it: the region, type, modifier and immediate rules that
//! decide whether the read can take the source instead (Mesa's `try_copy_propagate` and
//! `try_constant_propagate`).

use eubatch_ir::shader::{CondMod, Predicate};
use eubatch_ir::{Inst, Opcode, Operand, RegFile, Shader};

use crate::analysis::access::{Slot, SlotRange, SLOT};
use crate::analysis::access_table::AccessTable;

/// An available copy: `dst` (a VGRF region of `len` bytes) holds `src`.
#[derive(Clone, Debug)]
pub(super) struct Copy {
    pub(super) dst: Operand,
    pub(super) len: u32,
    pub(super) src: Operand,
    /// Slots of `dst` and of `src` (when a VGRF), as two ranges: the copy dies when one
    /// is written. (A copy's destination is packed, so its slots are one run.)
    pub(super) slots: [SlotRange; 2],
    /// The channels that wrote it: the first, and whether all did (NoMask).
    pub(super) group: u32,
    pub(super) no_mask: bool,
}

pub(super) fn copy_of(shader: &Shader, table: &AccessTable, inst: Inst) -> Option<Copy> {
    let slots = &table.slots;
    let ctl = shader.insts.control[inst];
    if shader.insts.opcode[inst] != Opcode::Mov
        || ctl.predicate != Predicate::None
        || ctl.saturate()
        || ctl.cmod != CondMod::None
    {
        return None;
    }
    let dst = shader.insts.dst[inst];
    let src = *shader.srcs(inst).first()?;
    if dst.file != RegFile::Vgrf
        || dst.stride != 1
        || src.ty != dst.ty
        || (src.mods != eubatch_ir::Mods::NONE && src.file == RegFile::Imm)
        || !matches!(
            src.file,
            RegFile::Vgrf | RegFile::Uniform | RegFile::Attr | RegFile::Imm | RegFile::FixedGrf
        )
    {
        return None;
    }
    // A copy onto itself (or overlapping itself) is not a copy to propagate.
    if src.file == RegFile::Vgrf && src.nr == dst.nr {
        return None;
    }
    // A thread-payload register read whole, one element per channel (`mov d:F,
    // g4<8,8,1>:F`, a load_payload's piece of the fragment shader's payload), is a copy
    // of a value that stays where it is, as Mesa 25's copy propagation takes FIXED_GRF
    // sources: only where nothing in the shader writes a fixed register (the slot model
    // has no slots for them, so no write would undo the copy), of 32-bit elements.
    if src.file == RegFile::FixedGrf {
        let r = src.region;
        let whole = src.mods == eubatch_ir::Mods::NONE
            && src.ty.size() == 4
            && src.offset == 0
            && r.hstride == 1
            && r.width == 8
            && r.vstride == 8
            && matches!(ctl.exec_size, 8 | 16);
        if !whole
            || shader
                .layout
                .insts()
                .any(|i| shader.insts.dst[i].file == RegFile::FixedGrf)
        {
            return None;
        }
    }
    let exec = ctl.exec_size as u32;
    let len = exec * dst.ty.size();
    let mut written = table.def_runs(inst).map(|(r, _, _)| r);
    let dst_slots = match written.next() {
        Some(first) => first.start..written.last().unwrap_or(first).end,
        None => NO_SLOTS,
    };
    debug_assert_eq!(
        dst_slots.end - dst_slots.start,
        table
            .def_runs(inst)
            .map(|(r, _, _)| r.end - r.start)
            .sum::<u32>(),
        "a packed write's slots are one run"
    );
    let src_slots = if src.file == RegFile::Vgrf {
        let range = slots.vgrf(shader, src.nr);
        let span = src.span(exec);
        let from = range.start + src.offset / SLOT;
        from..(range.start + (src.offset + span).div_ceil(SLOT)).min(range.end)
    } else {
        NO_SLOTS
    };
    Some(Copy {
        dst,
        len,
        src,
        slots: [dst_slots, src_slots],
        group: ctl.group as u32,
        no_mask: ctl.no_mask(),
    })
}

/// No slots: the source slots of a copy whose source is not a VGRF.
pub(super) const NO_SLOTS: SlotRange = Slot::new(0)..Slot::new(0);

/// The source to read instead of `use_` (read by channels `group..` of an instruction that
/// is NoMask or not), if `copy` covers it. Each element must be read by the channel that
/// copied it, unless the copy wrote every channel: a channel disabled by control flow did
/// not copy, and its element still holds the old value a NoMask reader, or a reader in
/// another channel, would see (Mesa: the `force_writemask_all` check of
/// `try_copy_propagate`).
pub(super) fn propagate(
    copy: &Copy,
    use_: &Operand,
    exec: u32,
    group: u32,
    no_mask: bool,
    wrapping_reader: bool,
) -> Option<Operand> {
    let d = &copy.dst;
    if let Some(new) = half_of_scalar(copy, use_, exec, group, no_mask) {
        return Some(new);
    }
    // A raw copy (same type on both sides) can be read as any type of the same size: the
    // bits are the same (Mesa's `is_raw_move`). A 32-bit immediate moved without
    // conversion is retyped the same way: its bits are what the register held.
    let retyped = use_.ty != d.ty;
    let retypable_imm = copy.src.ty == d.ty && d.ty.size() == 4;
    if use_.file != RegFile::Vgrf
        || use_.nr != d.nr
        || use_.ty.size() != d.ty.size()
        || (retyped && copy.src.file == RegFile::Imm && !retypable_imm)
    {
        return None;
    }
    let tsize = d.ty.size();
    let span = use_.span(exec);
    if use_.offset < d.offset
        || use_.offset + span > d.offset + copy.len
        || (use_.offset - d.offset) % tsize != 0
        || !(use_.stride == 1 || use_.stride == 0)
    {
        return None;
    }
    let k = (use_.offset - d.offset) / tsize;
    // A fixed register's region is for the copy's channels: only the same read of them.
    if copy.src.file == RegFile::FixedGrf
        && (k != 0 || use_.stride != 1 || span != copy.len || no_mask != copy.no_mask)
    {
        return None;
    }
    let same_channels = !no_mask && use_.stride == 1 && copy.group + k == group;
    if !copy.no_mask && !same_channels {
        return None;
    }
    let mut new = copy.src;
    if copy.src.mods != eubatch_ir::Mods::NONE {
        // A negated or absolute copy goes only where the reader reads the copy's type
        // (the modifier means what it meant): floats, whose reader's own modifiers then
        // apply over the copy's (-|x| from |x| read negated), or integers, without
        // modifiers of their own, read by arithmetic that wraps in the copy's own size:
        // an integer negate wraps when the copy writes it, but not when a reader
        // converting to another type or comparing applies it.
        if retyped || !(copy.src.ty.is_float() || wrapping_reader) {
            return None;
        }
        if use_.mods != eubatch_ir::Mods::NONE {
            if !copy.src.ty.is_float() {
                return None;
            }
            new.mods = compose_mods(copy.src.mods, use_.mods);
        }
    } else {
        new.mods = use_.mods;
    }
    new.ty = use_.ty;
    match copy.src.file {
        RegFile::Imm => {
            if retyped {
                new = Operand::imm(use_.ty, copy.src.imm_bits() & 0xffff_ffff);
            }
            if use_.mods != eubatch_ir::Mods::NONE {
                // A float immediate read negated or absolute: the value with the sign
                // the modifiers give it (Mesa try_constant_propagate negates and takes
                // the absolute value of the immediate).
                new = fold_float_mods(new, use_.mods)?;
            }
        }
        _ if copy.src.stride == 0 => {}
        _ => {
            new.offset = copy.src.offset + k * copy.src.stride as u32 * tsize;
            new.stride = if use_.stride == 0 { 0 } else { copy.src.stride };
        }
    }
    Some(new)
}

/// A 32-bit half of each element of a 64-bit copy of a scalar (`mov d:DF, u<0>:DF`, then
/// `d+4<2>:UD`, the high dwords, read by a 32-bit instruction — Haswell's fp64): every
/// element holds the same value, so each channel reads the same half of the scalar, which
/// the reader can read directly as a scalar (`u+4<0>:UD`). Reading it so keeps a SIMD16
/// reader within two registers, where the strided copy spans four and splits (Mesa reads
/// the push constant's dword the same way).
pub(super) fn half_of_scalar(
    copy: &Copy,
    use_: &Operand,
    exec: u32,
    group: u32,
    no_mask: bool,
) -> Option<Operand> {
    let d = &copy.dst;
    let src = &copy.src;
    let scalar = src.stride == 0 && matches!(src.file, RegFile::Uniform | RegFile::Vgrf);
    if !scalar
        || src.mods != eubatch_ir::Mods::NONE
        || d.ty.size() != 8
        || use_.ty.size() != 4
        || use_.file != RegFile::Vgrf
        || use_.nr != d.nr
        || use_.offset < d.offset
        || !(use_.stride == 2 || use_.stride == 0)
    {
        return None;
    }
    let rel = use_.offset - d.offset;
    let (k, half) = (rel / 8, rel % 8);
    let elements = if use_.stride == 0 { 1 } else { exec };
    if half % 4 != 0 || (k + elements) * 8 > copy.len {
        return None;
    }
    // The elements read were written by the channels that read them, or by all.
    let same_channels = !no_mask && use_.stride == 2 && copy.group + k == group;
    if !copy.no_mask && !same_channels {
        return None;
    }
    Some(Operand {
        ty: use_.ty,
        mods: use_.mods,
        offset: src.offset + half,
        stride: 0,
        ..*src
    })
}

/// Where an immediate may replace source `k` of `op` on `target`.
pub(super) fn takes_immediate(
    target: &eubatch_ir::target::Target,
    op: Opcode,
    k: usize,
    imm: &Operand,
) -> bool {
    if imm.ty.is_64bit() {
        return op == Opcode::Mov && k == 0;
    }
    match op {
        Opcode::Mov => k == 0,
        Opcode::Pow | Opcode::IntQuot | Opcode::IntRem => target.math_takes_immediate && k == 1,
        _ => op.alu_arity() == Some(2) && k == 1,
    }
}

/// `outer` applied over `inner`, on a float: an absolute value forgets the sign the inner
/// modifiers gave, else the negations cancel or add up.
pub(super) fn compose_mods(inner: eubatch_ir::Mods, outer: eubatch_ir::Mods) -> eubatch_ir::Mods {
    use eubatch_ir::Mods;
    let mut m = Mods::NONE;
    let (abs, negate) = if outer.abs() {
        (true, outer.negate())
    } else {
        (inner.abs(), inner.negate() ^ outer.negate())
    };
    if abs {
        m.0 |= Mods::ABS;
    }
    if negate {
        m.0 |= Mods::NEGATE;
    }
    m
}

/// A float immediate with source modifiers applied to its sign bit; `None` for a NaN (whose
/// sign no reader should depend on) or a type that is not a float.
pub(super) fn fold_float_mods(imm: Operand, mods: eubatch_ir::Mods) -> Option<Operand> {
    use eubatch_ir::Type;
    let bits = imm.imm_bits();
    let (sign, nan) = match imm.ty {
        Type::F => (1u64 << 31, f32::from_bits(bits as u32).is_nan()),
        Type::HF => (1u64 << 15, bits & 0x7c00 == 0x7c00 && bits & 0x3ff != 0),
        Type::DF => (1u64 << 63, f64::from_bits(bits).is_nan()),
        _ => return None,
    };
    if nan {
        return None;
    }
    let mut b = bits;
    if mods.abs() {
        b &= !sign;
    }
    if mods.negate() {
        b ^= sign;
    }
    Some(Operand::imm(imm.ty, b))
}

/// Source modifiers mean negation and absolute value here; on logic instructions a negate
/// is a bitwise not (gen8+), so negated copies do not go there.
pub(crate) fn takes_modifiers(op: Opcode) -> bool {
    use Opcode::*;
    op.alu_arity().is_some()
        && !matches!(
            op,
            And | Or | Xor | Not | Bfrev | Bfe | Bfi1 | Bfi2 | Shl | Shr | Asr | Rol | Ror
        )
}
