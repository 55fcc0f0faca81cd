//! Virtual opcodes `generate_code` emits as exactly one hardware instruction, which keep
//! their virtual form here (the simulator models them; the count is the same), and the
//! hardware opcodes, emitted as they are.
//!
//! Mesa (brw_fs_generator.cpp `generate_code`): the math opcodes are one `math` on gen6+
//! (`gfx6_math`); `linterp` one `pln` (`generate_linterp`, gen7 to gen10: the gen6
//! LINE/MAC split needs an odd register on Sandy Bridge only);
//! `load_live_channels` one `mov`; `mov_reloc_imm` one `mov`; `quad_swizzle` one `mov`
//! unless its swizzle needs four (`generate_quad_swizzle`, [`rules::quad_swizzle_align16`]).

use eubatch_ir::{Inst, Opcode, Shader};

use super::rules;

/// Whether `inst` (of opcode `op`) is emitted as one instruction and kept as it is.
pub(super) fn kept(op: Opcode, shader: &Shader, inst: Inst) -> bool {
    use Opcode::*;
    let gen = shader.target;
    match op {
        // `do` encodes nothing but stays: the structured IR needs its loop head (the
        // listing reader adds one too). `halt_target` is expanded by `halt`.
        op if op.is_hardware() => true,
        Rcp | Rsq | Sqrt | Exp2 | Log2 | Sin | Cos | Pow | IntQuot | IntRem => true,
        Linterp => gen < eubatch_ir::Gen::Gen11,
        LoadLiveChannels | MovRelocImm => true,
        QuadSwizzle => quad_swizzle_is_one(shader, inst),
        _ => false,
    }
}

/// `generate_quad_swizzle`: one `mov` for a uniform source, a 32-bit Align16 swizzle, or
/// the swizzles a region expresses (XXXX..WWWW, XXZZ, YYWW, XYXY, ZWZW); four otherwise.
fn quad_swizzle_is_one(shader: &Shader, inst: Inst) -> bool {
    let srcs = shader.srcs(inst);
    let (Some(src), Some(swz)) = (srcs.first(), srcs.get(1)) else {
        return false;
    };
    let scalar = src.file == eubatch_ir::RegFile::Imm
        || (src.region.vstride == 0 && src.region.hstride == 0);
    if scalar || rules::quad_swizzle_align16(shader.target, src.ty.size()) {
        return true;
    }
    // BRW_SWIZZLE4(a, b, c, d) = a | b << 2 | c << 4 | d << 6.
    let s = swz.imm_bits() as u32;
    let sw = |a: u32, b: u32, c: u32, d: u32| a | b << 2 | c << 4 | d << 6;
    (0..4).any(|x| s == sw(x, x, x, x))
        || [
            sw(0, 0, 2, 2),
            sw(1, 1, 3, 3),
            sw(0, 1, 0, 1),
            sw(2, 3, 2, 3),
        ]
        .contains(&s)
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{opcodes, parse};
    use super::super::{expand, final_instruction_count, NotExpanded};
    use eubatch_ir::Opcode::*;

    #[test]
    fn one_instruction_opcodes_are_kept_undef_and_do_count_nothing() {
        let mut s = parse(
            "skl",
            8,
            "CS",
            "    undef(8) g3<8,8,1>:UD NoMask\n    rcp(8) g3<8,8,1>:F, g2<8,8,1>:F\n    memory_fence(8) g4<8,8,1>:UD, g0<8,8,1>:F, 1u, 0u NoMask group0\nblock1:\n    do(8) (null):UD\nblock2:\n    mov(8) g5<8,8,1>:F, g3<8,8,1>:F\n    while(8) (null):UD\nblock3:\n    cs_terminate(8) (EOT) (null):UD, g6<8,8,1>:UD NoMask\n",
        );
        expand(&mut s).unwrap();
        assert_eq!(opcodes(&s), [Rcp, Send, Do, Mov, While, Send]);
        assert_eq!(final_instruction_count(&s), 5);
    }

    #[test]
    fn what_is_not_expanded_is_named() {
        // A fine ddy of half floats on Broadwell is one add per four channels.
        let mut s = parse(
            "bdw",
            8,
            "FS",
            "    ddy_fine(8) g3<8,8,1>:HF, g2<8,8,1>:HF\n    ddy_fine(8) g4<8,8,1>:F, g2<8,8,1>:F\n",
        );
        assert_eq!(expand(&mut s), Err(NotExpanded::Opcodes(vec![DdyFine])));
    }
}
