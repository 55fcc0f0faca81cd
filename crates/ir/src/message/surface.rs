//! Untyped surface and byte-scattered messages to the data port (PRM Vol. 2d "Untyped
//! Surface Read/Write", "Byte Scattered Read/Write"; Mesa brw_eu.h
//! `brw_dp_untyped_surface_rw_desc`, `brw_dp_byte_scattered_rw_desc`,
//! brw_lower_logical_sends.cpp `lower_surface_logical_send`): a header-less payload of one
//! address per channel, then for writes the data, one register per 8 channels for each
//! component; reads answer one register per 8 channels for each component.

use crate::operand::{Operand, RegFile};
use crate::Opcode;

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

/// Data-cache-1 message types (descriptor bits 18:14, brw_eu_defines.h `HSW_DATAPORT_DC_PORT1_*`).
pub const UNTYPED_SURFACE_READ: u32 = 0x01;
pub const UNTYPED_SURFACE_WRITE: u32 = 0x09;
/// Data-cache-0 message types (`HSW_DATAPORT_DC_PORT0_BYTE_SCATTERED_*`).
pub const BYTE_SCATTERED_READ: u32 = 0x04;
pub const BYTE_SCATTERED_WRITE: u32 = 0x0c;

/// What a surface message moves per channel.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Shape {
    pub write: bool,
    /// Components per channel (dwords), and the bytes of each that memory holds (1, 2 or
    /// 4: byte-scattered accesses move the low bytes of one dword).
    pub comps: u32,
    pub bytes: u32,
}

/// The shape of a logical surface message, from its opcode and immediate argument
/// (components for untyped messages, bits for byte-scattered ones).
pub fn logical_shape(op: Opcode, srcs: &[Operand]) -> Option<Shape> {
    let arg = srcs
        .get(src::IMM_ARG)
        .filter(|s| s.file == RegFile::Imm)
        .map(|s| s.imm_bits() as u32)?;
    let (write, byte_scattered) = match op {
        Opcode::UntypedSurfaceReadLogical => (false, false),
        Opcode::UntypedSurfaceWriteLogical => (true, false),
        Opcode::ByteScatteredReadLogical => (false, true),
        Opcode::ByteScatteredWriteLogical => (true, true),
        _ => return None,
    };
    let shape = if byte_scattered {
        Shape {
            write,
            comps: 1,
            bytes: arg / 8,
        }
    } else {
        Shape {
            write,
            comps: arg,
            bytes: 4,
        }
    };
    (matches!(shape.bytes, 1 | 2 | 4) && (1..=4).contains(&shape.comps)).then_some(shape)
}

/// Shared function and descriptor (without lengths) of a SIMD8 or SIMD16 message of
/// `shape` on binding table entry `surface`. Message control is bits 13:8: for untyped
/// messages the SIMD mode (bits 13:12: 2 SIMD8, 1 SIMD16) and the mask of components not
/// moved (bits 11:8, `brw_mdc_cmask`); for byte-scattered ones SIMD16 in bit 8 and the data
/// size in bits 11:10 (0 byte, 1 word, 2 dword).
pub fn descriptor(shape: Shape, surface: u32, exec: u32) -> Option<(u8, u32)> {
    if !matches!(exec, 8 | 16) {
        return None;
    }
    let (sfid, msg_type, control) = if !is_byte(shape) {
        let simd = if exec == 16 { 1 } else { 2 };
        let cmask = 0xf & (0xf << shape.comps);
        let ty = if shape.write {
            UNTYPED_SURFACE_WRITE
        } else {
            UNTYPED_SURFACE_READ
        };
        (super::sfid::DATA_CACHE_1, ty, simd << 4 | cmask)
    } else {
        let ty = if shape.write {
            BYTE_SCATTERED_WRITE
        } else {
            BYTE_SCATTERED_READ
        };
        (
            super::sfid::DATA_CACHE,
            ty,
            (exec == 16) as u32 | (shape.bytes / 2) << 2,
        )
    };
    Some((sfid, (surface & 0xff) | control << 8 | msg_type << 14))
}

/// Byte-scattered shapes are told apart from untyped ones by [`Shape::bytes`] below a
/// dword; a dword byte-scattered access is read here as a one-component untyped one,
/// which moves the same data.
fn is_byte(shape: Shape) -> bool {
    shape.bytes < 4
}

/// The shape and SIMD width of a raw send to the data port, from its shared function and
/// descriptor; `None` for other messages.
pub fn decode(sfid: u8, desc: u32) -> Option<(Shape, u32)> {
    let msg_type = (desc >> 14) & 0x1f;
    let control = (desc >> 8) & 0x3f;
    match (sfid, msg_type) {
        (super::sfid::DATA_CACHE_1, UNTYPED_SURFACE_READ | UNTYPED_SURFACE_WRITE) => {
            let exec = match control >> 4 {
                1 => 16,
                2 => 8,
                _ => return None,
            };
            let comps = 4 - (control & 0xf).count_ones();
            let write = msg_type == UNTYPED_SURFACE_WRITE;
            Some((
                Shape {
                    write,
                    comps,
                    bytes: 4,
                },
                exec,
            ))
        }
        (super::sfid::DATA_CACHE, BYTE_SCATTERED_READ | BYTE_SCATTERED_WRITE) => {
            let exec = if control & 1 != 0 { 16 } else { 8 };
            let bytes = match (control >> 2) & 3 {
                0 => 1,
                1 => 2,
                2 => 4,
                _ => return None,
            };
            let write = msg_type == BYTE_SCATTERED_WRITE;
            Some((
                Shape {
                    write,
                    comps: 1,
                    bytes,
                },
                exec,
            ))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::sfid;

    #[test]
    fn descriptors_decode_to_their_shapes() {
        for write in [false, true] {
            for exec in [8, 16] {
                for comps in 1..=4 {
                    let s = Shape {
                        write,
                        comps,
                        bytes: 4,
                    };
                    let (sfid, d) = descriptor(s, 3, exec).unwrap();
                    assert_eq!(decode(sfid, d), Some((s, exec)));
                    assert_eq!(d & 0xff, 3);
                }
                for bytes in [1, 2] {
                    let s = Shape {
                        write,
                        comps: 1,
                        bytes,
                    };
                    let (sfid, d) = descriptor(s, 3, exec).unwrap();
                    assert_eq!(decode(sfid, d), Some((s, exec)));
                }
            }
        }
        // Mesa 22.3's SIMD16 untyped read of two components on surface 2 (vulkan-fp16-skl
        // absval, asm.txt: descriptor 0x04405c02 with mlen 2, rlen 4; "Mask = 0xc").
        let s = Shape {
            write: false,
            comps: 2,
            bytes: 4,
        };
        assert_eq!(
            descriptor(s, 2, 16),
            Some((sfid::DATA_CACHE_1, 0x04405c02 & 0x7ffff))
        );
    }
}
