//! The copies available at the start of every block: a forward dataflow over the
//! control-flow graph (Mesa's ACP sets, intersected at joins), one whole-shader list of
//! copies, and per block a set of them.

use index_vec::IndexVec;

use eubatch_ir::{Inst, Shader};

use crate::analysis::access_table::AccessTable;
use crate::analysis::bitset::BitSet;

use super::copies::*;

crate::dense_index! {
    /// A copy of the whole shader ([`Available::copies`]): what the available-copy sets
    /// hold.
    pub(super) struct CopyId;
}

/// The copies of the whole shader, per block the set of those available at its start,
/// and the copies each slot's write ends and each VGRF holds (by number, newest first).
pub(super) struct Available {
    pub(super) copies: IndexVec<CopyId, Copy>,
    pub(super) sets: Vec<BitSet<CopyId>>,
    pub(super) by_slot: crate::analysis::range_lists::RangeLists,
    pub(super) by_dst: crate::analysis::slot_lists::SlotLists,
}

/// The copies available at the start of each block: made on every path to it and not
/// undone (neither side written) since — Mesa's dataflow over its ACP sets. Each copy is
/// a fact about the program as it is: rewriting sources later does not change what any
/// instruction writes, so the sets stay true while the pass rewrites. `None` when no block
/// but the first has any (a shader of one block).
pub(super) fn available_at_entry(
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
    // The instruction of each copy: copies are numbered in layout order, so the walk over
    // the blocks below meets them in this order (a cursor, not a map by instruction).
    let mut copy_insts: Vec<Inst> = Vec::new();
    let mut by_slot = crate::analysis::range_lists::RangeLists::new(table.slots.count());
    let mut by_dst = crate::analysis::slot_lists::SlotLists::new(shader.vgrfs.len() as u32);
    for inst in shader.layout.insts() {
        if let Some(c) = copy_of(shader, table, inst) {
            let id = copies.next_idx();
            for r in &c.slots {
                by_slot.push(r.clone(), id.get());
            }
            by_dst.push(c.dst.nr, id.get());
            copy_insts.push(inst);
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
    let mut next_copy = 0usize;
    for block in shader.layout.blocks.iter() {
        let (mut gen, mut kill) = (BitSet::new(n), BitSet::new(n));
        for &inst in &block.insts {
            for (r, _, _) in table.def_runs(inst) {
                by_slot.for_each_overlapping(r, |id| {
                    gen.remove(CopyId::new(id));
                    kill.insert(CopyId::new(id));
                });
            }
            if copy_insts.get(next_copy) == Some(&inst) {
                gen.insert(CopyId::new(next_copy as u32));
                next_copy += 1;
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
