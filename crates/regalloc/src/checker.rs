//! A checker that trusts no allocator (regalloc2's `checker.rs` idea, at byte granularity):
//! given a lowered shader, its [`Constraints`] and an [`Allocation`], it says whether the
//! allocation is one the hardware could run, and if not, which rule fails, naming the
//! VGRFs, the program point and the register byte.
//!
//! What it checks, each against its [`constraints`] rule:
//! - every placed VGRF lies inside the register file, above the thread's inputs, in
//!   consecutive whole registers when larger than one, inside one register at a 4-byte
//!   offset otherwise, on no reserved register (spill message registers, a register
//!   budget); every VGRF an end-of-thread send reads lies in g112-g127; every spill
//!   temporary has a register; gen8+ SIMD8 message destinations stay off g127; the pairs
//!   an instruction keeps apart (source/destination hazards, split-send payloads) do not
//!   overlap;
//! - every VGRF an instruction accesses has a register (or did not fit: the shader needs
//!   spills, and what was not placed is not checked);
//! - at every program point, no two values that are live *and defined* there share a
//!   byte, and no instruction writes a byte of a value live after it other than its own.
//!
//! Liveness is not the allocator's: it is the analysis layer's per-slot dataflow
//! ([`eubatch_passes::analysis::liveness`], block boundaries) walked backwards through each
//! block instruction by instruction, never the linear intervals allocators are given. A
//! slot is "defined" where some write of it may have happened before (a forward dataflow
//! over the slots live across blocks): a value read before any write holds nothing, so it
//! may share bytes with anything (as the analysis layer's intervals assume for the entry
//! block). Slots are 4 bytes and every placed slot starts a 4-byte word of the register file,
//! so the file is tracked word by word (an owner per word), which names the same first shared
//! byte an owner per byte would; the walk goes by the access table's runs of slots.
//!
//! Not checked yet (issue 16): that every read reads the bytes its reaching definitions
//! wrote through moves (regalloc2's full abstract interpretation: there are no moves to
//! check before spilling exists), and the constraints not modelled in [`constraints`].

use index_vec::Idx;

use eubatch_ir::cfg::Cfg;
use eubatch_ir::{Block, Inst, Shader, Vgrf};
use eubatch_passes::analysis::access::{Slot, SlotRange, Slots, SLOT};
use eubatch_passes::analysis::bitset::BitSet;
use eubatch_passes::analysis::liveness::{GlobalSlot, Liveness};
use eubatch_passes::analysis::scratch_set::ScratchSet;
use eubatch_passes::PassCx;

use crate::constraints::{self, Constraints, Rule};
use crate::{Allocation, Placement, Reg};

/// Where in the program a violation is: just before or just after the instruction at a
/// point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct At {
    pub point: u32,
    pub inst: Inst,
    pub after: bool,
}

impl std::fmt::Display for At {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let when = if self.after { "after" } else { "before" };
        write!(f, "{when} point {} ({})", self.point, self.inst)
    }
}

/// Why an allocation is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Violation {
    /// The allocation has a placement count other than the VGRF table's.
    WrongLength {
        vgrfs: usize,
        placements: usize,
    },
    /// Liveness cannot be computed (why).
    NoLiveness(String),
    OutsideFile {
        vgrf: Vgrf,
        at: Reg,
        bytes: u32,
    },
    /// A VGRF on input register `input` whose live range starts at or before the
    /// register's last access.
    Reserved {
        vgrf: Vgrf,
        at: Reg,
        input: u32,
        last_use: Option<u32>,
    },
    NotContiguous {
        vgrf: Vgrf,
        at: Reg,
        bytes: u32,
    },
    SubRegister {
        vgrf: Vgrf,
        at: Reg,
        bytes: u32,
    },
    EotPayload {
        vgrf: Vgrf,
        at: Reg,
        inst: At,
    },
    /// A gen8+ SIMD8 message destination touches g127.
    SendDstR127 {
        vgrf: Vgrf,
        at: Reg,
    },
    /// Two VGRFs an instruction must keep apart overlap (`rule` says how).
    Overlap {
        a: Vgrf,
        b: Vgrf,
        inst: At,
        rule: &'static Rule,
    },
    /// A VGRF on a register the constraints reserve.
    ReservedRegister {
        vgrf: Vgrf,
        at: Reg,
        grf: u32,
    },
    /// A spill temporary left without a register.
    SpillTemporary {
        vgrf: Vgrf,
    },
    /// An instruction accesses a VGRF the allocation says is never accessed.
    Unplaced {
        vgrf: Vgrf,
        inst: At,
    },
    /// Two values live and defined at one point share a byte.
    SharedByte {
        a: Vgrf,
        b: Vgrf,
        inst: At,
        byte: Reg,
    },
    /// An instruction writing `written` lands on a byte of `live`, live after it.
    Clobber {
        written: Vgrf,
        live: Vgrf,
        inst: At,
        byte: Reg,
    },
}

impl Violation {
    /// The rule it breaks.
    pub fn rule(&self) -> Option<&'static Rule> {
        use Violation::*;
        Some(match self {
            WrongLength { .. } | NoLiveness(_) => return None,
            OutsideFile { .. } => &constraints::REGISTER_FILE,
            Reserved { .. } => &constraints::THREAD_INPUTS,
            NotContiguous { .. } => &constraints::CONTIGUOUS,
            SubRegister { .. } => &constraints::SUB_REGISTER,
            EotPayload { .. } => &constraints::EOT_PAYLOAD,
            SendDstR127 { .. } => &constraints::SEND_DST_NOT_R127,
            Overlap { rule, .. } => rule,
            ReservedRegister { .. } => &constraints::SPILL_MRFS,
            SpillTemporary { .. } => &constraints::SPILL_TEMPORARIES,
            Unplaced { .. } | SharedByte { .. } | Clobber { .. } => &constraints::NO_SHARED_BYTE,
        })
    }
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use Violation::*;
        match self {
            WrongLength { vgrfs, placements } => write!(
                f,
                "the allocation has {placements} placements for {vgrfs} VGRFs"
            )?,
            NoLiveness(why) => write!(f, "cannot check: no liveness: {why}")?,
            OutsideFile { vgrf, at, bytes } => write!(
                f,
                "vgrf{} ({bytes} bytes) at {at} leaves the register file",
                vgrf.index()
            )?,
            Reserved {
                vgrf,
                at,
                input,
                last_use,
            } => write!(
                f,
                "vgrf{} at {at} takes g{input}, a register of the thread's inputs{}",
                vgrf.index(),
                match last_use {
                    Some(p) => format!(" accessed until point {p}, before the value starts"),
                    None => String::new(),
                }
            )?,
            NotContiguous { vgrf, at, bytes } => write!(
                f,
                "vgrf{} ({bytes} bytes, more than a register) at {at} does not start a register",
                vgrf.index()
            )?,
            SubRegister { vgrf, at, bytes } => write!(
                f,
                "vgrf{} ({bytes} bytes) at {at} crosses a register or is not at a multiple of 4 bytes",
                vgrf.index()
            )?,
            EotPayload { vgrf, at, inst } => write!(
                f,
                "vgrf{} at {at} is read by the end-of-thread send {inst}, below g112",
                vgrf.index()
            )?,
            SendDstR127 { vgrf, at } => write!(
                f,
                "vgrf{}, a SIMD8 message destination, at {at} touches g127",
                vgrf.index()
            )?,
            Overlap { a, b, inst, .. } => write!(
                f,
                "vgrf{} and vgrf{} overlap, which {inst} forbids",
                a.index(),
                b.index()
            )?,
            ReservedRegister { vgrf, at, grf } => write!(
                f,
                "vgrf{} at {at} takes g{grf}, a reserved register (spill message registers or outside the register budget)",
                vgrf.index()
            )?,
            SpillTemporary { vgrf } => write!(
                f,
                "vgrf{}, a spill temporary, has no register",
                vgrf.index()
            )?,
            Unplaced { vgrf, inst } => write!(
                f,
                "vgrf{} is accessed {inst} but has no register",
                vgrf.index()
            )?,
            SharedByte { a, b, inst, byte } => write!(
                f,
                "vgrf{} and vgrf{} are both live {inst} and share byte {byte}",
                a.index(),
                b.index()
            )?,
            Clobber {
                written,
                live,
                inst,
                byte,
            } => write!(
                f,
                "the write of vgrf{} at point {} ({}) lands on byte {byte} of vgrf{}, live after it",
                written.index(),
                inst.point,
                inst.inst,
                live.index()
            )?,
        }
        if let Some(r) = self.rule() {
            write!(f, " [{r}]")?;
        }
        Ok(())
    }
}

/// Slot bytes of a VGRF with no register.
const NOT_PLACED: u32 = u32::MAX;
/// Slot bytes of a VGRF the allocation says is never accessed.
const UNUSED: u32 = u32::MAX - 1;

/// Checks `allocation` of `shader` under `c`: the first violation found, if any.
pub fn check(
    shader: &Shader,
    cx: &mut PassCx,
    c: &Constraints,
    allocation: &Allocation,
) -> Result<(), Violation> {
    let nv = shader.vgrfs.len();
    if allocation.placement.len() != nv {
        return Err(Violation::WrongLength {
            vgrfs: nv,
            placements: allocation.placement.len(),
        });
    }
    // Where each value's live range starts, for the thread-inputs rule (the analysis
    // layer's intervals; none: every input register stays reserved).
    let intervals = cx.intervals(shader);
    let start = |v: Vgrf| {
        intervals
            .as_ref()
            .map_or(0, |iv| iv.vgrf(shader, v).start.get())
    };
    check_placements(shader, c, allocation, start)?;
    let points = cx.points(shader);
    let at_inst = |inst: Inst, after: bool| At {
        point: points.of(inst).map_or(u32::MAX, |p| p.get()),
        inst,
        after,
    };
    for &(inst, v) in &c.eot_reads {
        if let Placement::At(at) = allocation.get(v) {
            if at.grf < c.eot_first_grf {
                return Err(Violation::EotPayload {
                    vgrf: v,
                    at,
                    inst: at_inst(inst, false),
                });
            }
        }
    }
    check_instruction_rules(shader, c, allocation, &at_inst)?;
    let cfg = cx.cfg(shader).map_err(Violation::NoLiveness)?;
    let Some(live) = cx.liveness(shader) else {
        return Err(Violation::NoLiveness("liveness cannot be computed".into()));
    };
    let bytes = SlotBytes::of(shader, &live.access.slots, allocation, c.reg_size);
    let reached = Reached::compute(shader, &live, &cfg, bytes.vgrf.len());
    let mut walk = Walk::new(shader, &live, c, &bytes, &reached);
    for b in shader.layout.blocks.indices() {
        walk.block(b, &at_inst)?;
    }
    Ok(())
}

/// The rules instructions impose whatever liveness says: gen8+ SIMD8 message destinations
/// off g127 ([`constraints::SEND_DST_NOT_R127`]), and the pairs of [`Constraints::apart`]
/// sharing no byte ([`constraints::SOURCE_DESTINATION_HAZARD`]) or no register
/// ([`constraints::SPLIT_SEND_PAYLOADS`]).
fn check_instruction_rules(
    shader: &Shader,
    c: &Constraints,
    allocation: &Allocation,
    at_inst: &dyn Fn(Inst, bool) -> At,
) -> Result<(), Violation> {
    let reg = c.reg_size;
    for (v, layout) in shader.vgrfs.iter_enumerated() {
        if let (Placement::At(at), Some(true)) = (allocation.get(v), c.not_r127.get(v.index())) {
            if at.registers(layout, reg).contains(&127) {
                return Err(Violation::SendDstR127 { vgrf: v, at });
            }
        }
    }
    for p in &c.apart {
        let (Placement::At(ra), Placement::At(rb)) = (allocation.get(p.a), allocation.get(p.b))
        else {
            continue;
        };
        let (la, lb) = (&shader.vgrfs[p.a], &shader.vgrfs[p.b]);
        let overlap = if p.rule.name == constraints::SPLIT_SEND_PAYLOADS.name {
            let (x, y) = (ra.registers(la, reg), rb.registers(lb, reg));
            x.start < y.end && y.start < x.end
        } else {
            let start = |r: Reg| r.grf * reg + r.offset;
            let (xa, ya) = (start(ra), start(rb));
            xa < ya + constraints::extent(lb) && ya < xa + constraints::extent(la)
        };
        if overlap {
            return Err(Violation::Overlap {
                a: p.a,
                b: p.b,
                inst: at_inst(p.inst, false),
                rule: p.rule,
            });
        }
    }
    Ok(())
}

/// The placement rules, VGRF by VGRF: inside the file, above the thread's inputs, whole
/// registers from byte 0 when larger than one register, inside one register otherwise.
fn check_placements(
    shader: &Shader,
    c: &Constraints,
    allocation: &Allocation,
    live: impl Fn(Vgrf) -> u32,
) -> Result<(), Violation> {
    let reg = c.reg_size;
    let file_bytes = c.grf_count * reg;
    for (v, layout) in shader.vgrfs.iter_enumerated() {
        let at = match allocation.get(v) {
            Placement::At(at) => at,
            Placement::NoFit if c.unspillable.get(v.index()) == Some(&true) => {
                return Err(Violation::SpillTemporary { vgrf: v })
            }
            _ => continue,
        };
        let bytes = layout.size();
        // What must lie in the file and in the register: the value up to its data's end.
        let extent = constraints::extent(layout);
        let start = at.grf as u64 * reg as u64 + at.offset as u64;
        if at.offset >= reg || start + extent as u64 > file_bytes as u64 {
            return Err(Violation::OutsideFile { vgrf: v, at, bytes });
        }
        if at.grf < c.first_free_grf {
            let start = live(v);
            if let Some(g) = at.registers(layout, reg).find(|&g| !c.input_free(g, start)) {
                return Err(Violation::Reserved {
                    vgrf: v,
                    at,
                    input: g,
                    last_use: c.input_last_use.get(g as usize).copied().flatten(),
                });
            }
        }
        if let Some(grf) = at.registers(layout, reg).find(|&g| c.is_reserved(v, g)) {
            return Err(Violation::ReservedRegister { vgrf: v, at, grf });
        }
        if bytes > reg {
            if at.offset != 0 {
                return Err(Violation::NotContiguous { vgrf: v, at, bytes });
            }
        } else if at.offset % SLOT != 0 || at.offset + extent > reg {
            return Err(Violation::SubRegister { vgrf: v, at, bytes });
        }
    }
    Ok(())
}

/// Per VGRF slot: its VGRF and its first register-file byte (or [`NOT_PLACED`],
/// [`UNUSED`]), every slot of a VGRF alike; per VGRF, where its slots end.
struct SlotBytes {
    vgrf: Vec<u32>,
    byte: Vec<u32>,
    /// Per VGRF: one past its last slot (where a run of slots is cut into pieces).
    end: Vec<u32>,
}

impl SlotBytes {
    fn of(shader: &Shader, slots: &Slots, allocation: &Allocation, reg: u32) -> SlotBytes {
        let ns = slots.vgrf_slots as usize;
        let mut sb = SlotBytes {
            vgrf: vec![0u32; ns],
            byte: vec![NOT_PLACED; ns],
            end: Vec::with_capacity(shader.vgrfs.len()),
        };
        for (v, layout) in shader.vgrfs.iter_enumerated() {
            let base = slots.base[v.index()].index();
            let slots = base..base + layout.size().div_ceil(SLOT) as usize;
            sb.vgrf[slots.clone()].fill(v.index() as u32);
            let bytes = &mut sb.byte[slots.clone()];
            match allocation.get(v) {
                Placement::At(at) => {
                    let first = at.grf * reg + at.offset;
                    for (k, b) in bytes.iter_mut().enumerate() {
                        *b = first + k as u32 * SLOT;
                    }
                }
                Placement::NoFit => {}
                Placement::Unused => bytes.fill(UNUSED),
            }
            sb.end.push(slots.end as u32);
        }
        sb
    }

    fn vgrf_of(&self, s: usize) -> Vgrf {
        Vgrf::from_usize(self.vgrf[s] as usize)
    }

    /// The register-file word (4 bytes) slot `s` starts, and is, of a placed slot: every
    /// placement has passed [`check_placements`], so starts at a multiple of 4 bytes, and a
    /// slot holds at most 4.
    fn word(&self, s: usize) -> usize {
        (self.byte[s] / SLOT) as usize
    }

    /// The VGRF slots of `r` cut where a VGRF ends: the slots of a piece share their
    /// placement (so one look says whether they are placed) and lie on consecutive words.
    fn pieces(&self, r: SlotRange) -> impl Iterator<Item = std::ops::Range<usize>> + '_ {
        let end = r.end.index().min(self.vgrf.len());
        let mut s = r.start.index().min(end);
        std::iter::from_fn(move || {
            (s < end).then(|| {
                let e = (self.end[self.vgrf[s] as usize] as usize).min(end);
                let piece = s..e;
                s = e;
                piece
            })
        })
    }
}

/// A piece of [`SlotBytes::pieces`] as slots, for the sets.
fn slot_range(p: &std::ops::Range<usize>) -> SlotRange {
    Slot::from_usize(p.start)..Slot::from_usize(p.end)
}

/// Which slots some write may have reached at each block's start: a forward dataflow over
/// the slots live across blocks (no write un-defines a slot).
struct Reached {
    /// Per VGRF slot: its global number (liveness's), or `u32::MAX`.
    global_of: Vec<u32>,
    def_in: Vec<BitSet<GlobalSlot>>,
}

impl Reached {
    fn compute(shader: &Shader, live: &Liveness, cfg: &Cfg, ns: usize) -> Reached {
        let table = &live.access;
        let globals = live.global_slots();
        let ng = globals.len() as u32;
        let mut global_of = vec![u32::MAX; ns];
        for (g, s) in globals.iter().enumerate() {
            if s.index() < ns {
                global_of[s.index()] = g as u32;
            }
        }
        let nb = shader.layout.blocks.len();
        let mut def_in: Vec<BitSet<GlobalSlot>> = vec![BitSet::new(ng); nb];
        let mut def_out: Vec<BitSet<GlobalSlot>> = Vec::with_capacity(nb);
        for block in shader.layout.blocks.iter() {
            let mut gen = BitSet::new(ng);
            for &inst in &block.insts {
                for (r, _, _) in table.def_runs(inst) {
                    let end = r.end.index().min(ns);
                    for &g in &global_of[r.start.index().min(end)..end] {
                        if g != u32::MAX {
                            gen.insert(GlobalSlot::new(g));
                        }
                    }
                }
            }
            def_out.push(gen);
        }
        let gens = def_out.clone();
        let mut work: Vec<usize> = (0..nb).rev().collect();
        let mut on_list = vec![true; nb];
        let mut tmp: BitSet<GlobalSlot> = BitSet::new(ng);
        while let Some(b) = work.pop() {
            on_list[b] = false;
            tmp.clear();
            for p in &cfg.preds[Block::from_usize(b)] {
                tmp.union_with(&def_out[p.index()]);
            }
            def_in[b].copy_from(&tmp);
            tmp.union_with(&gens[b]);
            if tmp != def_out[b] {
                def_out[b].copy_from(&tmp);
                for s in &cfg.succs[Block::from_usize(b)] {
                    if !on_list[s.index()] {
                        on_list[s.index()] = true;
                        work.push(s.index());
                    }
                }
            }
        }
        Reached { global_of, def_in }
    }
}

/// The backward walk of each block: the slots live and defined (`occupied`) and the owner
/// of every register-file word. The walk goes by runs of slots cut at VGRF ends
/// ([`SlotBytes::pieces`]), one placement look per piece, and a word per slot.
struct Walk<'a> {
    shader: &'a Shader,
    live: &'a Liveness,
    reg: u32,
    bytes: &'a SlotBytes,
    reached: &'a Reached,
    /// The owner of each 4-byte word of the register file (slot + 1; 0 for none). A word,
    /// not a byte, because every placed slot starts a word and holds at most 4 bytes, and
    /// the slots occupied together hold disjoint bytes (a claim that would share one is a
    /// violation, which ends the check): a word holds at most one occupied slot, and the
    /// first byte a slot shares with another is the first of its word, the one an owner
    /// per byte would name.
    owner: Vec<u32>,
    /// The runs of slots occupied in the current block, each with its words: the block's
    /// end empties them run by run, without a look at every slot.
    claimed: Vec<(SlotRange, std::ops::Range<usize>)>,
    occupied: BitSet<Slot>,
    live_out: ScratchSet<Slot>,
    /// Per slot: where in the current block it is first written (`u32::MAX`: not).
    first_write: Vec<u32>,
    /// The runs of `first_write` set in the current block.
    touched: Vec<std::ops::Range<usize>>,
}

impl<'a> Walk<'a> {
    fn new(
        shader: &'a Shader,
        live: &'a Liveness,
        c: &Constraints,
        bytes: &'a SlotBytes,
        reached: &'a Reached,
    ) -> Walk<'a> {
        let ns = bytes.vgrf.len();
        Walk {
            shader,
            live,
            reg: c.reg_size,
            bytes,
            reached,
            owner: vec![0u32; (c.grf_count * c.reg_size).div_ceil(SLOT) as usize],
            claimed: Vec::new(),
            occupied: BitSet::new(ns as u32),
            live_out: ScratchSet::new(live.access.slots.count()),
            first_write: vec![u32::MAX; ns],
            touched: Vec::new(),
        }
    }

    fn ns(&self) -> usize {
        self.bytes.vgrf.len()
    }

    fn byte_at(&self, byte: u32) -> Reg {
        Reg {
            grf: byte / self.reg,
            offset: byte % self.reg,
        }
    }

    /// Whether some write of slot `s` may have happened before instruction `k` of the
    /// block whose live-in definitions are `din`.
    fn defined_before(&self, din: &BitSet<GlobalSlot>, s: usize, k: u32) -> bool {
        let g = self.reached.global_of[s];
        self.first_write[s] < k || (g != u32::MAX && din.contains(GlobalSlot::new(g)))
    }

    /// The slots of `run`, of one placed VGRF and none occupied, become live and defined
    /// at `at`: their bytes must be no other value's (the first slot, in order, sharing one
    /// is the violation).
    fn occupy_run(
        &mut self,
        run: std::ops::Range<usize>,
        at: &impl Fn() -> At,
    ) -> Result<(), Violation> {
        let bytes = self.bytes;
        let w0 = bytes.word(run.start);
        let words = w0..w0 + run.len();
        for (w, s) in words.clone().zip(run.clone()) {
            let o = self.owner[w];
            if o != 0 && o as usize - 1 != s {
                return Err(Violation::SharedByte {
                    a: bytes.vgrf_of(o as usize - 1),
                    b: bytes.vgrf_of(s),
                    inst: at(),
                    byte: self.byte_at(bytes.byte[s]),
                });
            }
            self.owner[w] = s as u32 + 1;
        }
        self.occupied.insert_range(slot_range(&run));
        self.claimed.push((slot_range(&run), words));
        Ok(())
    }

    fn release(&mut self, s: usize) {
        let w = self.bytes.word(s);
        if self.owner[w] == s as u32 + 1 {
            self.owner[w] = 0;
        }
    }

    /// Slot `s` is accessed at `at`: false when its VGRF did not fit (not checked), an
    /// error when the allocation says its VGRF is never accessed.
    fn placed(&self, s: usize, at: &impl Fn() -> At) -> Result<bool, Violation> {
        match self.bytes.byte[s] {
            NOT_PLACED => Ok(false),
            UNUSED => Err(Violation::Unplaced {
                vgrf: self.bytes.vgrf_of(s),
                inst: at(),
            }),
            _ => Ok(true),
        }
    }

    fn block(&mut self, b: Block, at_inst: &dyn Fn(Inst, bool) -> At) -> Result<(), Violation> {
        let (shader, live, reached) = (self.shader, self.live, self.reached);
        let table = &live.access;
        let ns = self.ns();
        let insts = &shader.layout.blocks[b].insts;
        if insts.is_empty() {
            return Ok(());
        }
        self.note_first_writes(insts);
        let din = &reached.def_in[b.index()];
        let n = insts.len() as u32;
        let last = *insts.last().unwrap();
        let after_last = || at_inst(last, true);
        let mut live_out = std::mem::replace(&mut self.live_out, ScratchSet::new(0));
        live.load_live_out(b, &mut live_out);
        let mut from = Slot::new(0);
        while let Some(s) = live_out.next_member(from).filter(|s| s.index() < ns) {
            from = live_out.next_missing(s);
            for piece in self.bytes.pieces(s..from) {
                // What is live out is occupied where some write may have reached it.
                self.occupy_where(piece, &after_last, |w, s| w.defined_before(din, s, n))?;
            }
        }
        self.live_out = live_out;
        for k in (0..n).rev() {
            let inst = insts[k as usize];
            // (Made only for a violation: a look-up of the instruction's point.)
            let at = || at_inst(inst, false);
            // What the instruction writes lands on no other value live after it. (An
            // `undef` writes nothing: Mesa's generator emits no instruction for it,
            // brw_fs_generator.cpp `generate_code` skips SHADER_OPCODE_UNDEF; it only
            // tells liveness the value starts there.)
            if shader.insts.opcode[inst] != eubatch_ir::Opcode::Undef {
                for (r, _, _) in table.def_runs(inst) {
                    self.check_write(r, &at)?;
                }
            }
            for (r, full, _) in table.def_runs(inst) {
                self.kill(din, r, full, k);
            }
            for r in table.use_runs(inst) {
                self.read(din, r, k, &at)?;
            }
        }
        self.release_all();
        for r in self.touched.drain(..) {
            self.first_write[r].fill(u32::MAX);
        }
        Ok(())
    }

    /// Where in the block each slot it writes is first written, run by run.
    fn note_first_writes(&mut self, insts: &[Inst]) {
        let (table, ns) = (&self.live.access, self.ns());
        for (k, &inst) in insts.iter().enumerate() {
            for (r, _, _) in table.def_runs(inst) {
                let end = r.end.index().min(ns);
                let run = r.start.index().min(end)..end;
                if run.is_empty() {
                    continue;
                }
                // (Instructions come in order: a slot already written keeps its smaller
                // position.)
                for w in &mut self.first_write[run.clone()] {
                    *w = (*w).min(k as u32);
                }
                self.touched.push(run);
            }
        }
    }

    /// A write of run `r` at `at` lands on no byte of a value occupied after it but its
    /// own.
    fn check_write(&self, r: SlotRange, at: &impl Fn() -> At) -> Result<(), Violation> {
        let bytes = self.bytes;
        for piece in bytes.pieces(r) {
            if !self.placed(piece.start, at)? {
                continue;
            }
            for s in piece {
                let o = self.owner[bytes.word(s)];
                if o != 0 && o as usize - 1 != s {
                    return Err(Violation::Clobber {
                        written: bytes.vgrf_of(s),
                        live: bytes.vgrf_of(o as usize - 1),
                        inst: at(),
                        byte: self.byte_at(bytes.byte[s]),
                    });
                }
            }
        }
        Ok(())
    }

    /// Before instruction `k`, the slots of `r` it writes fully (`full`) are dead, and
    /// those it writes first hold nothing yet.
    fn kill(&mut self, din: &BitSet<GlobalSlot>, r: SlotRange, full: bool, k: u32) {
        for piece in self.bytes.pieces(r) {
            if !self.occupied.intersects_range(slot_range(&piece)) {
                continue;
            }
            for s in piece {
                let slot = Slot::from_usize(s);
                if self.occupied.contains(slot) && (full || !self.defined_before(din, s, k)) {
                    self.occupied.remove(slot);
                    self.release(s);
                }
            }
        }
    }

    /// What instruction `k` reads of `r` is live before it, when some write may have
    /// reached it.
    fn read(
        &mut self,
        din: &BitSet<GlobalSlot>,
        r: SlotRange,
        k: u32,
        at: &impl Fn() -> At,
    ) -> Result<(), Violation> {
        for piece in self.bytes.pieces(r) {
            // (A read of a VGRF said never to be accessed is a violation even where nothing
            // reached it.)
            if !self.placed(piece.start, at)? || self.occupied.contains_range(slot_range(&piece)) {
                continue;
            }
            self.occupy_where(piece, at, |w, s| {
                !w.occupied.contains(Slot::from_usize(s)) && w.defined_before(din, s, k)
            })?;
        }
        Ok(())
    }

    /// Occupies the slots of `piece` (one VGRF's) that `wanted` says, run by run; none
    /// when its VGRF did not fit, a violation when it is said never to be accessed and
    /// some slot is wanted.
    fn occupy_where(
        &mut self,
        piece: std::ops::Range<usize>,
        at: &impl Fn() -> At,
        wanted: impl Fn(&Self, usize) -> bool,
    ) -> Result<(), Violation> {
        let mut s = piece.start;
        while s < piece.end {
            if !wanted(self, s) {
                s += 1;
                continue;
            }
            if !self.placed(s, at)? {
                return Ok(());
            }
            let start = s;
            while s < piece.end && wanted(self, s) {
                s += 1;
            }
            self.occupy_run(start..s, at)?;
        }
        Ok(())
    }

    /// The end of a block: every word claimed in it is free again, and no slot occupied
    /// (every occupied slot was claimed in some run, with its word).
    fn release_all(&mut self) {
        for (slots, words) in self.claimed.drain(..) {
            self.occupied.remove_range(slots);
            self.owner[words].fill(0);
        }
        debug_assert!(self.occupied.iter().next().is_none());
        debug_assert!(self.owner.iter().all(|&o| o == 0));
    }
}
