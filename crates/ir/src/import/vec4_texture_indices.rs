//! The texture and sampler indices of a vec4 dump's texturing instructions, which Mesa
//! 22.3's vec4 printer leaves out, from the program's final code.
//!
//! A vec4 texturing instruction keeps its parameters in message registers and its texture
//! and sampler in sources 1 and 2, after an empty source 0 (brw_vec4_nir.cpp
//! `nir_emit_texture`); `vec4_visitor::dump_instruction` prints sources up to the first
//! empty one, so none of them. The final code's sampler sends have both in their
//! descriptors (bits 7:0 and 11:8, brw_eu_emit.c `brw_sampler_desc`). The vec4 scheduler
//! may reorder sends without side effects, so the indices are taken only when they cannot
//! be told apart by order: every sampler send of the program whose message is not a
//! pull-constant load's (`ld` of sampler 0 from a constant buffer, which
//! `pull_constant_load_gfx7` makes) has the same pair, and there are as many of them as
//! the dump has texturing instructions. Otherwise the indices stay unknown and the
//! simulator says so.

use crate::opcode::Opcode;
use crate::operand::Operand;
use crate::shader::{Backend, Shader};
use crate::types::Type;

use super::listing::ListedProgram;

/// The vec4 texturing opcodes (Mesa 22.3 brw_vec4_nir.cpp `nir_emit_texture`).
fn is_vec4_texturing(op: Opcode) -> bool {
    use Opcode::*;
    matches!(
        op,
        Tex | Txb
            | Txl
            | Txd
            | Txf
            | TxfCms
            | TxfCmsW
            | TxfUms
            | TxfMcs
            | Txs
            | Lod
            | Tg4
            | Tg4Offset
    )
}

/// The texturing instructions of a vec4 `shader` printed without their indices.
fn without_indices(shader: &Shader) -> Vec<crate::Inst> {
    shader
        .layout
        .insts()
        .filter(|&i| is_vec4_texturing(shader.insts.opcode[i]) && shader.srcs(i).len() < 3)
        .collect()
}

/// Whether `shader` is vec4 code with texturing instructions whose indices are not known.
pub fn needs_indices(shader: &Shader) -> bool {
    shader.backend == Backend::Vec4 && !without_indices(shader).is_empty()
}

/// Gives each texturing instruction printed without its indices the texture and sampler
/// of `listed`'s sampler sends, where those are one pair (see the module doc); whether it
/// did.
pub fn recover(shader: &mut Shader, listed: &ListedProgram) -> bool {
    let insts = without_indices(shader);
    let pull_constant_ld = |m: &&super::listing::SamplerMessage| {
        m.msg_type == Some(crate::message::sampler::msg::LD)
            && m.sampler == Some(0)
            && shader
                .layout
                .insts()
                .any(|i| shader.insts.opcode[i] == Opcode::PullConstantLoadGfx7)
    };
    let texturing: Vec<_> = listed
        .sampler
        .iter()
        .filter(|m| !pull_constant_ld(m))
        .collect();
    let indices = |m: &&super::listing::SamplerMessage| m.surface.zip(m.sampler);
    let Some(first) = texturing.first().and_then(indices) else {
        return false;
    };
    if texturing.len() != insts.len() || texturing.iter().any(|m| indices(m) != Some(first)) {
        return false;
    }
    let (surface, sampler) = first;
    for inst in insts {
        let mut srcs = shader.srcs(inst).to_vec();
        srcs.resize(3, Operand::NULL);
        srcs[1] = Operand::imm(Type::UD, surface as u64);
        srcs[2] = Operand::imm(Type::UD, sampler as u64);
        shader.set_srcs(inst, &srcs);
    }
    true
}

#[cfg(test)]
mod tests {
    use super::{needs_indices, recover};
    use crate::import::listing::listed_programs;
    use crate::import::{import_mesa_dump, DumpName};

    const DUMP: &str = "mov(8) m2.xy:F, attr0.xyyy:F\nmov(8) m3.x:F, 0.000000F\ntxl(8) vgrf3:F\nmov(8) m4:F, vgrf3.xyzw:F\nvs_urb_write(8) (null):UD\n";

    fn listing(descs: &[&str]) -> String {
        let mut text = "Native code for unnamed vertex shader GLSL1 (sha1 0)\n\
VS vec4 shader: 2 instructions. 0 loops. 786 cycles. 0:0 spills:fills, 2 sends.\n   START B0 (786 cycles)\n"
            .to_string();
        for d in descs {
            text += &format!("31 01 60 02 bd 0f af 20 44 0e 6e 00 03 23 10 04 send(8)         g5<1>F          g114<4>F        {d}\n                            sampler MsgDesc: sample_l SIMD4x2 Surface = 3 Sampler = 3 mlen 2 rlen 1 {{ align16 1Q }};\n");
        }
        text + "   END B0\n"
    }

    /// The texture and sampler of the final code's one `sample_l` (surface 3, sampler 3)
    /// become the `txl`'s sources 1 and 2; two sends of different indices give none.
    #[test]
    fn indices_from_the_final_code() {
        let name = DumpName::parse("VS-GLSL1-00-00-start").unwrap();
        let mut s = import_mesa_dump(DUMP, &name, "t", crate::Gen::Gen75).unwrap();
        assert!(needs_indices(&s));
        let two = listed_programs(&listing(&["0x04102303", "0x04102101"])).unwrap();
        assert!(!recover(&mut s, &two[0]));
        let one = listed_programs(&listing(&["0x04102303"])).unwrap();
        assert!(recover(&mut s, &one[0]));
        assert!(!needs_indices(&s));
        let txl = s.layout.insts().nth(2).unwrap();
        let srcs = s.srcs(txl);
        assert_eq!((srcs[1].imm_bits(), srcs[2].imm_bits()), (3, 3));
    }
}
