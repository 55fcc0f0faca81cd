//! The pixel interpolator's answers ([`eubatch_ir::message::pixel_interp`]): a
//! deterministic function of the query, as the sampler's texels are ([`crate::sampler`]),
//! so that a logical `interp_*` instruction and the `send` Mesa's generator makes of it
//! get the same barycentrics.
//!
//! Each coordinate is a hash of the seed (the primitive being shaded), the location type,
//! the message data, the channel (its pixel) and, for the per-slot offset, the channel's
//! X and Y offsets: a float in [0, 1). Not the hardware's arithmetic, which needs the
//! primitive's setup: a pass that replaced the query by arithmetic could not be checked.
//! The perspective bit is left out of the hash: Mesa 22.3's dumps do not show it
//! (`pi_noperspective`), so the logical side cannot know it.

use crate::inputs::mix;

/// Coordinate `comp` (0 or 1) of channel `channel`'s answer.
pub fn coordinate(
    seed: u64,
    location: u32,
    data: u32,
    offsets: [u32; 2],
    channel: u32,
    comp: u32,
) -> u32 {
    let mut h = mix(seed ^ 0x5049_4e54_4552_5000);
    for w in [
        location as u64,
        data as u64,
        offsets[0] as u64,
        offsets[1] as u64,
        (channel as u64) << 8 | comp as u64,
    ] {
        h = mix(h ^ w);
    }
    (f32::from_bits(0x3f80_0000 | (h as u32 & 0x7f_ffff)) - 1.0).to_bits()
}
