//! Exact 32-bit float immediates of a pre-RA dump, from the variant's start dump.
//!
//! Mesa's IR printers write an F immediate with `%-gf`, six significant digits (22.3
//! brw_fs.cpp `fs_visitor::dump_instruction`, 25 brw_print.cpp), while a float needs up to
//! nine: `0.00189394f` in a pre-RA dump is 0x3af83e10 (0.0018939394...) in Mesa's code, and
//! read back it is 0x3af83e12. The start dump has most constants exactly, as the dword
//! immediates NIR's `load_const` became (`mov(8) %72:D, 989347344d NoMask`), and Mesa's
//! back end copies them into the instructions that use them; a one-ulp difference is
//! enough for a texture coordinate to sample another texel in the simulator.
//!
//! A pre-RA F immediate takes the bits of the one 32-bit immediate of the start dump, or
//! its negation, that prints as it does (`1f` is 0x3f7fffff in dolphin's smg.2: `mov(8)
//! %31:D, 1065353215d` in the start dump). Where several do, or none does and the printed
//! digits are not a float's exact value (`0.5f` is; a constant Mesa's back end folded
//! may not be), its value is not known: [`recover`] says which.

use crate::operand::{Operand, RegFile};
use crate::shader::Shader;
use crate::types::Type;

/// How an F immediate prints with `%g`: its six significant digits (as `%.5e` gives
/// them, rounded from the exact binary value as printf rounds).
fn printed(bits: u32) -> String {
    format!("{:.5e}", f32::from_bits(bits) as f64)
}

/// Whether the printed digits of `bits` are its exact value: then the dump's text gives
/// back the float Mesa had (`0.5`, `1`, `0.0625`).
fn exact_in_print(bits: u32) -> bool {
    let v = f32::from_bits(bits) as f64;
    printed(bits).parse::<f64>().is_ok_and(|p| p == v)
}

/// An F immediate that other floats print as.
fn rounded(s: &Operand) -> bool {
    s.file == RegFile::Imm && s.ty == Type::F && f32::from_bits(s.imm_bits() as u32).is_finite()
}

/// What was done to the F immediates of a pre-RA dump.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Recovered {
    /// Immediates given the start dump's exact bits.
    pub replaced: usize,
    /// Immediates whose printed digits are not their value and match no constant of the
    /// start dump, or several: `(instruction index, printed value)`.
    pub unknown: Vec<(usize, f32)>,
}

/// Replaces the rounded F immediates of `pre_ra` (a pre-RA dump as imported) by the
/// start dump's constants that print alike.
pub fn recover(pre_ra: &mut Shader, start: &Shader) -> Recovered {
    let mut candidates: Vec<u32> = start
        .layout
        .insts()
        .flat_map(|i| start.srcs(i).iter())
        .filter(|s| s.file == RegFile::Imm && s.ty.size() == 4)
        .flat_map(|s| {
            let b = s.imm_bits() as u32;
            [b, b ^ 0x8000_0000]
        })
        .collect();
    candidates.sort_unstable();
    candidates.dedup();
    let mut out = Recovered::default();
    let insts: Vec<_> = pre_ra.layout.insts().collect();
    for i in insts {
        for s in pre_ra.srcs_mut(i) {
            if !rounded(s) {
                continue;
            }
            let bits = s.imm_bits() as u32;
            let text = printed(bits);
            let mut found = candidates.iter().filter(|&&c| printed(c) == text);
            match (found.next(), found.next()) {
                (Some(&c), None) => {
                    if c != bits {
                        *s = Operand::imm(Type::F, c as u64);
                        out.replaced += 1;
                    }
                }
                (None, _) if exact_in_print(bits) => {}
                _ => out.unknown.push((i.index(), f32::from_bits(bits))),
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printed_like_printf_g() {
        assert_eq!(printed(0x3af83e10), printed(0x3af83e12));
        assert_ne!(printed(0x3af83e10), printed(0x3af84000));
        assert!(exact_in_print(0.5f32.to_bits()));
        assert!(exact_in_print(0.0625f32.to_bits()));
        assert!(!exact_in_print(0x3af83e10));
    }

    #[test]
    fn start_constants_give_the_bits() {
        let start = "shader \"s\" stage FS width 8 target skl\nvgrf0 1x32\nblock0:\n\
    mov(8) vgrf0:D, 989347344d NoMask\n\
    mov(8) vgrf0:D, 1056964608d NoMask\n\
    mov(8) vgrf0:D, 1065353215d NoMask\n";
        let pre_ra = "shader \"p\" stage FS width 8 target skl\nvgrf0 1x32\nblock0:\n\
    mul(8) vgrf0:F, vgrf0:F, 0.00189394f\n\
    mul(8) vgrf0:F, vgrf0:F, -0.00189394f\n\
    mul(8) vgrf0:F, vgrf0:F, 0.5f\n\
    mul(8) vgrf0:F, vgrf0:F, 0.3f\n\
    mul(8) vgrf0:F, vgrf0:F, 1f\n\
    mul(8) vgrf0:F, vgrf0:F, 2f\n";
        let start = crate::text::parse_shader(start).unwrap();
        let mut p = crate::text::parse_shader(pre_ra).unwrap();
        let r = recover(&mut p, &start);
        assert_eq!(r.replaced, 3);
        // 0.3 is in no constant of the start dump.
        assert_eq!(r.unknown, vec![(3, 0.3)]);
        let imm = |k: usize| {
            let i = p.layout.insts().nth(k).unwrap();
            p.srcs(i)[1].imm_bits() as u32
        };
        assert_eq!(imm(0), 0x3af83e10);
        assert_eq!(imm(1), 0xbaf83e10);
        assert_eq!(imm(2), 0.5f32.to_bits());
        // `1f` printed from 0x3f7fffff; `2f` matches nothing and is exact as printed.
        assert_eq!(imm(4), 0x3f7fffff);
        assert_eq!(imm(5), 2.0f32.to_bits());
        // 1.0 and 0x3f7fffff both in the start dump: `1f` could be either.
        let both = "shader \"s\" stage FS width 8 target skl\nvgrf0 1x32\nblock0:\n\
    mov(8) vgrf0:D, 1065353216d NoMask\n\
    mov(8) vgrf0:D, 1065353215d NoMask\n";
        let both = crate::text::parse_shader(both).unwrap();
        let mut p = crate::text::parse_shader(pre_ra).unwrap();
        let r = recover(&mut p, &both);
        assert_eq!(
            r.unknown.iter().map(|u| u.0).collect::<Vec<_>>(),
            [0, 1, 3, 4]
        );
    }
}
