//! The vec4 vertex and geometry shaders' URB writes: `vs_urb_write` and `gs_urb_write` in
//! the start IR and the URB `send`s of the final code, recorded alike so the two runs
//! compare.
//!
//! Mesa's `vec4_visitor::emit_vertex` (brw_vec4_visitor.cpp) writes the VUE from message
//! registers: m1 is the header (filled by the generator from g0), m2.. one VUE slot each;
//! a message holds as many slots as fit, and `align_interleaved_urb_mlen` pads its length
//! so that the data is an even number of registers (gen6+, PRM "URB_INTERLEAVED"). The
//! k-th message starts at slot `offset * 2`, `offset` being the descriptor's global
//! offset ([`eubatch_ir::message::urb::decode_gen7`]). In interleaved mode a data register
//! holds one slot of both vertices: vertex `h` in its half `h`.
//!
//! The start IR does not print `mlen` or the offset: its slots are the message registers
//! written since the previous write, m2 up to the highest, padded as Mesa pads them (the
//! padding slot undefined), and its offset the slots written before, halved. A geometry
//! shader's writes carry per-slot offsets in their header (one per half, [`super::gs`]),
//! added to the global offset. Each slot of each enabled vertex is a record `urb slot S`
//! (channel: the half) of four dwords; a geometry thread's end records its vertex count.

use eubatch_ir::{Inst, Shader};

use super::regs::{HALF_BYTES, MRF_START};
use crate::state::Thread;
use crate::{Outputs, Record, SimError};

/// Message registers of a thread: what was written since the last URB write (per byte),
/// and the slots written so far.
#[derive(Clone, Debug, Default)]
pub struct UrbState {
    /// Bytes of m0..m15 since the last URB write: [`UNTOUCHED`], [`DEFINED`] or
    /// [`UNDEFINED`] (a copy of bytes never written, which any value matches).
    pub mrf_written: Vec<u8>,
    /// VUE slots sent by earlier writes.
    pub slots_sent: u32,
}

pub const UNTOUCHED: u8 = 0;
pub const DEFINED: u8 = 1;
pub const UNDEFINED: u8 = 2;

impl UrbState {
    /// Notes a write of `len` bytes at message-register byte `byte` (from m0), of defined
    /// data or not.
    pub fn note_write(&mut self, byte: usize, len: usize, defined: bool) {
        if self.mrf_written.len() < byte + len {
            self.mrf_written.resize(byte + len, UNTOUCHED);
        }
        self.mrf_written[byte..byte + len].fill(if defined { DEFINED } else { UNDEFINED });
    }
}

/// Records `slots` VUE slots from register-file byte `first` (the first data register),
/// for the halves (vertices) of `enabled`; `defined(byte)` says whether a byte holds data.
fn record_slots(
    t: &Thread,
    out: &mut Outputs,
    first: usize,
    first_slot: [u32; 2],
    slots: u32,
    enabled: u32,
    defined: &dyn Fn(usize) -> bool,
) -> Result<(), SimError> {
    let reg = t.reg_size as usize;
    for s in 0..slots {
        for h in 0..2u32 {
            if enabled & (0xf << (4 * h)) == 0 {
                continue;
            }
            let mut values = Vec::with_capacity(4);
            let mut undefined = 0u64;
            for c in 0..4usize {
                let a = first + s as usize * reg + (h * HALF_BYTES) as usize + 4 * c;
                let b = t
                    .grf
                    .get(a..a + 4)
                    .ok_or_else(|| SimError::msg("URB write data outside the register file"))?;
                values.push(u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as u64);
                if !(0..4).all(|k| defined(a + k)) {
                    undefined |= 1 << c;
                }
            }
            out.records.push(Record {
                message: format!("urb slot {}", first_slot[h as usize] + s),
                channel: h,
                values,
                undefined,
            });
        }
    }
    Ok(())
}

/// Per-slot offsets of a URB header at register-file byte `header`: dwords 3 and 4, one
/// per half, in 256-bit units (Mesa brw_vec4_generator.cpp `generate_gs_set_write_offset`
/// writes them there: `suboffset(stride(dst, 2, 2, 1), 3)`).
fn per_slot_offsets(t: &Thread, header: usize) -> Result<[u32; 2], SimError> {
    let mut o = [0u32; 2];
    for (h, x) in o.iter_mut().enumerate() {
        let a = header + 4 * (3 + h);
        let b = t
            .grf
            .get(a..a + 4)
            .ok_or_else(|| SimError::msg("URB header outside the register file"))?;
        *x = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    }
    Ok(o)
}

/// `vs_urb_write` and `gs_urb_write` of the start IR (Mesa's VEC4_VS_OPCODE_URB_WRITE,
/// VEC4_GS_OPCODE_URB_WRITE): a geometry shader's vertex writes carry per-slot offsets in
/// the header (`per_slot`) from the global offset Mesa gives them
/// (`control_data_header_size_hwords`, `emit_urb_write_opcode`). The dumps print neither
/// that offset nor the write's flags; the import takes both from the final code's
/// descriptor ([`eubatch_ir::import::listing::recover_gs_urb_writes`]). Without one the
/// write is a per-slot HWord write at global offset 0 (a shader without control data).
/// With one:
/// - an HWord write (`BRW_URB_OPCODE_WRITE_HWORD`) goes to its per-slot offsets (when the
///   descriptor has them) plus the global offset, in HWords;
/// - an OWord write (`BRW_URB_OPCODE_WRITE_OWORD`, the control data bits of
///   `emit_control_data_bits`: m1 the header, m2 the data, `mlen` 2) writes m2's half `h`
///   to vertex `h`'s OWord at the global offset (OWords); one with per-slot offsets (a
///   control data header past 128 bits) is not modelled.
pub fn start_urb_write(
    shader: &Shader,
    t: &mut Thread,
    inst: Inst,
    enabled: u32,
    out: &mut Outputs,
    per_slot: bool,
) -> Result<(), SimError> {
    let reg = t.reg_size as usize;
    let recovered = shader
        .send_info(inst)
        .filter(|s| shader.insts.opcode[inst] == eubatch_ir::Opcode::GsUrbWrite && s.desc != 0)
        .map(|s| eubatch_ir::message::urb::decode_gen7(s.desc));
    if let Some(d) = recovered {
        use eubatch_ir::message::tess_vec4::GEN7_WRITE_OWORD;
        use eubatch_ir::message::urb::GEN7_WRITE_HWORD;
        if !d.interleave || !matches!(d.opcode, GEN7_WRITE_HWORD | GEN7_WRITE_OWORD) {
            return Err(SimError::at(
                inst,
                format!(
                    "a gs_urb_write whose final-code descriptor is URB opcode {} (interleaved: {}) is not modelled",
                    d.opcode, d.interleave
                ),
            ));
        }
        if d.opcode == GEN7_WRITE_OWORD {
            if d.per_slot {
                return Err(SimError::at(
                    inst,
                    "an OWord gs_urb_write with per-slot offsets (a control data header past 128 bits) is not modelled yet",
                ));
            }
            let written = std::mem::take(&mut t.vec4.urb.mrf_written);
            let base = MRF_START as usize * reg;
            let defined = |a: usize| {
                a.checked_sub(base)
                    .and_then(|b| written.get(b).copied())
                    .is_some_and(|x| x == DEFINED)
            };
            let slot = d.offset;
            return record_slots(t, out, base + 2 * reg, [slot, slot], 1, enabled, &defined)
                .map_err(|e| e.with_inst(inst));
        }
    }
    let global = recovered.map_or(0, |d| d.offset);
    let per_slot = recovered.map_or(per_slot, |d| d.per_slot);
    let written = std::mem::take(&mut t.vec4.urb.mrf_written);
    // The highest message register written from m2 on.
    let last = (2..16usize)
        .rev()
        .find(|m| {
            let end = ((m + 1) * reg).min(written.len());
            written
                .get(m * reg..end)
                .is_some_and(|b| b.iter().any(|&x| x != UNTOUCHED))
        })
        .ok_or_else(|| SimError::at(inst, "a URB write with no VUE slot written (m2..)"))?;
    let mut slots = (last - 1) as u32;
    // `align_interleaved_urb_mlen`: header + data must be odd.
    if (1 + slots) % 2 != 1 {
        slots += 1;
    }
    let base = MRF_START as usize * reg;
    let first_slot = if per_slot {
        let o = per_slot_offsets(t, base + reg).map_err(|e| e.with_inst(inst))?;
        [(global + o[0]) * 2, (global + o[1]) * 2]
    } else if recovered.is_some() {
        [global * 2, global * 2]
    } else {
        let f = t.vec4.urb.slots_sent / 2 * 2;
        [f, f]
    };
    let defined = |a: usize| {
        a.checked_sub(base)
            .and_then(|b| written.get(b).copied())
            .is_some_and(|x| x == DEFINED)
    };
    record_slots(t, out, base + 2 * reg, first_slot, slots, enabled, &defined)
        .map_err(|e| e.with_inst(inst))?;
    t.vec4.urb.slots_sent += (last - 1) as u32;
    Ok(())
}

/// The vertex count a geometry thread's last URB write carries, per half: the words at
/// bytes 8 and 10 of its header (Mesa `generate_gs_set_vertex_count`: `suboffset(stride(
/// retype(dst, UW), 2, 2, 1), 4)`), recorded as `gs vertex count`.
pub fn record_vertex_count(
    t: &Thread,
    header: usize,
    enabled: u32,
    out: &mut Outputs,
) -> Result<(), SimError> {
    for h in 0..2usize {
        if enabled & (0xf << (4 * h)) == 0 {
            continue;
        }
        let a = header + 8 + 2 * h;
        let b = t
            .grf
            .get(a..a + 2)
            .ok_or_else(|| SimError::msg("URB header outside the register file"))?;
        out.records.push(Record {
            message: "gs vertex count".into(),
            channel: h as u32,
            values: vec![u16::from_le_bytes([b[0], b[1]]) as u64],
            undefined: 0,
        });
    }
    Ok(())
}

/// A URB write `send` of vec4 final code (gen7 HWord write, interleaved): `mlen - 1` data
/// registers after the header, from global offset `offset`. Returns whether it ends the
/// thread.
pub fn urb_write_send(
    shader: &Shader,
    t: &mut Thread,
    inst: Inst,
    enabled: u32,
    out: &mut Outputs,
) -> Result<bool, SimError> {
    let info = shader
        .send_info(inst)
        .copied()
        .ok_or_else(|| SimError::at(inst, "send without a descriptor"))?;
    let d = eubatch_ir::message::urb::decode_gen7(info.desc);
    use eubatch_ir::message::tess_vec4::{GEN7_READ_OWORD, GEN7_WRITE_OWORD};
    // The tessellation stages' OWord messages (a geometry shader's control data writes
    // are OWord writes too, which the start IR's model does not cover yet).
    let tess = matches!(
        shader.stage,
        eubatch_ir::Stage::Tcs | eubatch_ir::Stage::Tes
    );
    if tess && matches!(d.opcode, GEN7_READ_OWORD | GEN7_WRITE_OWORD) {
        return super::tess::oword_send(shader, t, inst, enabled, out, d, info.desc);
    }
    let reg = t.reg_size as usize;
    // A geometry shader's control data bits (`emit_control_data_bits`): an interleaved
    // OWord write of one data register, half `h` to vertex `h`'s OWord at the global
    // offset (OWords). Per-slot offsets (a control data header past 128 bits) are not
    // modelled.
    if shader.stage == eubatch_ir::Stage::Gs
        && d.opcode == GEN7_WRITE_OWORD
        && d.interleave
        && !d.per_slot
        && info.mlen == 2
    {
        let header = payload_header(shader, inst, reg)?;
        let slot = d.offset;
        record_slots(t, out, header + reg, [slot, slot], 1, enabled, &|_| true)
            .map_err(|e| e.with_inst(inst))?;
        return Ok(shader.insts.control[inst].eot());
    }
    if d.opcode != eubatch_ir::message::urb::GEN7_WRITE_HWORD || !d.interleave {
        return Err(SimError::at(
            inst,
            format!(
                "vec4 URB message opcode {} (interleaved: {}) is not modelled yet",
                d.opcode, d.interleave
            ),
        ));
    }
    let header = payload_header(shader, inst, reg)?;
    let eot = shader.insts.control[inst].eot();
    let slots = (info.mlen as u32).saturating_sub(1);
    if slots == 0 && eot && shader.stage == eubatch_ir::Stage::Gs {
        // A geometry thread's end: its header's vertex count, no data.
        record_vertex_count(t, header, enabled, out).map_err(|e| e.with_inst(inst))?;
        return Ok(true);
    }
    let first_slot = if d.per_slot {
        let o = per_slot_offsets(t, header).map_err(|e| e.with_inst(inst))?;
        [(d.offset + o[0]) * 2, (d.offset + o[1]) * 2]
    } else {
        [d.offset * 2, d.offset * 2]
    };
    record_slots(t, out, header + reg, first_slot, slots, enabled, &|_| true)
        .map_err(|e| e.with_inst(inst))?;
    Ok(eot)
}

/// The byte of the register file where a raw URB write's payload (its header) starts: the
/// send's first source, a whole register.
fn payload_header(shader: &Shader, inst: Inst, reg: usize) -> Result<usize, SimError> {
    let payload = shader
        .srcs(inst)
        .first()
        .filter(|o| o.file == eubatch_ir::RegFile::FixedGrf && o.offset == 0)
        .ok_or_else(|| SimError::at(inst, "a URB write's payload must start at a register"))?;
    Ok(payload.nr as usize * reg)
}
