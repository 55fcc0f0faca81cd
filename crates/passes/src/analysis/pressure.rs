//! Register pressure: how many GRFs the VGRF values live at each instruction would take,
//! counting live 4-byte slots ([`super::liveness`]) and rounding up to 32-byte registers
//! per VGRF — what a register allocator must fit into the 128-register file.

use eubatch_ir::{Inst, Shader};

use crate::analysis::access::SLOT;
use crate::analysis::access_table::ExecMask;
use crate::analysis::liveness::Liveness;

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
        // VGRF of each slot.
        let mut owner = vec![u32::MAX; slots.vgrf_slots as usize];
        for (v, &b) in slots.base.iter().enumerate() {
            let r = slots.vgrf(shader, v as u32);
            for s in b..r.end {
                owner[s as usize] = v as u32;
            }
        }
        let regs_of = |n: u32| (n * SLOT).div_ceil(32);
        // The VGRFs with slots live across blocks, and their global numbers: a block's
        // live-out count per VGRF is a population count over those.
        let global_vgrfs: Vec<(usize, std::ops::Range<u32>)> = (0..slots.base.len())
            .map(|v| (v, live.global_range(slots.vgrf(shader, v as u32))))
            .filter(|(_, k)| !k.is_empty())
            .collect();
        let mut count = vec![0u32; slots.base.len()];
        let mut touched: Vec<usize> = Vec::new();
        let mut per_inst = Vec::with_capacity(shader.num_insts());
        let mut max = 0;
        let mut l = crate::analysis::bitset::BitSet::new(slots.count());
        for (b, block) in shader.layout.blocks.iter_enumerated() {
            live.load_live_out(b, &mut l);
            let mut total = 0u32;
            for (v, k) in &global_vgrfs {
                let c = live.live_out_count(b, k.clone());
                count[*v] = c;
                total += regs_of(c);
            }
            let first = per_inst.len();
            for &inst in block.insts.iter().rev() {
                max = max.max(total);
                per_inst.push((inst, total));
                for (s, full) in table.defs(inst, ExecMask::Honoured) {
                    if full && s < slots.vgrf_slots && l.contains(s) {
                        l.remove(s);
                        let v = owner[s as usize] as usize;
                        let c = &mut count[v];
                        total -= regs_of(*c) - regs_of(*c - 1);
                        *c -= 1;
                        touched.push(v);
                    } else if full {
                        l.remove(s);
                    }
                }
                for s in table.uses(inst) {
                    if s < slots.vgrf_slots && !l.contains(s) {
                        let v = owner[s as usize] as usize;
                        let c = &mut count[v];
                        total += regs_of(*c + 1) - regs_of(*c);
                        *c += 1;
                        touched.push(v);
                    }
                    l.insert(s);
                }
            }
            per_inst[first..].reverse();
            // Back to no VGRF counted, touching only what this block counted.
            for v in touched.drain(..) {
                count[v] = 0;
            }
            for (v, _) in &global_vgrfs {
                count[*v] = 0;
            }
        }
        Pressure { per_inst, max }
    }
}
