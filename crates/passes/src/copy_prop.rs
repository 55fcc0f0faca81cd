//! Copy and immediate propagation. Within a block: after `mov(N) A:T, B:T` (no saturate,
//! predicate or conditional modifier), later reads of A's copied elements read B instead,
//! until A or B is written again. The copied source may be a VGRF region of any stride
//! (the strided 32-bit halves of a 64-bit value, seed 002), a push constant or attribute,
//! possibly negated or absolute, or an immediate; the copy may cover a padded 16-bit
//! component (seed 003). Across blocks: the copies made on every path to a block and not
//! undone since are available at its start (a dataflow over the control-flow graph, whose
//! edges follow the SIMD channels: a copy in a then-part does not reach the else-part);
//! and a VGRF defined once, wholly, outside control flow by a copy of an immediate, push
//! constant, input or another VGRF defined that way is replaced by that value everywhere.
//!
//! Rules that limit it (Mesa: brw_fs_copy_propagation.cpp `try_copy_propagate`,
//! `try_constant_propagate`): the read must use a type of the copy's size (the copy is a
//! raw move, so the bits are what they were) and a stride of one element (so element k of
//! A is element k of B); its own source modifiers are kept, and a copy's negate or
//! absolute value (of a float) goes only into a reader without modifiers of its own, of
//! the copy's type, that takes them (not logic instructions, where a negate is a bitwise not); immediates go
//! only where the hardware takes them — the second source of a two-source ALU instruction
//! other than the math box (a commutative one swaps its sources to get it there, a
//! comparison mirroring its test and a predicated `sel` inverting its predicate), the
//! source of a `mov`, never a three-source instruction — and 64-bit immediates only into
//! `mov`; nothing is propagated into payload builders, virtual opcodes or message sources
//! with layouts of their own — only a whole-VGRF copy into a pull-constant load's
//! per-channel offsets, and a copy of whole registers into a raw `send`'s payload.

use hashbrown::HashMap;
use index_vec::IndexVec;

use eubatch_ir::shader::{CondMod, Predicate};
use eubatch_ir::{Inst, Opcode, Operand, RegFile, Shader};

use crate::analysis::access::{send_read_len, Slot, SlotRange, Slots, SLOT};
use crate::analysis::access_table::AccessTable;
use crate::analysis::bitset::BitSet;
use crate::analysis::changed::Changed;
use crate::PassCx;

/// An available copy: `dst` (a VGRF region of `len` bytes) holds `src`.
#[derive(Clone, Debug)]
struct Copy {
    dst: Operand,
    len: u32,
    src: Operand,
    /// Slots of `dst` and of `src` (when a VGRF), as two ranges: the copy dies when one
    /// is written. (A copy's destination is packed, so its slots are one run.)
    slots: [SlotRange; 2],
    /// The channels that wrote it: the first, and whether all did (NoMask).
    group: u32,
    no_mask: bool,
}

fn copy_of(shader: &Shader, table: &AccessTable, inst: Inst) -> Option<Copy> {
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
            RegFile::Vgrf | RegFile::Uniform | RegFile::Attr | RegFile::Imm
        )
    {
        return None;
    }
    // A copy onto itself (or overlapping itself) is not a copy to propagate.
    if src.file == RegFile::Vgrf && src.nr == dst.nr {
        return None;
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

/// Where an immediate may replace source `k` of `op` on `target`.
fn takes_immediate(
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

/// The source to read instead of `use_` (read by channels `group..` of an instruction that
/// is NoMask or not), if `copy` covers it. Each element must be read by the channel that
/// copied it, unless the copy wrote every channel: a channel disabled by control flow did
/// not copy, and its element still holds the old value a NoMask reader, or a reader in
/// another channel, would see (Mesa: the `force_writemask_all` check of
/// `try_copy_propagate`).
fn propagate(
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
fn half_of_scalar(
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

/// No slots: the source slots of a copy whose source is not a VGRF.
const NO_SLOTS: SlotRange = Slot::new(0)..Slot::new(0);

crate::dense_index! {
    /// A copy of the whole shader ([`Available::copies`]): what the available-copy sets
    /// hold.
    struct CopyId;
}

/// The copies of the whole shader, per block the set of those available at its start,
/// and the copies each slot's write ends and each VGRF holds (by number, newest first).
struct Available {
    copies: IndexVec<CopyId, Copy>,
    sets: Vec<BitSet<CopyId>>,
    by_slot: crate::analysis::range_lists::RangeLists,
    by_dst: crate::analysis::slot_lists::SlotLists,
}

/// The copies available at the start of each block: made on every path to it and not
/// undone (neither side written) since — Mesa's dataflow over its ACP sets. Each copy is
/// a fact about the program as it is: rewriting sources later does not change what any
/// instruction writes, so the sets stay true while the pass rewrites. `None` when no block
/// but the first has any (a shader of one block).
fn available_at_entry(
    shader: &Shader,
    table: &AccessTable,
    cfg: &eubatch_ir::cfg::Cfg,
) -> Option<Available> {
    let nb = shader.layout.blocks.len();
    // One block: nothing is available at the start of the only block (most fragment
    // shaders are one block, and would pay for every copy twice).
    if nb <= 1 {
        return None;
    }
    let mut copies: IndexVec<CopyId, Copy> = IndexVec::new();
    let mut copy_at: HashMap<Inst, CopyId> = HashMap::new();
    let mut by_slot = crate::analysis::range_lists::RangeLists::new(table.slots.count());
    let mut by_dst = crate::analysis::slot_lists::SlotLists::new(shader.vgrfs.len() as u32);
    for inst in shader.layout.insts() {
        if let Some(c) = copy_of(shader, table, inst) {
            let id = copies.next_idx();
            for r in &c.slots {
                by_slot.push(r.clone(), id.get());
            }
            by_dst.push(c.dst.nr, id.get());
            copy_at.insert(inst, id);
            copies.push(c);
        }
    }
    if copies.is_empty() {
        return Some(Available {
            copies,
            sets: vec![BitSet::new(0); nb],
            by_slot,
            by_dst,
        });
    }
    let n = copies.len() as u32;
    // Each block's effect, computed once: the copies it kills (a side written anywhere in
    // it) and those it makes and leaves standing (made after the last write of their
    // sides), so that the fixed point below is set operations only. out = gen | (in & !kill)
    // is what applying the block instruction by instruction gives: a copy in `in` survives
    // unless killed, and only its own `mov` (in `gen` if it stands) makes it again.
    let mut gens = Vec::with_capacity(nb);
    let mut kills = Vec::with_capacity(nb);
    for block in shader.layout.blocks.iter() {
        let (mut gen, mut kill) = (BitSet::new(n), BitSet::new(n));
        for &inst in &block.insts {
            for (r, _, _) in table.def_runs(inst) {
                by_slot.for_each_overlapping(r, |id| {
                    gen.remove(CopyId::new(id));
                    kill.insert(CopyId::new(id));
                });
            }
            if let Some(&id) = copy_at.get(&inst) {
                gen.insert(id);
            }
        }
        gens.push(gen);
        kills.push(kill);
    }
    let transfer = |b: usize, set: &mut BitSet<CopyId>| {
        set.transfer(&gens[b], &kills[b]);
    };
    let mut out: Vec<BitSet<CopyId>> = (0..nb)
        .map(|b| {
            if b == 0 {
                BitSet::new(n)
            } else {
                BitSet::full(n)
            }
        })
        .collect();
    // What is available into block `b`, into `s`: what every predecessor leaves.
    let entry_in = |b: usize, out: &[BitSet<CopyId>], s: &mut BitSet<CopyId>| {
        let preds = &cfg.preds[eubatch_ir::Block::from_usize(b)];
        if b == 0 || preds.is_empty() {
            s.clear();
            return;
        }
        s.copy_from(&out[preds[0].index()]);
        for p in &preds[1..] {
            s.intersect_with(&out[p.index()]);
        }
    };
    // A worklist, every block on it at first, the entry first: a block is visited again
    // only when a predecessor's result shrank. Starting from everything available and
    // shrinking, any visiting order reaches the same greatest fixed point.
    let mut s = BitSet::new(n);
    let mut work: Vec<usize> = (0..nb).rev().collect();
    let mut on_list = vec![true; nb];
    while let Some(b) = work.pop() {
        on_list[b] = false;
        entry_in(b, &out, &mut s);
        transfer(b, &mut s);
        if s != out[b] {
            out[b].copy_from(&s);
            for &succ in &cfg.succs[eubatch_ir::Block::from_usize(b)] {
                if !on_list[succ.index()] {
                    on_list[succ.index()] = true;
                    work.push(succ.index());
                }
            }
        }
    }
    let sets = (0..nb)
        .map(|b| {
            let mut set = BitSet::new(n);
            entry_in(b, &out, &mut set);
            set
        })
        .collect();
    Some(Available {
        copies,
        sets,
        by_slot,
        by_dst,
    })
}

/// Scalar code: operands read as Align1 regions.
pub const SCOPE: crate::manager::Scope = crate::manager::Scope::SCALAR;

pub fn run(shader: &mut Shader, cx: &mut PassCx) -> Changed {
    let table = cx.access(shader);
    let slots = &table.slots;
    let mut progress = false;
    let entry = cx
        .cfg(shader)
        .ok()
        .and_then(|cfg| available_at_entry(shader, &table, &cfg));
    // Available copies of the block; those of each destination VGRF (newest last); those
    // each slot's write ends. Indexed by VGRF and by slot, allocated once for the run and
    // emptied between blocks (only what a block touched).
    // Copies made in the block; those of each destination VGRF (newest first); those each
    // slot's write ends. Allocated once for the run and emptied between blocks. The
    // copies available at the block's start stay in the shader-wide lists of `entry`,
    // looked up there (and marked `dead` when written), not copied into the block's: a
    // block would otherwise pay for every copy available to it.
    let mut acp: Vec<Option<Copy>> = Vec::new();
    let mut by_dst = crate::analysis::slot_lists::SlotLists::new(shader.vgrfs.len() as u32);
    let mut by_slot = crate::analysis::range_lists::RangeLists::new(slots.count());
    let none = BitSet::new(0);
    let mut dead = BitSet::new(entry.as_ref().map_or(0, |e| e.copies.len() as u32));
    // The block's instructions as the walk found them (one buffer for the run).
    let mut insts: Vec<eubatch_ir::Inst> = Vec::new();
    for b in 0..shader.layout.blocks.len() {
        let block = eubatch_ir::Block::from_usize(b);
        insts.clear();
        insts.extend_from_slice(&shader.layout.blocks[block].insts);
        acp.clear();
        by_dst.clear();
        by_slot.clear();
        dead.clear();
        let avail = entry.as_ref().map_or(&none, |e| &e.sets[b]);
        // (The block's list of copies holds those available at its start, even undone.)
        let any_entry = avail.iter().next().is_some();
        for &inst in &insts {
            let op = shader.insts.opcode[inst];
            // Propagate into this instruction's sources: the copies of each VGRF, newest
            // first (those made in the block, then those available at its start).
            if any_entry || !acp.is_empty() {
                let copies = |v: u32| -> Vec<&Copy> {
                    let local = by_dst.iter(v).filter_map(|i| acp[i as usize].as_ref());
                    let at_entry = entry.iter().flat_map(|e| {
                        e.by_dst
                            .iter(v)
                            .map(CopyId::new)
                            .filter(|&id| avail.contains(id) && !dead.contains(id))
                            .map(move |id| &e.copies[id])
                    });
                    local.chain(at_entry).collect()
                };
                if op.is_message() {
                    // Every available copy, oldest first: gathered only when a payload is
                    // found to be made of copies (most messages never ask).
                    let all = || -> Vec<&Copy> {
                        entry
                            .iter()
                            .flat_map(|e| {
                                avail
                                    .iter()
                                    .filter(|&id| !dead.contains(id))
                                    .map(move |id| &e.copies[id])
                            })
                            .chain(acp.iter().flatten())
                            .collect()
                    };
                    progress |= rewrite_message_sources(shader, slots, inst, &all, copies);
                }
                if op == Opcode::Broadcast {
                    progress |= rewrite_broadcast(shader, inst, copies);
                }
                if op.alu_arity().is_some() {
                    progress |= rewrite_sources(shader, inst, copies);
                }
            }
            // Kill copies whose destination or source this instruction writes.
            for (r, _, _) in table.def_runs(inst) {
                by_slot.take_overlapping(r.clone(), |i| acp[i as usize] = None);
                if let Some(e) = entry.as_ref().filter(|_| any_entry) {
                    e.by_slot
                        .for_each_overlapping(r, |id| dead.insert(CopyId::new(id)));
                }
            }
            if let Some(c) = copy_of(shader, &table, inst) {
                let i = acp.len() as u32;
                by_dst.push(c.dst.nr, i);
                for r in &c.slots {
                    by_slot.push(r.clone(), i);
                }
                acp.push(Some(c));
            }
        }
    }
    // The walk above rewrote sources, which can change which VGRFs are read without the
    // channel mask, and so which writes define their VGRF whole: the definitions are
    // those of the shader as it is now.
    // (What each instruction writes is as it was; only the slot model's channel-mask facts
    // can have moved, and when they have not, the table still says what every write
    // defines.)
    // Rewriting sources moves no control flow: the nesting is the one of the shader as the
    // pass found it.
    let nesting = cx.nesting(shader);
    let defs = if progress && Slots::of(shader, &nesting) != *slots {
        std::rc::Rc::new(crate::analysis::defs::Defs::compute(
            shader,
            &AccessTable::compute(shader, &nesting),
            &nesting,
        ))
    } else if progress {
        std::rc::Rc::new(crate::analysis::defs::Defs::compute(
            shader, &table, &nesting,
        ))
    } else {
        cx.defs(shader)
    };
    progress |= propagate_global(shader, &table, &defs);
    // Sources rewritten (a move of an immediate may become another opcode); nothing added,
    // removed or moved.
    Changed::when(
        progress,
        Changed::INSTRUCTION_DETAIL | Changed::INSTRUCTION_DATA_FLOW,
    )
}

/// A 32-bit float immediate that is neither ±0 nor NaN.
fn nonzero_number(imm: &Operand) -> bool {
    let bits = imm.imm_bits() as u32;
    imm.file == RegFile::Imm
        && imm.ty == eubatch_ir::Type::F
        && bits & 0x7fff_ffff != 0
        && !f32::from_bits(bits).is_nan()
}

/// A predicated `sel` without a conditional modifier or saturation whose destination and
/// register sources are all integers of one size, 32 or 64 bits, and that has no
/// immediate: it moves bits, so it may read and write them as floats of that size as well
/// (Mesa `can_change_types`: `(+f0) sel d:DF, -x:DF, x:DF` for an fp64 sign flip).
fn raw_select(shader: &Shader, inst: Inst) -> bool {
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

/// Replaces each VGRF source of `inst` that one of the copies `copies(vgrf)` (newest
/// first) covers by what the copy read, where the instruction takes it.
fn rewrite_sources<'a>(
    shader: &mut Shader,
    inst: Inst,
    copies: impl Fn(u32) -> Vec<&'a Copy>,
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
                Opcode::Sel => match ctl.cmod {
                    CondMod::None if ctl.predicate != Predicate::None => {
                        Some((CondMod::None, !ctl.pred_invert()))
                    }
                    CondMod::Ge | CondMod::L
                        if !shader.insts.dst[inst].ty.is_float() || nonzero_number(&new) =>
                    {
                        Some((ctl.cmod, ctl.pred_invert()))
                    }
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
fn rewrite_broadcast<'a>(
    shader: &mut Shader,
    inst: Inst,
    copies: impl Fn(u32) -> Vec<&'a Copy>,
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

/// Message sources that are one value per channel, read in the message's own channels (a
/// pull-constant load's offsets): a copy of a whole VGRF into the whole source VGRF can be
/// read from the original, which has the same size. Other message sources have payload
/// layouts of their own and are left alone.
fn rewrite_message_sources<'a>(
    shader: &mut Shader,
    slots: &Slots,
    inst: Inst,
    all: &dyn Fn() -> Vec<&'a Copy>,
    copies: impl Fn(u32) -> Vec<&'a Copy>,
) -> bool {
    let op = shader.insts.opcode[inst];
    if op == Opcode::Send {
        return rewrite_send_payloads(shader, inst, all, copies);
    }
    if op == Opcode::FbWriteLogical || eubatch_ir::width_rules::is_sampler_message(op) {
        return rewrite_component_sources(shader, inst, all, copies);
    }
    let k = match op {
        Opcode::VaryingPullConstLogical if shader.srcs(inst).len() == 4 => 2,
        Opcode::VaryingPullConstLogical => 1,
        _ => return false,
    };
    let ctl = shader.insts.control[inst];
    let Some(&s) = shader.srcs(inst).get(k) else {
        return false;
    };
    if s.file != RegFile::Vgrf || s.offset != 0 || s.mods != eubatch_ir::Mods::NONE {
        return false;
    }
    let size = |nr: u32| {
        let r = slots.vgrf(shader, nr);
        (r.end - r.start) * SLOT
    };
    let found = copies(s.nr).into_iter().find(|c| {
        c.dst.offset == 0
            && c.len == size(s.nr)
            && c.src.file == RegFile::Vgrf
            && c.src.offset == 0
            && c.src.stride == 1
            && c.src.mods == eubatch_ir::Mods::NONE
            && c.src.ty == s.ty
            && size(c.src.nr) == c.len
            && (c.no_mask || (!ctl.no_mask() && c.group == ctl.group as u32))
    });
    match found {
        Some(c) => {
            shader.srcs_mut(inst)[k].nr = c.src.nr;
            true
        }
        None => false,
    }
}

/// The VGRF and offset shift whose bytes `len` bytes of `s` (read in the channels of
/// `ctl`) equal, by the available copies: every piece of `s` is a copy of that VGRF at the
/// shift, or a copy of the same thing (an immediate, another register) that the matching
/// piece of that VGRF is a copy of — copy propagation turns both copies of a constant
/// alpha into immediates, and a payload rebuilt from another payload's sources equals it.
/// `all` holds every available copy (and the gaps of those undone), where those other
/// payloads are found.
fn covering_origin<'a>(
    copies: &dyn Fn(u32) -> Vec<&'a Copy>,
    all: &dyn Fn() -> Vec<&'a Copy>,
    s: &Operand,
    len: u32,
    ctl: eubatch_ir::Control,
) -> Option<(u32, i64)> {
    let list = copies(s.nr);
    let in_channels = |c: &Copy| c.no_mask || (!ctl.no_mask() && c.group == ctl.group as u32);
    let mut chunks: Vec<&Copy> = Vec::new();
    let mut at = s.offset;
    while at < s.offset + len {
        let c = *list
            .iter()
            .find(|c| c.dst.offset <= at && at < c.dst.offset + c.len)?;
        if !in_channels(c) || c.dst.offset < s.offset || c.src.mods != eubatch_ir::Mods::NONE {
            return None;
        }
        chunks.push(c);
        at = c.dst.offset + c.len;
    }
    if at != s.offset + len {
        return None;
    }
    let direct = |c: &Copy| {
        (c.src.file == RegFile::Vgrf && c.src.stride == 1 && c.src.ty.size() == s.ty.size())
            .then(|| (c.src.nr, c.src.offset as i64 - c.dst.offset as i64))
    };
    // Where it could equal: the VGRFs it copies from, and those holding a copy of what its
    // first piece copies (another payload built from the same values).
    let mut candidates: Vec<(u32, i64)> = chunks.iter().filter_map(|c| direct(c)).collect();
    let first = chunks[0];
    candidates.extend(
        all()
            .into_iter()
            .filter(|d| d.dst.nr != s.nr && d.src == first.src && d.len == first.len)
            .map(|d| (d.dst.nr, d.dst.offset as i64 - first.dst.offset as i64)),
    );
    candidates.into_iter().find(|&(nr, delta)| {
        let theirs = copies(nr);
        chunks.iter().all(|c| {
            if direct(c) == Some((nr, delta)) {
                return true;
            }
            let there = c.dst.offset as i64 + delta;
            theirs.iter().any(|d| {
                d.dst.offset as i64 == there
                    && d.len == c.len
                    && d.src == c.src
                    && d.dst.ty.size() == c.dst.ty.size()
                    && in_channels(d)
            })
        })
    })
}

/// The multi-component sources of a render target write or sampler message (colours,
/// coordinates: `source_components` values of the message's width, one after the other):
/// where copies of one other VGRF, at one offset from it, cover every byte the message
/// reads, in its channels, the message reads that VGRF instead — the copy of a whole
/// colour or coordinate that each of several messages made (Mesa gets the same from
/// CSE of the LOAD_PAYLOADs and register coalescing).
fn rewrite_component_sources<'a>(
    shader: &mut Shader,
    inst: Inst,
    all: &dyn Fn() -> Vec<&'a Copy>,
    copies: impl Fn(u32) -> Vec<&'a Copy>,
) -> bool {
    let op = shader.insts.opcode[inst];
    let ctl = shader.insts.control[inst];
    let exec = ctl.exec_size as u32;
    let mut progress = false;
    for k in 0..shader.srcs(inst).len() {
        let s = shader.srcs(inst)[k];
        if s.file != RegFile::Vgrf || s.stride != 1 || s.mods != eubatch_ir::Mods::NONE {
            continue;
        }
        let comps = eubatch_ir::message::source_components(op, shader.srcs(inst), k);
        let span = comps * exec * s.ty.size();
        if let Some((nr, delta)) = covering_origin(&copies, all, &s, span, ctl) {
            let offset = s.offset as i64 + delta;
            if offset >= 0 {
                let src = &mut shader.srcs_mut(inst)[k];
                src.nr = nr;
                src.offset = offset as u32;
                progress = true;
            }
        }
    }
    progress
}

/// A `send`'s payload (or second payload) that one move copied from whole registers of
/// another VGRF is read from there: the message reads `mlen` (`ex_mlen`) registers in the
/// send's channels, which the move wrote from the same place. Failing that, a payload that
/// equals another VGRF piece by piece ([`covering_origin`]) reads that one.
fn rewrite_send_payloads<'a>(
    shader: &mut Shader,
    inst: Inst,
    all: &dyn Fn() -> Vec<&'a Copy>,
    copies: impl Fn(u32) -> Vec<&'a Copy>,
) -> bool {
    let ctl = shader.insts.control[inst];
    let reg = shader.reg_size();
    let mut progress = false;
    for k in 0..shader.srcs(inst).len() {
        let Some(len) = send_read_len(shader, inst, k) else {
            continue;
        };
        let s = shader.srcs(inst)[k];
        if s.file != RegFile::Vgrf || len == 0 || s.mods != eubatch_ir::Mods::NONE {
            continue;
        }
        let found = copies(s.nr).into_iter().find_map(|c| {
            let inside = c.dst.offset <= s.offset && s.offset + len <= c.dst.offset + c.len;
            let ok = inside
                && c.src.file == RegFile::Vgrf
                && c.src.stride == 1
                && c.src.mods == eubatch_ir::Mods::NONE
                && (c.no_mask || (!ctl.no_mask() && c.group == ctl.group as u32));
            let offset = c.src.offset + (s.offset - c.dst.offset.min(s.offset));
            (ok && offset % reg == 0).then(|| Operand {
                nr: c.src.nr,
                offset,
                ..s
            })
        });
        let found = found.or_else(|| {
            let (nr, delta) = covering_origin(&copies, all, &s, len, ctl)?;
            let offset = s.offset as i64 + delta;
            (offset >= 0 && offset % reg as i64 == 0).then(|| Operand {
                nr,
                offset: offset as u32,
                ..s
            })
        });
        if let Some(new) = found {
            shader.srcs_mut(inst)[k] = new;
            progress = true;
        }
    }
    progress
}

/// Across blocks: a VGRF with a single whole definition outside control flow that copies
/// an immediate, a push constant, an input (none of which is ever written) or another such
/// VGRF — or one defined in such pieces, each a copy (the channel groups of a split copy)
/// — holds that value wherever it is read, in any block (Mesa's global copy propagation does this with
/// its dataflow; here the definitions analysis gives it directly).
fn propagate_global(
    shader: &mut Shader,
    table: &AccessTable,
    defs: &crate::analysis::defs::Defs,
) -> bool {
    let ssa = |v: usize| defs.is_ssa(v);
    let mut global: HashMap<u32, Vec<Copy>> = HashMap::new();
    for v in 0..defs.single.len() {
        let writers: &[Inst] = match (&defs.single[v], defs.pieces(v)) {
            (Some(def), _) => std::slice::from_ref(def),
            (None, Some(pieces)) => pieces,
            _ => continue,
        };
        // Every piece a copy of something that keeps its value to the end.
        let copies: Option<Vec<Copy>> = writers
            .iter()
            .map(|&w| {
                let c = copy_of(shader, table, w)?;
                let never_changes = match c.src.file {
                    RegFile::Imm | RegFile::Uniform | RegFile::Attr => true,
                    // A VGRF that is itself defined once, outside control flow: the copy
                    // read its only value, which it keeps to the end.
                    RegFile::Vgrf => ssa(c.src.nr as usize),
                    _ => false,
                };
                never_changes.then_some(c)
            })
            .collect();
        if let Some(copies) = copies {
            global.insert(v as u32, copies);
        }
    }
    if global.is_empty() {
        return false;
    }
    let mut progress = false;
    let insts: Vec<Inst> = shader.layout.insts().collect();
    for inst in insts {
        if shader.insts.opcode[inst].alu_arity().is_some() {
            progress |= rewrite_sources(shader, inst, |v| {
                global
                    .get(&v)
                    .map(|c| c.iter().collect())
                    .unwrap_or_default()
            });
        }
    }
    progress
}

/// `outer` applied over `inner`, on a float: an absolute value forgets the sign the inner
/// modifiers gave, else the negations cancel or add up.
fn compose_mods(inner: eubatch_ir::Mods, outer: eubatch_ir::Mods) -> eubatch_ir::Mods {
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
fn fold_float_mods(imm: Operand, mods: eubatch_ir::Mods) -> Option<Operand> {
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

/// Two-source operations whose sources may swap.
fn is_commutative(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::Add | Opcode::Mul | Opcode::And | Opcode::Or | Opcode::Xor
    )
}

/// The test that compares `b` with `a` as `cmod` compares `a` with `b` (Mesa's
/// `brw_swap_cmod`); none for the unordered and overflow tests.
fn swapped_cmod(cmod: CondMod) -> Option<CondMod> {
    match cmod {
        CondMod::Z | CondMod::Nz => Some(cmod),
        CondMod::G => Some(CondMod::L),
        CondMod::Ge => Some(CondMod::Le),
        CondMod::L => Some(CondMod::G),
        CondMod::Le => Some(CondMod::Ge),
        _ => None,
    }
}

fn is_three_source(op: Opcode) -> bool {
    op.alu_arity() == Some(3)
}
