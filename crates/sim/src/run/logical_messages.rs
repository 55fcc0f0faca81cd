//! Logical messages, before they are lowered to sends: framebuffer and URB writes (the
//! run's outputs, recorded per channel), URB reads, constant loads and memory fences.
//! Their effects are recorded and their reads answered in the same form as the raw sends
//! they become ([`crate::hw_message`]), so a shader compares equal before and after
//! lowering. Sampler and surface messages have modules of their own ([`crate::sampler`],
//! [`crate::memory`]).

use eubatch_ir::{Operand, RegFile, Type};

use super::{component, Step};
use crate::inputs::constant_dword;
use crate::state::Thread;
use crate::value::decode;
use crate::{Outputs, Record, SimError};

/// FB_WRITE_LOGICAL: one `fb_write` record per enabled channel whose pixel is lit
/// ([`Thread::sample_mask`]: a helper invocation's or a discarded pixel's colour is not
/// written, PRM Vol. 2d "Render Target Write", pixel enables).
pub(super) fn fb_write(s: &Step, t: &mut Thread, out: &mut Outputs) -> Result<bool, SimError> {
    let comps = s
        .srcs
        .get(7)
        .filter(|o| o.file == RegFile::Imm)
        .map_or(4, |o| o.imm_bits() as u32);
    // Colour 0, colour 1 (dual source), source-0 alpha, source depth, stencil and the
    // output mask, where present (FB_WRITE_LOGICAL_SRC_*): the order raw render-target
    // writes are recorded in too (hw_message.rs).
    use crate::layout::fb_src;
    let slots = [
        (fb_src::COLOR0, comps),
        (fb_src::COLOR1, comps),
        (fb_src::SRC0_ALPHA, 1),
        (fb_src::SRC_DEPTH, 1),
        (fb_src::SRC_STENCIL, 1),
        (fb_src::OMASK, 1),
    ];
    let present = |slot: usize| s.srcs.get(slot).filter(|o| !o.is_bad());
    let parts: Vec<(Operand, u32)> = slots
        .into_iter()
        .filter_map(|(slot, n)| present(slot).map(|o| (*o, n)))
        .collect();
    let first = out.records.len();
    let lit = t.sample_mask();
    record_writes(s, t, "fb_write", &parts, s.enabled & s.pred & lit, out)?;
    // The hardware takes the low 16 bits of oMask and the low 8 of stencil.
    let omask = present(fb_src::OMASK).is_some();
    let stencil = present(fb_src::SRC_STENCIL).is_some();
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
    Ok(s.ctl.eot())
}

/// URB_WRITE_LOGICAL: one `urb_write` record per enabled channel, its data preceded by the
/// URB slot it goes to and the channel mask, as [`crate::urb::record`] lays them out.
pub(super) fn urb_write(s: &Step, t: &mut Thread, out: &mut Outputs) -> Result<bool, SimError> {
    use eubatch_ir::message::urb::{self as urb_msg, src as urb_src};
    let info = s.shader.send_info(s.inst).copied().unwrap_or_default();
    // Without data the message writes nothing: it only ends the thread (a geometry
    // shader that emits no vertex), as the header-only send it becomes does.
    let Some(data) = s.srcs.get(urb_src::DATA).filter(|o| !o.is_bad()).copied() else {
        return Ok(s.ctl.eot());
    };
    let urb = crate::urb::Logical::of(s.shader, s.inst)?;
    let comps = urb_msg::write_components(s.srcs, info.mlen as u32) * 8 / s.exec.max(1);
    let first = out.records.len();
    record_writes(s, t, "urb_write", &[(data, comps)], s.enabled & s.pred, out)?;
    // Put the slot offset and the channel mask in front of each channel's data.
    let written: Vec<Record> = out.records.drain(first..).collect();
    for r in written {
        let i = r.channel - s.group;
        let (_, slot) = urb.slot(t, s.inst, i)?;
        let mask = match &urb.mask {
            Some(m) => {
                let mut m = *m;
                m.ty = Type::UD;
                Some(s.read(t, &m, i)? as u32)
            }
            None => None,
        };
        crate::urb::record(out, r.channel, slot, mask, r.values, r.undefined);
    }
    Ok(s.ctl.eot())
}

/// URB_READ_LOGICAL: the previous stage's outputs, a seeded function of the URB entry
/// ([`crate::urb::input`]), one register per dword of the entry (SIMD8).
pub(super) fn urb_read(s: &Step, t: &mut Thread) -> Result<bool, SimError> {
    let urb = crate::urb::Logical::of(s.shader, s.inst)?;
    let dwords = s.shader.insts.size_written[s.inst] / (s.exec.max(1) * 4);
    let mut d = s.dst;
    d.ty = Type::UD;
    let mut results = Vec::new();
    for i in s.channels(s.enabled & s.pred) {
        let (h, slot) = urb.slot(t, s.inst, i)?;
        for k in 0..dwords {
            results.push((k, i, crate::urb::input(t.seed, h, slot, k)));
        }
    }
    for (k, i, w) in results {
        s.write(t, &component(&d, k, s.exec), i, w as u64)?;
    }
    Ok(false)
}

/// Mesa 25's memory_load: only constant-buffer block loads are modelled, the same seeded
/// function of (surface, dword) as the pull-constant loads, `dwords` of them from the byte
/// address (channel 0's, a scalar) for all channels.
pub(super) fn memory_load(s: &Step, t: &mut Thread) -> Result<bool, SimError> {
    let block = eubatch_ir::message::memory::constant_block(s.srcs).ok_or_else(|| {
        s.fail("a memory_load other than a constant block load is not modelled yet")
    })?;
    let addr =
        decode(block.address.ty, s.read(t, &block.address, 0)?).as_i128() as u64 & 0xffff_ffff;
    if !addr.is_multiple_of(4) {
        return Err(s.fail(format!(
            "a constant block load at byte {addr} (not dword-aligned) is not modelled"
        )));
    }
    let mut d = s.dst;
    d.ty = Type::UD;
    d.stride = 1;
    let surface = t
        .binding_table_index(&block.surface, 0)
        .map_err(|e| e.with_inst(s.inst))?;
    for k in 0..block.dwords {
        let w = constant_dword(t.seed, surface, addr / 4 + k as u64);
        s.write(t, &d, k, w as u64)?;
    }
    Ok(false)
}

/// FS_OPCODE_UNIFORM_PULL_CONSTANT_LOAD: a block of consecutive dwords at an immediate
/// offset, as long as the destination (one register a SIMD8 half), for all channels.
pub(super) fn uniform_pull_constant(s: &Step, t: &mut Thread) -> Result<bool, SimError> {
    let (surface, offset) = pull_constant_sources(s, t)?;
    let off = Some(offset)
        .filter(|o| o.file == RegFile::Imm)
        .map(|o| o.imm_bits())
        .ok_or_else(|| {
            s.fail("uniform_pull_const with a non-immediate offset is not modelled yet")
        })?;
    let mut d = s.dst;
    d.ty = Type::UD;
    d.stride = 1;
    let dwords = (s.shader.insts.size_written[s.inst] / 4).max(8);
    for k in 0..dwords {
        let w = constant_dword(t.seed, surface, (off + 4 * k as u64) / 4);
        s.write(t, &d, k, w as u64)?;
    }
    Ok(false)
}

/// FS_OPCODE_VARYING_PULL_CONSTANT_LOAD_LOGICAL: four dwords per channel at the channel's
/// byte offset, into four components.
pub(super) fn varying_pull_constant(s: &Step, t: &mut Thread) -> Result<bool, SimError> {
    let (surface, offsets) = pull_constant_sources(s, t)?;
    let mut d = s.dst;
    d.ty = Type::UD;
    let mut results = Vec::new();
    for i in s.channels(s.enabled & s.pred) {
        let base = decode(offsets.ty, s.read(t, &offsets, i)?).as_i128() as u64;
        for k in 0..4u32 {
            let byte = base.wrapping_add(4 * k as u64);
            results.push((k, i, constant_dword(t.seed, surface, byte / 4) as u64));
        }
    }
    for (k, i, w) in results {
        s.write(t, &component(&d, k, s.exec), i, w)?;
    }
    Ok(false)
}

/// A pull-constant load's surface (constant buffers are a seeded function of surface and
/// byte offset): an immediate, or a scalar computed at run time, of which the binding
/// table index's bits count ([`eubatch_ir::message::surface::BINDING_TABLE_INDEX_MASK`],
/// as the lowered send's descriptor takes it); and its offset source.
fn pull_constant_sources(s: &Step, t: &mut Thread) -> Result<(u64, Operand), SimError> {
    use eubatch_ir::message::surface::{is_scalar_index, BINDING_TABLE_INDEX_MASK};
    let name = s.op.name();
    let (surface, offset) = eubatch_ir::message::pull_constant_srcs(s.srcs)
        .ok_or_else(|| s.fail(format!("`{name}` with {} sources", s.srcs.len())))?;
    let index = if surface.file == RegFile::Imm {
        surface.imm_bits()
    } else if is_scalar_index(&surface) {
        s.read(
            t,
            &Operand {
                ty: eubatch_ir::Type::UD,
                ..surface
            },
            0,
        )?
    } else {
        return Err(s.fail(format!(
            "`{name}` whose surface is neither an immediate nor a scalar"
        )));
    };
    Ok((index & BINDING_TABLE_INDEX_MASK as u64, offset))
}

/// A memory fence orders memory accesses between threads; one thread's results do not
/// depend on it. Its destination (what the fence's completion returns, which only
/// scheduling reads) is written as zeros.
pub(super) fn memory_fence(s: &Step, t: &mut Thread) -> Result<bool, SimError> {
    if !s.dst.is_null() && !s.dst.is_bad() {
        let mut d = s.dst;
        d.ty = Type::UD;
        d.stride = 1;
        for i in 0..s.exec {
            s.write(t, &d, i, 0)?;
        }
    }
    Ok(false)
}

/// Records, for every channel in `mask`, the components of `parts` (operand, component
/// count) as one output record of `message`.
fn record_writes(
    s: &Step,
    t: &mut Thread,
    message: &str,
    parts: &[(Operand, u32)],
    mask: u32,
    out: &mut Outputs,
) -> Result<(), SimError> {
    for i in s.channels(mask) {
        let mut values = Vec::new();
        let mut undefined = 0u64;
        for (op, n) in parts {
            for k in 0..*n {
                let poison = t.poison_reads;
                values.push(
                    t.read_message_part(&component(op, k, s.exec), i)
                        .map_err(|e| e.with_inst(s.inst))?,
                );
                if t.poison_reads != poison {
                    undefined |= 1 << (values.len() - 1).min(63);
                }
            }
        }
        out.records.push(Record {
            message: message.into(),
            channel: s.group + i,
            values,
            undefined,
        });
    }
    Ok(())
}
