//! The allocation problem of a lowered shader: per VGRF, how many registers it needs (from
//! the VGRF table and the target's register size) and where it is live, and which VGRFs
//! interfere — the graph Mesa's brw_fs_reg_allocate.cpp colours.
//!
//! Nothing is computed here: sizes are the VGRF table's, intervals and interference the
//! analysis layer's ([`eubatch_passes::analysis::intervals`]), through the same cache the
//! passes use, so the allocator sees the shader exactly as the last pass left it.

use eubatch_ir::{Shader, Vgrf};
use eubatch_passes::analysis::intervals::Interval;
use eubatch_passes::PassCx;

pub struct Problem {
    /// Per VGRF: its size in bytes, from the VGRF table.
    pub bytes: Vec<u32>,
    /// Per VGRF: registers it takes (its bytes rounded up to whole registers).
    pub regs: Vec<u32>,
    /// Per VGRF: the program points it is live at.
    pub live: Vec<Interval>,
}

impl Problem {
    /// The problem of `shader`; none when its liveness cannot be computed.
    pub fn build(shader: &Shader, cx: &mut PassCx) -> Option<Problem> {
        let intervals = cx.intervals(shader)?;
        let reg_size = shader.target.target().reg_size;
        let n = shader.vgrfs.len();
        let (mut bytes, mut regs, mut live) = (
            Vec::with_capacity(n),
            Vec::with_capacity(n),
            Vec::with_capacity(n),
        );
        for (v, layout) in shader.vgrfs.iter_enumerated() {
            bytes.push(layout.size());
            regs.push(layout.size().div_ceil(reg_size));
            live.push(intervals.vgrf(shader, v));
        }
        Some(Problem { bytes, regs, live })
    }

    /// Whether `a` and `b` must not share registers: both live at some position
    /// ([`Interval::overlaps`], the analysis layer's test).
    pub fn interfere(&self, a: Vgrf, b: Vgrf) -> bool {
        a != b && self.live[a.index()].overlaps(&self.live[b.index()])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_intervals_and_interference() {
        // vgrf0 (one register) feeds vgrf1 (two, a SIMD16 float), which feeds vgrf2; vgrf3
        // lives through all of it. vgrf0 and vgrf2 never meet, so they can share.
        let s = eubatch_ir::text::parse_shader(
            "shader \"p\" stage FS width 8 target skl
vgrf0 1x32
vgrf1 1x64
vgrf2 1x32
vgrf3 1x32
block0:
    mov(8) vgrf3:F, g3<8,8,1>:F
    mov(8) vgrf0:F, g2<8,8,1>:F
    add(8) vgrf1:F, vgrf0:F, 1f
    add(8) vgrf1+1.0:F, vgrf0:F, 2f
    add(8) vgrf2:F, vgrf1:F, vgrf1+1.0:F
    add(8) g10<8,8,1>:F, vgrf2:F, vgrf3:F
",
        )
        .unwrap();
        let mut cx = PassCx::default();
        let p = Problem::build(&s, &mut cx).unwrap();
        assert_eq!(p.bytes, vec![32, 64, 32, 32]);
        assert_eq!(p.regs, vec![1, 2, 1, 1]);
        let v = Vgrf::from_usize;
        assert_eq!(p.live[0], Interval::between(1, 3));
        assert_eq!(p.live[1], Interval::between(2, 4));
        assert_eq!(p.live[2], Interval::between(4, 5));
        assert_eq!(p.live[3], Interval::between(0, 5));
        assert!(p.interfere(v(0), v(1)));
        assert!(p.interfere(v(1), v(2)));
        assert!(!p.interfere(v(0), v(2)));
        for k in 0..3 {
            assert!(p.interfere(v(k), v(3)));
        }
        // The same answer as the analysis layer's own query.
        let iv = cx.intervals(&s).unwrap();
        for a in 0..4 {
            for b in 0..4 {
                assert_eq!(p.interfere(v(a), v(b)), iv.interfere(&s, v(a), v(b)));
            }
        }
    }
}
