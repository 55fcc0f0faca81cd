//! Payloads of the logical sends: a message's parameters as `Part`s (a value per
//! channel, a zero, or a register the message skips) gathered into one register per 8
//! channels each, in the order the shared function reads them.
//!
//! Where the parameters already lie in one VGRF in payload order (a texture coordinate, a
//! colour), the send reads that VGRF and no move is made (`in_place`); each parameter is
//! first read through the moves that copied it in the block (`resolve_parts`, what Mesa
//! gets by copy-propagating into its LOAD_PAYLOAD). Where the target has split sends, the
//! payload is two runs of registers, split where the parameters change VGRF (`split_point`;
//! Mesa: `opt_split_sends`), so that each half can be in place or shared.
//!
//! Rules that limit it: every parameter is a 32-bit value and lies inside its VGRF (Mesa 25
//! reads some SIMD8 scalars in wider messages, which its dumps do not mark); a message with
//! any other parameter is left logical.

use eubatch_ir::message::sampler::ParamType;
use eubatch_ir::{Builder, Control, Inst, Mods, Operand, RegFile, Shader, Type, VgrfLayout};

/// One payload parameter: a value per channel, or nothing (a register the message skips).
#[derive(Clone, Copy)]
pub(super) enum Part {
    Value(Operand, ParamType),
    Zero,
    Unused,
}

/// The payload of `parts` in the channels of `ctl`: a VGRF that already holds them in
/// order, or a new one the moves appended to `out` fill.
pub(super) fn payload(
    shader: &mut Shader,
    out: &mut Vec<Inst>,
    ctl: Control,
    parts: &[Part],
) -> Result<Operand, String> {
    let exec = ctl.exec_size as u32;
    let reg = exec * 4;
    check_parts(shader, ctl, parts)?;
    if let Some(reg) = in_place(parts, reg, shader.reg_size()) {
        return Ok(reg);
    }
    let tmp = payload_moves(shader, out, ctl, parts, 0)?;
    Ok(Operand::vgrf(tmp, 0, Type::F, 1))
}

/// The VGRF that already holds `parts` in payload order — consecutive components of one
/// VGRF, `reg` bytes apart, of the payload's types, starting on a register (`reg_size`
/// bytes) — if there is one.
fn in_place(parts: &[Part], reg: u32, reg_size: u32) -> Option<Operand> {
    let Some(Part::Value(first, _)) = parts.first() else {
        return None;
    };
    let fits = first.file == RegFile::Vgrf
        && first.offset % reg_size == 0
        && parts.iter().enumerate().all(|(k, p)| match p {
            Part::Value(v, ty) => {
                v.file == RegFile::Vgrf
                    && v.nr == first.nr
                    && v.offset == first.offset + k as u32 * reg
                    && v.stride == 1
                    && v.mods == Mods::NONE
                    && v.ty.size() == 4
                    && (v.ty == Type::F) == (*ty == ParamType::Float)
            }
            _ => false,
        });
    fits.then(|| Operand::vgrf(first.nr, first.offset, Type::F, 1))
}

/// A message's payload: one run of registers, or two where the target has split sends.
pub(super) struct Payload {
    pub(super) first: Operand,
    pub(super) second: Option<Operand>,
    pub(super) mlen: u32,
    pub(super) ex_mlen: u32,
    /// Header registers at the start of the first payload.
    pub(super) header: u32,
}

/// Where a payload of `parts` splits in two: at the first part that does not come from
/// part 0's register file and number (unused parts aside), so that each half can be a
/// VGRF already in place or be shared with other messages (Mesa: `opt_split_sends`).
fn split_point(parts: &[Part]) -> Option<usize> {
    let source = |p: &Part| match p {
        Part::Value(v, _) => Some((v.file, v.nr)),
        Part::Zero => Some((RegFile::Imm, 0)),
        Part::Unused => None,
    };
    let first = source(parts.first()?)?;
    (1..parts.len()).find(|&k| source(&parts[k]).is_some_and(|s| s != first))
}

/// Each VGRF part read through the move that last wrote it whole in this block
/// (`prior`, the block's instructions before the message), where the move's source is
/// still unchanged: the payload then gathers the original values, so it splits where
/// they change VGRF and is in place where they already lie in order — what Mesa gets by
/// copy-propagating into its LOAD_PAYLOAD before `opt_split_sends`. (Taking the parts
/// as they are where that needs fewer gathering moves measured worse over the corpora:
/// the building moves then stay.)
pub(super) fn resolve_parts(
    shader: &Shader,
    prior: &[Inst],
    ctl: Control,
    parts: &[Part],
) -> Vec<Part> {
    let exec = ctl.exec_size as u32;
    let overlaps = |a: &Operand, a_len: u32, b: &Operand, b_len: u32| {
        a.file == RegFile::Vgrf
            && b.file == RegFile::Vgrf
            && a.nr == b.nr
            && a.offset < b.offset + b_len
            && b.offset < a.offset + a_len
    };
    let written = |k: Inst| (shader.insts.dst[k], shader.insts.size_written[k]);
    let resolve = |v: &Operand| -> Option<Operand> {
        if v.file != RegFile::Vgrf || v.stride != 1 || v.mods != Mods::NONE {
            return None;
        }
        let len = exec * v.ty.size();
        let at = prior.iter().rposition(|&k| {
            let (d, n) = written(k);
            overlaps(&d, n, v, len)
        })?;
        let k = prior[at];
        let c = shader.insts.control[k];
        let (d, n) = written(k);
        let src = *shader.srcs(k).first()?;
        let plain = shader.is_raw_move(k)
            && d.offset == v.offset
            && n == len
            && d.stride == 1
            && d.ty.size() == v.ty.size()
            && src.file == RegFile::Vgrf
            && src.stride == 1
            && (c.no_mask() || (c.exec_size == ctl.exec_size && c.group == ctl.group));
        if !plain {
            return None;
        }
        // The source keeps its value up to the message.
        let changed = prior[at + 1..].iter().any(|&j| {
            let (d, n) = written(j);
            overlaps(&d, n, &src, len)
        });
        (!changed).then_some(Operand { ty: v.ty, ..src })
    };
    parts
        .iter()
        .map(|p| match p {
            Part::Value(v, ty) => {
                // Through chains of moves (a SIMD32 message's halves gather copies of
                // copies), a few links deep.
                let mut cur = *v;
                for _ in 0..4 {
                    match resolve(&cur) {
                        Some(next) => cur = next,
                        None => break,
                    }
                }
                Part::Value(cur, *ty)
            }
            Part::Zero => Part::Zero,
            Part::Unused => Part::Unused,
        })
        .collect()
}

/// The payload of `parts`, split in two where the target has split sends.
pub(super) fn payloads(
    shader: &mut Shader,
    out: &mut Vec<Inst>,
    ctl: Control,
    parts: &[Part],
    prior: &[Inst],
) -> Result<Payload, String> {
    let parts = &resolve_parts(shader, prior, ctl, parts)[..];
    let regs_per_part = ctl.exec_size as u32 / 8;
    let mid = if shader.target.target().has_split_send {
        split_point(parts)
    } else {
        None
    };
    Ok(match mid {
        Some(mid) => Payload {
            first: payload(shader, out, ctl, &parts[..mid])?,
            second: Some(payload(shader, out, ctl, &parts[mid..])?),
            mlen: mid as u32 * regs_per_part,
            ex_mlen: (parts.len() - mid) as u32 * regs_per_part,
            header: 0,
        },
        None => Payload {
            first: payload(shader, out, ctl, parts)?,
            second: None,
            mlen: parts.len() as u32 * regs_per_part,
            ex_mlen: 0,
            header: 0,
        },
    })
}

/// Every parameter lies inside its VGRF (Mesa 25 reads some SIMD8 scalars in wider
/// messages, which its dumps do not mark).
pub(super) fn check_parts(shader: &Shader, ctl: Control, parts: &[Part]) -> Result<(), String> {
    let exec = ctl.exec_size as u32;
    for p in parts {
        if let Part::Value(v, _) = p {
            if !crate::lower::inside_vgrf(shader, v, v.span(exec)) {
                return Err(
                    "a parameter past the end of its VGRF (a Mesa 25 scalar source; not lowered)"
                        .into(),
                );
            }
        }
    }
    Ok(())
}

/// A new VGRF holding `parts` from byte `skip` on (one register per 8 channels each),
/// filled by moves appended to `out`; the bytes before `skip` are left to the caller.
pub(super) fn payload_moves(
    shader: &mut Shader,
    out: &mut Vec<Inst>,
    ctl: Control,
    parts: &[Part],
    skip: u32,
) -> Result<u32, String> {
    let reg = ctl.exec_size as u32 * 4;
    let layout = if skip == 0 {
        VgrfLayout {
            components: parts.len() as u16,
            data: reg as u16,
            padding: 0,
        }
    } else {
        VgrfLayout::flat(skip + parts.len() as u32 * reg)
    };
    let tmp = shader.vgrfs.push(layout).index() as u32;
    let channels = Builder::channels_of(ctl);
    for (k, p) in parts.iter().enumerate() {
        let at = skip + k as u32 * reg;
        let (dst_ty, src) = match p {
            Part::Unused => continue,
            Part::Zero => (Type::UD, Operand::imm(Type::UD, 0)),
            Part::Value(v, ty) => {
                if v.ty.size() != 4 {
                    return Err(format!(
                        "a {}-bit message parameter (only 32-bit ones are lowered so far)",
                        v.ty.size() * 8
                    ));
                }
                match ty {
                    // Converted as Mesa's MOV into the float payload converts.
                    ParamType::Float => (Type::F, *v),
                    ParamType::Int => {
                        let mut raw = *v;
                        if raw.ty.is_float() {
                            raw.ty = Type::UD;
                        }
                        (raw.ty, raw)
                    }
                }
            }
        };
        out.push(channels.mov(shader, Operand::vgrf(tmp, at, dst_ty, 1), src));
    }
    Ok(tmp)
}
