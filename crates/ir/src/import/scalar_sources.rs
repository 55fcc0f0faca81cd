//! Mesa 25's scalar VGRFs read by wider messages, made explicit.
//!
//! Mesa 25 keeps uniform values in "scalar" VGRFs (`brw_reg::is_scalar`, written by the
//! builder's `scalar_group()`: SIMD8 NoMask on these targets, one register per component)
//! and lets a message read one at any width: `offset()` then steps one register per
//! component and every channel reads the component's first element
//! (brw_reg.h `offset`, brw_lower_logical_sends.cpp). `brw_print.cpp` does not show the
//! flag, so a SIMD16 `tex_logical` of `%0:F`, where `load_payload(8) %0:D, 0.5, 0.5 NoMask`
//! made `%0`, reads as if it ran past `%0`'s 64 bytes (tesseract/133 of shader-db). The
//! importer gives such a source what Mesa's lowering gives it — a full-width copy of each
//! component (`mov(16) tmp+k, %0+k*32<0>`, as in Mesa's pre-allocation dump) — so the IR
//! says what it reads.
//!
//! A source is taken as scalar only where all of these hold: it is a sampler message's
//! ([`crate::message::sampler::lower`] says which components it reads) or a per-channel
//! memory message's address or data (`memory_load`, `memory_store`, `memory_atomic`: as
//! many components as its coordinates and components), read with stride
//! one; those components, at the message's width, run past the VGRF; and every write of
//! the VGRF is NoMask, in channel group 0 and narrower than the message, all of one
//! width. Anything else reading past a VGRF stays as it is (and is refused later).

use crate::builder::Builder;
use crate::entities::Inst;
use crate::message::sampler::{self, Param};
use crate::opcode::Opcode;
use crate::operand::{Operand, RegFile};
use crate::shader::Shader;
use crate::vgrf::VgrfLayout;
use crate::width_rules::is_sampler_message;

/// The instructions of `order` with a widening copy before each message that reads a
/// scalar VGRF, whose source then names the copy.
pub fn widen(shader: &mut Shader, order: Vec<Inst>) -> Vec<Inst> {
    // Per VGRF: the one width of its writes, if they are all NoMask in group 0.
    let mut writes: Vec<Option<Option<u8>>> = vec![Some(None); shader.vgrfs.len()];
    for &i in &order {
        let d = shader.insts.dst[i];
        if d.file != RegFile::Vgrf {
            continue;
        }
        let c = shader.insts.control[i];
        let w = &mut writes[d.nr as usize];
        *w = match *w {
            Some(prev) if c.no_mask() && c.group == 0 && prev.is_none_or(|p| p == c.exec_size) => {
                Some(Some(c.exec_size))
            }
            _ => None,
        };
    }
    let mut out = Vec::with_capacity(order.len());
    for i in order {
        let op = shader.insts.opcode[i];
        if is_sampler_message(op) {
            widen_message(shader, i, &writes, &mut out);
        } else if matches!(
            op,
            Opcode::MemoryLoadLogical | Opcode::MemoryStoreLogical | Opcode::MemoryAtomicLogical
        ) {
            widen_memory_message(shader, i, &writes, &mut out);
        }
        out.push(i);
    }
    out
}

fn widen_message(
    shader: &mut Shader,
    inst: Inst,
    writes: &[Option<Option<u8>>],
    out: &mut Vec<Inst>,
) {
    let op = shader.insts.opcode[inst];
    let Ok(lowered) = sampler::lower(op, shader.srcs(inst), shader.target) else {
        return;
    };
    for k in 0..shader.srcs(inst).len() {
        let comps = lowered
            .params
            .iter()
            .filter_map(|p| match *p {
                Param::Src { src, comp, .. } if src == k => Some(comp + 1),
                _ => None,
            })
            .max();
        if let Some(comps) = comps {
            widen_source(shader, inst, k, comps, writes, out);
        }
    }
}

/// The same for a per-channel Mesa 25 memory message (not a block: `MEMORY_FLAG_TRANSPOSE`
/// clear): its address of `coord_components` and its data of `components` each
/// (`lower_hdc_memory_logical_send` reads both through `offset(reg, bld, i)`).
fn widen_memory_message(
    shader: &mut Shader,
    inst: Inst,
    writes: &[Option<Option<u8>>],
    out: &mut Vec<Inst>,
) {
    use crate::message::memory::{src, FLAG_TRANSPOSE};
    let srcs = shader.srcs(inst);
    if srcs.len() != src::COUNT {
        return;
    }
    let imm = |k: usize| (srcs[k].file == RegFile::Imm).then(|| srcs[k].imm_bits() as u32);
    let (Some(flags), Some(coords), Some(comps)) = (
        imm(src::FLAGS),
        imm(src::COORD_COMPONENTS),
        imm(src::COMPONENTS),
    ) else {
        return;
    };
    if flags & FLAG_TRANSPOSE != 0 {
        return;
    }
    for (k, n) in [
        (src::ADDRESS, coords),
        (src::DATA0, comps),
        (src::DATA1, comps),
    ] {
        widen_source(shader, inst, k, n, writes, out);
    }
}

/// Source `k` of `inst`, read as `comps` components, replaced by a full-width copy if it
/// is a scalar VGRF (the rules at the top).
fn widen_source(
    shader: &mut Shader,
    inst: Inst,
    k: usize,
    comps: u32,
    writes: &[Option<Option<u8>>],
    out: &mut Vec<Inst>,
) {
    let exec = shader.insts.control[inst].exec_size;
    let s = shader.srcs(inst)[k];
    if comps == 0 || s.file != RegFile::Vgrf || s.stride != 1 || (s.nr as usize) >= writes.len() {
        return;
    }
    let Some(Some(narrow)) = writes[s.nr as usize] else {
        return;
    };
    let size = s.ty.size();
    let vgrf_size = shader.vgrfs[s.vgrf_nr()].size();
    if narrow >= exec || s.offset + comps * exec as u32 * size <= vgrf_size {
        return;
    }
    // Component c of the scalar: one register of `narrow` elements, read at element 0.
    if s.offset + comps * narrow as u32 * size > vgrf_size {
        return;
    }
    let wide = comps * exec as u32 * size;
    let tmp = shader.vgrfs.push(VgrfLayout::flat(wide)).index() as u32;
    // In the message's channels.
    let ctl = shader.insts.control[inst];
    let b = Builder::new(exec).at(ctl.group).exec_all_if(ctl.no_mask());
    for c in 0..comps {
        let mut from = s;
        from.offset += c * narrow as u32 * size;
        from.stride = 0;
        let dst = Operand::vgrf(tmp, c * exec as u32 * size, s.ty, 1);
        out.push(b.mov(shader, dst, from));
    }
    shader.srcs_mut(inst)[k] = Operand::vgrf(tmp, 0, s.ty, 1);
}
