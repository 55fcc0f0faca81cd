//! Every instruction's slot accesses ([`super::access`]) computed once per version of the
//! shader and kept as columns: one pool of runs of consecutive slots, and per instruction
//! where its writes and its reads start in it. A SIMD16 float operand is one run of 16
//! slots, not 16 entries, and the hot consumers work on whole runs (word-level set
//! operations). Liveness, definitions, pressure, DCE, copy
//! propagation, CSE and coalescing read the same table instead of each re-deriving the
//! accesses from the operands on every query (issue 15: that re-derivation was a third of
//! the compile).
//!
//! After a pass changes the shader, the next table is made from the last one
//! ([`AccessTable::update`]): an instruction whose fields are what they were reads and
//! writes what it did, so only the instructions a pass touched or added are computed
//! again. That holds VGRF by VGRF, not only when the whole slot numbering is unchanged: an
//! instruction whose fields differ only in VGRF numbers, each VGRF of the size and the
//! [`super::access::Slots::read_unmasked`] flag its old one had, has each run moved by as
//! many slots as the VGRF holding it moved (a pass that appends, splits or renumbers VGRFs,
//! or flips one VGRF's flag, leaves the others' instructions as they were); unless a run
//! lies across two VGRFs, or runs of VGRFs that moved apart come to touch (computing the
//! instruction anew would join them), when it is computed again. The table keeps every
//! instruction's fields as keys compared whole ([`eubatch_ir::Operand::key`]), by
//! instruction number.
//!
//! The next table takes over the last one's storage when nothing else holds the last one
//! (the usual case: the pass manager drops the analyses built on it first), and then costs
//! what changed, not what the shader holds (issue 15: copying every instruction's fields
//! and runs into fresh arrays on every update was most of its cost): an unchanged
//! instruction keeps its runs and its copied fields where they are, and only gets the new
//! version's stamp (`Span::version`; an instruction without it has no accesses, so
//! nothing is cleared for the instructions a pass removed). A changed or new instruction's
//! runs and fields are appended, the ones they replace left unused until there are as many
//! unused as used entries, when the pool and the copied sources are compacted.
//!
//! The table describes the shader as it was when computed. A pass that rewrites an
//! instruction and then asks about that instruction again must ask [`super::access`]
//! directly for it (DCE and CSE do, for the instructions they change); rewriting an
//! instruction's sources leaves what every instruction *writes* as it was, which is what
//! copy propagation relies on while it walks.

use std::rc::Rc;

use eubatch_ir::shader::{Control, SendInfo};
use eubatch_ir::{Backend, Inst, Operand, RegFile, Shader};

use crate::analysis::access::{for_each_def_run, for_each_use_run, Slot, SlotRange, Slots};
use crate::analysis::nesting::Nesting;

/// The top bit of a write's entry: the write fully defines the slot.
const FULL: u32 = 1 << 31;
/// The next bit: it does so if the execution mask is not looked at (the third flag of
/// [`super::access::for_each_def_run`]).
const FULL_IGNORING_MASK: u32 = 1 << 30;
const SLOT_BITS: u32 = FULL_IGNORING_MASK - 1;
/// The most VGRFs an instruction kept through a renumbering may name (more: computed
/// again).
const MOVES: usize = 8;

/// Slots `first & SLOT_BITS .. end`, with the write flags in `first`'s top bits.
#[derive(Clone, Copy, Debug, Default)]
struct Run {
    first: u32,
    end: u32,
}

impl Run {
    fn slots(&self) -> SlotRange {
        Slot::new(self.first & SLOT_BITS)..Slot::new(self.end)
    }

    /// A write run as [`AccessTable::def_runs`] gives it: slots and flags.
    fn write(&self) -> (SlotRange, bool, bool) {
        (
            self.slots(),
            self.first & FULL != 0,
            self.first & FULL_IGNORING_MASK != 0,
        )
    }
}

/// Where one instruction's runs are in the pool: `defs` runs it writes from `start`, then
/// `uses` runs it reads.
#[derive(Clone, Copy, Debug, Default)]
struct Span {
    start: u32,
    defs: u32,
    uses: u32,
    /// The version of the table that computed or kept it: a span of another version is of
    /// an instruction that was not in the layout then (it has no accesses).
    version: u32,
}

/// An instruction's fields as the table saw them: everything its accesses depend on, as
/// keys compared whole ([`Operand::key`], [`head`]), not field by field.
#[derive(Clone, Copy, Debug)]
struct Fields {
    /// Opcode and control.
    head: u64,
    size_written: u32,
    dst: u128,
    send: Option<SendInfo>,
    /// Its sources' keys, in `AccessTable::srcs`.
    srcs: (u32, u32),
}

impl Default for Fields {
    fn default() -> Fields {
        Fields {
            head: u64::MAX,
            size_written: 0,
            dst: Operand::NULL.key(),
            send: None,
            srcs: (0, 0),
        }
    }
}

/// An instruction's opcode and control in one word.
fn head(shader: &Shader, inst: Inst) -> u64 {
    let c: Control = shader.insts.control[inst];
    c.exec_size as u64
        | (c.group as u64) << 8
        | (c.flags as u64) << 16
        | (c.predicate as u64) << 24
        | (c.flag_subreg as u64) << 32
        | (c.cmod as u64) << 40
        | (shader.insts.opcode[inst] as u64) << 48
}

/// What of the whole shader every instruction's accesses depend on.
#[derive(Clone, Debug, PartialEq)]
struct ShaderFacts {
    backend: Backend,
    dispatch_width: u8,
    vgrf_sizes: Vec<u32>,
}

impl ShaderFacts {
    fn of(shader: &Shader) -> ShaderFacts {
        ShaderFacts {
            backend: shader.backend,
            dispatch_width: shader.dispatch_width,
            vgrf_sizes: shader.vgrfs.iter().map(|l| l.size()).collect(),
        }
    }
}

/// What an update keeps of the last table.
enum Reuse {
    /// Nothing: the shader's facts changed (or there is no last table).
    Nothing,
    /// The runs of every unchanged instruction: the slot numbering is the same.
    Same,
    /// The runs of every instruction unchanged but for VGRF numbers, moved to the new
    /// numbering: the last one (its slots, its VGRF sizes) is not this one.
    Renumbered(Slots, Vec<u32>),
}

/// The accesses of every instruction in the layout, by instruction.
#[derive(Clone, Debug)]
pub struct AccessTable {
    pub slots: Slots,
    /// This table's version (spans of other versions are no one's).
    version: u32,
    /// Indexed by the instruction's number in the instruction arena.
    spans: Vec<Span>,
    pool: Vec<Run>,
    /// The fields of every instruction when its span was made, by instruction number.
    fields: Vec<Fields>,
    srcs: Vec<u128>,
    facts: ShaderFacts,
    /// What `compact` copies into (the arrays it replaced, kept for the next time).
    spare_pool: Vec<Run>,
    spare_srcs: Vec<u128>,
}

impl AccessTable {
    pub fn compute(shader: &Shader, nesting: &Nesting) -> AccessTable {
        let mut t = AccessTable {
            slots: Slots::of(shader, nesting),
            version: 0,
            spans: Vec::new(),
            // Room for the runs of every instruction twice over: updates append what
            // they compute again until half the pool is unused, and it is then compacted
            // into the same room (growing it copies the whole pool).
            pool: Vec::with_capacity(shader.num_insts() * 8 + 1024),
            fields: Vec::new(),
            srcs: Vec::with_capacity(shader.operands.len() * 2 + 1024),
            facts: ShaderFacts::of(shader),
            spare_pool: Vec::new(),
            spare_srcs: Vec::new(),
        };
        t.build(shader, Reuse::Nothing);
        t
    }

    /// The table of `shader`, computed whole into the storage of `old`, a table of another
    /// shader (the one a driver thread compiled before): nothing of `old` is kept but its
    /// room, which a shader's table otherwise allocates afresh.
    pub fn compute_reusing(old: AccessTable, shader: &Shader, nesting: &Nesting) -> AccessTable {
        let mut t = old;
        t.slots = Slots::of(shader, nesting);
        t.facts = ShaderFacts::of(shader);
        t.build(shader, Reuse::Nothing);
        #[cfg(debug_assertions)]
        t.assert_as_computed(shader, nesting);
        t
    }

    /// The table of `shader`, taking from `old` (a table of an earlier version of it) the
    /// accesses of every instruction whose fields have not changed since, but for the
    /// numbers of VGRFs of the same size and flag as before (their slots moved by where the
    /// VGRF now starts); else computed whole. Takes over `old`'s storage when nothing else
    /// holds it.
    pub fn update(old: Rc<AccessTable>, shader: &Shader, nesting: &Nesting) -> AccessTable {
        let slots = Slots::of(shader, nesting);
        let facts = ShaderFacts::of(shader);
        let mut t = Rc::try_unwrap(old).unwrap_or_else(|shared| (*shared).clone());
        let old_slots = std::mem::replace(&mut t.slots, slots);
        let old_facts = std::mem::replace(&mut t.facts, facts);
        let reuse = if old_facts.backend != t.facts.backend
            || old_facts.dispatch_width != t.facts.dispatch_width
        {
            Reuse::Nothing
        } else if old_slots == t.slots && old_facts.vgrf_sizes == t.facts.vgrf_sizes {
            Reuse::Same
        } else {
            Reuse::Renumbered(old_slots, old_facts.vgrf_sizes)
        };
        t.build(shader, reuse);
        #[cfg(debug_assertions)]
        t.assert_as_computed(shader, nesting);
        t
    }

    /// Checks (in debug builds) that an updated table holds what computing it anew gives.
    #[cfg(debug_assertions)]
    fn assert_as_computed(&self, shader: &Shader, nesting: &Nesting) {
        let fresh = AccessTable::compute(shader, nesting);
        for block in shader.layout.blocks.iter() {
            for &inst in &block.insts {
                assert!(
                    self.def_runs(inst).eq(fresh.def_runs(inst))
                        && self.use_runs(inst).eq(fresh.use_runs(inst)),
                    "the access table's update of {inst:?} differs from its computation"
                );
            }
        }
    }

    /// Makes this table (of an earlier version, or empty) the table of `shader`, keeping
    /// the runs of the instructions `reuse` allows.
    fn build(&mut self, shader: &Shader, reuse: Reuse) {
        let n = shader.insts.opcode.len();
        let old = self.version;
        let version = old + 1;
        self.version = version;
        if self.spans.len() < n {
            self.spans.resize(n, Span::default());
            self.fields.resize(n, Fields::default());
        }
        if matches!(reuse, Reuse::Nothing) {
            self.pool.clear();
            self.srcs.clear();
        }
        let flag0 = self.slots.vgrf_slots;
        // Entries of the pool and of the copied sources in use, to know when to compact.
        let (mut used_runs, mut used_srcs) = (0usize, 0usize);
        for block in shader.layout.blocks.iter() {
            for &inst in &block.insts {
                let i = inst.index();
                let ops = shader.srcs(inst);
                used_srcs += ops.len();
                let kept = self.spans[i].version == old
                    && match &reuse {
                        Reuse::Nothing => false,
                        Reuse::Same => self.unchanged(shader, inst, ops),
                        Reuse::Renumbered(slots, sizes) => {
                            self.renumbered(shader, inst, ops, slots, sizes)
                        }
                    };
                if kept {
                    let sp = &mut self.spans[i];
                    sp.version = version;
                    used_runs += (sp.defs + sp.uses) as usize;
                    continue;
                }
                let at = self.srcs.len() as u32;
                self.srcs.extend(ops.iter().map(Operand::key));
                self.fields[i] = Fields {
                    head: head(shader, inst),
                    size_written: shader.insts.size_written[inst],
                    dst: shader.insts.dst[inst].key(),
                    send: shader.send_info(inst).copied(),
                    srcs: (at, ops.len() as u32),
                };
                let (slots, pool) = (&self.slots, &mut self.pool);
                let start = pool.len() as u32;
                for_each_def_run(shader, slots, inst, |s, full, full_ignoring_mask| {
                    let s = s.start.get()..s.end.get();
                    debug_assert!(s.end <= SLOT_BITS, "slots {s:?} out of the table's range");
                    let flags = if full { FULL } else { 0 }
                        | if full_ignoring_mask {
                            FULL_IGNORING_MASK
                        } else {
                            0
                        };
                    // The next slots with the same flags join this instruction's last run
                    // (a run stays on one side of the first flag slot).
                    let mine = pool.len() as u32 > start && s.start != flag0;
                    match pool.last_mut() {
                        Some(r) if mine && r.end == s.start && r.first & !SLOT_BITS == flags => {
                            r.end = s.end
                        }
                        _ => pool.push(Run {
                            first: s.start | flags,
                            end: s.end,
                        }),
                    }
                });
                let defs = pool.len() as u32 - start;
                let uses_start = pool.len() as u32;
                for_each_use_run(shader, slots, inst, |s| {
                    let s = s.start.get()..s.end.get();
                    // Reads are a set: slots starting within the last run, or just after
                    // it, join it.
                    let mine = pool.len() as u32 > uses_start;
                    match pool.last_mut() {
                        Some(r)
                            if mine
                                && r.first <= s.start
                                && s.start <= r.end
                                && s.start != flag0 =>
                        {
                            r.end = r.end.max(s.end)
                        }
                        _ => pool.push(Run {
                            first: s.start,
                            end: s.end,
                        }),
                    }
                });
                let uses = pool.len() as u32 - start - defs;
                used_runs += (defs + uses) as usize;
                self.spans[i] = Span {
                    start,
                    defs,
                    uses,
                    version,
                };
            }
        }
        if self.pool.len() > 2 * used_runs + 1024 || self.srcs.len() > 2 * used_srcs + 1024 {
            self.compact(shader);
        }
    }

    /// Copies the runs and the sources of the instructions in the layout into fresh arrays,
    /// dropping those no span of this version refers to.
    fn compact(&mut self, shader: &Shader) {
        // Into the spare arrays, then swapped with these: after the first compaction no
        // update allocates, and with as much room as the arrays had, the updates that
        // follow append what they compute again without growing them (each growth copied
        // the whole pool) until the next compaction is due.
        let mut pool = std::mem::take(&mut self.spare_pool);
        let mut srcs = std::mem::take(&mut self.spare_srcs);
        pool.clear();
        srcs.clear();
        pool.reserve(self.pool.capacity());
        srcs.reserve(self.srcs.capacity());
        for block in shader.layout.blocks.iter() {
            for &inst in &block.insts {
                let (sp, f) = (
                    &mut self.spans[inst.index()],
                    &mut self.fields[inst.index()],
                );
                let from = sp.start as usize;
                sp.start = pool.len() as u32;
                pool.extend_from_slice(&self.pool[from..from + (sp.defs + sp.uses) as usize]);
                let (at, len) = f.srcs;
                f.srcs.0 = srcs.len() as u32;
                srcs.extend_from_slice(&self.srcs[at as usize..(at + len) as usize]);
            }
        }
        self.spare_pool = std::mem::replace(&mut self.pool, pool);
        self.spare_srcs = std::mem::replace(&mut self.srcs, srcs);
    }

    /// Whether `inst`'s fields (opcode, control, destination, size written, message
    /// fields, sources `ops`) are those its span was made from.
    fn unchanged(&self, shader: &Shader, inst: Inst, ops: &[Operand]) -> bool {
        let f = &self.fields[inst.index()];
        let (at, len) = f.srcs;
        f.head == head(shader, inst)
            && f.dst == shader.insts.dst[inst].key()
            && f.size_written == shader.insts.size_written[inst]
            && len as usize == ops.len()
            && self.srcs[at as usize..(at + len) as usize]
                .iter()
                .zip(ops)
                .all(|(&k, o)| k == o.key())
            && f.send.as_ref() == shader.send_info(inst)
    }

    /// Whether `inst`'s fields are those its span was made from but for the numbers of the
    /// VGRFs it names, each of the same size and flag ([`Slots::read_unmasked`]) in the
    /// numbering `old` (VGRF sizes `old_sizes`) as now. If so, moves each of its runs by as
    /// many slots as the VGRF holding it moved (those of flags by as many as the flags
    /// moved) and notes the new numbers, making its span this shader's. The VGRFs it names
    /// may move by different distances (a compaction renumbers the ones between them); a
    /// run that does not lie within one of them (reads of two neighbouring VGRFs joined
    /// into one run) is computed again instead.
    fn renumbered(
        &mut self,
        shader: &Shader,
        inst: Inst,
        ops: &[Operand],
        old: &Slots,
        old_sizes: &[u32],
    ) -> bool {
        let new = &self.slots;
        let sizes = &self.facts.vgrf_sizes;
        let f = &self.fields[inst.index()];
        let (at, len) = f.srcs;
        if f.head != head(shader, inst)
            || f.size_written != shader.insts.size_written[inst]
            || len as usize != ops.len()
            || f.send.as_ref() != shader.send_info(inst)
        {
            return false;
        }
        // The old slots of each VGRF named and how far they moved: a few per instruction
        // (a fixed array: this is asked of every instruction on every such update).
        let mut moves: [(u32, u32, i64); MOVES] = [(0, 0, 0); MOVES];
        let mut n_moves = 0;
        let mut same = |was: u128, op: &Operand| {
            let key = op.key();
            if key == was && op.file != RegFile::Vgrf {
                return true;
            }
            if (key ^ was) & !Operand::KEY_NR != 0 || op.file != RegFile::Vgrf {
                return false;
            }
            let (a, b) = (((was & Operand::KEY_NR) >> 32) as usize, op.nr as usize);
            if a >= old.base.len() || b >= new.base.len() {
                return false;
            }
            let slots = sizes[b].div_ceil(super::access::SLOT);
            if old_sizes[a] != sizes[b] || !old.same_unmasked(a, new, b, slots) {
                return false;
            }
            let from = old.base[a].get();
            let d = new.base[b].get() as i64 - from as i64;
            match moves[..n_moves].iter().find(|m| m.0 == from) {
                Some(m) => m.2 == d,
                None if n_moves < MOVES => {
                    moves[n_moves] = (from, from + slots, d);
                    n_moves += 1;
                    true
                }
                None => false,
            }
        };
        let dst = shader.insts.dst[inst];
        if !same(f.dst, &dst)
            || !self.srcs[at as usize..(at + len) as usize]
                .iter()
                .zip(ops)
                .all(|(&k, o)| same(k, o))
        {
            return false;
        }
        let moves = &moves[..n_moves];
        let old_flag0 = old.vgrf_slots;
        let df = new.vgrf_slots as i64 - old_flag0 as i64;
        let sp = self.spans[inst.index()];
        let runs = sp.start as usize..(sp.start + sp.defs + sp.uses) as usize;
        // Each run's distance, checked for all before any run is moved.
        let distance = |r: &Run| -> Option<i64> {
            let first = r.first & SLOT_BITS;
            if first >= old_flag0 {
                return Some(df);
            }
            moves
                .iter()
                .find(|m| m.0 <= first && r.end <= m.1)
                .map(|m| m.2)
        };
        if self.pool[runs.clone()]
            .iter()
            .any(|r| distance(r).is_none())
        {
            return false;
        }
        // Runs of VGRFs that moved apart can come to touch: computing the instruction
        // anew would then join them into one (as `build` joins the pieces it is given), so
        // it is computed anew. (Moved together, runs keep their distance.)
        let new_flag0 = new.vgrf_slots;
        let moved = |r: &Run| {
            let by = distance(r).unwrap();
            (
                ((r.first & SLOT_BITS) as i64 + by) as u32,
                (r.end as i64 + by) as u32,
            )
        };
        let (defs, uses) = self.pool[runs.clone()].split_at(sp.defs as usize);
        let writes_join = defs.windows(2).any(|w| {
            let ((_, a_end), (b_first, _)) = (moved(&w[0]), moved(&w[1]));
            a_end == b_first
                && w[0].first & !SLOT_BITS == w[1].first & !SLOT_BITS
                && b_first != new_flag0
        });
        let reads_join = uses.windows(2).any(|w| {
            let ((a_first, a_end), (b_first, _)) = (moved(&w[0]), moved(&w[1]));
            a_first <= b_first && b_first <= a_end && b_first != new_flag0
        });
        if writes_join || reads_join {
            return false;
        }
        if df != 0 || moves.iter().any(|m| m.2 != 0) {
            for k in runs {
                let r = self.pool[k];
                let by = distance(&r).unwrap();
                self.pool[k] = Run {
                    first: (r.first as i64 + by) as u32,
                    end: (r.end as i64 + by) as u32,
                };
            }
        }
        self.fields[inst.index()].dst = dst.key();
        for (k, o) in self.srcs[at as usize..(at + len) as usize]
            .iter_mut()
            .zip(ops)
        {
            *k = o.key();
        }
        true
    }

    /// The runs of slots `inst` writes, each with whether it fully defines them, and
    /// whether it would if the execution mask were not looked at
    /// ([`super::access::for_each_def_run`]), in increasing order.
    pub fn def_runs(&self, inst: Inst) -> impl Iterator<Item = (SlotRange, bool, bool)> + '_ {
        self.pool[self.def_span(inst)].iter().map(Run::write)
    }

    /// The runs of slots `inst` reads ([`super::access::for_each_use_run`]; runs may overlap).
    /// Like the runs it writes, none holds both VGRF and flag slots.
    pub fn use_runs(&self, inst: Inst) -> impl Iterator<Item = SlotRange> + '_ {
        let sp = self.span(inst);
        let from = (sp.start + sp.defs) as usize;
        self.pool[from..from + sp.uses as usize]
            .iter()
            .map(|r| r.slots())
    }

    /// [`AccessTable::def_runs`] and [`AccessTable::use_runs`] of `inst` together, its
    /// place in the table looked up once (the walks that want both).
    #[inline]
    pub fn runs(
        &self,
        inst: Inst,
    ) -> (
        impl Iterator<Item = (SlotRange, bool, bool)> + '_,
        impl Iterator<Item = SlotRange> + '_,
    ) {
        let sp = self.span(inst);
        let (start, mid) = (sp.start as usize, (sp.start + sp.defs) as usize);
        let (defs, uses) = self.pool[start..mid + sp.uses as usize].split_at(mid - start);
        (defs.iter().map(Run::write), uses.iter().map(Run::slots))
    }

    /// The slots `inst` writes, each with whether it fully defines it (the second flag of
    /// [`super::access::for_each_def_run`]).
    #[inline]
    pub fn defs(&self, inst: Inst) -> impl Iterator<Item = (Slot, bool)> + '_ {
        self.def_runs(inst)
            .flat_map(|(r, full, _)| Slot::each(r).map(move |s| (s, full)))
    }

    /// The slots `inst` reads ([`super::access::for_each_use_run`]; a slot may come twice).
    pub fn uses(&self, inst: Inst) -> impl Iterator<Item = Slot> + '_ {
        self.use_runs(inst).flat_map(Slot::each)
    }

    /// Where `inst`'s write runs are in the pool.
    fn def_span(&self, inst: Inst) -> std::ops::Range<usize> {
        let sp = self.span(inst);
        sp.start as usize..(sp.start + sp.defs) as usize
    }

    fn span(&self, inst: Inst) -> Span {
        self.spans
            .get(inst.index())
            .filter(|sp| sp.version == self.version)
            .copied()
            .unwrap_or_default()
    }
}
