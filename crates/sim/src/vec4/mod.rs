//! The vec4 back end's execution model: SIMD4x2 Align16 code, as Mesa's vec4 back end
//! emits it for gen7 vertex shaders (Haswell, Ivybridge), start IR and final code alike.
//!
//! The interpreter ([`crate::run`]) runs vec4 shaders as it runs scalar ones, eight
//! channels an instruction; what differs is kept here: where each channel of an operand
//! lives ([`regs`]: halves, swizzles, writemasks, message registers, the vec4 input
//! layouts), the instructions that read across a half (`dp2`..`dph`, [`ops`]), and the
//! messages of vec4 vertex and geometry shaders ([`urb`]: URB writes; [`gs`]: the
//! geometry thread's header opcodes; [`ops`]: pull constants, the sampler's SIMD4x2
//! messages and the data port's (untyped atomics and surface reads, start IR and final
//! code); [`scratch`]: spills, the start IR's virtual scratch opcodes and the final
//! code's sends).
//! A thread is vec4 when its shader is ([`eubatch_ir::Backend::Vec4`]) or when it is the
//! final code of one ([`crate::HardwareInputs::vec4`]); in such a thread only Align16
//! instructions use these rules (Mesa's generator emits a few Align1 ones, such as the URB
//! header's `or(1)`).

pub mod df;
pub mod gs;
pub mod layout;
pub mod ops;
pub mod profile;
pub mod regs;
pub mod scratch;
pub mod tess;
pub mod urb;

use eubatch_ir::{Operand, RegFile};

use eubatch_ir::shader::Predicate;
use eubatch_ir::{Control, Inst, Opcode, Shader};

use crate::state::Thread;
use crate::{Outputs, SimError};

/// A thread's vec4 state.
#[derive(Clone, Debug, Default)]
pub struct State {
    /// The thread runs SIMD4x2 code (a vec4 shader or its final code).
    pub thread: bool,
    /// The instruction being run is Align16 (its operands follow [`regs`]).
    pub align16: bool,
    /// The current instruction's execution size (DF regions depend on it).
    pub exec: u32,
    /// The target is gen7 (Ivybridge, Haswell): the second half of a compressed DF
    /// instruction is one GRF on ([`regs::fixed_df_src_dwords`]).
    pub gen7: bool,
    /// Message registers and URB slots ([`urb`]).
    pub urb: urb::UrbState,
    /// The thread's attributes are a TES's patch inputs, the same for both halves
    /// ([`regs::input_addr_of`]).
    pub patch_inputs: bool,
}

impl State {
    /// Whether the operands of the current instruction follow the vec4 rules.
    pub fn active(&self) -> bool {
        self.thread && self.align16
    }
}

/// Runs the instructions of vec4 code that have rules of their own; `None` for the others
/// (plain ALU instructions, control flow, ...), which the interpreter runs as it runs
/// scalar code with [`read`] and [`write`] placing the channels. `mask`: the channels
/// the execution mask and the predicate enable.
pub fn execute(
    shader: &Shader,
    t: &mut Thread,
    inst: Inst,
    mask: u32,
    out: &mut Outputs,
) -> Result<Option<bool>, SimError> {
    use eubatch_ir::message::sfid;
    Ok(Some(match shader.insts.opcode[inst] {
        Opcode::Dp2 | Opcode::Dp3 | Opcode::Dp4 | Opcode::Dph => {
            ops::dot(shader, t, inst, mask)?;
            false
        }
        op if df::handles(op) => {
            df::execute(shader, t, inst, mask)?;
            false
        }
        Opcode::PullConstantLoadGfx7 => {
            ops::pull_constant_load(shader, t, inst, mask)?;
            false
        }
        Opcode::UntypedAtomic => {
            ops::untyped_atomic(shader, t, inst, mask, out)?;
            false
        }
        Opcode::UntypedSurfaceRead => {
            ops::untyped_surface_read(shader, t, inst, mask, out)?;
            false
        }
        Opcode::Txl | Opcode::Txs => {
            ops::sampler_ir(shader, t, inst, mask)?;
            false
        }
        Opcode::Gfx4ScratchWrite => {
            scratch::ir_write(shader, t, inst, mask)?;
            false
        }
        Opcode::Gfx4ScratchRead => {
            scratch::ir_read(shader, t, inst, mask)?;
            false
        }
        Opcode::VsUrbWrite => {
            urb::start_urb_write(shader, t, inst, mask, out, false)?;
            false
        }
        op if gs::handles(op) => gs::execute(shader, t, inst, mask, out)?,
        op if tess::handles(op) => tess::execute(shader, t, inst, mask, out)?,
        Opcode::Send => match shader.send_info(inst).map(|i| i.sfid) {
            Some(sfid::URB) => urb::urb_write_send(shader, t, inst, mask, out)?,
            Some(sfid::DATA_CACHE)
                if shader
                    .send_info(inst)
                    .is_some_and(|i| scratch::is_scratch(i.desc)) =>
            {
                scratch::access(shader, t, inst, mask)?;
                false
            }
            Some(sfid::SAMPLER) => {
                ops::sampler_send(shader, t, inst, mask)?;
                false
            }
            // Data-port messages of vec4 code are SIMD4x2 (untyped atomics and surface
            // reads): not the scalar messages hw_message models.
            Some(sfid::DATA_CACHE | sfid::DATA_CACHE_1) => {
                ops::data_port_send(shader, t, inst, mask, out)?;
                false
            }
            _ => return Ok(None),
        },
        _ => return Ok(None),
    }))
}

/// The channels whose predicate holds for an Align16 replicate predicate (`.x`..`.w`):
/// each channel takes the flag bit of component `k` of its half (PRM Vol. 7
/// "Predication", Align16 `PredCtrl` replicate modes). `None` for other predicates.
pub fn replicate_predicate(t: &Thread, ctl: Control) -> Option<u32> {
    let k = match ctl.predicate {
        Predicate::Align16ReplicateX => 0,
        Predicate::Align16ReplicateY => 1,
        Predicate::Align16ReplicateZ => 2,
        Predicate::Align16ReplicateW => 3,
        _ => return None,
    };
    let mut m = 0u32;
    for g in 0..8u32 {
        if t.flag(ctl.flag_subreg, g * 4 + k) != ctl.pred_invert() {
            m |= 0xf << (g * 4);
        }
    }
    Some(m)
}

/// Reads channel `i` of an Align16 operand of a vec4 thread ([`regs::is_vec4_file`]).
pub fn read(t: &mut Thread, op: &Operand, i: u32) -> Result<u64, SimError> {
    regs::check_operand(op)?;
    let sz = op.ty.size() as usize;
    let mut buf = [0u8; 8];
    match op.file {
        RegFile::Vgrf => {
            let off = regs::vgrf_byte(op, i, false);
            let r = t.vgrf_range(op, off, sz, "read")?;
            buf[..sz].copy_from_slice(&t.vgrfs[op.nr as usize][r.clone()]);
            if t.defined[op.nr as usize][r].iter().any(|d| !d) {
                t.poison_reads += 1;
            }
        }
        RegFile::FixedGrf if sz == 8 => {
            let (lo, hi) = regs::fixed_df_src_dwords(op, i, t.vec4.exec, t.vec4.gen7);
            let base = op.nr as usize * t.reg_size as usize;
            for (k, d) in [lo, hi].into_iter().enumerate() {
                let a = base + d as usize;
                let bytes = t
                    .grf
                    .get(a..a + 4)
                    .ok_or_else(|| SimError::msg("read outside the register file"))?;
                buf[4 * k..4 * k + 4].copy_from_slice(bytes);
            }
        }
        RegFile::Mrf | RegFile::FixedGrf => {
            let a = if op.file == RegFile::Mrf {
                regs::mrf_byte(op, i, false, t.reg_size)
            } else {
                op.nr as u64 * t.reg_size as u64 + regs::fixed_src_byte(op, i)
            } as usize;
            let bytes = t
                .grf
                .get(a..a + sz)
                .ok_or_else(|| SimError::msg("read outside the register file"))?;
            buf[..sz].copy_from_slice(bytes);
        }
        RegFile::Uniform | RegFile::Attr => match t.layout.as_ref() {
            Some(l) => {
                let a = layout::input_grf_byte(l, op, i)? as usize;
                let bytes = t
                    .grf
                    .get(a..a + sz)
                    .ok_or_else(|| SimError::msg("a vec4 input is outside the register file"))?;
                buf[..sz].copy_from_slice(bytes);
            }
            None => {
                let (space, a) = regs::input_addr_of(op, i, t.vec4.patch_inputs);
                for (k, b) in buf[..sz].iter_mut().enumerate() {
                    let a = a + k as u64;
                    *b = t.input_word(space, a / 4).to_le_bytes()[(a % 4) as usize];
                }
            }
        },
        _ => unreachable!("not a vec4 file"),
    }
    Ok(u64::from_le_bytes(buf))
}

/// Writes channel `i` of an Align16 destination of a vec4 thread: nothing where the
/// writemask leaves the channel's component out. `Ok(false)` when the operand's file is
/// not one of the vec4 rules' (the caller writes it element by element).
pub fn write(t: &mut Thread, op: &Operand, i: u32, bits: u64) -> Result<bool, SimError> {
    if !matches!(op.file, RegFile::Vgrf | RegFile::Mrf | RegFile::FixedGrf) {
        return Ok(false);
    }
    regs::check_operand(op)?;
    if !regs::writes_channel(op, i) {
        return Ok(true);
    }
    let sz = op.ty.size() as usize;
    let bytes = bits.to_le_bytes();
    if op.file == RegFile::Mrf {
        let b = (op.nr * t.reg_size) as usize + regs::vgrf_byte(op, i, true) as usize;
        t.vec4.urb.note_write(b, sz, true);
    }
    match op.file {
        RegFile::Vgrf => {
            let off = regs::vgrf_byte(op, i, true);
            let r = t.vgrf_range(op, off, sz, "write")?;
            t.vgrfs[op.nr as usize][r.clone()].copy_from_slice(&bytes[..sz]);
            t.defined[op.nr as usize][r]
                .iter_mut()
                .for_each(|d| *d = true);
        }
        _ => {
            let a = if op.file == RegFile::Mrf {
                regs::mrf_byte(op, i, true, t.reg_size)
            } else if sz == 8 {
                op.nr as u64 * t.reg_size as u64 + regs::fixed_df_dst_byte(op, i)
            } else {
                op.nr as u64 * t.reg_size as u64 + regs::vgrf_byte(op, i, true)
            } as usize;
            let dst = t
                .grf
                .get_mut(a..a + sz)
                .ok_or_else(|| SimError::msg("write outside the register file"))?;
            dst.copy_from_slice(&bytes[..sz]);
        }
    }
    Ok(true)
}

/// Marks channel `i` of a VGRF destination undefined (a copy of undefined bytes).
pub fn undefine(t: &mut Thread, op: &Operand, i: u32) -> Result<(), SimError> {
    if !regs::writes_channel(op, i) {
        return Ok(());
    }
    if op.file == RegFile::Mrf {
        let b = (op.nr * t.reg_size) as usize + regs::vgrf_byte(op, i, true) as usize;
        t.vec4.urb.note_write(b, op.ty.size() as usize, false);
        return Ok(());
    }
    if op.file != RegFile::Vgrf {
        return Ok(());
    }
    let off = regs::vgrf_byte(op, i, true);
    let r = t.vgrf_range(op, off, op.ty.size() as usize, "write")?;
    t.defined[op.nr as usize][r]
        .iter_mut()
        .for_each(|d| *d = false);
    Ok(())
}
