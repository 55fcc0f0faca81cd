//! The target rules that limit an instruction's execution width, as data: one entry per
//! rule, each with where it comes from. The SIMD-width lowering pass splits an instruction
//! into channel groups of the narrowest width any rule allows; the hardware-form check
//! reports the rule an instruction breaks. Part of the target description ([`crate::target`]).
//!
//! Sources: the PRMs as Mesa quotes them in `brw_fs.cpp`
//! (`get_fpu_lowered_simd_width`, `get_lowered_simd_width`; `brw_lower_simd_width.cpp` in
//! current Mesa). The plain ALU and math opcodes, interpolation, derivatives, and the
//! logical messages that lowering turns into sends (sampler, varying pull constants,
//! render target and URB writes), and `sel_exec` and `cluster_broadcast`
//! ([`alu_width_rules_apply`]); other virtual opcodes keep their width.

use crate::operand::RegFile;
use crate::shader::CondMod;
use crate::target::Gen;
use crate::{Inst, Opcode, Operand, Shader, Type};

/// What a rule looks at.
pub struct WidthCx<'a> {
    pub gen: Gen,
    pub op: Opcode,
    pub exec: u32,
    pub no_mask: bool,
    pub cmod: CondMod,
    pub dst: &'a Operand,
    pub srcs: &'a [Operand],
    /// Bytes written (`size_written`).
    pub size_written: u32,
    /// Bytes per register on the target ([`crate::target::Target::reg_size`]).
    pub reg_size: u32,
}

impl WidthCx<'_> {
    pub fn of(shader: &Shader, inst: Inst) -> WidthCx<'_> {
        let ctl = shader.insts.control[inst];
        WidthCx {
            gen: shader.target,
            op: shader.insts.opcode[inst],
            exec: ctl.exec_size as u32,
            no_mask: ctl.no_mask(),
            cmod: ctl.cmod,
            dst: &shader.insts.dst[inst],
            srcs: shader.srcs(inst),
            size_written: shader.insts.size_written[inst],
            reg_size: shader.reg_size(),
        }
    }

    /// Bytes source `i` reads (Mesa's `size_read`): nothing for immediates, one element
    /// for scalar regions.
    pub fn size_read(&self, i: usize) -> u32 {
        let s = &self.srcs[i];
        match s.file {
            RegFile::Imm | RegFile::Bad => 0,
            _ => s.footprint(self.exec),
        }
    }

    /// Registers `bytes` span (from a register's start).
    fn regs(&self, bytes: u32) -> u32 {
        bytes.div_ceil(self.reg_size)
    }

    /// Registers the widest operand spans.
    fn max_regs(&self) -> u32 {
        (0..self.srcs.len())
            .map(|i| self.regs(self.size_read(i)))
            .chain([self.regs(self.size_written)])
            .max()
            .unwrap_or(0)
    }

    fn is_3src(&self) -> bool {
        self.op.alu_arity() == Some(3)
    }

    /// Size in bytes of the execution type (the widest source type, or the destination's).
    fn exec_type_size(&self) -> u32 {
        self.srcs
            .iter()
            .filter(|s| !s.is_bad())
            .map(|s| s.ty.size())
            .max()
            .unwrap_or(0)
            .max(if self.dst.is_bad() {
                0
            } else {
                self.dst.ty.size()
            })
    }
}

/// One rule: a name, where it comes from, and the widest execution size it allows for an
/// instruction (`None`: the rule does not apply).
pub struct WidthRule {
    pub name: &'static str,
    pub source: &'static str,
    pub limit: fn(&WidthCx) -> Option<u32>,
}

/// The math functions of Mesa's RCP ... POW case: [`Opcode::is_math`] but integer division,
/// which has its own rule below.
fn is_float_math(op: Opcode) -> bool {
    op.is_math() && !matches!(op, Opcode::IntQuot | Opcode::IntRem)
}

/// Every rule, in the order they are checked.
pub const WIDTH_RULES: &[WidthRule] = &[
    WidthRule {
        name: "two-register regions",
        source: "PRM: \"a source cannot span more than 2 adjacent GRF registers; a destination \
                 cannot span more than 2 adjacent GRF registers\" (brw_fs.cpp, \
                 get_fpu_lowered_simd_width)",
        limit: |c| {
            let regs = c.max_regs();
            (regs > 2).then(|| c.exec / regs.div_ceil(2))
        },
    },
    WidthRule {
        name: "SIMD32 execution mask before gen8",
        source: "IVB/HSW PRM: \"when an instruction is SIMD32, the low 16 bits of the execution \
                 mask are applied for both halves\" (brw_fs.cpp, get_fpu_lowered_simd_width)",
        limit: |c| (c.gen < Gen::Gen8 && !c.no_mask).then_some(16),
    },
    WidthRule {
        name: "conditional modifier in SIMD32",
        source: "IVB PRM: \"instructions with condition modifiers must not use SIMD32\"; BDW+: \
                 \"ternary instruction with condition modifiers must not use SIMD32\" \
                 (brw_fs.cpp, get_fpu_lowered_simd_width)",
        limit: |c| {
            (c.cmod != CondMod::None && (c.gen < Gen::Gen8 || c.is_3src() && c.gen < Gen::Gen12))
                .then_some(16)
        },
    },
    WidthRule {
        name: "three-source SIMD16 on IVB",
        source: "IVB PRM: \"in Align16 access mode, SIMD16 is not allowed for DW operations and \
                 SIMD8 is not allowed for DF operations\" (brw_fs.cpp, \
                 get_fpu_lowered_simd_width; src/intel/dev/intel_device_info.c sets \
                 supports_simd16_3src from HSW_FEATURES on, so only gen7.0 has the limit)",
        limit: |c| (c.is_3src() && c.gen == Gen::Gen7).then(|| c.exec / c.max_regs().max(1)),
    },
    WidthRule {
        name: "compressed halves before gen8",
        source: "pre-gen8 EUs use QtrCtrl+1 for the second half of a compressed instruction: \
                 exactly 8 channels (4 for DF) per register, and IVB DF under the mask at \
                 SIMD4 (brw_fs.cpp, get_fpu_lowered_simd_width)",
        limit: |c| {
            if c.gen >= Gen::Gen8 || c.size_written <= c.reg_size || c.no_mask {
                return None;
            }
            let per_grf = c.exec / c.regs(c.size_written);
            let ts = c.exec_type_size();
            let mut w = c.exec;
            if per_grf != if ts == 8 { 4 } else { 8 } {
                w = w.min(per_grf);
            }
            if c.gen == Gen::Gen7 && (ts == 8 || c.dst.ty.size() == 8) {
                w = w.min(4);
            }
            (w < c.exec).then_some(w)
        },
    },
    WidthRule {
        name: "mixed float with a float destination",
        source: "SKL PRM, mixed mode float: \"no SIMD16 in mixed mode when destination is f32\" \
                 (brw_fs.cpp, is_mixed_float_with_fp32_dst)",
        limit: |c| {
            (c.dst.ty == Type::F && c.srcs.iter().any(|s| s.ty == Type::HF && !s.is_bad()))
                .then_some(8)
        },
    },
    WidthRule {
        name: "mixed float with a packed half-float destination",
        source: "SKL PRM, mixed mode float: \"no SIMD16 in mixed mode when destination is \
                 packed f16\" (brw_fs.cpp, is_mixed_float_with_packed_fp16_dst)",
        limit: |c| {
            (c.dst.ty == Type::HF
                && c.dst.stride == 1
                && c.srcs.iter().any(|s| s.ty == Type::F && !s.is_bad()))
            .then_some(8)
        },
    },
    WidthRule {
        name: "extended math width",
        source: "math is SIMD16 at most, SIMD8 with half-float (brw_fs.cpp, \
                 get_lowered_simd_width: SHADER_OPCODE_RCP ... POW)",
        limit: |c| is_float_math(c.op).then_some(if c.dst.ty == Type::HF { 8 } else { 16 }),
    },
    WidthRule {
        name: "integer division",
        source: "integer division is SIMD8 on all generations (brw_fs.cpp, \
                 get_lowered_simd_width: INT_QUOTIENT/INT_REMAINDER)",
        limit: |c| matches!(c.op, Opcode::IntQuot | Opcode::IntRem).then_some(8),
    },
    WidthRule {
        name: "mulh through the accumulator",
        source: "MULH is MUL/MACH through the 8-wide accumulator on gen7+ (brw_fs.cpp, \
                 get_lowered_simd_width: SHADER_OPCODE_MULH)",
        limit: |c| (c.op == Opcode::Mulh).then_some(8),
    },
    WidthRule {
        name: "plane interpolation width",
        source: "PLN/LINTERP are SIMD16 at most (brw_fs.cpp, get_lowered_simd_width: \
                 FS_OPCODE_LINTERP)",
        limit: |c| matches!(c.op, Opcode::Linterp | Opcode::Pln).then_some(16),
    },
    WidthRule {
        name: "IVB CMP to a register",
        source: "WaCMPInstFlagDepClearedEarly: split CMP(16) writing a GRF into CMP(8) on IVB \
                 (brw_fs.cpp, get_lowered_simd_width: BRW_OPCODE_CMP)",
        limit: |c| {
            (c.op == Opcode::Cmp && c.gen == Gen::Gen7 && !c.dst.is_null() && !c.dst.is_bad())
                .then_some(8)
        },
    },
    WidthRule {
        name: "HSW BFI",
        source: "WaForceSIMD8ForBFIInstruction: BFI is SIMD8 on Haswell (brw_fs.cpp, \
                 get_lowered_simd_width: BRW_OPCODE_BFI1/BFI2)",
        limit: |c| {
            (matches!(c.op, Opcode::Bfi1 | Opcode::Bfi2) && c.gen == Gen::Gen75).then_some(8)
        },
    },
    WidthRule {
        name: "derivatives on IVB",
        source: "DDX/DDY may use compressed Align16, SIMD8 only on IVB (brw_fs.cpp, \
                 get_lowered_simd_width: FS_OPCODE_DDX_*)",
        limit: |c| {
            matches!(
                c.op,
                Opcode::DdxCoarse | Opcode::DdxFine | Opcode::DdyCoarse | Opcode::DdyFine
            )
            .then_some(if c.gen == Gen::Gen7 { 8 } else { 16 })
        },
    },
];

/// The rules of the logical messages lowering turns into sends (the operand-size rules
/// above are about ALU regions and do not apply to message payloads).
pub const MESSAGE_WIDTH_RULES: &[WidthRule] = &[
    WidthRule {
        name: "sampler message width",
        source: "gen7-9 sampler messages are SIMD16 at most, SIMD8 when a SIMD16 payload would \
                 pass MAX_SAMPLER_MESSAGE_SIZE (11 registers: more than 5 parameters) \
                 (brw_fs.cpp, get_sampler_lowered_simd_width); a Mesa 25 message (15 \
                 sources) as Mesa 25 counts its parameters, the coordinate as four \
                 (brw_lower_simd_width.cpp: message::sampler::mesa25_lowered_width)",
        limit: |c| {
            if !is_sampler_message(c.op) {
                return None;
            }
            if let Some(w) = crate::message::sampler::mesa25_lowered_width(c.op, c.srcs) {
                return Some(w);
            }
            let params = crate::message::sampler::lower(c.op, c.srcs, c.gen)
                .map(|l| l.params.len())
                .unwrap_or(0);
            Some(if params > 5 { 8 } else { 16 })
        },
    },
    WidthRule {
        name: "varying pull-constant load width",
        source: "a varying pull-constant load is a sampler `ld`, SIMD16 at most (brw_fs.cpp, \
                 get_lowered_simd_width: FS_OPCODE_VARYING_PULL_CONSTANT_LOAD_LOGICAL)",
        limit: |c| (c.op == Opcode::VaryingPullConstLogical).then_some(16),
    },
    WidthRule {
        name: "render target write width",
        source: "render target writes are SIMD16 at most, SIMD8 with dual-source blending \
                 (brw_fs.cpp, get_lowered_simd_width: FS_OPCODE_FB_WRITE_LOGICAL)",
        limit: |c| {
            (c.op == Opcode::FbWriteLogical).then(|| {
                let dual = c
                    .srcs
                    .get(crate::message::render_target::src::COLOR1)
                    .is_some_and(|s| !s.is_bad());
                if dual {
                    8
                } else {
                    16
                }
            })
        },
    },
    WidthRule {
        name: "surface message width",
        source: "untyped surface, atomic, byte- and dword-scattered messages are SIMD16 at \
                 most (brw_fs.cpp, get_lowered_simd_width: SHADER_OPCODE_UNTYPED_*_LOGICAL, \
                 SHADER_OPCODE_*_SCATTERED_*_LOGICAL)",
        limit: |c| is_surface_message(c.op).then_some(16),
    },
    WidthRule {
        name: "typed message width",
        source: "typed surface reads, writes and atomics are SIMD8 on gen7-9 (brw_fs.cpp, \
                 get_lowered_simd_width: SHADER_OPCODE_TYPED_*_LOGICAL)",
        limit: |c| is_typed_message(c.op).then_some(8),
    },
    WidthRule {
        name: "A64 message width",
        source: "A64 untyped and byte-scattered reads and writes are SIMD8 on gen8 and SIMD16 \
                 at most on gen9, A64 atomics SIMD8 without LSC (brw_fs.cpp, \
                 get_lowered_simd_width: SHADER_OPCODE_A64_*_LOGICAL)",
        limit: |c| {
            if !is_a64_message(c.op) {
                return None;
            }
            let atomic = matches!(
                crate::message::a64::logical(c.op, c.srcs, false),
                Some(crate::message::a64::Msg::Atomic(_))
            ) || !matches!(
                c.op,
                Opcode::A64UntypedReadLogical
                    | Opcode::A64UntypedWriteLogical
                    | Opcode::A64ByteScatteredReadLogical
                    | Opcode::A64ByteScatteredWriteLogical
            );
            Some(if atomic || c.gen <= Gen::Gen8 { 8 } else { 16 })
        },
    },
    WidthRule {
        name: "memory message width",
        source: "Mesa 25's memory_load/store/atomic before Xe2: typed ones SIMD8, A64 (flat) \
                 atomics SIMD8 without LSC, else SIMD16 at most (Mesa 25 brw_fs.cpp, \
                 get_lowered_simd_width: SHADER_OPCODE_MEMORY_*_LOGICAL)",
        limit: |c| {
            use crate::message::memory::{self, src};
            if !matches!(
                c.op,
                Opcode::MemoryLoadLogical
                    | Opcode::MemoryStoreLogical
                    | Opcode::MemoryAtomicLogical
            ) || c.srcs.len() != src::COUNT
            {
                return None;
            }
            let imm = |k: usize| {
                let s = c.srcs[k];
                (s.file == RegFile::Imm).then(|| s.imm_bits() as u32)
            };
            let typed = imm(src::MODE) == Some(memory::MODE_TYPED);
            let flat_atomic = imm(src::BINDING_TYPE) == Some(memory::SURFTYPE_FLAT)
                && c.op == Opcode::MemoryAtomicLogical;
            Some(if typed || flat_atomic { 8 } else { 16 })
        },
    },
    WidthRule {
        name: "URB write width",
        source: "URB writes are SIMD8 messages (brw_fs.cpp, get_lowered_simd_width: \
                 SHADER_OPCODE_URB_WRITE_*_LOGICAL)",
        limit: |c| (c.op == Opcode::UrbWriteLogical).then_some(8),
    },
];

/// The logical surface messages of Mesa's `enum surface_logical_srcs` (`message::surface`,
/// `message::typed`, `message::atomic`): untyped and typed reads, writes and atomics,
/// byte- and dword-scattered reads and writes.
pub fn is_surface_message(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::UntypedSurfaceReadLogical
            | Opcode::UntypedSurfaceWriteLogical
            | Opcode::ByteScatteredReadLogical
            | Opcode::ByteScatteredWriteLogical
            | Opcode::DwordScatteredReadLogical
            | Opcode::DwordScatteredWriteLogical
            | Opcode::UntypedAtomicLogical
            | Opcode::UntypedAtomicFloatLogical
    ) || is_typed_message(op)
}

/// The logical A64 reads, writes and atomics (`message::a64`; the OWord block ones keep
/// their width, Mesa's rule).
pub fn is_a64_message(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::A64UntypedReadLogical
            | Opcode::A64UntypedWriteLogical
            | Opcode::A64ByteScatteredReadLogical
            | Opcode::A64ByteScatteredWriteLogical
            | Opcode::A64UntypedAtomicLogical
            | Opcode::A64UntypedAtomicFloatLogical
            | Opcode::A64UntypedAtomicInt16Logical
            | Opcode::A64UntypedAtomicInt64Logical
            | Opcode::A64UntypedAtomicFloat16Logical
            | Opcode::A64UntypedAtomicFloat32Logical
            | Opcode::A64UntypedAtomicFloat64Logical
    )
}

/// The logical typed messages (`message::typed`, `message::atomic`): SIMD8 on gen7-9.
pub fn is_typed_message(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::TypedSurfaceReadLogical
            | Opcode::TypedSurfaceWriteLogical
            | Opcode::TypedAtomicLogical
    )
}

/// The logical sampler messages (`message::sampler::lower` knows their payloads).
pub fn is_sampler_message(op: Opcode) -> bool {
    use Opcode::*;
    matches!(
        op,
        TexLogical
            | TxbLogical
            | TxlLogical
            | TxdLogical
            | TxsLogical
            | TxfLogical
            | TxfCmsLogical
            | TxfCmsWLogical
            | TxfUmsLogical
            | TxfMcsLogical
            | Tg4Logical
            | Tg4OffsetLogical
            | LodLogical
            | SampleInfoLogical
            | ImageSizeLogical
    )
}

/// Whether the width rules here cover `op`: the plain ALU opcodes, math, the derivative
/// and interpolation opcodes, and `sel_exec` and `cluster_broadcast`, which the generator
/// expands into `mov`s of the instruction's width (Mesa 25 brw_lower_simd_width.cpp
/// `get_lowered_simd_width` sends SHADER_OPCODE_SEL_EXEC and
/// SHADER_OPCODE_CLUSTER_BROADCAST through `get_fpu_lowered_simd_width`, as Mesa 22.3
/// brw_fs.cpp does). Messages and other virtual opcodes are not split by these rules.
pub fn alu_width_rules_apply(op: Opcode) -> bool {
    op.alu_arity().is_some()
        || matches!(
            op,
            Opcode::Linterp
                | Opcode::Pln
                | Opcode::DdxCoarse
                | Opcode::DdxFine
                | Opcode::DdyCoarse
                | Opcode::DdyFine
                | Opcode::SelExec
                | Opcode::ClusterBroadcast
        )
}

/// Whether the message rules here cover `op`: the logical messages lowering splits before
/// it builds their payloads.
pub fn message_width_rules_apply(op: Opcode) -> bool {
    is_sampler_message(op)
        || is_surface_message(op)
        || is_a64_message(op)
        || matches!(
            op,
            Opcode::VaryingPullConstLogical
                | Opcode::FbWriteLogical
                | Opcode::UrbWriteLogical
                | Opcode::MemoryLoadLogical
                | Opcode::MemoryStoreLogical
                | Opcode::MemoryAtomicLogical
        )
}

/// The widest legal execution size for `inst` and the rule that set it (`None`: every
/// rule allows the instruction's own width). Only power-of-two widths are encodable.
pub fn max_width(shader: &Shader, inst: Inst) -> (u32, Option<&'static WidthRule>) {
    let c = WidthCx::of(shader, inst);
    let mut best = (c.exec, None);
    let rules = if alu_width_rules_apply(c.op) {
        WIDTH_RULES
    } else if message_width_rules_apply(c.op) {
        MESSAGE_WIDTH_RULES
    } else {
        return best;
    };
    for r in rules {
        if let Some(w) = (r.limit)(&c) {
            let w = if w == 0 {
                1
            } else {
                1 << (31 - w.leading_zeros())
            };
            if w < best.0 {
                best = (w, Some(r));
            }
        }
    }
    best
}

/// How a source of an instruction the width rules cover is laid out across channels, for
/// splitting (Mesa's `components_read` and the PLN payload rule).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SourceLayout {
    /// `n` components of `exec_size` channels each, one after the other: splitting
    /// gathers a piece's channels of every component (`linterp`'s barycentrics, u then v).
    Components(u32),
    /// Register pairs per 8 channels (u then v of channels 8k..8k+7 in registers 2k and
    /// 2k+1; PRM Vol. 2a "PLN"): channels 8k.. start 64·k bytes in, so a piece reads its
    /// part in place.
    PlnPairs,
}

pub fn source_layout(op: Opcode, srcs: &[Operand], i: usize) -> SourceLayout {
    match (op, i) {
        (Opcode::Linterp, 0) => SourceLayout::Components(2),
        (Opcode::Pln, 1) => SourceLayout::PlnPairs,
        _ => SourceLayout::Components(crate::message::source_components(op, srcs, i)),
    }
}
