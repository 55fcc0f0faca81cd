//! The sampler: a deterministic function of the message, so that any two programs that send
//! the same message get the same texels.
//!
//! A message is what the hardware sees ([`eubatch_ir::message::sampler`]): its type, the
//! surface and sampler, and the parameters in payload order. A logical texturing
//! instruction is first lowered to that message exactly as Mesa lowers it, so the logical
//! shader and Mesa's `send` hash the same words. Each returned component is a hash of the
//! seed (the textures' contents), the message and the channel's parameter bits: texels are
//! floats in [0, 1) (as from a UNORM texture) whatever the destination type, sizes and
//! sample counts (`resinfo`, `sampleinfo`, `ld_mcs`) small powers of two.

use eubatch_ir::message::sampler::{self as msg, lower, Desc, Param, ParamType};
use eubatch_ir::{Inst, Operand, RegFile, Shader, Type};

use crate::inputs::mix;
use crate::state::Thread;
use crate::value::{decode, encode};
use crate::SimError;

/// Component `comp` of the response to a message with `params` (one channel's words).
///
/// `ld` and `ld_lz` fetch memory: component c of the element at `u` is the constant-buffer
/// word at byte `u + 4c` of the surface (other parameters, when not 0, move the address),
/// the words pull-constant loads read. Mesa lowers `varying_pull_const` to such an `ld` on a
/// buffer surface whose `u` is the byte offset (brw_fs.cpp `VARYING_PULL_CONSTANT_LOAD`),
/// so both read the same buffer.
pub fn texel(
    seed: u64,
    surface: u32,
    sampler: u32,
    msg_type: u32,
    header_bits: u32,
    params: &[u32],
    comp: u32,
) -> u32 {
    // Parameters a message leaves out are zero to the sampler (PRM Vol. 2d "Message
    // Payload": the message length says which are sent), so trailing zeros count for
    // nothing: Mesa 25 sends a 2D coordinate whose v is 0 as u alone, and eubatch leaves
    // trailing zero parameters out of any message (`zero_samples`).
    let sent = params.iter().rposition(|&p| p != 0).map_or(0, |i| i + 1);
    if matches!(msg_type, msg::msg::LD | msg::msg::LD_LZ) {
        let u = params.first().copied().unwrap_or(0) as u64;
        let rest = params[..sent]
            .iter()
            .skip(1)
            .fold(0u64, |h, &p| mix(h ^ p as u64));
        let byte = u.wrapping_add(4 * comp as u64).wrapping_add(rest << 20);
        return crate::inputs::word(
            seed,
            crate::inputs::Space::Constant,
            (surface as u64) << 32 | (byte / 4 & 0xffff_ffff),
        );
    }
    let mut h = mix(seed ^ mix((surface as u64) << 32 | sampler as u64) ^ (msg_type as u64) << 48);
    if header_bits != 0 {
        h = mix(h ^ (header_bits as u64) << 8);
    }
    for (k, &p) in params[..sent].iter().enumerate() {
        // Every NaN is the same coordinate: payloads differ between equivalent
        // computations (see `first_difference`).
        let p = if p & 0x7f80_0000 == 0x7f80_0000 && p & 0x007f_ffff != 0 {
            0x7fc0_0000
        } else {
            p
        };
        h = mix(h ^ p as u64 ^ (k as u64) << 40);
    }
    let r = mix(h ^ comp as u64);
    if msg::returns_integers(msg_type) {
        1u32 << (4 + r % 8)
    } else {
        ((r >> 40) as f32 / (1u32 << 24) as f32).to_bits()
    }
}

/// Executes a logical sampler message for the `enabled` channels.
pub fn sample(shader: &Shader, t: &mut Thread, inst: Inst, enabled: u32) -> Result<(), SimError> {
    let op = shader.insts.opcode[inst];
    let srcs = shader.srcs(inst);
    let lowered = lower(op, srcs, shader.target)
        .map_err(|m| SimError::at(inst, format!("sampler message not modelled yet: {m}")))?;
    if lowered.params.contains(&Param::Unused) {
        return Err(SimError::at(
            inst,
            "sampler messages with a minimum LOD (padded payloads) are not modelled yet",
        ));
    }
    let gather = msg::is_gather(op);
    let header_bits = match shader.send_info(inst).and_then(|s| s.header_bits) {
        Some(b) => b,
        None if gather => return Err(SimError::at(
            inst,
            "a gather whose channel is not known (header bits not recovered from the final code)",
        )),
        None => 0,
    };
    let ctl = shader.insts.control[inst];
    let exec = ctl.exec_size as u32;
    let dst = shader.insts.dst[inst];
    let comp_bytes = exec * dst.ty.size();
    let comps = if dst.is_null() {
        0
    } else {
        shader.insts.size_written[inst] / comp_bytes.max(1)
    };
    let mut results = Vec::new();
    let mut params = Vec::with_capacity(lowered.params.len());
    for i in 0..exec {
        if enabled & (1 << (ctl.group as u32 + i)) == 0 {
            continue;
        }
        // Surface and sampler: immediates, or per-channel values (dynamic indexing).
        let mut index = |k: usize| -> Result<u32, SimError> {
            let s = &srcs[k];
            if s.file == RegFile::Imm {
                Ok(s.imm_bits() as u32)
            } else if s.is_bad() {
                Ok(0)
            } else {
                t.read(s, i)
                    .map(|v| v as u32)
                    .map_err(|e| e.with_inst(inst))
            }
        };
        let surface = index(msg::src::SURFACE)?;
        let sampler = index(msg::src::SAMPLER)?;
        params.clear();
        for p in &lowered.params {
            params.push(match *p {
                Param::Src { src, comp, ty } => {
                    let s = srcs[src];
                    let mut o = s;
                    if s.file != RegFile::Imm {
                        o.offset += comp * exec * s.ty.size() * (s.stride.max(1) as u32);
                    }
                    let bits = t.read(&o, i).map_err(|e| e.with_inst(inst))?;
                    match ty {
                        // The lowering's MOV into a float payload converts.
                        ParamType::Float => encode(Type::F, decode(s.ty, bits), false) as u32,
                        ParamType::Int => bits as u32,
                    }
                }
                Param::Zero | Param::Unused => 0,
            });
        }
        for c in 0..comps {
            results.push((
                c,
                i,
                texel(
                    t.seed,
                    surface,
                    sampler,
                    lowered.msg_type,
                    header_bits,
                    &params,
                    c,
                ),
            ));
        }
    }
    for (c, i, bits) in results {
        let mut d = dst;
        d.offset += c * comp_bytes;
        t.write(&d, i, bits as u64).map_err(|e| e.with_inst(inst))?;
    }
    Ok(())
}

/// Executes a raw sampler `send`: `regs` are its payload registers, `desc` its descriptor.
pub fn sample_raw(
    shader: &Shader,
    t: &mut Thread,
    inst: Inst,
    enabled: u32,
    regs: &[Operand],
    desc: u32,
) -> Result<(), SimError> {
    let fail = |m: String| SimError::at(inst, m);
    let d = Desc::decode(desc);
    let per_param = match d.simd_mode {
        msg::SIMD8 => 1,
        msg::SIMD16 => 2,
        m => return Err(fail(format!("sampler SIMD mode {m} is not modelled yet"))),
    };
    let ctl = shader.insts.control[inst];
    let exec = ctl.exec_size as u32;
    let dword = |t: &mut Thread, reg: Operand, lane: u32| -> Result<u32, SimError> {
        let o = crate::hw_message::element(&reg, lane * 4, Type::UD);
        t.read(&o, 0)
            .map(|v| v as u32)
            .map_err(|e| e.with_inst(inst))
    };
    let mut body = regs;
    // Components the response leaves out (header dword 2 bits 15:12, 1 = not written).
    let mut skip_mask = 0u32;
    let mut sampler = d.sampler;
    let mut header_bits = 0u32;
    if eubatch_ir::message::header_present(desc) {
        let h2 = dword(t, regs[0], 2)?;
        skip_mask = (h2 >> 12) & 0xf;
        header_bits = h2 & !msg::HEADER_RESPONSE_MASK;
        // Samplers past 15: the header's Sampler State Pointer (dword 3) is g0's moved on
        // by 16 sampler states (16 bytes each) per 16 samplers (Mesa `is_high_sampler`).
        let h3 = dword(t, regs[0], msg::HEADER_SAMPLER_STATE_DWORD)?;
        let g0_3 = t
            .read(
                &Operand::fixed(
                    0,
                    4 * msg::HEADER_SAMPLER_STATE_DWORD,
                    Type::UD,
                    eubatch_ir::Region::new(0, 1, 0),
                ),
                0,
            )
            .map_err(|e| e.with_inst(inst))? as u32;
        sampler = msg::sampler_from_header(h3, g0_3, d.sampler).ok_or_else(|| {
            fail("a sampler header whose Sampler State Pointer selects no sampler 0-255 from the thread's".into())
        })?;
        body = &regs[1..];
    }
    if body.len() % per_param != 0 {
        return Err(fail(format!(
            "a sampler payload of {} registers in SIMD mode {}",
            body.len(),
            d.simd_mode
        )));
    }
    let n_params = body.len() / per_param;
    let dst = shader.insts.dst[inst];
    let rlen = eubatch_ir::message::rlen(desc) as usize;
    let written: Vec<u32> = (0..4).filter(|c| skip_mask & (1 << c) == 0).collect();
    let mut results = Vec::new();
    let mut params = Vec::with_capacity(n_params);
    for i in 0..exec {
        if enabled & (1 << (ctl.group as u32 + i)) == 0 {
            continue;
        }
        params.clear();
        for k in 0..n_params {
            let reg = body[k * per_param + (i / 8) as usize];
            params.push(dword(t, reg, i % 8)?);
        }
        for (slot, &c) in written.iter().enumerate() {
            let reg_index = slot * per_param + (i / 8) as usize;
            if reg_index >= rlen || dst.is_null() {
                continue;
            }
            let bits = texel(
                t.seed,
                d.surface,
                sampler,
                d.msg_type,
                header_bits,
                &params,
                c,
            );
            results.push((
                crate::hw_message::nth_register(&dst, reg_index as u32, shader.reg_size()),
                i % 8,
                bits,
            ));
        }
    }
    for (reg, lane, bits) in results {
        let o = crate::hw_message::element(&reg, lane * 4, Type::UD);
        t.write(&o, 0, bits as u64).map_err(|e| e.with_inst(inst))?;
    }
    Ok(())
}
