//! Render target writes of the logical sends: `fb_write_logical` of colour, a second
//! colour (SIMD8 dual-source) and source depth, the k-th write to target k, with a header
//! where the shader has several targets or blends two colours (Mesa:
//! `lower_fb_write_logical_send`).
//!
//! Rules that limit it: SIMD8 or SIMD16 single-source, SIMD8 dual-source (the subspans of
//! its channels in the message subtype); no source-0 alpha, destination depth, stencil or
//! output mask (left logical, not lowered yet); before gen11 several targets and
//! dual-source blending need the header; the write that ends the thread reads its payload
//! from g112-g127 ([`eubatch_ir::target::Target::EOT_PAYLOAD_FIRST_GRF`]), so its header is
//! never g0 and g1 in place.

use eubatch_ir::message::sampler::ParamType;
use eubatch_ir::message::{render_target, sfid};
use eubatch_ir::shader::Predicate;
use eubatch_ir::{Builder, Inst, Opcode, Operand, RegFile, Shader, Type, VgrfLayout};

use super::payload::{check_parts, payload, payload_moves, payloads, resolve_parts, Part, Payload};
use super::{immediate, send};

/// The render target of each render target write of the shader, and how many writes it
/// has, counting the channel-group pieces of one split write once (every piece but the
/// first starts past channel 0). Mesa writes the targets in order, each once
/// (brw_fs_visitor.cpp `emit_fb_writes`: target 0 to nr_color_regions - 1; the corpora's
/// final code confirms it), so the k-th write is target k; the pieces of a split write
/// share their first piece's target.
pub(super) fn targets(shader: &Shader) -> (hashbrown::HashMap<Inst, u32>, u32) {
    let mut targets: hashbrown::HashMap<Inst, u32> = hashbrown::HashMap::new();
    let mut fb_writes = 0u32;
    for i in shader.layout.insts() {
        if shader.insts.opcode[i] == Opcode::FbWriteLogical {
            if shader.insts.control[i].group == 0 {
                fb_writes += 1;
            }
            targets.insert(i, fb_writes.saturating_sub(1));
        }
    }
    (targets, fb_writes)
}

/// A render-target write header this block already built (split sends only): a VGRF of
/// g0 and g1 (or g2, channels 16-31) with the target index in dword 2, and whether the
/// pixel mask (dword 15) was written into it.
#[derive(Clone, Copy)]
pub(super) struct FbHeader {
    vgrf: u32,
    mask_written: bool,
}

/// A render target write of colour 0 (and colour 1 for dual-source blending, and source
/// depth) to `target` of the shader's `targets`. With several targets or two colours
/// (before gen11) the message has a header: g0 and g1 (g0 and g2 for the
/// second half of a SIMD32 write), the target index in dword 2 for blend state, and, when
/// the shader discards (its writes are predicated on the sample mask), that mask in the
/// low word of dword 15 (Mesa: `lower_fb_write_logical_send`).
pub(super) fn fb_write(
    shader: &mut Shader,
    inst: Inst,
    target: u32,
    targets: u32,
    prior: &[Inst],
    headers: &mut hashbrown::HashMap<u8, FbHeader>,
) -> Result<Vec<Inst>, String> {
    use render_target::src;
    let srcs = shader.srcs(inst).to_vec();
    if srcs.len() <= src::COMPONENTS {
        return Err(format!("`fb_write_logical` with {} sources", srcs.len()));
    }
    for (k, what) in [
        (src::SRC0_ALPHA, "source-0 alpha"),
        (src::DST_DEPTH, "destination depth"),
        (src::SRC_STENCIL, "stencil"),
        (src::OMASK, "an output mask"),
    ] {
        if !srcs[k].is_bad() {
            return Err(format!(
                "a render target write with {what} (not lowered yet)"
            ));
        }
    }
    let comps = immediate(&srcs[src::COMPONENTS], "component count")?;
    let ctl = shader.insts.control[inst];
    let exec = ctl.exec_size as u32;
    let dual = !srcs[src::COLOR1].is_bad();
    let subtype = match (exec, dual) {
        (8, false) => render_target::SIMD8_SINGLE_SOURCE,
        (16, false) => render_target::SIMD16_SINGLE_SOURCE,
        // The subspans of the channels: 0-1 for the first eight, 2-3 for the next.
        (8, true) if ctl.group % 16 == 0 => render_target::SIMD8_DUAL_SOURCE_SUBSPAN01,
        (8, true) => render_target::SIMD8_DUAL_SOURCE_SUBSPAN23,
        (w, d) => {
            return Err(format!(
                "a SIMD{w} {}render target write",
                if d { "dual-source " } else { "" }
            ))
        }
    };
    // Colour 0 (R, G, B, A), colour 1 for dual-source blending, then source depth: the
    // payload order of the message. Components past the count, or past what the VGRF
    // holds, are sent undefined, as Mesa sends them.
    let value = |v: Operand| {
        let ty = if v.ty.is_float() {
            ParamType::Float
        } else {
            ParamType::Int
        };
        Part::Value(v, ty)
    };
    let colour = |color: Operand| -> Vec<Part> {
        (0..4)
            .map(|c| {
                let mut v = color;
                if v.file == RegFile::Vgrf {
                    v.offset += c * exec * v.ty.size();
                }
                if c < comps && !color.is_bad() && crate::lower::inside_vgrf(shader, &v, exec * 4) {
                    value(v)
                } else {
                    Part::Unused
                }
            })
            .collect()
    };
    let mut parts = colour(srcs[src::COLOR0]);
    if dual {
        parts.extend(colour(srcs[src::COLOR1]));
    }
    if !srcs[src::SRC_DEPTH].is_bad() {
        parts.push(value(srcs[src::SRC_DEPTH]));
    }
    let mut out = Vec::new();
    let last = target + 1 == targets;
    // The render target slot group, bit 11: the high half of a SIMD32 write
    // (`lower_fb_write_logical_send`: `(inst->group / 16) << 11`).
    let desc = render_target::write_desc(target, subtype, last) | (ctl.group as u32 / 16) << 11;
    // Before gen11 several targets and dual-source blending need the header.
    if targets <= 1 && !dual {
        let p = payloads(shader, &mut out, ctl, &parts, prior)?;
        out.push(send(shader, inst, p, sfid::RENDER_CACHE, desc));
        return Ok(out);
    }
    // The header goes in front: its own payload where sends split (Mesa's
    // `opt_split_sends` splits after a header), else the first two registers of one.
    let split = shader.target.target().has_split_send;
    let regs = parts.len() as u32 * exec / 8;
    let grf = |nr: u32| Operand::fixed(nr, 0, Type::UD, eubatch_ir::Region::new(8, 8, 1));
    // g0 and g1 unchanged: the send reads them where they are (Mesa's copy propagation
    // does the same to its header copy).
    // Not for the write that ends the thread: its payload must lie in g112-g127
    // ([`eubatch_ir::target::Target::EOT_PAYLOAD_FIRST_GRF`]).
    let header_in_place =
        split && ctl.group < 16 && target == 0 && ctl.predicate == Predicate::None && !ctl.eot();
    // (header VGRF, payload, whether the header is new and needs g0 and g1 copied in)
    let (header, p, fresh) = if split {
        let parts = resolve_parts(shader, prior, ctl, &parts);
        let colour = payload(shader, &mut out, ctl, &parts)?;
        let p = Payload {
            first: grf(0),
            second: Some(colour),
            mlen: 2,
            ex_mlen: regs,
            header: 2,
        };
        if header_in_place {
            out.push(send(shader, inst, p, sfid::RENDER_CACHE, desc));
            return Ok(out);
        }
        // The header an earlier write of these channels in this block built differs only
        // in the target index (and the pixel mask of a predicated write): the sends read
        // their payloads in order, so this write rewrites those dwords in place (what
        // Mesa's CSE and register coalescing make of its per-write header copies).
        let reuse = headers
            .get(&ctl.group)
            .filter(|h| !h.mask_written || ctl.predicate != Predicate::None)
            .copied();
        let h = match reuse {
            Some(h) => h.vgrf,
            None => shader.vgrfs.push(VgrfLayout::flat(64)).index() as u32,
        };
        headers.insert(
            ctl.group,
            FbHeader {
                vgrf: h,
                mask_written: ctl.predicate != Predicate::None,
            },
        );
        let first = Operand::vgrf(h, 0, Type::UD, 1);
        (h, Payload { first, ..p }, reuse.is_none())
    } else {
        check_parts(shader, ctl, &parts)?;
        let whole = payload_moves(shader, &mut out, ctl, &parts, 64)?;
        let p = Payload {
            first: Operand::vgrf(whole, 0, Type::UD, 1),
            second: None,
            mlen: 2 + regs,
            ex_mlen: 0,
            header: 2,
        };
        (whole, p, true)
    };
    // A new header copies g0 and g1 (g0 and g2 for channels 16-31): (byte, register,
    // width) of each copy. A shared one holds them already.
    let copies: &[(u32, u32, u8)] = match (fresh, ctl.group < 16) {
        (false, _) => &[],
        (true, true) => &[(0, 0, 16)],
        (true, false) => &[(0, 0, 8), (32, 2, 8)],
    };
    for &(byte, reg, width) in copies {
        let dst = Operand::vgrf(header, byte, Type::UD, 1);
        out.push(Builder::new(width).exec_all().mov(shader, dst, grf(reg)));
    }
    // The target index (dword 2; 0 is g0's own) and, for a write predicated on the sample
    // mask, the pixel enables (dword 15) from the flag.
    if target > 0 {
        let dst = Operand::vgrf(header, 8, Type::UD, 1);
        out.push(Builder::new(1).exec_all().mov(
            shader,
            dst,
            Operand::imm(Type::UD, target as u64),
        ));
    }
    if ctl.predicate != Predicate::None {
        // The sample mask the write is predicated on, for the pixel enables.
        let subreg = ctl.flag_subreg as u32 + ctl.group as u32 / 16;
        let flag = Operand::arf(
            eubatch_ir::operand::arf::FLAG | (subreg / 2),
            (subreg % 2) * 2,
            Type::UW,
            eubatch_ir::Region::new(0, 1, 0),
        );
        let dst = Operand::vgrf(header, 60, Type::UW, 1);
        out.push(Builder::new(1).exec_all().mov(shader, dst, flag));
    }
    out.push(send(shader, inst, p, sfid::RENDER_CACHE, desc));
    Ok(out)
}
