//! Register pressure: how many GRFs the VGRF values live at each instruction would take,
//! counting live 4-byte slots ([`crate::liveness`]) and rounding up to 32-byte registers
//! per VGRF — what a register allocator must fit into the 128-register file.

use eubatch_ir::{Inst, Shader};

use crate::access::{for_each_def, for_each_use, SLOT};
use crate::liveness::Liveness;

pub struct Pressure {
    /// Registers live just after each instruction, in layout order.
    pub per_inst: Vec<(Inst, u32)>,
    pub max: u32,
}

impl Pressure {
    pub fn compute(shader: &Shader, live: &Liveness) -> Pressure {
        let slots = &live.slots;
        // VGRF of each slot.
        let mut owner = vec![u32::MAX; slots.vgrf_slots as usize];
        for (v, &b) in slots.base.iter().enumerate() {
            let r = slots.vgrf(shader, v as u32);
            for s in b..r.end {
                owner[s as usize] = v as u32;
            }
        }
        let regs = |set: &crate::bitset::BitSet| -> u32 {
            // Live bytes per VGRF, rounded up to registers.
            let mut total = 0u32;
            let mut cur = (u32::MAX, 0u32);
            for s in set.iter().filter(|&s| s < slots.vgrf_slots) {
                let v = owner[s as usize];
                if v != cur.0 {
                    total += (cur.1 * SLOT).div_ceil(32);
                    cur = (v, 0);
                }
                cur.1 += 1;
            }
            total + (cur.1 * SLOT).div_ceil(32)
        };
        let mut per_inst = Vec::new();
        let mut max = 0;
        for (b, block) in shader.layout.blocks.iter_enumerated() {
            let mut l = live.live_out[b].clone();
            let mut rev = Vec::with_capacity(block.insts.len());
            for &inst in block.insts.iter().rev() {
                let p = regs(&l);
                max = max.max(p);
                rev.push((inst, p));
                for_each_def(shader, slots, inst, |s, full| {
                    if full {
                        l.remove(s);
                    }
                });
                for_each_use(shader, slots, inst, |s| l.insert(s));
            }
            per_inst.extend(rev.into_iter().rev());
        }
        Pressure { per_inst, max }
    }
}
