//! What a thread receives, generated from a seed: the same seed gives the same inputs.
//!
//! Inputs are drawn lazily per 32-bit word from a hash of (seed, space, word index), so
//! every payload register, push constant and attribute has a value without allocating the
//! whole space. A word is a float with special values mixed in (zeros of both signs, ±1,
//! 0.5, infinities, NaN, a denormal) or a small or random integer.

/// The spaces inputs come from.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    /// The thread payload: fixed GRFs at thread start.
    Payload = 1,
    /// Push constants (`u` operands).
    Uniform = 2,
    /// Inputs (`attr` operands).
    Attr = 3,
    /// Constant buffers read by pull-constant loads: word index is
    /// `surface << 32 | byte offset / 4`.
    Constant = 4,
    /// URB entries read by URB messages (the previous stage's outputs): word index is
    /// `handle << 32 | dword`, the dword counted from the entry's start (16-byte offsets
    /// times 4).
    Urb = 5,
    /// The timestamp register tm0's low and high dwords (word index 0 and 1).
    Timestamp = 6,
}

/// Byte address of `u{nr}` / `attr{nr}` at byte `offset` in the logical input space of
/// [`Space::Uniform`] / [`Space::Attr`]: regular uniforms are 4-byte slots; each pushed UBO
/// range (`u65532`.., [`crate::layout::UBO_START`]) owns a 4 GiB window of its own; an
/// attribute number owns 1 KiB.
pub fn input_byte(space: Space, nr: u32, offset: u32) -> u64 {
    match space {
        Space::Uniform if nr >= crate::layout::UBO_START => {
            ((nr - crate::layout::UBO_START + 1) as u64) << 32 | offset as u64
        }
        Space::Uniform => nr as u64 * 4 + offset as u64,
        _ => nr as u64 * 1024 + offset as u64,
    }
}

/// The register and byte of an input-space byte address ([`input_byte`]'s inverse).
pub fn input_of_byte(space: Space, byte: u64) -> (u32, u32) {
    match space {
        Space::Uniform if byte >> 32 != 0 => (
            crate::layout::UBO_START + (byte >> 32) as u32 - 1,
            (byte & 0xffff_ffff) as u32,
        ),
        Space::Uniform => ((byte / 4) as u32, (byte % 4) as u32),
        _ => ((byte / 1024) as u32, (byte % 1024) as u32),
    }
}

/// Dword `dword` of constant buffer `surface` (the [`Space::Constant`] word): what
/// pull-constant loads, constant block loads and constant-cache block reads all return.
pub fn constant_dword(seed: u64, surface: u64, dword: u64) -> u32 {
    word(seed, Space::Constant, surface << 32 | dword)
}

/// SplitMix64's finalizer: a good 64-bit mix.
pub fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

const SPECIAL: [u32; 10] = [
    0x0000_0000, // +0
    0x8000_0000, // -0
    0x3f80_0000, // 1
    0xbf80_0000, // -1
    0x3f00_0000, // 0.5
    0x7f80_0000, // +inf
    0xff80_0000, // -inf
    0x7fc0_0000, // NaN
    0x0000_0001, // smallest denormal
    0x7f7f_ffff, // largest finite
];

/// The input word `index` of `space` for `seed`.
pub fn word(seed: u64, space: Space, index: u64) -> u32 {
    let h = mix(mix(seed ^ ((space as u64) << 56)) ^ index);
    let pick = h & 0xff;
    let r = (h >> 8) as u32;
    match pick {
        0..=19 => SPECIAL[(r % SPECIAL.len() as u32) as usize],
        20..=139 => {
            // A float in [-16, 16).
            let f = ((r >> 8) as f32 / (1u32 << 24) as f32) * 32.0 - 16.0;
            f.to_bits()
        }
        140..=199 => r % 16,
        200..=229 => (r % 256).wrapping_sub(128),
        _ => r,
    }
}

/// The dispatch (pixel) mask of half `half` (channels 0-15, 16-31) of a fragment thread of
/// `channels` channels (8 or 16 a half) for `seed`: each 2x2 subspan fully lit half of the
/// time, else lit in a random subset of its pixels (helper invocations off), never no pixel
/// at all; the bits past `channels` clear.
pub fn pixel_mask(seed: u64, half: u32, channels: u32) -> u32 {
    let h = mix(mix(seed ^ ((Space::Payload as u64) << 56) ^ 0x9e37) ^ (1 << 40 | half as u64));
    let mut m = 0u32;
    for s in 0..channels / 4 {
        let bits = (h >> (8 * s)) as u32 & 0xff;
        let subspan = if bits & 1 == 0 {
            0xf
        } else {
            (bits >> 1) & 0xf
        };
        m |= subspan << (4 * s);
    }
    if m == 0 {
        1
    } else {
        m
    }
}

/// The input word `index` of `space` for `seed` where the shader uses it as an integer
/// ([`crate::profile`]): a count or a small bit field, 0..=255, mostly under 16, so loops
/// bounded by it end.
pub fn integer_word(seed: u64, space: Space, index: u64) -> u32 {
    let h = mix(mix(seed ^ ((space as u64) << 56) ^ (1 << 63)) ^ index);
    let r = (h >> 8) as u32;
    if h & 3 == 0 {
        r % 256
    } else {
        r % 16
    }
}

/// The input word `index` of `space` where the shader compares it as a float inside a loop
/// ([`crate::profile::Kind::FloatCount`]): a whole float 0..=16, so the loop ends.
pub fn float_count_word(seed: u64, space: Space, index: u64) -> u32 {
    ((integer_word(seed, space, index) % 17) as f32).to_bits()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_and_varied() {
        let a: Vec<u32> = (0..64).map(|i| word(7, Space::Payload, i)).collect();
        let b: Vec<u32> = (0..64).map(|i| word(7, Space::Payload, i)).collect();
        assert_eq!(a, b);
        let c: Vec<u32> = (0..64).map(|i| word(8, Space::Payload, i)).collect();
        assert_ne!(a, c);
        assert_ne!(word(7, Space::Uniform, 0), word(7, Space::Attr, 0));
    }
}
