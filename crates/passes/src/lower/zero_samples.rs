//! Trailing zero sampler parameters left out: a sampler `send` whose last parameters are
//! known to be zero in every channel is sent without them, a shorter message (Mesa 25
//! `brw_opt_zero_samples`, brw_opt.cpp; Mesa 22.3's `opt_zero_samples` looked for them
//! before its sends were built and found none on gen7+). What they held, moves of zero,
//! is then dead.
//!
//! A parameter is known to be zero when the registers it takes of the payload are of a
//! VGRF defined once for the whole shader (defined wholly, or in pieces, outside control
//! flow: [`crate::analysis::defs`]) before the `send`, by moves of an immediate whose bits
//! are all zero (`0`, `0u`, `+0.0`; not `-0.0`, which the sampler would read as a
//! different coordinate bit pattern). A `send` that ignores the execution mask reads
//! every channel of its payload, so its zeros must be written in every channel too.
//!
//! Rules that limit it ([`eubatch_ir::message::sampler`]): parameters a message leaves out
//! are zero to the sampler, and parameter 0 is required
//! ([`sampler::TRAILING_PARAMETERS_OPTIONAL`], [`sampler::required_parameters`]); the
//! header is never cut; a parameter of a SIMD16 message is two registers, left out
//! whole. The second payload of a split send is the end of the message: cut first, and
//! dropped when nothing of it is left.

use eubatch_ir::message::{self, sampler, sfid};
use eubatch_ir::{Inst, Opcode, Operand, RegFile, Shader};

use crate::analysis::changed::Changed;
use crate::analysis::defs::Defs;
use crate::analysis::points::Points;
use crate::PassCx;

/// Scalar code: sends built by the scalar back end's lowering.
pub const SCOPE: crate::manager::Scope = crate::manager::Scope::SCALAR;

pub fn run(shader: &mut Shader, cx: &mut PassCx) -> Changed {
    if !sampler::TRAILING_PARAMETERS_OPTIONAL {
        return Changed::NOTHING;
    }
    // (The analyses only where some sampler message has a parameter it could leave out.)
    let sends: Vec<Inst> = shader
        .layout
        .insts()
        .filter(|&i| shader.insts.opcode[i] == Opcode::Send && optional_parameters(shader, i) > 0)
        .collect();
    if sends.is_empty() {
        return Changed::NOTHING;
    }
    let defs = cx.defs(shader);
    let points = cx.points(shader);
    let mut progress = false;
    for inst in sends {
        progress |= trim(shader, &defs, &points, inst);
    }
    // A send's lengths and sources changed; nothing was added, removed or moved.
    Changed::when(
        progress,
        Changed::INSTRUCTION_DETAIL | Changed::INSTRUCTION_DATA_FLOW,
    )
}

/// Registers of sampler send `inst`'s payload beyond its header and required parameters
/// (0 for any other send).
fn optional_parameters(shader: &Shader, inst: Inst) -> u32 {
    let Some(info) = shader.send_info(inst).filter(|s| s.sfid == sfid::SAMPLER) else {
        return 0;
    };
    let per_param = (shader.insts.control[inst].exec_size as u32)
        .div_ceil(8)
        .max(1);
    let required = sampler::required_parameters(sampler::Desc::decode(info.desc).msg_type);
    (info.mlen as u32 + info.ex_mlen as u32)
        .saturating_sub(info.header_size as u32 + required * per_param)
}

/// Leaves out the trailing zero parameters of sampler send `inst`; whether it did.
fn trim(shader: &mut Shader, defs: &Defs, points: &Points, inst: Inst) -> bool {
    let Some(info) = shader.send_info(inst).copied() else {
        return false;
    };
    let srcs = shader.srcs(inst);
    // Lowering's form: descriptors first, then the payloads (the registers the message
    // lengths count).
    if srcs.len() < 3 || srcs.len() > 4 || info.ex_mlen > 0 && srcs.len() != 4 {
        return false;
    }
    let (first, second) = (srcs[2], srcs.get(3).copied());
    let ctl = shader.insts.control[inst];
    let per_param = (ctl.exec_size as u32).div_ceil(8).max(1);
    let header = info.header_size as u32;
    let desc = sampler::Desc::decode(info.desc);
    let (mlen, ex_mlen) = (info.mlen as u32, info.ex_mlen as u32);
    let params = (mlen + ex_mlen).saturating_sub(header);
    let required = sampler::required_parameters(desc.msg_type) * per_param;
    if !params.is_multiple_of(per_param) || params <= required {
        return false;
    }
    let reg = shader.reg_size();
    // Register `r` of the whole payload (the first payload's, then the second's).
    let register = |r: u32| -> Option<(Operand, u32)> {
        if r < mlen {
            Some((first, r))
        } else {
            second.map(|s| (s, r - mlen))
        }
    };
    let at = points.of(inst);
    let no_mask = ctl.no_mask();
    let zero_register = |r: u32| {
        register(r).is_some_and(|(part, k)| {
            zero_bytes(
                shader,
                defs,
                points,
                at,
                no_mask,
                &part,
                part.offset + k * reg,
                reg,
            )
        })
    };
    // Whole parameters from the end, never the header or the required ones.
    let mut end = header + params;
    while end - header > required && (end - per_param..end).all(zero_register) {
        end -= per_param;
    }
    if end == header + params {
        return false;
    }
    let (new_mlen, new_ex) = if end > mlen {
        (mlen, end - mlen)
    } else {
        (end, 0)
    };
    let mut s = info;
    s.mlen = new_mlen as u8;
    s.ex_mlen = new_ex as u8;
    s.desc =
        s.desc & !message::message_desc(0xf, 0, false) | message::message_desc(new_mlen, 0, false);
    s.ex_desc = s.ex_desc & !message::ex_desc(0xf) | message::ex_desc(new_ex);
    shader.set_send_info(inst, s);
    if new_ex == 0 && second.is_some() {
        shader.insts.srcs[inst].len -= 1;
    }
    true
}

/// Whether bytes `[from, from + len)` of the VGRF `part` names hold zero bits where a send
/// at point `at` reads them: written before it by moves of a zero immediate, the VGRF's
/// one definition or pieces of it; in every channel when the send ignores the mask.
#[allow(clippy::too_many_arguments)]
fn zero_bytes(
    shader: &Shader,
    defs: &Defs,
    points: &Points,
    at: Option<crate::analysis::points::Point>,
    no_mask: bool,
    part: &Operand,
    from: u32,
    len: u32,
) -> bool {
    if part.file != RegFile::Vgrf {
        return false;
    }
    let v = part.nr as usize;
    let writers: &[Inst] = match defs.single.get(v) {
        Some(Some(d)) => std::slice::from_ref(d),
        _ => match defs.pieces(v) {
            Some(pieces) => pieces,
            None => return false,
        },
    };
    let end = from + len;
    if end > shader.vgrfs[part.vgrf_nr()].size() {
        return false;
    }
    writers.iter().all(|&w| {
        let dst = shader.insts.dst[w];
        let c = shader.insts.control[w];
        let (lo, hi) = (dst.offset, dst.offset + shader.insts.size_written[w]);
        // (Pieces that do not touch the bytes say nothing of them.)
        hi <= from
            || lo >= end
            || shader.insts.opcode[w] == Opcode::Mov
                && (no_mask <= c.no_mask())
                && !c.saturate()
                && c.predicate == eubatch_ir::shader::Predicate::None
                && dst.stride == 1
                && points.of(w).zip(at).is_some_and(|(p, q)| p < q)
                && shader.srcs(w).first().is_some_and(|s| {
                    s.file == RegFile::Imm && s.imm_bits() == 0 && s.mods == eubatch_ir::Mods::NONE
                })
    })
}
