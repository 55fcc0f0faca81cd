//! Atomic operations of the data port: untyped atomics on a buffer (integer, and float on
//! gen9) and typed atomics on an image (PRM Vol. 2d "Untyped Atomic Operation", "Typed
//! Atomic Operation", "Untyped Atomic Float Operation"; Mesa brw_eu.h
//! `brw_dp_untyped_atomic_desc`, `brw_dp_untyped_atomic_float_desc`,
//! `brw_dp_typed_atomic_desc`; brw_lower_logical_sends.cpp `lower_surface_logical_send`).
//!
//! Payload (SIMD8 or SIMD16 untyped, SIMD8 typed): for typed messages before gen9 a header
//! (dword 7 the sample mask, [`super::typed`]), then the address (one dword per channel
//! per coordinate: one for untyped, the image's dimensions for typed), then the operands
//! (none for INC, DEC and PREDEC, two for the compare-exchanges, else one). With a response
//! the old value comes back, one dword per channel (PREDEC: the new one).
//!
//! Descriptor (message control, bits 13:8): the operation in bits 11:8 (`BRW_AOP_*`; the
//! float ones in bits 9:8), bit 12 SIMD8 for untyped messages (clear: SIMD16) and the
//! upper half of the sample mask for typed ones (`high_sample_mask`: channels 8-15),
//! bit 13 "return data".

use crate::operand::{Operand, RegFile};
use crate::{Gen, Opcode};

use super::sfid;

/// Integer operations (brw_eu_defines.h `BRW_AOP_*`): the new value stored from the old
/// one and the operands `src0`, `src1`.
pub mod op {
    pub const AND: u32 = 1;
    pub const OR: u32 = 2;
    pub const XOR: u32 = 3;
    /// new = src0.
    pub const MOV: u32 = 4;
    /// new = old + 1.
    pub const INC: u32 = 5;
    /// new = old - 1.
    pub const DEC: u32 = 6;
    pub const ADD: u32 = 7;
    /// new = old - src0.
    pub const SUB: u32 = 8;
    /// new = src0 - old.
    pub const REVSUB: u32 = 9;
    pub const IMAX: u32 = 10;
    pub const IMIN: u32 = 11;
    pub const UMAX: u32 = 12;
    pub const UMIN: u32 = 13;
    /// new = old == src0 ? src1 : old.
    pub const CMPWR: u32 = 14;
    /// new = old - 1, and the response is the new value.
    pub const PREDEC: u32 = 15;
    /// Float operations (`BRW_AOP_FMAX` ...): the untyped float atomic's codes.
    pub const FMAX: u32 = 1;
    pub const FMIN: u32 = 2;
    /// new = old == src0 ? src1 : old, compared as floats.
    pub const FCMPWR: u32 = 3;
}

/// Message types (descriptor bits 17:14 on gen7, 18:14 from gen8; brw_eu_defines.h).
/// `GFX7_DATAPORT_DC_UNTYPED_ATOMIC_OP`: Ivy Bridge, data cache (0).
pub const GFX7_DC_UNTYPED_ATOMIC: u32 = 6;
/// `HSW_DATAPORT_DC_PORT1_UNTYPED_ATOMIC_OP`: Haswell on, data cache 1.
pub const HSW_DC1_UNTYPED_ATOMIC: u32 = 2;
/// `HSW_DATAPORT_DC_PORT1_UNTYPED_ATOMIC_OP_SIMD4X2`: Haswell on, data cache 1, the vec4
/// back end's SIMD4x2 atomic (brw_eu_emit.c `brw_untyped_atomic` in Align16;
/// [`super::surface::decode_simd4x2`]).
pub const HSW_DC1_UNTYPED_ATOMIC_SIMD4X2: u32 = 3;
/// `GFX9_DATAPORT_DC_PORT1_UNTYPED_ATOMIC_FLOAT_OP`: gen9, data cache 1.
pub const GFX9_DC1_UNTYPED_ATOMIC_FLOAT: u32 = 0x1b;
/// `GFX7_DATAPORT_RC_TYPED_ATOMIC_OP`: Ivy Bridge, render cache.
pub const GFX7_RC_TYPED_ATOMIC: u32 = 6;
/// `HSW_DATAPORT_DC_PORT1_TYPED_ATOMIC_OP`: Haswell on, data cache 1.
pub const HSW_DC1_TYPED_ATOMIC: u32 = 6;

/// Which atomic message.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// On a buffer, 32-bit integer (`untyped_atomic_logical`).
    Untyped,
    /// On a buffer, 32-bit float (`untyped_atomic_float_logical`, gen9).
    UntypedFloat,
    /// On an image, 32-bit integer (`typed_atomic_logical`).
    Typed,
}

/// An atomic message: which, its operation and whether the old value comes back.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Atomic {
    pub kind: Kind,
    pub op: u32,
    pub response: bool,
}

impl Atomic {
    pub fn float(self) -> bool {
        self.kind == Kind::UntypedFloat
    }

    /// Operands per channel (Mesa `fs_inst::components_read` of SURFACE_LOGICAL_SRC_DATA):
    /// none for INC, DEC and PREDEC, two for the compare-exchanges, else one.
    pub fn data_components(self) -> u32 {
        data_components(self.float(), self.op)
    }
}

/// Operands per channel of operation `op` (see [`Atomic::data_components`]).
pub fn data_components(float: bool, op: u32) -> u32 {
    match (float, op) {
        (true, op::FCMPWR) | (false, op::CMPWR) => 2,
        (false, op::INC | op::DEC | op::PREDEC) => 0,
        _ => 1,
    }
}

/// Whether `op` is an operation the message of `kind` has on gen7-gen9 (integer 1-15;
/// float FMAX, FMIN, FCMPWR: FADD is gen12's).
pub fn valid_op(kind: Kind, op: u32) -> bool {
    match kind {
        Kind::UntypedFloat => matches!(op, op::FMAX | op::FMIN | op::FCMPWR),
        _ => (op::AND..=op::PREDEC).contains(&op),
    }
}

/// The atomic a logical message describes: opcode, the operation in the immediate
/// argument (`SURFACE_LOGICAL_SRC_IMM_ARG`), a response when it has a destination.
pub fn logical(opcode: Opcode, srcs: &[Operand], has_dst: bool) -> Option<Atomic> {
    let kind = match opcode {
        Opcode::UntypedAtomicLogical => Kind::Untyped,
        Opcode::UntypedAtomicFloatLogical => Kind::UntypedFloat,
        Opcode::TypedAtomicLogical => Kind::Typed,
        _ => return None,
    };
    let arg = srcs.get(super::surface::src::IMM_ARG)?;
    let op = (arg.file == RegFile::Imm).then(|| arg.imm_bits() as u32)?;
    valid_op(kind, op).then_some(Atomic {
        kind,
        op,
        response: has_dst,
    })
}

/// Shared function and descriptor (without surface and lengths) of `atomic` on `gen` at
/// `exec` channels from channel `group` (Mesa `brw_dp_untyped_atomic_desc`,
/// `brw_dp_untyped_atomic_float_desc`, `brw_dp_typed_atomic_desc`, and the SFID choice of
/// `lower_surface_logical_send`); `None` where the generation has no such message or the
/// width is not the message's.
pub fn descriptor(gen: Gen, atomic: Atomic, exec: u32, group: u32) -> Option<(u8, u32)> {
    let hsw = gen >= Gen::Gen75;
    let resp = (atomic.response as u32) << 5;
    let (sfid, msg_type, control) = match atomic.kind {
        Kind::Untyped => {
            if !matches!(exec, 8 | 16) {
                return None;
            }
            let simd8 = ((exec == 8) as u32) << 4;
            if hsw {
                (
                    sfid::DATA_CACHE_1,
                    HSW_DC1_UNTYPED_ATOMIC,
                    atomic.op | simd8,
                )
            } else {
                (sfid::DATA_CACHE, GFX7_DC_UNTYPED_ATOMIC, atomic.op | simd8)
            }
        }
        Kind::UntypedFloat => {
            if gen < Gen::Gen9 || !matches!(exec, 8 | 16) {
                return None;
            }
            let simd8 = ((exec == 8) as u32) << 4;
            let control = (atomic.op & 3) | simd8;
            (sfid::DATA_CACHE_1, GFX9_DC1_UNTYPED_ATOMIC_FLOAT, control)
        }
        Kind::Typed => {
            // Typed messages are SIMD8; which half of a SIMD16 thread's sample mask they
            // take comes from the group.
            if exec != 8 || !group.is_multiple_of(8) {
                return None;
            }
            let high = ((group / 8) % 2) << 4;
            if hsw {
                (sfid::DATA_CACHE_1, HSW_DC1_TYPED_ATOMIC, atomic.op | high)
            } else {
                (sfid::RENDER_CACHE, GFX7_RC_TYPED_ATOMIC, atomic.op | high)
            }
        }
    };
    Some((sfid, super::surface::dp_desc(msg_type, control | resp)))
}

/// The atomic a raw send of shared function `sfid` and descriptor `desc` performs, with
/// its SIMD width and (typed) the half of the sample mask it reads (0 or 1).
pub fn decode(sfid: u8, desc: u32) -> Option<(Atomic, u32, u32)> {
    let msg_type = (desc >> 14) & 0x1f;
    let control = (desc >> 8) & 0x3f;
    let response = control & 0x20 != 0;
    let (kind, op) = match (sfid, msg_type) {
        (sfid::DATA_CACHE, GFX7_DC_UNTYPED_ATOMIC)
        | (sfid::DATA_CACHE_1, HSW_DC1_UNTYPED_ATOMIC) => (Kind::Untyped, control & 0xf),
        (sfid::DATA_CACHE_1, GFX9_DC1_UNTYPED_ATOMIC_FLOAT) => (Kind::UntypedFloat, control & 3),
        (sfid::RENDER_CACHE, GFX7_RC_TYPED_ATOMIC) | (sfid::DATA_CACHE_1, HSW_DC1_TYPED_ATOMIC) => {
            (Kind::Typed, control & 0xf)
        }
        _ => return None,
    };
    if !valid_op(kind, op) {
        return None;
    }
    let atomic = Atomic { kind, op, response };
    Some(match kind {
        Kind::Typed => (atomic, 8, (control >> 4) & 1),
        _ => (atomic, if control & 0x10 != 0 { 8 } else { 16 }, 0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptors_decode_to_their_atomics() {
        for gen in [Gen::Gen7, Gen::Gen75, Gen::Gen8, Gen::Gen9] {
            for (kind, ops) in [
                (Kind::Untyped, 1..=15),
                (Kind::UntypedFloat, 1..=3),
                (Kind::Typed, 1..=15),
            ] {
                for op in ops {
                    for response in [false, true] {
                        for (exec, group) in [(8, 0), (8, 8), (16, 0)] {
                            let a = Atomic { kind, op, response };
                            let Some((sfid, d)) = descriptor(gen, a, exec, group) else {
                                continue;
                            };
                            let half = if kind == Kind::Typed { group / 8 } else { 0 };
                            assert_eq!(decode(sfid, d), Some((a, exec, half)), "{gen:?} {a:?}");
                        }
                    }
                }
            }
        }
        // Mesa 22.3, Skylake: a SIMD8 atomic add with return on binding table entry 1
        // (brw_dp_untyped_atomic_desc: type 2, control 0x37).
        let a = Atomic {
            kind: Kind::Untyped,
            op: op::ADD,
            response: true,
        };
        assert_eq!(
            descriptor(Gen::Gen9, a, 8, 0),
            Some((sfid::DATA_CACHE_1, 0x0000_b700))
        );
        // No float atomics before gen9, and typed ones are SIMD8.
        let f = Atomic {
            kind: Kind::UntypedFloat,
            op: op::FMAX,
            response: true,
        };
        assert_eq!(descriptor(Gen::Gen8, f, 8, 0), None);
        let t = Atomic {
            kind: Kind::Typed,
            ..a
        };
        assert_eq!(descriptor(Gen::Gen9, t, 16, 0), None);
    }
}
