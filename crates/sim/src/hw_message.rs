//! Raw `send`s of register-allocated code: the message is decoded from its shared function
//! (SFID) and descriptor, the payload read from the registers the instruction names (`mlen`
//! registers from the first source, `ex_mlen` from the second of a split send), and the
//! effect recorded in the same form as the logical opcode the message came from, so a
//! logical shader and its final code produce comparable outputs.
//!
//! Modelled so far:
//! - URB SIMD8 reads and writes (SFID 6; [`eubatch_ir::message::urb`]): modelled by
//!   [`crate::urb`] as the logical messages are, so both give the same reads and records.
//! - Render target writes (SFID 5, message type 12) of colour only, SIMD8 and SIMD16:
//!   recorded per channel as `fb_write` with R, G, B, A, as `fb_write_logical` records them.
//!
//! - Constant-cache OWord block reads (SFID 9): consecutive words of the constant buffer,
//!   the words `uniform_pull_const` reads.
//! - Scratch OWord block reads and writes (SFID 10, stateless): register spills and fills.
//! - Sampler messages (SFID 2): decoded with [`eubatch_ir::message::sampler`] and answered
//!   by [`crate::sampler::texel`], the function logical texturing uses.
//!
//! Anything else stops the run with "not modelled yet".

use eubatch_ir::{Inst, Operand, RegFile, Shader, Type};

use crate::state::Thread;
use crate::{Outputs, Record, SimError};

use eubatch_ir::message::sfid::{
    CONSTANT_CACHE as SFID_CONSTANT, DATA_CACHE as SFID_DATA, RENDER_CACHE as SFID_RENDER,
    SAMPLER as SFID_SAMPLER, URB as SFID_URB,
};

/// Data-cache message types (descriptor bits 18:14; brw_eu_defines.h
/// `GFX7_DATAPORT_DC_OWORD_BLOCK_READ` / `_WRITE`).
const DC_OWORD_BLOCK_READ: u32 = 0;
const DC_OWORD_BLOCK_WRITE: u32 = 8;
/// Binding table indices of stateless (scratch) accesses (`GFX8_BTI_STATELESS_*`).
const BTI_STATELESS: [u32; 2] = [253, 255];

use eubatch_ir::message::constant_cache::OWORD_BLOCK_READ;
use eubatch_ir::message::memory::UNALIGNED_OWORD_BLOCK_READ;
use eubatch_ir::message::render_target::WRITE as RT_WRITE;

/// Executes a raw send for the `enabled` channels. Returns true at the end of the thread.
pub fn send(
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
    let ctl = shader.insts.control[inst];
    let srcs = shader.srcs(inst);
    let fail = |m: String| SimError::at(inst, m);
    // Payload registers, in order: the first source's mlen, then the second's ex_mlen.
    let mut regs: Vec<Operand> = Vec::new();
    let reg_of = |op: Option<&Operand>, what: &str| -> Result<Operand, SimError> {
        match op {
            Some(o) if o.file == RegFile::FixedGrf && o.offset == 0 => Ok(*o),
            Some(o) if o.file == RegFile::Vgrf && o.offset % 32 == 0 => Ok(*o),
            _ => Err(SimError::at(
                inst,
                format!("a send's {what} must start at a register (fixed or virtual)"),
            )),
        }
    };
    // A descriptor in the address register is ORed into the immediate one (Mesa's
    // `brw_send_indirect_message`); its lengths then come from it.
    let mut info = info;
    if let Some(a0) = srcs
        .iter()
        .find(|s| s.file == RegFile::Arf && s.nr == eubatch_ir::operand::arf::ADDRESS)
    {
        let mut o = *a0;
        o.ty = Type::UD;
        info.desc |= t.read(&o, 0).map_err(|e| e.with_inst(inst))? as u32;
        info.mlen = eubatch_ir::message::mlen(info.desc) as u8;
        info.header_size = eubatch_ir::message::header_present(info.desc) as u8;
    }
    // Before register allocation the descriptor source may be a register (a scalar: Mesa's
    // `component(desc, 0)`), ORed into the instruction's descriptor the same way.
    if let Some(&d) = eubatch_ir::message::descriptor_register(srcs) {
        let mut d = d;
        d.ty = Type::UD;
        info.desc |= t.read(&d, 0).map_err(|e| e.with_inst(inst))? as u32;
    }
    let (payload, payload2) = eubatch_ir::message::send_payloads(srcs);
    let src0 = reg_of(payload, "payload")?;
    regs.extend((0..info.mlen as u32).map(|k| nth_register(&src0, k)));
    if info.ex_mlen > 0 {
        let src1 = reg_of(payload2, "second payload")?;
        regs.extend((0..info.ex_mlen as u32).map(|k| nth_register(&src1, k)));
    }
    let exec = ctl.exec_size as u32;
    let group = ctl.group as u32;
    match info.sfid {
        SFID_URB => {
            use eubatch_ir::message::urb;
            let d = urb::decode(info.desc);
            if exec != 8 || !matches!(d.opcode, urb::SIMD8_WRITE | urb::SIMD8_READ) {
                return Err(fail(format!(
                    "URB message opcode {} at execution size {exec} is not modelled",
                    d.opcode
                )));
            }
            let header = urb::header_regs(d.per_slot, d.channel_mask) as usize;
            if regs.len() < header {
                return Err(fail("a URB message shorter than its header".into()));
            }
            let handle = regs[0];
            let per_slot = d.per_slot.then(|| regs[1]);
            let read = d.opcode == urb::SIMD8_READ;
            let rlen = eubatch_ir::message::rlen(info.desc);
            let dst = shader.insts.dst[inst];
            let mut results = Vec::new();
            for i in 0..exec {
                let ch = group + i;
                if enabled & (1 << ch) == 0 {
                    continue;
                }
                // The payload's registers hold one dword per channel.
                let hop = element(&handle, i * 4, Type::UD);
                let pop = per_slot.map(|p| element(&p, i * 4, Type::UD));
                let (h, slot) = crate::urb::slot(t, inst, &hop, pop.as_ref(), d.offset, 0)?;
                if read {
                    for r in 0..rlen {
                        results.push((r, i, crate::urb::input(t.seed, h, slot, r)));
                    }
                    continue;
                }
                let mask = if d.channel_mask {
                    let m = element(&regs[header - 1], i * 4, Type::UD);
                    Some(t.read(&m, 0).map_err(|e| e.with_inst(inst))? as u32)
                } else {
                    None
                };
                let mut values = Vec::new();
                for r in &regs[header..] {
                    let op = element(r, i * 4, Type::UD);
                    values.push(t.read(&op, 0).map_err(|e| e.with_inst(inst))?);
                }
                crate::urb::record(out, ch, slot, mask, values, 0);
            }
            for (r, i, w) in results {
                let op = element(&nth_register(&dst, r), i * 4, Type::UD);
                t.write(&op, 0, w as u64).map_err(|e| e.with_inst(inst))?;
            }
            Ok(ctl.eot())
        }
        SFID_RENDER if (info.desc >> 14) & 0xf == RT_WRITE => {
            // Render target write (PRM Vol. 2d "Render Target Write"; Mesa's
            // lower_fb_write_logical_send): message subtype in bits 10:8 (0 SIMD16 single
            // source, 2/3 SIMD8 dual source low/high, 4 SIMD8 single source), header in
            // bit 19. The payload, in order: the header (2 registers), source-0 alpha (a
            // register per 8 channels), oMask (one register of 16-bit values), colour 0
            // (R, G, B, A, a register per 8 channels each), colour 1 (dual source), source
            // depth, stencil (8-bit, SIMD8). Which of these are present is pipeline state,
            // taken from the logical shader ([`crate::layout::FbLayout`]).
            let subtype = (info.desc >> 8) & 7;
            let (per, dual) = match subtype {
                0 => (2usize, false),
                2 | 3 => (1, true),
                4 => (1, false),
                _ => {
                    return Err(fail(format!(
                        "render target write subtype {subtype} is not modelled yet"
                    )))
                }
            };
            // Without the logical shader's outputs (final code run alone), colour only.
            let fb = t.fb.clone().unwrap_or(crate::layout::FbLayout {
                components: 4,
                color1: dual,
                ..Default::default()
            });
            if dual != fb.color1 {
                return Err(fail(
                    "dual-source write against a single-source shader".into(),
                ));
            }
            // Register index of each part.
            let mut at = 2 * ((info.desc >> 19) & 1) as usize;
            let mut take = |n: usize| {
                let start = at;
                at += n;
                start
            };
            let alpha = fb.src0_alpha.then(|| take(per));
            let omask = fb.omask.then(|| take(1));
            let color0 = take(4 * per);
            let color1 = fb.color1.then(|| take(4 * per));
            let depth = fb.src_depth.then(|| take(per));
            let stencil = fb.src_stencil.then(|| take(1));
            if at != regs.len() {
                return Err(fail(format!(
                    "a render target write of {} registers where the shader's outputs take {at}",
                    regs.len()
                )));
            }
            let dword = |t: &mut Thread, reg: Operand, byte: u32| -> Result<u64, SimError> {
                t.read(&element(&reg, byte, Type::UD), 0)
                    .map_err(|e| e.with_inst(inst))
            };
            for i in 0..exec {
                let ch = group + i;
                if enabled & (1 << ch) == 0 {
                    continue;
                }
                let (row, lane) = ((i / 8) as usize, (i % 8) * 4);
                let mut values = Vec::new();
                for base in [Some(color0), color1].into_iter().flatten() {
                    for c in 0..fb.components as usize {
                        values.push(dword(t, regs[base + c * per + row], lane)?);
                    }
                }
                for base in [alpha, depth].into_iter().flatten() {
                    values.push(dword(t, regs[base + row], lane)?);
                }
                if let Some(s) = stencil {
                    values.push(dword(t, regs[s], i)? & 0xff);
                }
                if let Some(m) = omask {
                    values.push(dword(t, regs[m], (ch % 16) * 2)? & 0xffff);
                }
                out.records.push(Record {
                    message: "fb_write".into(),
                    channel: ch,
                    values,
                    undefined: 0,
                });
            }
            Ok(ctl.eot())
        }
        SFID_CONSTANT
            if matches!(
                (info.desc >> 14) & 0xf,
                OWORD_BLOCK_READ | UNALIGNED_OWORD_BLOCK_READ
            ) =>
        {
            // Constant-cache OWord block read (PRM Vol. 2d "OWord Block Read"; Mesa's
            // uniform pull-constant load, and Mesa 25's constant block `memory_load`): the
            // header's dword 2 is the offset in OWords (16 bytes), or in bytes for the
            // unaligned read; the surface is descriptor bits 7:0, the block size bits 10:8;
            // the response is consecutive dwords of the buffer, for all channels.
            let header = *regs
                .first()
                .ok_or_else(|| fail("a block read without its header".into()))?;
            let h2 = element(&header, 8, Type::UD);
            let h2 = t.read(&h2, 0).map_err(|e| e.with_inst(inst))?;
            let offset = if (info.desc >> 14) & 0xf == OWORD_BLOCK_READ {
                h2 * 16
            } else {
                h2
            };
            if offset % 4 != 0 {
                return Err(fail(format!(
                    "a constant block read at byte {offset} (not dword-aligned) is not modelled"
                )));
            }
            let dwords = match (info.desc >> 8) & 7 {
                0 => 4,
                2 => 8,
                3 => 16,
                4 => 32,
                n => return Err(fail(format!("OWord block size {n} is not modelled"))),
            };
            let surface = (info.desc & 0xff) as u64;
            let dst = shader.insts.dst[inst];
            let rlen = eubatch_ir::message::rlen(info.desc);
            if !matches!(dst.file, RegFile::FixedGrf | RegFile::Vgrf) {
                return Err(fail("a block read into a non-register".into()));
            }
            for k in 0..dwords.min(rlen * 8) {
                let w = crate::inputs::word(
                    t.seed,
                    crate::inputs::Space::Constant,
                    surface << 32 | (offset / 4 + k as u64),
                );
                let o = element(&nth_register(&dst, k / 8), (k % 8) * 4, Type::UD);
                t.write(&o, 0, w as u64).map_err(|e| e.with_inst(inst))?;
            }
            Ok(ctl.eot())
        }
        SFID_DATA
            if BTI_STATELESS.contains(&(info.desc & 0xff))
                && matches!(
                    (info.desc >> 14) & 0x1f,
                    DC_OWORD_BLOCK_READ | DC_OWORD_BLOCK_WRITE
                ) =>
        {
            // Scratch (register spills and fills, brw_fs_generator.cpp
            // `generate_scratch_write` / `_read`): OWord block messages whose header dword 2
            // is the offset in OWords and whose size is in bits 10:8 (0: one low OWord, 1:
            // one high, 2: two, 3: four, 4: eight). Thread-private memory, not an output.
            let header = *regs
                .first()
                .ok_or_else(|| fail("a block message without its header".into()))?;
            let h2 = element(&header, 8, Type::UD);
            let base = t.read(&h2, 0).map_err(|e| e.with_inst(inst))? * 16;
            let (skip, owords) = match (info.desc >> 8) & 7 {
                0 => (0u64, 1u64),
                1 => (16, 1),
                2 => (0, 2),
                3 => (0, 4),
                4 => (0, 8),
                n => return Err(fail(format!("OWord block size {n} is not modelled"))),
            };
            let byte_reg = |t: &mut Thread, reg: Operand, k: u64| -> Result<u64, SimError> {
                t.read(&element(&reg, (k % 32) as u32, Type::UB), 0)
                    .map_err(|e| e.with_inst(inst))
            };
            if (info.desc >> 14) & 0x1f == DC_OWORD_BLOCK_WRITE {
                let data = &regs[1..];
                for k in 0..owords * 16 {
                    let reg = *data
                        .get((k / 32) as usize)
                        .ok_or_else(|| fail("a block write shorter than its size".into()))?;
                    let v = byte_reg(t, reg, k)? as u8;
                    t.scratch.insert(base + skip + k, v);
                }
            } else {
                let dst = shader.insts.dst[inst];
                for k in 0..owords * 16 {
                    let v = t.scratch.get(&(base + skip + k)).copied().unwrap_or(0);
                    let o = element(
                        &nth_register(&dst, (k / 32) as u32),
                        (k % 32) as u32,
                        Type::UB,
                    );
                    t.write(&o, 0, v as u64).map_err(|e| e.with_inst(inst))?;
                }
            }
            Ok(ctl.eot())
        }
        sfid if eubatch_ir::message::surface::decode(sfid, info.desc).is_some() => {
            // Untyped surface and byte-scattered reads and writes (the memory model of the
            // logical messages, crate::memory): the addresses (a register per 8 channels),
            // then for writes each component's data.
            let (shape, width) = eubatch_ir::message::surface::decode(sfid, info.desc)
                .ok_or_else(|| fail("not a surface message".into()))?;
            if width != exec {
                return Err(fail(format!(
                    "a SIMD{width} surface message at execution size {exec}"
                )));
            }
            let per = exec.div_ceil(8) as usize;
            let need = per * (1 + if shape.write { shape.comps as usize } else { 0 });
            if regs.len() < need {
                return Err(fail(format!(
                    "a surface message payload of {} registers ({need} needed)",
                    regs.len()
                )));
            }
            let surface = (info.desc & 0xff) as u64;
            let dst = shader.insts.dst[inst];
            let reg_dword = |t: &mut Thread, r: usize, i: u32| -> Result<u64, SimError> {
                t.read(&element(&regs[r], (i % 8) * 4, Type::UD), 0)
                    .map_err(|e| e.with_inst(inst))
            };
            let reads = crate::memory::run(
                t,
                (group, exec),
                enabled,
                shape,
                out,
                |_, _| Ok(surface),
                |t, i| reg_dword(t, (i / 8) as usize, i),
                |t, k, i| reg_dword(t, per * (1 + k as usize) + (i / 8) as usize, i),
            )?;
            if !dst.is_null() {
                for (k, i, v) in reads {
                    let reg = nth_register(&dst, k * per as u32 + i / 8);
                    t.write(&element(&reg, (i % 8) * 4, Type::UD), 0, v)
                        .map_err(|e| e.with_inst(inst))?;
                }
            }
            Ok(ctl.eot())
        }
        SFID_SAMPLER => {
            crate::sampler::sample_raw(shader, t, inst, enabled, &regs, info.desc)?;
            Ok(ctl.eot())
        }
        sfid => Err(fail(format!(
            "raw send to shared function {sfid} (descriptor {:#010x}) is not modelled yet",
            info.desc
        ))),
    }
}

/// Register `k` of the run of registers starting at `base` (a whole fixed register, or a
/// VGRF at a register boundary: a send's payload before register allocation).
pub fn nth_register(base: &Operand, k: u32) -> Operand {
    let mut o = *base;
    match base.file {
        RegFile::FixedGrf => o.nr += k,
        _ => o.offset += 32 * k,
    }
    o
}

/// The element of `ty` at `byte` of the register `reg` (from [`nth_register`]), read or
/// written as a scalar.
pub fn element(reg: &Operand, byte: u32, ty: Type) -> Operand {
    match reg.file {
        RegFile::FixedGrf => Operand::fixed(
            reg.nr,
            reg.offset + byte,
            ty,
            eubatch_ir::Region::new(0, 1, 0),
        ),
        _ => Operand::vgrf(reg.nr, reg.offset + byte, ty, 0),
    }
}
