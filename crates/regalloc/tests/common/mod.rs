//! Shaders and helpers the regalloc tests share (each test crate uses some of them).
#![allow(dead_code)]

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

/// Registers the VGRFs one instruction names take at most: what its spill temporaries
/// need at once (the spill tests' smallest register budget is this and two more).
pub fn widest_instruction(shader: &Shader) -> u32 {
    let reg = shader.reg_size();
    let regs = |op: &eubatch_ir::Operand| {
        op.as_vgrf()
            .map_or(0, |v| shader.vgrfs[v].size().div_ceil(reg))
    };
    shader
        .layout
        .insts()
        .map(|i| shader.srcs(i).iter().map(regs).sum::<u32>() + regs(&shader.insts.dst[i]))
        .max()
        .unwrap_or(0)
}
