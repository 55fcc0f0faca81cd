//! The vec4 tessellation stages' virtual opcodes (gen7 TCS and TES), as Mesa 22.3's vec4
//! generator expands them (brw_vec4_generator.cpp), on the header and payload fields of
//! [`eubatch_ir::message::tess_vec4`]:
//! - `tcs_get_instance_id dst` (`generate_tcs_get_instance_id`): dwords 0 and 4 of `dst`
//!   = the two invocation IDs from g0.2 (exec size 1, Align1: run when channel 0 is).
//! - `tcs_get_primitive_id dst`, `tes_get_primitive_id dst`: an Align1 `mov` of g0.1 / g1.7
//!   to every enabled channel's dword.
//! - `tcs_set_input_urb_offsets hdr, vertex[, offset]` (`generate_tcs_input_urb_offsets`),
//!   `tcs_set_output_urb_offsets hdr, mask[, offset]` (`generate_tcs_output_urb_offsets`),
//!   `tes_create_input_read_header hdr`, `tes_add_indirect_urb_offset hdr, header, offset`:
//!   the URB header, NoMask. A register `vertex` is read per half as the generator reads it,
//!   through a0: the dword at `g1 + vertex.0` (`.4` for the second half), the index's low
//!   word.
//! - `urb_read dst, hdr` (`generate_vec4_urb_read`): an OWord read, interleaved, per-slot
//!   offsets, global offset from the final code ([`eubatch_ir::SendInfo::urb_offset`]);
//!   half `h` of `dst` gets the four dwords of handle `hdr.h` at slot `offset + hdr.(3+h)`
//!   ([`crate::urb::input`], the previous stage's outputs as the scalar model has them).
//! - `tcs_urb_write null, msg` (`generate_tcs_urb_write`, mlen 2): the same addressing,
//!   data from the message's second register, each half's OWord recorded as `urb_write`
//!   ([`crate::urb::record`]: slot, channel enables, data; a component not enabled is
//!   undefined in the record).
//! - `tcs_release_input hdr, vertex, unpaired` (`generate_tcs_release_input`): the header
//!   with the handles of vertices `v`, `v + 1` (`v` alone when unpaired), then a `complete`
//!   read without response: recorded as `urb release` per handle.
//! - `tcs_thread_end` (`generate_tcs_thread_end`): m14 the header (patch handle, X enabled
//!   in the first OWord), m15 zero, an OWord write without interleave that ends the thread.
//! - `tcs_create_barrier_header dst`: dword 2 holds the barrier count, which the IR does not
//!   record, so it is undefined; the other dwords are zero.
//! - `tcs_src0<0,1,0>_is_zero` (`brw_MOV(null, stride(src0, 0, 1, 0))` with its conditional
//!   modifier): every enabled channel's flag from dword 0 of the source.
//!
//! g0.2 (instance number, barrier ID) is what the simulator's payload holds for every
//! stage: 0 ([`crate::state`]), so a run is of the first TCS thread of a patch (instances 0
//! and 1).

use eubatch_ir::message::tess_vec4 as rules;
use eubatch_ir::shader::CondMod;
use eubatch_ir::{Gen, Inst, Opcode, Operand, RegFile, Region, Shader, Type};

use crate::state::Thread;
use crate::{Outputs, Record, SimError};

pub fn handles(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::TcsGetInstanceId
            | Opcode::TcsGetPrimitiveId
            | Opcode::TesGetPrimitiveId
            | Opcode::TcsSetInputUrbOffsets
            | Opcode::TcsSetOutputUrbOffsets
            | Opcode::TesCreateInputReadHeader
            | Opcode::TesAddIndirectUrbOffset
            | Opcode::UrbRead
            | Opcode::TcsUrbWrite
            | Opcode::TcsReleaseInput
            | Opcode::TcsThreadEnd
            | Opcode::TcsCreateBarrierHeader
            | Opcode::TcsSrc0010IsZero
    )
}

/// `op` addressing its register's dword `k` as channel `k` of a vec4 operand: the type UD,
/// the identity swizzle and the full writemask (the generator's Align1 regions ignore
/// them).
fn dword_operand(op: &Operand) -> Operand {
    let mut o = *op;
    if o.file != RegFile::Imm {
        o.ty = Type::UD;
        o.mods = Default::default();
        o.region.swizzle = Region::XYZW;
    }
    o
}

/// Dword `k` (0..8) of the register an operand names, and whether it is defined.
fn read_dword(t: &mut Thread, op: &Operand, k: u32) -> Result<(u32, bool), SimError> {
    let (v, d) = t.read_defined(&dword_operand(op), k)?;
    Ok((v as u32, d))
}

/// Writes dword `k` of the register `op` names.
fn write_dword(
    t: &mut Thread,
    op: &Operand,
    k: u32,
    v: u32,
    defined: bool,
) -> Result<(), SimError> {
    let mut o = dword_operand(op);
    o.region.swizzle = Region::WRITEMASK_XYZW;
    t.write_copy(&o, k, v as u64, defined)
}

/// A URB message header as Mesa's vec4 generator builds it for the tessellation stages:
/// zeroed, the channel enables, then each half's handle and, for messages with per-slot
/// offsets, its offset (`generate_tcs_input_urb_offsets`, `generate_tcs_output_urb_offsets`,
/// `generate_tes_create_input_read_header`). A value and whether it is defined each.
fn write_urb_header(
    t: &mut Thread,
    dst: &Operand,
    enables: u32,
    handles: [(u32, bool); 2],
    offsets: Option<[(u32, bool); 2]>,
) -> Result<(), SimError> {
    for k in 0..8 {
        write_dword(t, dst, k, 0, true)?;
    }
    write_dword(t, dst, rules::CHANNEL_ENABLE_DWORD, enables, true)?;
    for h in 0..2 {
        let (v, d) = handles[h];
        write_dword(t, dst, rules::HANDLE_DWORD + h as u32, v, d)?;
        if let Some(o) = offsets {
            let (v, d) = o[h];
            write_dword(t, dst, rules::PER_SLOT_DWORD + h as u32, v, d)?;
        }
    }
    Ok(())
}

/// Payload dword `(register, dword)` of the thread.
fn payload(t: &Thread, (reg, dw): (u32, u32)) -> Result<u32, SimError> {
    let a = (reg * t.reg_size + 4 * dw) as usize;
    t.grf
        .get(a..a + 4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .ok_or_else(|| SimError::msg("a payload register outside the register file"))
}

/// The register-file dword at byte `a` (an indirect read through a0).
fn grf_dword(t: &Thread, a: usize) -> Result<u32, SimError> {
    t.grf
        .get(a..a + 4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .ok_or_else(|| SimError::msg("an indirect read outside the register file"))
}

/// The operand `k`-th register after `op`'s.
fn next_register(t: &Thread, op: &Operand, k: u32) -> Operand {
    let mut o = *op;
    o.offset += k * t.reg_size;
    o
}

/// A URB header: its eight dwords and which are defined.
#[derive(Clone, Copy, Debug, Default)]
pub struct Header {
    pub dwords: [u32; 8],
    pub defined: [bool; 8],
}

impl Header {
    fn of(t: &mut Thread, op: &Operand) -> Result<Header, SimError> {
        let mut h = Header::default();
        for k in 0..8 {
            (h.dwords[k as usize], h.defined[k as usize]) = read_dword(t, op, k)?;
        }
        Ok(h)
    }
    /// A header read from the register file at byte `a` (final code).
    pub fn at(t: &Thread, a: usize) -> Result<Header, SimError> {
        let mut h = Header::default();
        for k in 0..8 {
            h.dwords[k] = grf_dword(t, a + 4 * k)?;
            h.defined[k] = true;
        }
        Ok(h)
    }
}

/// How a URB OWord message addresses its data: the global offset (128-bit units), whether
/// the two OWords are the two halves' (interleaved) or consecutive slots of one handle,
/// whether the header's per-slot offsets are added.
#[derive(Clone, Copy, Debug)]
pub struct Addressing {
    pub global: u32,
    pub interleave: bool,
    pub per_slot: bool,
}

impl Addressing {
    /// The handle and slot of OWord `k` (0, 1), and whether both are defined.
    fn slot(&self, h: &Header, k: usize) -> (u32, u32, bool) {
        let hk = if self.interleave { k } else { 0 };
        let handle = h.dwords[rules::HANDLE_DWORD as usize + hk];
        let mut ok = h.defined[rules::HANDLE_DWORD as usize + hk];
        let mut slot = self.global;
        if self.per_slot {
            let o = rules::PER_SLOT_DWORD as usize + k;
            slot = slot.wrapping_add(h.dwords[o]);
            ok &= h.defined[o];
        }
        if !self.interleave {
            slot = slot.wrapping_add(k as u32);
        }
        (handle, slot, ok)
    }
}

/// The OWord read's response: 8 dwords (OWord `k` in dwords `4k..4k+3`) and whether each is
/// defined.
pub fn read_owords(t: &Thread, h: &Header, a: Addressing) -> ([u32; 8], [bool; 8]) {
    let mut v = [0u32; 8];
    let mut d = [false; 8];
    for k in 0..2usize {
        let (handle, slot, ok) = a.slot(h, k);
        for c in 0..4usize {
            v[4 * k + c] = crate::urb::input(t.seed, handle, slot, c as u32);
            d[4 * k + c] = ok;
        }
    }
    (v, d)
}

/// Records an OWord write: each OWord whose half `enabled` runs (interleaved; both for
/// one handle) and whose channel enables are not all clear, as `urb_write` with its slot,
/// its enables and its four dwords (those not enabled undefined).
pub fn record_owords(
    out: &mut Outputs,
    h: &Header,
    a: Addressing,
    data: &[(u32, bool); 8],
    enabled: u32,
) {
    let enables = h.dwords[rules::CHANNEL_ENABLE_DWORD as usize];
    for k in 0..2usize {
        let half = if a.interleave { 0xf << (4 * k) } else { 0xff };
        let mask = rules::oword_mask(enables, k as u32);
        if enabled & half == 0 || mask == 0 {
            continue;
        }
        let (handle, slot, ok) = a.slot(h, k);
        let mut undefined = 0u64;
        let mut values = Vec::with_capacity(5);
        values.push(handle as u64);
        for c in 0..4usize {
            let (v, d) = data[4 * k + c];
            values.push(v as u64);
            if !d || mask & (1 << c) == 0 || !ok {
                undefined |= 1 << (c + 1);
            }
        }
        if !ok {
            undefined |= 1;
        }
        // `urb::record`'s layout: slot, mask, then the handle and the data.
        crate::urb::record(out, k as u32, slot, Some(mask), values, undefined);
    }
}

/// Records a `complete` read without response (`tcs_release_input`): the handles the
/// header names, one per OWord (one when not interleaved).
pub fn record_release(out: &mut Outputs, h: &Header, interleave: bool, enabled: u32) {
    if enabled == 0 {
        return;
    }
    for k in 0..if interleave { 2 } else { 1 } {
        let d = rules::HANDLE_DWORD as usize + k;
        out.records.push(Record {
            message: "urb release".into(),
            channel: k as u32,
            values: vec![h.dwords[d] as u64],
            undefined: !h.defined[d] as u64,
        });
    }
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
    let ctl = shader.insts.control[inst];
    let srcs = shader.srcs(inst);
    let src = |k: usize| {
        srcs.get(k)
            .copied()
            .ok_or_else(|| SimError::at(inst, format!("`{}` lacks a source", op.name())))
    };
    let present = |k: usize| srcs.get(k).copied().filter(|s| !s.is_bad() && !s.is_null());
    // Ivybridge's fields differ (rules::tcs_instance_field); gen8 runs these stages scalar.
    let ivb = shader.target == Gen::Gen7;
    if shader.target >= Gen::Gen8 {
        return Err(SimError::at(
            inst,
            format!("vec4 `{}` is gen7's (Ivybridge, Haswell)", op.name()),
        ));
    }
    let zero_header = |t: &mut Thread| -> Result<(), SimError> {
        for k in 0..8 {
            write_dword(t, &dst, k, 0, true)?;
        }
        Ok(())
    };
    match op {
        Opcode::TcsGetInstanceId => {
            if mask & 1 != 0 {
                let ids = rules::tcs_instance_ids(payload(t, rules::TCS_INSTANCE_DWORD)?, ivb);
                write_dword(t, &dst, 0, ids[0], true).map_err(at)?;
                write_dword(t, &dst, 4, ids[1], true).map_err(at)?;
            }
        }
        Opcode::TcsGetPrimitiveId | Opcode::TesGetPrimitiveId => {
            let from = if op == Opcode::TcsGetPrimitiveId {
                rules::TCS_PRIMITIVE_ID
            } else {
                rules::TES_PRIMITIVE_ID
            };
            let v = payload(t, from).map_err(at)?;
            for i in (0..ctl.exec_size as u32).filter(|i| mask & (1 << i) != 0) {
                write_dword(t, &dst, i, v, true).map_err(at)?;
            }
        }
        Opcode::TcsSetInputUrbOffsets => {
            let vertex = src(0)?;
            let mut handles = [(0u32, true); 2];
            if vertex.file == RegFile::Imm {
                let v = payload(t, rules::tcs_icp_handle(vertex.imm_bits() as u32)).map_err(at)?;
                handles = [(v, true); 2];
            } else {
                // a0 = (vertex.{0,4} as UW + 8) << 2: a byte address from g0. Past the
                // register file (a vertex index beyond the patch's, undefined in GLSL)
                // the handle is undefined.
                for (h, x) in handles.iter_mut().enumerate() {
                    let (v, d) = read_dword(t, &vertex, 4 * h as u32).map_err(at)?;
                    let addr = ((v as u16).wrapping_add(8)).wrapping_shl(2) as usize;
                    *x = match grf_dword(t, addr) {
                        Ok(handle) => (handle, d),
                        Err(_) => (0, false),
                    };
                }
            }
            let offsets = match present(1) {
                Some(o) => [
                    read_dword(t, &o, 0).map_err(at)?,
                    read_dword(t, &o, 4).map_err(at)?,
                ],
                None => [(0, true); 2],
            };
            write_urb_header(t, &dst, rules::ALL_CHANNELS, handles, Some(offsets)).map_err(at)?;
        }
        Opcode::TcsSetOutputUrbOffsets => {
            let m = src(0)?;
            if m.file != RegFile::Imm {
                return Err(SimError::at(inst, "a write mask that is not an immediate"));
            }
            let offsets = match present(1) {
                Some(o) => [
                    read_dword(t, &o, 0).map_err(at)?,
                    read_dword(t, &o, 4).map_err(at)?,
                ],
                None => [(0, true); 2],
            };
            let handle = payload(t, rules::TCS_PATCH_HANDLE).map_err(at)?;
            let enables = rules::channel_enables(m.imm_bits() as u32);
            write_urb_header(t, &dst, enables, [(handle, true); 2], Some(offsets)).map_err(at)?;
        }
        Opcode::TesCreateInputReadHeader => {
            let handle =
                payload(t, rules::TES_PATCH_HANDLE).map_err(at)? & rules::TES_PATCH_HANDLE_MASK;
            write_urb_header(t, &dst, rules::ALL_CHANNELS, [(handle, true); 2], None)
                .map_err(at)?;
        }
        Opcode::TesAddIndirectUrbOffset => {
            let header = Header::of(t, &src(0)?).map_err(at)?;
            let o = src(1)?;
            // A uniform (`<0;4,1>`) gives both halves its first dword; channel 4 of a vec4
            // uniform is that dword again.
            let offsets = [
                read_dword(t, &o, 0).map_err(at)?,
                read_dword(t, &o, 4).map_err(at)?,
            ];
            for k in 0..8u32 {
                write_dword(
                    t,
                    &dst,
                    k,
                    header.dwords[k as usize],
                    header.defined[k as usize],
                )
                .map_err(at)?;
            }
            for h in 0..2u32 {
                let (v, d) = offsets[h as usize];
                write_dword(t, &dst, rules::PER_SLOT_DWORD + h, v, d).map_err(at)?;
            }
        }
        Opcode::UrbRead => {
            let header = Header::of(t, &src(0)?).map_err(at)?;
            let global = urb_offset(shader, inst)?;
            let a = Addressing {
                global,
                interleave: true,
                per_slot: true,
            };
            let (v, d) = read_owords(t, &header, a);
            for k in 0..8u32 {
                write_dword(t, &dst, k, v[k as usize], d[k as usize]).map_err(at)?;
            }
        }
        Opcode::TcsUrbWrite => {
            let msg = src(0)?;
            let header = Header::of(t, &msg).map_err(at)?;
            let data_op = next_register(t, &msg, 1);
            let mut data = [(0u32, false); 8];
            for k in 0..8u32 {
                data[k as usize] = read_dword(t, &data_op, k).map_err(at)?;
            }
            let a = Addressing {
                global: urb_offset(shader, inst)?,
                interleave: true,
                per_slot: true,
            };
            record_owords(out, &header, a, &data, mask);
        }
        Opcode::TcsReleaseInput => {
            let (v, unpaired) = match (src(0)?, src(1)?) {
                (v, u) if v.file == RegFile::Imm && u.file == RegFile::Imm => {
                    (v.imm_bits() as u32, u.imm_bits() != 0)
                }
                _ => {
                    return Err(SimError::at(
                        inst,
                        "release operands that are not immediates",
                    ))
                }
            };
            let (reg, dw) = rules::tcs_icp_handle(v);
            let pair = [
                payload(t, (reg, dw)).map_err(at)?,
                payload(t, (reg, dw + 1)).map_err(at)?,
            ];
            zero_header(t).map_err(at)?;
            for h in 0..2u32 {
                write_dword(t, &dst, rules::HANDLE_DWORD + h, pair[h as usize], true)
                    .map_err(at)?;
            }
            let header = Header::of(t, &dst).map_err(at)?;
            record_release(out, &header, !unpaired, mask);
        }
        Opcode::TcsThreadEnd => {
            let reg = t.reg_size as usize;
            let base = (super::regs::MRF_START + rules::TCS_THREAD_END_MRF) as usize * reg;
            let mut header = Header::default();
            header.defined = [true; 8];
            header.dwords[rules::CHANNEL_ENABLE_DWORD as usize] = rules::TCS_THREAD_END_ENABLES;
            header.dwords[rules::HANDLE_DWORD as usize] =
                payload(t, rules::TCS_PATCH_HANDLE).map_err(at)?;
            // The message registers as the generator leaves them: m14 the header, m15 zero.
            let bytes: Vec<u8> = header
                .dwords
                .iter()
                .flat_map(|d| d.to_le_bytes())
                .chain(std::iter::repeat_n(0u8, reg))
                .collect();
            t.grf
                .get_mut(base..base + 2 * reg)
                .ok_or_else(|| SimError::at(inst, "m14 outside the register file"))?
                .copy_from_slice(&bytes);
            let a = Addressing {
                global: 0,
                interleave: false,
                per_slot: false,
            };
            record_owords(out, &header, a, &[(0, true); 8], mask);
            return Ok(true);
        }
        Opcode::TcsCreateBarrierHeader => {
            zero_header(t).map_err(at)?;
            // The barrier count (`brw_tcs_prog_data::instances`) is not in the IR.
            write_dword(t, &dst, 2, 0, false).map_err(at)?;
        }
        Opcode::TcsSrc0010IsZero => {
            if ctl.cmod != CondMod::Z {
                return Err(SimError::at(inst, "tcs_src0<0,1,0>_is_zero without `.z`"));
            }
            let (v, _) = read_dword(t, &src(0)?, 0).map_err(at)?;
            for i in (0..ctl.exec_size as u32).filter(|i| mask & (1 << i) != 0) {
                t.set_flag(ctl.flag_subreg, i, v == 0);
            }
        }
        _ => unreachable!("not a tessellation opcode"),
    }
    Ok(false)
}

/// The global offset of a vec4 URB message of the start IR, from the final code.
fn urb_offset(shader: &Shader, inst: Inst) -> Result<u32, SimError> {
    shader
        .send_info(inst)
        .and_then(|s| s.urb_offset)
        .map(|o| o as u32)
        .ok_or_else(|| {
            SimError::at(
                inst,
                "a vec4 URB message whose global offset is unknown (the dumps do not print it; \
                 it is taken from the final code beside them)",
            )
        })
}

/// A URB OWord `send` of vec4 final code (the tessellation stages' messages): a read
/// (`generate_vec4_urb_read`: response one register), a `complete` read without response
/// (`generate_tcs_release_input`), or a write of the register after the header
/// (`generate_tcs_urb_write`, `generate_tcs_thread_end`), the header the payload's first
/// register; addressed as the start IR's opcodes are ([`Addressing`]). Returns whether it
/// ends the thread.
pub fn oword_send(
    shader: &Shader,
    t: &mut Thread,
    inst: Inst,
    enabled: u32,
    out: &mut Outputs,
    d: eubatch_ir::message::urb::Gen7Desc,
    desc: u32,
) -> Result<bool, SimError> {
    let at = |e: SimError| e.with_inst(inst);
    let payload = shader
        .srcs(inst)
        .first()
        .filter(|o| o.file == RegFile::FixedGrf && o.offset == 0)
        .copied()
        .ok_or_else(|| SimError::at(inst, "a URB message's payload must start at a register"))?;
    let reg = t.reg_size as usize;
    let base = payload.nr as usize * reg;
    let header = Header::at(t, base).map_err(at)?;
    let a = Addressing {
        global: d.offset,
        interleave: d.interleave,
        per_slot: d.per_slot,
    };
    let rlen = (desc >> 20) & 0x1f;
    let mlen = (desc >> 25) & 0xf;
    match d.opcode {
        rules::GEN7_READ_OWORD if d.complete && rlen == 0 => {
            record_release(out, &header, d.interleave, enabled);
            Ok(false)
        }
        rules::GEN7_READ_OWORD if rlen == 1 => {
            let dst = shader.insts.dst[inst];
            if dst.file != RegFile::FixedGrf || dst.offset != 0 {
                return Err(SimError::at(
                    inst,
                    "a URB read's response must be a register",
                ));
            }
            let (v, _) = read_owords(t, &header, a);
            let o = dst.nr as usize * reg;
            let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
            t.grf
                .get_mut(o..o + reg)
                .ok_or_else(|| SimError::at(inst, "a URB response outside the register file"))?
                .copy_from_slice(&bytes);
            Ok(false)
        }
        rules::GEN7_WRITE_OWORD if mlen == 2 => {
            let mut data = [(0u32, true); 8];
            for (k, x) in data.iter_mut().enumerate() {
                x.0 = grf_dword(t, base + reg + 4 * k).map_err(at)?;
            }
            record_owords(out, &header, a, &data, enabled);
            Ok(shader.insts.control[inst].eot())
        }
        op => Err(SimError::at(
            inst,
            format!(
                "vec4 URB OWord message opcode {op} (mlen {mlen}, rlen {rlen}) is not modelled yet"
            ),
        )),
    }
}
