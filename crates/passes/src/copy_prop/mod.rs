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
//! comparison mirroring its test and a predicated `sel` inverting its predicate, though
//! not when the second source is itself a copy of an immediate made in the block and the
//! first one's was made in an earlier block: Mesa's block-local pass fills the second
//! source first, leaving the earlier block's constant in its shared register), the
//! source of a `mov`, never a three-source instruction — and 64-bit immediates only into
//! `mov`; nothing is propagated into payload builders, virtual opcodes or message sources
//! with layouts of their own — only a whole-VGRF copy into a pull-constant load's
//! per-channel offsets, and a copy of whole registers into a raw `send`'s payload.
//!
//! This file walks each block; `copies` says what a copy is and when a read can go
//! through it, `available` which copies reach each block's start, `sources` and
//! `messages` rewrite ALU and message sources, `global` propagates single definitions
//! across blocks.

mod available;
mod copies;
mod global;
mod messages;
mod sources;

use eubatch_ir::{Opcode, Shader};

use crate::analysis::access::Slots;
use crate::analysis::access_table::AccessTable;
use crate::analysis::bitset::BitSet;
use crate::analysis::changed::Changed;
use crate::PassCx;

pub(crate) use copies::takes_modifiers;

use available::*;
use copies::*;
use global::*;
use messages::*;
use sources::*;

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
    // (Sized for the largest block, where every instruction could be a copy of two
    // registers' worth: they are emptied per block, and grow at most once.)
    let most = crate::largest_block(shader);
    let mut acp: Vec<Option<Copy>> = Vec::with_capacity(most);
    let mut by_dst = crate::analysis::slot_lists::SlotLists::new(shader.vgrfs.len() as u32);
    by_dst.reserve(most);
    let mut by_slot = crate::analysis::range_lists::RangeLists::new(slots.count());
    by_slot.reserve(2 * most);
    let none = BitSet::new(0);
    let mut dead = BitSet::new(entry.as_ref().map_or(0, |e| e.copies.len() as u32));
    // The block's instructions as the walk found them (one buffer for the run).
    let mut insts: Vec<eubatch_ir::Inst> = Vec::with_capacity(most);
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
                // (Walked lazily where a pass takes the first that fits, as ALU sources do:
                // no list per source read; collected only for messages, which look twice.)
                let dead = &dead;
                let copies = |v: u32| {
                    let local = by_dst.iter(v).filter_map(|i| acp[i as usize].as_ref());
                    let at_entry = entry.iter().flat_map(move |e| {
                        e.by_dst
                            .iter(v)
                            .map(CopyId::new)
                            .filter(|&id| avail.contains(id) && !dead.contains(id))
                            .map(move |id| &e.copies[id])
                    });
                    local.chain(at_entry)
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
                    progress |= rewrite_message_sources(shader, slots, inst, &all, |v| {
                        copies(v).collect::<Vec<_>>()
                    });
                }
                if op == Opcode::Broadcast {
                    progress |= rewrite_broadcast(shader, inst, copies);
                }
                if op.alu_arity().is_some() {
                    let local = |v: u32| by_dst.iter(v).filter_map(|i| acp[i as usize].as_ref());
                    progress |= rewrite_sources(shader, inst, copies, local);
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
    } else {
        // The definitions read the layout, every instruction's destination and writes
        // (the table's, as it was), the nesting and the VGRF table, none of which the walk
        // changed: those of the shader as the pass found it, computed once for this
        // version (most often already, by load_cse).
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
