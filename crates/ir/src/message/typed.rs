//! Typed surface reads and writes: an image's texels at integer coordinates (PRM Vol. 2d
//! "Typed Surface Read/Write"; Mesa brw_eu.h `brw_dp_typed_surface_rw_desc`,
//! brw_lower_logical_sends.cpp `lower_surface_logical_send`). Typed atomics share the
//! payload and header rules and are [`super::atomic`]'s.
//!
//! Payload: before gen9 a header (required for typed messages: "For the Data Cache Data
//! Port, the header must be present for ... Typed read/write/atomics", BDW PRM Vol. 7 p.
//! 147, quoted in `lower_surface_logical_send`): zeros but dword 7, the sample mask; then
//! the coordinates (U, V, R, LOD as the image has them, one register per component for
//! the 8 channels), then for writes the data (a register per component). A read answers
//! a register per component. Gen9 has no header: the coordinates, then the data, split
//! after the coordinates (split sends).
//!
//! Typed messages are SIMD8 on gen7-gen9 (`get_lowered_simd_width`). Which 8 channels of a
//! SIMD16 thread's sample mask the message takes is the slot group: on Haswell and later
//! message control bits 13:12 (`MDC_SG3`: 1 low, 2 high), on Ivy Bridge bit 13 (set: high).
//! Ivy Bridge sends them to the render cache (`GFX7_DATAPORT_RC_TYPED_SURFACE_*`),
//! Haswell and later to data cache 1 (`HSW_DATAPORT_DC_PORT1_TYPED_SURFACE_*`).

use super::sfid;
use super::surface::{cmask, dp_desc, Kind, Shape};
use crate::Gen;

/// `GFX7_DATAPORT_RC_TYPED_SURFACE_READ` and `HSW_DATAPORT_DC_PORT1_TYPED_SURFACE_READ`.
pub const TYPED_SURFACE_READ: u32 = 5;
/// `GFX7_DATAPORT_RC_TYPED_SURFACE_WRITE` and `HSW_DATAPORT_DC_PORT1_TYPED_SURFACE_WRITE`.
pub const TYPED_SURFACE_WRITE: u32 = 13;

/// The header dword holding the sample mask (`component(header, 7)`).
pub const HEADER_SAMPLE_MASK_DWORD: u32 = 7;

/// Whether typed messages (reads, writes, atomics) on `gen` carry a header: before gen9
/// (`devinfo->ver < 9 && is_typed_access`).
pub fn has_header(gen: Gen) -> bool {
    gen < Gen::Gen9
}

/// The sample mask the header holds outside fragment shaders (Mesa 22.3
/// `lower_surface_logical_send`: `brw_sample_mask_reg` is `0xffffffff` there when the
/// message allows the sample mask, else `brw_imm_d(0xffff)`): every channel.
pub fn header_sample_mask(allow_sample_mask: bool) -> u32 {
    if allow_sample_mask {
        0xffff_ffff
    } else {
        0xffff
    }
}

/// Shared function and descriptor (without surface and lengths) of a typed read or write
/// of `shape` on `gen`, of the 8 channels from `group`; `None` at another width.
pub fn descriptor(gen: Gen, shape: Shape, exec: u32, group: u32) -> Option<(u8, u32)> {
    if shape.kind != Kind::Typed || exec != 8 || !group.is_multiple_of(8) {
        return None;
    }
    let half = (group / 8) % 2;
    let ty = if shape.write {
        TYPED_SURFACE_WRITE
    } else {
        TYPED_SURFACE_READ
    };
    Some(if gen >= Gen::Gen75 {
        let control = cmask(shape.comps) | (1 + half) << 4;
        (sfid::DATA_CACHE_1, dp_desc(ty, control))
    } else {
        let control = cmask(shape.comps) | half << 5;
        (sfid::RENDER_CACHE, dp_desc(ty, control))
    })
}

/// The shape of a raw typed read or write and the half of the sample mask it takes (0
/// low, 1 high); it is SIMD8.
pub fn decode(sfid: u8, desc: u32) -> Option<(Shape, u32)> {
    let msg_type = (desc >> 14) & 0x1f;
    let control = (desc >> 8) & 0x3f;
    if !matches!(msg_type, TYPED_SURFACE_READ | TYPED_SURFACE_WRITE) {
        return None;
    }
    let half = match sfid {
        sfid::DATA_CACHE_1 => match control >> 4 {
            1 => 0,
            2 => 1,
            _ => return None,
        },
        sfid::RENDER_CACHE if control & 0x10 == 0 => control >> 5,
        _ => return None,
    };
    let shape = Shape {
        kind: Kind::Typed,
        write: msg_type == TYPED_SURFACE_WRITE,
        comps: 4 - (control & 0xf).count_ones(),
        bytes: 4,
    };
    Some((shape, half))
}

/// Whether a raw send with `info` runs only the channels its header's sample mask enables,
/// besides the execution mask: a typed read, write or atomic with a header (before gen9).
/// Its response is then written in those channels only, and the others keep what the
/// destination held (PRM Vol. 2d "Typed Surface Read/Write", message header dword 7: "Slot
/// Mask"/"Sample Mask", one bit per slot of the slot group; the data port answers no
/// disabled slot). Passes, the register allocator's spiller and the simulator take such a
/// send as a write of some channels ([`crate::message::sample_mask`] is the same idea for
/// the logical messages lowering predicates).
pub fn masked_by_header(info: &crate::shader::SendInfo) -> bool {
    let header = info.header_size > 0 || super::header_present(info.desc);
    header
        && (decode(info.sfid, info.desc).is_some()
            || super::atomic::decode(info.sfid, info.desc)
                .is_some_and(|(a, ..)| a.kind == super::atomic::Kind::Typed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptors_decode_to_their_shapes() {
        for gen in [Gen::Gen7, Gen::Gen75, Gen::Gen8, Gen::Gen9] {
            for write in [false, true] {
                for comps in 1..=4 {
                    for group in [0, 8, 16, 24] {
                        let s = Shape {
                            kind: Kind::Typed,
                            write,
                            comps,
                            bytes: 4,
                        };
                        let (sfid, d) = descriptor(gen, s, 8, group).unwrap();
                        assert_eq!(decode(sfid, d), Some((s, group / 8 % 2)));
                    }
                }
            }
        }
        // Haswell, a 4-component read of the low half: type 5, control 0x10
        // (brw_dp_typed_surface_rw_desc: cmask 0, slot group 1).
        let s = Shape {
            kind: Kind::Typed,
            write: false,
            comps: 4,
            bytes: 4,
        };
        assert_eq!(
            descriptor(Gen::Gen75, s, 8, 0),
            Some((sfid::DATA_CACHE_1, 5 << 14 | 0x10 << 8))
        );
        assert_eq!(descriptor(Gen::Gen9, s, 16, 0), None);
    }
}
