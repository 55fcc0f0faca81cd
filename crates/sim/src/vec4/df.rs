//! The vec4 back end's 64-bit helper opcodes of the start IR (Mesa brw_vec4_nir.cpp and
//! brw_vec4_generator.cpp), channel by channel with the vec4 operand rules ([`super::regs`]):
//! - `pick_low_32bit` / `pick_high_32bit` (VEC4_OPCODE_PICK_LOW/HIGH_32BIT): a 32-bit
//!   destination gets the low / high dword of each DF channel of the source.
//! - `set_low_32bit` / `set_high_32bit` (VEC4_OPCODE_SET_LOW/HIGH_32BIT): the low / high
//!   dword of each DF channel of the destination gets the 32-bit source; the other dword
//!   is kept.
//! - `single_to_double` (VEC4_OPCODE_TO_DOUBLE): each DF channel gets the 32-bit source
//!   channel converted by its type.
//! - `double_to_f32` / `_d32` / `_u32` (VEC4_OPCODE_FROM_DOUBLE): the DF source converted,
//!   written in the low dword of each 64-bit channel of the destination (Mesa reads it back
//!   with `pick_low_32bit`); the high dword is left as it was.
//!
//! Every channel is read before any is written: Mesa converts in place.

use eubatch_ir::{Inst, Opcode, Operand, Shader, Type};

use crate::state::Thread;
use crate::value::{decode, encode};
use crate::SimError;

/// Whether `op` is one of these opcodes.
pub fn handles(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::PickLow32bit
            | Opcode::PickHigh32bit
            | Opcode::SetLow32bit
            | Opcode::SetHigh32bit
            | Opcode::SingleToDouble
            | Opcode::DoubleToF32
            | Opcode::DoubleToD32
            | Opcode::DoubleToU32
    )
}

/// `op` retyped to `ty` (its place unchanged).
fn as_type(op: &Operand, ty: Type) -> Operand {
    let mut o = *op;
    o.ty = ty;
    o
}

pub fn execute(shader: &Shader, t: &mut Thread, inst: Inst, mask: u32) -> Result<(), SimError> {
    let op = shader.insts.opcode[inst];
    let sat = shader.insts.control[inst].saturate();
    let dst = shader.insts.dst[inst];
    let [src] = shader.srcs(inst) else {
        return Err(SimError::at(
            inst,
            format!("`{}` takes one source", op.name()),
        ));
    };
    let exec = shader.insts.control[inst].exec_size as u32;
    let at = |e: SimError| e.with_inst(inst);
    let mut results: Vec<(u32, u64, bool)> = Vec::new();
    for i in (0..exec).filter(|i| mask & (1 << i) != 0) {
        let poison = t.poison_reads;
        let bits = match op {
            Opcode::PickLow32bit | Opcode::PickHigh32bit => {
                let v = t.read(&as_type(src, Type::DF), i).map_err(at)?;
                if op == Opcode::PickLow32bit {
                    v & 0xffff_ffff
                } else {
                    v >> 32
                }
            }
            Opcode::SetLow32bit | Opcode::SetHigh32bit => {
                let v = t.read(src, i).map_err(at)? & 0xffff_ffff;
                let old = t.read(&as_type(&dst, Type::DF), i).map_err(at)?;
                if op == Opcode::SetLow32bit {
                    (old & !0xffff_ffff) | v
                } else {
                    (old & 0xffff_ffff) | v << 32
                }
            }
            Opcode::SingleToDouble => {
                let v = decode(src.ty, t.read(src, i).map_err(at)?);
                encode(Type::DF, v, sat)
            }
            _ => {
                let to = match op {
                    Opcode::DoubleToF32 => Type::F,
                    Opcode::DoubleToD32 => Type::D,
                    _ => Type::UD,
                };
                let v = decode(Type::DF, t.read(&as_type(src, Type::DF), i).map_err(at)?);
                let old = t.read(&as_type(&dst, Type::DF), i).map_err(at)?;
                (old & !0xffff_ffff) | (encode(to, v, sat) & 0xffff_ffff)
            }
        };
        results.push((i, bits, t.poison_reads == poison));
    }
    // pick_* write 32-bit channels, the others 64-bit ones.
    let out = match op {
        Opcode::PickLow32bit | Opcode::PickHigh32bit => dst,
        _ => as_type(&dst, Type::DF),
    };
    for (i, bits, defined) in results {
        t.write_copy(&out, i, bits, defined).map_err(at)?;
    }
    Ok(())
}
