//! Messages to the shared functions, defined once: descriptors and payload layouts as the
//! hardware reads them and as Mesa builds them from logical instructions. The lowering
//! passes and the simulator both use these, so a logical message and its lowered `send`
//! mean the same thing by construction.

pub mod sampler;

/// Shared function IDs (brw_eu_defines.h `BRW_SFID_*`, `GFX6_SFID_*`, `GFX7_SFID_*`).
pub mod sfid {
    pub const SAMPLER: u8 = 2;
    pub const RENDER_CACHE: u8 = 5;
    pub const URB: u8 = 6;
    pub const CONSTANT_CACHE: u8 = 9;
    pub const DATA_CACHE: u8 = 10;
}

/// Fields every message descriptor has (PRM Vol. 2a "Message Descriptor"): message
/// length (28:25), response length (24:20), header present (19).
pub fn mlen(desc: u32) -> u32 {
    (desc >> 25) & 0xf
}
pub fn rlen(desc: u32) -> u32 {
    (desc >> 20) & 0x1f
}
pub fn header_present(desc: u32) -> bool {
    desc & (1 << 19) != 0
}
/// Extended message length of a split send (extended descriptor bits 9:6).
pub fn ex_mlen(ex_desc: u32) -> u32 {
    (ex_desc >> 6) & 0xf
}
