//! URB messages of the logical sends: URB SIMD8 reads and writes (Mesa:
//! `lower_urb_read_logical_send`, `lower_urb_write_logical_send`): the handles, per-slot
//! offsets and channel masks as the header, the data after it (the second payload where
//! sends split); the global offset the importer recovered
//! ([`eubatch_ir::shader::SendInfo::urb_offset`]).
//!
//! Rules that limit it: gen8 on (before gen8 there are no SIMD8 URB messages: URB access
//! is the vec4 back end's); SIMD8 only (SIMD-width lowering leaves 8); the offset known
//! (Mesa's dumps do not print it; only the final code beside the dump gives it); a write of
//! 0 (the header alone, ending a thread) to 8 components, a read of 1 to 8 whole registers.

use eubatch_ir::message::sampler::ParamType;
use eubatch_ir::message::sfid;
use eubatch_ir::{Builder, Gen, Inst, Mods, Operand, RegFile, Shader, Type, VgrfLayout};

use super::payload::{check_parts, payload, payload_moves, resolve_parts, Part, Payload};
use super::send;

/// `urb_write_logical handle, per-slot offsets, channel mask, data`: a URB SIMD8 write
/// (Mesa `lower_urb_write_logical_send`): the header ([`urb_header`]), then the data
/// components — the second payload where sends split, read in place where the data VGRF
/// holds them in order.
pub(super) fn urb_write(
    shader: &mut Shader,
    inst: Inst,
    prior: &[Inst],
    headers: &mut UrbHeaders,
) -> Result<Vec<Inst>, String> {
    use eubatch_ir::message::urb;
    let offset = urb_common(shader, inst)?;
    let srcs = shader.srcs(inst).to_vec();
    let present = |k: usize| srcs.get(k).filter(|s| !s.is_bad()).copied();
    let per_slot = present(urb::src::PER_SLOT_OFFSETS);
    let mask = present(urb::src::CHANNEL_MASK);
    let extra: Vec<Operand> = per_slot.into_iter().chain(mask).collect();
    let header_regs = 1 + extra.len() as u32;
    let desc = urb::desc(urb::SIMD8_WRITE, per_slot.is_some(), mask.is_some(), offset);
    let Some(data) = present(urb::src::DATA) else {
        // No data: the header alone, the message only ending the thread (Mesa's
        // `emit_gs_thread_end` of a geometry shader that emits no vertex, `mlen = 1`;
        // `lower_urb_write_logical_send` then sends the header by itself).
        let mut out = Vec::new();
        let first = urb_header(shader, &mut out, inst, &extra);
        let p = Payload {
            first,
            second: None,
            mlen: header_regs,
            ex_mlen: 0,
            header: header_regs,
        };
        out.push(send(shader, inst, p, sfid::URB, desc));
        return Ok(out);
    };
    let mlen = shader.send_info(inst).map_or(0, |s| s.mlen as u32);
    let comps = urb::write_components(&srcs, mlen);
    if comps == 0 || comps > 8 {
        return Err(format!("a URB write of {comps} components (1 to 8)"));
    }
    let ctl = shader.insts.control[inst];
    let parts: Vec<Part> = (0..comps)
        .map(|c| {
            let mut v = data;
            if v.file == RegFile::Vgrf {
                v.offset += c * 8 * v.ty.size();
            }
            let ty = if v.ty.is_float() {
                ParamType::Float
            } else {
                ParamType::Int
            };
            Part::Value(v, ty)
        })
        .collect();
    let mut out = Vec::new();
    let p = if shader.target.target().has_split_send {
        let parts = resolve_parts(shader, prior, ctl, &parts);
        let data = payload(shader, &mut out, ctl, &parts)?;
        let first = shared_urb_header(shader, &mut out, inst, &extra, prior, headers);
        Payload {
            first,
            second: Some(data),
            mlen: header_regs,
            ex_mlen: comps,
            header: header_regs,
        }
    } else {
        // One payload: the header registers first, then the data, all copied.
        check_parts(shader, ctl, &parts)?;
        let mut all: Vec<Part> = extra
            .iter()
            .map(|e| Part::Value(*e, ParamType::Int))
            .collect();
        all.extend(parts);
        let whole = payload_moves(shader, &mut out, ctl, &all, shader.reg_size())?;
        copy_urb_handles(shader, &mut out, whole, srcs[urb::src::HANDLE]);
        Payload {
            first: Operand::vgrf(whole, 0, Type::UD, 1),
            second: None,
            mlen: header_regs + comps,
            ex_mlen: 0,
            header: header_regs,
        }
    };
    out.push(send(shader, inst, p, sfid::URB, desc));
    Ok(out)
}

/// `urb_read_logical dst, handle, per-slot offsets`: a URB SIMD8 read (Mesa
/// `lower_urb_read_logical_send`) of as many registers as the destination, one per dword.
pub(super) fn urb_read(shader: &mut Shader, inst: Inst) -> Result<Vec<Inst>, String> {
    use eubatch_ir::message::urb;
    let offset = urb_common(shader, inst)?;
    let srcs = shader.srcs(inst).to_vec();
    let per_slot = srcs
        .get(urb::src::PER_SLOT_OFFSETS)
        .filter(|s| !s.is_bad())
        .copied();
    let size = shader.insts.size_written[inst];
    let reg = shader.reg_size();
    if size == 0 || !size.is_multiple_of(reg) || size > 8 * reg {
        return Err(format!(
            "a URB read of {size} bytes (1 to 8 whole registers)"
        ));
    }
    let extra: Vec<Operand> = per_slot.into_iter().collect();
    let mut out = Vec::new();
    let first = urb_header(shader, &mut out, inst, &extra);
    let regs = 1 + extra.len() as u32;
    let p = Payload {
        first,
        second: None,
        mlen: regs,
        ex_mlen: 0,
        header: regs,
    };
    let desc = urb::desc(urb::SIMD8_READ, per_slot.is_some(), false, offset);
    out.push(send(shader, inst, p, sfid::URB, desc));
    Ok(out)
}

/// The URB offset of a logical URB message, and the checks every URB message needs: the
/// gen8+ SIMD8 message (before gen8 URB access is the vec4 back end's) and the offset known.
fn urb_common(shader: &Shader, inst: Inst) -> Result<u32, String> {
    if shader.target < Gen::Gen8 {
        return Err("a scalar URB message before gen8 (no SIMD8 URB messages there)".into());
    }
    let exec = shader.insts.control[inst].exec_size;
    if exec != 8 {
        return Err(format!(
            "a SIMD{exec} URB message (SIMD-width lowering leaves 8)"
        ));
    }
    shader
        .send_info(inst)
        .and_then(|s| s.urb_offset)
        .map(u32::from)
        .ok_or_else(|| {
            "its URB offset is unknown (Mesa's dumps do not print it; no final code for the \
             program, asm.txt, gave it)"
                .into()
        })
}

/// A whole fixed register of 32-bit values, which a message can read in place.
fn whole_fixed_register(op: &Operand) -> Option<Operand> {
    (op.file == RegFile::FixedGrf
        && op.offset == 0
        && op.ty.size() == 4
        && op.region == eubatch_ir::Region::new(8, 8, 1)
        && op.mods == Mods::NONE)
        .then(|| Operand::fixed(op.nr, 0, Type::UD, eubatch_ir::Region::new(8, 8, 1)))
}

/// The URB message header: the handles, then the per-slot offsets and channel masks that
/// are present. The handles are read in place where they are a whole register and nothing
/// follows them — but not by a message that ends the thread, whose payload must lie in
/// registers the allocator places ([`eubatch_ir::target::Target::EOT_PAYLOAD_FIRST_GRF`]) — else copied without
/// the execution mask, as Mesa's LOAD_PAYLOAD copies a header; the other parts are copied
/// in the message's channels.
fn urb_header(shader: &mut Shader, out: &mut Vec<Inst>, inst: Inst, extra: &[Operand]) -> Operand {
    let ctl = shader.insts.control[inst];
    let handle = shader.srcs(inst)[eubatch_ir::message::urb::src::HANDLE];
    if extra.is_empty() && !ctl.eot() {
        if let Some(reg) = whole_fixed_register(&handle) {
            return reg;
        }
    }
    let reg = shader.reg_size();
    let h = shader
        .vgrfs
        .push(VgrfLayout::flat(reg * (1 + extra.len() as u32)))
        .index() as u32;
    copy_urb_handles(shader, out, h, handle);
    let channels = Builder::channels_of(ctl);
    for (k, e) in extra.iter().enumerate() {
        let dst = Operand::vgrf(h, reg * (k as u32 + 1), Type::UD, 1);
        out.push(channels.mov(shader, dst, raw_ud(*e)));
    }
    Operand::vgrf(h, 0, Type::UD, 1)
}

/// URB headers a block already built: by handle, extra header parts and channels, the
/// header VGRF and how many of the block's instructions came before it.
pub(super) type UrbHeaders =
    hashbrown::HashMap<(Operand, Vec<Operand>, (u8, u8, bool)), (u32, usize)>;

/// [`urb_header`], or the one an earlier write of the block built from the same handle and
/// parts in the same channels, if nothing since wrote them (a GS writes a vertex's
/// attributes in two messages with one header; Mesa's CSE shares it).
fn shared_urb_header(
    shader: &mut Shader,
    out: &mut Vec<Inst>,
    inst: Inst,
    extra: &[Operand],
    prior: &[Inst],
    headers: &mut UrbHeaders,
) -> Operand {
    let ctl = shader.insts.control[inst];
    let handle = shader.srcs(inst)[eubatch_ir::message::urb::src::HANDLE];
    let key = (
        handle,
        extra.to_vec(),
        (ctl.exec_size, ctl.group, ctl.no_mask()),
    );
    let read_vgrfs: Vec<u32> = std::iter::once(&handle)
        .chain(extra)
        .filter(|o| o.file == RegFile::Vgrf)
        .map(|o| o.nr)
        .collect();
    if let Some(&(h, since)) = headers.get(&key) {
        let changed = prior[since.min(prior.len())..].iter().any(|&i| {
            let d = shader.insts.dst[i];
            (d.file == RegFile::Vgrf && read_vgrfs.contains(&d.nr)) || d.file == RegFile::FixedGrf
        });
        if !changed {
            return Operand::vgrf(h, 0, Type::UD, 1);
        }
    }
    let header = urb_header(shader, out, inst, extra);
    if header.file == RegFile::Vgrf {
        headers.insert(key, (header.nr, prior.len()));
    }
    header
}

/// A register operand's bits as unsigned dwords (an immediate stays as it is).
fn raw_ud(mut o: Operand) -> Operand {
    if o.file != RegFile::Imm {
        o.ty = Type::UD;
    }
    o
}

/// The URB handles copied into register 0 of VGRF `vgrf`, without the execution mask (a
/// message header: Mesa's LOAD_PAYLOAD copies header registers so).
fn copy_urb_handles(shader: &mut Shader, out: &mut Vec<Inst>, vgrf: u32, handle: Operand) {
    let dst = Operand::vgrf(vgrf, 0, Type::UD, 1);
    out.push(Builder::new(8).exec_all().mov(shader, dst, raw_ud(handle)));
}
