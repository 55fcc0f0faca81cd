//! The pixel interpolator (gen7+, SFID 11): barycentric coordinates of a fragment's
//! pixels at another position than the pixel centre, for GLSL's `interpolateAt*`.
//!
//! Mesa 22.3 keeps the query a virtual opcode to the end: `FS_OPCODE_INTERPOLATE_AT_
//! SAMPLE`, `_SHARED_OFFSET` and `_PER_SLOT_OFFSET` (printed `interp_sample`,
//! `interp_shared_offset`, `interp_per_slot_offset`), which the generator expands to one
//! `send` (brw_fs_generator.cpp `generate_pixel_interpolator_query`, brw_eu_emit.c
//! `brw_pixel_interpolator_query`). Sources: the payload (src0: for the per-slot offset
//! the X offsets then the Y offsets, a D per channel, signed sixteenths of a pixel; none
//! for the others, when the generator sends g0) and the message data (src1: an immediate
//! or a scalar register the generator ORs into the descriptor's low byte: the sample
//! number times 16, or the shared X offset in bits 3:0 and Y in 7:4). The answer is two
//! floats per channel (brw_fs_nir.cpp `emit_pixel_interpolater_send`: `size_written = 2 *
//! component_size`). The hardware interleaves them as the payload's barycentrics are, per
//! 8 channels a register of the first coordinate then one of the second
//! ([`response_place`]), the layout `pln` reads; Mesa's IR holds them planar, the first
//! coordinate of every channel then the second, and at SIMD16 its `lower_barycentrics`
//! (brw_fs.cpp) has the query write an interleaved temporary and copies it apart.
//!
//! The descriptor (brw_eu.h `brw_pixel_interp_desc`): the message data in bits 7:0, the
//! slot group (channels 16-31) in bit 11, the location type in bits 13:12, no perspective
//! correction in bit 14, coarse pixel rate in bit 15 (gen10+), SIMD16 in bit 16. Mesa's
//! IR carries the perspective bit as `pi_noperspective`, which its printer does not show.

use crate::opcode::Opcode;

/// Location types (brw_eu_defines.h `GFX7_PIXEL_INTERPOLATOR_LOC_*`).
pub const LOC_SHARED_OFFSET: u32 = 0;
pub const LOC_SAMPLE: u32 = 1;
pub const LOC_CENTROID: u32 = 2;
pub const LOC_PER_SLOT_OFFSET: u32 = 3;

/// The location type a logical interpolation opcode asks for.
pub fn location(op: Opcode) -> Option<u32> {
    Some(match op {
        Opcode::InterpSharedOffset => LOC_SHARED_OFFSET,
        Opcode::InterpSample => LOC_SAMPLE,
        Opcode::InterpPerSlotOffset => LOC_PER_SLOT_OFFSET,
        _ => return None,
    })
}

/// A pixel-interpolator descriptor taken apart.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Desc {
    pub data: u32,
    pub slot_group: u32,
    pub location: u32,
    pub noperspective: bool,
    pub simd16: bool,
}

impl Desc {
    pub fn decode(desc: u32) -> Desc {
        Desc {
            data: desc & 0xff,
            slot_group: (desc >> 11) & 1,
            location: (desc >> 12) & 3,
            noperspective: desc >> 14 & 1 != 0,
            simd16: desc >> 16 & 1 != 0,
        }
    }
}

/// Coordinates of the answer per channel: a register of each per 8 channels.
pub const COORDINATES: u32 = 2;

/// Where channel `i` (of the message's channels) finds coordinate `comp` (0 or 1) in the
/// response: register and byte in it.
pub fn response_place(i: u32, comp: u32) -> (u32, u32) {
    ((i / 8) * COORDINATES + comp, (i % 8) * 4)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Mesa's `brw_pixel_interp_desc` for a SIMD16 per-slot-offset query of the second
    /// slot group, with perspective, data 0x12.
    #[test]
    fn descriptor_fields() {
        let desc = 0x12 | 1 << 11 | LOC_PER_SLOT_OFFSET << 12 | 1 << 16;
        let d = Desc::decode(desc);
        assert_eq!(
            d,
            Desc {
                data: 0x12,
                slot_group: 1,
                location: LOC_PER_SLOT_OFFSET,
                noperspective: false,
                simd16: true
            }
        );
        assert_eq!(response_place(9, 1), (3, 4));
    }
}
