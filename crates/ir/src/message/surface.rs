//! Untyped surface, byte-scattered and dword-scattered messages to the data port (PRM Vol.
//! 2d "Untyped Surface Read/Write", "Byte Scattered Read/Write", "DWord Scattered
//! Read/Write"; Mesa brw_eu.h `brw_dp_untyped_surface_rw_desc`,
//! `brw_dp_byte_scattered_rw_desc`, `brw_dp_dword_scattered_rw_desc`,
//! brw_lower_logical_sends.cpp `lower_surface_logical_send`): a header-less payload of one
//! address per channel, then for writes the data, one register per 8 channels for each
//! component; reads answer one register per 8 channels for each component.
//!
//! Which data port: untyped messages go to data cache 1 from Haswell on
//! (`HSW_DATAPORT_DC_PORT1_*`), to the data cache on Ivy Bridge (`GFX7_DATAPORT_DC_*`, the
//! same message control); byte-scattered messages exist from Haswell on
//! (`brw_dp_byte_scattered_rw_desc` asserts it); dword-scattered ones go to the data cache
//! on every generation here.

use crate::operand::{Operand, RegFile};
use crate::{Gen, Opcode};

/// Sources of the logical surface messages (Mesa 22.3 `enum surface_logical_srcs`).
pub mod src {
    pub const SURFACE: usize = 0;
    pub const SURFACE_HANDLE: usize = 1;
    pub const ADDRESS: usize = 2;
    pub const DATA: usize = 3;
    pub const IMM_DIMS: usize = 4;
    pub const IMM_ARG: usize = 5;
    pub const ALLOW_SAMPLE_MASK: usize = 6;
    pub const COUNT: usize = 7;
}

/// The bits of a descriptor that hold the binding table index (bits 7:0, for every data-port
/// and sampler message: PRM Vol. 2d "Message Descriptor", Binding Table Index). An index
/// computed at run time goes into them through a register: Mesa 22.3
/// `setup_surface_descriptors` (brw_lower_logical_sends.cpp) masks it with an `and(1)`
/// into a scalar that the generator ORs with the descriptor's immediate part into `a0.0`
/// (brw_eu_emit.c `brw_send_indirect_message`); the logical message's index means these
/// bits, in lowering and in the simulator alike.
pub const BINDING_TABLE_INDEX_MASK: u32 = 0xff;

/// Whether `index`, a binding table index that is not an immediate, is one value for all
/// channels, as a message's descriptor needs: a scalar region. Mesa makes a run-time index
/// uniform before the message (`emit_uniformize`, brw_fs_nir.cpp
/// `get_nir_ssbo_intrinsic_index` and friends), so its logical messages hold `<0>` reads.
pub fn is_scalar_index(index: &Operand) -> bool {
    use crate::RegFile;
    match index.file {
        RegFile::Imm | RegFile::Bad | RegFile::Arf => false,
        // Hardware regions: `<0,1,0>` (or any region with both strides 0).
        RegFile::FixedGrf => index.region.vstride == 0 && index.region.hstride == 0,
        _ => index.stride == 0,
    }
}

/// Data-cache-1 message types (descriptor bits 18:14, brw_eu_defines.h `HSW_DATAPORT_DC_PORT1_*`).
pub const UNTYPED_SURFACE_READ: u32 = 0x01;
pub const UNTYPED_SURFACE_WRITE: u32 = 0x09;
/// Data-cache-0 message types (`HSW_DATAPORT_DC_PORT0_BYTE_SCATTERED_*`).
pub const BYTE_SCATTERED_READ: u32 = 0x04;
pub const BYTE_SCATTERED_WRITE: u32 = 0x0c;
/// Ivy Bridge's untyped messages, data cache (`GFX7_DATAPORT_DC_UNTYPED_SURFACE_*`).
pub const GFX7_UNTYPED_SURFACE_READ: u32 = 5;
pub const GFX7_UNTYPED_SURFACE_WRITE: u32 = 13;
/// Dword-scattered messages, data cache (`GFX7_DATAPORT_DC_DWORD_SCATTERED_READ`,
/// `GFX6_DATAPORT_WRITE_MESSAGE_DWORD_SCATTERED_WRITE`).
pub const DWORD_SCATTERED_READ: u32 = 3;
pub const DWORD_SCATTERED_WRITE: u32 = 11;

/// The message a [`Shape`] is moved by.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    Untyped,
    ByteScattered,
    DwordScattered,
    /// Typed surface reads and writes ([`super::typed`]): the address is the image's
    /// coordinates.
    Typed,
}

/// What a surface message moves per channel.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Shape {
    pub kind: Kind,
    pub write: bool,
    /// Components per channel (dwords), and the bytes of each that memory holds (1, 2 or
    /// 4: byte-scattered accesses move the low bytes of one dword).
    pub comps: u32,
    pub bytes: u32,
}

/// What a data-port message does per channel, whichever opcode and dump syntax it came
/// from: move data ([`Shape`]) or an atomic operation.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Op {
    Access(Shape),
    Atomic(super::atomic::Atomic),
}

impl Op {
    /// Components of data per channel the payload carries after the address.
    pub fn data_components(self) -> u32 {
        match self {
            Op::Access(s) if s.write => s.comps,
            Op::Access(_) => 0,
            Op::Atomic(a) => a.data_components(),
        }
    }

    /// Whether it writes memory (Mesa's `has_side_effects` of its opcode): a write or an
    /// atomic.
    pub fn has_side_effects(self) -> bool {
        match self {
            Op::Access(s) => s.write,
            Op::Atomic(_) => true,
        }
    }

    /// Components per channel the response holds.
    pub fn response_components(self) -> u32 {
        match self {
            Op::Access(s) if !s.write => s.comps,
            Op::Access(_) => 0,
            Op::Atomic(a) => a.response as u32,
        }
    }
}

/// The shape of a logical surface message, from its opcode and immediate argument
/// (components for untyped and typed messages, bits for scattered ones: 32 for
/// dword-scattered ones, Mesa asserts it).
pub fn logical_shape(op: Opcode, srcs: &[Operand]) -> Option<Shape> {
    let arg = srcs
        .get(src::IMM_ARG)
        .filter(|s| s.file == RegFile::Imm)
        .map(|s| s.imm_bits() as u32)?;
    let (write, kind) = match op {
        Opcode::UntypedSurfaceReadLogical => (false, Kind::Untyped),
        Opcode::UntypedSurfaceWriteLogical => (true, Kind::Untyped),
        Opcode::ByteScatteredReadLogical => (false, Kind::ByteScattered),
        Opcode::ByteScatteredWriteLogical => (true, Kind::ByteScattered),
        Opcode::DwordScatteredReadLogical => (false, Kind::DwordScattered),
        Opcode::DwordScatteredWriteLogical => (true, Kind::DwordScattered),
        Opcode::TypedSurfaceReadLogical => (false, Kind::Typed),
        Opcode::TypedSurfaceWriteLogical => (true, Kind::Typed),
        _ => return None,
    };
    let shape = match kind {
        Kind::ByteScattered => Shape {
            kind,
            write,
            comps: 1,
            bytes: arg / 8,
        },
        Kind::DwordScattered if arg != 32 => return None,
        Kind::DwordScattered => Shape {
            kind,
            write,
            comps: 1,
            bytes: 4,
        },
        Kind::Untyped | Kind::Typed => Shape {
            kind,
            write,
            comps: arg,
            bytes: 4,
        },
    };
    (matches!(shape.bytes, 1 | 2 | 4) && (1..=4).contains(&shape.comps)).then_some(shape)
}

/// A data-port descriptor without surface and lengths: message type in bits 18:14 (17:14
/// on gen7, where no type here reaches bit 18), message control in bits 13:8 (brw_eu.h
/// `brw_dp_desc`).
pub fn dp_desc(msg_type: u32, control: u32) -> u32 {
    (control & 0x3f) << 8 | (msg_type & 0x1f) << 14
}

/// The mask of components not moved of an untyped or typed message of `comps` components
/// (descriptor bits 11:8, `brw_mdc_cmask`, PRM `MDC_CMASK`).
pub fn cmask(comps: u32) -> u32 {
    0xf & (0xf << comps)
}

/// Shared function and descriptor (without lengths) of a SIMD8 or SIMD16 message of
/// `shape` on `gen`, on binding table entry `surface`; `None` where the generation has no
/// such message. Message control is bits 13:8: for untyped messages the SIMD mode and
/// component mask ([`cmask`]); for byte-scattered ones SIMD16 in bit 8 and the data size
/// in bits 11:10 (0 byte, 1 word, 2 dword, `brw_mdc_ds`); for dword-scattered ones SIMD16
/// in bit 8 and the legacy SIMD mode bit 9, always set. Typed messages are
/// [`super::typed::descriptor`]'s.
pub fn descriptor(gen: Gen, shape: Shape, surface: u32, exec: u32) -> Option<(u8, u32)> {
    use super::sfid::{DATA_CACHE, DATA_CACHE_1};
    if !matches!(exec, 8 | 16) {
        return None;
    }
    let hsw = gen >= Gen::Gen75;
    let w = shape.write;
    let simd16 = (exec == 16) as u32;
    let (sfid, msg_type, control) = match shape.kind {
        Kind::Untyped => {
            let simd = if exec == 16 { 1 } else { 2 };
            let control = simd << 4 | cmask(shape.comps);
            match (hsw, w) {
                (true, false) => (DATA_CACHE_1, UNTYPED_SURFACE_READ, control),
                (true, true) => (DATA_CACHE_1, UNTYPED_SURFACE_WRITE, control),
                (false, false) => (DATA_CACHE, GFX7_UNTYPED_SURFACE_READ, control),
                (false, true) => (DATA_CACHE, GFX7_UNTYPED_SURFACE_WRITE, control),
            }
        }
        Kind::ByteScattered if !hsw => return None,
        Kind::ByteScattered => {
            let ty = if w {
                BYTE_SCATTERED_WRITE
            } else {
                BYTE_SCATTERED_READ
            };
            (DATA_CACHE, ty, simd16 | (shape.bytes / 2) << 2)
        }
        Kind::DwordScattered => {
            let ty = if w {
                DWORD_SCATTERED_WRITE
            } else {
                DWORD_SCATTERED_READ
            };
            (DATA_CACHE, ty, simd16 | 1 << 1)
        }
        Kind::Typed => return None,
    };
    Some((sfid, (surface & 0xff) | dp_desc(msg_type, control)))
}

/// The SIMD4x2 message of a raw send to Haswell's data cache 1, as the vec4 back end
/// sends it (Align16: brw_eu_emit.c `brw_untyped_atomic`, `brw_untyped_surface_read`,
/// `brw_untyped_surface_write` with an execution size of 0; PRM Vol. 2d "SIMD4x2"
/// untyped messages); `None` for any other message. The payload has no header: its first
/// register holds each vertex's (half's) address in dword 0 of that half (dwords 0 and
/// 4), the second the operands (atomics: `src0` in dword 0 and `src1` in dword 1 of each
/// half; writes: the components, one dword each). A response is one register: the old
/// value in dword 0 of each half (atomics), the components read in dwords 0.. (reads).
/// - untyped atomic: message type `HSW_DATAPORT_DC_PORT1_UNTYPED_ATOMIC_OP_SIMD4X2` (3);
///   message control as the SIMD8/16 atomic's (`brw_dp_untyped_atomic_desc`: operation in
///   bits 11:8, bit 12 (SIMD8) clear, bit 13 "return data");
/// - untyped surface read and write: the SIMD8/16 message types (1, 9) with SIMD mode 0
///   (message control bits 13:12, `MDC_SM3` SIMD4x2) and the component mask of the other
///   widths ([`cmask`], `brw_dp_untyped_surface_rw_desc`).
pub fn decode_simd4x2(sfid: u8, desc: u32) -> Option<Op> {
    use super::atomic::{valid_op, Atomic, Kind as AtomicKind, HSW_DC1_UNTYPED_ATOMIC_SIMD4X2};
    if sfid != super::sfid::DATA_CACHE_1 {
        return None;
    }
    let msg_type = (desc >> 14) & 0x1f;
    let control = (desc >> 8) & 0x3f;
    match msg_type {
        HSW_DC1_UNTYPED_ATOMIC_SIMD4X2 => {
            let op = control & 0xf;
            (control & 0x10 == 0 && valid_op(AtomicKind::Untyped, op)).then_some(Op::Atomic(
                Atomic {
                    kind: AtomicKind::Untyped,
                    op,
                    response: control & 0x20 != 0,
                },
            ))
        }
        UNTYPED_SURFACE_READ | UNTYPED_SURFACE_WRITE if control >> 4 == 0 => {
            let comps = 4 - (control & 0xf).count_ones();
            (comps > 0).then_some(Op::Access(Shape {
                kind: Kind::Untyped,
                write: msg_type == UNTYPED_SURFACE_WRITE,
                comps,
                bytes: 4,
            }))
        }
        _ => None,
    }
}

/// The shape and SIMD width of a raw send to the data port, from its shared function and
/// descriptor; `None` for other messages (typed ones are [`super::typed::decode`]'s).
pub fn decode(sfid: u8, desc: u32) -> Option<(Shape, u32)> {
    use super::sfid::{DATA_CACHE, DATA_CACHE_1};
    let msg_type = (desc >> 14) & 0x1f;
    let control = (desc >> 8) & 0x3f;
    let shape = |kind, write, comps, bytes| Shape {
        kind,
        write,
        comps,
        bytes,
    };
    let simd16 = if control & 1 != 0 { 16 } else { 8 };
    match (sfid, msg_type) {
        (DATA_CACHE_1, UNTYPED_SURFACE_READ | UNTYPED_SURFACE_WRITE)
        | (DATA_CACHE, GFX7_UNTYPED_SURFACE_READ | GFX7_UNTYPED_SURFACE_WRITE) => {
            let exec = match control >> 4 {
                1 => 16,
                2 => 8,
                _ => return None,
            };
            let comps = 4 - (control & 0xf).count_ones();
            let write = matches!(msg_type, UNTYPED_SURFACE_WRITE | GFX7_UNTYPED_SURFACE_WRITE);
            Some((shape(Kind::Untyped, write, comps, 4), exec))
        }
        (DATA_CACHE, BYTE_SCATTERED_READ | BYTE_SCATTERED_WRITE) => {
            let bytes = match (control >> 2) & 3 {
                0 => 1,
                1 => 2,
                2 => 4,
                _ => return None,
            };
            let write = msg_type == BYTE_SCATTERED_WRITE;
            Some((shape(Kind::ByteScattered, write, 1, bytes), simd16))
        }
        (DATA_CACHE, DWORD_SCATTERED_READ | DWORD_SCATTERED_WRITE) if control & 2 != 0 => {
            let write = msg_type == DWORD_SCATTERED_WRITE;
            Some((shape(Kind::DwordScattered, write, 1, 4), simd16))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn simd4x2_descriptors_of_mesa_decode() {
        use crate::message::atomic::{op, Atomic, Kind as A};
        use crate::message::sfid::{DATA_CACHE, DATA_CACHE_1};
        // Mesa 22.3, Haswell VS (piglit vs-simple-inc-dec-read): an atomic counter's
        // increment with return, and its read of one vec4 (descriptor in a0 from an OR).
        assert_eq!(
            decode_simd4x2(DATA_CACHE_1, 0x0210_e500),
            Some(Op::Atomic(Atomic {
                kind: A::Untyped,
                op: op::INC,
                response: true
            }))
        );
        assert_eq!(
            decode_simd4x2(DATA_CACHE_1, 0x0210_4000),
            Some(Op::Access(Shape {
                kind: Kind::Untyped,
                write: false,
                comps: 4,
                bytes: 4
            }))
        );
        // SIMD8 forms and other data ports are not SIMD4x2 messages.
        assert_eq!(decode_simd4x2(DATA_CACHE_1, 0x0210_f500), None);
        assert_eq!(decode_simd4x2(DATA_CACHE_1, 0x0210_6000), None);
        assert_eq!(decode_simd4x2(DATA_CACHE, 0x0210_e500), None);
    }
    use super::*;
    use crate::message::sfid;

    #[test]
    fn descriptors_decode_to_their_shapes() {
        for gen in [Gen::Gen7, Gen::Gen75, Gen::Gen8, Gen::Gen9] {
            for write in [false, true] {
                for exec in [8, 16] {
                    let mut shapes: Vec<Shape> = (1..=4)
                        .map(|comps| Shape {
                            kind: Kind::Untyped,
                            write,
                            comps,
                            bytes: 4,
                        })
                        .collect();
                    shapes.extend([1, 2, 4].map(|bytes| Shape {
                        kind: Kind::ByteScattered,
                        write,
                        comps: 1,
                        bytes,
                    }));
                    shapes.push(Shape {
                        kind: Kind::DwordScattered,
                        write,
                        comps: 1,
                        bytes: 4,
                    });
                    for s in shapes {
                        let Some((sfid, d)) = descriptor(gen, s, 3, exec) else {
                            // Only byte-scattered messages are missing, and only on IVB.
                            assert!(gen == Gen::Gen7 && s.kind == Kind::ByteScattered);
                            continue;
                        };
                        assert_eq!(decode(sfid, d), Some((s, exec)), "{gen:?} {s:?}");
                        assert_eq!(d & 0xff, 3);
                    }
                }
            }
        }
        // Mesa 22.3's SIMD16 untyped read of two components on surface 2 (vulkan-fp16-skl
        // absval, asm.txt: descriptor 0x04405c02 with mlen 2, rlen 4; "Mask = 0xc").
        let s = Shape {
            kind: Kind::Untyped,
            write: false,
            comps: 2,
            bytes: 4,
        };
        assert_eq!(
            descriptor(Gen::Gen9, s, 2, 16),
            Some((sfid::DATA_CACHE_1, 0x04405c02 & 0x7ffff))
        );
    }
}
