//! A64 (stateless, 64-bit address) messages of data cache 1, gen8 on: untyped reads and
//! writes, byte-scattered reads and writes, integer atomics and gen9's float atomics (PRM
//! Vol. 2d "A64 Untyped Surface Read/Write", "A64 Byte Scattered Read/Write", "A64 Untyped
//! Atomic Operation"; Mesa brw_eu.h `brw_dp_a64_untyped_surface_rw_desc`,
//! `brw_dp_a64_byte_scattered_rw_desc`, `brw_dp_a64_untyped_atomic_desc`,
//! `brw_dp_a64_untyped_atomic_float_desc`; brw_lower_logical_sends.cpp
//! `lower_a64_logical_send`).
//!
//! Payload: the address, a qword per channel (two registers per 8 channels), then the data
//! (a register per 8 channels for each component), split after the address on gen9 (split
//! sends). The binding table index is `GFX8_BTI_STATELESS_NON_COHERENT` (253). What the
//! messages move per channel is a [`Shape`] (untyped: dwords; byte-scattered: the low
//! bytes of one dword) or an [`Atomic`], the same as the binding-table messages'.

use super::atomic::{self, Atomic, Kind as AtomicKind};
use super::sfid;
use super::surface::{cmask, dp_desc, Kind, Shape};
use crate::operand::{Operand, RegFile};
use crate::{Gen, Opcode};

/// Sources of the logical A64 messages (brw_eu_defines.h `enum a64_logical_srcs`: address,
/// data, the immediate argument — components, bits or the atomic operation —, and Mesa 23's
/// "enable helpers", absent from Mesa 22.3's dumps of three sources).
pub mod src {
    pub const ADDRESS: usize = 0;
    pub const DATA: usize = 1;
    pub const ARG: usize = 2;
}

/// `GFX8_BTI_STATELESS_NON_COHERENT`: the binding table index of every A64 message.
pub const BTI: u32 = 253;

/// Message types of data cache 1 (descriptor bits 18:14; brw_eu_defines.h).
pub const UNTYPED_READ: u32 = 0x11;
pub const UNTYPED_WRITE: u32 = 0x19;
/// `GFX9_DATAPORT_DC_PORT1_A64_SCATTERED_READ` (used from gen8, as Mesa does).
pub const SCATTERED_READ: u32 = 0x10;
pub const SCATTERED_WRITE: u32 = 0x1a;
pub const UNTYPED_ATOMIC: u32 = 0x12;
pub const UNTYPED_ATOMIC_FLOAT: u32 = 0x1d;

/// What an A64 message does: the binding-table messages' [`super::surface::Op`].
pub type Msg = super::surface::Op;

/// The message a logical A64 instruction describes, if this table has it: the 32-bit
/// forms (Mesa's int16, int64, float16 and float64 atomics are not here).
pub fn logical(opcode: Opcode, srcs: &[Operand], has_dst: bool) -> Option<Msg> {
    let arg = srcs.get(src::ARG)?;
    let arg = (arg.file == RegFile::Imm).then(|| arg.imm_bits() as u32)?;
    let access = |kind, write, comps, bytes| {
        Some(Msg::Access(Shape {
            kind,
            write,
            comps,
            bytes,
        }))
    };
    let atomic = |kind| {
        atomic::valid_op(kind, arg).then_some(Msg::Atomic(Atomic {
            kind,
            op: arg,
            response: has_dst,
        }))
    };
    let msg = match opcode {
        Opcode::A64UntypedReadLogical => access(Kind::Untyped, false, arg, 4)?,
        Opcode::A64UntypedWriteLogical => access(Kind::Untyped, true, arg, 4)?,
        Opcode::A64ByteScatteredReadLogical => access(Kind::ByteScattered, false, 1, arg / 8)?,
        Opcode::A64ByteScatteredWriteLogical => access(Kind::ByteScattered, true, 1, arg / 8)?,
        Opcode::A64UntypedAtomicLogical => atomic(AtomicKind::Untyped)?,
        Opcode::A64UntypedAtomicFloatLogical | Opcode::A64UntypedAtomicFloat32Logical => {
            atomic(AtomicKind::UntypedFloat)?
        }
        _ => return None,
    };
    match msg {
        Msg::Access(s) => {
            (matches!(s.bytes, 1 | 2 | 4) && (1..=4).contains(&s.comps)).then_some(msg)
        }
        Msg::Atomic(_) => Some(msg),
    }
}

/// The descriptor (without lengths; the binding table index [`BTI`] included) of `msg` on
/// `gen` at `exec` channels; the shared function is data cache 1. `None` where the
/// generation or width has no such message: A64 is gen8's, float atomics gen9's, atomics
/// SIMD8 (`brw_dp_a64_untyped_atomic_desc` asserts it).
pub fn descriptor(gen: Gen, msg: Msg, exec: u32) -> Option<u32> {
    if gen < Gen::Gen8 || !matches!(exec, 8 | 16) {
        return None;
    }
    let (ty, control) = match msg {
        Msg::Access(s) => match s.kind {
            Kind::Untyped => {
                let simd = if exec == 16 { 1 } else { 2 };
                let ty = if s.write { UNTYPED_WRITE } else { UNTYPED_READ };
                (ty, cmask(s.comps) | simd << 4)
            }
            Kind::ByteScattered => {
                // Subtype byte (bits 9:8, 0), data size (bits 11:10, `brw_mdc_a64_ds`:
                // elements of a byte 1, 2, 4 → 0, 1, 2), SIMD16 (bit 12).
                let ds = s.bytes.trailing_zeros();
                let ty = if s.write {
                    SCATTERED_WRITE
                } else {
                    SCATTERED_READ
                };
                (ty, ds << 2 | ((exec == 16) as u32) << 4)
            }
            _ => return None,
        },
        Msg::Atomic(a) => {
            if exec != 8 {
                return None;
            }
            let resp = (a.response as u32) << 5;
            match a.kind {
                AtomicKind::Untyped => (UNTYPED_ATOMIC, a.op | resp),
                AtomicKind::UntypedFloat if gen >= Gen::Gen9 => {
                    (UNTYPED_ATOMIC_FLOAT, (a.op & 3) | resp)
                }
                _ => return None,
            }
        }
    };
    Some(BTI | dp_desc(ty, control))
}

/// The A64 message a raw send of shared function `sfid` and descriptor `desc` is, and its
/// SIMD width.
pub fn decode(sfid: u8, desc: u32) -> Option<(Msg, u32)> {
    if sfid != sfid::DATA_CACHE_1 {
        return None;
    }
    let ty = (desc >> 14) & 0x1f;
    let control = (desc >> 8) & 0x3f;
    let shape = |kind, write, comps, bytes| {
        Msg::Access(Shape {
            kind,
            write,
            comps,
            bytes,
        })
    };
    Some(match ty {
        UNTYPED_READ | UNTYPED_WRITE => {
            let exec = match control >> 4 {
                1 => 16,
                2 => 8,
                _ => return None,
            };
            let comps = 4 - (control & 0xf).count_ones();
            (shape(Kind::Untyped, ty == UNTYPED_WRITE, comps, 4), exec)
        }
        SCATTERED_READ | SCATTERED_WRITE if control & 3 == 0 => {
            let bytes = 1 << ((control >> 2) & 3);
            if bytes > 4 {
                return None;
            }
            let exec = if control & 0x10 != 0 { 16 } else { 8 };
            (
                shape(Kind::ByteScattered, ty == SCATTERED_WRITE, 1, bytes),
                exec,
            )
        }
        UNTYPED_ATOMIC | UNTYPED_ATOMIC_FLOAT => {
            // Bit 12 of the integer atomic is 64-bit data, not modelled here.
            if ty == UNTYPED_ATOMIC && control & 0x10 != 0 {
                return None;
            }
            let (kind, op) = if ty == UNTYPED_ATOMIC {
                (AtomicKind::Untyped, control & 0xf)
            } else {
                (AtomicKind::UntypedFloat, control & 3)
            };
            if !atomic::valid_op(kind, op) {
                return None;
            }
            let a = Atomic {
                kind,
                op,
                response: control & 0x20 != 0,
            };
            (Msg::Atomic(a), 8)
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptors_decode_to_their_messages() {
        let mut msgs = Vec::new();
        for write in [false, true] {
            for comps in 1..=4 {
                msgs.push(Msg::Access(Shape {
                    kind: Kind::Untyped,
                    write,
                    comps,
                    bytes: 4,
                }));
            }
            for bytes in [1, 2, 4] {
                msgs.push(Msg::Access(Shape {
                    kind: Kind::ByteScattered,
                    write,
                    comps: 1,
                    bytes,
                }));
            }
        }
        for response in [false, true] {
            msgs.extend((1..=15).map(|op| {
                Msg::Atomic(Atomic {
                    kind: AtomicKind::Untyped,
                    op,
                    response,
                })
            }));
            msgs.extend((1..=3).map(|op| {
                Msg::Atomic(Atomic {
                    kind: AtomicKind::UntypedFloat,
                    op,
                    response,
                })
            }));
        }
        for gen in [Gen::Gen8, Gen::Gen9] {
            for &m in &msgs {
                for exec in [8, 16] {
                    if let Some(d) = descriptor(gen, m, exec) {
                        assert_eq!(d & 0xff, BTI);
                        assert_eq!(decode(sfid::DATA_CACHE_1, d), Some((m, exec)), "{m:?}");
                    }
                }
            }
        }
        // Mesa 22.3 on Skylake, a SIMD8 A64 read of one dword: type 0x11, control 0x2e.
        let read = msgs[0];
        assert_eq!(descriptor(Gen::Gen9, read, 8), Some(0x0004_6efd));
        assert_eq!(descriptor(Gen::Gen75, read, 8), None);
    }
}
