//! The checker as it was before it went by runs and words (issue 15): slot by slot, an
//! owner per register-file byte. Kept only as the reference the run-by-run checker is
//! compared with (`tests/checker_reference.rs`): same verdict, same violation, on broken
//! allocations of random shaders. Not to be changed but to follow a deliberate change of
//! the checker's rules.
#![allow(dead_code)]

use index_vec::Idx;

use eubatch_ir::cfg::Cfg;
use eubatch_ir::{Block, Inst, Shader, Vgrf};
use eubatch_passes::analysis::access::{Slot, Slots, SLOT};
use eubatch_passes::analysis::bitset::BitSet;
use eubatch_passes::analysis::liveness::{GlobalSlot, Liveness};
use eubatch_passes::analysis::scratch_set::ScratchSet;
use eubatch_passes::PassCx;

use eubatch_regalloc::checker::{At, Violation};
use eubatch_regalloc::constraints::{self, Constraints};
use eubatch_regalloc::{Allocation, Placement, Reg};

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

/// Per VGRF slot: its VGRF, its first register-file byte (or [`NOT_PLACED`], [`UNUSED`])
/// and how many bytes it holds.
struct SlotBytes {
    vgrf: Vec<u32>,
    byte: Vec<u32>,
    len: Vec<u8>,
}

impl SlotBytes {
    fn of(shader: &Shader, slots: &Slots, allocation: &Allocation, reg: u32) -> SlotBytes {
        let ns = slots.vgrf_slots as usize;
        let mut sb = SlotBytes {
            vgrf: vec![0u32; ns],
            byte: vec![NOT_PLACED; ns],
            len: vec![0u8; ns],
        };
        for (v, layout) in shader.vgrfs.iter_enumerated() {
            let base = slots.base[v.index()].index();
            let size = layout.size();
            let first = match allocation.get(v) {
                Placement::At(at) => Some(at.grf * reg + at.offset),
                Placement::NoFit => None,
                Placement::Unused => Some(UNUSED),
            };
            for k in 0..size.div_ceil(SLOT) as usize {
                sb.vgrf[base + k] = v.index() as u32;
                sb.len[base + k] = (size - k as u32 * SLOT).min(SLOT) as u8;
                sb.byte[base + k] = match first {
                    Some(UNUSED) => UNUSED,
                    Some(b) => b + k as u32 * SLOT,
                    None => NOT_PLACED,
                };
            }
        }
        sb
    }

    fn vgrf_of(&self, s: usize) -> Vgrf {
        Vgrf::from_usize(self.vgrf[s] as usize)
    }

    /// The bytes of slot `s`.
    fn bytes(&self, s: usize) -> std::ops::Range<u32> {
        self.byte[s]..self.byte[s] + self.len[s] as u32
    }
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
                    for s in Slot::each(r) {
                        if let Some(&g) = global_of.get(s.index()).filter(|g| **g != u32::MAX) {
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
/// of every register-file byte (slot + 1; 0 for none).
struct Walk<'a> {
    shader: &'a Shader,
    live: &'a Liveness,
    reg: u32,
    bytes: &'a SlotBytes,
    reached: &'a Reached,
    owner: Vec<u32>,
    occupied: BitSet<Slot>,
    live_out: ScratchSet<Slot>,
    /// Per slot: where in the current block it is first written (`u32::MAX`: not).
    first_write: Vec<u32>,
    touched: Vec<usize>,
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
            owner: vec![0u32; (c.grf_count * c.reg_size) as usize],
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

    /// Claims slot `s`'s bytes; the slot already owning one, if any.
    fn claim(&mut self, s: usize) -> Option<(usize, u32)> {
        for byte in self.bytes.bytes(s) {
            let o = self.owner[byte as usize];
            if o != 0 && o as usize - 1 != s {
                return Some((o as usize - 1, byte));
            }
            self.owner[byte as usize] = s as u32 + 1;
        }
        None
    }

    fn release(&mut self, s: usize) {
        for byte in self.bytes.bytes(s) {
            if self.owner[byte as usize] == s as u32 + 1 {
                self.owner[byte as usize] = 0;
            }
        }
    }

    /// `s` becomes live and defined at `at`: its bytes must be no other value's.
    fn occupy(&mut self, s: usize, at: At) -> Result<(), Violation> {
        self.occupied.insert(Slot::new(s as u32));
        match self.claim(s) {
            Some((o, byte)) => Err(Violation::SharedByte {
                a: self.bytes.vgrf_of(o),
                b: self.bytes.vgrf_of(s),
                inst: at,
                byte: self.byte_at(byte),
            }),
            None => Ok(()),
        }
    }

    /// Slot `s` is accessed at `at`: false when its VGRF did not fit (not checked), an
    /// error when the allocation says its VGRF is never accessed.
    fn placed(&self, s: usize, at: At) -> Result<bool, Violation> {
        match self.bytes.byte[s] {
            NOT_PLACED => Ok(false),
            UNUSED => Err(Violation::Unplaced {
                vgrf: self.bytes.vgrf_of(s),
                inst: at,
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
        for (k, &inst) in insts.iter().enumerate() {
            for (r, _, _) in table.def_runs(inst) {
                for s in Slot::each(r) {
                    if s.index() < ns && self.first_write[s.index()] == u32::MAX {
                        self.first_write[s.index()] = k as u32;
                        self.touched.push(s.index());
                    }
                }
            }
        }
        let din = &reached.def_in[b.index()];
        let n = insts.len() as u32;
        let last = *insts.last().unwrap();
        let mut live_out = std::mem::replace(&mut self.live_out, ScratchSet::new(0));
        live.load_live_out(b, &mut live_out);
        for s in live_out.iter().map(|s| s.index()) {
            if s < ns && self.defined_before(din, s, n) && self.placed(s, at_inst(last, true))? {
                self.occupy(s, at_inst(last, true))?;
            }
        }
        self.live_out = live_out;
        for k in (0..n).rev() {
            let inst = insts[k as usize];
            let at = at_inst(inst, false);
            // What the instruction writes lands on no other value live after it. (An
            // `undef` writes nothing: Mesa's generator emits no instruction for it,
            // brw_fs_generator.cpp `generate_code` skips SHADER_OPCODE_UNDEF; it only
            // tells liveness the value starts there.)
            let emits = shader.insts.opcode[inst] != eubatch_ir::Opcode::Undef;
            for (r, _, _) in table.def_runs(inst).filter(|_| emits) {
                for s in Slot::each(r).map(|s| s.index()).filter(|&s| s < ns) {
                    if !self.placed(s, at)? {
                        continue;
                    }
                    for byte in self.bytes.bytes(s) {
                        let o = self.owner[byte as usize];
                        if o != 0 && o as usize - 1 != s {
                            return Err(Violation::Clobber {
                                written: self.bytes.vgrf_of(s),
                                live: self.bytes.vgrf_of(o as usize - 1),
                                inst: at,
                                byte: self.byte_at(byte),
                            });
                        }
                    }
                }
            }
            // Before it, a fully written slot is dead, and a slot first written here holds
            // nothing yet.
            for (r, full, _) in table.def_runs(inst) {
                for s in Slot::each(r).filter(|s| s.index() < ns) {
                    if self.occupied.contains(s)
                        && (full || !self.defined_before(din, s.index(), k))
                    {
                        self.occupied.remove(s);
                        self.release(s.index());
                    }
                }
            }
            // What it reads is live before it (when some write may have reached it).
            for r in table.use_runs(inst) {
                for s in Slot::each(r).filter(|s| s.index() < ns) {
                    if !self.placed(s.index(), at)?
                        || self.occupied.contains(s)
                        || !self.defined_before(din, s.index(), k)
                    {
                        continue;
                    }
                    self.occupy(s.index(), at)?;
                }
            }
        }
        let occupied = std::mem::replace(&mut self.occupied, BitSet::new(0));
        for s in occupied.iter() {
            self.release(s.index());
        }
        self.occupied = occupied;
        self.occupied.clear();
        for s in self.touched.drain(..) {
            self.first_write[s] = u32::MAX;
        }
        Ok(())
    }
}
