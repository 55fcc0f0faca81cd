//! What scheduling an instruction does to register pressure, as Mesa 22.3's pre-RA
//! scheduler estimates it (brw_schedule_instructions.cpp `get_register_pressure_benefit`,
//! `count_reads_remaining`, `update_register_pressure`, `setup_liveness`): the registers of
//! each VGRF whose last read in the block it is (and which is not live out of the block),
//! minus the registers of the VGRF it starts (first written in the block and not live into
//! it), plus one for each thread-payload register it reads for the last time.
//!
//! A VGRF is live into or out of a block when its live interval crosses the block's
//! boundary (what Mesa extends its per-block sets with, matching the allocator's
//! interference); the analysis layer's intervals say it. A payload register is live out of
//! a block that ends at or before its last read in the program. Sizes are whole registers.
//!
//! Per block, counts are reset only where the block touched them, so the cost is linear in
//! the shader, not blocks × VGRFs.

use eubatch_ir::{Inst, Operand, RegFile, Shader};

use crate::analysis::intervals::{Interval, LiveIntervals};
use crate::analysis::points::Points;

pub struct Pressure {
    /// Per VGRF: registers it takes.
    size: Vec<i32>,
    /// Per VGRF: its live interval.
    live: Vec<Interval>,
    /// Per block: its first point and one past its last.
    block_points: Vec<(u32, u32)>,
    /// Per general register: the last point that reads it as a fixed register (payload).
    payload_last_use: Vec<Option<u32>>,
    /// The block being scheduled.
    block: usize,
    /// Per VGRF: reads left in the block; whether the block has written it yet.
    reads_remaining: Vec<u32>,
    written: Vec<bool>,
    /// Per general register: reads left in the block.
    hw_reads_remaining: Vec<u32>,
    touched: Vec<u32>,
    hw_touched: Vec<u32>,
    /// The current block's instructions, by node: the VGRF each writes (`u32::MAX`: none),
    /// where its VGRF reads and its payload-register reads start in `vgrf_reads` and
    /// `hw_reads` (one more entry at the end); reads of one operand repeated in the same
    /// instruction are counted once (Mesa `is_src_duplicate`).
    dst: Vec<u32>,
    vgrf_start: Vec<u32>,
    vgrf_reads: Vec<u32>,
    hw_start: Vec<u32>,
    hw_reads: Vec<u32>,
}

impl Pressure {
    pub fn new(shader: &Shader, intervals: &LiveIntervals, points: &Points) -> Pressure {
        let reg = shader.reg_size();
        let grfs = shader.target.target().grf_count as usize;
        let mut payload_last_use = vec![None; grfs];
        for (p, &inst) in points.order().iter().enumerate() {
            each_fixed_read(shader, inst, |r| {
                if let Some(u) = payload_last_use.get_mut(r as usize) {
                    *u = Some(p as u32);
                }
            });
        }
        let nv = shader.vgrfs.len();
        Pressure {
            size: shader
                .vgrfs
                .iter()
                .map(|l| l.size().div_ceil(reg) as i32)
                .collect(),
            live: shader
                .vgrfs
                .indices()
                .map(|v| intervals.vgrf(shader, v))
                .collect(),
            block_points: shader
                .layout
                .blocks
                .indices()
                .map(|b| {
                    let r = points.block(b);
                    (r.start.get(), r.end.get())
                })
                .collect(),
            payload_last_use,
            block: 0,
            reads_remaining: vec![0; nv],
            written: vec![false; nv],
            hw_reads_remaining: vec![0; grfs],
            touched: Vec::new(),
            hw_touched: Vec::new(),
            dst: Vec::new(),
            vgrf_start: Vec::new(),
            vgrf_reads: Vec::new(),
            hw_start: Vec::new(),
            hw_reads: Vec::new(),
        }
    }

    /// Starts block `b`, whose instructions are `insts`: counts their reads.
    pub fn start_block(&mut self, shader: &Shader, b: usize, insts: &[Inst]) {
        for &v in &self.touched {
            self.reads_remaining[v as usize] = 0;
            self.written[v as usize] = false;
        }
        for &r in &self.hw_touched {
            self.hw_reads_remaining[r as usize] = 0;
        }
        self.touched.clear();
        self.hw_touched.clear();
        self.block = b;
        self.dst.clear();
        self.vgrf_start.clear();
        self.vgrf_reads.clear();
        self.hw_start.clear();
        self.hw_reads.clear();
        for &inst in insts {
            let d = &shader.insts.dst[inst];
            self.dst.push(if d.file == RegFile::Vgrf {
                self.touched.push(d.nr);
                d.nr
            } else {
                u32::MAX
            });
            self.vgrf_start.push(self.vgrf_reads.len() as u32);
            self.hw_start.push(self.hw_reads.len() as u32);
            let srcs = shader.srcs(inst);
            for (k, s) in srcs.iter().enumerate() {
                if is_duplicate(srcs, k) {
                    continue;
                }
                match s.file {
                    RegFile::Vgrf => {
                        self.reads_remaining[s.nr as usize] += 1;
                        self.touched.push(s.nr);
                        self.vgrf_reads.push(s.nr);
                    }
                    RegFile::FixedGrf => {
                        for r in fixed_regs(shader, inst, k) {
                            if let Some(n) = self.hw_reads_remaining.get_mut(r as usize) {
                                *n += 1;
                                self.hw_touched.push(r);
                                self.hw_reads.push(r);
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        self.vgrf_start.push(self.vgrf_reads.len() as u32);
        self.hw_start.push(self.hw_reads.len() as u32);
    }

    /// Whether VGRF `v` is live into the current block (its interval crosses its start).
    fn live_in(&self, v: usize) -> bool {
        let (start, _) = self.block_points[self.block];
        let iv = self.live[v];
        self.block > 0 && !iv.is_empty() && iv.start.get() < start && iv.end.get() >= start
    }

    /// Whether VGRF `v` is live out of the current block (its interval crosses its end).
    fn live_out(&self, v: usize) -> bool {
        let (_, end) = self.block_points[self.block];
        let iv = self.live[v];
        self.block + 1 < self.block_points.len()
            && !iv.is_empty()
            && iv.start.get() < end
            && iv.end.get() >= end
    }

    /// Whether payload register `r` is read after the current block.
    fn hw_live_out(&self, r: u32) -> bool {
        let (_, end) = self.block_points[self.block];
        self.payload_last_use[r as usize].is_some_and(|last| end <= last + 1)
    }

    /// Registers scheduling node `k` of the block now frees, less those it starts to hold.
    pub fn benefit(&self, k: usize) -> i32 {
        let mut benefit = 0;
        let d = self.dst[k];
        if d != u32::MAX {
            let v = d as usize;
            if !self.live_in(v) && !self.written[v] {
                benefit -= self.size[v];
            }
        }
        for &v in &self.vgrf_reads[self.vgrf_start[k] as usize..self.vgrf_start[k + 1] as usize] {
            let v = v as usize;
            if self.reads_remaining[v] == 1 && !self.live_out(v) {
                benefit += self.size[v];
            }
        }
        for &r in &self.hw_reads[self.hw_start[k] as usize..self.hw_start[k + 1] as usize] {
            if self.hw_reads_remaining[r as usize] == 1 && !self.hw_live_out(r) {
                benefit += 1;
            }
        }
        benefit
    }

    /// Node `k` of the block was scheduled: its reads are done and its destination written.
    pub fn scheduled(&mut self, k: usize) {
        let d = self.dst[k];
        if d != u32::MAX {
            self.written[d as usize] = true;
        }
        for &v in &self.vgrf_reads[self.vgrf_start[k] as usize..self.vgrf_start[k + 1] as usize] {
            let n = &mut self.reads_remaining[v as usize];
            *n = n.saturating_sub(1);
        }
        for &r in &self.hw_reads[self.hw_start[k] as usize..self.hw_start[k + 1] as usize] {
            let n = &mut self.hw_reads_remaining[r as usize];
            *n = n.saturating_sub(1);
        }
    }
}

/// Whether source `k` repeats an earlier source of the same instruction (Mesa
/// `is_src_duplicate`).
fn is_duplicate(srcs: &[Operand], k: usize) -> bool {
    srcs[..k].contains(&srcs[k])
}

/// The general registers fixed-register source `k` of `inst` reads (Mesa `regs_read`: a
/// message's payload over its whole length).
fn fixed_regs(shader: &Shader, inst: Inst, k: usize) -> std::ops::Range<u32> {
    let s = &shader.srcs(inst)[k];
    s.nr..s.nr + eubatch_ir::size_read::regs_read(shader, inst, k).max(1)
}

/// Calls `f(r)` for each general register `inst` reads as a fixed register.
fn each_fixed_read(shader: &Shader, inst: Inst, mut f: impl FnMut(u32)) {
    for (k, s) in shader.srcs(inst).iter().enumerate() {
        if s.file == RegFile::FixedGrf {
            fixed_regs(shader, inst, k).for_each(&mut f);
        }
    }
}
