//! The header bits of sampler messages, which Mesa's dumps leave out, from the final code.
//!
//! Mesa keeps what a texturing instruction puts in its message header's dword 2 — the
//! gather channel (`textureGather(s, c, comp)`) and constant texel offsets
//! (`textureOffset`) — in `fs_inst::offset` (brw_fs_nir.cpp `nir_emit_texture`,
//! `header_bits`). Neither printer writes it, so two gathers of different channels look
//! alike in a start dump. The final code has it: `lower_sampler_logical_send` copies g0
//! into a header and moves the bits into its dword 2 (`mov(1) g3.2<1>UD 0x00010ff0UD`)
//! before the `send` ([`super::listing`] reads those).
//!
//! Mesa's back end may remove or merge sampler messages between its first dump and its
//! final code (they have no side effects), and SIMD-splits some (a SIMD32 message becomes
//! two SIMD16 sends). So the bits are taken only where the two sequences agree message by
//! message: each logical message in program order is one or more sends of the same message
//! type (up to the LOD-zero forms Mesa's optimizer may reach), together as wide as the
//! message, with the same bits. The scheduler may reorder messages, but the bits are
//! checked against the pre-allocation dump's header moves, in program order, where one is
//! present ([`header_sequence_of_dump`]). A variant Mesa did not keep has no final code;
//! its bits come from a kept variant of the same stage (every width is compiled from the
//! same NIR, so the bits are the same) when their messages agree.
//!
//! Bits 15:12 of dword 2 (the channels the response leaves out) are the lowering's, from
//! the instruction's response size: they are not part of what is recovered.
//!
//! Not every sampler send of the final code is a texturing instruction: on gen7-gen11 a
//! varying pull-constant load is a headerless `ld` of the buffer's binding table entry
//! ([`sampler_msg::is_varying_pull_shape`]), and Mesa's CSE may merge two of them. Such
//! sends are passed over by their surface — one the shader's varying pull-constant loads
//! name and none of its texturing instructions does (Mesa's binding table gives textures
//! and constant buffers entries of their own, `brw_stage_prog_data::binding_table`) —
//! and not counted. Where a texturing instruction's surface is known only at run time the
//! surfaces cannot be told apart, and the pull-constant sends are not passed over.

use crate::message::sampler::{self as sampler_msg, msg};
use crate::shader::Shader;
use crate::width_rules::is_sampler_message;

use super::listing::{HeaderDword2, ListedProgram, SamplerMessage};

use sampler_msg::HEADER_RESPONSE_MASK as RESPONSE_MASK_BITS;

/// The logical sampler messages of `shader`, in program order.
fn sampler_messages(shader: &Shader) -> Vec<crate::Inst> {
    shader
        .layout
        .insts()
        .filter(|&i| is_sampler_message(shader.insts.opcode[i]))
        .collect()
}

/// Whether `shader` has sampler messages whose header bits are not known.
pub fn needs_header_bits(shader: &Shader) -> bool {
    sampler_messages(shader)
        .into_iter()
        .any(|i| shader.send_info(i).is_none_or(|s| s.header_bits.is_none()))
}

/// The binding table entries of `shader`'s varying pull-constant loads that no texturing
/// instruction of it uses (the sends of the final code on them are those loads); empty
/// where a texturing instruction's surface is not an immediate, or the target reads such
/// loads through the data port.
fn pull_constant_surfaces(shader: &Shader) -> Vec<u32> {
    use crate::operand::RegFile;
    if !shader.target.target().varying_pull_via_sampler {
        return Vec::new();
    }
    let imm = |o: &crate::Operand| (o.file == RegFile::Imm).then(|| o.imm_bits() as u32);
    let mut texture = Vec::new();
    for i in sampler_messages(shader) {
        match shader.srcs(i).get(sampler_msg::src::SURFACE).and_then(imm) {
            Some(s) => texture.push(s),
            None => return Vec::new(),
        }
    }
    let mut out: Vec<u32> = shader
        .layout
        .insts()
        .filter(|&i| shader.insts.opcode[i] == crate::Opcode::VaryingPullConstLogical)
        .filter_map(|i| crate::message::pull_constant_srcs(shader.srcs(i)))
        .filter_map(|(surface, _)| imm(&surface))
        .filter(|s| !texture.contains(s))
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Whether listed send `m` is one of the varying pull-constant loads on `pull` (see
/// [`pull_constant_surfaces`]).
fn is_pull_constant_load(m: &SamplerMessage, pull: &[u32]) -> bool {
    let header = !matches!(m.header, HeaderDword2::NoHeader);
    match (m.msg_type, m.surface) {
        (Some(t), Some(s)) => sampler_msg::is_varying_pull_shape(t, header) && pull.contains(&s),
        _ => false,
    }
}

/// The message type Mesa's optimizer may turn `t` into or from: an LOD that becomes the
/// constant 0 after the first dump selects the LOD-zero message on gen9.
fn family(t: u32) -> u32 {
    match t {
        msg::SAMPLE_LZ => msg::SAMPLE_L,
        msg::SAMPLE_C_LZ => msg::SAMPLE_L_C,
        msg::LD_LZ => msg::LD,
        t => t,
    }
}

/// The header bits of each logical sampler message of `shader`, in program order, from
/// `listed`'s sampler sends. `scale` is the listed program's width over the shader's
/// (1 for its own final code; 2 for the SIMD16 code of a SIMD8 dump). An error naming the
/// first disagreement.
pub fn match_listing(
    shader: &Shader,
    listed: &ListedProgram,
    scale: (u32, u32),
) -> Result<Vec<u32>, String> {
    let logical = sampler_messages(shader);
    let pull = pull_constant_surfaces(shader);
    let mut sends = listed
        .sampler
        .iter()
        .filter(|m| !is_pull_constant_load(m, &pull));
    let mut out = Vec::with_capacity(logical.len());
    for (k, &inst) in logical.iter().enumerate() {
        let op = shader.insts.opcode[inst];
        let lowered = sampler_msg::lower(op, shader.srcs(inst), shader.target)
            .map_err(|e| format!("sampler message {} (`{}`): {e}", k + 1, op.name()))?;
        let exec = shader.insts.control[inst].exec_size as u32;
        let want = exec * scale.0 / scale.1;
        let (mut got, mut bits) = (0u32, None);
        while got < want {
            let Some(m) = sends.next() else {
                return Err(format!(
                    "the shader has {} sampler messages, its final code fewer",
                    logical.len()
                ));
            };
            if m.msg_type.map(family) != Some(family(lowered.msg_type)) {
                return Err(format!(
                    "sampler message {} (`{}`) is message type {} in the shader, {:?} in the \
                     final code (line {})",
                    k + 1,
                    op.name(),
                    lowered.msg_type,
                    m.msg_type,
                    m.line
                ));
            }
            let b = match m.header {
                HeaderDword2::NoHeader => 0,
                HeaderDword2::Value(v) => v & !RESPONSE_MASK_BITS,
                HeaderDword2::Unknown => {
                    return Err(format!(
                        "the header of the sampler send at line {} is built in a way this \
                         reader does not follow",
                        m.line
                    ))
                }
            };
            if bits.is_some_and(|x| x != b) {
                return Err(format!(
                    "the sends of sampler message {} disagree on their header (line {})",
                    k + 1,
                    m.line
                ));
            }
            bits = Some(b);
            got += m.exec as u32;
        }
        if got != want {
            return Err(format!(
                "sampler message {} is SIMD{want} in the shader's terms, its sends SIMD{got}",
                k + 1
            ));
        }
        out.push(bits.unwrap_or(0));
    }
    if let Some(m) = sends.next() {
        return Err(format!(
            "the final code has more sampler messages than the shader (line {})",
            m.line
        ));
    }
    Ok(out)
}

/// The header dword 2 of each send with a sampler-style header (a copy of g0) in a Mesa
/// pre-allocation dump, in program order: `mov(8) vgrfH:UD, g0:UD NoMask`, then
/// optionally `mov(1) vgrfH+0.8<0>:UD, Nu NoMask`, then a `send` whose first payload is
/// `vgrfH`. That dump comes before scheduling, so its order is the program's.
pub fn header_sequence_of_dump(dump: &Shader) -> Vec<u32> {
    use crate::operand::RegFile;
    use crate::Opcode;
    let mut values: std::collections::HashMap<u32, u32> = std::collections::HashMap::new();
    let mut out = Vec::new();
    for i in dump.layout.insts() {
        let op = dump.insts.opcode[i];
        let dst = dump.insts.dst[i];
        let srcs = dump.srcs(i);
        if op == Opcode::Mov && dst.file == RegFile::Vgrf {
            let s = srcs[0];
            if dst.offset == 0 && s.file == RegFile::FixedGrf && s.nr == 0 && s.offset == 0 {
                values.insert(dst.nr, 0);
                continue;
            }
            if dst.offset == 8 && s.file == RegFile::Imm && values.contains_key(&dst.nr) {
                values.insert(dst.nr, s.imm_bits() as u32 & !RESPONSE_MASK_BITS);
                continue;
            }
        }
        if op == Opcode::Send {
            // Sources: descriptor, extended descriptor, payload(s).
            if let Some(p) = srcs
                .get(2)
                .filter(|p| p.file == RegFile::Vgrf && p.offset == 0)
            {
                if let Some(v) = values.get(&p.nr) {
                    out.push(*v);
                }
            }
        }
        // Another write to the header register (the parameters after it are the
        // payload's; dword 3 is the sampler state pointer) ends what is known.
        if dst.file == RegFile::Vgrf && dst.offset < dump.reg_size() && dst.offset != 12 {
            values.remove(&dst.nr);
        }
    }
    out
}

/// The header dwords 2 of `listed`'s sampler sends that have a header, in listing order
/// (to hold against [`header_sequence_of_dump`]).
pub fn header_sequence_of_listing(listed: &ListedProgram) -> Vec<u32> {
    listed
        .sampler
        .iter()
        .filter_map(|m| match m.header {
            HeaderDword2::Value(v) => Some(v & !RESPONSE_MASK_BITS),
            _ => None,
        })
        .collect()
}

/// Gives each logical sampler message of `shader` its header bits.
pub fn apply(shader: &mut Shader, bits: &[u32]) {
    let logical = sampler_messages(shader);
    debug_assert_eq!(logical.len(), bits.len());
    for (&inst, &b) in logical.iter().zip(bits) {
        let mut info = shader.send_info(inst).copied().unwrap_or_default();
        info.header_bits = Some(b);
        shader.set_send_info(inst, info);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::listing::listed_programs;

    /// warsow/25's gathers and a sample_lz with offsets, as Mesa 22.3 listed them for SKL.
    const LISTING: &str = "Native code for unnamed fragment shader GLSL1 (sha1 0)\n\
SIMD8 shader: 9 instructions. 0 loops. 10 cycles. 0:0 spills:fills, 3 sends, ...\n\
   START B0 (10 cycles)\n\
01 00 00 00 0c 06 68 20 00 00 00 00 00 00 01 00 mov(8)          g3<1>UD         g0<8,8,1>UD                     { align1 WE_all 1Q compacted };\n\
01 00 00 00 0c 06 68 20 00 00 00 00 00 00 01 00 mov(8)          g5<1>UD         g0<8,8,1>UD                     { align1 WE_all 1Q compacted };\n\
01 00 00 00 0c 06 68 20 00 00 00 00 00 00 01 00 mov(1)          g3.2<1>UD       0x00010000UD                    { align1 WE_all 1N };\n\
01 00 00 00 0c 06 a8 20 00 00 00 00 f0 0f 01 00 mov(1)          g5.2<1>UD       0x00010ff0UD                    { align1 WE_all 1N };\n\
33 00 60 02 18 60 00 02 62 00 00 00 01 80 4a 02 sends(8)        g16UD           g3UD            g6UD            0x024a8001                0x00000080\n\
                            sampler MsgDesc: gather4 SIMD8 Surface = 1 Sampler = 0 mlen 1 ex_mlen 2 rlen 4 { align1 1Q };\n\
33 00 60 02 18 60 80 02 a2 00 00 00 01 80 4a 02 sends(8)        g20UD           g5UD            g6UD            0x024a8001                0x00000080\n\
                            sampler MsgDesc: gather4 SIMD8 Surface = 1 Sampler = 0 mlen 1 ex_mlen 2 rlen 4 { align1 1Q };\n\
01 00 00 00 0c 06 68 20 00 00 00 00 00 00 01 00 mov(8)          g7<1>UD         g0<8,8,1>UD                     { align1 WE_all 1Q compacted };\n\
01 00 00 00 0c 06 68 20 00 00 00 00 00 00 01 00 mov(1)          g7.2<1>UD       0x0000c1f0UD                    { align1 WE_all 1N };\n\
33 00 60 02 18 60 00 02 62 00 00 00 01 80 4a 02 sends(8)        g24UD           g7UD            g6UD            0x022b8001                0x00000080\n\
                            sampler MsgDesc: sample_lz SIMD8 Surface = 1 Sampler = 0 mlen 1 ex_mlen 2 rlen 2 { align1 1Q };\n\
   END B0\n";

    const SHADER: &str = "shader \"t\" stage FS width 8 target skl\nvgrf0 2x32\nvgrf1 4x32\nvgrf2 4x32\nvgrf3 2x32\nblock0:\n\
    tg4_logical(8) (size: 128) vgrf1:F, vgrf0:F, (null):UD, (null):UD, (null):UD, (null):UD, (null):UD, (null):UD, 1u, 0u, (null):UD, (null):UD, (null):UD, 2d, 0d\n\
    tg4_logical(8) (size: 128) vgrf2:F, vgrf0:F, (null):UD, (null):UD, (null):UD, (null):UD, (null):UD, (null):UD, 1u, 0u, (null):UD, (null):UD, (null):UD, 2d, 0d\n\
    txl_logical(8) (size: 64) vgrf3:F, vgrf0:F, (null):UD, 0f, (null):UD, (null):UD, (null):UD, (null):UD, 1u, 0u, (null):UD, (null):UD, (null):UD, 2d, 0d\n";

    /// piglit's fs-textureGatherOffset-uniform-array-offset as Mesa 22.3 listed it for SKL:
    /// a gather with run-time offsets (`gather4_po`, offsets in the payload) of channel 0,
    /// whose header is g0 itself, after the one `ld` its two varying pull-constant loads
    /// of one offset became (CSE).
    const LISTING_PO: &str = "Native code for unnamed fragment shader GLSL1 (sha1 0)\n\
SIMD8 shader: 8 instructions. 0 loops. 1540 cycles. 0:0 spills:fills, 3 sends, ...\n\
   START B0 (1540 cycles)\n\
09 00 60 00 28 0a 60 20 40 00 00 06 03 00 00 00 shl(8)          g3<1>D          g2<0,1,0>D      0x00000003UD    { align1 1Q };\n\
01 00 60 00 e8 3e c0 20 00 00 00 38 00 00 80 3e mov(8)          g6<1>F          0x3e800000F      /* 0.25F */    { align1 1Q };\n\
01 00 60 00 e8 3e e0 20 00 00 00 38 00 00 80 3e mov(8)          g7<1>F          0x3e800000F      /* 0.25F */    { align1 1Q };\n\
31 00 60 02 48 02 40 20 60 00 00 06 02 70 42 02 send(8)         g2<1>UW         g3<0,1,0>UD     0x02427002\n\
                            sampler MsgDesc: ld SIMD8 Surface = 2 Sampler = 0 mlen 1 rlen 4 { align1 1Q };\n\
01 0b 01 20 07 08 02 00                         mov(8)          g8<1>F          g2<8,8,1>F                      { align1 1Q compacted };\n\
01 0b 01 20 07 09 03 00                         mov(8)          g9<1>F          g3<8,8,1>F                      { align1 1Q compacted };\n\
33 00 60 02 18 60 60 0f 04 00 00 00 01 10 4b 02 sends(8)        g123UD          g0UD            g6UD            0x024b1001                0x00000100\n\
                            sampler MsgDesc: gather4_po SIMD8 Surface = 1 Sampler = 0 mlen 1 ex_mlen 4 rlen 4 { align1 1Q };\n\
   END B0\n";

    const SHADER_PO: &str = "shader \"t\" stage FS width 8 target skl\nvgrf0 2x32\nvgrf1 1x32\nvgrf2 4x32\nvgrf3 4x32\nvgrf4 2x32\nvgrf5 4x32\nblock0:\n\
    varying_pull_const_logical(8) vgrf2:F, 2u, vgrf1:UD, 4u\n\
    varying_pull_const_logical(8) vgrf3:F, 2u, vgrf1:UD, 4u\n\
    tg4_offset_logical(8) (size: 128) vgrf5:F, vgrf0:F, (null):UD, (null):UD, (null):UD, (null):UD, (null):UD, (null):UD, 1u, 0u, (null):UD, (null):UD, vgrf4:D, 2d, 0d\n";

    #[test]
    fn g0_as_header_and_pull_constant_loads() {
        let p = &listed_programs(LISTING_PO).unwrap()[0];
        // The pull-constant `ld` has no header; the gather's header is g0 itself, whose
        // dword 2 is 0 in a fragment shader.
        let h: Vec<HeaderDword2> = p.sampler.iter().map(|m| m.header).collect();
        assert_eq!(h, vec![HeaderDword2::NoHeader, HeaderDword2::Value(0)]);
        assert_eq!(p.sampler[0].surface, Some(2));
        let mut s = crate::text::parse_shader(SHADER_PO).unwrap();
        assert!(needs_header_bits(&s));
        // Two loads, one send: passed over by surface, not counted.
        let bits = match_listing(&s, p, (1, 1)).unwrap();
        assert_eq!(bits, vec![0]);
        apply(&mut s, &bits);
        assert!(!needs_header_bits(&s));

        // Outside the vertex and fragment stages g0.2 need not be 0 and Mesa writes the
        // header's dword 2: g0 as the header is not one the reader follows.
        let cs = LISTING_PO.replace("fragment shader", "compute shader");
        let p = &listed_programs(&cs).unwrap()[0];
        assert_eq!(p.sampler[1].header, HeaderDword2::Unknown);
        // g0 written in the block before the send: not the thread payload's.
        let written = LISTING_PO.replace(
            "mov(8)          g9<1>F          g3<8,8,1>F",
            "mov(8)          g0<1>F          g3<8,8,1>F",
        );
        let p = &listed_programs(&written).unwrap()[0];
        assert_eq!(p.sampler[1].header, HeaderDword2::Unknown);

        // A texturing instruction on the pull-constant surface: the `ld` may be either,
        // so it is not passed over and the sequences disagree.
        let p = &listed_programs(LISTING_PO).unwrap()[0];
        let same = SHADER_PO.replace(", 1u, 0u, (null)", ", 2u, 0u, (null)");
        let s = crate::text::parse_shader(&same).unwrap();
        let e = match_listing(&s, p, (1, 1)).unwrap_err();
        assert!(e.contains("message type"), "{e}");
        // A run-time texture surface: the same.
        let dynamic = SHADER_PO.replace(", 1u, 0u, (null)", ", vgrf1:UD, 0u, (null)");
        let s = crate::text::parse_shader(&dynamic).unwrap();
        assert!(match_listing(&s, p, (1, 1)).is_err());
        // Without the pull-constant loads in the shader the `ld` is a message too many.
        let without: String = SHADER_PO
            .lines()
            .filter(|l| !l.contains("varying_pull"))
            .map(|l| format!("{l}\n"))
            .collect();
        let s = crate::text::parse_shader(&without).unwrap();
        assert!(match_listing(&s, p, (1, 1)).is_err());
    }

    #[test]
    fn reads_sampler_headers() {
        let p = &listed_programs(LISTING).unwrap()[0];
        let h: Vec<HeaderDword2> = p.sampler.iter().map(|m| m.header).collect();
        assert_eq!(
            h,
            vec![
                HeaderDword2::Value(0x10000),
                HeaderDword2::Value(0x10ff0),
                HeaderDword2::Value(0xc1f0)
            ]
        );
        assert_eq!(p.sampler[2].msg_type, Some(msg::SAMPLE_LZ));
        assert_eq!(header_sequence_of_listing(p), vec![0x10000, 0x10ff0, 0x1f0]);
    }

    #[test]
    fn bits_go_to_messages_that_agree() {
        let p = &listed_programs(LISTING).unwrap()[0];
        let mut s = crate::text::parse_shader(SHADER).unwrap();
        assert!(needs_header_bits(&s));
        let bits = match_listing(&s, p, (1, 1)).unwrap();
        // The response mask (0xc000: two components left out) is the lowering's.
        assert_eq!(bits, vec![0x10000, 0x10ff0, 0x1f0]);
        apply(&mut s, &bits);
        assert!(!needs_header_bits(&s));
        // A SIMD16 listing against a SIMD8 shader: each message is one send of twice the width.
        let p16 = listed_programs(&LISTING.replace("sends(8)", "sends(16)")).unwrap();
        assert!(match_listing(&s, &p16[0], (16, 8)).is_ok());
        assert!(match_listing(&s, &p16[0], (1, 1)).is_err());
        // A message of another type in the shader: refused.
        let other = SHADER.replace("txl_logical(8) (size: 64)", "tex_logical(8) (size: 64)");
        let s = crate::text::parse_shader(&other).unwrap();
        let e = match_listing(&s, p, (1, 1)).unwrap_err();
        assert!(e.contains("sampler message 3"), "{e}");
        // One message fewer in the final code (Mesa removed it): refused.
        let fewer = SHADER.lines().take(7).collect::<Vec<_>>().join("\n");
        let s = crate::text::parse_shader(&fewer).unwrap();
        assert!(match_listing(&s, p, (1, 1)).is_err());
    }
}
