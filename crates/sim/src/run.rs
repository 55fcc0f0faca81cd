//! The interpreter: structured control flow with per-channel masks, and every instruction's
//! effect on the thread's registers.
//!
//! Channel masks follow the hardware's structured control flow: `if` narrows the active
//! channels to those whose predicate holds and jumps to `else`/`endif` when none are left;
//! `break`/`cont` park channels until the loop's end or its `while`; `while` loops while any
//! channel is active; `halt` parks channels until the next `halt_target`.

//!
//! The instructions themselves are executed by family, in the submodules: plain ALU
//! instructions ([`plain_alu`]), the virtual opcodes that assemble registers
//! ([`virtual_ops`]), pixel coordinates and interpolation ([`interpolation`]), the opcodes
//! that read other channels ([`cross_channel`]), Mesa 25's subgroup opcodes
//! ([`subgroup`]) and logical messages
//! ([`logical_messages`]); raw sends are [`crate::hw_message`]'s.

mod cross_channel;
mod interpolation;
mod logical_messages;
mod plain_alu;
mod scratch_ops;
mod subgroup;
mod virtual_ops;

use eubatch_ir::opcode::ControlFlow;
use eubatch_ir::shader::{CondMod, Predicate};
use eubatch_ir::{Backend, Control, Inst, Opcode, Operand, RegFile, Shader, Type};

use crate::alu::compare;
use crate::state::{HardwareInputs, Thread};
use crate::value::{decode, Value};
use crate::{Outputs, SimError};

/// Instructions a run may execute before it is stopped as an infinite loop.
pub const STEP_LIMIT: u64 = 10_000_000;

enum Frame {
    /// `next`: where the current part (then or else) ends: its `else` or `endif`.
    If {
        saved: u32,
        else_mask: u32,
        next: usize,
    },
    /// `body`: the loop's first instruction; `end`: its `while`.
    Loop {
        saved: u32,
        brk: u32,
        cont: u32,
        body: usize,
        end: usize,
    },
}

/// The jump targets of the structured control flow, by position in program order.
fn match_control_flow(shader: &Shader, order: &[Inst]) -> Result<Vec<usize>, SimError> {
    let mut target = vec![usize::MAX; order.len()];
    let mut stack: Vec<usize> = Vec::new();
    let mut loops: Vec<(usize, Vec<usize>)> = Vec::new();
    for (p, &inst) in order.iter().enumerate() {
        match shader.insts.opcode[inst].control_flow() {
            ControlFlow::If => stack.push(p),
            ControlFlow::Else => {
                let i = *stack
                    .last()
                    .ok_or_else(|| SimError::at(inst, "`else` without `if`"))?;
                target[i] = p;
                *stack.last_mut().unwrap() = p;
            }
            ControlFlow::Endif => {
                let i = stack
                    .pop()
                    .ok_or_else(|| SimError::at(inst, "`endif` without `if`"))?;
                target[i] = p;
            }
            ControlFlow::Do => loops.push((p, Vec::new())),
            ControlFlow::Break | ControlFlow::Continue => {
                loops
                    .last_mut()
                    .ok_or_else(|| SimError::at(inst, "`break`/`cont` outside a loop"))?
                    .1
                    .push(p);
            }
            ControlFlow::While => {
                let (d, exits) = loops
                    .pop()
                    .ok_or_else(|| SimError::at(inst, "`while` without `do`"))?;
                target[p] = d;
                target[d] = p;
                for e in exits {
                    target[e] = p;
                }
            }
            _ => {}
        }
    }
    if let Some(&p) = stack.last() {
        return Err(SimError::at(order[p], "`if` without `endif`"));
    }
    if let Some((p, _)) = loops.last() {
        return Err(SimError::at(order[*p], "`do` without `while`"));
    }
    // `halt` jumps to the next `halt_target`.
    let mut next_target = usize::MAX;
    for p in (0..order.len()).rev() {
        match shader.insts.opcode[order[p]].control_flow() {
            ControlFlow::HaltTarget => next_target = p,
            ControlFlow::Halt => target[p] = next_target,
            _ => {}
        }
    }
    Ok(target)
}

/// Runs `shader` with the inputs of `seed`; returns what it produced.
pub fn run(
    shader: &Shader,
    seed: u64,
    trace: Option<&mut dyn FnMut(&str)>,
) -> Result<Outputs, SimError> {
    run_limited(shader, seed, STEP_LIMIT, trace)
}

/// [`run`], stopping after `step_limit` instructions.
pub fn run_limited(
    shader: &Shader,
    seed: u64,
    step_limit: u64,
    trace: Option<&mut dyn FnMut(&str)>,
) -> Result<Outputs, SimError> {
    run_with(shader, seed, None, None, step_limit, trace)
}

/// [`run_limited`] with the inputs typed by `profile` instead of by the shader's own
/// uses: what comparing a shader before and after a transformation needs, since the
/// transformation may change how inputs are used (a removed copy, a retyped read) and so
/// the profile a shader would give itself. Both runs take the profile of the original.
pub fn run_profiled(
    shader: &Shader,
    seed: u64,
    profile: &crate::profile::Profile,
    step_limit: u64,
    trace: Option<&mut dyn FnMut(&str)>,
) -> Result<Outputs, SimError> {
    run_with(shader, seed, None, Some(profile), step_limit, trace)
}

/// Runs `shader` with `hw`'s register file at thread start, push constants and attributes
/// read from their registers: how a logical shader and Mesa's final code for it run on the
/// same inputs.
pub fn run_hardware(
    shader: &Shader,
    seed: u64,
    hw: &HardwareInputs,
    step_limit: u64,
    trace: Option<&mut dyn FnMut(&str)>,
) -> Result<Outputs, SimError> {
    run_with(shader, seed, Some(hw), None, step_limit, trace)
}

/// [`run_limited`] of vec4 final code (a program of Mesa's listing compiled by the vec4
/// back end, which the listing's IR does not mark): its Align16 instructions run SIMD4x2
/// ([`crate::vec4`]).
pub fn run_limited_vec4(
    shader: &Shader,
    seed: u64,
    step_limit: u64,
    trace: Option<&mut dyn FnMut(&str)>,
) -> Result<Outputs, SimError> {
    run_with_mode(shader, seed, None, None, step_limit, trace, true)
}

fn run_with(
    shader: &Shader,
    seed: u64,
    hw: Option<&HardwareInputs>,
    profile: Option<&crate::profile::Profile>,
    step_limit: u64,
    trace: Option<&mut dyn FnMut(&str)>,
) -> Result<Outputs, SimError> {
    run_with_mode(shader, seed, hw, profile, step_limit, trace, false)
}

fn run_with_mode(
    shader: &Shader,
    seed: u64,
    hw: Option<&HardwareInputs>,
    profile: Option<&crate::profile::Profile>,
    step_limit: u64,
    mut trace: Option<&mut dyn FnMut(&str)>,
    vec4_code: bool,
) -> Result<Outputs, SimError> {
    // SIMD4x2 code: a vec4 shader, or the final code of one (crate::vec4).
    let vec4 = vec4_code || shader.backend == Backend::Vec4 || hw.is_some_and(|h| h.vec4);
    let order: Vec<Inst> = shader.layout.insts().collect();
    if !vec4 {
        refuse_align16_on_virtual_registers(shader, &order)?;
    }
    let target = match_control_flow(shader, &order)?;
    let mut masks = Masks::new(shader.dispatch_width as u32);
    let mut t = start_thread(shader, seed, hw, profile);
    t.vec4.thread = vec4;
    t.vec4.gen7 = shader.target < eubatch_ir::Gen::Gen8;
    // A TES's patch inputs and a dual-instanced GS's attributes: the same for both halves.
    t.vec4.patch_inputs = vec4
        && (shader.stage == eubatch_ir::Stage::Tes
            || eubatch_ir::thread_inputs::vec4_gs::dual_instanced(shader));
    let mut out = Outputs::default();
    let mut pc = 0usize;
    let mut steps = 0u64;
    while pc < order.len() {
        steps += 1;
        if steps > step_limit {
            return Err(SimError::at(
                order[pc],
                format!("stopped after {step_limit} instructions: an infinite loop?"),
            ));
        }
        let inst = order[pc];
        let ctl = shader.insts.control[inst];
        let range = channel_range(ctl.group as u32, ctl.exec_size as u32);
        let flow = shader.insts.opcode[inst].control_flow();
        if flow != ControlFlow::None {
            // A jump lands on the target instruction itself (`else`, `endif`, `while`),
            // which restores the channel mask.
            let pred = || predicate_mask(&t, ctl, inst);
            pc = masks.step(flow, inst, pc, target[pc], range, pred)?;
            continue;
        }
        let enabled = if ctl.no_mask() {
            range
        } else {
            masks.cur & range
        };
        t.live = masks.cur;
        t.vec4.align16 = vec4 && shader.is_align16(inst);
        t.vec4.exec = ctl.exec_size as u32;
        let pred = predicate_mask(&t, ctl, inst)?;
        let live = masks.cur & range;
        let done = execute(shader, &mut t, inst, enabled, live, pred, &mut out)?;
        if let Some(tr) = trace.as_deref_mut() {
            tr(&trace_line(shader, &mut t, inst, enabled));
        }
        if done {
            break;
        }
        pc += 1;
    }
    out.final_mask = masks.cur | masks.halted;
    out.poison_reads = t.poison_reads;
    out.steps = steps;
    Ok(out)
}

/// Refuses a shader with Align16 swizzles or writemasks on virtual registers, which are not
/// modelled: the regions below read operands element by element. (Final code's Align16
/// three-source operands are fixed registers whose regions the listing reader sets.)
fn refuse_align16_on_virtual_registers(shader: &Shader, order: &[Inst]) -> Result<(), SimError> {
    let virtual_operand =
        |o: &Operand| matches!(o.file, RegFile::Vgrf | RegFile::Uniform | RegFile::Attr);
    match order.iter().find(|&&i| {
        shader.has_swizzle_or_writemask(i)
            && std::iter::once(&shader.insts.dst[i])
                .chain(shader.srcs(i))
                .any(virtual_operand)
    }) {
        Some(&inst) => Err(SimError::at(
            inst,
            "Align16 swizzles and writemasks on virtual registers are not simulated yet",
        )),
        None => Ok(()),
    }
}

/// The thread at its start: the inputs of `seed`, typed by `profile` when one is given, and
/// `hw`'s register file and layouts when the run is of final code against its logical shader.
fn start_thread(
    shader: &Shader,
    seed: u64,
    hw: Option<&HardwareInputs>,
    profile: Option<&crate::profile::Profile>,
) -> Thread {
    let mut t = Thread::new(shader, seed);
    if let Some(p) = profile {
        t.profile = p.clone();
        t.fb = p.fb.clone();
    }
    if let Some(hw) = hw {
        t.grf.copy_from_slice(&hw.grf);
        t.keep_dispatch_mask();
        t.layout = Some(hw.layout.clone());
        t.fb = hw.fb.clone();
    }
    t
}

/// The channels whose predicate holds (all of them without a predicate).
fn predicate_mask(t: &Thread, ctl: Control, inst: Inst) -> Result<u32, SimError> {
    match ctl.predicate {
        Predicate::None => Ok(u32::MAX),
        Predicate::Normal => {
            let mut m = 0u32;
            // Every channel a dispatch can have (SIMD32 at most), whatever this
            // instruction's width: the execution mask narrows it.
            for c in 0..32 {
                if t.flag(ctl.flag_subreg, c) != ctl.pred_invert() {
                    m |= 1 << c;
                }
            }
            Ok(m)
        }
        // ANYnH / ALLnH (PRM Vol. 7 "Predication"): each channel takes the OR / AND of the
        // flag bits of its group of n channels (four: a 2x2 subspan in a fragment shader);
        // the inversion applies to the combined value.
        p if p.horizontal_group().is_some() => {
            let (n, any) = p.horizontal_group().unwrap_or((1, true));
            let group_mask = u32::MAX >> (32 - n);
            let mut m = 0u32;
            for g in 0..32 / n {
                let mut bits = (0..n).map(|k| t.flag(ctl.flag_subreg, g * n + k));
                let v = if any {
                    bits.any(|b| b)
                } else {
                    bits.all(|b| b)
                };
                if v != ctl.pred_invert() {
                    m |= group_mask << (g * n);
                }
            }
            Ok(m)
        }
        // ALLV (gen7+): a channel's bit in both flag registers, f0 and f1
        // (`Predicate::vertical_flags`); the inversion applies to the combined value.
        Predicate::Align1Allv => {
            let [a, b] = ctl
                .predicate
                .vertical_flags(ctl.flag_subreg)
                .unwrap_or_default();
            let mut m = 0u32;
            for c in 0..32 {
                if (t.flag(a, c) && t.flag(b, c)) != ctl.pred_invert() {
                    m |= 1 << c;
                }
            }
            Ok(m)
        }
        _ => crate::vec4::replicate_predicate(t, ctl)
            .ok_or_else(|| SimError::at(inst, "this predicate is not simulated yet")),
    }
}

/// What the trace prints for an executed instruction: its channel mask, the instruction,
/// and the destination's value in the first enabled channel, or in the one
/// `EUBATCH_TRACE_CHANNEL` names.
fn trace_line(shader: &Shader, t: &mut Thread, inst: Inst, enabled: u32) -> String {
    let ctl = shader.insts.control[inst];
    let mut s = String::new();
    eubatch_ir::text::print::write_inst(shader, inst, &mut s);
    let dst = shader.insts.dst[inst];
    let wanted = std::env::var("EUBATCH_TRACE_CHANNEL")
        .ok()
        .and_then(|v| v.parse::<u32>().ok());
    let first = match wanted {
        Some(c) => c
            .checked_sub(ctl.group as u32)
            .filter(|i| *i < ctl.exec_size as u32),
        None => (0..ctl.exec_size as u32).find(|i| enabled & (1 << (ctl.group as u32 + i)) != 0),
    };
    if let (Some(i), false) = (first, dst.is_null()) {
        // Reading for the trace must not count as the shader reading undefined bytes.
        let poison = t.poison_reads;
        if let Ok(v) = t.read(&dst, i) {
            s.push_str(&format!("   => ch{}: {v:#x}", ctl.group as u32 + i));
        }
        t.poison_reads = poison;
    }
    format!("[{:08x}] {s}", enabled)
}

/// The channel masks of structured control flow as a run goes through it.
struct Masks {
    /// Channels active now.
    cur: u32,
    /// Channels parked by `halt` until the next `halt_target`.
    halted: u32,
    /// The `if`s and loops being run, innermost last.
    frames: Vec<Frame>,
}

impl Masks {
    /// Every channel of a `width`-wide dispatch active, outside any `if` or loop.
    fn new(width: u32) -> Masks {
        Masks {
            cur: channel_range(0, width),
            halted: 0,
            frames: Vec::new(),
        }
    }

    /// Runs the control-flow instruction `inst` at `pc`, whose matched instruction is at
    /// `jump` ([`match_control_flow`]); returns where the run goes next (past the end of
    /// the program when a `halt` has no `halt_target` after it). `pred` is the predicate's
    /// channel mask, asked for only by the instructions that read one.
    fn step(
        &mut self,
        flow: ControlFlow,
        inst: Inst,
        pc: usize,
        jump: usize,
        range: u32,
        pred: impl Fn() -> Result<u32, SimError>,
    ) -> Result<usize, SimError> {
        let mut next = pc + 1;
        match flow {
            ControlFlow::If => {
                let taken = self.cur & pred()? & range;
                self.frames.push(Frame::If {
                    saved: self.cur,
                    else_mask: self.cur & !taken,
                    next: jump,
                });
                self.cur = taken;
                if self.cur == 0 {
                    next = jump;
                }
            }
            ControlFlow::Else => {
                let Some(Frame::If {
                    else_mask,
                    next: part_end,
                    ..
                }) = self.frames.last_mut()
                else {
                    return Err(SimError::at(inst, "`else` without `if`"));
                };
                *part_end = jump;
                let else_mask = *else_mask;
                self.cur = else_mask & !self.halted & !parked(&self.frames);
                if self.cur == 0 {
                    next = jump;
                }
            }
            ControlFlow::Endif => {
                let Some(Frame::If { saved, .. }) = self.frames.pop() else {
                    return Err(SimError::at(inst, "`endif` without `if`"));
                };
                // Channels parked by `break`/`cont` stay off until their loop says otherwise.
                self.cur = saved & !self.halted & !parked(&self.frames);
            }
            ControlFlow::Do => self.frames.push(Frame::Loop {
                saved: self.cur,
                brk: 0,
                cont: 0,
                body: pc + 1,
                end: jump,
            }),
            ControlFlow::Break | ControlFlow::Continue => {
                let m = self.cur & pred()?;
                let Some(Frame::Loop { brk, cont, .. }) = self
                    .frames
                    .iter_mut()
                    .rev()
                    .find(|f| matches!(f, Frame::Loop { .. }))
                else {
                    return Err(SimError::at(inst, "`break`/`cont` outside a loop"));
                };
                if flow == ControlFlow::Break {
                    *brk |= m
                } else {
                    *cont |= m
                }
                self.cur &= !m;
                if self.cur == 0 {
                    // Straight to the `while`: the `if`s inside the loop are left unfinished.
                    next = skip_to(&self.frames, jump);
                }
            }
            ControlFlow::While => {
                // Channels are restored at the `while`: run it even if we jumped here.
                let halted = self.halted;
                let Some(Frame::Loop {
                    saved, cont, body, ..
                }) = self.frames.last_mut()
                else {
                    return Err(SimError::at(inst, "`while` without `do`"));
                };
                let again = (self.cur | *cont) & !halted & pred()?;
                *cont = 0;
                if again != 0 {
                    self.cur = again;
                    next = *body;
                } else {
                    self.cur = *saved & !halted;
                    self.frames.pop();
                }
            }
            ControlFlow::Halt => {
                let m = self.cur & pred()? & range;
                self.halted |= m;
                self.cur &= !m;
                if self.cur == 0 {
                    next = skip_to(&self.frames, jump);
                }
            }
            ControlFlow::HaltTarget => {
                self.cur |= self.halted;
                self.halted = 0;
            }
            ControlFlow::None => unreachable!("not a control-flow instruction"),
        }
        Ok(next)
    }
}

/// Where to go when no channel is left active: the end of the current `if` part or loop
/// body (which restore channels), else `fallback`.
fn skip_to(frames: &[Frame], fallback: usize) -> usize {
    match frames.last() {
        Some(Frame::If { next, .. }) => *next,
        Some(Frame::Loop { end, .. }) => *end,
        None => fallback,
    }
}

/// Channels waiting in `break`/`cont` of the loops being run.
fn parked(frames: &[Frame]) -> u32 {
    frames.iter().fold(0, |m, f| match f {
        Frame::Loop { brk, cont, .. } => m | brk | cont,
        Frame::If { .. } => m,
    })
}

fn channel_range(group: u32, exec: u32) -> u32 {
    let m = if exec >= 32 {
        u32::MAX
    } else {
        (1u32 << exec) - 1
    };
    m.checked_shl(group).unwrap_or(0)
}

/// Operand `op` shifted to component `k` of a multi-component value of `exec` channels.
fn component(op: &Operand, k: u32, exec: u32) -> Operand {
    let mut o = *op;
    o.offset += k * exec * op.ty.size() * (op.stride.max(1) as u32);
    o
}

/// The flag a conditional modifier sets from a written value: the value compared with zero.
fn compare_with_zero(cmod: CondMod, ty: Type, bits: u64) -> bool {
    let written = decode(ty, bits);
    let zero = if ty.is_float() {
        Value::Float(0.0)
    } else {
        Value::Int(0)
    };
    compare(cmod, written, zero)
}

/// One non-control-flow instruction being executed: what every family reads of it.
struct Step<'a> {
    shader: &'a Shader,
    inst: Inst,
    op: Opcode,
    ctl: Control,
    dst: Operand,
    srcs: &'a [Operand],
    exec: u32,
    group: u32,
    /// Channels the execution mask enables (all of the instruction's under NoMask).
    enabled: u32,
    /// The instruction's channels active in the control flow, whatever NoMask says.
    live: u32,
    /// Channels whose predicate holds (all of them without a predicate).
    pred: u32,
}

impl Step<'_> {
    fn fail(&self, m: impl Into<String>) -> SimError {
        SimError::at(self.inst, m)
    }

    /// The instruction's channels (0..exec, counted from its group) set in `mask`, in order.
    fn channels(&self, mask: u32) -> impl Iterator<Item = u32> {
        let group = self.group;
        (0..self.exec).filter(move |i| mask & (1 << (group + i)) != 0)
    }

    fn read(&self, t: &mut Thread, op: &Operand, i: u32) -> Result<u64, SimError> {
        t.read(op, i).map_err(|e| e.with_inst(self.inst))
    }

    /// [`Thread::read_defined`] for this instruction.
    fn read_defined(&self, t: &mut Thread, op: &Operand, i: u32) -> Result<(u64, bool), SimError> {
        t.read_defined(op, i).map_err(|e| e.with_inst(self.inst))
    }

    /// Channel `i` of `op` as a number (an integer widened to a float).
    fn read_f64(&self, t: &mut Thread, op: &Operand, i: u32) -> Result<f64, SimError> {
        Ok(decode(op.ty, self.read(t, op, i)?).as_f64())
    }

    fn write(&self, t: &mut Thread, op: &Operand, i: u32, bits: u64) -> Result<(), SimError> {
        t.write(op, i, bits).map_err(|e| e.with_inst(self.inst))
    }

    /// Writes (channel, bits) results to the destination. Results are computed for every
    /// channel before any is written, since a source may overlap the destination.
    fn write_results(&self, t: &mut Thread, results: Vec<(u32, u64)>) -> Result<(), SimError> {
        for (i, bits) in results {
            self.write(t, &self.dst, i, bits)?;
        }
        Ok(())
    }

    /// Writes (channel, bits, defined) results to the destination as copies
    /// ([`Thread::write_copy`]: an undefined source leaves its channel undefined), all
    /// computed before any is written, as [`Step::write_results`].
    fn write_copies(&self, t: &mut Thread, results: Vec<(u32, u64, bool)>) -> Result<(), SimError> {
        for (i, bits, defined) in results {
            t.write_copy(&self.dst, i, bits, defined)
                .map_err(|e| e.with_inst(self.inst))?;
        }
        Ok(())
    }

    /// [`Step::write_results`], setting each channel's flag as the instruction's conditional
    /// modifier says, if it has one.
    fn write_results_and_flags(
        &self,
        t: &mut Thread,
        results: Vec<(u32, u64)>,
    ) -> Result<(), SimError> {
        for (i, bits) in results {
            self.write(t, &self.dst, i, bits)?;
            if self.ctl.cmod != CondMod::None {
                let flag = compare_with_zero(self.ctl.cmod, self.dst.ty, bits);
                t.set_flag(self.ctl.flag_subreg, self.group + i, flag);
            }
        }
        Ok(())
    }
}

/// Executes one non-control-flow instruction for the `enabled` channels, by the family of
/// its opcode. Returns true at the end of the thread.
fn execute(
    shader: &Shader,
    t: &mut Thread,
    inst: Inst,
    enabled: u32,
    live: u32,
    pred: u32,
    out: &mut Outputs,
) -> Result<bool, SimError> {
    let ctl = shader.insts.control[inst];
    let s = Step {
        shader,
        inst,
        op: shader.insts.opcode[inst],
        ctl,
        dst: shader.insts.dst[inst],
        srcs: shader.srcs(inst),
        exec: ctl.exec_size as u32,
        group: ctl.group as u32,
        enabled,
        live,
        pred,
    };
    if t.vec4.thread {
        if let Some(done) = crate::vec4::execute(shader, t, inst, enabled & pred, out)? {
            return Ok(done);
        }
    }
    match s.op {
        Opcode::Undef => virtual_ops::undef(&s, t),
        Opcode::LoadPayload => virtual_ops::load_payload(&s, t),
        Opcode::Pack => virtual_ops::pack(&s, t),
        Opcode::Gfx4ScratchWrite => scratch_ops::write(&s, t),
        Opcode::Gfx4ScratchRead | Opcode::Gfx7ScratchRead => scratch_ops::read(&s, t),
        Opcode::ScratchHeader => scratch_ops::header(&s, t),
        Opcode::PixelX | Opcode::PixelY => interpolation::pixel_xy(&s, t),
        Opcode::Pln => interpolation::pln(&s, t),
        Opcode::Linterp => interpolation::linterp(&s, t),
        // Only a barrier to the scheduler (FS_OPCODE_SCHEDULING_FENCE): nothing happens.
        Opcode::SchedulingFence => Ok(false),
        Opcode::InterpSample | Opcode::InterpSharedOffset | Opcode::InterpPerSlotOffset => {
            interpolation::query(&s, t)
        }
        Opcode::DdxCoarse | Opcode::DdyCoarse | Opcode::DdxFine | Opcode::DdyFine => {
            cross_channel::derivative(&s, t)
        }
        Opcode::FindLiveChannel | Opcode::FindLastLiveChannel => {
            cross_channel::find_live_channel(&s, t)
        }
        Opcode::ClusterBroadcast => cross_channel::cluster_broadcast(&s, t),
        Opcode::Broadcast => cross_channel::broadcast(&s, t),
        Opcode::SelExec => cross_channel::sel_exec(&s, t),
        Opcode::Shuffle => cross_channel::shuffle(&s, t),
        Opcode::Reduce | Opcode::InclusiveScan | Opcode::ExclusiveScan => {
            subgroup::reduce_or_scan(&s, t)
        }
        Opcode::Ballot => subgroup::ballot(&s, t),
        Opcode::VoteAny | Opcode::VoteAll | Opcode::VoteEqual => subgroup::vote(&s, t),
        Opcode::ReadFromLiveChannel | Opcode::ReadFromChannel => subgroup::read_from_channel(&s, t),
        Opcode::QuadSwap => subgroup::quad_swap(&s, t),
        Opcode::LoadSubgroupInvocation => subgroup::load_subgroup_invocation(&s, t),
        Opcode::FbWriteLogical => logical_messages::fb_write(&s, t, out),
        Opcode::UrbWriteLogical => logical_messages::urb_write(&s, t, out),
        Opcode::UrbReadLogical => logical_messages::urb_read(&s, t),
        Opcode::MemoryLoadLogical
            if eubatch_ir::message::memory::constant_block(s.srcs).is_some() =>
        {
            logical_messages::memory_load(&s, t)
        }
        Opcode::MemoryLoadLogical if eubatch_ir::message::memory::block_load(s.srcs).is_some() => {
            crate::memory::memory_block_load(shader, t, inst, enabled & pred, out)?;
            Ok(false)
        }
        Opcode::MemoryLoadLogical | Opcode::MemoryStoreLogical | Opcode::MemoryAtomicLogical => {
            crate::memory::memory_access(shader, t, inst, enabled & pred, out)?;
            Ok(false)
        }
        Opcode::UniformPullConst => logical_messages::uniform_pull_constant(&s, t),
        Opcode::VaryingPullConstLogical => logical_messages::varying_pull_constant(&s, t),
        Opcode::TexLogical
        | Opcode::TxbLogical
        | Opcode::TxlLogical
        | Opcode::TxdLogical
        | Opcode::TxfLogical
        | Opcode::Tg4Logical
        | Opcode::Tg4OffsetLogical
        | Opcode::LodLogical
        | Opcode::TxsLogical => {
            crate::sampler::sample(shader, t, inst, enabled & pred)?;
            Ok(false)
        }
        Opcode::UntypedSurfaceReadLogical
        | Opcode::UntypedSurfaceWriteLogical
        | Opcode::ByteScatteredReadLogical
        | Opcode::ByteScatteredWriteLogical
        | Opcode::DwordScatteredReadLogical
        | Opcode::DwordScatteredWriteLogical
        | Opcode::TypedSurfaceReadLogical
        | Opcode::TypedSurfaceWriteLogical
        | Opcode::UntypedAtomicLogical
        | Opcode::UntypedAtomicFloatLogical
        | Opcode::TypedAtomicLogical => {
            crate::memory::access(shader, t, inst, enabled & pred, out)?;
            Ok(false)
        }
        op if eubatch_ir::width_rules::is_a64_message(op) => {
            crate::memory::a64_access(shader, t, inst, enabled & pred, out)?;
            Ok(false)
        }
        op if eubatch_ir::message::block::is_block_message(op) => {
            crate::memory::block_access(shader, t, inst, enabled & pred, out)?;
            Ok(false)
        }
        Opcode::MemoryFence => logical_messages::memory_fence(&s, t),
        // A barrier waits for the other threads of the work group, which the simulator
        // does not run (what they leave in shared memory is a seeded input): for one
        // thread it is a no-op.
        Opcode::Barrier => Ok(false),
        // A compute thread's end: no data (Mesa's CS_OPCODE_CS_TERMINATE).
        Opcode::CsTerminate => Ok(true),
        // Hardware NOPs (scheduling and workaround padding in final code).
        Opcode::Nop => Ok(false),
        // `wait n0` after a barrier's gateway message (Mesa's `generate_barrier`): the
        // other threads of the work group are not run, so for this one it is a no-op,
        // as the barrier is.
        Opcode::Wait => Ok(false),
        Opcode::Send | Opcode::Sendc | Opcode::Sends | Opcode::Sendsc => {
            crate::hw_message::send(shader, t, inst, enabled & pred, out)
        }
        op if op.is_message() => {
            Err(s.fail(format!("message `{}` is not modelled yet", op.name())))
        }
        _ => plain_alu::execute(&s, t),
    }
}
