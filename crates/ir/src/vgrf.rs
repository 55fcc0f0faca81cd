//! Per-VGRF layout: components with explicit data and padding bytes.
//!
//! Seed `003_a6f40c9c680be2a2.txt`: a SIMD8 write of a 16-bit value fills half of a 32-byte
//! register. Mesa sizes VGRFs in whole registers and calls such a write partial, so liveness,
//! copy propagation and dead-code elimination give up on it. eubatch gives every VGRF an
//! explicit layout instead: `components` components, each `data` bytes of value followed by
//! `padding` bytes that nothing may read or write. A write that covers a component's data
//! bytes is a full write of that component.

/// The layout of one virtual register.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct VgrfLayout {
    pub components: u16,
    /// Data bytes per component.
    pub data: u16,
    /// Padding bytes after each component's data.
    pub padding: u16,
}

impl VgrfLayout {
    /// One component of `bytes` data bytes, no padding.
    pub fn flat(bytes: u32) -> VgrfLayout {
        VgrfLayout {
            components: 1,
            data: bytes as u16,
            padding: 0,
        }
    }

    /// Bytes from one component's start to the next.
    pub fn pitch(&self) -> u32 {
        self.data as u32 + self.padding as u32
    }

    /// Total size in bytes.
    pub fn size(&self) -> u32 {
        self.components as u32 * self.pitch()
    }

    /// Does the byte range `[start, start+len)` touch padding? A range that starts at a
    /// component and spans whole components (a message payload, say) touches its padding
    /// as part of those components, which is allowed: only an access that reaches into
    /// padding from within one component's data is not.
    pub fn touches_padding(&self, start: u32, len: u32) -> bool {
        self.touches_padding_as(start, len, true)
    }

    /// Like [`Self::touches_padding`]; with `whole_components` false (a register region of
    /// an ALU instruction), any byte of padding counts.
    pub fn touches_padding_as(&self, start: u32, len: u32, whole_components: bool) -> bool {
        if self.padding == 0 || len == 0 {
            return false;
        }
        let pitch = self.pitch();
        if !whole_components {
            let (first, last) = (start / pitch, (start + len - 1) / pitch);
            return (first..=last).any(|c| {
                let data = (c * pitch, c * pitch + self.data as u32);
                let lo = start.max(c * pitch);
                let hi = (start + len).min((c + 1) * pitch);
                lo < data.0 || hi > data.1
            });
        }
        if start.is_multiple_of(pitch) && len.is_multiple_of(pitch) {
            return false;
        }
        let first = start / pitch;
        let last = (start + len - 1) / pitch;
        if first != last {
            return !(start.is_multiple_of(pitch) && (start + len).is_multiple_of(pitch));
        }
        (start % pitch) + len > self.data as u32
    }
}

impl std::fmt::Display for VgrfLayout {
    /// `4x32` (four components of 32 bytes) or `4x16+16` (16 data, 16 padding).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}x{}", self.components, self.data)?;
        if self.padding != 0 {
            write!(f, "+{}", self.padding)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn padding_rules() {
        let hf = VgrfLayout {
            components: 2,
            data: 16,
            padding: 16,
        };
        assert_eq!(hf.size(), 64);
        assert!(!hf.touches_padding(0, 16));
        assert!(!hf.touches_padding(32, 16));
        assert!(hf.touches_padding(8, 16));
        assert!(hf.touches_padding(0, 32 + 16));
        assert!(!hf.touches_padding(0, 64));
        assert_eq!(hf.to_string(), "2x16+16");
        assert!(!VgrfLayout::flat(64).touches_padding(0, 64));
    }
}
