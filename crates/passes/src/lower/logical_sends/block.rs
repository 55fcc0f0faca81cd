//! OWord block messages of the logical sends (`unaligned_oword_block_read_logical`,
//! `oword_block_write_logical`, `a64_oword_block_read_logical`,
//! `a64_unaligned_oword_block_read_logical`, `a64_oword_block_write_logical`; Mesa:
//! `lower_surface_block_logical_send`, and `lower_a64_logical_send` with
//! `emit_a64_oword_block_header`): a header holding the address, then for writes the
//! block's data as the second payload of a split send; the descriptor of
//! [`eubatch_ir::message::block`].
//!
//! Mesa 25's block loads of buffers and shared memory (`memory_load ... transpose`) are
//! lowered here too ([`memory_block_load`]), their binding table entry an immediate or a
//! scalar computed at run time.
//!
//! Rules that limit it: gen9 (Mesa asserts it); a Mesa 22.3 binding-table block's surface
//! an immediate binding table index (bindless and run-time surfaces are left logical); the
//! size an immediate block of 4, 8, 16 or 32 dwords; the address a scalar (the header
//! holds one address for the message: Mesa reads component 0).

use eubatch_ir::message::block::{self, HEADER_ADDRESS_DWORD};
use eubatch_ir::message::{a64, surface};
use eubatch_ir::{Builder, Inst, Operand, RegFile, Shader, Type, VgrfLayout};

use super::payload::{payload, resolve_parts, Payload};
use super::{immediate, send, BindingTable};

pub(super) fn block_message(
    shader: &mut Shader,
    inst: Inst,
    prior: &[Inst],
) -> Result<Vec<Inst>, String> {
    let op = shader.insts.opcode[inst];
    let srcs = shader.srcs(inst).to_vec();
    let b = block::logical(op, &srcs).ok_or_else(|| {
        "a block message whose size is not an immediate 4, 8, 16 or 32 dwords".to_string()
    })?;
    let (surface, address, data) = if b.a64 {
        (
            None,
            srcs[a64::src::ADDRESS],
            srcs.get(a64::src::DATA).copied(),
        )
    } else {
        if srcs.len() < surface::src::COUNT {
            return Err(format!("`{}` with {} sources", op.name(), srcs.len()));
        }
        if !srcs[surface::src::SURFACE_HANDLE].is_bad() {
            return Err("a bindless surface handle (not lowered yet)".into());
        }
        let s = srcs[surface::src::SURFACE];
        immediate(&s, "surface")?;
        (
            Some(s),
            srcs[surface::src::ADDRESS],
            Some(srcs[surface::src::DATA]),
        )
    };
    lower_block(shader, inst, prior, b, surface, address, data)
}

/// Mesa 25's block (transpose) loads of a buffer or of shared local memory
/// ([`eubatch_ir::message::memory::block_load`]), as `lower_hdc_memory_logical_send` sends
/// them before LSC hardware: the data-cache OWord block read, NoMask, SIMD8 for up to 8
/// dwords, else SIMD16; the binding table entry an immediate or a scalar.
pub(super) fn memory_block_load(
    shader: &mut Shader,
    inst: Inst,
    prior: &[Inst],
    load: eubatch_ir::message::memory::BlockLoad,
) -> Result<Vec<Inst>, String> {
    let a = load.address;
    if a.file != RegFile::Imm && a.stride != 0 {
        return Err("a block load from a per-channel address".into());
    }
    let mut ctl = eubatch_ir::Control::new(if load.block.dwords > 8 { 16 } else { 8 });
    ctl.set(eubatch_ir::Control::NO_MASK, true);
    shader.insts.control[inst] = ctl;
    lower_block(shader, inst, prior, load.block, Some(load.surface), a, None)
}

/// The header, payload and send of block message `b` of `inst`: on binding table entry
/// `surface` (an immediate or a scalar; `None` for A64), at `address`, writing `data`.
fn lower_block(
    shader: &mut Shader,
    inst: Inst,
    prior: &[Inst],
    b: block::Block,
    surface: Option<Operand>,
    address: Operand,
    data: Option<Operand>,
) -> Result<Vec<Inst>, String> {
    let (sfid, mut desc) = block::descriptor(shader.target, b)
        .ok_or_else(|| format!("an OWord block message on {:?} (gen9 on)", shader.target))?;
    let ctl = shader.insts.control[inst];
    let exec = ctl.exec_size as u32;
    if exec > 16 || (b.write && b.dwords % exec != 0) {
        return Err(format!("a SIMD{exec} block message of {} dwords", b.dwords));
    }
    let mut out = Vec::new();
    let bti = match surface {
        Some(s) => Some(BindingTable::of(shader, &mut out, &s)?),
        None => None,
    };
    desc |= bti.map_or(0, |t| t.imm());
    if address.file == RegFile::Vgrf && address.stride != 0 && exec != 1 {
        // Mesa uniformizes the address first (`emit_uniformize`); a per-channel one
        // would be component 0's, which the text cannot promise is every channel's.
        return Err("a block message with a per-channel address".into());
    }
    if b.a64 && address.ty.size() != 8 {
        return Err("an A64 block address that is not 64-bit".into());
    }
    // The header: zeros, then the address.
    let reg = shader.reg_size();
    let header = shader.vgrfs.push(VgrfLayout::flat(reg)).index() as u32;
    let one = Builder::new(1).exec_all();
    out.push(Builder::new(8).exec_all().mov(
        shader,
        Operand::vgrf(header, 0, Type::UD, 1),
        Operand::imm(Type::UD, 0),
    ));
    if b.a64 {
        let mut a = address;
        a.ty = Type::UQ;
        out.push(one.mov(shader, Operand::vgrf(header, 0, Type::UQ, 1), a));
    } else {
        let mut a = address;
        a.ty = Type::UD;
        let dword2 = Operand::vgrf(header, 4 * HEADER_ADDRESS_DWORD, Type::UD, 1);
        out.push(if b.aligned {
            // In OWords.
            one.shr(shader, dword2, a, Operand::imm(Type::UD, 4))
        } else {
            one.mov(shader, dword2, a)
        });
    }
    let mut p = Payload {
        first: Operand::vgrf(header, 0, Type::UD, 1),
        second: None,
        mlen: 1,
        ex_mlen: 0,
        header: 1,
    };
    if b.write {
        let data = data
            .filter(|d| !d.is_bad())
            .ok_or_else(|| "a block write without data".to_string())?;
        let parts = super::surface::components(data, b.dwords / exec, ctl);
        let parts = resolve_parts(shader, prior, ctl, &parts);
        p.second = Some(payload(shader, &mut out, ctl, &parts)?);
        p.ex_mlen = b.dwords * 4 / reg;
    } else {
        if shader.insts.dst[inst].is_null() {
            return Err("a block read without a destination".into());
        }
        shader.insts.size_written[inst] = b.dwords * 4;
    }
    let s = send(shader, inst, p, sfid, desc);
    if let Some(t) = bti {
        t.attach(shader, s);
    }
    out.push(s);
    Ok(out)
}
