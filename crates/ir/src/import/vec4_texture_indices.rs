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
//!
//! Run-time indices (an array of samplers indexed by a non-constant expression) are in
//! registers, and the final code's sends take them from a0 (`MsgDesc: indirect`): they
//! come from the start IR itself ([`recover_uniformized`]). Mesa 22.3's
//! `nir_emit_texture` evaluates each as `add temp, index, base` and makes it uniform with
//! `emit_uniformize` (`find_live_channel` and `broadcast`), in the order of the NIR
//! sources: the texture's, then the sampler's (glsl_to_nir.cpp puts the
//! `texture_deref` source before the `sampler_deref` one and nir_lower_samplers turns
//! them into `texture_offset` and `sampler_offset` in place); `emit_texture` then writes
//! the parameters' message registers and emits the texturing instruction.

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

/// The destination of the `add`, `find_live_channel`, `broadcast` triple that
/// `emit_uniformize` makes of an index, ending at `insts[end - 1]`, as a source of the
/// texturing instruction (`.xxxx`, as the broadcast reads its source).
fn uniformized(shader: &Shader, insts: &[crate::Inst], end: usize) -> Option<Operand> {
    let [add, flc, bcast] = insts.get(end.checked_sub(3)?..end)? else {
        return None;
    };
    let op = |i: crate::Inst| shader.insts.opcode[i];
    if op(*add) != Opcode::Add
        || op(*flc) != Opcode::FindLiveChannel
        || op(*bcast) != Opcode::Broadcast
    {
        return None;
    }
    let same = |a: &Operand, b: &Operand| {
        a.file == crate::RegFile::Vgrf && a.file == b.file && a.nr == b.nr && a.offset == b.offset
    };
    let [value, channel] = shader.srcs(*bcast) else {
        return None;
    };
    let add_srcs = shader.srcs(*add);
    if !same(value, &shader.insts.dst[*add])
        || !same(channel, &shader.insts.dst[*flc])
        || add_srcs.get(1).map(|o| o.file) != Some(crate::RegFile::Imm)
    {
        return None;
    }
    let dst = shader.insts.dst[*bcast];
    if dst.file != crate::RegFile::Vgrf {
        return None;
    }
    let mut src = *value;
    src.nr = dst.nr;
    src.offset = dst.offset;
    Some(src)
}

/// Gives each texturing instruction printed without its indices that Mesa's
/// `nir_emit_texture` gave run-time ones (see the module doc) the texture and sampler
/// registers: right before the instruction, after the message-register writes, two
/// `emit_uniformize` triples, the texture's then the sampler's. A single triple (which of
/// the two it is cannot be told) or any other shape leaves the indices unknown.
pub fn recover_uniformized(shader: &mut Shader) {
    if shader.backend != Backend::Vec4 {
        return;
    }
    let mut found = Vec::new();
    for block in shader.layout.blocks.iter() {
        let insts = &block.insts;
        for (k, &inst) in insts.iter().enumerate() {
            if !is_vec4_texturing(shader.insts.opcode[inst]) || shader.srcs(inst).len() >= 3 {
                continue;
            }
            let mut end = k;
            while end > 0 && shader.insts.dst[insts[end - 1]].file == crate::RegFile::Mrf {
                end -= 1;
            }
            let sampler = uniformized(shader, insts, end);
            let texture = end
                .checked_sub(3)
                .and_then(|e| uniformized(shader, insts, e));
            if let (Some(texture), Some(sampler)) = (texture, sampler) {
                found.push((inst, texture, sampler));
            }
        }
    }
    for (inst, texture, sampler) in found {
        let mut srcs = shader.srcs(inst).to_vec();
        srcs.resize(3, Operand::NULL);
        srcs[1] = texture;
        srcs[2] = sampler;
        shader.set_srcs(inst, &srcs);
    }
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
    use super::{needs_indices, recover, recover_uniformized};
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

    /// Mesa 22.3's run-time indices (vs-non-const-index's VS): the texture's
    /// `emit_uniformize` triple then the sampler's, right before the message-register
    /// writes, become the `txl`'s sources 1 and 2. A single triple, or another instruction between the triples and the `txl`, gives none.
    #[test]
    fn run_time_indices_from_the_uniformize_triples() {
        let triple = |a: u32, base: u32| {
            format!(
                "add(8) vgrf{a}.x:UD, vgrf1.xxxx:D, {base}U\n\
                 find_live_channel(8) vgrf{}.x:UD NoMask\n\
                 broadcast(8) vgrf{}.x:UD, vgrf{a}.xxxx:UD, vgrf{}.xxxx:UD NoMask\n",
                a + 1,
                a + 2,
                a + 1
            )
        };
        let tail = "mov(8) m3.xy:F, attr0.xyyy:F\nmov(8) m3.zw:F, 0D\nmov(8) m4.x:F, 0.000000F\n\
                    txl(8) vgrf9:F\nmov(8) m4:F, vgrf9.xyzw:F\nvs_urb_write(8) (null):UD\n";
        let head = "mov(8) vgrf1:UD, u0.xxxx:UD\n";
        let name = DumpName::parse("VS-GLSL1-00-00-start").unwrap();
        let import = |text: &str| import_mesa_dump(text, &name, "t", crate::Gen::Gen75).unwrap();
        let txl = |s: &crate::Shader| {
            s.layout
                .insts()
                .find(|&i| s.insts.opcode[i] == crate::Opcode::Txl)
                .unwrap()
        };
        let dump = format!("{head}{}{}{tail}", triple(2, 0), triple(5, 4));
        let mut s = import(&dump);
        assert!(needs_indices(&s));
        recover_uniformized(&mut s);
        assert!(!needs_indices(&s));
        let srcs = s.srcs(txl(&s));
        assert_eq!((srcs[1].nr, srcs[2].nr), (4, 7));
        assert_eq!(srcs[1].region.swizzle, 0, ".xxxx");
        for other in [
            format!("{head}{}{tail}", triple(5, 4)),
            format!(
                "{head}{}{}mov(8) vgrf8.x:UD, 1U\n{tail}",
                triple(2, 0),
                triple(5, 4)
            ),
        ] {
            let mut s = import(&other);
            recover_uniformized(&mut s);
            assert!(needs_indices(&s), "{other}");
        }
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
