//! Logical messages to `send`s: each logical message becomes the moves that build its
//! payload — one register per 8 channels for each parameter, in the order the shared
//! function reads them — and a `send` with the message's descriptor (shared function,
//! message type, SIMD mode, binding table entry, message and response lengths). Payload
//! orders and descriptors come from [`eubatch_ir::message`], which the simulator decodes
//! raw sends with too: a lowered shader and its logical input are compared message by
//! message. (Mesa: brw_lower_logical_sends.cpp.)
//!
//! Lowered so far, on gen7-gen9:
//! - `varying_pull_const_logical`: a sampler `ld` whose only parameter is the byte offset
//!   (`lower_varying_pull_constant_logical_send`; the surface is a raw buffer).
//! - the sampler messages ([`eubatch_ir::message::sampler::lower`] gives their type and
//!   parameters) but gathers (`lower_sampler_logical_send_gfx7`): a surface or sampler
//!   computed at run time goes into the descriptor through a register (`sampler << 8 |
//!   surface`); a sampler above 15, or unknown at compile time and not provably below 16
//!   ([`crate::value_range`]), through the header's Sampler State Pointer (Haswell on).
//!   Fewer than four components come back as a shorter response. Gathers stay logical:
//!   their channel select and texel offsets live in the header, which Mesa fills from
//!   `fs_inst::offset`, and no dump records it.
//! - `uniform_pull_const`: a constant-cache OWord block read with a header
//!   (`lower_uniform_pull_constant_loads`).
//! - untyped surface and byte-scattered reads and writes, from Haswell on, outside fragment
//!   shaders for writes (`lower_surface_logical_send`).
//! - Mesa 25's constant block `memory_load`: a constant-cache unaligned OWord block read
//!   (`lower_hdc_memory_logical_send`).
//! - URB reads and writes, gen8 on (`lower_urb_read_logical_send`,
//!   `lower_urb_write_logical_send`): the handles, per-slot offsets and channel masks as the
//!   header, the data after it (the second payload where sends split); the global offset
//!   the importer recovered ([`eubatch_ir::shader::SendInfo::urb_offset`]).
//! - `fb_write_logical` of colour, a second colour (SIMD8 dual-source) and source depth
//!   (no source-0 alpha, stencil or output mask): the k-th write to target k, with a header
//!   where the shader has several targets or blends two colours
//!   (`lower_fb_write_logical_send`).
//!
//! Rules that limit it: the instruction is already no wider than its message allows (SIMD-
//! width lowering runs first); surface and sampler are immediates; every parameter is a
//! 32-bit value. Where the parameters already lie in one VGRF in payload order (a texture
//! coordinate, a colour), the send reads that VGRF and no move is made. Anything else is
//! left logical: [`Outcome::left_logical`] counts it, with the reason.

use eubatch_ir::message::sampler::{self, Param, ParamType};
use eubatch_ir::message::{message_desc, render_target, sfid};
use eubatch_ir::shader::{InstBuilder, Predicate, SendInfo};
use eubatch_ir::{Control, Gen, Inst, Mods, Opcode, Operand, RegFile, Shader, Type, VgrfLayout};

use crate::PassCx;

/// What one run did.
#[derive(Debug, Default)]
pub struct Outcome {
    pub lowered: usize,
    /// Messages left logical, with why.
    pub left_logical: Vec<(Inst, String)>,
}

/// Scalar code on gen7–gen9: the message descriptors and payloads built here are those
/// generations' (Ice Lake's and Xe's dataport, sampler and URB messages differ).
pub const SCOPE: crate::manager::Scope = crate::manager::Scope {
    targets: (eubatch_ir::Gen::Gen7, eubatch_ir::Gen::Gen9),
    assumes: "it builds gen7-gen9 message descriptors and payloads from Align1 operands",
    ..crate::manager::Scope::SCALAR
};

pub fn run(shader: &mut Shader, _cx: &mut PassCx) -> bool {
    lower(shader).lowered > 0
}

pub fn lower(shader: &mut Shader) -> Outcome {
    let mut out = Outcome::default();
    if shader.target < Gen::Gen7 {
        return out;
    }
    // Render target writes of the shader, counting the channel-group pieces of one split
    // write once (every piece but the first starts past channel 0).
    // Mesa writes the targets in order, each once (brw_fs_visitor.cpp `emit_fb_writes`:
    // target 0 to nr_color_regions - 1; the corpora's final code confirms it), so the k-th
    // write is target k; the pieces of a split write share their first piece's target.
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
    // Sampler messages whose run-time sampler index is provably below 16: known before
    // the blocks are taken apart.
    let low_samplers: hashbrown::HashSet<Inst> = {
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
    };
    for b in 0..shader.layout.blocks.len() {
        let block = eubatch_ir::Block::from_usize(b);
        let old = std::mem::take(&mut shader.layout.blocks[block].insts);
        let mut new = Vec::with_capacity(old.len());
        let mut fb_headers = hashbrown::HashMap::new();
        let mut urb_headers = hashbrown::HashMap::new();
        for inst in old {
            let op = shader.insts.opcode[inst];
            let result = if op == Opcode::VaryingPullConstLogical {
                Some(varying_pull(shader, inst))
            } else if op == Opcode::UniformPullConst {
                Some(uniform_pull(shader, inst))
            } else if op == Opcode::MemoryLoadLogical {
                Some(memory_load(shader, inst))
            } else if eubatch_ir::width_rules::is_surface_message(op) {
                Some(surface_message(shader, inst, &new))
            } else if eubatch_ir::width_rules::is_sampler_message(op) {
                Some(sampler_message(shader, inst, &new, &low_samplers))
            } else if op == Opcode::UrbWriteLogical {
                Some(urb_write(shader, inst, &new, &mut urb_headers))
            } else if op == Opcode::UrbReadLogical {
                Some(urb_read(shader, inst))
            } else if op == Opcode::FbWriteLogical {
                let target = targets.get(&inst).copied().unwrap_or(0);
                Some(fb_write(
                    shader,
                    inst,
                    target,
                    fb_writes,
                    &new,
                    &mut fb_headers,
                ))
            } else {
                None
            };
            match result {
                Some(Ok(insts)) => {
                    out.lowered += 1;
                    new.extend(insts);
                }
                Some(Err(why)) => {
                    out.left_logical.push((inst, why));
                    new.push(inst);
                }
                None => new.push(inst),
            }
        }
        shader.layout.blocks[block].insts = new;
    }
    out
}

/// The logical messages this pass lowers (some forms of them it still leaves logical,
/// saying why in [`Outcome::left_logical`]).
pub fn handles(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::VaryingPullConstLogical
            | Opcode::UniformPullConst
            | Opcode::MemoryLoadLogical
            | Opcode::UrbWriteLogical
            | Opcode::UrbReadLogical
            | Opcode::FbWriteLogical
    ) || eubatch_ir::width_rules::is_surface_message(op)
        || eubatch_ir::width_rules::is_sampler_message(op)
}

/// Messages Mesa keeps as virtual opcodes through register allocation and whose `send` its
/// generator emits (brw_fs_generator.cpp: `generate_cs_terminate`, `generate_barrier`,
/// SHADER_OPCODE_MEMORY_FENCE / INTERLOCK, the halt and discard jumps): its pre-RA IR has
/// them as they are, so lowering leaves them too.
pub fn kept_for_generator(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::CsTerminate | Opcode::Barrier | Opcode::MemoryFence | Opcode::Interlock
    )
}

/// One payload parameter: a value per channel, or nothing (a register the message skips).
#[derive(Clone, Copy)]
enum Part {
    Value(Operand, ParamType),
    Zero,
    Unused,
}

/// The payload of `parts` in the channels of `ctl`: a VGRF that already holds them in
/// order, or a new one the moves appended to `out` fill.
fn payload(
    shader: &mut Shader,
    out: &mut Vec<Inst>,
    ctl: Control,
    parts: &[Part],
) -> Result<Operand, String> {
    let exec = ctl.exec_size as u32;
    let reg = exec * 4;
    check_parts(shader, ctl, parts)?;
    if let Some(reg) = in_place(parts, reg) {
        return Ok(reg);
    }
    let tmp = payload_moves(shader, out, ctl, parts, 0)?;
    Ok(Operand::vgrf(tmp, 0, Type::F, 1))
}

/// The VGRF that already holds `parts` in payload order — consecutive components of one
/// VGRF, `reg` bytes apart, of the payload's types — if there is one.
fn in_place(parts: &[Part], reg: u32) -> Option<Operand> {
    let Some(Part::Value(first, _)) = parts.first() else {
        return None;
    };
    let fits = first.file == RegFile::Vgrf
        && first.offset % 32 == 0
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
struct Payload {
    first: Operand,
    second: Option<Operand>,
    mlen: u32,
    ex_mlen: u32,
    /// Header registers at the start of the first payload.
    header: u32,
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
fn resolve_parts(shader: &Shader, prior: &[Inst], ctl: Control, parts: &[Part]) -> Vec<Part> {
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
        let plain = shader.insts.opcode[k] == Opcode::Mov
            && c.predicate == Predicate::None
            && c.cmod == eubatch_ir::shader::CondMod::None
            && !c.saturate()
            && d.offset == v.offset
            && n == len
            && d.stride == 1
            && d.ty.size() == v.ty.size()
            && src.file == RegFile::Vgrf
            && src.stride == 1
            && src.mods == Mods::NONE
            && src.ty.size() == d.ty.size()
            && (d.ty == src.ty || (!d.ty.is_float() && !src.ty.is_float()))
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
fn payloads(
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
fn check_parts(shader: &Shader, ctl: Control, parts: &[Part]) -> Result<(), String> {
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
fn payload_moves(
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
    let channels = channels_of(ctl);
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
        out.push(mov(
            shader,
            channels,
            Operand::vgrf(tmp, at, dst_ty, 1),
            src,
        ));
    }
    Ok(tmp)
}

/// Execution control of `exec` channels with the execution mask off.
fn no_mask(exec: u8) -> Control {
    let mut c = Control::new(exec);
    c.set(Control::NO_MASK, true);
    c
}

/// `mov dst, src` in `control`'s channels, writing `dst`'s region for them.
fn mov(shader: &mut Shader, control: Control, dst: Operand, src: Operand) -> Inst {
    alu(shader, Opcode::Mov, control, dst, &[src])
}
/// The `send` replacing `inst`, reading `payload`.
fn send(shader: &mut Shader, inst: Inst, payload: Payload, sfid: u8, desc: u32) -> Inst {
    let ctl = shader.insts.control[inst];
    let dst = shader.insts.dst[inst];
    let size_written = shader.insts.size_written[inst];
    let rlen = if dst.is_null() || dst.is_bad() {
        0
    } else {
        size_written.div_ceil(32)
    };
    let desc = desc | message_desc(payload.mlen, rlen, payload.header > 0);
    let mut srcs = vec![
        Operand::imm(Type::UD, 0),
        Operand::imm(Type::UD, 0),
        payload.first,
    ];
    srcs.extend(payload.second);
    shader.create_inst(InstBuilder {
        opcode: Opcode::Send,
        control: ctl,
        dst,
        srcs: &srcs,
        size_written: if rlen == 0 { 0 } else { size_written },
        send: Some(SendInfo {
            mlen: payload.mlen as u8,
            ex_mlen: payload.ex_mlen as u8,
            header_size: payload.header as u8,
            sfid,
            desc,
            ex_desc: eubatch_ir::message::ex_desc(payload.ex_mlen),
            urb_offset: None,
            header_bits: None,
        }),
    })
}

fn simd_mode(exec: u32) -> Result<u32, String> {
    match exec {
        8 => Ok(sampler::SIMD8),
        16 => Ok(sampler::SIMD16),
        w => Err(format!(
            "a SIMD{w} sampler message (SIMD-width lowering leaves 8 or 16)"
        )),
    }
}

fn immediate(op: &Operand, what: &str) -> Result<u32, String> {
    (op.file == RegFile::Imm)
        .then(|| op.imm_bits() as u32)
        .ok_or_else(|| format!("a non-immediate {what}"))
}

/// `varying_pull_const_logical(N) dst, surface, offset, alignment`: a sampler `ld` of the
/// surface as a raw buffer at each channel's byte offset, four dwords back.
fn varying_pull(shader: &mut Shader, inst: Inst) -> Result<Vec<Inst>, String> {
    let srcs = shader.srcs(inst).to_vec();
    let Some((surface, offset)) = eubatch_ir::message::pull_constant_srcs(&srcs) else {
        return Err(format!(
            "`varying_pull_const_logical` with {} sources",
            srcs.len()
        ));
    };
    if srcs.len() == 4 && !srcs[1].is_bad() {
        return Err("a bindless surface handle (not lowered yet)".into());
    }
    let surface = immediate(&surface, "surface")?;
    let ctl = shader.insts.control[inst];
    let exec = ctl.exec_size as u32;
    let mode = simd_mode(exec)?;
    let mut out = Vec::new();
    let mut offset = offset;
    offset.ty = Type::UD;
    let p = payloads(
        shader,
        &mut out,
        ctl,
        &[Part::Value(offset, ParamType::Int)],
        &[],
    )?;
    let desc = sampler::descriptor(surface, 0, sampler::msg::LD, mode);
    out.push(send(shader, inst, p, sfid::SAMPLER, desc));
    Ok(out)
}

/// `uniform_pull_const(N) dst, surface, offset` (a block of the constant buffer for all
/// channels, NoMask): a constant-cache OWord block read whose header is the thread's `g0`
/// with dword 2 set to the offset in OWords (Mesa: `lower_uniform_pull_constant_loads`,
/// which leaves FS_OPCODE_UNIFORM_PULL_CONSTANT_LOAD_GFX7 for the generator to send).
fn uniform_pull(shader: &mut Shader, inst: Inst) -> Result<Vec<Inst>, String> {
    let srcs = shader.srcs(inst).to_vec();
    let Some((surface, offset)) = eubatch_ir::message::pull_constant_srcs(&srcs) else {
        return Err(format!("`uniform_pull_const` with {} sources", srcs.len()));
    };
    if srcs.len() == 4 && !srcs[1].is_bad() {
        return Err("a bindless surface handle (not lowered yet)".into());
    }
    let surface = immediate(&surface, "surface")?;
    let offset = immediate(&offset, "offset")?;
    if offset % 16 != 0 {
        return Err(format!(
            "a block offset of {offset} bytes (not OWord-aligned)"
        ));
    }
    let size = shader.insts.size_written[inst];
    let desc = eubatch_ir::message::constant_cache::block_read_desc(surface, size)
        .ok_or_else(|| format!("a constant block of {size} bytes"))?;
    let g0 = Operand::fixed(0, 0, Type::UD, eubatch_ir::Region::new(8, 8, 1));
    let offset = Operand::imm(Type::UD, (offset / 16) as u64);
    let (p, mut out) = block_read_header(shader, g0, offset);
    out.push(send(shader, inst, p, sfid::CONSTANT_CACHE, desc));
    Ok(out)
}

/// The one-register payload of a block read: a header copied from `whole` (NoMask, 8
/// dwords) with dword 2 set to `dword2` (the block's address), and the moves that build it.
fn block_read_header(shader: &mut Shader, whole: Operand, dword2: Operand) -> (Payload, Vec<Inst>) {
    let header = shader.vgrfs.push(VgrfLayout::flat(32)).index() as u32;
    let moves = vec![
        mov(
            shader,
            no_mask(8),
            Operand::vgrf(header, 0, Type::UD, 1),
            whole,
        ),
        mov(
            shader,
            no_mask(1),
            Operand::vgrf(header, 8, Type::UD, 1),
            dword2,
        ),
    ];
    let p = Payload {
        first: Operand::vgrf(header, 0, Type::UD, 1),
        second: None,
        mlen: 1,
        ex_mlen: 0,
        header: 1,
    };
    (p, moves)
}

/// Mesa 25's `memory_load` of a constant block (`load const ... transpose`): a
/// constant-cache unaligned OWord block read whose header is zero but for dword 2, the byte
/// address (Mesa: `lower_hdc_memory_logical_send`), SIMD8 for up to 8 dwords, else SIMD16.
fn memory_load(shader: &mut Shader, inst: Inst) -> Result<Vec<Inst>, String> {
    use eubatch_ir::message::memory;
    let srcs = shader.srcs(inst).to_vec();
    let block = memory::constant_block(&srcs).ok_or_else(|| {
        "a memory_load other than a constant block load (not lowered yet)".to_string()
    })?;
    let desc = memory::constant_block_desc(&block)
        .ok_or_else(|| format!("a constant block of {} dwords", block.dwords))?;
    let mut address = block.address;
    if address.file != RegFile::Imm && address.stride != 0 {
        return Err("a block load from a per-channel address".into());
    }
    address.ty = Type::UD;
    if address.file == RegFile::Imm {
        address = Operand::imm(Type::UD, block.address.imm_bits() & 0xffff_ffff);
    }
    let (p, mut out) = block_read_header(shader, Operand::imm(Type::UD, 0), address);
    let mut ctl = Control::new(if block.dwords > 8 { 16 } else { 8 });
    ctl.set(Control::NO_MASK, true);
    shader.insts.control[inst] = ctl;
    shader.insts.size_written[inst] = shader.insts.size_written[inst].max(block.dwords * 4);
    out.push(send(shader, inst, p, sfid::CONSTANT_CACHE, desc));
    Ok(out)
}

/// An untyped surface or byte-scattered read or write: the addresses, then for writes the
/// data, split after the addresses where the target has split sends (Mesa:
/// `lower_surface_logical_send`; in fragment shaders Mesa also predicates writes on the
/// sample mask, which is not done here: those are left logical).
fn surface_message(shader: &mut Shader, inst: Inst, prior: &[Inst]) -> Result<Vec<Inst>, String> {
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

/// A sampler message without a header (gathers, high samplers and bindless handles need one
/// and are left logical).
fn sampler_message(
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
            shader.vgrfs.push(VgrfLayout::flat(32)).index() as u32,
            Some(data),
        )
    } else {
        check_parts(shader, ctl, parts)?;
        (payload_moves(shader, out, ctl, parts, 32)?, None)
    };
    let ud = |o: u32| Operand::vgrf(whole, o, Type::UD, 1);
    let g0 = |byte: u32, region: eubatch_ir::Region| Operand::fixed(0, byte, Type::UD, region);
    out.push(mov(
        shader,
        no_mask(8),
        ud(0),
        g0(0, eubatch_ir::Region::new(8, 8, 1)),
    ));
    let regs = shader.insts.size_written[inst].div_ceil(32);
    let not_written = if regs < 4 * per_comp {
        !((1u32 << (regs / per_comp)) - 1) & 0xf
    } else {
        0
    };
    let dword2 = bits | not_written << 12;
    if dword2 != 0 {
        out.push(mov(
            shader,
            no_mask(1),
            ud(8),
            Operand::imm(Type::UD, dword2 as u64),
        ));
    } else if !matches!(shader.stage, eubatch_ir::Stage::Vs | eubatch_ir::Stage::Fs) {
        out.push(mov(shader, no_mask(1), ud(8), Operand::imm(Type::UD, 0)));
    }
    let g0_3 = g0(12, eubatch_ir::Region::new(0, 1, 0));
    match high_sampler {
        None => {}
        Some(s) if s.file == RegFile::Imm => {
            let offset = 16 * (s.imm_bits() as u32 / 16) * 16;
            out.push(alu(
                shader,
                Opcode::Add,
                no_mask(1),
                ud(12),
                &[g0_3, Operand::imm(Type::UD, offset as u64)],
            ));
        }
        Some(s) => {
            let tmp = shader.vgrfs.push(VgrfLayout::flat(4)).index() as u32;
            let t = Operand::vgrf(tmp, 0, Type::UD, 1);
            let sampler = scalar_ud(s);
            out.push(alu(
                shader,
                Opcode::And,
                no_mask(1),
                t,
                &[sampler, Operand::imm(Type::UD, 0xf0)],
            ));
            out.push(alu(
                shader,
                Opcode::Shl,
                no_mask(1),
                t,
                &[t, Operand::imm(Type::UD, 4)],
            ));
            out.push(alu(shader, Opcode::Add, no_mask(1), ud(12), &[g0_3, t]));
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
    let tmp = shader.vgrfs.push(VgrfLayout::flat(4)).index() as u32;
    let d = Operand::vgrf(tmp, 0, Type::UD, 1);
    let c = no_mask(1);
    let imm = |v: u64| Operand::imm(Type::UD, v);
    if surface == sampler {
        out.push(alu(
            shader,
            Opcode::Mul,
            c,
            d,
            &[scalar_ud(surface), imm(0x101)],
        ));
    } else if sampler.file == RegFile::Imm {
        out.push(alu(
            shader,
            Opcode::Or,
            c,
            d,
            &[scalar_ud(surface), imm(sampler.imm_bits() << 8)],
        ));
    } else {
        out.push(alu(
            shader,
            Opcode::Shl,
            c,
            d,
            &[scalar_ud(sampler), imm(8)],
        ));
        out.push(alu(shader, Opcode::Or, c, d, &[d, scalar_ud(surface)]));
    }
    out.push(alu(shader, Opcode::And, c, d, &[d, imm(0xfff)]));
    Operand {
        region: eubatch_ir::Region::new(0, 1, 0),
        stride: 0,
        ..d
    }
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

/// `op(exec) dst, srcs` in `control`'s channels.
fn alu(shader: &mut Shader, op: Opcode, control: Control, dst: Operand, srcs: &[Operand]) -> Inst {
    let size_written = dst.footprint(control.exec_size as u32);
    shader.create_inst(InstBuilder {
        opcode: op,
        control,
        dst,
        srcs,
        size_written,
        send: None,
    })
}

/// A render-target write header this block already built (split sends only): a VGRF of
/// g0 and g1 (or g2, channels 16-31) with the target index in dword 2, and whether the
/// pixel mask (dword 15) was written into it.
#[derive(Clone, Copy)]
struct FbHeader {
    vgrf: u32,
    mask_written: bool,
}

/// A render target write of colour 0 (and colour 1 for dual-source blending, and source
/// depth) to `target` of the shader's `targets`. With several targets or two colours
/// (before gen11) the message has a header: g0 and g1 (g0 and g2 for the
/// second half of a SIMD32 write), the target index in dword 2 for blend state, and, when
/// the shader discards (its writes are predicated on the sample mask), that mask in the
/// low word of dword 15 (Mesa: `lower_fb_write_logical_send`).
fn fb_write(
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
    let desc = render_target::write_desc(target, subtype, last);
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
        out.push(mov(shader, no_mask(width), dst, grf(reg)));
    }
    // The target index (dword 2; 0 is g0's own) and, for a write predicated on the sample
    // mask, the pixel enables (dword 15) from the flag.
    if target > 0 {
        let dst = Operand::vgrf(header, 8, Type::UD, 1);
        out.push(mov(
            shader,
            no_mask(1),
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
        out.push(mov(shader, no_mask(1), dst, flag));
    }
    out.push(send(shader, inst, p, sfid::RENDER_CACHE, desc));
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
    let h = shader
        .vgrfs
        .push(VgrfLayout::flat(32 * (1 + extra.len() as u32)))
        .index() as u32;
    copy_urb_handles(shader, out, h, handle);
    let channels = channels_of(ctl);
    for (k, e) in extra.iter().enumerate() {
        let dst = Operand::vgrf(h, 32 * (k as u32 + 1), Type::UD, 1);
        out.push(mov(shader, channels, dst, raw_ud(*e)));
    }
    Operand::vgrf(h, 0, Type::UD, 1)
}

/// URB headers a block already built: by handle, extra header parts and channels, the
/// header VGRF and how many of the block's instructions came before it.
type UrbHeaders = hashbrown::HashMap<(Operand, Vec<Operand>, (u8, u8, bool)), (u32, usize)>;

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
    out.push(mov(shader, no_mask(8), dst, raw_ud(handle)));
}

/// The channels of `ctl` (size, group, NoMask) without its other controls (predicate,
/// EOT...): what the moves building a message's payload run in.
fn channels_of(ctl: Control) -> Control {
    let mut c = Control::new(ctl.exec_size);
    c.group = ctl.group;
    c.set(Control::NO_MASK, ctl.no_mask());
    c
}

/// `urb_write_logical handle, per-slot offsets, channel mask, data`: a URB SIMD8 write
/// (Mesa `lower_urb_write_logical_send`): the header ([`urb_header`]), then the data
/// components — the second payload where sends split, read in place where the data VGRF
/// holds them in order.
fn urb_write(
    shader: &mut Shader,
    inst: Inst,
    prior: &[Inst],
    headers: &mut UrbHeaders,
) -> Result<Vec<Inst>, String> {
    use eubatch_ir::message::urb;
    let offset = urb_common(shader, inst)?;
    let srcs = shader.srcs(inst).to_vec();
    let present = |k: usize| srcs.get(k).filter(|s| !s.is_bad()).copied();
    let data = present(urb::src::DATA).ok_or("a URB write without data")?;
    let per_slot = present(urb::src::PER_SLOT_OFFSETS);
    let mask = present(urb::src::CHANNEL_MASK);
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
    let extra: Vec<Operand> = per_slot.into_iter().chain(mask).collect();
    let header_regs = 1 + extra.len() as u32;
    let desc = urb::desc(urb::SIMD8_WRITE, per_slot.is_some(), mask.is_some(), offset);
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
        let whole = payload_moves(shader, &mut out, ctl, &all, 32)?;
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
fn urb_read(shader: &mut Shader, inst: Inst) -> Result<Vec<Inst>, String> {
    use eubatch_ir::message::urb;
    let offset = urb_common(shader, inst)?;
    let srcs = shader.srcs(inst).to_vec();
    let per_slot = srcs
        .get(urb::src::PER_SLOT_OFFSETS)
        .filter(|s| !s.is_bad())
        .copied();
    let size = shader.insts.size_written[inst];
    if size == 0 || !size.is_multiple_of(32) || size > 8 * 32 {
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
