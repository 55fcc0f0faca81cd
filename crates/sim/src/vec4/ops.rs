//! vec4 instructions that read across a half: the dot products, and the pull-constant
//! loads of vec4 vertex shaders (start IR and final code).
//!
//! - `dp2`/`dp3`/`dp4`/`dph` (PRM Vol. 7 "DP4", "DPH"): every channel of a half gets the
//!   dot product of the first 2, 3 or 4 swizzled components of that half's sources (`dph`:
//!   `dp3 + src1.w`); the writemask picks where it lands. Products and sums are rounded to
//!   single precision one at a time, in component order.
//! - `pull_constant_load_gfx7` (Mesa VS_OPCODE_PULL_CONSTANT_LOAD_GFX7,
//!   brw_vec4_generator.cpp `generate_pull_constant_load_gfx7`): a sampler `ld` in SIMD4x2
//!   mode on the constant buffer whose binding-table index is the first source; the
//!   second source's `x` of each half is the byte offset, and the half receives the vec4
//!   at that offset. The final code's `send` of the same message (descriptor: message type
//!   LD in bits 16:12, SIMD mode SIMD4x2 = 0 in bits 18:17) reads the offset from the
//!   payload register's `x` of each half. Both read the seeded constant buffers
//!   ([`crate::inputs::constant_dword`]).
//! - The sampler's SIMD4x2 messages (`txl`, `txs` of the start IR, [`sampler_ir`]; the
//!   final code's `sample_l`, `resinfo`, ... sends): each half's parameters are the
//!   vec4s of the payload registers in order, its response a vec4 in that half.

use eubatch_ir::shader::CondMod;
use eubatch_ir::{Inst, Opcode, Operand, RegFile, Shader};

use crate::inputs::constant_dword;
use crate::state::Thread;
use crate::value::{decode, encode, Value};
use crate::SimError;

/// Halves (0, 1) with a channel in `mask`.
fn halves(mask: u32) -> impl Iterator<Item = u32> {
    (0..2u32).filter(move |h| mask & (0xf << (4 * h)) != 0)
}

fn source_f32(t: &mut Thread, op: &eubatch_ir::Operand, i: u32) -> Result<f32, SimError> {
    let mut v = decode(op.ty, t.read(op, i)?).as_f64() as f32;
    if op.mods.abs() {
        v = v.abs();
    }
    if op.mods.negate() {
        v = -v;
    }
    Ok(v)
}

/// `dp2`, `dp3`, `dp4`, `dph` for the channels of `mask` (execution mask and predicate).
pub fn dot(shader: &Shader, t: &mut Thread, inst: Inst, mask: u32) -> Result<(), SimError> {
    let op = shader.insts.opcode[inst];
    let ctl = shader.insts.control[inst];
    let dst = shader.insts.dst[inst];
    let srcs = shader.srcs(inst);
    let [a, b] = srcs else {
        return Err(SimError::at(inst, "a dot product takes two sources"));
    };
    let n = match op {
        Opcode::Dp2 => 2,
        Opcode::Dp3 | Opcode::Dph => 3,
        _ => 4,
    };
    let mut results = Vec::new();
    for h in halves(mask) {
        let poison = t.poison_reads;
        let mut sum = 0f32;
        for k in 0..n {
            let x = source_f32(t, a, h * 4 + k).map_err(|e| e.with_inst(inst))?;
            let y = source_f32(t, b, h * 4 + k).map_err(|e| e.with_inst(inst))?;
            sum += x * y;
        }
        if op == Opcode::Dph {
            sum += source_f32(t, b, h * 4 + 3).map_err(|e| e.with_inst(inst))?;
        }
        let bits = encode(dst.ty, Value::Float(sum as f64), ctl.saturate());
        results.push((h, bits, t.poison_reads == poison));
    }
    for (h, bits, defined) in results {
        for c in 0..4 {
            let i = h * 4 + c;
            if mask & (1 << i) == 0 {
                continue;
            }
            t.write_copy(&dst, i, bits, defined)
                .map_err(|e| e.with_inst(inst))?;
            if ctl.cmod != CondMod::None && super::regs::writes_channel(&dst, i) {
                let v = decode(dst.ty, bits);
                let zero = Value::Float(0.0);
                t.set_flag(ctl.flag_subreg, i, crate::alu::compare(ctl.cmod, v, zero));
            }
        }
    }
    Ok(())
}

/// Loads the vec4 at byte `offset` of constant buffer `surface` into half `h` of `dst`.
fn load_half(
    t: &mut Thread,
    dst: &eubatch_ir::Operand,
    h: u32,
    surface: u64,
    offset: u64,
) -> Result<(), SimError> {
    for c in 0..4u32 {
        let w = constant_dword(t.seed, surface, offset / 4 + c as u64);
        let mut d = *dst;
        d.ty = eubatch_ir::Type::UD;
        t.write(&d, h * 4 + c, w as u64)?;
    }
    Ok(())
}

/// `pull_constant_load_gfx7` of the start IR.
pub fn pull_constant_load(
    shader: &Shader,
    t: &mut Thread,
    inst: Inst,
    mask: u32,
) -> Result<(), SimError> {
    let dst = shader.insts.dst[inst];
    let [surface, offset] = shader.srcs(inst) else {
        return Err(SimError::at(
            inst,
            "pull_constant_load_gfx7 takes a surface and an offset",
        ));
    };
    // A surface in a register: Mesa's generator puts `surf_index & 0xff` of its first
    // element (Align1 `vec1`: dword 0 of the register, whatever the swizzle) in a0 and ORs
    // it into the descriptor (`generate_pull_constant_load_gfx7`). An undefined index
    // loads from no known buffer: the result is undefined.
    let s = if surface.file == RegFile::Imm {
        surface.imm_bits()
    } else {
        let mut o = *surface;
        o.ty = eubatch_ir::Type::UD;
        o.mods = Default::default();
        o.region.swizzle = eubatch_ir::Region::XYZW;
        let (v, defined) = t.read_defined(&o, 0).map_err(|e| e.with_inst(inst))?;
        if !defined {
            let mut d = dst;
            d.ty = eubatch_ir::Type::UD;
            for i in (0..8).filter(|i| mask & (0xf << (4 * (i / 4))) != 0) {
                t.write_copy(&d, i, 0, false)
                    .map_err(|e| e.with_inst(inst))?;
            }
            return Ok(());
        }
        (v as u32 & eubatch_ir::message::surface::BINDING_TABLE_INDEX_MASK) as u64
    };
    let mut offsets = Vec::new();
    for h in halves(mask) {
        let o = t.read(offset, h * 4).map_err(|e| e.with_inst(inst))?;
        offsets.push((h, o as u32 as u64));
    }
    for (h, o) in offsets {
        load_half(t, &dst, h, s, o).map_err(|e| e.with_inst(inst))?;
    }
    Ok(())
}

/// The parameters one half sends in a SIMD4x2 sampler message: the four dwords of that
/// half of each of the `regs` payload registers from register `first` of the register
/// file, in order (PRM Vol. 7 "SIMD4x2 payload": a vec4 a register and vertex).
fn simd4x2_params(
    t: &Thread,
    inst: Inst,
    first: u32,
    regs: u32,
    h: u32,
    params: &mut Vec<u32>,
) -> Result<(), SimError> {
    params.clear();
    let reg = t.reg_size as usize;
    for r in 0..regs as usize {
        for d in 0..4usize {
            let a = (first as usize + r) * reg + 16 * h as usize + 4 * d;
            let b = t
                .grf
                .get(a..a + 4)
                .ok_or_else(|| SimError::at(inst, "sampler payload outside the register file"))?;
            params.push(u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        }
    }
    Ok(())
}

/// Writes the response of a SIMD4x2 sampler message to the halves of `mask`: the four
/// components of half `h`'s texel ([`crate::sampler::texel`] of its parameters) in
/// that half of `dst` (all four, as the message writes the register).
#[allow(clippy::too_many_arguments)]
fn simd4x2_sample(
    t: &mut Thread,
    inst: Inst,
    mask: u32,
    mut dst: eubatch_ir::Operand,
    first: u32,
    regs: u32,
    surface: u32,
    sampler: u32,
    msg_type: u32,
    header_bits: u32,
) -> Result<(), SimError> {
    dst.ty = eubatch_ir::Type::UD;
    dst.region.swizzle = eubatch_ir::Region::WRITEMASK_XYZW;
    let mut params = Vec::with_capacity(4 * regs as usize);
    let mut texels = [[0u32; 4]; 2];
    for h in halves(mask) {
        simd4x2_params(t, inst, first, regs, h, &mut params)?;
        for (c, v) in texels[h as usize].iter_mut().enumerate() {
            *v = crate::sampler::texel(
                t.seed,
                surface,
                sampler,
                msg_type,
                header_bits,
                &params,
                c as u32,
            );
        }
    }
    for h in halves(mask) {
        for c in 0..4u32 {
            t.write(&dst, h * 4 + c, texels[h as usize][c as usize] as u64)
                .map_err(|e| e.with_inst(inst))?;
        }
    }
    Ok(())
}

/// The start IR's `txl` and `txs` of a vec4 shader (Mesa brw_vec4_nir.cpp
/// `nir_emit_texture`, brw_vec4_visitor.cpp `emit_texture`): the message's parameters are
/// in the message registers from `m2` (`base_mrf`), a vec4 each, or from `m3` when the
/// message has a header in `m2` ([`sampler::vec4_high_sampler_header`]: on Haswell a
/// sampler in a register or past 15): `txl` sends the coordinate first and the LOD in the
/// next register's `x` (message `sample_l`, two registers), `txs` the LOD alone
/// (`resinfo`, one). The texture and sampler are sources 1 and 2 (after an empty source
/// 0): immediates, or registers whose dword 0 the generator puts in the descriptor
/// (`generate_tex`, `vec1` of the index: `.x` of the first vertex), at most
/// [`sampler::VEC4_MAX_DYNAMIC_INDEX`]. The dump prints neither (the importer recovers them:
/// `eubatch_ir::import::vec4_texture_indices`; where it could not, texture and sampler 0
/// are assumed) nor the message length: the lengths above hold without a shadow
/// comparator, and a header is taken to carry no texel offset (the dump does not record
/// one); a shader that breaks these assumptions sends another message than Mesa's final
/// code, and the cross-check reports the difference.
pub fn sampler_ir(shader: &Shader, t: &mut Thread, inst: Inst, mask: u32) -> Result<(), SimError> {
    use eubatch_ir::message::sampler::{self, msg};
    let (msg_type, regs) = match shader.insts.opcode[inst] {
        Opcode::Txl => (msg::SAMPLE_L, 2),
        Opcode::Txs => (msg::RESINFO, 1),
        op => {
            return Err(SimError::at(
                inst,
                format!("vec4 `{}` is not modelled yet", op.name()),
            ))
        }
    };
    let operand = |k: usize| match shader.srcs(inst).get(k) {
        Some(o) if !o.is_bad() => *o,
        _ => Operand::imm(eubatch_ir::Type::UD, 0),
    };
    let index = |t: &mut Thread, o: &Operand, what: &str| -> Result<u32, SimError> {
        if o.file == RegFile::Imm {
            return Ok(o.imm_bits() as u32);
        }
        let (v, defined) = register_dword(t, o, 0).map_err(|e| e.with_inst(inst))?;
        if !defined {
            return Err(SimError::at(
                inst,
                format!("a vec4 {what} index that is undefined"),
            ));
        }
        if v > sampler::VEC4_MAX_DYNAMIC_INDEX {
            return Err(SimError::at(
                inst,
                format!("a vec4 run-time {what} index of {v} (past the descriptor's fields) is not modelled"),
            ));
        }
        Ok(v)
    };
    let (texture, sampler_op) = (operand(1), operand(2));
    let surface = index(t, &texture, "texture")?;
    let sampler_index = index(t, &sampler_op, "sampler")?;
    let header = sampler::vec4_high_sampler_header(shader.target, &sampler_op) as u32;
    let dst = shader.insts.dst[inst];
    let first = super::regs::MRF_START + 2 + header;
    simd4x2_sample(
        t,
        inst,
        mask,
        dst,
        first,
        regs,
        surface,
        sampler_index,
        msg_type,
        0,
    )
}

/// A sampler `send` of vec4 final code in SIMD4x2 mode: the `ld` of a pull-constant load
/// (a constant buffer's vec4 at the payload's `x` of each half), or any other message,
/// whose parameters are the payload's vec4s ([`simd4x2_sample`]) after the header if it
/// has one. A header (Mesa's vec4 `generate_tex`: g0 copied, dword 2 the texel offsets,
/// dword 3 moved on by `brw_adjust_sampler_state_pointer` for samplers past 15) gives the
/// sampler ([`sampler::sampler_from_header`]) and the header bits the sampler hashes;
/// its response mask (dword 2 bits 15:12, components left out of the one response
/// register) is not modelled.
pub fn sampler_send(
    shader: &Shader,
    t: &mut Thread,
    inst: Inst,
    mask: u32,
) -> Result<(), SimError> {
    use eubatch_ir::message::sampler;
    let info = send_descriptor(shader, t, inst)?;
    let payload = shader
        .srcs(inst)
        .first()
        .filter(|o| o.file == RegFile::FixedGrf)
        .copied()
        .ok_or_else(|| SimError::at(inst, "a sampler send's payload must be a register"))?;
    let mut dst = shader.insts.dst[inst];
    dst.region.swizzle = eubatch_ir::Region::WRITEMASK_XYZW;
    dst.offset = 0;
    // (A descriptor in a0, a pull-constant load from a surface in a register or a texture
    // and sampler indexed at run time, is ORed into the immediate one by
    // `send_descriptor`.)
    let d = sampler::Desc::decode(info.desc);
    let (msg_type, simd_mode, surface) = (d.msg_type, d.simd_mode, d.surface);
    let header = eubatch_ir::message::header_present(info.desc);
    let not_modelled = |why: &str| {
        SimError::at(
            inst,
            format!(
                "vec4 sampler message type {msg_type} (SIMD mode {simd_mode}, header {header}, rlen {}){why} is not modelled yet",
                eubatch_ir::message::rlen(info.desc)
            ),
        )
    };
    if simd_mode != 0 || eubatch_ir::message::rlen(info.desc) > 1 {
        return Err(not_modelled(""));
    }
    if msg_type != sampler::msg::LD || header {
        let (mut sampler_index, mut header_bits, mut first) = (d.sampler, 0, payload.nr);
        if header {
            let at = |e: SimError| e.with_inst(inst);
            let h2 = grf_dword(t, payload.nr, 2).map_err(at)?;
            let h3 = grf_dword(t, payload.nr, sampler::HEADER_SAMPLER_STATE_DWORD).map_err(at)?;
            let g0_3 = grf_dword(t, 0, sampler::HEADER_SAMPLER_STATE_DWORD).map_err(at)?;
            if msg_type == sampler::msg::LD {
                return Err(not_modelled(" (an `ld` with a header)"));
            }
            if h2 & sampler::HEADER_RESPONSE_MASK != 0 {
                return Err(not_modelled(" with components masked off in its header"));
            }
            header_bits = h2;
            sampler_index = sampler::sampler_from_header(h3, g0_3, d.sampler).ok_or_else(|| {
                not_modelled(" whose header's Sampler State Pointer selects no sampler 0-255 from the thread's")
            })?;
            first += 1;
        }
        let params = (info.mlen as u32)
            .checked_sub(header as u32)
            .ok_or_else(|| not_modelled(" of no registers"))?;
        return simd4x2_sample(
            t,
            inst,
            mask,
            dst,
            first,
            params,
            surface,
            sampler_index,
            msg_type,
            header_bits,
        );
    }
    if info.mlen != 1 {
        return Err(SimError::at(
            inst,
            format!("a vec4 `ld` of {} registers is not modelled yet", info.mlen),
        ));
    }
    let reg = t.reg_size as usize;
    let mut offsets = Vec::new();
    for h in halves(mask) {
        let a = payload.nr as usize * reg + h as usize * 16;
        let b = t
            .grf
            .get(a..a + 4)
            .ok_or_else(|| SimError::at(inst, "payload outside the register file"))?;
        offsets.push((h, u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as u64));
    }
    for (h, o) in offsets {
        load_half(t, &dst, h, surface as u64, o).map_err(|e| e.with_inst(inst))?;
    }
    Ok(())
}

/// Dword `k` of the register an IR operand names (its swizzle ignored, as the generator's
/// Align1 regions and the message payloads ignore it), and whether it is defined.
fn register_dword(
    t: &mut Thread,
    op: &eubatch_ir::Operand,
    k: u32,
) -> Result<(u32, bool), SimError> {
    let mut o = *op;
    if o.file != RegFile::Imm {
        o.ty = eubatch_ir::Type::UD;
        o.mods = Default::default();
        o.region.swizzle = eubatch_ir::Region::XYZW;
    }
    let (v, d) = t.read_defined(&o, k)?;
    Ok((v as u32, d))
}

/// A SIMD4x2 data-port message's binding-table index: an immediate, or a register's
/// dword 0 & 0xff (`and(1) a0 surface 0xff`, the generator's indirect descriptor), which
/// must be defined.
fn surface_index(t: &mut Thread, inst: Inst, surface: &Operand) -> Result<u64, SimError> {
    if surface.file == RegFile::Imm {
        return Ok(surface.imm_bits());
    }
    let (v, d) = register_dword(t, surface, 0).map_err(|e| e.with_inst(inst))?;
    if !d {
        return Err(SimError::at(
            inst,
            "a SIMD4x2 data-port message on an undefined surface",
        ));
    }
    Ok((v & eubatch_ir::message::surface::BINDING_TABLE_INDEX_MASK) as u64)
}

/// The halves (vertices) of a SIMD4x2 message that are enabled, as the channels of a
/// two-channel message: a half takes part when any of its four channels is enabled.
fn enabled_halves(mask: u32) -> u32 {
    (mask & 0xf != 0) as u32 | ((mask & 0xf0 != 0) as u32) << 1
}

/// A start-IR vec4 data-port message `op dst, payload, surface, arg` (Haswell's SIMD4x2
/// forms, brw_vec4_surface_builder.cpp `emit_send`): its destination and three sources;
/// `arg` names the third in the error for another shape.
fn simd4x2_message(
    shader: &Shader,
    inst: Inst,
    arg: &str,
) -> Result<(Operand, Operand, Operand, Operand), SimError> {
    let name = shader.insts.opcode[inst].name();
    if shader.target != eubatch_ir::Gen::Gen75 {
        return Err(SimError::at(
            inst,
            format!("vec4 `{name}` is SIMD4x2 on Haswell only (Ivybridge's is not modelled)"),
        ));
    }
    let [payload, surface, third] = shader.srcs(inst) else {
        return Err(SimError::at(
            inst,
            format!("`{name}` takes a payload, a surface and {arg}"),
        ));
    };
    Ok((shader.insts.dst[inst], *payload, *surface, *third))
}

/// The start IR's vec4 `untyped_surface_read dst, payload, surface, n` on Haswell
/// (brw_vec4_surface_builder.cpp `emit_untyped_read`, always SIMD4x2; the generator's
/// `brw_untyped_surface_read` in Align16 with `n` channels): each enabled half reads `n`
/// consecutive dwords from the address in its payload `x` into its components `x`.. of
/// the one response register ([`crate::memory::run`], the scalar messages' memory);
/// the components past `n` are left undefined (a shader reading them is caught).
pub fn untyped_surface_read(
    shader: &Shader,
    t: &mut Thread,
    inst: Inst,
    mask: u32,
    out: &mut crate::Outputs,
) -> Result<(), SimError> {
    use eubatch_ir::message::surface::{Kind, Shape};
    let at = |e: SimError| e.with_inst(inst);
    let (dst, payload, surface, n) = simd4x2_message(shader, inst, "a channel count")?;
    let comps = match n.file {
        RegFile::Imm if (1..=4).contains(&n.imm_bits()) => n.imm_bits() as u32,
        _ => {
            return Err(SimError::at(
                inst,
                "an untyped_surface_read whose channel count is not an immediate 1 to 4",
            ))
        }
    };
    let s = surface_index(t, inst, &surface)?;
    let shape = Shape {
        kind: Kind::Untyped,
        write: false,
        comps,
        bytes: 4,
    };
    let reads = crate::memory::run(
        t,
        (0, 2),
        enabled_halves(mask),
        shape,
        out,
        |_, _| Ok(s),
        |t, h| register_dword(t, &payload, 4 * h).map(|(v, _)| v as u64),
        |_, _, _| Ok(0),
    )
    .map_err(at)?;
    let mut d = dst;
    d.ty = eubatch_ir::Type::UD;
    d.region.swizzle = eubatch_ir::Region::WRITEMASK_XYZW;
    let mut halves_read = 0u32;
    for (k, h, v) in reads {
        t.write(&d, 4 * h + k, v).map_err(at)?;
        halves_read |= 1 << h;
    }
    for h in (0..2).filter(|h| halves_read & (1 << h) != 0) {
        for c in comps..4 {
            t.write_copy(&d, 4 * h + c, 0, false).map_err(at)?;
        }
    }
    Ok(())
}

/// The start IR's vec4 `untyped_atomic dst, payload, surface, op` on Haswell
/// (brw_vec4_surface_builder.cpp `emit_untyped_atomic` with `has_simd4x2`, a SIMD4x2
/// message: `brw_untyped_atomic` in Align16): the payload's first register holds each
/// half's address in its `x`, the second (for an operation with data) the operands in `x`
/// and `y`; each enabled half performs the operation in order ([`crate::memory::atomic_run`],
/// the scalar messages' memory and records, channel = half) and gets the old value in
/// its `x`, the other components undefined. A surface in a register: its dword 0 & 0xff
/// (`and(1) a0 surface 0xff`, the generator's indirect descriptor).
pub fn untyped_atomic(
    shader: &Shader,
    t: &mut Thread,
    inst: Inst,
    mask: u32,
    out: &mut crate::Outputs,
) -> Result<(), SimError> {
    use eubatch_ir::message::atomic::{valid_op, Atomic, Kind};
    let at = |e: SimError| e.with_inst(inst);
    let (dst, payload, surface, op) = simd4x2_message(shader, inst, "an operation")?;
    let a = match op.file {
        RegFile::Imm if valid_op(Kind::Untyped, op.imm_bits() as u32) => Atomic {
            kind: Kind::Untyped,
            op: op.imm_bits() as u32,
            response: !dst.is_null(),
        },
        _ => {
            return Err(SimError::at(
                inst,
                "an untyped_atomic operation that is not an immediate",
            ))
        }
    };
    let s = surface_index(t, inst, &surface)?;
    let mut data_reg = payload;
    data_reg.offset += t.reg_size;
    let halves = enabled_halves(mask);
    let results = crate::memory::atomic_run(
        t,
        (0, 2),
        halves,
        a,
        out,
        |_, _| Ok(s),
        |t, h| register_dword(t, &payload, 4 * h).map(|(v, _)| v as u64),
        |t, k, h| register_dword(t, &data_reg, 4 * h + k).map(|(v, _)| v as u64),
    )
    .map_err(at)?;
    if a.response {
        let mut d = dst;
        d.ty = eubatch_ir::Type::UD;
        d.region.swizzle = eubatch_ir::Region::WRITEMASK_XYZW;
        for (h, v) in results {
            t.write(&d, 4 * h, v).map_err(at)?;
            for c in 1..4 {
                t.write_copy(&d, 4 * h + c, 0, false).map_err(at)?;
            }
        }
    }
    Ok(())
}

/// The descriptor of a `send` of vec4 final code: its immediate, ORed with a0's dword
/// when the send takes its descriptor from a0 (`brw_send_indirect_message`: a surface in
/// a register, `and(1) a0 surface 0xff` then `or(1) a0 a0 desc`), and the message
/// length that results.
fn send_descriptor(
    shader: &Shader,
    t: &Thread,
    inst: Inst,
) -> Result<eubatch_ir::shader::SendInfo, SimError> {
    let mut info = shader
        .send_info(inst)
        .copied()
        .ok_or_else(|| SimError::at(inst, "send without a descriptor"))?;
    if let Some(a0) = shader
        .srcs(inst)
        .iter()
        .find(|s| s.file == RegFile::Arf && s.nr == eubatch_ir::operand::arf::ADDRESS)
    {
        let a = a0.offset as usize;
        let b = t
            .addr
            .get(a..a + 4)
            .ok_or_else(|| SimError::at(inst, "a descriptor outside a0"))?;
        info.desc |= u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        info.mlen = eubatch_ir::message::mlen(info.desc) as u8;
    }
    Ok(info)
}

/// Dword `k` of GRF `reg` of the register file.
fn grf_dword(t: &Thread, reg: u32, k: u32) -> Result<u32, SimError> {
    let a = reg as usize * t.reg_size as usize + 4 * k as usize;
    let b = t
        .grf
        .get(a..a + 4)
        .ok_or_else(|| SimError::msg("a message payload outside the register file"))?;
    Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// A data-port `send` of vec4 final code on Haswell: the SIMD4x2 untyped atomic and
/// untyped surface read ([`eubatch_ir::message::surface::decode_simd4x2`], the
/// generator's `brw_untyped_atomic` and `brw_untyped_surface_read` in Align16 for the
/// start IR's `untyped_atomic` and `untyped_surface_read`). Each enabled half is one
/// channel of the message, as in [`untyped_atomic`] and [`untyped_surface_read`]: the
/// same memory, the same records, in half order. The payload's first register holds the
/// halves' addresses in dwords 0 and 4, the second (an atomic with operands) the operands
/// in dwords 0, 1 and 4, 5; the response register gets an atomic's old value in dword 0
/// of each half (the destination's writemask `.x`, as the generator masks it), a read's
/// components in dwords 0.. of each half. Surface writes (no start-IR counterpart yet)
/// and Ivybridge's SIMD8 form of these messages are not modelled.
pub fn data_port_send(
    shader: &Shader,
    t: &mut Thread,
    inst: Inst,
    mask: u32,
    out: &mut crate::Outputs,
) -> Result<(), SimError> {
    use eubatch_ir::message::surface::{decode_simd4x2, Op};
    let at = |e: SimError| e.with_inst(inst);
    let info = send_descriptor(shader, t, inst)?;
    let not_modelled = || {
        SimError::at(
            inst,
            format!(
                "a vec4 data-port message (SFID {}, descriptor {:#010x}) that is not a SIMD4x2 untyped atomic or surface read is not modelled yet",
                info.sfid, info.desc
            ),
        )
    };
    if shader.target != eubatch_ir::Gen::Gen75 {
        return Err(not_modelled());
    }
    let payload = shader
        .srcs(inst)
        .first()
        .filter(|o| o.file == RegFile::FixedGrf)
        .map(|o| o.nr)
        .ok_or_else(|| SimError::at(inst, "a data-port send's payload must be a register"))?;
    let s = (info.desc & eubatch_ir::message::surface::BINDING_TABLE_INDEX_MASK) as u64;
    let rlen = eubatch_ir::message::rlen(info.desc);
    let mut dst = shader.insts.dst[inst];
    dst.ty = eubatch_ir::Type::UD;
    dst.offset = 0;
    dst.region.swizzle = eubatch_ir::Region::WRITEMASK_XYZW;
    let halves = enabled_halves(mask);
    match decode_simd4x2(info.sfid, info.desc) {
        Some(Op::Atomic(a)) => {
            let mlen = 1 + (a.data_components() > 0) as u32;
            if info.mlen as u32 != mlen || rlen != a.response as u32 {
                return Err(SimError::at(
                    inst,
                    format!(
                        "a SIMD4x2 untyped atomic of mlen {} and rlen {rlen} (expected {mlen} and {})",
                        info.mlen, a.response as u32
                    ),
                ));
            }
            let results = crate::memory::atomic_run(
                t,
                (0, 2),
                halves,
                a,
                out,
                |_, _| Ok(s),
                |t, h| grf_dword(t, payload, 4 * h).map(|v| v as u64),
                |t, k, h| grf_dword(t, payload + 1, 4 * h + k).map(|v| v as u64),
            )
            .map_err(at)?;
            if a.response && !dst.is_null() {
                for (h, v) in results {
                    t.write(&dst, 4 * h, v).map_err(at)?;
                }
            }
            Ok(())
        }
        Some(Op::Access(shape)) if !shape.write => {
            if info.mlen != 1 || rlen != 1 {
                return Err(SimError::at(
                    inst,
                    format!(
                        "a SIMD4x2 untyped surface read of mlen {} and rlen {rlen} (expected 1 and 1)",
                        info.mlen
                    ),
                ));
            }
            let reads = crate::memory::run(
                t,
                (0, 2),
                halves,
                shape,
                out,
                |_, _| Ok(s),
                |t, h| grf_dword(t, payload, 4 * h).map(|v| v as u64),
                |_, _, _| Ok(0),
            )
            .map_err(at)?;
            if !dst.is_null() {
                for (k, h, v) in reads {
                    t.write(&dst, 4 * h + k, v).map_err(at)?;
                }
            }
            Ok(())
        }
        _ => Err(not_modelled()),
    }
}
