//! Exact 64-bit float immediates, from the final code.
//!
//! Mesa 22.3's IR printer writes a DF immediate with six decimals (`0.076923df` for 1/13:
//! brw_fs.cpp `dump_instruction`, `"%fdf"`), so a start dump's constant can differ from the
//! one Mesa compiled — enough to change what a program does (piglit's
//! glsl-fs-loop-unroll-mul-fp64 divides by 13 until it reaches 4826809 exactly: with
//! 0.076923 the loop never ends). The final code has the constants' bits
//! (`dim(1) g10<1>DF 0x3fb3b13b13b13b14F`). A dump's DF immediate with a fractional part
//! takes the bits of the listing's one 64-bit immediate that prints as it does; where the
//! listing has the dump's own value, several candidates, or none (Mesa folded it away),
//! the immediate stays as printed.

use crate::operand::{Operand, RegFile};
use crate::shader::Shader;
use crate::types::Type;

use super::listing::ListedProgram;

/// A DF immediate the printer may have rounded: one with a fractional part.
fn rounded(s: &Operand) -> bool {
    let v = f64::from_bits(s.imm_bits());
    s.file == RegFile::Imm && s.ty == Type::DF && v.is_finite() && v.fract() != 0.0
}

/// Whether `shader` has DF immediates the printer may have rounded.
pub fn needs_exact_df(shader: &Shader) -> bool {
    shader
        .layout
        .insts()
        .any(|i| shader.srcs(i).iter().any(rounded))
}

/// The exact value of a printed DF immediate, among `candidates` (the listing's 64-bit
/// immediates): the one candidate that prints as `bits` does, if it is not `bits` itself.
pub fn exact(bits: u64, candidates: &[u64]) -> Option<u64> {
    only_other_printing_alike(bits, candidates.iter().copied(), |b| {
        format!("{:.6}", f64::from_bits(b))
    })
}

/// The one value among `candidates` that `printed` writes as it writes `bits`, when there
/// is exactly one and it is not `bits` itself: a rounded immediate's exact value, found in
/// the final code (the F immediates of vec4 dumps use it too).
pub(super) fn only_other_printing_alike<T: Copy + Ord>(
    bits: T,
    candidates: impl Iterator<Item = T>,
    printed: impl Fn(T) -> String,
) -> Option<T> {
    let text = printed(bits);
    let mut found: Vec<T> = candidates.filter(|&c| printed(c) == text).collect();
    found.sort_unstable();
    found.dedup();
    match found[..] {
        [c] if c != bits => Some(c),
        _ => None,
    }
}

/// Replaces the rounded DF immediates of `shader` by their exact values from `listed`;
/// how many it replaced.
pub fn recover(shader: &mut Shader, listed: &[&ListedProgram]) -> usize {
    let candidates: Vec<u64> = listed
        .iter()
        .flat_map(|p| p.wide_immediates.iter().copied())
        .collect();
    replace_rounded(shader, rounded, |b| exact(b, &candidates), Type::DF)
}

/// Replaces every source of `shader` that `rounded` picks by the immediate of type `ty`
/// whose bits `exact` gives for its bits, where it gives some; how many it replaced (the
/// DF immediates here, the vec4 F immediates in `vec4_float_immediates`).
pub(super) fn replace_rounded(
    shader: &mut Shader,
    rounded: impl Fn(&Operand) -> bool,
    exact: impl Fn(u64) -> Option<u64>,
    ty: Type,
) -> usize {
    let insts: Vec<_> = shader.layout.insts().collect();
    let mut replaced = 0;
    for i in insts {
        for s in shader.srcs_mut(i) {
            if rounded(s) {
                if let Some(c) = exact(s.imm_bits()) {
                    *s = Operand::imm(ty, c);
                    replaced += 1;
                }
            }
        }
    }
    replaced
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_one_candidate_that_prints_alike() {
        let printed = 0.076923f64.to_bits();
        let exact13 = (1.0f64 / 13.0).to_bits();
        let one = 1.0f64.to_bits();
        assert_eq!(exact(printed, &[one, exact13, exact13]), Some(exact13));
        // The dump's own value is there: nothing to recover.
        assert_eq!(exact(printed, &[printed, exact13]), None);
        // Two candidates print alike: ambiguous.
        let near = (1.0f64 / 13.0 + 1e-9).to_bits();
        assert_eq!(exact(printed, &[exact13, near]), None);
        assert_eq!(exact(printed, &[one]), None);
    }

    #[test]
    fn listing_immediates_and_recovery() {
        let listing = "Native code for unnamed fragment shader GLSL1 (sha1 0)\n\
SIMD8 shader: 2 instructions. ...\n\
0a 02 00 00 f9 73 40 21 14 3b b1 13 3b b1 b3 3f dim(1)          g10<1>DF        0x3fb3b13b13b13b14F /* 0.0769231F */ { align1 WE_all 1N };\n\
01 00 00 00 0c 06 68 20 00 00 00 00 00 00 01 00 mov(8)          g3<1>DF         0x3ff0000000000000DF            { align1 1Q };\n";
        let p = crate::import::listing::listed_programs(listing).unwrap();
        assert_eq!(
            p[0].wide_immediates,
            vec![0x3fb3b13b13b13b14, 0x3ff0000000000000]
        );
        let text = "shader \"t\" stage FS width 8 target hsw\nvgrf0 1x64\nblock0:\n\
    dim(1) vgrf0:DF, 0.076923df NoMask group0\n";
        let mut s = crate::text::parse_shader(text).unwrap();
        assert!(needs_exact_df(&s));
        assert_eq!(recover(&mut s, &[&p[0]]), 1);
        let i = s.layout.insts().next().unwrap();
        assert_eq!(s.srcs(i)[0].imm_bits(), (1.0f64 / 13.0).to_bits());
    }
}
