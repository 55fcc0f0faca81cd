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

use eubatch_ir::shader::CondMod;
use eubatch_ir::{Inst, Opcode, RegFile, Shader};

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
    if surface.file != RegFile::Imm {
        return Err(SimError::at(
            inst,
            "pull_constant_load_gfx7 from a non-immediate surface is not modelled yet",
        ));
    }
    let s = surface.imm_bits();
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

/// A sampler `send` of vec4 final code: the SIMD4x2 `ld` of a pull-constant load. Other
/// sampler messages are refused.
pub fn sampler_send(
    shader: &Shader,
    t: &mut Thread,
    inst: Inst,
    mask: u32,
) -> Result<(), SimError> {
    let info = shader
        .send_info(inst)
        .copied()
        .ok_or_else(|| SimError::at(inst, "send without a descriptor"))?;
    let msg_type = (info.desc >> 12) & 0x1f;
    let simd_mode = (info.desc >> 17) & 3;
    if msg_type != eubatch_ir::message::sampler::msg::LD || simd_mode != 0 || info.mlen != 1 {
        return Err(SimError::at(
            inst,
            format!(
                "vec4 sampler message type {msg_type} (SIMD mode {simd_mode}, mlen {}) is not modelled yet",
                info.mlen
            ),
        ));
    }
    let payload = shader
        .srcs(inst)
        .first()
        .filter(|o| o.file == RegFile::FixedGrf)
        .copied()
        .ok_or_else(|| SimError::at(inst, "a sampler send's payload must be a register"))?;
    let mut dst = shader.insts.dst[inst];
    dst.region.swizzle = eubatch_ir::Region::WRITEMASK_XYZW;
    dst.offset = 0;
    let surface = (info.desc & 0xff) as u64;
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
        load_half(t, &dst, h, surface, o).map_err(|e| e.with_inst(inst))?;
    }
    Ok(())
}
