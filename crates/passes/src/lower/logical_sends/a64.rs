//! A64 messages of the logical sends (`a64_untyped_read_logical`,
//! `a64_untyped_write_logical`, `a64_byte_scattered_read/write_logical`,
//! `a64_untyped_atomic_logical`, `a64_untyped_atomic_float32_logical`; Mesa:
//! `lower_a64_logical_send`): the descriptor of [`eubatch_ir::message::a64`], the address
//! (a qword per channel) and then the data; on gen9 the address and the data are the two
//! payloads of a split send, on gen8 one payload.
//!
//! In a fragment shader, writes and atomics act only on the pixels in the sample mask: the
//! send is predicated on it as `surface.rs` predicates surface messages
//! ([`super::surface::under_sample_mask`]; Mesa: `lower_a64_logical_send` calls
//! `brw_emit_predicate_on_sample_mask` for messages with side effects; the rules are
//! [`eubatch_ir::message::sample_mask`]'s).
//!
//! Rules that limit it: gen8 on; the width is the message's (SIMD-width lowering runs
//! first); the address a 64-bit value; Mesa's 16- and 64-bit atomics and the OWord block
//! forms are left logical; so are fragment-shader messages that enable helper invocations
//! (Mesa 23's `A64_LOGICAL_ENABLE_HELPERS`: predicated on the vector mask read from `sr0.3`,
//! not lowered here) and, under the sample mask, messages already predicated other than
//! `(+f0.0)` (Mesa asserts against them).

use eubatch_ir::message::a64::{self, src};
use eubatch_ir::message::{sample_mask, sfid};
use eubatch_ir::shader::Stage;
use eubatch_ir::{Builder, Gen, Inst, Operand, RegFile, Shader, Type, VgrfLayout};

use super::payload::{payload, payload_moves, resolve_parts, Part, Payload};
use super::send;

pub(super) fn a64_message(
    shader: &mut Shader,
    inst: Inst,
    prior: &[Inst],
    in_flag: bool,
) -> Result<Vec<Inst>, String> {
    let op = shader.insts.opcode[inst];
    let srcs = shader.srcs(inst).to_vec();
    if srcs.len() < 3 {
        return Err(format!(
            "`{}` with {} sources (address, data and argument expected)",
            op.name(),
            srcs.len()
        ));
    }
    let dst = shader.insts.dst[inst];
    let has_dst = !dst.is_null() && !dst.is_bad();
    let msg = a64::logical(op, &srcs, has_dst).ok_or_else(|| {
        "an A64 message of 16- or 64-bit atomics or a non-immediate argument (not lowered)"
            .to_string()
    })?;
    let ctl = shader.insts.control[inst];
    let data_comps = msg.data_components();
    let data = srcs[src::DATA];
    if data_comps > 0 && data.is_bad() {
        return Err("an A64 write or atomic without its data".into());
    }
    let parts = super::surface::components(data, data_comps, ctl);
    if shader.stage == Stage::Fs && sample_mask::a64_enables_helpers(&srcs) {
        return Err(
            "a fragment-shader A64 message enabling helper invocations (predicated on the \
             vector mask; not lowered yet)"
                .into(),
        );
    }
    let takes = sample_mask::a64_takes_it(shader.stage, msg.has_side_effects(), &srcs);
    let mask = takes.then_some(in_flag);
    lower_a64(shader, inst, prior, msg, srcs[src::ADDRESS], parts, mask)
}

/// Lowers the A64 message `msg` of `inst` (Mesa 22.3's A64 opcodes, Mesa 25's flat
/// `memory_*`): the 64-bit `addr` per channel, then `parts` (the data); under the sample
/// mask when `sample_mask` is given, saying whether the shader keeps it in the flag.
pub(super) fn lower_a64(
    shader: &mut Shader,
    inst: Inst,
    prior: &[Inst],
    msg: a64::Msg,
    addr: Operand,
    parts: Vec<Part>,
    sample_mask: Option<bool>,
) -> Result<Vec<Inst>, String> {
    let predicate = match sample_mask {
        Some(in_flag) => Some(super::surface::under_sample_mask_plan(
            shader, inst, in_flag,
        )?),
        None => None,
    };
    let dst = shader.insts.dst[inst];
    let has_dst = !dst.is_null() && !dst.is_bad();
    let ctl = shader.insts.control[inst];
    let exec = ctl.exec_size as u32;
    let desc = a64::descriptor(shader.target, msg, exec).ok_or_else(|| {
        format!(
            "a SIMD{exec} A64 {msg:?} on {:?} (Mesa has no such message)",
            shader.target
        )
    })?;
    if addr.ty.size() != 8 {
        return Err(format!(
            "an A64 address of {} bits (64 expected)",
            addr.ty.size() * 8
        ));
    }
    let data_comps = parts.len() as u32;
    let response = msg.response_components();
    if has_dst {
        shader.insts.size_written[inst] = response * exec * 4;
    } else if response > 0 {
        return Err("an A64 read without a destination".into());
    }
    let reg = shader.reg_size();
    let addr_regs = 2 * exec / 8;
    let mut out = Vec::new();
    let p = if shader.target >= Gen::Gen9 {
        // Split sends: the address as it lies, or copied, then the data.
        let first = match in_place(shader, &addr, exec) {
            Some(a) => a,
            None => {
                let tmp = shader.vgrfs.push(VgrfLayout::flat(addr_regs * reg)).index() as u32;
                address_moves(shader, &mut out, inst, tmp, &addr)?;
                Operand::vgrf(tmp, 0, Type::F, 1)
            }
        };
        let second = if parts.is_empty() {
            None
        } else {
            let parts = resolve_parts(shader, prior, ctl, &parts);
            Some(payload(shader, &mut out, ctl, &parts)?)
        };
        Payload {
            first,
            second,
            mlen: addr_regs,
            ex_mlen: data_comps * exec / 8,
            header: 0,
        }
    } else {
        // One payload: the address in its first registers, then the data.
        let parts = resolve_parts(shader, prior, ctl, &parts);
        super::payload::check_parts(shader, ctl, &parts)?;
        let tmp = payload_moves(shader, &mut out, ctl, &parts, addr_regs * reg)?;
        address_moves(shader, &mut out, inst, tmp, &addr)?;
        Payload {
            first: Operand::vgrf(tmp, 0, Type::F, 1),
            second: None,
            mlen: addr_regs + data_comps * exec / 8,
            ex_mlen: 0,
            header: 0,
        }
    };
    let s = send(shader, inst, p, sfid::DATA_CACHE_1, desc);
    if let Some(apply) = predicate {
        super::surface::under_sample_mask(shader, &mut out, s, apply);
    }
    out.push(s);
    Ok(out)
}

/// The address VGRF itself where it already lies as the payload wants it: a qword per
/// channel from a register boundary, no modifier, inside its VGRF.
fn in_place(shader: &Shader, addr: &Operand, exec: u32) -> Option<Operand> {
    let fits = addr.file == RegFile::Vgrf
        && addr.stride == 1
        && addr.mods == eubatch_ir::Mods::NONE
        && addr.offset.is_multiple_of(shader.reg_size())
        && crate::lower::inside_vgrf(shader, addr, addr.span(exec));
    fits.then(|| Operand::vgrf(addr.nr, addr.offset, Type::F, 1))
}

/// Moves `addr` into the first registers of VGRF `tmp` as qwords, 8 channels a move (a
/// 64-bit move of 8 channels fills two registers, the most a destination may span).
fn address_moves(
    shader: &mut Shader,
    out: &mut Vec<Inst>,
    inst: Inst,
    tmp: u32,
    addr: &Operand,
) -> Result<(), String> {
    let ctl = shader.insts.control[inst];
    let reg = shader.reg_size();
    let mut src = *addr;
    src.ty = Type::UQ;
    for k in 0..ctl.exec_size as u32 / 8 {
        let s = crate::lower::horiz_offset(&src, 8 * k, reg).ok_or_else(|| {
            "an A64 address whose region does not split by 8 channels".to_string()
        })?;
        let d = Operand::vgrf(tmp, k * 64, Type::UQ, 1);
        out.push(
            Builder::channels_of(ctl)
                .group(8, k as u8)
                .mov(shader, d, s),
        );
    }
    Ok(())
}
