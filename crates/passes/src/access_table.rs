//! Every instruction's slot accesses ([`crate::access`]) computed once per version of the
//! shader and kept as columns: one pool of slot numbers, and per instruction where its
//! writes and its reads start in it. Liveness, definitions, pressure, DCE, copy
//! propagation, CSE and coalescing read the same table instead of each re-deriving the
//! accesses from the operands on every query (issue 15: that re-derivation was a third of
//! the compile).
//!
//! The table describes the shader as it was when computed. A pass that rewrites an
//! instruction and then asks about that instruction again must ask [`crate::access`]
//! directly for it (DCE and CSE do, for the instructions they change); rewriting an
//! instruction's sources leaves what every instruction *writes* as it was, which is what
//! copy propagation relies on while it walks.

use eubatch_ir::{Inst, Shader};

use crate::access::{for_each_def_both, for_each_use, Slots};

/// The top bit of a write's entry: the write fully defines the slot.
const FULL: u32 = 1 << 31;
/// The next bit: it does so if the execution mask is not looked at
/// ([`crate::access::for_each_def_ignoring_mask`]).
const FULL_IGNORING_MASK: u32 = 1 << 30;
const SLOT_BITS: u32 = FULL_IGNORING_MASK - 1;

/// Where one instruction's entries are in the pool: `defs` writes from `start`, then
/// `uses` reads.
#[derive(Clone, Copy, Debug, Default)]
struct Span {
    start: u32,
    defs: u32,
    uses: u32,
}

/// The accesses of every instruction in the layout, by instruction.
#[derive(Debug)]
pub struct AccessTable {
    pub slots: Slots,
    /// Indexed by the instruction's number in the instruction arena (instructions no longer
    /// in the layout have none).
    spans: Vec<Span>,
    pool: Vec<u32>,
}

impl AccessTable {
    pub fn compute(shader: &Shader) -> AccessTable {
        let slots = Slots::of(shader);
        let mut spans = vec![Span::default(); shader.insts.opcode.len()];
        let mut pool = Vec::with_capacity(shader.insts.opcode.len() * 8);
        for inst in shader.layout.insts() {
            let start = pool.len() as u32;
            for_each_def_both(shader, &slots, inst, |s, full, full_ignoring_mask| {
                debug_assert!(s <= SLOT_BITS, "slot {s} out of the table's range");
                pool.push(
                    s | if full { FULL } else { 0 }
                        | if full_ignoring_mask {
                            FULL_IGNORING_MASK
                        } else {
                            0
                        },
                );
            });
            let defs = pool.len() as u32 - start;
            for_each_use(shader, &slots, inst, |s| pool.push(s));
            let uses = pool.len() as u32 - start - defs;
            spans[inst.index()] = Span { start, defs, uses };
        }
        AccessTable { slots, spans, pool }
    }

    /// The slots `inst` writes, each with whether it fully defines it
    /// ([`crate::access::for_each_def`]).
    pub fn defs(&self, inst: Inst) -> impl Iterator<Item = (u32, bool)> + '_ {
        let sp = self.span(inst);
        self.pool[sp.start as usize..(sp.start + sp.defs) as usize]
            .iter()
            .map(|&e| (e & SLOT_BITS, e & FULL != 0))
    }

    /// [`AccessTable::defs`], with a write under the execution mask taken as whole
    /// ([`crate::access::for_each_def_ignoring_mask`]).
    pub fn defs_ignoring_mask(&self, inst: Inst) -> impl Iterator<Item = (u32, bool)> + '_ {
        let sp = self.span(inst);
        self.pool[sp.start as usize..(sp.start + sp.defs) as usize]
            .iter()
            .map(|&e| (e & SLOT_BITS, e & FULL_IGNORING_MASK != 0))
    }

    /// The slots `inst` reads ([`crate::access::for_each_use`]; a slot may come twice).
    pub fn uses(&self, inst: Inst) -> &[u32] {
        let sp = self.span(inst);
        let from = (sp.start + sp.defs) as usize;
        &self.pool[from..from + sp.uses as usize]
    }

    fn span(&self, inst: Inst) -> Span {
        self.spans.get(inst.index()).copied().unwrap_or_default()
    }
}
