//! Register pressure: how many GRFs the VGRF values live at each instruction would take,
//! counting live 4-byte slots ([`super::liveness`]) and rounding up to 32-byte registers
//! per VGRF — what a register allocator must fit into the 128-register file.

use eubatch_ir::{Inst, Shader};

use index_vec::{IndexSlice, IndexVec};

use crate::analysis::access::{Slot, SlotRange, SLOT};
use crate::analysis::liveness::{GlobalSlot, Liveness};
use crate::analysis::scratch_set::ScratchSet;

pub struct Pressure {
    /// Registers live just after each instruction, in layout order.
    pub per_inst: Vec<(Inst, u32)>,
    pub max: u32,
}

impl Pressure {
    /// One backward walk per block, keeping per VGRF how many of its slots are live and
    /// the registers they round up to, so that each instruction costs what it reads and
    /// writes, not a scan of the live set.
    pub fn compute(shader: &Shader, live: &Liveness) -> Pressure {
        let table = &live.access;
        let slots = &table.slots;
        // VGRF of each slot, and where that VGRF's slots end.
        let mut owner: IndexVec<Slot, (u32, Slot)> = (1..=slots.vgrf_slots)
            .map(|s| (u32::MAX, Slot::new(s)))
            .collect();
        for (v, &b) in slots.base.iter().enumerate() {
            let r = slots.vgrf(shader, v as u32);
            for s in Slot::each(b..r.end) {
                owner[s] = (v as u32, r.end);
            }
        }
        let reg_size = shader.reg_size();
        // Per global slot (liveness's numbering): its VGRF and where that VGRF's global
        // slots end (`u32::MAX` for the flag slots, which come last).
        let globals = live.global_slots();
        let mut gowner: IndexVec<GlobalSlot, (u32, GlobalSlot)> =
            IndexVec::from_vec(vec![(u32::MAX, GlobalSlot::new(0)); globals.len()]);
        for (k, &s) in globals.iter_enumerated().rev() {
            if s >= slots.first_flag() {
                continue;
            }
            let v = owner[s].0;
            let end = match gowner.get(k + 1) {
                Some(&(w, e)) if w == v => e,
                _ => k + 1,
            };
            gowner[k] = (v, end);
        }
        let regs_of = |n: u32| (n * SLOT).div_ceil(reg_size);
        let mut count = vec![0u32; slots.base.len()];
        let mut touched: Vec<usize> = Vec::new();
        let mut per_inst = Vec::with_capacity(shader.num_insts());
        let mut max = 0;
        let mut l: ScratchSet<Slot> = ScratchSet::new(slots.count());
        for (b, block) in shader.layout.blocks.iter_enumerated() {
            live.load_live_out(b, &mut l);
            // The registers of what is live out, counted per VGRF over the block's
            // live-out set in the global numbering, where each VGRF's global slots are one
            // run of numbers: a word-level count per live VGRF (not a visit per live slot,
            // nor a question to every VGRF live across some block).
            let out = live.live_out_set(b);
            let mut k = out.next_member(GlobalSlot::new(0));
            while let Some(at) = k {
                let (v, end) = gowner[at];
                if v == u32::MAX {
                    break;
                }
                let v = v as usize;
                count[v] = out.count_range(at..end);
                touched.push(v);
                k = out.next_member(end);
            }
            let mut total: u32 = touched.iter().map(|&v| regs_of(count[v])).sum();
            let first = per_inst.len();
            for &inst in block.insts.iter().rev() {
                max = max.max(total);
                per_inst.push((inst, total));
                // Whole runs at a time: a run within one VGRF changes its count by how
                // many of its slots change state (word-level counts), not slot by slot.
                for (r, full, _) in table.def_runs(inst) {
                    if !full {
                        continue;
                    }
                    let vgrf_part = r.start..r.end.min(slots.first_flag());
                    for_each_owner(&owner, vgrf_part, |v, part| {
                        let dying = l.count_range(part);
                        if dying > 0 {
                            let c = &mut count[v];
                            total -= regs_of(*c) - regs_of(*c - dying);
                            *c -= dying;
                            touched.push(v);
                        }
                    });
                    l.remove_range(r);
                }
                for r in table.use_runs(inst) {
                    let vgrf_part = r.start..r.end.min(slots.first_flag());
                    for_each_owner(&owner, vgrf_part, |v, part| {
                        let born = (part.end - part.start) - l.count_range(part.clone());
                        if born > 0 {
                            let c = &mut count[v];
                            total += regs_of(*c + born) - regs_of(*c);
                            *c += born;
                            touched.push(v);
                        }
                    });
                    l.insert_range(r);
                }
            }
            per_inst[first..].reverse();
            // Back to no VGRF counted, touching only what this block counted.
            for v in touched.drain(..) {
                count[v] = 0;
            }
        }
        Pressure { per_inst, max }
    }
}

/// Calls `f` with each VGRF that owns slots of `r` (VGRF slots only) and the part of `r`
/// it owns, in order: a run of reads or writes mostly lies within one VGRF. `owner` gives
/// each slot's VGRF and the end of its slots (`u32::MAX` and the next slot: none).
fn for_each_owner(
    owner: &IndexSlice<Slot, [(u32, Slot)]>,
    r: SlotRange,
    mut f: impl FnMut(usize, SlotRange),
) {
    let mut at = r.start;
    while at < r.end {
        let (v, end) = owner[at];
        let end = end.min(r.end);
        if v != u32::MAX {
            f(v as usize, at..end);
        }
        at = end;
    }
}
