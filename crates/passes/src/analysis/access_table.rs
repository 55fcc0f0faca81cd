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
//! ([`AccessTable::update`]): an instruction whose fields are what they were, in a shader
//! whose slot numbering and VGRF sizes are what they were, reads and writes what it did,
//! so only the instructions a pass touched or added are computed again. Each table keeps
//! a copy of every instruction's fields for that comparison.
//!
//! The table describes the shader as it was when computed. A pass that rewrites an
//! instruction and then asks about that instruction again must ask [`super::access`]
//! directly for it (DCE and CSE do, for the instructions they change); rewriting an
//! instruction's sources leaves what every instruction *writes* as it was, which is what
//! copy propagation relies on while it walks.

use eubatch_ir::shader::{Control, SendInfo};
use eubatch_ir::{Backend, Inst, Opcode, Operand, Shader};

use crate::analysis::access::{for_each_def_run, for_each_use_run, Slot, SlotRange, Slots};
use crate::analysis::nesting::Nesting;

/// The top bit of a write's entry: the write fully defines the slot.
const FULL: u32 = 1 << 31;
/// The next bit: it does so if the execution mask is not looked at (the third flag of
/// [`super::access::for_each_def_run`]).
const FULL_IGNORING_MASK: u32 = 1 << 30;
const SLOT_BITS: u32 = FULL_IGNORING_MASK - 1;

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
}

/// Where one instruction's runs are in the pool: `defs` runs it writes from `start`, then
/// `uses` runs it reads.
#[derive(Clone, Copy, Debug, Default)]
struct Span {
    start: u32,
    defs: u32,
    uses: u32,
    /// One more than the instruction's place in `AccessTable::fields` (0: none).
    field: u32,
}

/// An instruction's fields as the table saw them: everything its accesses depend on.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Fields {
    opcode: Opcode,
    control: Control,
    dst: Operand,
    size_written: u32,
    send: Option<SendInfo>,
    /// Its sources, in `AccessTable::srcs`.
    srcs: (u32, u32),
}

/// What of the whole shader every instruction's accesses depend on.
#[derive(Debug, PartialEq)]
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

/// The accesses of every instruction in the layout, by instruction.
#[derive(Debug)]
pub struct AccessTable {
    pub slots: Slots,
    /// Indexed by the instruction's number in the instruction arena (instructions no longer
    /// in the layout have none).
    spans: Vec<Span>,
    pool: Vec<Run>,
    /// The fields of every instruction of the layout when computed, in layout order (an
    /// instruction's `Span::fields` less one is its place here).
    fields: Vec<Fields>,
    srcs: Vec<Operand>,
    facts: ShaderFacts,
}

impl AccessTable {
    pub fn compute(shader: &Shader, nesting: &Nesting) -> AccessTable {
        AccessTable::build(
            shader,
            Slots::of(shader, nesting),
            ShaderFacts::of(shader),
            None,
        )
    }

    /// The table of `shader`, taking from `old` (a table of an earlier version of it) the
    /// accesses of every instruction whose fields have not changed since, when the slot
    /// numbering and what else they depend on are the same; else computed whole.
    pub fn update(old: &AccessTable, shader: &Shader, nesting: &Nesting) -> AccessTable {
        let slots = Slots::of(shader, nesting);
        let facts = ShaderFacts::of(shader);
        let reuse = slots == old.slots && facts == old.facts;
        AccessTable::build(shader, slots, facts, reuse.then_some(old))
    }

    fn build(
        shader: &Shader,
        slots: Slots,
        facts: ShaderFacts,
        old: Option<&AccessTable>,
    ) -> AccessTable {
        let n = shader.insts.opcode.len();
        let mut spans = vec![Span::default(); n];
        let mut fields = Vec::with_capacity(shader.num_insts());
        let mut pool = Vec::with_capacity(old.map_or(n * 8, |o| o.pool.len()));
        let mut srcs = Vec::with_capacity(shader.operands.len());
        let flag0 = slots.vgrf_slots;
        for inst in shader.layout.insts() {
            let ops = shader.srcs(inst);
            let f = Fields {
                opcode: shader.insts.opcode[inst],
                control: shader.insts.control[inst],
                dst: shader.insts.dst[inst],
                size_written: shader.insts.size_written[inst],
                send: shader.send_info(inst).copied(),
                srcs: (srcs.len() as u32, ops.len() as u32),
            };
            srcs.extend_from_slice(ops);
            fields.push(f);
            let field = fields.len() as u32;
            let start = pool.len() as u32;
            if let Some(sp) = old.and_then(|o| o.unchanged(inst, &f, ops)) {
                let o = old.unwrap();
                let from = sp.start as usize;
                pool.extend_from_slice(&o.pool[from..from + (sp.defs + sp.uses) as usize]);
                spans[inst.index()] = Span { start, field, ..sp };
                continue;
            }
            for_each_def_run(shader, &slots, inst, |s, full, full_ignoring_mask| {
                let s = s.start.get()..s.end.get();
                debug_assert!(s.end <= SLOT_BITS, "slots {s:?} out of the table's range");
                let flags = if full { FULL } else { 0 }
                    | if full_ignoring_mask {
                        FULL_IGNORING_MASK
                    } else {
                        0
                    };
                // The next slots with the same flags join this instruction's last run (a
                // run stays on one side of the first flag slot).
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
            for_each_use_run(shader, &slots, inst, |s| {
                let s = s.start.get()..s.end.get();
                // Reads are a set: slots starting within the last run, or just after it,
                // join it.
                let mine = pool.len() as u32 > uses_start;
                match pool.last_mut() {
                    Some(r)
                        if mine && r.first <= s.start && s.start <= r.end && s.start != flag0 =>
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
            spans[inst.index()] = Span {
                start,
                defs,
                uses,
                field,
            };
        }
        AccessTable {
            slots,
            spans,
            pool,
            fields,
            srcs,
            facts,
        }
    }

    /// `inst`'s span here, if it had the fields `f` (and sources `ops`) when computed.
    fn unchanged(&self, inst: Inst, f: &Fields, ops: &[Operand]) -> Option<Span> {
        let sp = self.spans.get(inst.index())?;
        let old = *self.fields.get((sp.field as usize).checked_sub(1)?)?;
        let (at, len) = old.srcs;
        let same = Fields {
            srcs: old.srcs,
            ..*f
        } == old
            && self.srcs[at as usize..(at + len) as usize] == *ops;
        same.then(|| self.spans[inst.index()])
    }

    /// The runs of slots `inst` writes, each with whether it fully defines them, and
    /// whether it would if the execution mask were not looked at
    /// ([`super::access::for_each_def_run`]), in increasing order.
    pub fn def_runs(&self, inst: Inst) -> impl Iterator<Item = (SlotRange, bool, bool)> + '_ {
        self.pool[self.def_span(inst)].iter().map(|r| {
            (
                r.slots(),
                r.first & FULL != 0,
                r.first & FULL_IGNORING_MASK != 0,
            )
        })
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
        self.spans.get(inst.index()).copied().unwrap_or_default()
    }
}
