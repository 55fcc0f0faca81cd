//! Propagation into message sources, which have payload layouts of their own: a whole-VGRF
//! copy into per-channel offsets, registers copied whole into a raw `send`'s payloads,
//! and payloads that another VGRF equals piece by piece read from that one.

use eubatch_ir::{Inst, Opcode, Operand, RegFile, Shader};

use crate::analysis::access::{Slots, SLOT};
use eubatch_ir::size_read::payload_len;

use super::copies::*;

/// Message sources that are one value per channel, read in the message's own channels (a
/// pull-constant load's offsets): a copy of a whole VGRF into the whole source VGRF can be
/// read from the original, which has the same size. Other message sources have payload
/// layouts of their own and are left alone.
pub(super) fn rewrite_message_sources<'a>(
    shader: &mut Shader,
    slots: &Slots,
    inst: Inst,
    all: &dyn Fn() -> Vec<&'a Copy>,
    copies: impl Fn(u32) -> Vec<&'a Copy>,
) -> bool {
    let op = shader.insts.opcode[inst];
    if op == Opcode::Send {
        return rewrite_send_payloads(shader, inst, all, copies);
    }
    if op == Opcode::FbWriteLogical || eubatch_ir::width_rules::is_sampler_message(op) {
        return rewrite_component_sources(shader, inst, all, copies);
    }
    let k = match op {
        Opcode::VaryingPullConstLogical if shader.srcs(inst).len() == 4 => 2,
        Opcode::VaryingPullConstLogical => 1,
        _ => return false,
    };
    let ctl = shader.insts.control[inst];
    let Some(&s) = shader.srcs(inst).get(k) else {
        return false;
    };
    if s.file != RegFile::Vgrf || s.offset != 0 || s.mods != eubatch_ir::Mods::NONE {
        return false;
    }
    let size = |nr: u32| {
        let r = slots.vgrf(shader, nr);
        (r.end - r.start) * SLOT
    };
    let found = copies(s.nr).into_iter().find(|c| {
        c.dst.offset == 0
            && c.len == size(s.nr)
            && c.src.file == RegFile::Vgrf
            && c.src.offset == 0
            && c.src.stride == 1
            && c.src.mods == eubatch_ir::Mods::NONE
            && c.src.ty == s.ty
            && size(c.src.nr) == c.len
            && (c.no_mask || (!ctl.no_mask() && c.group == ctl.group as u32))
    });
    match found {
        Some(c) => {
            shader.srcs_mut(inst)[k].nr = c.src.nr;
            true
        }
        None => false,
    }
}

/// The multi-component sources of a render target write or sampler message (colours,
/// coordinates: `source_components` values of the message's width, one after the other):
/// where copies of one other VGRF, at one offset from it, cover every byte the message
/// reads, in its channels, the message reads that VGRF instead — the copy of a whole
/// colour or coordinate that each of several messages made (Mesa gets the same from
/// CSE of the LOAD_PAYLOADs and register coalescing).
pub(super) fn rewrite_component_sources<'a>(
    shader: &mut Shader,
    inst: Inst,
    all: &dyn Fn() -> Vec<&'a Copy>,
    copies: impl Fn(u32) -> Vec<&'a Copy>,
) -> bool {
    let op = shader.insts.opcode[inst];
    let ctl = shader.insts.control[inst];
    let exec = ctl.exec_size as u32;
    let mut progress = false;
    for k in 0..shader.srcs(inst).len() {
        let s = shader.srcs(inst)[k];
        if s.file != RegFile::Vgrf || s.stride != 1 || s.mods != eubatch_ir::Mods::NONE {
            continue;
        }
        let comps = eubatch_ir::message::source_components(op, shader.srcs(inst), k);
        let span = comps * exec * s.ty.size();
        if let Some((nr, delta)) = covering_origin(&copies, all, &s, span, ctl) {
            let offset = s.offset as i64 + delta;
            if offset >= 0 {
                let src = &mut shader.srcs_mut(inst)[k];
                src.nr = nr;
                src.offset = offset as u32;
                progress = true;
            }
        }
    }
    progress
}

/// A `send`'s payload (or second payload) that one move copied from whole registers of
/// another VGRF is read from there: the message reads `mlen` (`ex_mlen`) registers in the
/// send's channels, which the move wrote from the same place. Failing that, a payload that
/// equals another VGRF piece by piece ([`covering_origin`]) reads that one.
pub(super) fn rewrite_send_payloads<'a>(
    shader: &mut Shader,
    inst: Inst,
    all: &dyn Fn() -> Vec<&'a Copy>,
    copies: impl Fn(u32) -> Vec<&'a Copy>,
) -> bool {
    let ctl = shader.insts.control[inst];
    let reg = shader.reg_size();
    let mut progress = false;
    for k in 0..shader.srcs(inst).len() {
        let Some(len) = payload_len(shader, inst, k) else {
            continue;
        };
        let s = shader.srcs(inst)[k];
        if s.file != RegFile::Vgrf || len == 0 || s.mods != eubatch_ir::Mods::NONE {
            continue;
        }
        let found = copies(s.nr).into_iter().find_map(|c| {
            let in_channels = c.no_mask || (!ctl.no_mask() && c.group == ctl.group as u32);
            // A thread-payload register copied whole and read whole (`mov(8) vgrfH:UD,
            // g0<8,8,1>:UD NoMask`, a sampler header whose dword 2 needs no write): the
            // send reads the register itself, as Mesa's try_copy_propagate propagates a
            // FIXED_GRF into a send's payload (`sends(8) g123UD g0UD g2UD` in its final
            // code) — but not into an EOT send, whose payload is pinned to g112-g127
            // (Target::EOT_PAYLOAD_FIRST_GRF). `copy_of` keeps such copies only where no
            // instruction writes a fixed register, so the register still holds the value.
            if c.src.file == RegFile::FixedGrf {
                let whole = c.dst.offset == s.offset && c.len == len && len % reg == 0;
                return (whole && in_channels && !ctl.eot() && c.src.offset % reg == 0)
                    .then_some(Operand { ty: s.ty, ..c.src });
            }
            let inside = c.dst.offset <= s.offset && s.offset + len <= c.dst.offset + c.len;
            let ok = inside
                && c.src.file == RegFile::Vgrf
                && c.src.stride == 1
                && c.src.mods == eubatch_ir::Mods::NONE
                && (c.no_mask || (!ctl.no_mask() && c.group == ctl.group as u32));
            let offset = c.src.offset + (s.offset - c.dst.offset.min(s.offset));
            (ok && offset % reg == 0).then(|| Operand {
                nr: c.src.nr,
                offset,
                ..s
            })
        });
        let found = found.or_else(|| {
            let (nr, delta) = covering_origin(&copies, all, &s, len, ctl)?;
            let offset = s.offset as i64 + delta;
            (offset >= 0 && offset % reg as i64 == 0).then(|| Operand {
                nr,
                offset: offset as u32,
                ..s
            })
        });
        if let Some(new) = found {
            shader.srcs_mut(inst)[k] = new;
            progress = true;
        }
    }
    progress
}

/// The VGRF and offset shift whose bytes `len` bytes of `s` (read in the channels of
/// `ctl`) equal, by the available copies: every piece of `s` is a copy of that VGRF at the
/// shift, or a copy of the same thing (an immediate, another register) that the matching
/// piece of that VGRF is a copy of — copy propagation turns both copies of a constant
/// alpha into immediates, and a payload rebuilt from another payload's sources equals it.
/// `all` holds every available copy (and the gaps of those undone), where those other
/// payloads are found.
pub(super) fn covering_origin<'a>(
    copies: &dyn Fn(u32) -> Vec<&'a Copy>,
    all: &dyn Fn() -> Vec<&'a Copy>,
    s: &Operand,
    len: u32,
    ctl: eubatch_ir::Control,
) -> Option<(u32, i64)> {
    let list = copies(s.nr);
    let in_channels = |c: &Copy| c.no_mask || (!ctl.no_mask() && c.group == ctl.group as u32);
    let mut chunks: Vec<&Copy> = Vec::new();
    let mut at = s.offset;
    while at < s.offset + len {
        let c = *list
            .iter()
            .find(|c| c.dst.offset <= at && at < c.dst.offset + c.len)?;
        if !in_channels(c) || c.dst.offset < s.offset || c.src.mods != eubatch_ir::Mods::NONE {
            return None;
        }
        chunks.push(c);
        at = c.dst.offset + c.len;
    }
    if at != s.offset + len {
        return None;
    }
    let direct = |c: &Copy| {
        (c.src.file == RegFile::Vgrf && c.src.stride == 1 && c.src.ty.size() == s.ty.size())
            .then(|| (c.src.nr, c.src.offset as i64 - c.dst.offset as i64))
    };
    // Where it could equal: the VGRFs it copies from, and those holding a copy of what its
    // first piece copies (another payload built from the same values).
    let mut candidates: Vec<(u32, i64)> = chunks.iter().filter_map(|c| direct(c)).collect();
    let first = chunks[0];
    candidates.extend(
        all()
            .into_iter()
            .filter(|d| d.dst.nr != s.nr && d.src == first.src && d.len == first.len)
            .map(|d| (d.dst.nr, d.dst.offset as i64 - first.dst.offset as i64)),
    );
    candidates.into_iter().find(|&(nr, delta)| {
        let theirs = copies(nr);
        chunks.iter().all(|c| {
            if direct(c) == Some((nr, delta)) {
                return true;
            }
            let there = c.dst.offset as i64 + delta;
            theirs.iter().any(|d| {
                d.dst.offset as i64 == there
                    && d.len == c.len
                    && d.src == c.src
                    && d.dst.ty.size() == c.dst.ty.size()
                    && in_channels(d)
            })
        })
    })
}
