//! Scratch messages: the thread-private memory register spills and fills go to (SFID 10,
//! the data cache, at a stateless binding table index; PRM Vol. 2d "OWord Block Read/Write";
//! Mesa 22.3 brw_fs_reg_allocate.cpp `emit_spill` / `emit_unspill` on gen9, brw_eu_emit.c
//! `brw_oword_block_write_scratch` / `brw_oword_block_read_scratch` /
//! `gfx7_block_read_scratch` for the gen7/8 virtual opcodes' code).
//!
//! The register allocator's spilling builds these and the simulator runs them, so both
//! read the same fields here. Every form carries its offset in the header's dword 2, in
//! OWords (16 bytes); the gen7/8 virtual opcodes (`gfx4_scratch_write`,
//! `gfx4_scratch_read`, `gfx7_scratch_read`) carry it, in bytes, as their last source, an
//! immediate (Mesa keeps it in `fs_inst::offset`, which neither dump prints).

/// Data-cache message types (descriptor bits 18:14; brw_eu_defines.h
/// `BRW_DATAPORT_READ_MESSAGE_OWORD_BLOCK_READ`, `GFX6_DATAPORT_WRITE_MESSAGE_OWORD_BLOCK_WRITE`).
pub const OWORD_BLOCK_READ: u32 = 0;
pub const OWORD_BLOCK_WRITE: u32 = 8;

/// Binding table index of stateless accesses without IA coherency, what gen8+ scratch uses
/// (`GFX8_BTI_STATELESS_NON_COHERENT`); gen7's is 255 (`BRW_BTI_STATELESS`).
pub const BTI_STATELESS_NON_COHERENT: u32 = 253;
pub const BTI_STATELESS: u32 = 255;

/// The dword of the header holding the offset in OWords.
pub const HEADER_OFFSET_DWORD: u32 = 2;

/// The largest offset, in bytes, `gfx7_scratch_read` can address: its descriptor holds
/// 12 bits of 32-byte units (Mesa `emit_unspill`: `spill_offset < (1 << 12) * REG_SIZE`).
pub const GFX7_READ_OFFSET_LIMIT: u32 = (1 << 12) * 32;

/// Whether a data-cache message of descriptor `desc` is a scratch OWord block message.
pub fn is_scratch_block(desc: u32) -> bool {
    matches!(desc & 0xff, BTI_STATELESS_NON_COHERENT | BTI_STATELESS)
        && matches!((desc >> 14) & 0x1f, OWORD_BLOCK_READ | OWORD_BLOCK_WRITE)
}

/// The descriptor, without lengths, of a scratch OWord block write (`write`) or read of
/// `regs` registers of 32 bytes (`brw_dp_desc(devinfo, GFX8_BTI_STATELESS_NON_COHERENT,
/// type, BRW_DATAPORT_OWORD_BLOCK_DWORDS(regs * 8))`); none for a size no block has.
pub fn block_desc(write: bool, regs: u32) -> Option<u32> {
    let size = super::memory::oword_block_size(regs * 8)?;
    let ty = if write {
        OWORD_BLOCK_WRITE
    } else {
        OWORD_BLOCK_READ
    };
    Some(BTI_STATELESS_NON_COHERENT | size << 8 | ty << 14)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptors() {
        // Mesa: 253 | BRW_DATAPORT_OWORD_BLOCK_2_OWORDS << 8 | 8 << 14.
        assert_eq!(block_desc(true, 1), Some(0x0002_02fd));
        assert_eq!(block_desc(false, 2), Some(0x0000_03fd));
        assert_eq!(block_desc(false, 3), None);
        assert!(is_scratch_block(block_desc(true, 4).unwrap()));
        assert!(!is_scratch_block(0x0000_02fe));
    }
}
