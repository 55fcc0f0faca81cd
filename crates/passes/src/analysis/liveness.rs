//! Liveness of every slot ([`super::access`]): which 4-byte pieces of VGRFs and which flag
//! bytes may still be read, at the end of every block. A write kills a slot only when it
//! fully defines it, so two SIMD8 half-float writes into padded components, or two strided
//! halves of a 64-bit value, each kill exactly what they write. Per-path reasoning over the
//! CFG covers channels disabled by control flow, as in Mesa's `fs_live_variables`.
//!
//! The jump of a `halt` to its `halt_target` carries nothing: the channels that take it
//! are discarded pixels, re-enabled at the target only for the render target writes that
//! follow it, which are predicated on the pixels still alive — what those channels read
//! there is never seen. (Mesa's CFG has no such edge either.) Without this, every value
//! the writes read would be live from the start along the jump, undefined there, and
//! could never share a register with what it is copied from.
//!
//! Computed in one walk over the access table (per block: the slots read before being fully
//! defined, and those fully defined), then over the global slots only. What costs is done
//! by words, not by accesses (issue 15): the per-block set of defined slots is emptied
//! whole when that is cheaper than range by range, a fully defined run that holds no
//! global slot is dropped before it is numbered (most live and die inside one block), and
//! the runs of global slots are found by scanning for their ends, not member by member.

use std::rc::Rc;

use index_vec::IndexVec;

use eubatch_ir::cfg::Cfg;
use eubatch_ir::{Block, Shader};

use crate::analysis::access::{Slot, SlotRange};
use crate::analysis::access_table::AccessTable;
use crate::analysis::bitset::BitSet;
use crate::analysis::scratch_set::ScratchSet;

crate::dense_index! {
    /// A global slot's number: a slot that some block reads before fully defining it, the
    /// only kind that can be live at a block boundary, numbered densely in slot order
    /// ([`Liveness`]).
    pub struct GlobalSlot;
}

/// The live sets at block boundaries. Only slots that some block reads before it fully
/// defines them can be live at a boundary (the others live and die inside one block), so
/// the sets hold just those ("global" slots, numbered densely): the dataflow costs blocks
/// times global slots, not blocks times every slot of the shader.
pub struct Liveness {
    /// The accesses it was computed from (their slot numbering is the sets').
    pub access: Rc<AccessTable>,
    /// The slot of each global slot, in increasing order.
    global: IndexVec<GlobalSlot, Slot>,
    /// Runs of consecutive global slots: first slot, its global number, length.
    runs: Vec<(Slot, GlobalSlot, u32)>,
    live_in: IndexVec<Block, BitSet<GlobalSlot>>,
    live_out: IndexVec<Block, BitSet<GlobalSlot>>,
    /// The global slots, in the slot numbering, and its rank table: a run of slots maps to
    /// the run of global numbers among them ([`Liveness::numbers`]).
    is_global: BitSet<Slot>,
    ranks: Vec<u32>,
}

impl Liveness {
    pub fn compute(shader: &Shader, access: Rc<AccessTable>, cfg: &Cfg) -> Liveness {
        let n = access.slots.count();
        let nb = shader.layout.blocks.len();
        // One block that no edge leaves (most fragment shaders): nothing is live at its end,
        // and what is read before being written at its start is undefined there (no
        // definition reaches the entry), so not live either. Every set is empty, whatever
        // the instructions do: no walk over them.
        if nb == 0 || nb == 1 && cfg.succs[Block::from_usize(0)].is_empty() {
            return Liveness {
                access,
                global: IndexVec::new(),
                runs: Vec::new(),
                live_in: IndexVec::from_vec(vec![BitSet::new(0); nb]),
                live_out: IndexVec::from_vec(vec![BitSet::new(0); nb]),
                is_global: BitSet::new(0),
                ranks: vec![0],
            };
        }
        // One walk over the accesses: per block, the runs of slots it reads before fully
        // defining them (a slot may come more than once) and those it fully defines, in the
        // whole slot numbering; the global slots are those some block reads so.
        let mut gen_at = Vec::with_capacity(nb + 1);
        let mut kill_at = Vec::with_capacity(nb + 1);
        let mut partial_at = Vec::with_capacity(nb + 1);
        let (mut gen_list, mut kill_list): (Vec<SlotRange>, Vec<SlotRange>) =
            (Vec::new(), Vec::new());
        // Partial writes, which define without killing (full writes are in `kill_list`).
        let mut partial_list: Vec<SlotRange> = Vec::new();
        let mut defined: BitSet<Slot> = BitSet::new(n);
        for block in shader.layout.blocks.iter() {
            gen_at.push(gen_list.len());
            kill_at.push(kill_list.len());
            partial_at.push(partial_list.len());
            let k0 = kill_list.len();
            for &inst in &block.insts {
                let (def_runs, use_runs) = access.runs(inst);
                for r in use_runs {
                    // Most reads are of values the block defined: a word-level test.
                    if !defined.contains_range(r.clone()) {
                        defined.for_each_missing_run(r, |piece| gen_list.push(piece));
                    }
                }
                for (r, full, _) in def_runs {
                    if full {
                        defined.insert_range(r.clone());
                        kill_list.push(r);
                    } else {
                        partial_list.push(r);
                    }
                }
            }
            // Emptied for the next block: range by range, or whole when that is less.
            if (kill_list.len() - k0) * 8 >= defined.words() {
                defined.clear();
            } else {
                for r in &kill_list[k0..] {
                    defined.remove_range(r.clone());
                }
            }
        }
        gen_at.push(gen_list.len());
        kill_at.push(kill_list.len());
        partial_at.push(partial_list.len());
        // Numbered in increasing slot order, so that runs of consecutive global slots are
        // runs of consecutive numbers (a VGRF live across blocks is mostly one such run).
        // (A set of them, walked word by word: not a scan of every slot of the shader.)
        let mut is_global: BitSet<Slot> = BitSet::new(n);
        for piece in &gen_list {
            is_global.insert_range(piece.clone());
        }
        // Run by run: a run's start is the next member, its end the next slot after it
        // that is not one (word-level scans).
        let mut global: IndexVec<GlobalSlot, Slot> = IndexVec::new();
        let mut runs: Vec<(Slot, GlobalSlot, u32)> = Vec::new();
        let mut at = Slot::new(0);
        while let Some(first) = is_global.next_member(at) {
            let end = is_global.next_missing(first);
            runs.push((first, GlobalSlot::new(global.len() as u32), end - first));
            global.extend(Slot::each(first..end));
            at = end;
        }
        let g = global.len() as u32;
        // A global slot's number is how many global slots lie below it, so the global slots
        // among slots a..b are the numbers rank(a)..rank(b): runs map to runs.
        let ranks = is_global.rank_table();
        let numbers = |r: &SlotRange| {
            GlobalSlot::new(is_global.rank(&ranks, r.start))
                ..GlobalSlot::new(is_global.rank(&ranks, r.end))
        };
        // Per block, over the global slots: read before being fully defined (gen), fully
        // defined (kill).
        let mut gens: IndexVec<Block, BitSet<GlobalSlot>> = IndexVec::with_capacity(nb);
        let mut kills: IndexVec<Block, BitSet<GlobalSlot>> = IndexVec::with_capacity(nb);
        for b in 0..nb {
            let (mut gen, mut kill) = (BitSet::new(g), BitSet::new(g));
            for piece in &gen_list[gen_at[b]..gen_at[b + 1]] {
                gen.insert_range(numbers(piece));
            }
            // (Most slots fully defined are not global: they live inside one block.)
            for r in &kill_list[kill_at[b]..kill_at[b + 1]] {
                if is_global.intersects_range(r.clone()) {
                    kill.insert_range(numbers(r));
                }
            }
            gens.push(gen);
            kills.push(kill);
        }
        // Block pairs (halt, halt target) joined only by the halt's jump.
        let first_op = |b: Block| {
            shader.layout.blocks[b]
                .insts
                .first()
                .map(|&i| shader.insts.opcode[i])
        };
        let last_op = |b: Block| {
            shader.layout.blocks[b]
                .insts
                .last()
                .map(|&i| shader.insts.opcode[i])
        };
        let halt_jump = |b: Block, s: Block| {
            s.index() != b.index() + 1
                && last_op(b) == Some(eubatch_ir::Opcode::Halt)
                && first_op(s) == Some(eubatch_ir::Opcode::HaltTarget)
        };
        let mut live_in: IndexVec<Block, BitSet<GlobalSlot>> = gens.clone();
        let mut live_out: IndexVec<Block, BitSet<GlobalSlot>> =
            IndexVec::from_vec(vec![BitSet::new(g); nb]);
        // One scratch set for the whole fixed point: no allocation per block visit.
        let mut li = BitSet::new(g);
        // A worklist, every block on it at first, last block first (a backward problem):
        // a block is visited again only when what a successor needs at its start grew, not
        // in a whole extra sweep to find that nothing did. Starting from the gens and
        // growing, any visiting order reaches the same least fixed point.
        let mut work: Vec<Block> = (0..nb).map(Block::from_usize).collect();
        let mut on_list = vec![true; nb];
        while let Some(b) = work.pop() {
            on_list[b.index()] = false;
            for &s in &cfg.succs[b] {
                if !halt_jump(b, s) {
                    live_out[b].union_with(&live_in[s]);
                }
            }
            li.copy_from(&live_out[b]);
            li.transfer(&gens[b], &kills[b]);
            if li != live_in[b] {
                live_in[b].copy_from(&li);
                for &p in &cfg.preds[b] {
                    if !on_list[p.index()] && !halt_jump(p, b) {
                        on_list[p.index()] = true;
                        work.push(p);
                    }
                }
            }
        }
        // A slot no definition reaches is undefined there, whatever reads it later: it
        // holds nothing to keep, so it is not live (Mesa's `fs_live_variables` restricts
        // live-in and live-out to `defin` and `defout` the same way). Otherwise a value
        // defined inside an `if` and read after it would be live along the path around
        // the `if`, back to the start of the program. Only a slot live at the entry can be
        // live where no definition reaches (a slot live at a reachable point and not at
        // the entry has a definition on every path from the entry to a read, and so before
        // that point): most shaders have none, and skip the forward problem, and only
        // those slots are taken out.
        if nb > 0
            && live_in[Block::from_usize(0)]
                .next_member(GlobalSlot::new(0))
                .is_some()
        {
            let entry = live_in[Block::from_usize(0)].clone();
            // Defined at the end of a block: what it writes, fully (its kills, which the
            // backward problem no longer needs) or partly (defining without killing), and
            // what is defined at its start.
            let mut def_out = kills;
            for (b, out) in def_out.iter_mut().enumerate() {
                for r in &partial_list[partial_at[b]..partial_at[b + 1]] {
                    if is_global.intersects_range(r.clone()) {
                        out.insert_range(numbers(r));
                    }
                }
            }
            let mut def_in = gens;
            def_in.iter_mut().for_each(BitSet::clear);
            // Block 0 first: a forward problem; the halt's jump carries nothing here
            // either.
            let mut work: Vec<Block> = (0..nb).rev().map(Block::from_usize).collect();
            let mut on_list = vec![true; nb];
            while let Some(b) = work.pop() {
                on_list[b.index()] = false;
                for &p in &cfg.preds[b] {
                    if !halt_jump(p, b) {
                        def_in[b].union_with(&def_out[p]);
                    }
                }
                if def_out[b].union_with(&def_in[b]) {
                    for &s in &cfg.succs[b] {
                        if !on_list[s.index()] && !halt_jump(b, s) {
                            on_list[s.index()] = true;
                            work.push(s);
                        }
                    }
                }
            }
            for b in 0..nb {
                let b = Block::from_usize(b);
                live_in[b].keep_members_of(&def_in[b], &entry);
                live_out[b].keep_members_of(&def_out[b], &entry);
            }
        }
        Liveness {
            access,
            global,
            runs,
            live_in,
            live_out,
            is_global,
            ranks,
        }
    }

    /// The global numbers of the global slots among `r` (a run: global slots are numbered
    /// in slot order).
    #[inline]
    pub fn numbers(&self, r: &SlotRange) -> std::ops::Range<GlobalSlot> {
        GlobalSlot::new(self.is_global.rank(&self.ranks, r.start))
            ..GlobalSlot::new(self.is_global.rank(&self.ranks, r.end))
    }

    /// Makes `set` (over every slot) the slots live at the end of `b`: stretch by stretch
    /// of consecutive live global slots in one run of consecutive slots (a live component
    /// of a VGRF, mostly), found by word-level scans, each added as a range: not member by
    /// member, nor a look at every run of the shader. Emptying `set` first costs what was
    /// put in it since it was last emptied ([`ScratchSet`]): a walk per block over a large
    /// shader does not pay for every slot of it at every block.
    pub fn load_live_out(&self, b: Block, set: &mut ScratchSet<Slot>) {
        set.clear();
        let out = &self.live_out[b];
        let mut run = 0;
        let mut at = GlobalSlot::new(0);
        while let Some(k) = out.next_member(at) {
            // The run holding `k` (runs are in increasing order, and so are the stretches).
            while self.runs[run].1 + self.runs[run].2 <= k {
                run += 1;
            }
            let (slot, first, len) = self.runs[run];
            let end = out.next_missing(k).min(first + len);
            set.insert_range(slot + (k - first)..slot + (end - first));
            at = end;
        }
    }

    /// The set live at the end of `b`, over the global slots ([`Liveness::global_slots`]
    /// gives the slot of each).
    pub fn live_out_set(&self, b: Block) -> &BitSet<GlobalSlot> {
        &self.live_out[b]
    }

    /// The slot of each global slot, in increasing order.
    pub fn global_slots(&self) -> &index_vec::IndexSlice<GlobalSlot, [Slot]> {
        &self.global
    }

    /// Calls `f` with each slot live at the start of `b` that is not in `seen` (a set over
    /// global slots, as [`Liveness::new_global_set`] makes), and adds them to it.
    pub fn add_new_live_in(
        &self,
        b: Block,
        seen: &mut BitSet<GlobalSlot>,
        mut f: impl FnMut(Slot),
    ) {
        seen.add_new(&self.live_in[b], |k| f(self.global[k]));
    }

    /// [`Liveness::add_new_live_in`], at the end of `b`.
    pub fn add_new_live_out(
        &self,
        b: Block,
        seen: &mut BitSet<GlobalSlot>,
        mut f: impl FnMut(Slot),
    ) {
        seen.add_new(&self.live_out[b], |k| f(self.global[k]));
    }

    /// An empty set over the global slots.
    pub fn new_global_set(&self) -> BitSet<GlobalSlot> {
        BitSet::new(self.global.len() as u32)
    }
}
