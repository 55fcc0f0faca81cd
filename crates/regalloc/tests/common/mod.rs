//! Shaders the regalloc tests share.

use eubatch_ir::text::parse_shader;
use eubatch_ir::Shader;

/// A SIMD8 fragment shader for SKL with VGRFs of `sizes` (`1x32`, ...) and `body`.
pub fn fs(sizes: &[&str], body: &str) -> Shader {
    let mut t = String::from("shader \"t\" stage FS width 8 target skl\n");
    for (k, size) in sizes.iter().enumerate() {
        t += &format!("vgrf{k} {size}\n");
    }
    parse_shader(&(t + body)).unwrap()
}

/// Two SIMD8 HF values, vgrf0 and vgrf1, live together and added into vgrf2; the VGRFs
/// are of `sizes` (`1x16`, or `1x16+16` padded).
pub fn two_hf_values(sizes: [&str; 3]) -> Shader {
    fs(
        &sizes,
        "block0:
    mov(8) vgrf0:HF, g2<8,8,1>:F
    mov(8) vgrf1:HF, g3<8,8,1>:F
    add(8) vgrf2:HF, vgrf0:HF, vgrf1:HF
    mov(8) g10<8,8,1>:F, vgrf2:HF
",
    )
}
