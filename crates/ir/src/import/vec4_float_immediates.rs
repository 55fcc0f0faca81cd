//! Exact 32-bit float immediates of a vec4 dump, from the program's final code.
//!
//! Mesa 22.3's vec4 IR printer writes an F immediate with six decimals (brw_vec4.cpp
//! `vec4_visitor::dump_instruction`: `"%fF"`), so `add(8) vgrf0.zw:F, vgrf23.xyxy:F,
//! -1.414214F` in shaderdb-hsw's tesseract/96 is -1.41421402 where Mesa compiled
//! -1.41421354 (`0xbfb504f3F` in its final code): the outputs differ in the last bits.
//! A dump's F immediate with a fractional part takes the bits of the listing's one 32-bit
//! F immediate that prints as it does (its negation too: Mesa may fold a source negate
//! into the immediate); where the listing has the dump's own value, several candidates or
//! none, the immediate stays as printed (as [`super::df_immediates`] does for DF).

use crate::operand::{Operand, RegFile};
use crate::shader::{Backend, Shader};
use crate::types::Type;

use super::listing::ListedProgram;

/// A vec4 F immediate the printer may have rounded: one with a fractional part.
fn rounded(s: &Operand) -> bool {
    let v = f32::from_bits(s.imm_bits() as u32);
    s.file == RegFile::Imm && s.ty == Type::F && v.is_finite() && v.fract() != 0.0
}

/// Whether `shader` is a vec4 shader with F immediates the printer may have rounded.
pub fn needs_exact_f(shader: &Shader) -> bool {
    shader.backend == Backend::Vec4
        && shader
            .layout
            .insts()
            .any(|i| shader.srcs(i).iter().any(rounded))
}

/// How `%f` prints a float.
fn printed(bits: u32) -> String {
    format!("{:.6}", f32::from_bits(bits) as f64)
}

/// The exact value of a printed F immediate among `candidates`: the one candidate (or
/// negated candidate) that prints as `bits` does, if it is not `bits` itself.
pub fn exact(bits: u32, candidates: &[u32]) -> Option<u32> {
    super::df_immediates::only_other_printing_alike(
        bits,
        candidates.iter().flat_map(|&c| [c, c ^ 0x8000_0000]),
        printed,
    )
}

/// Replaces the rounded F immediates of `shader` by their exact values from `listed`;
/// how many it replaced.
pub fn recover(shader: &mut Shader, listed: &[&ListedProgram]) -> usize {
    let candidates: Vec<u32> = listed
        .iter()
        .flat_map(|p| p.float_immediates.iter().copied())
        .collect();
    super::df_immediates::replace_rounded(
        shader,
        rounded,
        |b| exact(b as u32, &candidates).map(u64::from),
        Type::F,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_one_candidate_that_prints_alike() {
        let printed = (-1.414214f32).to_bits();
        let exact_root2 = 0xbfb5_04f3;
        assert_eq!(exact(printed, &[exact_root2]), Some(exact_root2));
        // Its negation prints alike too.
        assert_eq!(exact(printed, &[0x3fb5_04f3]), Some(exact_root2));
        // The dump's own value is there: nothing to recover.
        assert_eq!(exact(printed, &[printed, exact_root2]), None);
        assert_eq!(exact(printed, &[1.0f32.to_bits()]), None);
    }
}
