//! URB messages (SFID 6) of the scalar back end, gen8 on: SIMD8 reads and writes (PRM
//! Vol. 2d "URB SIMD8 Write", "URB SIMD8 Read"; Mesa brw_eu.h `brw_urb_desc`,
//! brw_lower_logical_sends.cpp `lower_urb_read_logical_send`,
//! `lower_urb_write_logical_send`).
//!
//! The payload: the URB handles (one dword per channel), the per-slot offsets when present,
//! the channel masks when present — together the message header — then, for a write, the
//! data, one register per dword of each channel's entry. A read returns `rlen` registers,
//! dword `r` of each channel's entry from the offset on. The global offset (128-bit units)
//! is in the descriptor; a per-slot offset is added to it per channel.

/// Message opcodes in descriptor bits 3:0 (`GFX8_URB_OPCODE_SIMD8_WRITE`, `_READ`).
pub const SIMD8_WRITE: u32 = 7;
pub const SIMD8_READ: u32 = 8;

/// Sources of `urb_read_logical` / `urb_write_logical` (Mesa `enum urb_logical_srcs`; Mesa
/// 25 adds the component count).
pub mod src {
    pub const HANDLE: usize = 0;
    pub const PER_SLOT_OFFSETS: usize = 1;
    pub const CHANNEL_MASK: usize = 2;
    pub const DATA: usize = 3;
    pub const COMPONENTS: usize = 4;
}

/// The descriptor without lengths (`brw_urb_desc`, gen8+): opcode, global offset in bits
/// 14:4, channel masks present (15), per-slot offsets present (17).
pub fn desc(opcode: u32, per_slot: bool, channel_mask: bool, offset: u32) -> u32 {
    (opcode & 0xf) | (offset & 0x7ff) << 4 | (channel_mask as u32) << 15 | (per_slot as u32) << 17
}

/// A descriptor's URB fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Desc {
    pub opcode: u32,
    pub offset: u32,
    pub channel_mask: bool,
    pub per_slot: bool,
}

pub fn decode(desc: u32) -> Desc {
    Desc {
        opcode: desc & 0xf,
        offset: (desc >> 4) & 0x7ff,
        channel_mask: desc & (1 << 15) != 0,
        per_slot: desc & (1 << 17) != 0,
    }
}

/// Header registers of a message with these optional sources present.
pub fn header_regs(per_slot: bool, channel_mask: bool) -> u32 {
    1 + per_slot as u32 + channel_mask as u32
}

/// Dwords per channel a logical write sends: Mesa 25's component count source, else what
/// its message length (printed by Mesa 22.3) leaves after the header, in SIMD8 registers.
pub fn write_components(srcs: &[crate::Operand], mlen: u32) -> u32 {
    let present = |k: usize| srcs.get(k).is_some_and(|s| !s.is_bad());
    match srcs.get(src::COMPONENTS) {
        Some(c) if c.file == crate::RegFile::Imm => c.imm_bits() as u32,
        _ => mlen.saturating_sub(header_regs(
            present(src::PER_SLOT_OFFSETS),
            present(src::CHANNEL_MASK),
        )),
    }
}

/// A gen7 URB descriptor's fields (Mesa brw_inst.h, gen7 column: `urb_opcode` bits 2:0,
/// `urb_global_offset` bits 13:3, `urb_swizzle_control` bit 14 (interleaved),
/// `urb_complete` bit 15, `urb_per_slot_offset` bit 16): what the vec4 back end's URB
/// writes use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gen7Desc {
    pub opcode: u32,
    /// Global offset, in 256-bit units when interleaved.
    pub offset: u32,
    pub interleave: bool,
    pub complete: bool,
    /// The header carries per-slot offsets (dwords 3 and 4).
    pub per_slot: bool,
}

/// `BRW_URB_OPCODE_WRITE_HWORD` (brw_eu_defines.h).
pub const GEN7_WRITE_HWORD: u32 = 0;

pub fn decode_gen7(desc: u32) -> Gen7Desc {
    Gen7Desc {
        opcode: desc & 0x7,
        offset: (desc >> 3) & 0x7ff,
        interleave: desc & (1 << 14) != 0,
        complete: desc & (1 << 15) != 0,
        per_slot: desc & (1 << 16) != 0,
    }
}

#[cfg(test)]
mod gen7_tests {
    /// `urb MsgDesc: offset 0 write HWord interleave complete mlen 5 rlen 0` (shaderdb-hsw,
    /// dolphin/efb2tex).
    #[test]
    fn decodes_a_vec4_vertex_write() {
        let d = super::decode_gen7(0x8a08c000);
        assert_eq!(d.opcode, super::GEN7_WRITE_HWORD);
        assert_eq!(d.offset, 0);
        assert!(d.interleave && d.complete && !d.per_slot);
        // `offset 0 write HWord per-slot interleave mlen 5` (a vec4 geometry shader).
        let d = super::decode_gen7(0x0a094000);
        assert!(d.per_slot && d.interleave && !d.complete);
    }
}
