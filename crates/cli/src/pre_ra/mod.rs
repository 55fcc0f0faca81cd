//! What Mesa's pre-RA dumps leave out, put back so that the simulator can run them
//! (`compile --from pre-ra --verify`), each recovered from the variant's start dump or
//! its final code (`asm.txt`) and never guessed: what cannot be recovered is a
//! [`NotRecovered`] with its reason, and the shader is counted as not run.
//!
//! - [`sends`]: the SFID and descriptors of the sends (Mesa 22.3 prints neither, Mesa 25
//!   the descriptor only);
//! - [`sub_registers`]: the sub-registers of fixed-register scalars (Mesa 22.3 prints
//!   `gN<0>`);
//! - [`linterp`]: the payload order of Mesa 22.3's `linterp` barycentrics;
//! - float immediates rounded to six digits: `eubatch_ir::import::float_immediates`.

pub mod linterp;
pub mod sends;
pub mod sub_registers;

pub use linterp::linterps_as_plns;
pub use sends::{recover, Recovered};
pub use sub_registers::{fixed_scalars, fixed_scalars_from_wider};

/// Why a shader's sends were not recovered: `reason`, one of a few fixed phrases (what the
/// driver counts shaders by), and `detail`, which send and what was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotRecovered {
    pub reason: &'static str,
    pub detail: String,
}

impl std::fmt::Display for NotRecovered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.reason, self.detail)
    }
}

/// The fixed phrases of [`NotRecovered::reason`].
pub mod reason {
    pub const NO_LISTING: &str =
        "pre-RA send descriptors not recovered: Mesa kept no final code for the variant (asm.txt)";
    pub const SIGNATURES: &str =
        "pre-RA send descriptors not recovered: the final code's sends are not the dump's";
    pub const NO_FIT: &str =
        "pre-RA send descriptors not recovered: no send of the final code fits one of the dump's";
    pub const AMBIGUOUS: &str = "pre-RA send descriptors not recovered: several messages of the final code fit a send, and eubatch's lowering does not tell which";
    pub const SUBREGISTER: &str = "Mesa 22.3's pre-RA printer drops the sub-register of a fixed-register scalar (`g24<0>` for g24.4: push constants, interpolation planes), and the start dump reads several places of that register: what is read is not known";
    pub const FLOAT_IMMEDIATE: &str = "Mesa's printer writes a float immediate with six digits (`%g`), and no constant of the start dump, or several, prints as it: its value is not known";
    pub const SIMD32: &str = "pre-RA send descriptors not recovered: a SIMD32 fragment variant without final code, whose SIMD16 final code has a message not known to be the same in both halves";
    pub const SIMD8: &str = "pre-RA send descriptors not recovered: a SIMD8 compute variant without final code, whose SIMD16 final code has a message eubatch does not narrow";
    pub const RESPONSE: &str = "pre-RA send descriptors not recovered: a response is larger than its destination as the dump shows it";
}

pub(crate) fn fail(reason: &'static str, detail: String) -> NotRecovered {
    NotRecovered { reason, detail }
}

/// The variant's own final code in `listing` (the programs of its `asm.txt`): the scalar
/// program of the pre-RA dump's stage, SIMD width and program name; none for a variant
/// Mesa dropped.
pub(crate) fn own_code<'a>(
    listing: &'a [eubatch_codegen::asm::AsmProgram],
    pre_ra: &eubatch_ir::Shader,
    program: &str,
) -> Option<&'a eubatch_codegen::asm::AsmProgram> {
    code_at(listing, pre_ra, program, pre_ra.dispatch_width)
}

/// The final code in `listing` of the pre-RA dump's stage and program name at SIMD
/// width `width`.
pub(crate) fn code_at<'a>(
    listing: &'a [eubatch_codegen::asm::AsmProgram],
    pre_ra: &eubatch_ir::Shader,
    program: &str,
    width: u8,
) -> Option<&'a eubatch_codegen::asm::AsmProgram> {
    listing.iter().find(|p| {
        !p.vec4
            && p.stage == pre_ra.stage
            && p.shader.dispatch_width == width
            && p.program == program
    })
}
