//! Pull constants of the logical sends: loads of constant buffer data.
//! - `varying_pull_const_logical`: a sampler `ld` whose only parameter is the byte offset
//!   (Mesa: `lower_varying_pull_constant_logical_send`; the surface is a raw buffer).
//! - `uniform_pull_const`: a constant-cache OWord block read with a header
//!   (Mesa: `lower_uniform_pull_constant_loads`).
//! - Mesa 25's constant block `memory_load`: a constant-cache unaligned OWord block read
//!   (Mesa: `lower_hdc_memory_logical_send`).
//!
//! Rules that limit it: the surface is a binding table index, an immediate or a scalar
//! computed at run time (`BindingTable`; a bindless surface handle is left logical); a
//! varying pull is a SIMD8 or SIMD16 sampler message; a uniform pull's offset is an
//! immediate, OWord-aligned; a `memory_load` is lowered only as a constant block load from
//! one address for all channels (its binding table entry an immediate or a scalar, as
//! Mesa 25's `lower_hdc_memory_logical_send` takes it).

use eubatch_ir::message::sampler::{self, ParamType};
use eubatch_ir::message::sfid;
use eubatch_ir::{Builder, Control, Inst, Operand, RegFile, Shader, Type, VgrfLayout};

use super::payload::{payloads, Part, Payload};
use super::{immediate, send, simd_mode, BindingTable};

/// `varying_pull_const_logical(N) dst, surface, offset, alignment`: a sampler `ld` of the
/// surface as a raw buffer at each channel's byte offset, four dwords back.
pub(super) fn varying_pull(shader: &mut Shader, inst: Inst) -> Result<Vec<Inst>, String> {
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
    if !shader.target.target().varying_pull_via_sampler {
        return Err(format!(
            "a varying pull-constant load on {}, which reads it through the data port (not lowered yet)",
            shader.target.name()
        ));
    }
    let ctl = shader.insts.control[inst];
    let exec = ctl.exec_size as u32;
    let mode = simd_mode(exec)?;
    let mut out = Vec::new();
    let bti = BindingTable::of(shader, &mut out, &surface)?;
    let mut offset = offset;
    offset.ty = Type::UD;
    let p = payloads(
        shader,
        &mut out,
        ctl,
        &[Part::Value(offset, ParamType::Int)],
        &[],
    )?;
    let desc = sampler::descriptor(bti.imm(), 0, sampler::msg::LD, mode);
    let s = send(shader, inst, p, sfid::SAMPLER, desc);
    bti.attach(shader, s);
    out.push(s);
    Ok(out)
}

/// `uniform_pull_const(N) dst, surface, offset` (a block of the constant buffer for all
/// channels, NoMask): a constant-cache OWord block read whose header is the thread's `g0`
/// with dword 2 set to the offset in OWords (Mesa: `lower_uniform_pull_constant_loads`,
/// which leaves FS_OPCODE_UNIFORM_PULL_CONSTANT_LOAD_GFX7 for the generator to send).
pub(super) fn uniform_pull(shader: &mut Shader, inst: Inst) -> Result<Vec<Inst>, String> {
    let srcs = shader.srcs(inst).to_vec();
    let Some((surface, offset)) = eubatch_ir::message::pull_constant_srcs(&srcs) else {
        return Err(format!("`uniform_pull_const` with {} sources", srcs.len()));
    };
    if srcs.len() == 4 && !srcs[1].is_bad() {
        return Err("a bindless surface handle (not lowered yet)".into());
    }
    let offset = immediate(&offset, "offset")?;
    if offset % 16 != 0 {
        return Err(format!(
            "a block offset of {offset} bytes (not OWord-aligned)"
        ));
    }
    let size = shader.insts.size_written[inst];
    let mut out = Vec::new();
    let bti = BindingTable::of(shader, &mut out, &surface)?;
    let desc = eubatch_ir::message::constant_cache::block_read_desc(bti.imm(), size)
        .ok_or_else(|| format!("a constant block of {size} bytes"))?;
    let g0 = Operand::fixed(0, 0, Type::UD, eubatch_ir::Region::new(8, 8, 1));
    let offset = Operand::imm(Type::UD, (offset / 16) as u64);
    let (p, moves) = block_read_header(shader, g0, offset);
    out.extend(moves);
    let s = send(shader, inst, p, sfid::CONSTANT_CACHE, desc);
    bti.attach(shader, s);
    out.push(s);
    Ok(out)
}

/// The one-register payload of a block read: a header copied from `whole` (NoMask, 8
/// dwords) with dword 2 set to `dword2` (the block's address), and the moves that build it.
fn block_read_header(shader: &mut Shader, whole: Operand, dword2: Operand) -> (Payload, Vec<Inst>) {
    let header = shader
        .vgrfs
        .push(VgrfLayout::flat(shader.reg_size()))
        .index() as u32;
    let moves = vec![
        Builder::new(8)
            .exec_all()
            .mov(shader, Operand::vgrf(header, 0, Type::UD, 1), whole),
        Builder::new(1)
            .exec_all()
            .mov(shader, Operand::vgrf(header, 8, Type::UD, 1), dword2),
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
pub(super) fn memory_load(shader: &mut Shader, inst: Inst) -> Result<Vec<Inst>, String> {
    use eubatch_ir::message::memory;
    let srcs = shader.srcs(inst).to_vec();
    let block = memory::constant_block(&srcs).ok_or_else(|| {
        "a memory_load other than a constant block load (not lowered yet)".to_string()
    })?;
    let mut out = Vec::new();
    let bti = BindingTable::of(shader, &mut out, &block.surface)?;
    let desc = memory::constant_block_desc(&block, bti.imm())
        .ok_or_else(|| format!("a constant block of {} dwords", block.dwords))?;
    let mut address = block.address;
    if address.file != RegFile::Imm && address.stride != 0 {
        return Err("a block load from a per-channel address".into());
    }
    address.ty = Type::UD;
    if address.file == RegFile::Imm {
        address = Operand::imm(Type::UD, block.address.imm_bits() & 0xffff_ffff);
    }
    let (p, moves) = block_read_header(shader, Operand::imm(Type::UD, 0), address);
    out.extend(moves);
    let mut ctl = Control::new(if block.dwords > 8 { 16 } else { 8 });
    ctl.set(Control::NO_MASK, true);
    shader.insts.control[inst] = ctl;
    shader.insts.size_written[inst] = shader.insts.size_written[inst].max(block.dwords * 4);
    let s = send(shader, inst, p, sfid::CONSTANT_CACHE, desc);
    bti.attach(shader, s);
    out.push(s);
    Ok(out)
}
