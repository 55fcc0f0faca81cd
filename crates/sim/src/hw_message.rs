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
//! - Surface messages (SFID 10, 12, and 5 for Ivy Bridge's typed ones): untyped, scattered
//!   and typed reads and writes, untyped and typed atomics, decoded with
//!   [`eubatch_ir::message::surface`], [`eubatch_ir::message::typed`] and
//!   [`eubatch_ir::message::atomic`] and run on [`crate::memory`], as the logical ones;
//!   A64 reads, writes and atomics ([`eubatch_ir::message::a64`]) likewise.
//!
//! Anything else stops the run with "not modelled yet".

use eubatch_ir::shader::SendInfo;
use eubatch_ir::{Inst, Operand, RegFile, Shader, Type};

use crate::state::Thread;
use crate::{Outputs, Record, SimError};

use eubatch_ir::message::sfid::{
    CONSTANT_CACHE as SFID_CONSTANT, DATA_CACHE as SFID_DATA, GATEWAY as SFID_GATEWAY,
    PIXEL_INTERP as SFID_PIXEL_INTERP, RENDER_CACHE as SFID_RENDER, SAMPLER as SFID_SAMPLER,
    THREAD_SPAWNER as SFID_THREAD_SPAWNER, URB as SFID_URB,
};

use eubatch_ir::message::constant_cache::OWORD_BLOCK_READ;
use eubatch_ir::message::memory::UNALIGNED_OWORD_BLOCK_READ;
use eubatch_ir::message::render_target::WRITE as RT_WRITE;

/// A raw send being executed: its descriptor (with any register part ORed in) and its
/// payload, one operand per register.
struct RawSend {
    inst: Inst,
    info: SendInfo,
    regs: Vec<Operand>,
    dst: Operand,
    /// Bytes per register on the target: the payload's and the response's unit.
    reg_size: u32,
    exec: u32,
    group: u32,
    /// Channels the execution mask and the predicate enable.
    enabled: u32,
}

impl RawSend {
    fn fail(&self, m: impl Into<String>) -> SimError {
        SimError::at(self.inst, m)
    }

    /// The send's channels (0..exec, counted from its group) that are enabled, in order.
    fn channels(&self) -> impl Iterator<Item = u32> {
        let (group, enabled) = (self.group, self.enabled);
        (0..self.exec).filter(move |i| enabled & (1 << (group + i)) != 0)
    }

    fn read(&self, t: &mut Thread, op: &Operand) -> Result<u64, SimError> {
        t.read(op, 0).map_err(|e| e.with_inst(self.inst))
    }

    fn write(&self, t: &mut Thread, op: &Operand, bits: u64) -> Result<(), SimError> {
        t.write(op, 0, bits).map_err(|e| e.with_inst(self.inst))
    }

    /// The message type field of a dataport descriptor (bits 17:14; the data cache's
    /// reaches bit 18, see [`scratch_block`]).
    fn message_type(&self) -> u32 {
        (self.info.desc >> 14) & 0xf
    }

    /// The five-bit message type of the gen8+ descriptor (bits 18:14): the memory fence's
    /// (7) on gen7 too, where bit 18 is zero for it.
    fn message_type_5(&self) -> u32 {
        (self.info.desc >> 14) & 0x1f
    }
}

/// Executes a raw send for the `enabled` channels, by its shared function and message
/// type. Returns true at the end of the thread.
pub fn send(
    shader: &Shader,
    t: &mut Thread,
    inst: Inst,
    enabled: u32,
    out: &mut Outputs,
) -> Result<bool, SimError> {
    let m = decode_send(shader, t, inst, enabled)?;
    let (sfid, desc) = (m.info.sfid, m.info.desc);
    match sfid {
        SFID_URB => urb(&m, t, out)?,
        SFID_RENDER if m.message_type() == RT_WRITE => render_target_write(&m, t, out)?,
        SFID_CONSTANT
            if matches!(
                m.message_type(),
                OWORD_BLOCK_READ | UNALIGNED_OWORD_BLOCK_READ
            ) =>
        {
            constant_block_read(&m, t)?
        }
        SFID_DATA if eubatch_ir::message::scratch::is_scratch_block(desc) => scratch_block(&m, t)?,
        SFID_DATA if desc >> 17 & 3 == 2 => gfx7_scratch_read(&m, t)?,
        sfid if eubatch_ir::message::surface::decode(sfid, desc).is_some() => {
            let (shape, width) = eubatch_ir::message::surface::decode(sfid, desc).unwrap();
            surface_access(&m, t, out, DataPort::Access(shape), width, 0)?
        }
        sfid if eubatch_ir::message::typed::decode(sfid, desc).is_some() => {
            let (shape, half) = eubatch_ir::message::typed::decode(sfid, desc).unwrap();
            surface_access(&m, t, out, DataPort::Access(shape), 8, half)?
        }
        sfid if eubatch_ir::message::block::decode(sfid, desc).is_some() => {
            let b = eubatch_ir::message::block::decode(sfid, desc).unwrap();
            block_access(&m, t, out, b)?
        }
        sfid if eubatch_ir::message::a64::decode(sfid, desc).is_some() => {
            let (msg, width) = eubatch_ir::message::a64::decode(sfid, desc).unwrap();
            a64_access(&m, t, out, msg, width)?
        }
        sfid if eubatch_ir::message::atomic::decode(sfid, desc).is_some() => {
            let (a, width, half) = eubatch_ir::message::atomic::decode(sfid, desc).unwrap();
            surface_access(&m, t, out, DataPort::Atomic(a), width, half)?
        }
        SFID_SAMPLER => crate::sampler::sample_raw(shader, t, inst, enabled, &m.regs, desc)?,
        SFID_PIXEL_INTERP => pixel_interpolator_query(&m, t)?,
        // A compute thread's end: the message only tells the thread spawner the thread is
        // done (its payload is g0's header); nothing observable happens but the end.
        SFID_THREAD_SPAWNER if shader.insts.control[inst].eot() => {}
        // A barrier message to the gateway (descriptor bits 2:0, `BRW_MESSAGE_GATEWAY_SFID_
        // BARRIER_MSG`): the one thread simulated waits for no other.
        SFID_GATEWAY if desc & 7 == GATEWAY_BARRIER => {}
        // A memory fence (`brw_set_memory_fence_message`): memory is the thread's own, so
        // nothing to order; the commit write-back (one register when asked for) carries no
        // value (Mesa only waits on it), written as zeros.
        SFID_DATA | SFID_RENDER if m.message_type_5() == MEMORY_FENCE => memory_fence(&m, t)?,
        // Shared function 0 is the null function (BRW_SFID_NULL): a send there with no
        // descriptor is one whose descriptor the dump did not print (Mesa 22.3 prints
        // neither for a pre-RA `send`), so what it does is unknown.
        0 if desc == 0 => {
            return Err(m.fail(
                "a send without its message descriptor (Mesa's pre-RA dumps do not print it)",
            ))
        }
        sfid => {
            return Err(m.fail(format!(
                "raw send to shared function {sfid} (descriptor {desc:#010x}) is not modelled yet"
            )))
        }
    }
    Ok(shader.insts.control[inst].eot())
}

/// Gen7's scratch block read (descriptor bit 18 the scratch category, bit 17 clear: a
/// read; brw_eu_emit.c `gfx7_block_read_scratch`): the response's registers from the
/// thread's scratch space at the descriptor's offset (bits 11:0, in registers), whole
/// registers whatever the channels.
fn gfx7_scratch_read(m: &RawSend, t: &mut Thread) -> Result<(), SimError> {
    let desc = m.info.desc;
    let reg_size = m.reg_size as u64;
    let base = (desc & 0xfff) as u64 * reg_size;
    let regs = ((desc >> 20) & 0x1f) as u64;
    scratch_to_response(m, t, base, regs * reg_size)
}

/// The response's first `bytes` bytes from the thread's scratch space at `base`, defined
/// where scratch was written.
fn scratch_to_response(m: &RawSend, t: &mut Thread, base: u64, bytes: u64) -> Result<(), SimError> {
    let reg_size = m.reg_size as u64;
    for k in 0..bytes {
        let (v, defined) = t
            .scratch
            .get(&(base + k))
            .copied()
            .unwrap_or((crate::state::FRESH_BYTE, false));
        let o = element(
            &nth_register(&m.dst, (k / reg_size) as u32, m.reg_size),
            (k % reg_size) as u32,
            Type::UB,
        );
        t.write_copy(&o, 0, v as u64, defined)
            .map_err(|e| e.with_inst(m.inst))?;
    }
    Ok(())
}

/// `BRW_MESSAGE_GATEWAY_SFID_BARRIER_MSG` (brw_eu_defines.h).
const GATEWAY_BARRIER: u32 = 4;
/// `GFX7_DATAPORT_DC_MEMORY_FENCE` and `GFX7_DATAPORT_RC_MEMORY_FENCE` (brw_eu_defines.h).
const MEMORY_FENCE: u32 = 7;

/// A memory fence's write-back: its response registers, zeros.
fn memory_fence(m: &RawSend, t: &mut Thread) -> Result<(), SimError> {
    let rlen = (m.info.desc >> 20) & 0x1f;
    if m.dst.is_null() {
        return Ok(());
    }
    for r in 0..rlen {
        let reg = nth_register(&m.dst, r, m.reg_size);
        for k in 0..m.reg_size / 4 {
            m.write(t, &element(&reg, k * 4, Type::UD), 0)?;
        }
    }
    Ok(())
}

/// The send's descriptor, with any part in a register ORed in, and its payload registers in
/// order: the first source's `mlen`, then the second's `ex_mlen`.
fn decode_send(
    shader: &Shader,
    t: &mut Thread,
    inst: Inst,
    enabled: u32,
) -> Result<RawSend, SimError> {
    let mut info = shader
        .send_info(inst)
        .copied()
        .ok_or_else(|| SimError::at(inst, "send without a descriptor"))?;
    let ctl = shader.insts.control[inst];
    let srcs = shader.srcs(inst);
    let reg_size = shader.reg_size();
    let reg_of = |op: Option<&Operand>, what: &str| -> Result<Operand, SimError> {
        match op {
            Some(o) if o.file == RegFile::FixedGrf && o.offset == 0 => Ok(*o),
            Some(o) if o.file == RegFile::Vgrf && o.offset % reg_size == 0 => Ok(*o),
            _ => Err(SimError::at(
                inst,
                format!("a send's {what} must start at a register (fixed or virtual)"),
            )),
        }
    };
    // A descriptor in the address register is ORed into the immediate one (Mesa's
    // `brw_send_indirect_message`); its lengths then come from it.
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
    let mut regs: Vec<Operand> = (0..info.mlen as u32)
        .map(|k| nth_register(&src0, k, reg_size))
        .collect();
    if info.ex_mlen > 0 {
        let src1 = reg_of(payload2, "second payload")?;
        regs.extend((0..info.ex_mlen as u32).map(|k| nth_register(&src1, k, reg_size)));
    }
    Ok(RawSend {
        inst,
        info,
        regs,
        dst: shader.insts.dst[inst],
        reg_size,
        exec: ctl.exec_size as u32,
        group: ctl.group as u32,
        enabled,
    })
}

/// URB SIMD8 reads and writes ([`eubatch_ir::message::urb`]): the handle (and per-slot
/// offsets) in the header, a dword per channel; a read answers with the previous stage's
/// outputs, a write is recorded as the logical `urb_write` records it ([`crate::urb`]).
fn urb(m: &RawSend, t: &mut Thread, out: &mut Outputs) -> Result<(), SimError> {
    use eubatch_ir::message::urb;
    let d = urb::decode(m.info.desc);
    let exec = m.exec;
    if exec != 8 || !matches!(d.opcode, urb::SIMD8_WRITE | urb::SIMD8_READ) {
        return Err(m.fail(format!(
            "URB message opcode {} at execution size {exec} is not modelled",
            d.opcode
        )));
    }
    let regs = &m.regs;
    let header = urb::header_regs(d.per_slot, d.channel_mask) as usize;
    if regs.len() < header {
        return Err(m.fail("a URB message shorter than its header"));
    }
    let handle = regs[0];
    let per_slot = d.per_slot.then(|| regs[1]);
    let read = d.opcode == urb::SIMD8_READ;
    if !read && regs.len() == header {
        // The header alone writes nothing: the message only ends the thread.
        return Ok(());
    }
    let rlen = eubatch_ir::message::rlen(m.info.desc);
    let mut results = Vec::new();
    for i in m.channels() {
        // The payload's registers hold one dword per channel.
        let hop = element(&handle, i * 4, Type::UD);
        let pop = per_slot.map(|p| element(&p, i * 4, Type::UD));
        let (h, slot) = crate::urb::slot(t, m.inst, &hop, pop.as_ref(), d.offset, 0)?;
        if read {
            for r in 0..rlen {
                results.push((r, i, crate::urb::input(t.seed, h, slot, r)));
            }
            continue;
        }
        let mask = if d.channel_mask {
            let mask = element(&regs[header - 1], i * 4, Type::UD);
            Some(m.read(t, &mask)? as u32)
        } else {
            None
        };
        // Data read from bytes never written is undefined in the record, as the logical
        // write's is (`record_writes`): the pass that put it there may give it any value.
        let mut values = Vec::new();
        let mut undefined = 0u64;
        for (k, r) in regs[header..].iter().enumerate() {
            let (v, defined) = t
                .read_defined(&element(r, i * 4, Type::UD), 0)
                .map_err(|e| e.with_inst(m.inst))?;
            values.push(v);
            if !defined {
                undefined |= 1 << k.min(63);
            }
        }
        crate::urb::record(out, m.group + i, slot, mask, values, undefined);
    }
    for (r, i, w) in results {
        let op = element(&nth_register(&m.dst, r, m.reg_size), i * 4, Type::UD);
        m.write(t, &op, w as u64)?;
    }
    Ok(())
}

/// Render target write (PRM Vol. 2d "Render Target Write"; Mesa's
/// lower_fb_write_logical_send): message subtype in bits 10:8 (0 SIMD16 single source, 2/3
/// SIMD8 dual source low/high, 4 SIMD8 single source), header in bit 19. The payload, in
/// order: the header (2 registers), source-0 alpha (a register per 8 channels), oMask (one
/// register of 16-bit values), colour 0 (R, G, B, A, a register per 8 channels each),
/// colour 1 (dual source), source depth, stencil (8-bit, SIMD8). Which of these are present
/// is pipeline state, taken from the logical shader ([`crate::layout::FbLayout`]).
fn render_target_write(m: &RawSend, t: &mut Thread, out: &mut Outputs) -> Result<(), SimError> {
    let desc = m.info.desc;
    let subtype = (desc >> 8) & 7;
    let (per, dual) = match subtype {
        0 => (2usize, false),
        2 | 3 => (1, true),
        4 => (1, false),
        _ => {
            return Err(m.fail(format!(
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
        return Err(m.fail("dual-source write against a single-source shader"));
    }
    // Register index of each part.
    let mut at = 2 * ((desc >> 19) & 1) as usize;
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
    let regs = &m.regs;
    if at != regs.len() {
        return Err(m.fail(format!(
            "a render target write of {} registers where the shader's outputs take {at}",
            regs.len()
        )));
    }
    let dword = |t: &mut Thread, reg: Operand, byte: u32| m.read(t, &element(&reg, byte, Type::UD));
    // Only lit pixels are written: not helper invocations, not discarded pixels (the
    // header's pixel mask, which Mesa sets from the sample mask when the shader discards).
    let lit = t.sample_mask();
    for i in m.channels().filter(|i| lit & (1 << (m.group + i)) != 0) {
        let ch = m.group + i;
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
        if let Some(o) = omask {
            values.push(dword(t, regs[o], (ch % 16) * 2)? & 0xffff);
        }
        out.records.push(Record {
            message: "fb_write".into(),
            channel: ch,
            values,
            undefined: 0,
        });
    }
    Ok(())
}

/// Pixel interpolator query (SFID 11; [`eubatch_ir::message::pixel_interp`]): the
/// barycentrics of [`crate::pixel_interp`], as the logical `interp_*` instructions get
/// them. The payload of a per-slot offset query is the X offsets, then the Y offsets, a
/// register per 8 channels each; the others send g0, which the interpolator ignores.
fn pixel_interpolator_query(m: &RawSend, t: &mut Thread) -> Result<(), SimError> {
    use eubatch_ir::message::pixel_interp::{response_place, Desc, LOC_PER_SLOT_OFFSET};
    let d = Desc::decode(m.info.desc);
    if d.simd16 != (m.exec == 16) {
        return Err(m.fail(format!(
            "a SIMD{} pixel-interpolator query whose descriptor says SIMD{}",
            m.exec,
            if d.simd16 { 16 } else { 8 }
        )));
    }
    let per = m.exec.div_ceil(8) as usize;
    if d.location == LOC_PER_SLOT_OFFSET && m.regs.len() < 2 * per {
        return Err(m.fail(format!(
            "a per-slot offset query of {} payload registers, {} needed",
            m.regs.len(),
            2 * per
        )));
    }
    let mut results = Vec::new();
    for i in m.channels() {
        let dword =
            |t: &mut Thread, k: usize| m.read(t, &element(&m.regs[k], (i % 8) * 4, Type::UD));
        let offsets = if d.location == LOC_PER_SLOT_OFFSET {
            let r = (i / 8) as usize;
            [dword(t, r)? as u32, dword(t, per + r)? as u32]
        } else {
            [0, 0]
        };
        for comp in 0..2 {
            let bits = crate::pixel_interp::coordinate(
                t.seed,
                d.location,
                d.data,
                offsets,
                m.group + i,
                comp,
            );
            let (reg, byte) = response_place(i, comp);
            let o = element(&nth_register(&m.dst, reg, m.reg_size), byte, Type::UD);
            results.push((o, bits));
        }
    }
    for (o, bits) in results {
        m.write(t, &o, bits as u64)?;
    }
    Ok(())
}

/// Constant-cache OWord block read (PRM Vol. 2d "OWord Block Read"; Mesa's uniform
/// pull-constant load, and Mesa 25's constant block `memory_load`): the header's dword 2 is
/// the offset in OWords (16 bytes), or in bytes for the unaligned read; the surface is
/// descriptor bits 7:0, the block size bits 10:8; the response is consecutive dwords of the
/// buffer, for all channels.
fn constant_block_read(m: &RawSend, t: &mut Thread) -> Result<(), SimError> {
    let desc = m.info.desc;
    let h2 = block_header_dword2(m, t, "a block read without its header")?;
    let offset = if m.message_type() == OWORD_BLOCK_READ {
        h2 * 16
    } else {
        h2
    };
    if offset % 4 != 0 {
        return Err(m.fail(format!(
            "a constant block read at byte {offset} (not dword-aligned) is not modelled"
        )));
    }
    let dwords = match (desc >> 8) & 7 {
        0 => 4,
        2 => 8,
        3 => 16,
        4 => 32,
        n => return Err(m.fail(format!("OWord block size {n} is not modelled"))),
    };
    let surface = (desc & 0xff) as u64;
    let rlen = eubatch_ir::message::rlen(desc);
    if !matches!(m.dst.file, RegFile::FixedGrf | RegFile::Vgrf) {
        return Err(m.fail("a block read into a non-register"));
    }
    let reg_dwords = m.reg_size / 4;
    for k in 0..dwords.min(rlen * reg_dwords) {
        let w = crate::inputs::constant_dword(t.seed, surface, offset / 4 + k as u64);
        let o = element(
            &nth_register(&m.dst, k / reg_dwords, m.reg_size),
            (k % reg_dwords) * 4,
            Type::UD,
        );
        m.write(t, &o, w as u64)?;
    }
    Ok(())
}

/// Scratch (register spills and fills, Mesa 22.3 brw_fs_reg_allocate.cpp `emit_spill` /
/// `emit_unspill` on gen9): data-cache OWord block messages (message type in descriptor
/// bits 18:14) whose header dword 2 is the offset in OWords and whose size is in bits 10:8
/// (0: one low OWord, 1: one high, 2: two, 3: four, 4: eight). Thread-private memory, not
/// an output. A write stores dword `k` of the block only when channel `k % 16` of the
/// message is enabled (or the send is NoMask): the channel enables Mesa's per-channel
/// spills rely on, the upper half of a 32-dword block reusing the lower's
/// (brw_fs_generator.cpp `generate_scratch_write`: "the 32-wide messages only respect the
/// first 16-wide half of the channel enable signals").
fn scratch_block(m: &RawSend, t: &mut Thread) -> Result<(), SimError> {
    use eubatch_ir::message::scratch;
    let desc = m.info.desc;
    let base = block_header_dword2(m, t, "a block message without its header")? * 16;
    let (skip, owords) = match (desc >> 8) & 7 {
        0 => (0u64, 1u64),
        1 => (16, 1),
        2 => (0, 2),
        3 => (0, 4),
        4 => (0, 8),
        n => return Err(m.fail(format!("OWord block size {n} is not modelled"))),
    };
    // Byte k of the block is byte k % reg_size of its register k / reg_size.
    let reg_size = m.reg_size as u64;
    if (desc >> 14) & 0x1f == scratch::OWORD_BLOCK_WRITE {
        let data = &m.regs[1..];
        for k in 0..owords * 16 {
            if m.enabled & (1 << (m.group + (k / 4 % 16) as u32)) == 0 {
                continue;
            }
            let reg = *data
                .get((k / reg_size) as usize)
                .ok_or_else(|| m.fail("a block write shorter than its size"))?;
            let poison = t.poison_reads;
            let v = m.read(t, &element(&reg, (k % reg_size) as u32, Type::UB))? as u8;
            let defined = t.poison_reads == poison;
            t.poison_reads = poison;
            t.scratch.insert(base + skip + k, (v, defined));
        }
    } else {
        scratch_to_response(m, t, base + skip, owords * 16)?;
    }
    Ok(())
}

/// Dword 2 of an OWord block message's header: the block's offset (`missing` when the
/// payload is empty).
fn block_header_dword2(m: &RawSend, t: &mut Thread, missing: &str) -> Result<u64, SimError> {
    let header = *m.regs.first().ok_or_else(|| m.fail(missing))?;
    m.read(t, &element(&header, 8, Type::UD))
}

use crate::memory::Op as DataPort;

/// Surface messages: untyped, scattered and typed reads and writes, untyped and typed
/// atomics (the memory model of the logical messages, [`crate::memory`]), of `width`
/// channels. The payload: a header where the descriptor says so (typed messages before
/// gen9: dword 7 the sample mask, of which the message takes the 8 bits of `half`), the
/// address (a register per 8 channels for each coordinate: one, or an image's, as many as
/// the payload leaves room for), then each component of the data.
fn surface_access(
    m: &RawSend,
    t: &mut Thread,
    out: &mut Outputs,
    what: DataPort,
    width: u32,
    half: u32,
) -> Result<(), SimError> {
    use eubatch_ir::message::surface::Kind;
    let exec = m.exec;
    if width != exec {
        return Err(m.fail(format!(
            "a SIMD{width} surface message at execution size {exec}"
        )));
    }
    let (kind, data_comps) = match &what {
        DataPort::Access(s) => (s.kind, if s.write { s.comps } else { 0 }),
        DataPort::Atomic(a) => (
            if a.kind == eubatch_ir::message::atomic::Kind::Typed {
                Kind::Typed
            } else {
                Kind::Untyped
            },
            a.data_components(),
        ),
    };
    let header =
        (m.info.header_size > 0 || eubatch_ir::message::header_present(m.info.desc)) as usize;
    let per = exec.div_ceil(8) as usize;
    let after_header = m.regs.len().saturating_sub(header);
    // A typed message's coordinates are what the payload holds besides header and data
    // (the image's surface state says how many; the send does not).
    let dims = match kind {
        Kind::Typed => {
            let rest = after_header.saturating_sub(per * data_comps as usize);
            if !rest.is_multiple_of(per) || !(1..=4).contains(&(rest / per)) {
                return Err(m.fail(format!(
                    "a typed message payload of {} registers: no room for 1 to 4 coordinates",
                    m.regs.len()
                )));
            }
            (rest / per) as u32
        }
        _ => 1,
    };
    let need = header + per * (dims + data_comps) as usize;
    if m.regs.len() < need {
        return Err(m.fail(format!(
            "a surface message payload of {} registers ({need} needed)",
            m.regs.len()
        )));
    }
    // The header's sample mask disables the channels it leaves out.
    let mut enabled = m.enabled;
    if eubatch_ir::message::typed::masked_by_header(&m.info) {
        let mask = m.read(
            t,
            &element(
                &m.regs[0],
                4 * eubatch_ir::message::typed::HEADER_SAMPLE_MASK_DWORD,
                Type::UD,
            ),
        )?;
        for i in 0..exec {
            if (mask >> (8 * half + i)) & 1 == 0 {
                enabled &= !(1 << (m.group + i));
            }
        }
    }
    let space = if kind == Kind::Typed {
        crate::memory::TYPED_SPACE
    } else {
        0
    };
    let surface = space + (m.info.desc & 0xff) as u64;
    let reg_dword =
        |t: &mut Thread, r: usize, i: u32| m.read(t, &element(&m.regs[r], (i % 8) * 4, Type::UD));
    let address = |t: &mut Thread, i: u32| {
        crate::memory::address_of(kind, dims, |k| {
            reg_dword(t, header + per * k as usize + (i / 8) as usize, i)
        })
    };
    let data = |t: &mut Thread, k: u32, i: u32| {
        reg_dword(t, header + per * (dims + k) as usize + (i / 8) as usize, i)
    };
    run_dataport(m, t, out, what, enabled, surface, address, data)
}

/// Runs a decoded data-port message on [`crate::memory`] for the `enabled` channels and
/// writes what it answers into the response (a register per 8 channels per component).
#[allow(clippy::too_many_arguments)]
fn run_dataport(
    m: &RawSend,
    t: &mut Thread,
    out: &mut Outputs,
    what: DataPort,
    enabled: u32,
    surface: u64,
    address: impl Fn(&mut Thread, u32) -> Result<u64, SimError>,
    data: impl Fn(&mut Thread, u32, u32) -> Result<u64, SimError>,
) -> Result<(), SimError> {
    let exec = m.exec;
    let reads = crate::memory::run_op(
        t,
        (m.group, exec),
        enabled,
        what,
        out,
        |_, _| Ok(surface),
        address,
        data,
    )?;
    if !m.dst.is_null() {
        let per = exec.div_ceil(8);
        for (k, i, v) in reads {
            let reg = nth_register(&m.dst, k * per + i / 8, m.reg_size);
            m.write(t, &element(&reg, (i % 8) * 4, Type::UD), v)?;
        }
    }
    Ok(())
}

/// A64 reads, writes and atomics ([`eubatch_ir::message::a64`]): the address a qword per
/// channel (two registers per 8 channels), then each component of the data; the memory
/// is [`crate::memory`]'s A64 space, addressed by the whole 64-bit address.
fn a64_access(
    m: &RawSend,
    t: &mut Thread,
    out: &mut Outputs,
    msg: eubatch_ir::message::a64::Msg,
    width: u32,
) -> Result<(), SimError> {
    let exec = m.exec;
    if width != exec {
        return Err(m.fail(format!(
            "a SIMD{width} A64 message at execution size {exec}"
        )));
    }
    let per = exec.div_ceil(8) as usize;
    let need = per * (2 + msg.data_components() as usize);
    if m.regs.len() < need {
        return Err(m.fail(format!(
            "an A64 message payload of {} registers ({need} needed)",
            m.regs.len()
        )));
    }
    let address = |t: &mut Thread, i: u32| {
        m.read(
            t,
            &element(&m.regs[(i / 4) as usize], (i % 4) * 8, Type::UQ),
        )
    };
    let data = |t: &mut Thread, k: u32, i: u32| {
        let r = per * (2 + k as usize) + (i / 8) as usize;
        m.read(t, &element(&m.regs[r], (i % 8) * 4, Type::UD))
    };
    let what = msg;
    let space = crate::memory::A64_SPACE;
    run_dataport(m, t, out, what, m.enabled, space, address, data)
}

/// OWord block reads and writes ([`eubatch_ir::message::block`]): the address in the
/// header (dwords 0-1 for A64, dword 2 in OWords or, unaligned, bytes otherwise), a
/// write's dwords in the registers after it, a read's in the response.
fn block_access(
    m: &RawSend,
    t: &mut Thread,
    out: &mut Outputs,
    b: eubatch_ir::message::block::Block,
) -> Result<(), SimError> {
    use eubatch_ir::message::block::HEADER_ADDRESS_DWORD;
    let header = *m
        .regs
        .first()
        .ok_or_else(|| m.fail("a block message without its header"))?;
    let (surface, addr) = if b.a64 {
        let a = m.read(t, &element(&header, 0, Type::UQ))?;
        (crate::memory::A64_SPACE, a)
    } else {
        let d2 = m.read(t, &element(&header, 4 * HEADER_ADDRESS_DWORD, Type::UD))?;
        let a = if b.aligned { d2 * 16 } else { d2 };
        ((m.info.desc & 0xff) as u64, a)
    };
    let reg_dwords = m.reg_size / 4;
    if b.write && m.regs.len() < 1 + (b.dwords / reg_dwords) as usize {
        return Err(m.fail("a block write shorter than its block"));
    }
    let channels = ((1u64 << m.exec) - 1) as u32;
    let active = m.enabled & (channels << m.group) != 0;
    let read = crate::memory::block_run(t, active, b, surface, addr, out, |t, j| {
        let r = m.regs[1 + (j / reg_dwords) as usize];
        m.read(t, &element(&r, (j % reg_dwords) * 4, Type::UD))
    })?;
    for (j, v) in read.into_iter().enumerate() {
        let j = j as u32;
        let reg = nth_register(&m.dst, j / reg_dwords, m.reg_size);
        m.write(t, &element(&reg, (j % reg_dwords) * 4, Type::UD), v)?;
    }
    Ok(())
}

/// Register `k` of the run of registers starting at `base` (a whole fixed register, or a
/// VGRF at a register boundary: a send's payload before register allocation), registers
/// being `reg_size` bytes.
pub fn nth_register(base: &Operand, k: u32, reg_size: u32) -> Operand {
    let mut o = *base;
    match base.file {
        RegFile::FixedGrf => o.nr += k,
        _ => o.offset += reg_size * k,
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
