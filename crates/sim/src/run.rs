//! The interpreter: structured control flow with per-channel masks, and every instruction's
//! effect on the thread's registers.
//!
//! Channel masks follow the hardware's structured control flow: `if` narrows the active
//! channels to those whose predicate holds and jumps to `else`/`endif` when none are left;
//! `break`/`cont` park channels until the loop's end or its `while`; `while` loops while any
//! channel is active; `halt` parks channels until the next `halt_target`.

use eubatch_ir::opcode::ControlFlow;
use eubatch_ir::shader::{CondMod, Predicate};
use eubatch_ir::{Backend, Inst, Opcode, Operand, RegFile, Shader, Type};

use crate::alu::{compare, eval};
use crate::state::{HardwareInputs, Thread};
use crate::value::{decode, encode, Value};
use crate::{Outputs, Record, SimError};

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

fn run_with(
    shader: &Shader,
    seed: u64,
    hw: Option<&HardwareInputs>,
    profile: Option<&crate::profile::Profile>,
    step_limit: u64,
    mut trace: Option<&mut dyn FnMut(&str)>,
) -> Result<Outputs, SimError> {
    if shader.backend == Backend::Vec4 {
        return Err(SimError::msg(
            "vec4 (Align16) shaders are not simulated yet",
        ));
    }
    let order: Vec<Inst> = shader.layout.insts().collect();
    // Align16 swizzles and writemasks on virtual registers are not modelled: the regions
    // below read operands element by element. (Final code's Align16 three-source operands
    // are fixed registers whose regions the listing reader sets.)
    if let Some(&inst) = order.iter().find(|&&i| {
        shader.has_swizzle_or_writemask(i)
            && std::iter::once(&shader.insts.dst[i])
                .chain(shader.srcs(i))
                .any(|o| matches!(o.file, RegFile::Vgrf | RegFile::Uniform | RegFile::Attr))
    }) {
        return Err(SimError::at(
            inst,
            "Align16 swizzles and writemasks on virtual registers are not simulated yet",
        ));
    }
    let target = match_control_flow(shader, &order)?;
    let width = shader.dispatch_width as u32;
    let all: u32 = if width >= 32 {
        u32::MAX
    } else {
        (1u32 << width) - 1
    };
    let mut t = Thread::new(shader, seed);
    if let Some(p) = profile {
        t.profile = p.clone();
        t.fb = p.fb.clone();
    }
    if let Some(hw) = hw {
        t.grf.copy_from_slice(&hw.grf);
        t.layout = Some(hw.layout.clone());
        t.fb = hw.fb.clone();
    }
    let mut out = Outputs::default();
    let (mut cur, mut halted) = (all, 0u32);
    let mut frames: Vec<Frame> = Vec::new();
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
        let op = shader.insts.opcode[inst];
        let ctl = shader.insts.control[inst];
        let range = channel_range(ctl.group as u32, ctl.exec_size as u32);
        let pred = |t: &Thread| -> Result<u32, SimError> {
            match ctl.predicate {
                Predicate::None => Ok(u32::MAX),
                Predicate::Normal => {
                    let mut m = 0u32;
                    for c in 0..32 {
                        if t.flag(ctl.flag_subreg, c) != ctl.pred_invert() {
                            m |= 1 << c;
                        }
                    }
                    Ok(m)
                }
                // ANY4H / ALL4H (PRM Vol. 7 "Predication"): each channel takes the OR / AND
                // of the flag bits of its group of four channels (a 2x2 subspan in a
                // fragment shader); the inversion applies to the combined value.
                Predicate::Align16Any4h | Predicate::Align16All4h => {
                    let any = ctl.predicate == Predicate::Align16Any4h;
                    let mut m = 0u32;
                    for g in 0..8 {
                        let bits: Vec<bool> =
                            (0..4).map(|k| t.flag(ctl.flag_subreg, g * 4 + k)).collect();
                        let v = if any {
                            bits.iter().any(|b| *b)
                        } else {
                            bits.iter().all(|b| *b)
                        };
                        if v != ctl.pred_invert() {
                            m |= 0xf << (g * 4);
                        }
                    }
                    Ok(m)
                }
                _ => Err(SimError::at(
                    inst,
                    "Align16 predicates are not simulated yet",
                )),
            }
        };
        let mut next = pc + 1;
        match op.control_flow() {
            ControlFlow::If => {
                let taken = cur & pred(&t)? & range;
                frames.push(Frame::If {
                    saved: cur,
                    else_mask: cur & !taken,
                    next: target[pc],
                });
                cur = taken;
                if cur == 0 {
                    next = target[pc];
                }
            }
            ControlFlow::Else => {
                let Some(Frame::If {
                    else_mask,
                    next: part_end,
                    ..
                }) = frames.last_mut()
                else {
                    return Err(SimError::at(inst, "`else` without `if`"));
                };
                *part_end = target[pc];
                cur = *else_mask & !halted & !parked(&frames);
                if cur == 0 {
                    next = target[pc];
                }
            }
            ControlFlow::Endif => {
                let Some(Frame::If { saved, .. }) = frames.pop() else {
                    return Err(SimError::at(inst, "`endif` without `if`"));
                };
                // Channels parked by `break`/`cont` stay off until their loop says otherwise.
                cur = saved & !halted & !parked(&frames);
            }
            ControlFlow::Do => frames.push(Frame::Loop {
                saved: cur,
                brk: 0,
                cont: 0,
                body: pc + 1,
                end: target[pc],
            }),
            ControlFlow::Break | ControlFlow::Continue => {
                let m = cur & pred(&t)?;
                let Some(Frame::Loop { brk, cont, .. }) = frames
                    .iter_mut()
                    .rev()
                    .find(|f| matches!(f, Frame::Loop { .. }))
                else {
                    return Err(SimError::at(inst, "`break`/`cont` outside a loop"));
                };
                if op.control_flow() == ControlFlow::Break {
                    *brk |= m
                } else {
                    *cont |= m
                }
                cur &= !m;
                if cur == 0 {
                    // Straight to the `while`: the `if`s inside the loop are left unfinished.
                    next = skip_to(&frames, target[pc]);
                }
            }
            ControlFlow::While => {
                // Channels are restored at the `while`: run it even if we jumped here.
                let Some(Frame::Loop {
                    saved, cont, body, ..
                }) = frames.last_mut()
                else {
                    return Err(SimError::at(inst, "`while` without `do`"));
                };
                let again = (cur | *cont) & !halted & pred(&t)?;
                *cont = 0;
                if again != 0 {
                    cur = again;
                    next = *body;
                } else {
                    cur = *saved & !halted;
                    frames.pop();
                }
            }
            ControlFlow::Halt => {
                let m = cur & pred(&t)? & range;
                halted |= m;
                cur &= !m;
                if cur == 0 {
                    next = skip_to(&frames, target[pc]).min(order.len());
                }
            }
            ControlFlow::HaltTarget => {
                cur |= halted;
                halted = 0;
            }
            ControlFlow::None => {
                let enabled = if ctl.no_mask() { range } else { cur & range };
                t.live = cur;
                let p = pred(&t)?;
                let done = execute(shader, &mut t, inst, enabled, cur & range, p, &mut out)?;
                if let Some(tr) = trace.as_deref_mut() {
                    let mut s = String::new();
                    eubatch_ir::text::print::write_inst(shader, inst, &mut s);
                    // The destination's value in the first enabled channel.
                    let dst = shader.insts.dst[inst];
                    // The first enabled channel, or the one EUBATCH_TRACE_CHANNEL names.
                    let wanted = std::env::var("EUBATCH_TRACE_CHANNEL")
                        .ok()
                        .and_then(|v| v.parse::<u32>().ok());
                    let first = match wanted {
                        Some(c) => c
                            .checked_sub(ctl.group as u32)
                            .filter(|i| *i < ctl.exec_size as u32),
                        None => (0..ctl.exec_size as u32)
                            .find(|i| enabled & (1 << (ctl.group as u32 + i)) != 0),
                    };
                    if let (Some(i), false) = (first, dst.is_null()) {
                        let poison = t.poison_reads;
                        if let Ok(v) = t.read(&dst, i) {
                            s.push_str(&format!("   => ch{}: {v:#x}", ctl.group as u32 + i));
                        }
                        t.poison_reads = poison;
                    }
                    tr(&format!("[{:08x}] {s}", enabled));
                }
                if done {
                    break;
                }
            }
        }
        // A jump lands on the target instruction itself (`else`, `endif`, `while`), which
        // restores the channel mask.
        pc = next;
    }
    out.final_mask = cur | halted;
    out.poison_reads = t.poison_reads;
    out.steps = steps;
    Ok(out)
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

/// Records, for every channel in `mask`, the components of `parts` (operand, component
/// count) as one output record of `message`.
#[allow(clippy::too_many_arguments)]
fn record_writes(
    t: &mut Thread,
    inst: Inst,
    message: &str,
    parts: &[(Operand, u32)],
    exec: u32,
    group: u32,
    mask: u32,
    out: &mut Outputs,
) -> Result<(), SimError> {
    for i in 0..exec {
        let ch = group + i;
        if mask & (1 << ch) == 0 {
            continue;
        }
        let mut values = Vec::new();
        let mut undefined = 0u64;
        for (op, n) in parts {
            for k in 0..*n {
                let poison = t.poison_reads;
                values.push(
                    t.read_message_part(&component(op, k, exec), i)
                        .map_err(|e| e.with_inst(inst))?,
                );
                if t.poison_reads != poison {
                    undefined |= 1 << (values.len() - 1).min(63);
                }
            }
        }
        out.records.push(Record {
            message: message.into(),
            channel: ch,
            values,
            undefined,
        });
    }
    Ok(())
}

/// Operand `op` shifted to component `k` of a multi-component value of `exec` channels.
fn component(op: &Operand, k: u32, exec: u32) -> Operand {
    let mut o = *op;
    o.offset += k * exec * op.ty.size() * (op.stride.max(1) as u32);
    o
}

/// Sets the flag of channel `ch` from a written value as a conditional modifier does (the
/// value compared with zero), when the instruction has one.
fn cmod_flag(t: &mut Thread, ctl: eubatch_ir::Control, ty: Type, ch: u32, bits: u64) {
    if ctl.cmod == CondMod::None {
        return;
    }
    let written = decode(ty, bits);
    let zero = if ty.is_float() {
        Value::Float(0.0)
    } else {
        Value::Int(0)
    };
    t.set_flag(ctl.flag_subreg, ch, compare(ctl.cmod, written, zero));
}

/// Executes one non-control-flow instruction for the `enabled` channels. Returns true at
/// the end of the thread.
fn execute(
    shader: &Shader,
    t: &mut Thread,
    inst: Inst,
    enabled: u32,
    live: u32,
    pred: u32,
    out: &mut Outputs,
) -> Result<bool, SimError> {
    let op = shader.insts.opcode[inst];
    let ctl = shader.insts.control[inst];
    let dst = shader.insts.dst[inst];
    let srcs = shader.srcs(inst);
    let exec = ctl.exec_size as u32;
    let group = ctl.group as u32;
    let fail = |m: String| SimError::at(inst, m);
    match op {
        Opcode::Undef => {
            if dst.file == RegFile::Vgrf {
                t.define_all(dst.nr);
            }
            return Ok(false);
        }
        Opcode::LoadPayload => {
            let header = shader.send_info(inst).map_or(0, |s| s.header_size as usize);
            let mut off = 0u32;
            for (k, s) in srcs.iter().enumerate() {
                let comp_bytes = if k < header { 32 } else { exec * s.ty.size() };
                if !s.is_bad() {
                    let n = if k < header { 8 } else { exec };
                    let mut d = dst;
                    d.ty = if k < header { Type::UD } else { s.ty };
                    d.offset += off;
                    let mut src = *s;
                    if k < header {
                        src.ty = Type::UD;
                    }
                    for i in 0..n {
                        let on = k < header || ctl.no_mask() || enabled & (1 << (group + i)) != 0;
                        if on {
                            let poison = t.poison_reads;
                            let v = t.read(&src, i).map_err(|e| e.with_inst(inst))?;
                            let defined = t.poison_reads == poison;
                            t.write_copy(&d, i, v, defined)
                                .map_err(|e| e.with_inst(inst))?;
                        }
                    }
                }
                off += comp_bytes;
            }
            return Ok(false);
        }
        Opcode::FbWriteLogical => {
            let comps = srcs
                .get(7)
                .filter(|s| s.file == RegFile::Imm)
                .map_or(4, |s| s.imm_bits() as u32);
            // Colour 0, colour 1 (dual source), source-0 alpha, source depth, stencil and
            // the output mask, where present (FB_WRITE_LOGICAL_SRC_*): the order raw
            // render-target writes are recorded in too (hw_message.rs).
            use crate::layout::fb_src;
            let slots = [
                (fb_src::COLOR0, comps),
                (fb_src::COLOR1, comps),
                (fb_src::SRC0_ALPHA, 1),
                (fb_src::SRC_DEPTH, 1),
                (fb_src::SRC_STENCIL, 1),
                (fb_src::OMASK, 1),
            ];
            let parts: Vec<(Operand, u32)> = slots
                .into_iter()
                .filter_map(|(slot, n)| srcs.get(slot).filter(|s| !s.is_bad()).map(|s| (*s, n)))
                .collect();
            let first = out.records.len();
            record_writes(
                t,
                inst,
                "fb_write",
                &parts,
                exec,
                group,
                enabled & pred,
                out,
            )?;
            // The hardware takes the low 16 bits of oMask and the low 8 of stencil.
            let omask = srcs.get(fb_src::OMASK).is_some_and(|s| !s.is_bad());
            let stencil = srcs.get(fb_src::SRC_STENCIL).is_some_and(|s| !s.is_bad());
            for r in &mut out.records[first..] {
                let n = r.values.len();
                if omask {
                    r.values[n - 1] &= 0xffff;
                }
                if stencil {
                    let k = n - 1 - omask as usize;
                    r.values[k] &= 0xff;
                }
            }
            return Ok(ctl.eot());
        }
        Opcode::UrbWriteLogical => {
            use eubatch_ir::message::urb::{self as urb_msg, src as urb_src};
            let s = shader.send_info(inst).copied().unwrap_or_default();
            let data = srcs
                .get(urb_src::DATA)
                .filter(|s| !s.is_bad())
                .copied()
                .ok_or_else(|| fail("urb_write_logical without data".into()))?;
            let urb = crate::urb::Logical::of(shader, inst)?;
            let comps = urb_msg::write_components(srcs, s.mlen as u32) * 8 / exec.max(1);
            let first = out.records.len();
            record_writes(
                t,
                inst,
                "urb_write",
                &[(data, comps)],
                exec,
                group,
                enabled & pred,
                out,
            )?;
            // Put the slot offset and the channel mask in front of each channel's data.
            let written: Vec<Record> = out.records.drain(first..).collect();
            for r in written {
                let i = r.channel - group;
                let (_, slot) = urb.slot(t, inst, i)?;
                let mask = match &urb.mask {
                    Some(m) => {
                        let mut m = *m;
                        m.ty = Type::UD;
                        Some(t.read(&m, i).map_err(|e| e.with_inst(inst))? as u32)
                    }
                    None => None,
                };
                crate::urb::record(out, r.channel, slot, mask, r.values, r.undefined);
            }
            return Ok(ctl.eot());
        }
        Opcode::UrbReadLogical => {
            let urb = crate::urb::Logical::of(shader, inst)?;
            // One register per dword of the entry (SIMD8).
            let dwords = shader.insts.size_written[inst] / (exec.max(1) * 4);
            let mut d = dst;
            d.ty = Type::UD;
            let mut results = Vec::new();
            for i in 0..exec {
                if enabled & pred & (1 << (group + i)) == 0 {
                    continue;
                }
                let (h, slot) = urb.slot(t, inst, i)?;
                for k in 0..dwords {
                    results.push((k, i, crate::urb::input(t.seed, h, slot, k)));
                }
            }
            for (k, i, w) in results {
                t.write(&component(&d, k, exec), i, w as u64)
                    .map_err(|e| e.with_inst(inst))?;
            }
            return Ok(false);
        }
        Opcode::PixelX | Opcode::PixelY => {
            // FS_OPCODE_PIXEL_X/Y (gen8+, brw_fs_generator.cpp): the X/Y words built by the
            // pixel-centre setup hold, per subspan, four X then four Y values; pixel i reads
            // element <8;4,1>(i) (+4 for Y), plus the half-pixel offset source.
            let src = srcs
                .first()
                .ok_or_else(|| fail("pixel_x/y without a source".into()))?;
            let mut results = Vec::new();
            for i in 0..exec {
                if enabled & (1 << (group + i)) == 0 {
                    continue;
                }
                let k = (i / 4) * 8 + i % 4 + if op == Opcode::PixelY { 4 } else { 0 };
                let xy = decode(src.ty, t.read(src, k).map_err(|e| e.with_inst(inst))?).as_f64();
                let half = match srcs.get(1) {
                    Some(h) if !h.is_bad() => {
                        decode(h.ty, t.read(h, i).map_err(|e| e.with_inst(inst))?).as_f64()
                    }
                    _ => 0.0,
                };
                results.push((i, encode(dst.ty, Value::Float(xy + half), ctl.saturate())));
            }
            for (i, bits) in results {
                t.write(&dst, i, bits).map_err(|e| e.with_inst(inst))?;
            }
            return Ok(false);
        }
        Opcode::Pln => {
            // PLN (gen < 11; PRM Vol. 2a "pln"): dst = a*u + b*v + c, the plane a, b, c at
            // elements 0, 1 and 3 of src0, the barycentrics in src1 register pairs: for
            // channels 8k..8k+7, u in register 2k and v in register 2k+1. The same
            // arithmetic as `linterp`, which Mesa lowers to it.
            let (setup, delta) = match srcs {
                [s, d, ..] => (*s, *d),
                _ => return Err(fail("pln needs a plane and a barycentric source".into())),
            };
            if !matches!(delta.file, RegFile::FixedGrf | RegFile::Vgrf) {
                return Err(fail(
                    "pln's barycentrics must be fixed registers or a VGRF".into(),
                ));
            }
            let coef = |t: &mut Thread, e: u32| -> Result<f64, SimError> {
                let mut o = setup;
                o.offset += e * 4;
                o.region = eubatch_ir::Region::new(0, 1, 0);
                Ok(decode(Type::F, t.read(&o, 0).map_err(|e| e.with_inst(inst))?).as_f64())
            };
            let (a, b, c) = (coef(t, 0)?, coef(t, 1)?, coef(t, 3)?);
            let mut results = Vec::new();
            for i in 0..exec {
                if enabled & pred & (1 << (group + i)) == 0 {
                    continue;
                }
                // Register `r` of the barycentrics (u and v of 8 channels alternate), lane
                // i % 8: a fixed register or 32 bytes into a VGRF (Mesa 25 interpolates from
                // VGRFs in this layout).
                let lane = |t: &mut Thread, r: u32| -> Result<f64, SimError> {
                    let o = if delta.file == RegFile::Vgrf {
                        Operand::vgrf(delta.nr, delta.offset + r * 32 + (i % 8) * 4, Type::F, 0)
                    } else {
                        Operand::fixed(
                            delta.nr + r,
                            (i % 8) * 4,
                            Type::F,
                            eubatch_ir::Region::new(0, 1, 0),
                        )
                    };
                    Ok(decode(Type::F, t.read(&o, 0).map_err(|e| e.with_inst(inst))?).as_f64())
                };
                let pair = 2 * (i / 8);
                let (u, v) = (lane(t, pair)?, lane(t, pair + 1)?);
                results.push((
                    i,
                    encode(dst.ty, Value::Float(a * u + b * v + c), ctl.saturate()),
                ));
            }
            for (i, bits) in results {
                t.write(&dst, i, bits).map_err(|e| e.with_inst(inst))?;
                cmod_flag(t, ctl, dst.ty, group + i, bits);
            }
            return Ok(false);
        }
        Opcode::Linterp => {
            // FS_OPCODE_LINTERP = PLN (gen < 11): dst = a*u + b*v + c with the plane
            // coefficients a, b, c at elements 0, 1 and 3 of the setup operand and the
            // barycentrics u, v as two components of the delta operand. Computed in f64,
            // rounded once.
            let (delta, setup) = match srcs {
                [d, s, ..] => (d, s),
                _ => return Err(fail("linterp needs a delta and a setup source".into())),
            };
            let coef = |t: &mut Thread, e: u32| -> Result<f64, SimError> {
                let mut o = *setup;
                o.offset += e * 4;
                Ok(decode(Type::F, t.read(&o, 0).map_err(|e| e.with_inst(inst))?).as_f64())
            };
            let (a, b, c) = (coef(t, 0)?, coef(t, 1)?, coef(t, 3)?);
            let mut results = Vec::new();
            for i in 0..exec {
                if enabled & pred & (1 << (group + i)) == 0 {
                    continue;
                }
                let u = decode(Type::F, t.read(delta, i).map_err(|e| e.with_inst(inst))?).as_f64();
                let v = decode(
                    Type::F,
                    t.read(&component(delta, 1, exec), i)
                        .map_err(|e| e.with_inst(inst))?,
                )
                .as_f64();
                results.push((
                    i,
                    encode(dst.ty, Value::Float(a * u + b * v + c), ctl.saturate()),
                ));
            }
            for (i, bits) in results {
                t.write(&dst, i, bits).map_err(|e| e.with_inst(inst))?;
                cmod_flag(t, ctl, dst.ty, group + i, bits);
            }
            return Ok(false);
        }
        Opcode::MemoryLoadLogical => {
            // Mesa 25's memory_load: only constant-buffer block loads are modelled, the
            // same seeded function of (surface, dword) as the pull-constant loads, `dwords`
            // of them from the byte address (channel 0's, a scalar) for all channels.
            let block = eubatch_ir::message::memory::constant_block(srcs).ok_or_else(|| {
                fail("a memory_load other than a constant block load is not modelled yet".into())
            })?;
            let addr = decode(
                block.address.ty,
                t.read(&block.address, 0).map_err(|e| e.with_inst(inst))?,
            )
            .as_i128() as u64
                & 0xffff_ffff;
            if addr % 4 != 0 {
                return Err(fail(format!(
                    "a constant block load at byte {addr} (not dword-aligned) is not modelled"
                )));
            }
            let mut d = dst;
            d.ty = Type::UD;
            d.stride = 1;
            for k in 0..block.dwords {
                let w = crate::inputs::word(
                    t.seed,
                    crate::inputs::Space::Constant,
                    ((block.surface as u64) << 32) | (addr / 4 + k as u64),
                );
                t.write(&d, k, w as u64).map_err(|e| e.with_inst(inst))?;
            }
            return Ok(false);
        }
        Opcode::UniformPullConst | Opcode::VaryingPullConstLogical => {
            // Constant buffers are a seeded function of (surface, byte offset).
            let (surface, offset) = eubatch_ir::message::pull_constant_srcs(srcs)
                .ok_or_else(|| fail(format!("`{}` with {} sources", op.name(), srcs.len())))?;
            let surface = Some(surface)
                .filter(|s| s.file == RegFile::Imm)
                .map(|s| s.imm_bits() as u32)
                .ok_or_else(|| {
                    fail(format!(
                        "`{}` with a non-immediate surface is not modelled yet",
                        op.name()
                    ))
                })?;
            let seed = t.seed;
            let word_at = |byte: u64| {
                crate::inputs::word(
                    seed,
                    crate::inputs::Space::Constant,
                    ((surface as u64) << 32) | (byte / 4),
                )
            };
            let mut d = dst;
            d.ty = Type::UD;
            if op == Opcode::UniformPullConst {
                // FS_OPCODE_UNIFORM_PULL_CONSTANT_LOAD: a block of consecutive dwords at an
                // immediate offset, as long as the destination (one register a SIMD8
                // half), for all channels.
                let off = Some(offset)
                    .filter(|s| s.file == RegFile::Imm)
                    .map(|s| s.imm_bits())
                    .ok_or_else(|| {
                        fail(
                            "uniform_pull_const with a non-immediate offset is not modelled yet"
                                .into(),
                        )
                    })?;
                d.stride = 1;
                let dwords = (shader.insts.size_written[inst] / 4).max(8);
                for k in 0..dwords {
                    t.write(&d, k, word_at(off + 4 * k as u64) as u64)
                        .map_err(|e| e.with_inst(inst))?;
                }
            } else {
                // FS_OPCODE_VARYING_PULL_CONSTANT_LOAD_LOGICAL: four dwords per channel at the
                // channel's byte offset, into four components.
                let offs = &offset;
                let mut results = Vec::new();
                for i in 0..exec {
                    if enabled & pred & (1 << (group + i)) == 0 {
                        continue;
                    }
                    let base = decode(offs.ty, t.read(offs, i).map_err(|e| e.with_inst(inst))?)
                        .as_i128() as u64;
                    for k in 0..4u32 {
                        results.push((k, i, word_at(base.wrapping_add(4 * k as u64)) as u64));
                    }
                }
                for (k, i, w) in results {
                    t.write(&component(&d, k, exec), i, w)
                        .map_err(|e| e.with_inst(inst))?;
                }
            }
            return Ok(false);
        }
        Opcode::TexLogical
        | Opcode::TxbLogical
        | Opcode::TxlLogical
        | Opcode::TxdLogical
        | Opcode::TxfLogical
        | Opcode::Tg4Logical
        | Opcode::LodLogical
        | Opcode::TxsLogical => {
            crate::sampler::sample(shader, t, inst, enabled & pred)?;
            return Ok(false);
        }
        Opcode::DdxCoarse | Opcode::DdyCoarse | Opcode::DdxFine | Opcode::DdyFine => {
            // Differences inside each 2x2 subspan (channels tl, tr, bl, br): coarse takes one
            // difference per subspan (tr - tl, bl - tl), fine one per row or column
            // (brw_fs_generator.cpp generate_ddx/generate_ddy).
            let src = srcs
                .first()
                .ok_or_else(|| fail("derivative without a source".into()))?;
            let mut vals = Vec::with_capacity(exec as usize);
            for i in 0..exec {
                vals.push(decode(src.ty, t.read(src, i).map_err(|e| e.with_inst(inst))?).as_f64());
            }
            let mut results = Vec::new();
            for i in 0..exec {
                if enabled & (1 << (group + i)) == 0 {
                    continue;
                }
                let q = i & !3;
                let d = match op {
                    Opcode::DdxCoarse => vals[q as usize + 1] - vals[q as usize],
                    Opcode::DdyCoarse => vals[q as usize + 2] - vals[q as usize],
                    Opcode::DdxFine => {
                        let row = q + (i & 2);
                        vals[row as usize + 1] - vals[row as usize]
                    }
                    _ => {
                        let col = q + (i & 1);
                        vals[col as usize + 2] - vals[col as usize]
                    }
                };
                results.push((i, encode(dst.ty, Value::Float(d), ctl.saturate())));
            }
            for (i, bits) in results {
                t.write(&dst, i, bits).map_err(|e| e.with_inst(inst))?;
            }
            return Ok(false);
        }
        Opcode::UntypedSurfaceReadLogical
        | Opcode::UntypedSurfaceWriteLogical
        | Opcode::ByteScatteredReadLogical
        | Opcode::ByteScatteredWriteLogical => {
            crate::memory::access(shader, t, inst, enabled & pred, out)?;
            return Ok(false);
        }
        Opcode::Pack => {
            // FS_OPCODE_PACK: the sources side by side in each channel's destination
            // element, the first in the low bits.
            let mut results = Vec::new();
            for i in 0..exec {
                if enabled & pred & (1 << (group + i)) == 0 {
                    continue;
                }
                let (mut bits, mut shift) = (0u64, 0u32);
                for s in srcs.iter().filter(|s| !s.is_bad()) {
                    let v = encode(
                        s.ty,
                        decode(s.ty, t.read(s, i).map_err(|e| e.with_inst(inst))?),
                        false,
                    );
                    bits |= v.checked_shl(shift).unwrap_or(0);
                    shift += 8 * s.ty.size();
                }
                results.push((i, bits));
            }
            for (i, bits) in results {
                t.write(&dst, i, bits).map_err(|e| e.with_inst(inst))?;
            }
            return Ok(false);
        }
        Opcode::FindLiveChannel => {
            // SHADER_OPCODE_FIND_LIVE_CHANNEL: the index of the first live channel (0 when
            // none is), written to every enabled channel.
            let first = if live == 0 {
                0
            } else {
                live.trailing_zeros() as u64
            };
            for i in 0..exec {
                if enabled & (1 << (group + i)) != 0 {
                    t.write(&dst, i, encode(dst.ty, Value::Int(first as i128), false))
                        .map_err(|e| e.with_inst(inst))?;
                }
            }
            return Ok(false);
        }
        Opcode::Broadcast => {
            // SHADER_OPCODE_BROADCAST: channel `index` of the value, to every enabled channel.
            let (value, index) = match srcs {
                [v, i, ..] => (v, i),
                _ => return Err(fail("broadcast needs a value and an index".into())),
            };
            let idx = decode(index.ty, t.read(index, 0).map_err(|e| e.with_inst(inst))?).as_i128();
            let idx = u32::try_from(idx)
                .ok()
                .filter(|&k| k < 32)
                .ok_or_else(|| fail(format!("broadcast index {idx} out of range")))?;
            let v = t.read(value, idx).map_err(|e| e.with_inst(inst))?;
            let v = encode(dst.ty, decode(value.ty, v), false);
            for i in 0..exec {
                if enabled & (1 << (group + i)) != 0 {
                    t.write(&dst, i, v).map_err(|e| e.with_inst(inst))?;
                }
            }
            return Ok(false);
        }
        Opcode::Shuffle => {
            // SHADER_OPCODE_SHUFFLE (brw_fs_generator.cpp `generate_shuffle`): each channel
            // reads the value's channel its index names, counted from the value's start
            // whatever the instruction's channel group (the hardware reads it indirectly).
            let (value, index) = match srcs {
                [v, i, ..] => (v, i),
                _ => return Err(fail("shuffle needs a value and an index".into())),
            };
            let mut results = Vec::new();
            for i in 0..exec {
                if enabled & pred & (1 << (group + i)) == 0 {
                    continue;
                }
                let idx =
                    decode(index.ty, t.read(index, i).map_err(|e| e.with_inst(inst))?).as_i128();
                let idx = u32::try_from(idx)
                    .ok()
                    .filter(|&k| k < 32)
                    .ok_or_else(|| fail(format!("shuffle index {idx} out of range")))?;
                let v = t.read(value, idx).map_err(|e| e.with_inst(inst))?;
                results.push((i, encode(dst.ty, decode(value.ty, v), false)));
            }
            for (i, v) in results {
                t.write(&dst, i, v).map_err(|e| e.with_inst(inst))?;
            }
            return Ok(false);
        }
        // A barrier waits for the other threads of the work group, which the simulator
        // does not run (what they leave in shared memory is a seeded input): for one
        // thread it is a no-op.
        Opcode::Barrier => return Ok(false),
        // A memory fence orders memory accesses between threads; one thread's results do
        // not depend on it. Its destination (what the fence's completion returns, which
        // only scheduling reads) is written as zeros.
        Opcode::MemoryFence => {
            if !dst.is_null() && !dst.is_bad() {
                let mut d = dst;
                d.ty = Type::UD;
                d.stride = 1;
                for i in 0..exec {
                    t.write(&d, i, 0).map_err(|e| e.with_inst(inst))?;
                }
            }
            return Ok(false);
        }
        // A compute thread's end: no data (Mesa's CS_OPCODE_CS_TERMINATE).
        Opcode::CsTerminate => return Ok(true),
        // Hardware NOPs (scheduling and workaround padding in final code).
        Opcode::Nop => return Ok(false),
        Opcode::Send | Opcode::Sendc | Opcode::Sends | Opcode::Sendsc => {
            return crate::hw_message::send(shader, t, inst, enabled & pred, out);
        }
        _ if op.is_message() => {
            return Err(fail(format!("message `{}` is not modelled yet", op.name())))
        }
        _ => {}
    }
    // Plain ALU instruction: read every channel first, then write (sources may overlap the
    // destination). One with too few sources is malformed (the verifier refuses it too).
    if let Some(n) = op.alu_arity() {
        if srcs.len() < n {
            return Err(SimError::at(
                inst,
                format!("`{}` with {} sources ({n} expected)", op.name(), srcs.len()),
            ));
        }
    }
    let tys: Vec<Type> = srcs.iter().map(|s| s.ty).collect();
    let is_sel_pred = op == Opcode::Sel && ctl.predicate != Predicate::None;
    // An integer written to the accumulator keeps its exact value for `mach`.
    let to_acc = dst.file == RegFile::Arf && dst.nr == eubatch_ir::operand::arf::ACCUMULATOR;
    // (channel, bits, flag, computed from defined sources only)
    let mut results: Vec<(u32, u64, Option<bool>, bool)> = Vec::with_capacity(exec as usize);
    let mut vals: Vec<Value> = Vec::with_capacity(srcs.len());
    for i in 0..exec {
        let ch = group + i;
        if enabled & (1 << ch) == 0 {
            continue;
        }
        let p = pred & (1 << ch) != 0;
        if !is_sel_pred && !p {
            continue;
        }
        vals.clear();
        let poison = t.poison_reads;
        for s in srcs.iter().filter(|s| !s.is_bad()) {
            let bits = t.read(s, i).map_err(|e| e.with_inst(inst))?;
            let mut v = decode(s.ty, bits);
            if s.mods.abs() {
                v = match v {
                    Value::Int(x) => Value::Int(x.abs()),
                    Value::Float(f) => Value::Float(f.abs()),
                };
            }
            if s.mods.negate() {
                v = match v {
                    Value::Int(x) => Value::Int(-x),
                    Value::Float(f) => Value::Float(-f),
                };
            }
            if s.mods != eubatch_ir::Mods::NONE && !s.ty.is_float() {
                // An integer modifier works in the source's own width (two's complement):
                // `-x:UD` is 2^32 - x, as a `mov` of it would write.
                v = decode(s.ty, encode(s.ty, v, false));
            }
            vals.push(v);
        }
        let (bits, flag) = if op == Opcode::Cmp {
            let r = compare(ctl.cmod, vals[0], vals[1]);
            let ones = match dst.ty.size() {
                1 => 0xff,
                2 => 0xffff,
                4 => 0xffff_ffff,
                _ => u64::MAX,
            };
            (if r { ones } else { 0 }, Some(r))
        } else if is_sel_pred {
            let v = if p { vals[0] } else { vals[1] };
            (encode(dst.ty, v, ctl.saturate()), None)
        } else {
            let v = if op == Opcode::Mach {
                // dst = (acc + src0 * (src1's high word) << 16) >> 32: with the low word's
                // product in acc (`mul acc0, a, b<2>:UW`), the high dword of a * b.
                let acc =
                    t.acc_exact.get(i as usize).copied().ok_or_else(|| {
                        fail("mach wider than the accumulator (16 elements)".into())
                    })?;
                let (a, b) = (vals[0].as_i128(), vals[1].as_i128());
                Value::Int((acc + ((a * (b >> 16)) << 16)) >> 32)
            } else if op == Opcode::Mul
                && to_acc
                && !shader.target.target().has_integer_dword_mul
                && tys.iter().all(|t| matches!(t, Type::D | Type::UD))
            {
                // Before gen8 a dword multiply reads only the low word of its second
                // source (`Target::has_integer_dword_mul`): Mesa's MULH on gen7 is
                // `mul acc0:D, a:D, b:D` and relies on it.
                Value::Int(vals[0].as_i128() * (vals[1].as_i128() & 0xffff))
            } else {
                eval(op, ctl.cmod, &vals, &tys).map_err(fail)?
            };
            if to_acc && !dst.ty.is_float() {
                let e = (dst.offset / dst.ty.size()) as usize + i as usize;
                if let (Some(slot), Value::Int(x)) = (t.acc_exact.get_mut(e), v) {
                    *slot = x;
                }
            }
            let bits = encode(dst.ty, v, ctl.saturate());
            let flag = (ctl.cmod != CondMod::None && !matches!(op, Opcode::Sel | Opcode::Csel))
                .then(|| {
                    let written = decode(dst.ty, bits);
                    let zero = if dst.ty.is_float() {
                        Value::Float(0.0)
                    } else {
                        Value::Int(0)
                    };
                    compare(ctl.cmod, written, zero)
                });
            (bits, flag)
        };
        // A value computed from undefined bytes is undefined itself: any value may stand
        // for it (Mesa may compute something else there, and that is no miscompile).
        results.push((i, bits, flag, t.poison_reads == poison));
    }
    for (i, bits, flag, defined) in results {
        t.write_copy(&dst, i, bits, defined)
            .map_err(|e| e.with_inst(inst))?;
        if let Some(f) = flag {
            t.set_flag(ctl.flag_subreg, group + i, f);
        }
    }
    Ok(false)
}
