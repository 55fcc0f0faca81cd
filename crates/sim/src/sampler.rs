//! The sampler: a deterministic function of the surface, the sampler, the message and its
//! parameters, so that any two programs that send the same message get the same texels.
//!
//! The logical sampler opcodes of Mesa 22.3 take fourteen sources (`enum tex_logical_srcs`,
//! brw_eu_defines.h): coordinate, shadow comparator, lod, lod2 (or the gradients), min lod,
//! sample index, MCS, surface, sampler, surface handle, sampler handle, tg4 offset, and the
//! immediate coordinate and gradient component counts. Every returned component is a hash
//! of the message type, surface, sampler, the seed (the texture's contents) and the bits of
//! every parameter the channel sends: floats come out in [0, 1), as from a UNORM texture,
//! integers (size queries) as small powers of two.

use eubatch_ir::{Inst, Opcode, RegFile, Shader};

use crate::inputs::mix;
use crate::state::Thread;
use crate::SimError;

const COORDINATE: usize = 0;
const SURFACE: usize = 7;
const SAMPLER: usize = 8;
const COORD_COMPONENTS: usize = 12;
const GRAD_COMPONENTS: usize = 13;
const NUM_SRCS: usize = 14;

fn imm(shader: &Shader, inst: Inst, i: usize, what: &str) -> Result<u64, SimError> {
    match shader.srcs(inst).get(i) {
        Some(s) if s.file == RegFile::Imm => Ok(s.imm_bits()),
        _ => Err(SimError::at(
            inst,
            format!("a sampler message with a non-immediate {what} is not modelled yet"),
        )),
    }
}

/// Executes one sampler message for the `enabled` channels.
pub fn sample(shader: &Shader, t: &mut Thread, inst: Inst, enabled: u32) -> Result<(), SimError> {
    let op = shader.insts.opcode[inst];
    let srcs = shader.srcs(inst);
    if srcs.len() != NUM_SRCS {
        return Err(SimError::at(
            inst,
            format!(
                "`{}` with {} sources is not modelled yet (Mesa 22.3 has {NUM_SRCS})",
                op.name(),
                srcs.len()
            ),
        ));
    }
    let ctl = shader.insts.control[inst];
    let exec = ctl.exec_size as u32;
    let dst = shader.insts.dst[inst];
    let coords = imm(shader, inst, COORD_COMPONENTS, "coordinate count")? as u32;
    let grads = imm(shader, inst, GRAD_COMPONENTS, "gradient count")? as u32;
    let comp_bytes = exec * dst.ty.size();
    let comps = if dst.is_null() {
        0
    } else {
        shader.insts.size_written[inst] / comp_bytes.max(1)
    };
    let mut results = Vec::new();
    for i in 0..exec {
        let ch = ctl.group as u32 + i;
        if enabled & (1 << ch) == 0 {
            continue;
        }
        // Surface and sampler: immediates, or per-channel values (dynamic indexing).
        let mut index = |k: usize| -> Result<u64, SimError> {
            let s = &srcs[k];
            if s.file == RegFile::Imm {
                Ok(s.imm_bits())
            } else {
                t.read(s, i).map_err(|e| e.with_inst(inst))
            }
        };
        let (surface, sampler) = (index(SURFACE)? & 0xffff_ffff, index(SAMPLER)? & 0xffff_ffff);
        let mut h = mix(t.seed ^ mix(surface << 32 | sampler) ^ (op as u64) << 48);
        for (k, s) in srcs.iter().enumerate().take(SURFACE) {
            if s.is_bad() {
                continue;
            }
            let n = match k {
                COORDINATE => coords,
                2 | 3 if op == Opcode::TxdLogical => grads,
                _ => 1,
            };
            for c in 0..n {
                let mut o = *s;
                o.offset += c * exec * s.ty.size() * (s.stride.max(1) as u32);
                h = mix(h
                    ^ t.read(&o, i).map_err(|e| e.with_inst(inst))?
                    ^ ((k as u64) << 40 | c as u64));
            }
        }
        for c in 0..comps {
            let r = mix(h ^ c as u64);
            let bits = if op == Opcode::TxsLogical {
                1u64 << (4 + r % 8)
            } else if dst.ty.is_float() {
                crate::value::encode(
                    dst.ty,
                    crate::value::Value::Float((r >> 40) as f64 / (1u64 << 24) as f64),
                    false,
                )
            } else {
                r & 0xff
            };
            results.push((c, i, bits));
        }
    }
    for (c, i, bits) in results {
        let mut d = dst;
        d.offset += c * comp_bytes;
        t.write(&d, i, bits).map_err(|e| e.with_inst(inst))?;
    }
    Ok(())
}
