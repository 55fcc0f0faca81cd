//! The vec4 geometry shader's thread opcodes of the start IR (gen7), as Mesa's generator
//! expands them (brw_vec4_generator.cpp), on the bytes of the message header they build:
//! - `set_dword_2 dst, src` (`generate_gs_set_dword_2`): dword 2 of `dst` = `src`.
//! - `set_write_offset m, v, size` (`generate_gs_set_write_offset`): the per-slot offsets,
//!   dwords 3 and 4 of the header, = `v.x` of each half times `size` (the output vertex
//!   size in 256-bit units).
//! - `set_vertex_count m, v` (`generate_gs_set_vertex_count`): the words at bytes 8 and
//!   10 = the low word of `v.x` of each half.
//! - `gs_urb_write` (`generate_gs_urb_write`): a URB write from m1 with per-slot offsets
//!   ([`super::urb::start_urb_write`]).
//! - `gs_thread_end` (`generate_gs_thread_end`): the last URB write, its header only; the
//!   vertex count is recorded ([`super::urb::record_vertex_count`]) and the thread ends.
//!
//! - `get_instance_id dst` (`generate_gs_get_instance_id`): dword `i` of `dst` = g0's
//!   dword `i / 4` >> 27, per enabled channel (Align1, masked).
//!
//! The four header opcodes run NoMask in Align1, for both halves.

use eubatch_ir::{Inst, Opcode, Operand, RegFile, Shader};

use super::regs::MRF_START;
use crate::state::Thread;
use crate::{Outputs, SimError};

pub fn handles(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::SetDword2
            | Opcode::SetWriteOffset
            | Opcode::SetVertexCount
            | Opcode::GsUrbWrite
            | Opcode::GsThreadEnd
            | Opcode::GetInstanceId
    )
}

/// Register-file byte where a header operand's register starts.
fn register_byte(t: &Thread, op: &Operand) -> Result<usize, SimError> {
    let reg = t.reg_size as usize;
    match op.file {
        RegFile::Mrf => Ok((MRF_START + op.nr) as usize * reg),
        RegFile::FixedGrf => Ok(op.nr as usize * reg + op.offset as usize),
        _ => Err(SimError::msg(
            "a message header must be a message or fixed register",
        )),
    }
}

fn put(t: &mut Thread, a: usize, bytes: &[u8]) -> Result<(), SimError> {
    t.grf
        .get_mut(a..a + bytes.len())
        .ok_or_else(|| SimError::msg("header outside the register file"))?
        .copy_from_slice(bytes);
    let mrf = MRF_START as usize * t.reg_size as usize;
    if let Some(b) = a.checked_sub(mrf) {
        t.vec4.urb.note_write(b, bytes.len(), true);
    }
    Ok(())
}

/// Runs one of these opcodes; returns whether the thread ends.
pub fn execute(
    shader: &Shader,
    t: &mut Thread,
    inst: Inst,
    mask: u32,
    out: &mut Outputs,
) -> Result<bool, SimError> {
    let at = |e: SimError| e.with_inst(inst);
    let op = shader.insts.opcode[inst];
    let dst = shader.insts.dst[inst];
    let srcs = shader.srcs(inst);
    let src = |k: usize| {
        srcs.get(k)
            .copied()
            .ok_or_else(|| SimError::at(inst, format!("`{}` lacks a source", op.name())))
    };
    let reg = t.reg_size as usize;
    match op {
        Opcode::SetDword2 => {
            let v = t.read(&src(0)?, 0).map_err(at)? as u32;
            let a = register_byte(t, &dst).map_err(at)?;
            put(t, a + 8, &v.to_le_bytes()).map_err(at)?;
        }
        Opcode::SetWriteOffset => {
            let size = t.read(&src(1)?, 0).map_err(at)? as u32;
            let a = register_byte(t, &dst).map_err(at)?;
            for h in 0..2u32 {
                let v = t.read(&src(0)?, 4 * h).map_err(at)? as u32;
                put(
                    t,
                    a + 4 * (3 + h as usize),
                    &v.wrapping_mul(size).to_le_bytes(),
                )
                .map_err(at)?;
            }
        }
        Opcode::SetVertexCount => {
            let a = register_byte(t, &dst).map_err(at)?;
            for h in 0..2u32 {
                let v = t.read(&src(0)?, 4 * h).map_err(at)? as u16;
                put(t, a + 8 + 2 * h as usize, &v.to_le_bytes()).map_err(at)?;
            }
        }
        Opcode::GetInstanceId => {
            // `shr(8) dst<1>:UD r0<1,4,0>:UD 27`, Align1, masked: channel `i` writes dword
            // `i` of dst with g0's dword `i / 4` shifted.
            use eubatch_ir::thread_inputs::vec4_gs::INSTANCE_ID_SHIFT;
            let mut d = dst;
            d.ty = eubatch_ir::Type::UD;
            d.region.swizzle = eubatch_ir::Region::WRITEMASK_XYZW;
            for i in (0..8u32).filter(|i| mask & (1 << i) != 0) {
                let a = 4 * (i / 4) as usize;
                let b = &t.grf[a..a + 4];
                let v = u32::from_le_bytes([b[0], b[1], b[2], b[3]]) >> INSTANCE_ID_SHIFT;
                t.write(&d, i, v as u64).map_err(at)?;
            }
        }
        Opcode::GsUrbWrite => super::urb::start_urb_write(shader, t, inst, mask, out, true)?,
        _ => {
            // gs_thread_end: the header in m1 (base_mrf 1).
            let header = (MRF_START as usize + 1) * reg;
            super::urb::record_vertex_count(t, header, mask, out).map_err(at)?;
            return Ok(true);
        }
    }
    Ok(false)
}
