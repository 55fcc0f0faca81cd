//! Pre-register-allocation instruction scheduling: Mesa 22.3's list scheduler
//! (brw_schedule_instructions.cpp, `fs_instruction_scheduler` before register allocation)
//! in its three modes, one pass each, and [`PRE_MODES`], the order Mesa's
//! `fs_visitor::allocate_registers` tries them in (with no scheduling third): the register
//! allocator keeps the first that allocates without spilling.
//!
//! Each block is scheduled on its own over its dependency graph ([`dag`]): an instruction
//! becomes a candidate once every instruction it depends on is scheduled, and each step
//! picks one candidate:
//! - `top-down` (Mesa's `SCHEDULE_PRE`): the candidate most likely to unblock an early
//!   exit (`halt`), else the one unblocked first, by the critical-path times Mesa
//!   estimates (every instruction a latency of 1 before allocation; issue time 4 cycles
//!   for SIMD16, 2 otherwise);
//! - `non-lifo` (`SCHEDULE_PRE_NON_LIFO`): the candidate that frees the most registers
//!   ([`pressure`]), else the one with the longest path to the end of the block, else the
//!   one most likely to unblock an exit;
//! - `lifo` (`SCHEDULE_PRE_LIFO`): as `non-lifo`, but among candidates that free no more
//!   registers, the one that became a candidate last first (most likely to end a value's
//!   life soon).
//!
//! Ties go to the first candidate in Mesa's list order (new candidates at its head).
//! Control flow and every instruction with effects beyond its VGRF and flag writes stay
//! where they are relative to everything else ([`dag`]), so blocks keep their first and
//! last instructions.
//!
//! Limits: the scalar back end (vec4 code is not scheduled); dependencies are per 4-byte
//! slot, finer than Mesa's per-register tracking, so the order can differ from Mesa's
//! where two values share a register; thread inputs still named as push constants and
//! attributes (Mesa has given them registers by then) do not count in the pressure
//! estimate.

pub mod dag;
pub mod post_ra;
pub mod pressure;

use std::collections::VecDeque;

use eubatch_ir::{Backend, Inst, Opcode, Shader};

use crate::analysis::changed::Changed;
use crate::PassCx;
use dag::{Dag, NONE};
use pressure::Pressure;

/// Mesa's pre-RA scheduling modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    TopDown,
    NonLifo,
    /// The order the instructions are in.
    None,
    Lifo,
}

/// The modes in the order Mesa 22.3 tries them (`allocate_registers`: `pre_modes`),
/// best code first, most likely to allocate last.
pub const PRE_MODES: [Mode; 4] = [Mode::TopDown, Mode::NonLifo, Mode::None, Mode::Lifo];

impl Mode {
    /// As Mesa names it in its statistics (`scheduler_mode_name`).
    pub fn name(self) -> &'static str {
        match self {
            Mode::TopDown => "top-down",
            Mode::NonLifo => "non-lifo",
            Mode::None => "none",
            Mode::Lifo => "lifo",
        }
    }
}

/// Scheduling leaves any code it runs on correct; it does not reorder vec4 code.
pub const SCOPE: crate::manager::Scope = crate::manager::Scope::ANY;

/// Schedules every block of `shader` in `mode`.
pub fn schedule(shader: &mut Shader, cx: &mut PassCx, mode: Mode) -> Changed {
    match Schedules::new(shader, cx) {
        Some(mut s) => s.apply(shader, cx, mode),
        None => Changed::NOTHING,
    }
}

/// A shader ready to be scheduled in any mode: every block's dependency graph and, once a
/// mode asks for it, the register-pressure estimate of its order when this was made (the
/// original order each mode starts from, as Mesa resets it between modes), built once for
/// all the modes tried.
pub struct Schedules {
    original: Vec<Vec<Inst>>,
    /// Per block: its graph (none for a block of fewer than two instructions).
    dags: Vec<Option<Dag>>,
    /// Made by the first mode that weighs register pressure (`top-down` does not: the
    /// liveness of the original order is computed only when needed).
    pressure: Option<Pressure>,
    scheduler: Scheduler,
}

impl Schedules {
    /// `shader`'s graphs; none for code that is not scheduled (vec4) or whose liveness
    /// cannot be computed.
    pub fn new(shader: &Shader, cx: &mut PassCx) -> Option<Schedules> {
        if shader.backend != Backend::Scalar || cx.cfg(shader).is_err() {
            return None;
        }
        let table = cx.access(shader);
        let mut builder = dag::Builder::default();
        let original: Vec<Vec<Inst>> = shader
            .layout
            .blocks
            .iter()
            .map(|b| b.insts.clone())
            .collect();
        let dags = original
            .iter()
            .map(|insts| (insts.len() > 1).then(|| builder.build(shader, &table, insts)))
            .collect();
        Some(Schedules {
            original,
            dags,
            pressure: None,
            scheduler: Scheduler::default(),
        })
    }

    /// Puts every block of `shader` in `mode`'s order of the original one (`None`: the
    /// original order), and tells `cx` what changed; what changed is returned too.
    pub fn apply(&mut self, shader: &mut Shader, cx: &mut PassCx, mode: Mode) -> Changed {
        let mut changed = Changed::NOTHING;
        if matches!(mode, Mode::NonLifo | Mode::Lifo) && self.pressure.is_none() {
            // The estimate reads the liveness of the original order.
            changed |= self.put(shader, Mode::None);
            cx.invalidate(changed);
            let Some(intervals) = cx.intervals(shader) else {
                return changed;
            };
            let points = cx.points(shader);
            self.pressure = Some(Pressure::new(shader, &intervals, &points));
        }
        let now = self.put(shader, mode);
        cx.invalidate(now);
        changed | now
    }

    /// Puts the blocks in `mode`'s order (the estimate made, for the modes that read it).
    fn put(&mut self, shader: &mut Shader, mode: Mode) -> Changed {
        let mut changed = false;
        for (b, (insts, dag)) in self.original.iter().zip(&self.dags).enumerate() {
            let order = match dag {
                Some(dag) if mode != Mode::None => {
                    if let Some(p) = self.pressure.as_mut() {
                        p.start_block(shader, b, insts);
                    }
                    let pressure = self.pressure.as_mut();
                    self.scheduler.run(shader, dag, insts, None, pressure, mode);
                    &self.scheduler.order
                }
                _ => insts,
            };
            let block = &mut shader.layout.blocks[eubatch_ir::Block::from_usize(b)];
            if block.insts != *order {
                changed = true;
                block.insts.clone_from(order);
            }
        }
        Changed::when(changed, Changed::INSTRUCTION_ORDER)
    }
}

/// One block's list scheduling, its storage reused from block to block.
#[derive(Default)]
pub(crate) struct Scheduler {
    /// Per node: the longest path to the end of the block; the earliest time it can
    /// start; the exit (`halt`) it most likely unblocks; the step it became a candidate
    /// at; parents not yet scheduled.
    delay: Vec<i64>,
    unblocked: Vec<i64>,
    exit: Vec<u32>,
    generation: Vec<u32>,
    waiting: Vec<u32>,
    /// Candidates, Mesa's list order (new ones at the front).
    cands: VecDeque<u32>,
    /// The scheduled order, and the cycle its last instruction issued by.
    order: Vec<Inst>,
    time: i64,
    /// Post-RA: among the candidates ready by the clock, the longest path first.
    pub(crate) critical: bool,
}

/// Cycles to issue an instruction (Mesa `fs_instruction_scheduler::issue_time` before
/// register allocation: a compressed SIMD16 instruction issues in two passes).
fn issue_time(shader: &Shader, inst: Inst) -> i64 {
    if shader.insts.control[inst].exec_size == 16 {
        4
    } else {
        2
    }
}

/// Every instruction's latency before register allocation (Mesa's `schedule_node`).
const LATENCY: i64 = 1;

/// Per node of a block: its latency and the cycles it takes to issue, where they are not
/// the pre-RA ones ([`LATENCY`], [`issue_time`]): after register allocation.
pub(crate) struct Costs<'a> {
    pub latency: &'a [i64],
    pub issue: &'a [i64],
}

impl Scheduler {
    /// Schedules one block (its graph `dag`, instructions `insts`) in `mode`, with the
    /// latencies and issue times of `costs` (the pre-RA ones when `None`); the order is
    /// left in `self.order`, and `self.time` is the cycle the last instruction issued by.
    fn run(
        &mut self,
        shader: &Shader,
        dag: &Dag,
        insts: &[Inst],
        costs: Option<&Costs<'_>>,
        mut pressure: Option<&mut Pressure>,
        mode: Mode,
    ) {
        let issue = |k: usize| costs.map_or_else(|| issue_time(shader, insts[k]), |c| c.issue[k]);
        let latency = |k: usize| costs.map_or(LATENCY, |c| c.latency[k]);
        let n = insts.len();
        self.delay.clear();
        self.delay.resize(n, 0);
        self.unblocked.clear();
        self.unblocked.resize(n, 0);
        self.exit.clear();
        self.exit.resize(n, NONE);
        self.generation.clear();
        self.generation.resize(n, 0);
        self.waiting.clear();
        self.waiting.extend_from_slice(&dag.parents);
        // Mesa's compute_delays and compute_exits.
        for k in (0..n).rev() {
            let children = dag.children(k as u32);
            self.delay[k] = if children.is_empty() {
                issue(k)
            } else {
                children
                    .iter()
                    .map(|&(c, _)| latency(k) + self.delay[c as usize])
                    .max()
                    .unwrap_or(0)
            };
        }
        for k in 0..n {
            let t = self.unblocked[k] + issue(k);
            for &(c, lat) in dag.children(k as u32) {
                let u = &mut self.unblocked[c as usize];
                *u = (*u).max(t + lat as i64);
            }
        }
        for k in (0..n).rev() {
            let mut exit = if shader.insts.opcode[insts[k]] == Opcode::Halt {
                k as u32
            } else {
                NONE
            };
            for &(c, _) in dag.children(k as u32) {
                let ce = self.exit[c as usize];
                if self.exit_time(ce) < self.exit_time(exit) {
                    exit = ce;
                }
            }
            self.exit[k] = exit;
        }
        self.cands.clear();
        self.cands
            .extend((0..n as u32).filter(|&k| dag.parents[k as usize] == 0));
        self.order.clear();
        let mut time = 0i64;
        let mut generation = 1u32;
        while let Some(at) = self.choose(pressure.as_deref(), mode, time) {
            let k = self.cands.remove(at).expect("a candidate") as usize;
            let inst = insts[k];
            self.order.push(inst);
            if let Some(p) = pressure.as_deref_mut() {
                p.scheduled(k);
            }
            time = time.max(self.unblocked[k]) + issue(k);
            let (from, to) = (dag.child_start[k] as usize, dag.child_start[k + 1] as usize);
            for e in (from..to).rev() {
                let (c, lat) = dag.children[e];
                let c = c as usize;
                self.unblocked[c] = self.unblocked[c].max(time + lat as i64);
                self.generation[c] = generation;
                self.waiting[c] -= 1;
                if self.waiting[c] == 0 {
                    self.cands.push_front(c as u32);
                }
            }
            generation += 1;
        }
        debug_assert_eq!(self.order.len(), n, "the dependency graph has a cycle");
        self.time = time;
    }

    /// When the exit node `e` can be unblocked (never, for no exit).
    fn exit_time(&self, e: u32) -> i64 {
        if e == NONE {
            i64::MAX
        } else {
            self.unblocked[e as usize]
        }
    }

    /// Mesa's `fs_instruction_scheduler::choose_instruction_to_schedule`: the position in
    /// the candidate list of the one to schedule next.
    fn choose(&self, pressure: Option<&Pressure>, mode: Mode, now: i64) -> Option<usize> {
        let mut chosen: Option<usize> = None;
        if mode == Mode::TopDown && self.critical {
            // After allocation, beyond Mesa (see `post_ra`'s doc): the exit first, then
            // of the candidates ready by the clock `now` the longest path, else the one
            // unblocked first (then the longest path); ties to the first in list order.
            let key = |k: usize| {
                let te = self.exit_time(self.exit[k]);
                let u = self.unblocked[k];
                if u <= now {
                    (te, 0, 0, -self.delay[k])
                } else {
                    (te, 1, u, -self.delay[k])
                }
            };
            let mut best = None;
            for (at, &k) in self.cands.iter().enumerate() {
                let kk = key(k as usize);
                if best.is_none_or(|(b, _)| kk < b) {
                    best = Some((kk, at));
                }
            }
            return best.map(|(_, at)| at);
        }
        if mode == Mode::TopDown {
            let mut chosen_time = 0;
            for (at, &k) in self.cands.iter().enumerate() {
                let k = k as usize;
                let better = match chosen {
                    None => true,
                    Some(c) => {
                        let ck = self.cands[c] as usize;
                        let (te, tc) =
                            (self.exit_time(self.exit[k]), self.exit_time(self.exit[ck]));
                        te < tc || (te == tc && self.unblocked[k] < chosen_time)
                    }
                };
                if better {
                    chosen = Some(at);
                    chosen_time = self.unblocked[k];
                }
            }
            return chosen;
        }
        let benefit_of = |k: usize| pressure.map_or(0, |p| p.benefit(k));
        let mut chosen_benefit = 0;
        for (at, &k) in self.cands.iter().enumerate() {
            let k = k as usize;
            let Some(c) = chosen else {
                chosen = Some(at);
                chosen_benefit = benefit_of(k);
                continue;
            };
            let ck = self.cands[c] as usize;
            // Most important: a definite reduction of register pressure.
            let benefit = benefit_of(k);
            if benefit > 0 && benefit > chosen_benefit {
                chosen = Some(at);
                chosen_benefit = benefit;
                continue;
            } else if chosen_benefit > 0 && benefit < chosen_benefit {
                continue;
            }
            if mode == Mode::Lifo {
                // The most recent candidates are the likeliest to end a value's life.
                if self.generation[k] > self.generation[ck] {
                    chosen = Some(at);
                    chosen_benefit = benefit;
                    continue;
                } else if self.generation[k] < self.generation[ck] {
                    continue;
                }
            }
            // The longest path to the end of the block first.
            if self.delay[k] > self.delay[ck] {
                chosen = Some(at);
                chosen_benefit = benefit;
                continue;
            } else if self.delay[k] < self.delay[ck] {
                continue;
            }
            // The likeliest to unblock an early exit.
            if self.exit_time(self.exit[k]) < self.exit_time(self.exit[ck]) {
                chosen = Some(at);
                chosen_benefit = benefit;
            }
        }
        chosen
    }
}

macro_rules! mode_pass {
    ($name:ident, $mode:expr, $doc:literal) => {
        #[doc = $doc]
        pub mod $name {
            pub const SCOPE: crate::manager::Scope = super::SCOPE;
            pub fn run(
                shader: &mut eubatch_ir::Shader,
                cx: &mut crate::PassCx,
            ) -> crate::analysis::changed::Changed {
                super::schedule(shader, cx, $mode)
            }
        }
    };
}

mode_pass!(
    top_down,
    super::Mode::TopDown,
    "The `top-down` mode as a pass."
);
mode_pass!(
    non_lifo,
    super::Mode::NonLifo,
    "The `non-lifo` mode as a pass."
);
mode_pass!(lifo, super::Mode::Lifo, "The `lifo` mode as a pass.");
