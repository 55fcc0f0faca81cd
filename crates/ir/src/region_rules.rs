//! The target rules on the source regions an ALU instruction may read, as data: one entry
//! per rule, each with where it comes from. Copy propagation holds a source it would put
//! in place to them; the hardware-form check reports the rule a source breaks. Part of the
//! target description ([`crate::target`]), beside the width rules
//! ([`crate::width_rules`]).
//!
//! Sources: the PRMs as Mesa quotes them in brw_fs_copy_propagation.cpp `can_take_stride`
//! (the strides a source may take), and PRM Vol. 2a "Region Parameters" (the encodable
//! horizontal strides).

use crate::operand::{Operand, RegFile};
use crate::target::Gen;
use crate::{Inst, Opcode, Shader};

/// The values the instruction encoding holds in a region's fields (PRM Vol. 2a "Region
/// Parameters"; Mesa brw_disasm.c `vert_stride`, `width`, `horiz_stride`): anything else in
/// a listing is not a region the hardware has. A VxH vertical stride is apart
/// ([`crate::Region::VXH`]).
pub const VERTICAL_STRIDES: [u8; 7] = [0, 1, 2, 4, 8, 16, 32];
pub const WIDTHS: [u8; 5] = [1, 2, 4, 8, 16];
pub const HORIZONTAL_STRIDES: [u8; 4] = [0, 1, 2, 4];

/// What a rule looks at: one source of one instruction.
pub struct SourceCx {
    pub gen: Gen,
    pub op: Opcode,
    /// The source's element size in bytes.
    pub size: u32,
    /// Elements between the source's consecutive channels (0: a scalar).
    pub stride: u32,
    /// The destination's stride, in its own elements.
    pub dst_stride: u32,
    /// Bytes per register on the target ([`crate::target::Target::reg_size`]).
    pub reg_size: u32,
}

/// One rule: a name, where it comes from, and whether a source may be read so.
pub struct RegionRule {
    pub name: &'static str,
    pub source: &'static str,
    pub allows: fn(&SourceCx) -> bool,
}

/// Every rule, in the order they are checked.
pub const REGION_RULES: &[RegionRule] = &[
    RegionRule {
        name: "encodable stride",
        source: "PRM Vol. 2a \"Region Parameters\": a horizontal stride of 0, 1, 2 or 4 \
                 elements, or a vertical stride of 8, 16 or 32 with a width of one inside \
                 a register (brw_fs_generator.cpp, brw_reg_from_fs_reg: <stride;1,0> for \
                 strides past 4)",
        allows: |c| match c.stride {
            0 | 1 | 2 | 4 => true,
            8 | 16 | 32 => c.stride * c.size <= c.reg_size,
            _ => false,
        },
    },
    RegionRule {
        name: "three-source Align16 regions",
        source: "BDW PRM Vol. 7 \"3D Media GPGPU\": three-source instructions are Align16 \
                 before gen10 and read a stride of 1, or 0 through the replicate control, \
                 which 64-bit types cannot use (brw_fs_copy_propagation.cpp, can_take_stride)",
        allows: |c| {
            c.gen >= Gen::Gen11
                || c.op.alu_arity() != Some(3)
                || c.stride == 1
                || (c.stride == 0 && c.size <= 4)
        },
    },
    RegionRule {
        name: "math source stride",
        source: "HSW PRM Vol. 2b \"Extended Math Function\": source and destination \
                 horizontal stride 1 (gen7), BDW PRM Vol. 2a: the same stride (gen8+); a \
                 scalar source always (brw_fs_copy_propagation.cpp, can_take_stride)",
        allows: |c| {
            !c.op.is_math()
                || c.stride == 0
                || if c.gen < Gen::Gen8 {
                    c.stride == 1
                } else {
                    c.stride == c.dst_stride
                }
        },
    },
];

/// The stride in elements `o` reads with: 0 for a scalar; `None` for a region that is no
/// single stride (a fixed register's `<vstride;width,hstride>` whose rows do not follow
/// on), or an operand that is no register region.
pub fn element_stride(o: &Operand) -> Option<u32> {
    match o.file {
        RegFile::Vgrf | RegFile::Uniform | RegFile::Attr => Some(o.stride as u32),
        RegFile::FixedGrf => {
            let r = o.region;
            if r.width == 0 || (r.vstride == 0 && r.width == 1) {
                Some(0)
            } else if r.vstride as u32 == r.width as u32 * r.hstride as u32 || r.width == 1 {
                Some(if r.width == 1 {
                    r.vstride as u32
                } else {
                    r.hstride as u32
                })
            } else {
                None
            }
        }
        _ => None,
    }
}

/// The first rule source `k` of `inst` breaks, if any (ALU instructions only).
pub fn broken_rule(shader: &Shader, inst: Inst, k: usize) -> Option<&'static RegionRule> {
    let op = shader.insts.opcode[inst];
    let src = shader.srcs(inst).get(k)?;
    source_breaks(shader.target, op, src, &shader.insts.dst[inst])
}

/// The first rule `src` would break as a source of `op` writing `dst` on `gen`.
pub fn source_breaks(
    gen: Gen,
    op: Opcode,
    src: &Operand,
    dst: &Operand,
) -> Option<&'static RegionRule> {
    op.alu_arity()?;
    let stride = element_stride(src)?;
    let dst_stride = match dst.file {
        RegFile::Vgrf => dst.stride as u32,
        RegFile::FixedGrf => dst.region.hstride as u32,
        _ => 1,
    };
    let cx = SourceCx {
        gen,
        op,
        size: src.ty.size(),
        stride,
        dst_stride,
        reg_size: gen.target().reg_size,
    };
    REGION_RULES.iter().find(|r| !(r.allows)(&cx))
}

/// Mesa's execution type size of an ALU instruction (brw_ir_fs.h `get_exec_type`): the
/// widest source (bytes and vectors execute as words, `VF` as `F`), the destination's when
/// there is none; conversions between half-float and other types execute in 32 bits.
pub fn exec_type_size(srcs: &[Operand], dst: &Operand) -> u32 {
    use crate::Type;
    let size = |t: Type| match t {
        Type::B | Type::UB => 2,
        t => t.size(),
    };
    // (Walked as an iterator, not collected: this is asked of every ALU instruction by
    // several passes.)
    let present = || srcs.iter().filter(|s| !s.is_bad());
    let mut exec = present().map(|s| size(s.ty)).max().unwrap_or(0);
    if exec == 0 {
        exec = size(dst.ty);
    }
    let hf = |t: Type| t == Type::HF;
    let mixed_hf = present().any(|s| hf(s.ty))
        && (present().any(|s| !hf(s.ty) && s.file != RegFile::Imm) || !hf(dst.ty))
        || (hf(dst.ty) && present().any(|s| !hf(s.ty)));
    if mixed_hf {
        exec = exec.max(4);
    }
    exec
}

/// The destination rule `inst` breaks, if any: a conversion to a narrower type writes its
/// elements as far apart as the execution type's (SKL PRM Vol. 2a "Register Region
/// Restrictions": "Conversion between Integer and HF must be DWord aligned and strided by
/// a DWord on the destination", and narrower integer results likewise; Mesa
/// brw_fs_lower_regioning.cpp `has_invalid_dst_region`, `required_dst_byte_stride`), except
/// a raw byte move.
pub fn dst_breaks(shader: &Shader, inst: Inst) -> Option<&'static str> {
    let op = shader.insts.opcode[inst];
    op.alu_arity()?;
    let dst = &shader.insts.dst[inst];
    if dst.file != RegFile::Vgrf || shader.insts.control[inst].exec_size == 1 {
        return None;
    }
    let srcs = shader.srcs(inst);
    let raw_byte_move = op == Opcode::Mov
        && dst.ty.size() == 1
        && srcs
            .first()
            .is_some_and(|s| s.ty == dst.ty && s.mods == crate::Mods::NONE)
        && !shader.insts.control[inst].saturate();
    let exec = exec_type_size(srcs, dst);
    let byte_stride = dst.stride as u32 * dst.ty.size();
    if !raw_byte_move && dst.ty.size() < exec && byte_stride != exec {
        return Some(
            "narrowing conversion destination stride (SKL PRM Vol. 2a \"Register Region \
             Restrictions\"; brw_fs_lower_regioning.cpp, required_dst_byte_stride)",
        );
    }
    None
}

/// The vertical stride an Align16 source of `vstride` elements is encoded with, and so
/// read with: Mesa's register descriptions are Align1's, and `brw_set_src0`/`brw_set_src1`
/// (brw_eu_emit.c) encode an Align16 `<8>` as `<4>` ("an oddity of the fact we're using the
/// same descriptions for registers in align_16 as align_1"): a vec4 IR operand
/// `g1.0.xyzw` (`brw_vec8_grf`, `<8,8,1>`) reads its second half from dword 4. (The
/// encoder's own copy of the rule, with gen7's DF case, is in codegen's `from_ir`.)
pub fn align16_vstride(vstride: u8) -> u8 {
    if vstride == 8 {
        4
    } else {
        vstride
    }
}
