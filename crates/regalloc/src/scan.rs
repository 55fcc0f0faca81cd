//! The linear scan `linear` and `subreg` share (Poletto & Sarkar), over the analysis
//! layer's live intervals, one interval per VGRF; what differs between them is how they
//! keep the register file ([`Packer`]: whole registers, or 4-byte slots).
//!
//! The VGRFs an end-of-thread send reads are placed first, from g127 down
//! ([`constraints::EOT_PAYLOAD`], as Mesa pins them at the top of the file), in whole
//! registers, and the registers they hold are kept from other VGRFs only while those
//! intervals overlap theirs. Spill temporaries, which must be placed
//! ([`constraints::SPILL_TEMPORARIES`]), come next, by interval start, each in the lowest
//! whole registers free of the pinned values overlapping it, and are pinned the same way:
//! what pressure remains falls on values that may be spilled. Every other accessed VGRF
//! is then taken in order of interval
//! start; those whose intervals ended before the current start give their storage back (a
//! heap ordered by end), and the packer places the VGRF in the registers the file allows
//! ([`constraints::REGISTER_FILE`], above [`constraints::THREAD_INPUTS`], off g127 for a
//! gen8+ SIMD8 message destination, off the registers of placed VGRFs it must stay apart
//! from). The thread's input registers below the first free one are kept from a VGRF only
//! while they are still read ([`constraints::THREAD_INPUTS`]: its interval starts at or
//! before the register's last access), as Mesa's payload nodes interfere only with the
//! values that start before their last use; a VGRF starting later may take them. When
//! there is no place, Poletto & Sarkar's choice: the active VGRF whose
//! interval ends last, if it ends after the current one, gives up its storage and is
//! `NoFit` (spilled: one long value out of the way of every short one it crosses) when
//! that makes room; otherwise the current VGRF is `NoFit` and holds nothing. Sorting is
//! n·log n; the
//! scan itself allocates nothing per VGRF.
//!
//! Pinned values are kept in a list the later VGRFs test for overlap: linear in the pinned
//! values per VGRF, which the spill temporaries, short and few next to the VGRFs, keep
//! small.
//!
//! [`constraints::EOT_PAYLOAD`]: crate::constraints::EOT_PAYLOAD
//! [`constraints::SPILL_TEMPORARIES`]: crate::constraints::SPILL_TEMPORARIES
//! [`constraints::REGISTER_FILE`]: crate::constraints::REGISTER_FILE
//! [`constraints::THREAD_INPUTS`]: crate::constraints::THREAD_INPUTS

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use eubatch_passes::analysis::intervals::Interval;

use crate::constraints::Constraints;
use crate::{Allocation, Input, Placement, Reg};

/// How an allocator keeps the register file during the scan.
pub(crate) trait Packer {
    /// A place for VGRF `v` in the registers of `avail` (a mask, bit `g` for `gN`), which
    /// it then holds; none when there is no place.
    fn take(&mut self, v: usize, avail: u128) -> Option<Reg>;
    /// VGRF `v`, placed at `at`, is dead from now on: its storage is free again.
    fn release(&mut self, v: usize, at: Reg);
    /// VGRF `v` holds `at` again (after a [`Packer::release`] that did not make room).
    fn hold(&mut self, v: usize, at: Reg);
}

/// Runs the scan over `input` with `packer` keeping the file.
pub(crate) fn scan(input: &Input<'_>, packer: &mut impl Packer) -> Allocation {
    let p = input.problem;
    let c = input.constraints;
    let n = p.live.len();
    let mut out = Allocation::unused(n);
    let allowed = allowed(c);
    let inputs = Inputs::of(c);
    // End-of-thread payloads first, from the top down; each keeps its registers from
    // the other pinned ones whose intervals overlap its own.
    let mut pinned: Vec<(Interval, u128)> = Vec::new();
    let blocked = |pinned: &[(Interval, u128)], iv: &Interval| {
        pinned
            .iter()
            .filter(|(other, _)| other.overlaps(iv))
            .fold(0u128, |m, (_, mask)| m | mask)
    };
    for &(_, v) in &c.eot_reads {
        let iv = p.live[v.index()];
        if iv.is_empty() {
            continue;
        }
        let regs = p.regs[v.index()].max(1);
        let free = allowed
            & !blocked(&pinned, &iv)
            & !off_r127(c, v.index())
            & !inputs.busy(iv.start.get());
        let first = highest_run(free, regs, c.eot_first_grf);
        out.placement[v.index()] = pin(&mut pinned, iv, regs, first);
    }
    // The VGRFs each must stay apart from whatever liveness says (crate::constraints::Apart),
    // as rows of one list.
    let partners = Partners::of(c, n);
    let apart = |out: &Allocation, v: usize| -> u128 {
        partners
            .of_vgrf(v)
            .iter()
            .fold(0u128, |m, &w| match out.placement[w as usize] {
                Placement::At(at) => {
                    let layout = &input.shader.vgrfs[eubatch_ir::Vgrf::from_usize(w as usize)];
                    let regs = at.registers(layout, c.reg_size);
                    m | run_mask(regs.start, regs.end - regs.start)
                }
                _ => m,
            })
    };
    // Spill temporaries, by interval start, pinned where they land.
    let mut temps: Vec<u32> = (0..n as u32)
        .filter(|&v| {
            let v = v as usize;
            !p.live[v].is_empty() && !c.is_eot[v] && c.unspillable.get(v) == Some(&true)
        })
        .collect();
    temps.sort_unstable_by_key(|&v| (p.live[v as usize].start, v));
    for v in temps {
        let iv = p.live[v as usize];
        let regs = p.regs[v as usize].max(1);
        let free = allowed
            & !c.eot_only
            & !blocked(&pinned, &iv)
            & !off_r127(c, v as usize)
            & !apart(&out, v as usize)
            & !inputs.busy(iv.start.get());
        out.placement[v as usize] = pin(&mut pinned, iv, regs, lowest_run(free, regs));
    }
    // Every other accessed VGRF, by interval start.
    let mut order: Vec<u32> = (0..n as u32)
        .filter(|&v| {
            let v = v as usize;
            !p.live[v].is_empty() && !c.is_eot[v] && c.unspillable.get(v) != Some(&true)
        })
        .collect();
    order.sort_unstable_by_key(|&v| (p.live[v as usize].start, v));
    // Active VGRFs by the end of their interval.
    let mut active: BinaryHeap<Reverse<(u32, u32)>> = BinaryHeap::with_capacity(64);
    for v in order {
        let iv = p.live[v as usize];
        while let Some(&Reverse((end, w))) = active.peek() {
            if end >= iv.start.get() {
                break;
            }
            if let Placement::At(at) = out.placement[w as usize] {
                packer.release(w as usize, at);
            }
            active.pop();
        }
        let avail = allowed
            & !c.eot_only
            & !blocked(&pinned, &iv)
            & !off_r127(c, v as usize)
            & !apart(&out, v as usize)
            & !inputs.busy(iv.start.get());
        let at = match packer.take(v as usize, avail) {
            Some(at) => Some(at),
            None => evict(&mut out, &active, packer, v as usize, iv.end.get(), avail),
        };
        out.placement[v as usize] = match at {
            Some(at) => {
                active.push(Reverse((iv.end.get(), v)));
                Placement::At(at)
            }
            None => Placement::NoFit,
        };
    }
    out
}

/// The thread's input registers ([`crate::constraints::THREAD_INPUTS`]) by their last
/// access: which of them a VGRF whose interval starts at a given point may not take
/// (those read at or after it), found by a binary search, so that the scan stays
/// n·log n whatever order it places VGRFs in.
///
/// [`crate::constraints::THREAD_INPUTS`]: crate::constraints::THREAD_INPUTS
struct Inputs {
    /// The last accesses, ascending.
    last: Vec<u32>,
    /// `busy[i]`: the registers whose last access is `last[i]` or later (one more entry,
    /// empty, past the end).
    busy: Vec<u128>,
}

impl Inputs {
    fn of(c: &Constraints) -> Inputs {
        let mut by_last: Vec<(u32, u32)> = c
            .input_last_use
            .iter()
            .enumerate()
            .filter(|&(g, _)| g < 128)
            .filter_map(|(g, l)| l.map(|l| (l, g as u32)))
            .collect();
        by_last.sort_unstable();
        let mut busy = vec![0u128; by_last.len() + 1];
        for i in (0..by_last.len()).rev() {
            busy[i] = busy[i + 1] | 1u128 << by_last[i].1;
        }
        Inputs {
            last: by_last.iter().map(|&(l, _)| l).collect(),
            busy,
        }
    }

    /// The input registers still read at or after point `start` (Mesa's
    /// `node_start_ip <= payload_last_use_ip`).
    fn busy(&self, start: u32) -> u128 {
        self.busy[self.last.partition_point(|&l| l < start)]
    }
}

/// `regs` registers from `first`, kept from every later VGRF whose interval meets `iv`
/// (the end-of-thread payloads and the spill temporaries): the placement; `NoFit` when no
/// run was found.
fn pin(
    pinned: &mut Vec<(Interval, u128)>,
    iv: Interval,
    regs: u32,
    first: Option<u32>,
) -> Placement {
    match first {
        Some(first) => {
            pinned.push((iv, run_mask(first, regs)));
            Placement::At(Reg {
                grf: first,
                offset: 0,
            })
        }
        None => Placement::NoFit,
    }
}

/// Per VGRF, the VGRFs it must not overlap ([`crate::constraints::Apart`], both ways): a
/// whole register of a placed partner is kept from it, so values that share registers
/// byte by byte (`subreg`) keep apart too.
struct Partners {
    start: Vec<u32>,
    list: Vec<u32>,
}

impl Partners {
    fn of(c: &Constraints, n: usize) -> Partners {
        let mut start = vec![0u32; n + 1];
        for a in &c.apart {
            for v in [a.a, a.b] {
                if v.index() < n {
                    start[v.index() + 1] += 1;
                }
            }
        }
        for k in 0..n {
            start[k + 1] += start[k];
        }
        let mut fill = start[..n].to_vec();
        let mut list = vec![0u32; start[n] as usize];
        for a in &c.apart {
            for (v, w) in [(a.a, a.b), (a.b, a.a)] {
                if v.index() < n {
                    list[fill[v.index()] as usize] = w.index() as u32;
                    fill[v.index()] += 1;
                }
            }
        }
        Partners { start, list }
    }

    fn of_vgrf(&self, v: usize) -> &[u32] {
        &self.list[self.start[v] as usize..self.start[v + 1] as usize]
    }
}

/// g127 as a mask when VGRF `v` must stay off it ([`SEND_DST_NOT_R127`]), else nothing.
///
/// [`SEND_DST_NOT_R127`]: crate::constraints::SEND_DST_NOT_R127
fn off_r127(c: &Constraints, v: usize) -> u128 {
    if c.not_r127.get(v).copied().unwrap_or(false) {
        1 << 127
    } else {
        0
    }
}

/// Makes room for `v` (whose interval ends at `end`) by spilling the active VGRF whose
/// interval ends last, if it ends after `end` and its storage is enough: `v`'s place then.
/// (Evicted VGRFs stay in `active`, `NoFit`; the scan skips them when they end.)
fn evict(
    out: &mut Allocation,
    active: &BinaryHeap<Reverse<(u32, u32)>>,
    packer: &mut impl Packer,
    v: usize,
    end: u32,
    avail: u128,
) -> Option<Reg> {
    let (w_end, w) = active
        .iter()
        .map(|Reverse(e)| *e)
        .filter(|&(_, w)| matches!(out.placement[w as usize], Placement::At(_)))
        .max()?;
    if w_end <= end {
        return None;
    }
    let Placement::At(w_at) = out.placement[w as usize] else {
        return None;
    };
    packer.release(w as usize, w_at);
    match packer.take(v, avail) {
        Some(at) => {
            out.placement[w as usize] = Placement::NoFit;
            Some(at)
        }
        None => {
            packer.hold(w as usize, w_at);
            None
        }
    }
}

/// `n` registers from `first` as a mask (none when they would leave the file).
pub(crate) fn run_mask(first: u32, n: u32) -> u128 {
    if n == 0 || first + n > 128 {
        return 0;
    }
    let ones = if n == 128 {
        u128::MAX
    } else {
        (1u128 << n) - 1
    };
    ones << first
}

/// The registers `first` with `first..first + n` all in `free`, as a mask (none for a run
/// of 0 registers or more than the file).
fn run_starts(free: u128, n: u32) -> u128 {
    if n == 0 || n > 128 {
        return 0;
    }
    let mut m = free;
    for k in 1..n {
        m &= free >> k;
        if m == 0 {
            break;
        }
    }
    m
}

/// The lowest `first` with registers `first..first + n` all in `free`.
pub(crate) fn lowest_run(free: u128, n: u32) -> Option<u32> {
    let m = run_starts(free, n);
    (m != 0).then(|| m.trailing_zeros())
}

/// The `first` with registers `first..first + n` all in `free`: the lowest run of
/// registers not in `given_back` (never used) if there is one, else the run given back
/// longest ago: the least, over such runs, of the latest `freed` point of its registers
/// (ties to the lowest `first`). See [`crate::linear`].
pub(crate) fn oldest_run(free: u128, n: u32, freed: &[u32; 128], given_back: u128) -> Option<u32> {
    // Never-used registers first: the lowest run of them, without looking at the times.
    if let Some(g) = lowest_run(free & !given_back, n) {
        return Some(g);
    }
    let mut m = run_starts(free, n);
    let mut best = (u32::MAX, 0u32);
    if n == 1 {
        while m != 0 {
            let g = m.trailing_zeros();
            m &= m - 1;
            let key = freed[g as usize];
            if key < best.0 {
                best = (key, g);
            }
        }
    } else {
        while m != 0 {
            let g = m.trailing_zeros();
            m &= m - 1;
            let key = freed[g as usize..(g + n) as usize]
                .iter()
                .copied()
                .max()
                .unwrap_or(0);
            if key < best.0 {
                best = (key, g);
            }
        }
    }
    (best.0 != u32::MAX).then_some(best.1)
}

/// The highest such `first` that is at least `floor`.
fn highest_run(free: u128, n: u32, floor: u32) -> Option<u32> {
    if floor >= 128 {
        return None;
    }
    let m = run_starts(free, n) & (u128::MAX << floor);
    (m != 0).then(|| 127 - m.leading_zeros())
}

/// The registers of the file a VGRF may take: below the end of the file, not reserved
/// (end-of-thread payloads may also take `c.eot_only`), and not an input register the
/// constraints do not describe; the input registers they describe are free or not by
/// the VGRF's interval ([`Inputs`]).
fn allowed(c: &Constraints) -> u128 {
    let top = run_mask(0, c.grf_count.min(128));
    let described = c.input_last_use.len().min(c.first_free_grf as usize) as u32;
    let undescribed = run_mask(
        described,
        c.first_free_grf.min(128).saturating_sub(described),
    );
    top & !undescribed & !c.reserved
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn register_runs() {
        assert_eq!(run_mask(2, 3), 0b11100);
        assert_eq!(run_mask(126, 3), 0);
        assert_eq!(run_mask(0, 128), u128::MAX);
        assert_eq!(lowest_run(0b1101100, 2), Some(2));
        assert_eq!(lowest_run(0b1101100, 3), None);
        assert_eq!(lowest_run(u128::MAX, 128), Some(0));
        assert_eq!(highest_run(u128::MAX, 8, 112), Some(120));
        assert_eq!(highest_run(run_mask(0, 112), 1, 112), None);
        assert_eq!(highest_run(run_mask(112, 4), 2, 112), Some(114));
    }
}
