//! Surface messages of the logical sends, every message of Mesa's `enum
//! surface_logical_srcs` (Mesa: `lower_surface_logical_send`): untyped surface reads and
//! writes, byte- and dword-scattered reads and writes (here), untyped and typed atomics
//! (`atomic.rs`), typed surface reads and writes (`typed.rs`). Each family says its shared
//! function, descriptor and header ([`Plan`]); this file builds the payload and the
//! `send` the same way for all ([`lower_request`], which Mesa 25's `memory_*` messages
//! reach too, from `memory.rs`): the
//! header (typed messages before gen9), the address, then the data, split after the
//! address where the target has split sends and there is no header.
//!
//! In fragment shaders, messages that allow the sample mask
//! (`SURFACE_LOGICAL_SRC_ALLOW_SAMPLE_MASK`, what Mesa sets on writes and atomics) act only
//! on the pixels in it, as Mesa's `lower_surface_logical_send` makes them: typed messages
//! before gen9 take the sample mask register in their header's dword 7; every other one is
//! predicated on it ([`under_sample_mask`], Mesa's `brw_emit_predicate_on_sample_mask`),
//! after a copy of the payload's dispatch mask into the flag f1 where the shader does not
//! discard. Where the mask lives, which messages take it and how:
//! [`eubatch_ir::message::sample_mask`].
//!
//! Rules that limit it: the surface is a binding table index, an immediate or a scalar
//! computed at run time (`BindingTable`; a bindless surface handle is left logical), the size
//! arguments immediates; a message under the sample mask that is already predicated other
//! than `(+f0.0)` is left logical (Mesa asserts against it).

use eubatch_ir::message::sample_mask;
use eubatch_ir::message::sampler::ParamType;
use eubatch_ir::message::surface::{self, src, Kind};
use eubatch_ir::{Builder, Inst, Operand, RegFile, Shader, Type};

use super::payload::{payload_moves, payloads, resolve_parts, Part, Payload};
use super::{atomic, immediate, send, typed, BindingTable};

/// How one surface message is sent: what a family decides, the rest being shared.
pub(super) struct Plan {
    pub(super) sfid: u8,
    /// The descriptor without surface and lengths.
    pub(super) desc: u32,
    /// A header (typed messages before gen9) and the sample mask in its dword 7.
    pub(super) header_mask: Option<u32>,
    /// Components per channel of the response (0: none).
    pub(super) response_comps: u32,
}

/// A surface message of any family: checks what every family shares, asks the family for
/// its [`Plan`] and builds the payload and the `send`.
pub(super) fn surface_message(
    shader: &mut Shader,
    inst: Inst,
    prior: &[Inst],
    in_flag: bool,
) -> Result<Vec<Inst>, String> {
    let op = shader.insts.opcode[inst];
    let srcs = shader.srcs(inst).to_vec();
    if srcs.len() < src::COUNT {
        return Err(format!(
            "`{}` with {} sources ({} expected: surface, surface handle, address, data, \
             dimensions, argument, allow sample mask)",
            op.name(),
            srcs.len(),
            src::COUNT
        ));
    }
    if !srcs[src::SURFACE_HANDLE].is_bad() {
        return Err("a bindless surface handle (not lowered yet)".into());
    }
    let surface_index = srcs[src::SURFACE];
    let allow_sample_mask = immediate(&srcs[src::ALLOW_SAMPLE_MASK], "allow-sample-mask")? != 0;
    let dst = shader.insts.dst[inst];
    let has_dst = !dst.is_null() && !dst.is_bad();
    let what = match eubatch_ir::message::atomic::logical(op, &srcs, has_dst) {
        Some(a) => What::Atomic(a),
        None => What::Access(
            surface::logical_shape(op, &srcs)
                .ok_or_else(|| "a non-immediate or unsupported size argument".to_string())?,
        ),
    };
    let typed = match what {
        What::Atomic(a) => a.kind == eubatch_ir::message::atomic::Kind::Typed,
        What::Access(s) => s.kind == Kind::Typed,
    };
    let dims = if typed {
        typed::address_components(&srcs)?
    } else {
        1
    };
    let data = srcs[src::DATA];
    let data_comps = match what {
        What::Atomic(a) => a.data_components(),
        What::Access(s) if s.write => s.comps,
        What::Access(_) => 0,
    };
    let request = Request {
        what,
        surface: surface_index,
        allow_sample_mask,
        address: components(srcs[src::ADDRESS], dims, shader.insts.control[inst]),
        data: components(data, data_comps, shader.insts.control[inst]),
    };
    if data_comps > 0 && data.is_bad() {
        return Err("a surface write or atomic without its data".into());
    }
    lower_request(shader, inst, prior, request, in_flag)
}

/// What a surface message does.
pub(super) use eubatch_ir::message::surface::Op as What;

/// A surface message to lower, whatever logical instruction it came from (Mesa 22.3's
/// surface opcodes, Mesa 25's `memory_*`): what it does, the binding table entry, whether
/// it allows the sample mask, and its address and data as payload parts.
pub(super) struct Request {
    pub(super) what: What,
    /// The binding table index: an immediate, or a scalar computed at run time.
    pub(super) surface: Operand,
    pub(super) allow_sample_mask: bool,
    pub(super) address: Vec<Part>,
    pub(super) data: Vec<Part>,
}

/// The `n` components of `v` (a value per channel each, `exec` channels of dwords apart)
/// as payload parts, 32-bit floats moved as their bits.
pub(super) fn components(v: Operand, n: u32, ctl: eubatch_ir::Control) -> Vec<Part> {
    let exec = ctl.exec_size as u32;
    (0..n)
        .map(|k| {
            let mut v = v;
            if v.file == RegFile::Vgrf {
                v.offset += k * exec * 4;
            }
            if v.ty.size() == 4 && v.ty.is_float() {
                v.ty = Type::UD;
            }
            Part::Value(v, ParamType::Int)
        })
        .collect()
}

/// Lowers `request`, the message of `inst`: the family's [`Plan`], the payload (header,
/// address, data) and the `send`; `in_flag`: the shader keeps its sample mask in the flag
/// ([`sample_mask::in_flag`]).
pub(super) fn lower_request(
    shader: &mut Shader,
    inst: Inst,
    prior: &[Inst],
    request: Request,
    in_flag: bool,
) -> Result<Vec<Inst>, String> {
    let takes = sample_mask::surface_takes_it(shader.stage, request.allow_sample_mask);
    let ctl = shader.insts.control[inst];
    let exec = ctl.exec_size as u32;
    let group = ctl.group as u32;
    let dst = shader.insts.dst[inst];
    let has_dst = !dst.is_null() && !dst.is_bad();
    let allow = request.allow_sample_mask;
    let plan = match request.what {
        What::Atomic(a) => atomic::plan(shader, a, exec, group, allow)?,
        What::Access(shape) if shape.kind == Kind::Typed => {
            typed::plan(shader, shape, exec, group, allow)?
        }
        What::Access(shape) => {
            let (sfid, desc) =
                surface::descriptor(shader.target, shape, 0, exec).ok_or_else(|| {
                    format!(
                        "a SIMD{exec} {:?} surface message on {:?} (Mesa has none)",
                        shape.kind, shader.target
                    )
                })?;
            Plan {
                sfid,
                desc,
                header_mask: None,
                response_comps: if shape.write { 0 } else { shape.comps },
            }
        }
    };
    // Typed messages before gen9 take the sample mask in their header (the register: the
    // flag's or the dispatch mask, as a UW), the others a predicate on it.
    let header_mask = match plan.header_mask {
        Some(_) if takes => Some(if in_flag {
            sample_mask::flag(group)
        } else {
            sample_mask::dispatch_mask(group)
        }),
        Some(mask) => Some(Operand::imm(Type::UD, mask as u64)),
        None => None,
    };
    let predicate = if takes && header_mask.is_none() {
        Some(under_sample_mask_plan(shader, inst, in_flag)?)
    } else {
        None
    };
    let mut parts = request.address;
    parts.extend(request.data);
    // The response is what the message answers (the logical instruction may say less
    // when its text omitted the size).
    if has_dst {
        shader.insts.size_written[inst] = plan.response_comps * exec * 4;
    } else if plan.response_comps > 0 {
        return Err("a surface read without a destination".into());
    }
    let mut out = Vec::new();
    let bti = BindingTable::of(shader, &mut out, &request.surface)?;
    let p = match header_mask {
        None => payloads(shader, &mut out, ctl, &parts, prior)?,
        Some(mask) => with_header(shader, &mut out, ctl, &parts, prior, mask)?,
    };
    let s = send(shader, inst, p, plan.sfid, plan.desc | bti.imm());
    bti.attach(shader, s);
    if let Some(apply) = predicate {
        under_sample_mask(shader, &mut out, s, apply);
    }
    out.push(s);
    Ok(out)
}

/// How the message of `inst` goes under the sample mask
/// ([`sample_mask::apply`]): an error for a predicate Mesa asserts against, or a message
/// wider than the 16 channels a dispatch mask holds.
pub(super) fn under_sample_mask_plan(
    shader: &Shader,
    inst: Inst,
    in_flag: bool,
) -> Result<sample_mask::Apply, String> {
    let ctl = shader.insts.control[inst];
    if ctl.exec_size > 16 {
        return Err(format!(
            "a SIMD{} fragment-shader message under the sample mask (16 channels at most: \
             brw_sample_mask_reg)",
            ctl.exec_size
        ));
    }
    sample_mask::apply(
        in_flag,
        ctl.group as u32,
        ctl.predicate,
        ctl.pred_invert(),
        ctl.flag_subreg,
    )
}

/// Mesa's `brw_emit_predicate_on_sample_mask` on the `send` `s`: the copy of the dispatch
/// mask into the flag (`mov(1) f1.0:UW, g1.7:UW NoMask`, f1.1 and g2.7 for channels
/// 16-31) when the shader does not discard, then the send's predicate.
pub(super) fn under_sample_mask(
    shader: &mut Shader,
    out: &mut Vec<Inst>,
    s: Inst,
    apply: sample_mask::Apply,
) {
    let group = shader.insts.control[s].group as u32;
    if let Some(mask) = apply.copy {
        let flag = sample_mask::flag(group);
        out.push(Builder::new(1).exec_all().mov(shader, flag, mask));
    }
    let ctl = &mut shader.insts.control[s];
    ctl.predicate = apply.predicate;
    ctl.flag_subreg = apply.flag_subreg;
    ctl.set(eubatch_ir::Control::PRED_INVERT, false);
}

/// A payload of one run of registers, a header first (zeros but dword 7, the sample mask
/// `mask`: an immediate, or in a fragment shader the register holding it) and then
/// `parts`: the typed messages before gen9 (which have no split sends).
/// Mesa builds the header in a register of its own (`ubld.MOV(header, 0)`, `MOV
/// (component(header, 7), sample_mask)`) and copies it in with `LOAD_PAYLOAD`, which its
/// register coalescing merges: here it is built in place.
fn with_header(
    shader: &mut Shader,
    out: &mut Vec<Inst>,
    ctl: eubatch_ir::Control,
    parts: &[Part],
    prior: &[Inst],
    mask: Operand,
) -> Result<Payload, String> {
    let reg = shader.reg_size();
    let parts = &resolve_parts(shader, prior, ctl, parts)[..];
    super::payload::check_parts(shader, ctl, parts)?;
    let tmp = payload_moves(shader, out, ctl, parts, reg)?;
    let header = Operand::vgrf(tmp, 0, Type::UD, 1);
    out.push(
        Builder::new(8)
            .exec_all()
            .mov(shader, header, Operand::imm(Type::UD, 0)),
    );
    let dword7 = Operand::vgrf(
        tmp,
        4 * eubatch_ir::message::typed::HEADER_SAMPLE_MASK_DWORD,
        Type::UD,
        1,
    );
    out.push(Builder::new(1).exec_all().mov(shader, dword7, mask));
    let regs_per_part = ctl.exec_size as u32 / 8;
    Ok(Payload {
        first: Operand::vgrf(tmp, 0, Type::F, 1),
        second: None,
        mlen: 1 + parts.len() as u32 * regs_per_part,
        ex_mlen: 0,
        header: 1,
    })
}
