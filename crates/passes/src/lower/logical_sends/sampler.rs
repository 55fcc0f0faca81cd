//! Sampler messages of the logical sends ([`eubatch_ir::message::sampler::lower`] gives
//! their type and parameters; Mesa: `lower_sampler_logical_send_gfx7`). A surface or
//! sampler computed at run time goes into the descriptor through a register (`sampler << 8
//! | surface`); a sampler above 15, or unknown at compile time and not provably below 16
//! ([`crate::value_range`]), through the header's Sampler State Pointer (Haswell on).
//! Fewer than four components come back as a shorter response. Gathers need their channel
//! select and texel offsets in the header, which Mesa fills from `fs_inst::offset`, and no
//! dump records it: a gather is lowered only where the importer recovered them from the
//! final code ([`eubatch_ir::shader::SendInfo::header_bits`]), else left logical.
//!
//! Rules that limit it: SIMD8 or SIMD16 (SIMD-width lowering leaves those); at most 11
//! payload registers; surface and sampler indices immediate or one scalar in a VGRF (a
//! per-channel index stays logical); no bindless handles (they need a header, not lowered
//! yet); no predicate; a sampler above 15 or known only at run time and not provably below
//! 16 needs the Sampler State Pointer offset, which targets before Haswell do not have.

use eubatch_ir::message::sampler::{self, Param};
use eubatch_ir::message::sfid;
use eubatch_ir::shader::Predicate;
use eubatch_ir::{Builder, Inst, Mods, Opcode, Operand, RegFile, Shader, Type, VgrfLayout};

use super::payload::{check_parts, payload, payload_moves, payloads, resolve_parts, Part, Payload};
use super::{send, simd_mode};

/// Sampler messages whose run-time sampler index is provably below 16: known before the
/// blocks are taken apart.
pub(super) fn low_samplers(shader: &Shader) -> hashbrown::HashSet<Inst> {
    let mut bounds = crate::value_range::ValueRange::new(shader);
    shader
        .layout
        .insts()
        .filter(|&i| eubatch_ir::width_rules::is_sampler_message(shader.insts.opcode[i]))
        .filter(|&i| {
            shader.srcs(i).get(sampler::src::SAMPLER).is_some_and(|s| {
                s.file == RegFile::Vgrf && bounds.max_unsigned(s).is_some_and(|m| m < 16)
            })
        })
        .collect()
}

/// A sampler message without a header (gathers, high samplers and bindless handles need one
/// and are left logical).
pub(super) fn sampler_message(
    shader: &mut Shader,
    inst: Inst,
    prior: &[Inst],
    low_samplers: &hashbrown::HashSet<Inst>,
) -> Result<Vec<Inst>, String> {
    let op = shader.insts.opcode[inst];
    let srcs = shader.srcs(inst).to_vec();
    let lowered = sampler::lower(op, &srcs, shader.target)?;
    use sampler::src;
    // What the header's dword 2 carries (gather channel, texel offsets): the importer's
    // recovery. A gather needs it; other messages without it are as the dump shows them.
    let gather = sampler::is_gather(op);
    let bits = shader.send_info(inst).and_then(|s| s.header_bits);
    if gather && bits.is_none() {
        return Err(format!(
            "`{}` needs its gather channel and texel offsets in the message header; the \
             dumps do not record them (Mesa keeps them in fs_inst::offset) and the final \
             code beside the dump did not give them",
            op.name()
        ));
    }
    let bits = bits.unwrap_or(0);
    for k in [src::SURFACE_HANDLE, src::SAMPLER_HANDLE] {
        if !srcs[k].is_bad() {
            return Err("bindless handles need a message header (not lowered yet)".into());
        }
    }
    let surface = srcs[src::SURFACE];
    let sampler_src = if srcs[src::SAMPLER].is_bad() {
        Operand::imm(Type::UD, 0)
    } else {
        srcs[src::SAMPLER]
    };
    for (what, o) in [("surface", &surface), ("sampler", &sampler_src)] {
        if !matches!(o.file, RegFile::Imm | RegFile::Vgrf) || o.mods != Mods::NONE {
            return Err(format!("a {what} index in {:?} (not lowered)", o.file));
        }
        // The descriptor takes one value for all channels (Mesa broadcasts the index
        // first): a per-channel index stays logical.
        if o.file == RegFile::Vgrf && o.stride != 0 {
            return Err(format!("a {what} index that is not one scalar"));
        }
    }
    // A sampler past 15, or one known only at run time, needs the header to move the
    // Sampler State Pointer on (where the target can) — unless the run-time index is
    // provably below 16 and fits the descriptor's field (`low_samplers`, from
    // [`crate::value_range`]; Mesa puts every run-time index through the header).
    let high_sampler = match sampler_src.file {
        RegFile::Imm => sampler_src.imm_bits() > 15,
        _ => !low_samplers.contains(&inst),
    };
    if high_sampler && !shader.target.target().high_sampler_via_header {
        return Err(format!(
            "a sampler index above 15 or unknown before run time on {} (no Sampler State Pointer offset before Haswell)",
            shader.target.name()
        ));
    }
    let ctl = shader.insts.control[inst];
    let exec = ctl.exec_size as u32;
    let mode = simd_mode(exec)?;
    if ctl.predicate != Predicate::None {
        return Err("a predicated sampler message".into());
    }
    // A response of fewer than four components is a shorter response: the sampler writes
    // components in order and stops after rlen registers, so no header (and no channel
    // mask in it) is needed (Mesa: `lower_sampler_logical_send`, the mask is only set
    // where a header is present anyway).
    let parts: Vec<Part> = lowered
        .params
        .iter()
        .map(|p| match *p {
            Param::Src { src, comp, ty } => {
                let s = srcs[src];
                let v = if s.file == RegFile::Vgrf {
                    let mut v = s;
                    v.offset += comp * exec * s.ty.size() * s.stride.max(1) as u32;
                    v
                } else {
                    s
                };
                Part::Value(v, ty)
            }
            Param::Zero => Part::Zero,
            Param::Unused => Part::Unused,
        })
        .collect();
    let mut out = Vec::new();
    // Mesa `lower_sampler_logical_send`: a header for gathers, header bits, sampleinfo and
    // samplers past 15.
    let header = high_sampler || gather || bits != 0 || op == Opcode::SampleInfoLogical;
    let mlen = parts.len() as u32 * exec / 8 + header as u32;
    if mlen > 11 {
        return Err(format!(
            "a sampler payload of {mlen} registers (11 at most)"
        ));
    }
    let p = if header {
        let high = high_sampler.then_some(sampler_src);
        sampler_header_payload(shader, &mut out, inst, &parts, prior, bits, high)?
    } else {
        payloads(shader, &mut out, ctl, &parts, prior)?
    };
    let imm = |o: &Operand| (o.file == RegFile::Imm).then(|| o.imm_bits() as u32);
    let (desc, desc_reg) = match (imm(&surface), imm(&sampler_src)) {
        (Some(surface), Some(sampler)) => (
            sampler::descriptor(surface, sampler % 16, lowered.msg_type, mode),
            None,
        ),
        _ => (
            sampler::descriptor(0, 0, lowered.msg_type, mode),
            Some(sampler_descriptor_reg(
                shader,
                &mut out,
                surface,
                sampler_src,
            )),
        ),
    };
    let s = send(shader, inst, p, sfid::SAMPLER, desc);
    if let Some(d) = desc_reg {
        shader.srcs_mut(s)[0] = d;
    }
    out.push(s);
    Ok(out)
}

/// The header and parameters of a sampler message with a header (Mesa
/// `lower_sampler_logical_send`): g0 copied; dword 2 holding the header bits and, where
/// fewer than four components are returned, the mask of those left out — or cleared
/// outside vertex and fragment shaders (whose g0.2 is zero); for a sampler past 15
/// (`high_sampler`), dword 3, the Sampler State Pointer, moved on by `(sampler & 0xf0) << 4`
/// bytes. Where the target has split sends the header is the first payload and the
/// parameters the second (as Mesa's `opt_split_sends` leaves them); else one payload.
fn sampler_header_payload(
    shader: &mut Shader,
    out: &mut Vec<Inst>,
    inst: Inst,
    parts: &[Part],
    prior: &[Inst],
    bits: u32,
    high_sampler: Option<Operand>,
) -> Result<Payload, String> {
    let ctl = shader.insts.control[inst];
    let exec = ctl.exec_size as u32;
    let per_comp = exec / 8;
    let split = shader.target.target().has_split_send && !parts.is_empty();
    let (whole, second) = if split {
        let parts = resolve_parts(shader, prior, ctl, parts);
        let data = payload(shader, out, ctl, &parts)?;
        (
            shader
                .vgrfs
                .push(VgrfLayout::flat(shader.reg_size()))
                .index() as u32,
            Some(data),
        )
    } else {
        check_parts(shader, ctl, parts)?;
        (
            payload_moves(shader, out, ctl, parts, shader.reg_size())?,
            None,
        )
    };
    let ud = |o: u32| Operand::vgrf(whole, o, Type::UD, 1);
    let g0 = |byte: u32, region: eubatch_ir::Region| Operand::fixed(0, byte, Type::UD, region);
    // Header dwords are written by one channel, whatever the message's channels.
    let scalar = Builder::new(1).exec_all();
    out.push(Builder::new(8).exec_all().mov(
        shader,
        ud(0),
        g0(0, eubatch_ir::Region::new(8, 8, 1)),
    ));
    let regs = shader.insts.size_written[inst].div_ceil(shader.reg_size());
    let not_written = if regs < 4 * per_comp {
        !((1u32 << (regs / per_comp)) - 1) & 0xf
    } else {
        0
    };
    let dword2 = bits | not_written << 12;
    if dword2 != 0 {
        out.push(scalar.mov(shader, ud(8), Operand::imm(Type::UD, dword2 as u64)));
    } else if !sampler::g0_dword2_is_zero(shader.stage) {
        out.push(scalar.mov(shader, ud(8), Operand::imm(Type::UD, 0)));
    }
    let g0_3 = g0(12, eubatch_ir::Region::new(0, 1, 0));
    match high_sampler {
        None => {}
        Some(s) if s.file == RegFile::Imm => {
            let offset = 16 * (s.imm_bits() as u32 / 16) * 16;
            out.push(scalar.add(shader, ud(12), g0_3, Operand::imm(Type::UD, offset as u64)));
        }
        Some(s) => {
            let tmp = shader.vgrfs.push(VgrfLayout::flat(4)).index() as u32;
            let t = Operand::vgrf(tmp, 0, Type::UD, 1);
            let sampler = scalar_ud(s);
            out.push(scalar.and(shader, t, sampler, Operand::imm(Type::UD, 0xf0)));
            out.push(scalar.shl(shader, t, t, Operand::imm(Type::UD, 4)));
            out.push(scalar.add(shader, ud(12), g0_3, t));
        }
    }
    // The parameters follow the header in the first payload or are the second.
    let params = parts.len() as u32 * per_comp;
    let (mlen, ex_mlen) = if second.is_some() {
        (1, params)
    } else {
        (1 + params, 0)
    };
    Ok(Payload {
        first: ud(0),
        second,
        mlen,
        ex_mlen,
        header: 1,
    })
}

/// The surface and sampler fields of a descriptor computed at run time (Mesa
/// `lower_sampler_logical_send`): `surface * 0x101` where both are the same value,
/// else `sampler << 8 | surface`, masked to the 12 bits; a scalar the `send` ORs into its
/// own descriptor.
fn sampler_descriptor_reg(
    shader: &mut Shader,
    out: &mut Vec<Inst>,
    surface: Operand,
    sampler: Operand,
) -> Operand {
    let (d, desc) = super::descriptor_register(shader);
    let scalar = Builder::new(1).exec_all();
    let imm = |v: u64| Operand::imm(Type::UD, v);
    if surface == sampler {
        out.push(scalar.mul(shader, d, scalar_ud(surface), imm(0x101)));
    } else if sampler.file == RegFile::Imm {
        out.push(scalar.or(shader, d, scalar_ud(surface), imm(sampler.imm_bits() << 8)));
    } else {
        out.push(scalar.shl(shader, d, scalar_ud(sampler), imm(8)));
        out.push(scalar.or(shader, d, d, scalar_ud(surface)));
    }
    out.push(scalar.and(shader, d, d, imm(0xfff)));
    desc
}

/// An index source read as one unsigned dword (channel 0: Mesa makes it uniform first).
fn scalar_ud(o: Operand) -> Operand {
    let mut o = o;
    if o.file != RegFile::Imm {
        o.ty = Type::UD;
        o.stride = 0;
        o.region = eubatch_ir::Region::new(0, 1, 0);
    } else {
        o = Operand::imm(Type::UD, o.imm_bits());
    }
    o
}
