//! Post-register-allocation scheduling: Mesa's list scheduler after allocation
//! (brw_fs.cpp `allocate_registers` runs `schedule_instructions(SCHEDULE_POST)` before the
//! generator; brw_schedule_instructions.cpp, `fs_instruction_scheduler` with
//! `post_reg_alloc`), on eubatch's code in register form (every operand a fixed register:
//! `eubatch_regalloc::assign`), before the generator's expansion.
//!
//! Each block is scheduled on its own over a dependency graph of its instructions, built as
//! Mesa's `calculate_deps` builds it after allocation:
//! - general registers tracked per 32-byte register: read after write and write after
//!   write to the register's last writer, with the writer's latency; write after read
//!   (bottom up) with latency 0. A source reads the registers `size_read` gives
//!   ([`eubatch_ir::size_read`]: a send's whole payloads, `pln`'s plane and barycentrics,
//!   the region otherwise); a destination writes `size_written`'s registers or its region's,
//!   whichever ends later;
//! - the flag register per byte (eight channels, Mesa's `flags_read`/`flags_written`
//!   masks over f0.0–f1.1): a predicate reads the bytes of its channels (every byte for the
//!   Align16 forms), a conditional modifier other than `sel`'s writes them; read after
//!   write with the writer's latency, write after write 0, write after read the reader's
//!   latency;
//! - the accumulator as one resource: an `acc` operand, and `mac`, `mach`, `sada2`
//!   reading it implicitly, `mac`, `mach`, `addc`, `subb`, `sada2` writing it (Mesa's
//!   `writes_accumulator` flag is not in eubatch's IR: every instruction that may set it is
//!   taken to);
//! - scheduling barriers, ordered after everything back to the previous barrier and before
//!   everything up to the next (Mesa's `add_barrier_deps`, latency 0). Mesa's: control
//!   flow, `halt_target`, a message that does more than read (a raw `send` whose message
//!   [`eubatch_ir::message::only_reads`] is free), an operand in an architecture register
//!   other than null, the accumulator and the flags (the address register `a0` among them,
//!   and indirect addressing through it). Beyond Mesa, where eubatch's register form does
//!   not say which registers an instruction touches: an end of thread, every message
//!   opcode other than a raw send and `uniform_pull_const_gfx7` (one payload register and
//!   a scalar index), every virtual opcode whose registers the generator decides
//!   (`broadcast`, `find_live_channel` (which may write a flag on gen7), `shuffle`,
//!   `mov_indirect`, scratch messages, ...; only plain ALU opcodes, `pln`/`linterp`,
//!   derivatives, `pixel_x`/`pixel_y` (twice its channels' elements of its first source)
//!   and `undef` move), and an Align16 instruction (its swizzles decide what it reads).
//!
//! So every register byte an instruction reads or writes keeps its order against every
//! other instruction touching its register: the values each read sees, and so the
//! allocation checker's guarantee, are those of the order before.
//!
//! Latencies are Mesa's `set_latency_gfx7` table and issue times its `issue_time` with
//! bank-conflict overhead ([`eubatch_ir::latency`]). Candidates are chosen, by default, as a
//! list scheduler for latency does (beyond Mesa): the one most likely to unblock an early
//! exit (`halt`), else, of those whose operands are ready by the scheduler's clock, the
//! one with the longest path to the end of the block (Mesa's `compute_delays`), else the
//! one unblocked first (ties: the longer path, then Mesa's list order); and a
//! render-target write that does not end the thread is no barrier
//! ([`is_render_target_write`]): it keeps its order against the block's other messages and
//! barriers, and its register and flag dependencies, so the work of a SIMD32 shader's
//! second half no longer waits before the first half's write. Mesa's own rule
//! (`choose_instruction_to_schedule` in post mode, the pre-RA `top-down` rule: the first
//! unblocked, whatever its path; every write a barrier, `has_side_effects`) is
//! [`PostRaScheduler::mesa_choice`] (`compile --mesa-post-ra-choice`). Mesa's rule takes
//! the oldest ready instruction, so a message whose payload is ready waits behind ALU work
//! that could have run under its latency. On shaderdb-skl, against Mesa's rule, Mesa's
//! cycle estimate of every variant (`--keep-all-simd32`) falls with `subreg` (whose
//! allocation this does not change) by 1.35% (FS16), 1.28% (FS32), 0.11% (FS8), 0.12% (VS),
//! with `mesa` by 2.06%, 1.78%, 0.51%, 0.41%. Both rules use Mesa's `compute_exits`
//! ([`super::Scheduler`]).
//!
//! The estimate returned is the scheduler's own model: per block, the cycle the last
//! instruction issues by in Mesa's clock (`schedule_instructions`: an instruction starts no
//! earlier than its parents' finish times plus edge latencies, and takes its issue time),
//! summed over blocks without loop weights, for the order before and after.
//!
//! Limits: the scalar back end (vec4 code is left as it is; Mesa schedules it with
//! `vec4_instruction_scheduler`); gen7 to gen9 (no register scoreboard or software
//! scoreboard of gen12, no MRF writes of gen6); barriers beyond Mesa's keep virtual opcodes
//! in place where Mesa moves them. Bank conflicts are priced on the registers as they
//! come: Mesa's `opt_bank_conflicts` runs just before, in the driver
//! (`eubatch_regalloc::bank_conflicts`). Cost: linear in each block's accesses (registers touched,
//! edges) plus Mesa's walk between barriers; the candidate list is scanned per pick, as
//! Mesa does (quadratic in the candidates at once). Storage is reused from block to block
//! and from shader to shader ([`PostRaScheduler`]).

use std::ops::Range;

use eubatch_ir::opcode::ControlFlow;
use eubatch_ir::operand::arf;
use eubatch_ir::shader::{CondMod, Predicate};
use eubatch_ir::size_read::{regs_read, regs_written};
use eubatch_ir::{latency, Backend, Inst, Opcode, Operand, RegFile, Shader};

use super::dag::{Dag, Edges, NONE};
use super::{Costs, Mode, Scheduler};

/// The scheduler's estimate of a shader before and after scheduling (see the module's
/// doc): block schedule lengths in cycles, summed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Estimate {
    pub before: u64,
    pub after: u64,
}

impl std::ops::AddAssign for Estimate {
    fn add_assign(&mut self, o: Estimate) {
        self.before += o.before;
        self.after += o.after;
    }
}

/// Schedules every block of `shader` (register form) for latency; `None` for code it does
/// not schedule (vec4), left as it is.
pub fn schedule(shader: &mut Shader) -> Option<Estimate> {
    PostRaScheduler::default().schedule(shader)
}

/// The post-RA scheduler with its storage, kept from block to block and shader to shader.
#[derive(Default)]
pub struct PostRaScheduler {
    edges: Edges,
    /// Per node of the block: barrier, latency, issue time.
    barrier: Vec<bool>,
    latency: Vec<i64>,
    issue: Vec<i64>,
    /// Per general register, flag byte and the accumulator: the last node that wrote it in
    /// the walk.
    last_grf: Vec<u32>,
    last_flag: [u32; 8],
    last_acc: u32,
    /// The original order's estimate: when each node can start.
    unblocked: Vec<i64>,
    scheduler: Scheduler,
    /// Choose candidates by Mesa's rule (the first unblocked) rather than eubatch's
    /// (the longest path among those ready by the clock; see the module's doc).
    pub mesa_choice: bool,
}

impl PostRaScheduler {
    /// Schedules every block of `shader`; `None` for vec4 code, left as it is.
    pub fn schedule(&mut self, shader: &mut Shader) -> Option<Estimate> {
        if shader.backend != Backend::Scalar {
            return None;
        }
        let mut estimate = Estimate::default();
        let grfs = shader.target.target().grf_count as usize;
        for b in 0..shader.layout.blocks.len() {
            let block = eubatch_ir::Block::from_usize(b);
            let insts = std::mem::take(&mut shader.layout.blocks[block].insts);
            if insts.is_empty() {
                continue;
            }
            let dag = self.graph(shader, &insts, grfs);
            estimate.before += self.length_in_order(&dag) as u64;
            let costs = Costs {
                latency: &self.latency,
                issue: &self.issue,
            };
            self.scheduler.critical = !self.mesa_choice;
            self.scheduler
                .run(shader, &dag, &insts, Some(&costs), None, Mode::TopDown);
            estimate.after += self.scheduler.time as u64;
            let mut order = insts;
            order.clone_from(&self.scheduler.order);
            shader.layout.blocks[block].insts = order;
        }
        Some(estimate)
    }

    /// The block's graph (see the module's doc), its nodes' costs left in `self`.
    pub fn graph(&mut self, shader: &Shader, insts: &[Inst], grfs: usize) -> Dag {
        let n = insts.len();
        let gen = shader.target;
        let reg = shader.reg_size();
        self.edges.clear();
        self.barrier.clear();
        self.latency.clear();
        self.issue.clear();
        // Render-target writes that are no barrier (eubatch's choice, not Mesa's): each
        // ordered after the block's messages before it, and every message after it.
        let mut last_rt = NONE;
        let mut sends_since: Vec<u32> = Vec::new();
        for (k, &inst) in insts.iter().enumerate() {
            let k = k as u32;
            let rt = !self.mesa_choice && is_render_target_write(shader, inst);
            if rt || shader.insts.opcode[inst].is_message() {
                if last_rt != NONE {
                    self.edges.add(last_rt, k, 0);
                }
                if rt {
                    for &m in &sends_since {
                        self.edges.add(m, k, 0);
                    }
                    sends_since.clear();
                    last_rt = k;
                } else {
                    sends_since.push(k);
                }
            }
            self.barrier.push(!rt && is_barrier(shader, inst));
            let (l, i) = costs(shader, inst, gen, reg);
            self.latency.push(l as i64);
            self.issue.push(i as i64);
        }
        self.reset(grfs);
        // Top down: barriers, read after write, write after write.
        for (k, &inst) in insts.iter().enumerate() {
            let k = k as u32;
            if self.barrier[k as usize] {
                self.edges.barrier_deps(&self.barrier, k);
            }
            let (edges, latency) = (&mut self.edges, &self.latency);
            let (last_grf, last_flag, last_acc) =
                (&mut self.last_grf, &mut self.last_flag, &mut self.last_acc);
            let lat = |w: u32| latency[w as usize] as u32;
            for_each_access(shader, inst, reg, |a| match a {
                Access::ReadGrf(r) => {
                    for g in clamp(r, last_grf.len()) {
                        let w = last_grf[g];
                        if w != NONE && w != k {
                            edges.add(w, k, lat(w));
                        }
                    }
                }
                Access::ReadAcc { .. } => {
                    if *last_acc != NONE && *last_acc != k {
                        edges.add(*last_acc, k, lat(*last_acc));
                    }
                }
                Access::ReadFlags(m) => {
                    for f in bits(m) {
                        let w = last_flag[f];
                        if w != NONE && w != k {
                            edges.add(w, k, lat(w));
                        }
                    }
                }
                Access::WriteGrf(r) => {
                    for g in clamp(r, last_grf.len()) {
                        let w = last_grf[g];
                        if w != NONE && w != k {
                            edges.add(w, k, lat(w));
                        }
                        last_grf[g] = k;
                    }
                }
                Access::WriteAcc => {
                    if *last_acc != NONE && *last_acc != k {
                        edges.add(*last_acc, k, lat(*last_acc));
                    }
                    *last_acc = k;
                }
                Access::WriteFlags(m) => {
                    for f in bits(m) {
                        let w = last_flag[f];
                        if w != NONE && w != k {
                            edges.add(w, k, 0);
                        }
                        last_flag[f] = k;
                    }
                }
            });
        }
        self.reset(grfs);
        // Bottom up: write after read (the reader before the next writer).
        for (k, &inst) in insts.iter().enumerate().rev() {
            let k = k as u32;
            let (edges, own) = (&mut self.edges, self.latency[k as usize] as u32);
            let (last_grf, last_flag, last_acc) =
                (&mut self.last_grf, &mut self.last_flag, &mut self.last_acc);
            for_each_access(shader, inst, reg, |a| match a {
                Access::ReadGrf(r) => {
                    for g in clamp(r, last_grf.len()) {
                        let w = last_grf[g];
                        if w != NONE && w != k {
                            edges.add(k, w, 0);
                        }
                    }
                }
                Access::ReadAcc { implicit } => {
                    if *last_acc != NONE && *last_acc != k {
                        edges.add(k, *last_acc, if implicit { own } else { 0 });
                    }
                }
                Access::ReadFlags(m) => {
                    for f in bits(m) {
                        let w = last_flag[f];
                        if w != NONE && w != k {
                            edges.add(k, w, own);
                        }
                    }
                }
                Access::WriteGrf(r) => {
                    for g in clamp(r, last_grf.len()) {
                        last_grf[g] = k;
                    }
                }
                Access::WriteAcc => *last_acc = k,
                Access::WriteFlags(m) => {
                    for f in bits(m) {
                        last_flag[f] = k;
                    }
                }
            });
        }
        self.edges.to_dag(n)
    }

    fn reset(&mut self, grfs: usize) {
        self.last_grf.clear();
        self.last_grf.resize(grfs, NONE);
        self.last_flag = [NONE; 8];
        self.last_acc = NONE;
    }

    /// The block's schedule length in the original order (the scheduler's clock).
    fn length_in_order(&mut self, dag: &Dag) -> i64 {
        let n = self.issue.len();
        self.unblocked.clear();
        self.unblocked.resize(n, 0);
        let mut time = 0;
        for k in 0..n {
            time = self.unblocked[k].max(time) + self.issue[k];
            for &(c, lat) in dag.children(k as u32) {
                let u = &mut self.unblocked[c as usize];
                *u = (*u).max(time + lat as i64);
            }
        }
        time
    }
}

/// Node `inst`'s latency and issue time (Mesa's `set_latency_gfx7`, `issue_time`).
fn costs(shader: &Shader, inst: Inst, gen: eubatch_ir::Gen, reg: u32) -> (u32, u32) {
    let op = shader.insts.opcode[inst];
    let send = shader.send_info(inst).map(|s| (s.sfid, s.desc));
    let exec = shader.insts.control[inst].exec_size as u32;
    let srcs = shader.srcs(inst);
    let conflict = op.alu_arity() == Some(3)
        && srcs.len() == 3
        && latency::bank_conflict(gen, latency::source_grfs(srcs, reg));
    let dst_bytes = shader.insts.dst[inst].component_size(exec);
    (
        latency::latency(gen, op, send),
        latency::issue_time(exec, dst_bytes, conflict, reg),
    )
}

/// One thing an instruction reads or writes, in the order Mesa's `calculate_deps` visits
/// them: sources (registers and the accumulator, by source), the flags read, the
/// accumulator read implicitly; then the destination, the flags written, the accumulator
/// written implicitly.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Access {
    ReadGrf(Range<u32>),
    ReadAcc { implicit: bool },
    ReadFlags(u8),
    WriteGrf(Range<u32>),
    WriteAcc,
    WriteFlags(u8),
}

/// Calls `f` with each access of `inst` (register form), in [`Access`]'s order.
pub fn for_each_access(shader: &Shader, inst: Inst, reg: u32, mut f: impl FnMut(Access)) {
    let op = shader.insts.opcode[inst];
    let ctl = shader.insts.control[inst];
    let exec = ctl.exec_size as u32;
    let is_acc = |o: &Operand| {
        o.file == RegFile::Arf && (arf::ACCUMULATOR..arf::FLAG).contains(&(o.nr & 0xf0))
    };
    let is_flag = |o: &Operand| o.file == RegFile::Arf && o.nr & 0xf0 == arf::FLAG;
    for (k, s) in shader.srcs(inst).iter().enumerate() {
        if s.file == RegFile::FixedGrf {
            let n = match (op, k) {
                // Four channels' x (or y) among eight elements: twice the channels' elements
                // (the simulator's `pixel_xy`).
                (Opcode::PixelX | Opcode::PixelY, 0) => {
                    (s.offset + s.footprint(2 * exec)).div_ceil(reg)
                }
                _ => regs_read(shader, inst, k),
            };
            if n > 0 {
                f(Access::ReadGrf(s.nr..s.nr + n));
            }
        } else if is_acc(s) {
            f(Access::ReadAcc { implicit: false });
        } else if is_flag(s) {
            f(Access::ReadFlags(0xff));
        }
    }
    match ctl.predicate {
        Predicate::None => {}
        Predicate::Normal => f(Access::ReadFlags(flag_mask(
            ctl.flag_subreg as u32,
            ctl.group as u32,
            exec,
        ))),
        // Mesa's `flags_read` of the vertical modes: the channels' bytes of f0 and of f1.
        Predicate::Align1Allv => {
            let m = flag_mask(ctl.flag_subreg as u32, ctl.group as u32, exec);
            f(Access::ReadFlags(m | m << 4))
        }
        _ => f(Access::ReadFlags(0xff)),
    }
    if reads_accumulator_implicitly(op) {
        f(Access::ReadAcc { implicit: true });
    }
    let dst = &shader.insts.dst[inst];
    if dst.file == RegFile::FixedGrf {
        let by_size = regs_written(shader, inst);
        let by_region = (dst.offset + dst.footprint(exec)).div_ceil(reg);
        let n = by_size.max(by_region);
        if n > 0 {
            f(Access::WriteGrf(dst.nr..dst.nr + n));
        }
    } else if is_acc(dst) {
        f(Access::WriteAcc);
    } else if is_flag(dst) {
        f(Access::WriteFlags(0xff));
    }
    if ctl.cmod != CondMod::None && !matches!(op, Opcode::Sel | Opcode::Csel) {
        f(Access::WriteFlags(flag_mask(
            ctl.flag_subreg as u32,
            ctl.group as u32,
            exec,
        )));
    }
    if writes_accumulator_implicitly(op) && !is_acc(dst) {
        f(Access::WriteAcc);
    }
}

/// Mesa's `flag_mask(inst, 1)`: the flag bytes (bit `i`: byte `i` of f0.0–f1.1) holding
/// channels `group..group + exec` of flag subregister `subreg`.
pub fn flag_mask(subreg: u32, group: u32, exec: u32) -> u8 {
    let start = subreg * 16 + group;
    let end = (start + exec.max(1)).min(64);
    let (lo, hi) = (start / 8, end.div_ceil(8));
    if lo >= hi {
        return 0;
    }
    (((1u32 << hi) - 1) & !((1u32 << lo) - 1)) as u8
}

/// Mesa's `reads_accumulator_implicitly`.
fn reads_accumulator_implicitly(op: Opcode) -> bool {
    matches!(op, Opcode::Mac | Opcode::Mach | Opcode::Sada2)
}

/// The opcodes that may write the accumulator without naming it (Mesa sets
/// `writes_accumulator` on them; eubatch's IR has no such flag).
fn writes_accumulator_implicitly(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::Mac | Opcode::Mach | Opcode::Addc | Opcode::Subb | Opcode::Sada2
    )
}

/// Whether `inst` (register form) is ordered against everything around it (see the
/// module's doc).
pub fn is_barrier(shader: &Shader, inst: Inst) -> bool {
    use Opcode::*;
    let op = shader.insts.opcode[inst];
    let ctl = shader.insts.control[inst];
    if op == HaltTarget || op == PlaceholderHalt || op.control_flow() != ControlFlow::None {
        return true;
    }
    // An end of thread; an Align16 instruction, whose registers its swizzles and
    // writemask decide, not its region.
    if ctl.eot() || ctl.align16() {
        return true;
    }
    let moves = match op {
        Send | Sendc | Sends | Sendsc => shader.send_info(inst).is_some_and(|info| {
            eubatch_ir::message::only_reads(
                info.sfid,
                info.desc,
                ctl.eot(),
                eubatch_ir::message::descriptor_register(shader.srcs(inst)).is_some(),
            )
        }),
        UniformPullConstGfx7 | Pln | Linterp | Undef => true,
        // Differences inside each subspan of the channels' own elements; pixel
        // coordinates from their subspan's elements ([`for_each_access`]).
        DdxCoarse | DdxFine | DdyCoarse | DdyFine | PixelX | PixelY => true,
        op => op.alu_arity().is_some() && !op.is_message(),
    };
    if !moves {
        return true;
    }
    untracked_operands(shader, inst)
}

/// Whether `inst` is a render-target write that is not an end of thread (a raw send to
/// the render cache of message type 12, `GFX6_DATAPORT_WRITE_MESSAGE_RENDER_TARGET_WRITE`,
/// its descriptor immediate), in Align1, every operand tracked: what eubatch's choice
/// (not Mesa's, whose `has_side_effects` makes it a barrier) orders only against the
/// block's other messages and barriers, besides its register and flag dependencies. Its
/// only effect beyond the registers it reads is the render target's memory, which no ALU
/// instruction touches; against other messages it keeps its order (a render-target read,
/// a surface or sampler access of the same memory).
pub fn is_render_target_write(shader: &Shader, inst: Inst) -> bool {
    let op = shader.insts.opcode[inst];
    let ctl = shader.insts.control[inst];
    if !matches!(
        op,
        Opcode::Send | Opcode::Sendc | Opcode::Sends | Opcode::Sendsc
    ) || ctl.eot()
        || ctl.align16()
        || eubatch_ir::message::descriptor_register(shader.srcs(inst)).is_some()
    {
        return false;
    }
    let Some(info) = shader.send_info(inst) else {
        return false;
    };
    info.sfid == eubatch_ir::message::sfid::RENDER_CACHE
        && (info.desc >> 14) & 0xf == 12
        && !untracked_operands(shader, inst)
}

/// Operands the tracking above does not follow: Mesa's barrier for an ARF other than
/// null, the accumulator (and the flags, which eubatch also tracks), indirect addressing,
/// and anything not yet in register form.
fn untracked_operands(shader: &Shader, inst: Inst) -> bool {
    let untracked = |o: &Operand| match o.file {
        RegFile::FixedGrf | RegFile::Imm | RegFile::Bad => false,
        RegFile::Arf => {
            !(o.nr == arf::NULL
                || (arf::ACCUMULATOR..arf::FLAG).contains(&(o.nr & 0xf0))
                || o.nr & 0xf0 == arf::FLAG)
        }
        _ => true,
    };
    untracked(&shader.insts.dst[inst]) || shader.srcs(inst).iter().any(untracked)
}

/// The registers of `r` below `len`.
fn clamp(r: Range<u32>, len: usize) -> Range<usize> {
    (r.start as usize).min(len)..(r.end as usize).min(len)
}

/// The set bits of `m`.
fn bits(m: u8) -> impl Iterator<Item = usize> {
    (0..8).filter(move |i| m & (1 << i) != 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use eubatch_ir::text::parse_shader;

    fn shader(body: &str) -> Shader {
        parse_shader(&format!(
            "shader \"s\" stage FS width 8 target skl\nblock0:\n{body}"
        ))
        .unwrap()
    }

    /// The block's edges as (parent, child, latency).
    fn edges(s: &Shader) -> Vec<(u32, u32, u32)> {
        let insts = s.layout.blocks[eubatch_ir::Block::from_usize(0)]
            .insts
            .clone();
        let dag = PostRaScheduler::default().graph(s, &insts, 128);
        (0..insts.len() as u32)
            .flat_map(|p| dag.children(p).iter().map(move |&(c, l)| (p, c, l)))
            .collect()
    }

    #[test]
    fn flag_masks() {
        assert_eq!(flag_mask(0, 0, 8), 0b1);
        assert_eq!(flag_mask(0, 0, 16), 0b11);
        assert_eq!(flag_mask(0, 8, 8), 0b10);
        assert_eq!(flag_mask(1, 0, 16), 0b1100);
        assert_eq!(flag_mask(2, 0, 8), 0b1_0000);
        assert_eq!(flag_mask(0, 0, 32), 0b1111);
    }

    #[test]
    fn two_writes_of_a_register_keep_their_order() {
        // Write after write on g10 (the first writer's latency); the read of g10 after
        // both depends on the second.
        let s = shader(
            "    mul(8) g10<8,8,1>:F, g2<8,8,1>:F, g3<8,8,1>:F
    mov(8) g10<8,8,1>:F, g4<8,8,1>:F
    add(8) g11<8,8,1>:F, g10<8,8,1>:F, 1f
",
        );
        assert_eq!(edges(&s), vec![(0, 1, 14), (1, 2, 14)]);
    }

    #[test]
    fn half_register_writes_share_the_register() {
        // Two SIMD8 word writes to the halves of g10 are ordered (per register).
        let s = shader(
            "    mov(8) g10<1>:W, 1w
    mov(8) g10.16<1>:W, 2w
",
        );
        assert_eq!(edges(&s), vec![(0, 1, 14)]);
    }

    #[test]
    fn a_read_after_a_send_waits_for_it() {
        // A sampler message (200 cycles) into g20-g23, an independent add, then a read of
        // g21: the read waits 200 cycles; the add comes first in the schedule.
        let mut s = shader(
            "    send(8) (mlen: 2) (sfid: 2) (desc: 0x04420000) (size: 128) g20<8,8,1>:F, 0u, 0u, g2<8,8,1>:F
    mul(8) g30<8,8,1>:F, g21<8,8,1>:F, g5<8,8,1>:F
    add(8) g31<8,8,1>:F, g6<8,8,1>:F, g7<8,8,1>:F
",
        );
        assert_eq!(edges(&s), vec![(0, 1, 200)]);
        let est = schedule(&mut s).unwrap();
        let order: Vec<u32> = s.layout.insts().map(|i| i.index() as u32).collect();
        assert_eq!(order, vec![0, 2, 1]);
        // Before: send at 0, mul at 202 (done 204), add 206; after: the add hides in the
        // send's latency: send 2, add 4, mul at 202 until 204.
        assert_eq!(
            est,
            Estimate {
                before: 206,
                after: 204
            }
        );
    }

    #[test]
    fn write_after_read_and_flags() {
        // cmp writes f0.0's first byte; the predicated sel reads it (cmp's latency); the
        // next cmp writes it again: after the first (0) and after the read (the reader's
        // latency). The mov overwrites g3, which the cmp read: write after read, 0.
        let s = shader(
            "    cmp.l.f0.0(8) null<8,8,1>:F, g2<8,8,1>:F, g3<8,8,1>:F
    (+f0.0) sel(8) g4<8,8,1>:F, g2<8,8,1>:F, g5<8,8,1>:F
    cmp.g.f0.0(8) null<8,8,1>:F, g2<8,8,1>:F, 0f
    mov(8) g3<8,8,1>:F, 1f
",
        );
        assert_eq!(
            edges(&s),
            vec![(0, 1, 14), (0, 2, 0), (0, 3, 0), (1, 2, 14)]
        );
    }

    #[test]
    fn pixel_coordinates_read_their_subspans_elements() {
        // SIMD16: 32 words of subspan coordinates, g13 and g14; the destination g9-g10.
        let s = parse_shader(
            "shader \"s\" stage FS width 16 target skl\nblock0:
    pixel_x(16) g9<8,8,1>:F, g13<8,8,1>:UW, 0u
",
        )
        .unwrap();
        let mut got = Vec::new();
        for_each_access(&s, Inst::from_usize(0), 32, |a| got.push(a));
        assert_eq!(got, vec![Access::ReadGrf(13..15), Access::WriteGrf(9..11)]);
        assert!(!is_barrier(&s, Inst::from_usize(0)));
    }

    #[test]
    fn barriers_stay_between_their_neighbours() {
        // An EOT send is after everything; a side-effect-free send moves.
        let s = shader(
            "    mov(8) g120<8,8,1>:F, g2<8,8,1>:F
    mov(8) g10<8,8,1>:F, g3<8,8,1>:F
    send(8) (mlen: 1) (EOT) (sfid: 5) (desc: 0x02031000) null:UD, 0u, 0u, g120<8,8,1>:F
",
        );
        assert_eq!(edges(&s), vec![(0, 2, 14), (1, 2, 0)]);
        assert!(is_barrier(&s, Inst::from_usize(2)));
        assert!(!is_barrier(&s, Inst::from_usize(1)));
    }
}
