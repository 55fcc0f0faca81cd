//! OWord block reads and writes of a buffer, by binding table entry or by 64-bit address
//! (PRM Vol. 2d "OWord Block Read/Write", "A64 OWord Block Read/Write"; Mesa brw_eu.h
//! `brw_dp_oword_block_rw_desc`, `brw_dp_a64_oword_block_rw_desc`;
//! brw_lower_logical_sends.cpp `lower_surface_block_logical_send`, `lower_a64_logical_send`
//! with `emit_a64_oword_block_header`). Gen9 on: Mesa asserts it for both.
//!
//! One block of consecutive dwords for the whole message, whatever its channels: the
//! header (one register) holds the address — dword 2 in OWords (16 bytes) for the aligned
//! binding-table forms, in bytes for the unaligned read; dwords 0-1 the 64-bit byte address
//! for A64 — and a write's data follows as the second payload of a split send. The block
//! size is message control bits 2:0 (`BRW_DATAPORT_OWORD_BLOCK_DWORDS`); A64 messages flag
//! an unaligned read in bits 4:3.

use super::memory::oword_block_size;
use super::surface::dp_desc;
use super::{a64, sfid};
use crate::operand::{Operand, RegFile};
use crate::{Gen, Opcode};

/// Data-cache message types (`GFX7_DATAPORT_DC_OWORD_BLOCK_READ`,
/// `GFX7_DATAPORT_DC_UNALIGNED_OWORD_BLOCK_READ`, `GFX7_DATAPORT_DC_OWORD_BLOCK_WRITE`).
pub const OWORD_BLOCK_READ: u32 = 0;
pub const UNALIGNED_OWORD_BLOCK_READ: u32 = 1;
pub const OWORD_BLOCK_WRITE: u32 = 8;
/// Data-cache-1 message types (`GFX9_DATAPORT_DC_PORT1_A64_OWORD_BLOCK_READ` / `_WRITE`).
pub const A64_OWORD_BLOCK_READ: u32 = 0x14;
pub const A64_OWORD_BLOCK_WRITE: u32 = 0x15;

/// The header dword holding a binding-table block's address.
pub const HEADER_ADDRESS_DWORD: u32 = 2;

/// One block message.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Block {
    /// By 64-bit address (A64) rather than binding table entry.
    pub a64: bool,
    pub write: bool,
    /// The address is a multiple of 16 bytes (the low four bits are dropped).
    pub aligned: bool,
    pub dwords: u32,
}

/// Whether `op` is a logical OWord block message.
pub fn is_block_message(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::UnalignedOwordBlockReadLogical
            | Opcode::OwordBlockWriteLogical
            | Opcode::A64OwordBlockReadLogical
            | Opcode::A64UnalignedOwordBlockReadLogical
            | Opcode::A64OwordBlockWriteLogical
    )
}

/// The block a logical message moves: the size (dwords) is the immediate argument,
/// `SURFACE_LOGICAL_SRC_IMM_ARG` for the binding-table forms, `A64_LOGICAL_ARG` for A64.
pub fn logical(op: Opcode, srcs: &[Operand]) -> Option<Block> {
    let (a64, write, aligned) = match op {
        Opcode::UnalignedOwordBlockReadLogical => (false, false, false),
        Opcode::OwordBlockWriteLogical => (false, true, true),
        Opcode::A64OwordBlockReadLogical => (true, false, true),
        Opcode::A64UnalignedOwordBlockReadLogical => (true, false, false),
        Opcode::A64OwordBlockWriteLogical => (true, true, true),
        _ => return None,
    };
    let arg = srcs.get(if a64 {
        a64::src::ARG
    } else {
        super::surface::src::IMM_ARG
    })?;
    let dwords = (arg.file == RegFile::Imm).then(|| arg.imm_bits() as u32)?;
    oword_block_size(dwords)?;
    Some(Block {
        a64,
        write,
        aligned,
        dwords,
    })
}

/// The shared function and descriptor (without lengths; A64's binding table index
/// included, a binding-table block's surface to be ORed in) of `block` on `gen`.
pub fn descriptor(gen: Gen, block: Block) -> Option<(u8, u32)> {
    if gen < Gen::Gen9 || (block.write && !block.aligned) {
        return None;
    }
    let size = oword_block_size(block.dwords)?;
    Some(if block.a64 {
        let ty = if block.write {
            A64_OWORD_BLOCK_WRITE
        } else {
            A64_OWORD_BLOCK_READ
        };
        let control = (!block.aligned as u32) << 3 | size;
        (sfid::DATA_CACHE_1, a64::BTI | dp_desc(ty, control))
    } else {
        let ty = match (block.write, block.aligned) {
            (true, _) => OWORD_BLOCK_WRITE,
            (false, true) => OWORD_BLOCK_READ,
            (false, false) => UNALIGNED_OWORD_BLOCK_READ,
        };
        (sfid::DATA_CACHE, dp_desc(ty, size))
    })
}

/// The block a raw send of shared function `sfid` and descriptor `desc` moves. The data
/// cache's stateless binding table indices (253, 255) are scratch's
/// ([`super::scratch::is_scratch_block`]), not a buffer's.
pub fn decode(sfid: u8, desc: u32) -> Option<Block> {
    let ty = (desc >> 14) & 0x1f;
    let control = (desc >> 8) & 0x3f;
    let dwords = match control & 7 {
        0 => 4,
        2 => 8,
        3 => 16,
        4 => 32,
        _ => return None,
    };
    let (a64, write, aligned) = match (sfid, ty) {
        (sfid::DATA_CACHE, _) if super::scratch::is_scratch_block(desc) => return None,
        (sfid::DATA_CACHE, OWORD_BLOCK_READ) => (false, false, true),
        (sfid::DATA_CACHE, UNALIGNED_OWORD_BLOCK_READ) => (false, false, false),
        (sfid::DATA_CACHE, OWORD_BLOCK_WRITE) => (false, true, true),
        (sfid::DATA_CACHE_1, A64_OWORD_BLOCK_READ) => (true, false, control & 0x18 == 0),
        (sfid::DATA_CACHE_1, A64_OWORD_BLOCK_WRITE) => (true, true, true),
        _ => return None,
    };
    Some(Block {
        a64,
        write,
        aligned,
        dwords,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptors_decode_to_their_blocks() {
        for a64 in [false, true] {
            for (write, aligned) in [(false, true), (false, false), (true, true)] {
                for dwords in [4, 8, 16, 32] {
                    let b = Block {
                        a64,
                        write,
                        aligned,
                        dwords,
                    };
                    let (sfid, d) = descriptor(Gen::Gen9, b).unwrap();
                    assert_eq!(decode(sfid, d | 3), Some(b));
                    assert_eq!(descriptor(Gen::Gen8, b), None);
                }
            }
        }
        // Mesa 22.3 on Skylake: an unaligned A64 read of 8 dwords, type 0x14 with control
        // 0x1a (brw_dp_a64_oword_block_rw_desc: unaligned bits 4:3 = 1, size 2).
        let b = Block {
            a64: true,
            write: false,
            aligned: false,
            dwords: 8,
        };
        assert_eq!(
            descriptor(Gen::Gen9, b),
            Some((sfid::DATA_CACHE_1, 0x14 << 14 | 0x0a << 8 | 253))
        );
    }
}
