//! Surface messages of the logical sends: untyped surface and byte-scattered reads and
//! writes (Mesa: `lower_surface_logical_send`), header-less: the addresses, then for
//! writes the data.
//!
//! Rules that limit it: Haswell on (before it there is no data cache 1); the surface is an
//! immediate binding table index (a bindless surface handle is left logical) and the size
//! argument an immediate; writes outside fragment shaders only (Mesa predicates a fragment
//! shader's writes on the sample mask, which is not done here).

use eubatch_ir::message::sampler::ParamType;
use eubatch_ir::{Gen, Inst, Operand, RegFile, Shader, Type};

use super::payload::{payloads, Part};
use super::{immediate, send};

/// An untyped surface or byte-scattered read or write: the addresses, then for writes the
/// data, split after the addresses where the target has split sends (Mesa:
/// `lower_surface_logical_send`; in fragment shaders Mesa also predicates writes on the
/// sample mask, which is not done here: those are left logical).
pub(super) fn surface_message(
    shader: &mut Shader,
    inst: Inst,
    prior: &[Inst],
) -> Result<Vec<Inst>, String> {
    use eubatch_ir::message::surface::{self, src};
    let op = shader.insts.opcode[inst];
    let srcs = shader.srcs(inst).to_vec();
    let shape = surface::logical_shape(op, &srcs)
        .ok_or_else(|| "a non-immediate or unsupported size argument".to_string())?;
    if !srcs[src::SURFACE_HANDLE].is_bad() {
        return Err("a bindless surface handle (not lowered yet)".into());
    }
    let surface_index = immediate(&srcs[src::SURFACE], "surface")?;
    if shape.write && shader.stage == eubatch_ir::shader::Stage::Fs {
        return Err("a fragment-shader write (the sample-mask predicate is not lowered)".into());
    }
    if shader.target < Gen::Gen75 {
        return Err("surface messages before Haswell (no data cache 1)".into());
    }
    let ctl = shader.insts.control[inst];
    let exec = ctl.exec_size as u32;
    let (sfid, desc) = surface::descriptor(shape, surface_index, exec)
        .ok_or_else(|| format!("a SIMD{exec} surface message"))?;
    let part = |v: Operand, k: u32| {
        let mut v = v;
        if v.file == RegFile::Vgrf {
            v.offset += k * exec * 4;
        }
        if v.ty.size() == 4 && v.ty.is_float() {
            v.ty = Type::UD;
        }
        Part::Value(v, ParamType::Int)
    };
    let mut parts = vec![part(srcs[src::ADDRESS], 0)];
    if shape.write {
        parts.extend((0..shape.comps).map(|k| part(srcs[src::DATA], k)));
    }
    // A read answers every component it asks for (the logical instruction may say less
    // when its text omitted the size).
    if !shape.write && !shader.insts.dst[inst].is_null() {
        shader.insts.size_written[inst] = shape.comps * exec * 4;
    }
    let mut out = Vec::new();
    let p = payloads(shader, &mut out, ctl, &parts, prior)?;
    out.push(send(shader, inst, p, sfid, desc));
    Ok(out)
}
