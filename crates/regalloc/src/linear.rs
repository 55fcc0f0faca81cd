//! `linear`: a linear-scan allocator (Poletto & Sarkar) over the analysis layer's live
//! intervals, one interval per VGRF, whole registers per VGRF.
//!
//! The scan is [`crate::scan`]'s (by interval start, end-of-thread payloads pinned at the
//! top first); each VGRF takes a run of free consecutive registers
//! ([`crate::constraints::CONTIGUOUS`]) above the thread inputs
//! ([`crate::constraints::THREAD_INPUTS`]): the lowest run of registers no value has held
//! yet while there is one, else, of the runs free, the one whose registers were given back
//! longest ago (the least, over the run, of the point the value that last held each
//! register died at, a thread input's by its last read), ties to the lowest. Taking the
//! lowest free run instead reuses the register just freed, so the next value's write must
//! wait for the last read of the one before (a write-after-read dependency): the post-RA
//! scheduler ([`eubatch_passes::schedule::post_ra`]) cannot move it, a message in
//! particular, above that read. Mesa's allocator rotates its search for the same reason
//! (`ra_select`'s round robin, "to improve the scheduling in the post-RA pass"). On
//! shaderdb-skl, with Mesa's post-RA rule (`--mesa-post-ra-choice`), this lowers Mesa's
//! cycle estimate of every variant (`--keep-all-simd32`) by 10.5% (FS32), 6.0% (FS16), 1.4%
//! (FS8), with the same instructions; with eubatch's post-RA rule too, by 13.1%, 8.4%, 1.7%
//! and 0.3% (VS) against the lowest run and Mesa's rule. It takes more registers
//! (`registers taken`, 84,780 -> 137,201 on shaderdb-skl; Mesa's `grf_used` about the
//! same), which gen7-gen9 threads do not pay for; `subreg`, whose point is fewer registers,
//! keeps the lowest. Should that choice leave a VGRF without a place, the scan is run again
//! taking the lowest free run, so the choice never costs a spill. The free registers are
//! one 128-bit mask, so the scan allocates nothing per VGRF.
//!
//! Limits: intervals are linear (a value live around a loop holds its registers through
//! the whole loop), no interval splitting, no sub-register packing (a SIMD8 16-bit value
//! takes a whole register, as in Mesa), at most 128 registers.

use crate::scan::{lowest_run, oldest_run, run_mask, scan, Packer};
use crate::{Allocation, Allocator, Input, Reg};

#[derive(Default)]
pub struct Linear;

/// The free registers, how many registers each VGRF takes, and when each register was
/// given back.
struct Whole<'a> {
    free: u128,
    regs: &'a [u32],
    /// Per VGRF: the last point of its interval.
    ends: &'a [u32],
    /// Per register: the point its last value died at, for the registers of
    /// `given_back` (the others were never used).
    freed: [u32; 128],
    given_back: u128,
    /// Take the run given back longest ago (else the lowest).
    oldest: bool,
}

impl Packer for Whole<'_> {
    fn take(&mut self, v: usize, avail: u128) -> Option<Reg> {
        let regs = self.regs[v].max(1);
        let first = if self.oldest {
            oldest_run(self.free & avail, regs, &self.freed, self.given_back)?
        } else {
            lowest_run(self.free & avail, regs)?
        };
        self.free &= !run_mask(first, regs);
        Some(Reg {
            grf: first,
            offset: 0,
        })
    }

    fn release(&mut self, v: usize, at: Reg) {
        let regs = self.regs[v].max(1);
        for g in at.grf..(at.grf + regs).min(128) {
            self.freed[g as usize] = self.ends[v];
        }
        self.given_back |= run_mask(at.grf, regs);
        self.free |= run_mask(at.grf, regs);
    }

    fn hold(&mut self, v: usize, at: Reg) {
        self.free &= !run_mask(at.grf, self.regs[v].max(1));
    }
}

/// Per register, when a VGRF may first take it by what held it before the scan (the
/// thread inputs' last reads), and those registers as a mask.
fn inputs_freed(input: &Input<'_>) -> ([u32; 128], u128) {
    let mut freed = [0u32; 128];
    let mut read = 0u128;
    for (g, l) in input
        .constraints
        .input_last_use
        .iter()
        .enumerate()
        .take(128)
    {
        if let Some(l) = l {
            freed[g] = *l;
            read |= 1 << g;
        }
    }
    (freed, read)
}

impl Allocator for Linear {
    fn allocate(&mut self, input: &Input<'_>) -> Allocation {
        let ends: Vec<u32> = input.problem.live.iter().map(|iv| iv.end.get()).collect();
        let (freed, given_back) = inputs_freed(input);
        let file = |oldest| Whole {
            free: u128::MAX,
            regs: &input.problem.regs,
            ends: &ends,
            freed,
            given_back,
            oldest,
        };
        let spread = scan(input, &mut file(true));
        if !spread.needs_spills() {
            return spread;
        }
        scan(input, &mut file(false))
    }
}
