//! Mesa 25's unified memory messages (`memory_load`, `memory_store`, `memory_atomic`:
//! brw_eu_defines.h `enum memory_logical_srcs`, `enum memory_logical_mode`,
//! `enum memory_flags`; LSC enums from brw_eu_defines.h / lsc). Before LSC hardware,
//! brw_lower_logical_sends.cpp `lower_hdc_memory_logical_send` turns them into data-port
//! messages; the block loads of constant buffers (`load const ... transpose`) become
//! constant-cache unaligned OWord block reads with a header holding the byte address.

use crate::operand::{Operand, RegFile};

/// Sources of the memory messages (`enum memory_logical_srcs`).
pub mod src {
    pub const OPCODE: usize = 0;
    pub const MODE: usize = 1;
    pub const BINDING_TYPE: usize = 2;
    pub const BINDING: usize = 3;
    pub const ADDRESS: usize = 4;
    pub const COORD_COMPONENTS: usize = 5;
    pub const ALIGNMENT: usize = 6;
    pub const DATA_SIZE: usize = 7;
    pub const COMPONENTS: usize = 8;
    pub const FLAGS: usize = 9;
    pub const DATA0: usize = 10;
    pub const DATA1: usize = 11;
    pub const COUNT: usize = 12;
}

/// `LSC_OP_LOAD`.
pub const OP_LOAD: u32 = 0;
/// `MEMORY_MODE_CONSTANT`.
pub const MODE_CONSTANT: u32 = 4;
/// `LSC_ADDR_SURFTYPE_BTI`.
pub const SURFTYPE_BTI: u32 = 3;
/// `LSC_DATA_SIZE_D32`.
pub const DATA_SIZE_D32: u32 = 2;
/// `MEMORY_FLAG_TRANSPOSE`: one block for the whole message, not one value per channel.
pub const FLAG_TRANSPOSE: u32 = 1;

/// A block load of a constant buffer: `dwords` consecutive dwords at the byte address
/// `address` (a scalar or an immediate) of binding table entry `surface`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ConstantBlock {
    pub surface: u32,
    pub address: Operand,
    pub dwords: u32,
}

/// The constant block load `srcs` describe, if they describe one.
pub fn constant_block(srcs: &[Operand]) -> Option<ConstantBlock> {
    if srcs.len() != src::COUNT {
        return None;
    }
    let imm = |k: usize| (srcs[k].file == RegFile::Imm).then(|| srcs[k].imm_bits() as u32);
    let ok = imm(src::OPCODE)? == OP_LOAD
        && imm(src::MODE)? == MODE_CONSTANT
        && imm(src::BINDING_TYPE)? == SURFTYPE_BTI
        && imm(src::COORD_COMPONENTS)? == 1
        && imm(src::DATA_SIZE)? == DATA_SIZE_D32
        && imm(src::FLAGS)? & FLAG_TRANSPOSE != 0
        && srcs[src::DATA0].is_bad();
    let dwords = imm(src::COMPONENTS)?;
    let surface = imm(src::BINDING)?;
    (ok && oword_block_size(dwords).is_some()).then_some(ConstantBlock {
        surface,
        address: srcs[src::ADDRESS],
        dwords,
    })
}

/// Data-port message type of an unaligned OWord block read (bits 18:14,
/// `GFX7_DATAPORT_DC_UNALIGNED_OWORD_BLOCK_READ`): the header's dword 2 is a byte address.
pub const UNALIGNED_OWORD_BLOCK_READ: u32 = 1;

/// The OWord block size field (bits 10:8, `BRW_DATAPORT_OWORD_BLOCK_DWORDS`) for a block of
/// `dwords`.
pub fn oword_block_size(dwords: u32) -> Option<u32> {
    match dwords {
        4 => Some(0),
        8 => Some(2),
        16 => Some(3),
        32 => Some(4),
        _ => None,
    }
}

/// The descriptor (without lengths) of the constant-cache read of `block`
/// (`brw_dp_oword_block_rw_desc(devinfo, false, dwords, false)` and the binding table
/// entry).
pub fn constant_block_desc(block: &ConstantBlock) -> Option<u32> {
    Some(
        (block.surface & 0xff)
            | oword_block_size(block.dwords)? << 8
            | UNALIGNED_OWORD_BLOCK_READ << 14,
    )
}
