//! The generator's expansion: what Mesa's `fs_generator::generate_code`
//! (brw_fs_generator.cpp) turns one IR instruction into, applied to eubatch's code in
//! register form (after `eubatch_regalloc::assign`), so that the final instruction count
//! counts what Mesa's does. Mesa 22.3 reports two figures: the listing's header
//! (`SIMD16 shader: 24 instructions.` in asm.txt) counts every encoded instruction, the
//! NOPs the generator inserts included ([`encoded_instruction_count`]); the `instructions`
//! statistic (`brw_compile_stats`, shader-db's stats.txt: `21 inst`) leaves out those
//! NOPs (`before_size / 16 - nop_count`, "to avoid spurious instruction count differences
//! when the instruction schedule changes") ([`final_instruction_count`]).
//!
//! Each virtual opcode the generator emits as several hardware instructions (or none) has
//! its own file, producing the IR shapes the reader of Mesa's listings (`crate::asm`)
//! produces for the same hardware lines, so the simulator runs the result as it runs
//! Mesa's final code. Virtual opcodes the generator emits as exactly one instruction
//! ([`one_to_one`]) keep their virtual form: the simulator models them and the count is
//! the same. What is not expanded is reported ([`NotExpanded`]), never silently counted
//! as one instruction. Rules that depend on the generation live in [`rules`].
//!
//! Scalar (`fs_generator`) code only: vec4 code (`vec4_generator`, Haswell vertex and
//! geometry shaders) is reported as not expanded.

mod barrier;
mod broadcast;
mod derivatives;
mod find_live_channel;
mod half_float;
mod halt;
mod messages;
mod mov_indirect;
mod moves;
mod one_to_one;
mod pack_half;
mod pow_nop;
mod pull_constant;
pub mod rules;
mod scratch_header;
mod scratch_write;
mod send;
mod shuffle;

use std::collections::BTreeSet;

use eubatch_ir::operand::arf;
use eubatch_ir::shader::{InstBuilder, SendInfo};
use eubatch_ir::{Backend, Control, Inst, Opcode, Operand, RegFile, Region, Shader, Type};

/// What [`expand`] left as it was: the final instruction count of the shader is not known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotExpanded {
    /// Vec4 code: Mesa's `vec4_generator` is not modelled.
    Vec4,
    /// Instructions of these opcodes (each once, sorted) are not expanded.
    Opcodes(Vec<Opcode>),
}

impl std::fmt::Display for NotExpanded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotExpanded::Vec4 => write!(f, "vec4 code (vec4_generator) is not expanded"),
            NotExpanded::Opcodes(ops) => {
                let names: Vec<&str> = ops.iter().map(|o| o.name()).collect();
                write!(f, "opcode {} not expanded", names.join(", "))
            }
        }
    }
}

/// Expands `shader` (register form) into the instructions Mesa's generator emits. On
/// `Err`, everything that could be expanded was, and the rest is named.
pub fn expand(shader: &mut Shader) -> Result<(), NotExpanded> {
    if shader.backend == Backend::Vec4 {
        return Err(NotExpanded::Vec4);
    }
    let mut missing = BTreeSet::new();
    let mut pow = pow_nop::Tracker::default();
    let halts = halt::has_halts(shader);
    for b in 0..shader.layout.blocks.len() {
        let block = eubatch_ir::Block::from_usize(b);
        let old = std::mem::take(&mut shader.layout.blocks[block].insts);
        let mut e = Emit {
            shader,
            out: Vec::with_capacity(old.len() + 4),
        };
        for inst in old {
            let op = e.shader.insts.opcode[inst];
            // `generate_code` skips SHADER_OPCODE_UNDEF before anything else.
            if op == Opcode::Undef {
                continue;
            }
            pow.before(&mut e, inst);
            let start = e.out.len();
            let done = match op {
                Opcode::HaltTarget => {
                    halt::expand(&mut e, inst, halts);
                    true
                }
                Opcode::Broadcast => broadcast::expand(&mut e, inst),
                Opcode::PixelX
                | Opcode::PixelY
                | Opcode::DdxCoarse
                | Opcode::DdxFine
                | Opcode::DdyCoarse
                | Opcode::DdyFine => derivatives::expand(&mut e, inst),
                Opcode::FindLiveChannel | Opcode::FindLastLiveChannel => {
                    find_live_channel::expand(&mut e, inst)
                }
                Opcode::Send | Opcode::Sendc | Opcode::Sends | Opcode::Sendsc => {
                    send::expand(&mut e, inst);
                    true
                }
                Opcode::Barrier => barrier::expand(&mut e, inst),
                Opcode::CsTerminate => messages::cs_terminate(&mut e, inst),
                Opcode::Gfx7ScratchRead => messages::gfx7_scratch_read(&mut e, inst),
                Opcode::F16to32 | Opcode::F32to16 if e.shader.target >= eubatch_ir::Gen::Gen8 => {
                    half_float::expand(&mut e, inst)
                }
                Opcode::MemoryFence | Opcode::Interlock => messages::memory_fence(&mut e, inst),
                Opcode::UniformPullConstGfx7 => pull_constant::expand(&mut e, inst),
                Opcode::PackHalf2x16Split => pack_half::expand(&mut e, inst),
                Opcode::Shuffle => shuffle::expand(&mut e, inst),
                Opcode::MovIndirect => mov_indirect::expand(&mut e, inst),
                Opcode::SelExec => moves::sel_exec(&mut e, inst),
                Opcode::ClusterBroadcast => moves::cluster_broadcast(&mut e, inst),
                Opcode::ScratchHeader => scratch_header::expand(&mut e, inst),
                Opcode::Gfx4ScratchWrite if e.shader.target < eubatch_ir::Gen::Gen9 => {
                    scratch_write::expand(&mut e, inst)
                }
                op if one_to_one::kept(op, e.shader, inst) => {
                    e.keep(inst);
                    true
                }
                _ => false,
            };
            if !done {
                missing.insert(op);
                e.out.truncate(start);
                e.keep(inst);
            }
            pow.after(&e, start);
        }
        let out = e.out;
        shader.layout.blocks[block].insts = out;
    }
    if missing.is_empty() {
        Ok(())
    } else {
        Err(NotExpanded::Opcodes(missing.into_iter().collect()))
    }
}

/// Whether an instruction of opcode `op` encodes nothing once expanded: `do` (`brw_DO`
/// emits nothing on gen6+: the loop is its `while`) and `halt_target` (a position; the
/// final `halt` before it is an instruction of its own).
pub fn encodes_nothing(op: Opcode) -> bool {
    matches!(op, Opcode::Do | Opcode::HaltTarget)
}

/// Mesa's `instructions` statistic of expanded code (stats.txt): every instruction but
/// the [`encodes_nothing`] markers and the NOPs the generator inserted (the only NOPs
/// expanded code has).
pub fn final_instruction_count(shader: &Shader) -> usize {
    shader
        .layout
        .insts()
        .filter(|&i| {
            let op = shader.insts.opcode[i];
            !encodes_nothing(op) && op != Opcode::Nop
        })
        .count()
}

/// The instructions Mesa encodes for expanded code (its listing's header): every
/// instruction but the [`encodes_nothing`] markers, NOPs included.
pub fn encoded_instruction_count(shader: &Shader) -> usize {
    shader
        .layout
        .insts()
        .filter(|&i| !encodes_nothing(shader.insts.opcode[i]))
        .count()
}

/// The instructions replacing one block's, being built.
pub(crate) struct Emit<'s> {
    pub shader: &'s mut Shader,
    pub out: Vec<Inst>,
}

impl Emit<'_> {
    /// Keeps `inst` as it is.
    pub fn keep(&mut self, inst: Inst) {
        self.out.push(inst);
    }

    /// Appends a new instruction (its `size_written` the destination's footprint).
    pub fn push(
        &mut self,
        opcode: Opcode,
        control: Control,
        dst: Operand,
        srcs: &[Operand],
        send: Option<SendInfo>,
    ) -> Inst {
        let id = self.shader.create_inst(InstBuilder {
            opcode,
            control,
            dst,
            srcs,
            size_written: 0,
            send,
        });
        let sw = self.shader.default_size_written(id);
        self.shader.insts.size_written[id] = sw;
        self.out.push(id);
        id
    }

    pub fn reg_size(&self) -> u32 {
        self.shader.reg_size()
    }
}

/// The control of a helper instruction Mesa emits with pushed state: `exec_size`
/// channels, NoMask, no predicate, no conditional modifier or saturation, Align1, in the
/// The control, destination, source and index of an instruction that reads `src` at a
/// place its second operand gives (`broadcast`, `shuffle`, `mov_indirect`), when both
/// value operands are general registers: what the address-register expansions start from.
pub(crate) fn indexed(s: &Shader, inst: Inst) -> Option<(Control, Operand, Operand, Operand)> {
    let (ctl, dst) = (s.insts.control[inst], s.insts.dst[inst]);
    let srcs = s.srcs(inst);
    let (&src, &index) = (srcs.first()?, srcs.get(1)?);
    (src.file == RegFile::FixedGrf && dst.file == RegFile::FixedGrf)
        .then_some((ctl, dst, src, index))
}

/// channel group of `of`.
pub(crate) fn no_mask(of: Control, exec_size: u8) -> Control {
    let mut c = Control::new(exec_size);
    c.group = of.group;
    c.set(Control::NO_MASK, true);
    c
}

/// The byte in the register file where fixed-register operand `op` starts.
pub(crate) fn byte_of(op: &Operand, reg_size: u32) -> u32 {
    op.nr * reg_size + op.offset
}

/// `op` moved by `bytes` (a fixed register: the register number absorbs whole registers).
pub(crate) fn byte_offset(op: Operand, bytes: u32, reg_size: u32) -> Operand {
    let at = byte_of(&op, reg_size) + bytes;
    Operand {
        nr: at / reg_size,
        offset: at % reg_size,
        ..op
    }
}

/// `op` with type `ty` (Mesa's `retype`).
pub(crate) fn retype(op: Operand, ty: Type) -> Operand {
    Operand { ty, ..op }
}

/// `op` with region `r` (Mesa's `stride`).
pub(crate) fn with_region(op: Operand, r: Region) -> Operand {
    let mut o = op;
    o.region = Region {
        swizzle: op.region.swizzle,
        ..r
    };
    o.stride = r.hstride;
    o
}

/// The unsigned integer type of `bytes` bytes (`brw_reg_type_from_bit_size(bits, UD)`).
pub(crate) fn unsigned_of_size(bytes: u32) -> Type {
    match bytes {
        1 => Type::UB,
        2 => Type::UW,
        8 => Type::UQ,
        _ => Type::UD,
    }
}

/// Address subregister `a0.{sub}` of type `ty` (`sub` in `ty` units), as a destination of
/// `exec_size` channels (`a0<1>UD`, as the listing reader writes one).
pub(crate) fn address_dst(sub: u32, ty: Type, exec_size: u8) -> Operand {
    let w = exec_size.clamp(1, 8);
    Operand::arf(arf::ADDRESS, sub * ty.size(), ty, Region::new(w, w, 1))
}

/// Address subregister `a0.{sub}` as a scalar source (`a0<0,1,0>UD`).
pub(crate) fn address_src(sub: u32, ty: Type) -> Operand {
    Operand::arf(arf::ADDRESS, sub * ty.size(), ty, Region::new(0, 1, 0))
}

/// The register-file byte at address subregister `a0.{sub}` (16-bit units) plus `imm`,
/// one element (`g[a0.S IMM]<0,1,0>`).
pub(crate) fn indirect_scalar(sub: u32, imm: u32, ty: Type) -> Operand {
    with_region(
        Operand {
            file: RegFile::Indirect,
            nr: sub,
            offset: imm,
            ..Operand::fixed(0, 0, ty, Region::new(0, 1, 0))
        },
        Region::new(0, 1, 0),
    )
}

/// `g[a0]<VxH,1,0>`: one address subregister per channel.
pub(crate) fn indirect_vxh(ty: Type) -> Operand {
    with_region(
        Operand {
            file: RegFile::Indirect,
            nr: 0,
            offset: 0,
            ..Operand::fixed(0, 0, ty, Region::new(0, 1, 0))
        },
        Region::new(Region::VXH, 1, 0),
    )
}

/// A destination written by one channel (`dst<1>`, as the listing reader writes it).
pub(crate) fn scalar_dst(op: Operand) -> Operand {
    let h = op.region.hstride.max(1);
    with_region(op, Region::new(h, 1, h))
}

/// Mesa's `fs_reg::component_size(width)` of a destination: `width * stride` elements
/// (at least one), the stride of a fixed register its horizontal stride; 0 for none.
pub(crate) fn component_size(op: &Operand, width: u32) -> u32 {
    if op.is_bad() {
        return 0;
    }
    let stride = match op.file {
        RegFile::FixedGrf | RegFile::Arf => op.region.hstride as u32,
        _ => op.stride as u32,
    };
    (width * stride).max(1) * op.ty.size()
}

#[cfg(test)]
pub(crate) mod test_util {
    use eubatch_ir::{Opcode, Shader};

    /// A shader in register form from text (a header line, then `block0:` and its
    /// instructions).
    pub fn parse(target: &str, width: u8, stage: &str, body: &str) -> Shader {
        let text = format!(
            "shader \"t\" stage {stage} width {width} target {target} backend scalar\nblock0:\n{body}"
        );
        eubatch_ir::text::parse_shader(&text).unwrap_or_else(|e| panic!("{e}\n{text}"))
    }

    /// The opcodes of the shader's instructions in order.
    pub fn opcodes(s: &Shader) -> Vec<Opcode> {
        s.layout.insts().map(|i| s.insts.opcode[i]).collect()
    }

    /// The shader's instructions printed one a line (without the header).
    pub fn printed(s: &Shader) -> String {
        let text = eubatch_ir::text::print_shader(s);
        text.lines()
            .filter(|l| l.starts_with("    "))
            .map(|l| l.trim())
            .collect::<Vec<_>>()
            .join("\n")
    }
}
