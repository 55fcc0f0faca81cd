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
//! Mesa 25's memory messages read scalar addresses and data the same way: the data of an
//! SSBO or atomic-counter atomic that a subgroup reduction made uniform (`cbit(8) %64`,
//! NoMask, read by `memory_atomic(16) ... data0: %64`), which Mesa's
//! `lower_hdc_memory_logical_send` copies as `mov(16) tmp, %64+0.0<0>`.
//!
//! A source is taken as scalar only where all of these hold: it is a sampler message's
//! ([`crate::message::sampler::lower`] says which components it reads) or a per-channel
//! memory message's address or data ([`crate::message::source_components`]), read with stride
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
        let read = components_read(shader, i);
        if !read.is_empty() {
            widen_message(shader, i, &read, &writes, &mut out);
        }
        out.push(i);
    }
    out
}

/// The sources of message `inst` that may be scalar, with how many components it reads of
/// each: a sampler message's parameters; a memory message's address and data (Mesa 25
/// `fs_inst::components_read`; not a block (transpose) one, which reads them whole).
fn components_read(shader: &Shader, inst: Inst) -> Vec<(usize, u32)> {
    use crate::message::memory::{self, src};
    let op = shader.insts.opcode[inst];
    let srcs = shader.srcs(inst);
    if is_sampler_message(op) {
        let Ok(lowered) = sampler::lower(op, srcs, shader.target) else {
            return Vec::new();
        };
        return (0..srcs.len())
            .filter_map(|k| {
                let comps = lowered
                    .params
                    .iter()
                    .filter_map(|p| match *p {
                        Param::Src { src, comp, .. } if src == k => Some(comp + 1),
                        _ => None,
                    })
                    .max()?;
                Some((k, comps))
            })
            .collect();
    }
    let is_memory = matches!(
        op,
        Opcode::MemoryLoadLogical | Opcode::MemoryStoreLogical | Opcode::MemoryAtomicLogical
    );
    if !is_memory || srcs.len() != src::COUNT {
        return Vec::new();
    }
    let flags = srcs[src::FLAGS];
    if flags.file != RegFile::Imm || flags.imm_bits() as u32 & memory::FLAG_TRANSPOSE != 0 {
        return Vec::new();
    }
    [src::ADDRESS, src::DATA0, src::DATA1]
        .into_iter()
        .map(|k| (k, crate::message::source_components(op, srcs, k)))
        .collect()
}

fn widen_message(
    shader: &mut Shader,
    inst: Inst,
    read: &[(usize, u32)],
    writes: &[Option<Option<u8>>],
    out: &mut Vec<Inst>,
) {
    let exec = shader.insts.control[inst].exec_size;
    let srcs = shader.srcs(inst).to_vec();
    for &(k, comps) in read {
        let s = &srcs[k];
        if s.file != RegFile::Vgrf || s.stride != 1 || (s.nr as usize) >= writes.len() {
            continue;
        }
        let Some(Some(narrow)) = writes[s.nr as usize] else {
            continue;
        };
        let size = s.ty.size();
        let vgrf_size = shader.vgrfs[s.vgrf_nr()].size();
        if narrow >= exec || s.offset + comps * exec as u32 * size <= vgrf_size {
            continue;
        }
        // Component c of the scalar: one register of `narrow` elements, read at element 0.
        if s.offset + comps * narrow as u32 * size > vgrf_size {
            continue;
        }
        let wide = comps * exec as u32 * size;
        let tmp = shader.vgrfs.push(VgrfLayout::flat(wide)).index() as u32;
        // In the message's channels.
        let ctl = shader.insts.control[inst];
        let b = Builder::new(exec).at(ctl.group).exec_all_if(ctl.no_mask());
        for c in 0..comps {
            let mut from = *s;
            from.offset += c * narrow as u32 * size;
            from.stride = 0;
            let dst = Operand::vgrf(tmp, c * exec as u32 * size, s.ty, 1);
            out.push(b.mov(shader, dst, from));
        }
        shader.srcs_mut(inst)[k] = Operand::vgrf(tmp, 0, s.ty, 1);
    }
}
