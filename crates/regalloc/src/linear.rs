//! `linear`: a linear-scan allocator (Poletto & Sarkar) over the analysis layer's live
//! intervals, one interval per VGRF, whole registers per VGRF.
//!
//! The scan is [`crate::scan`]'s (by interval start, end-of-thread payloads pinned at the
//! top first); each VGRF takes the lowest run of free consecutive registers
//! ([`crate::constraints::CONTIGUOUS`]) above the thread inputs
//! ([`crate::constraints::THREAD_INPUTS`]). The free registers are one 128-bit mask, so
//! the scan allocates nothing per VGRF.
//!
//! Limits: intervals are linear (a value live around a loop holds its registers through
//! the whole loop), no interval splitting, no sub-register packing (a SIMD8 16-bit value
//! takes a whole register, as in Mesa), at most 128 registers.

use crate::scan::{lowest_run, run_mask, scan, Packer};
use crate::{Allocation, Allocator, Input, Reg};

#[derive(Default)]
pub struct Linear;

/// The free registers, and how many registers each VGRF takes.
struct Whole<'a> {
    free: u128,
    regs: &'a [u32],
}

impl Packer for Whole<'_> {
    fn take(&mut self, v: usize, avail: u128) -> Option<Reg> {
        let regs = self.regs[v].max(1);
        let first = lowest_run(self.free & avail, regs)?;
        self.free &= !run_mask(first, regs);
        Some(Reg {
            grf: first,
            offset: 0,
        })
    }

    fn release(&mut self, v: usize, at: Reg) {
        self.free |= run_mask(at.grf, self.regs[v].max(1));
    }

    fn hold(&mut self, v: usize, at: Reg) {
        self.free &= !run_mask(at.grf, self.regs[v].max(1));
    }
}

impl Allocator for Linear {
    fn allocate(&mut self, input: &Input<'_>) -> Allocation {
        let mut file = Whole {
            free: u128::MAX,
            regs: &input.problem.regs,
        };
        scan(input, &mut file)
    }
}
