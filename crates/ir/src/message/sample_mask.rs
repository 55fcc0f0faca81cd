//! The sample mask of a fragment shader's messages with side effects: where it lives, which
//! messages take it and how, for the lowering of logical messages and for the simulator,
//! which gives a logical message the meaning its lowered `send` has.
//!
//! Sources: Mesa 22.3 brw_fs.cpp `brw_sample_mask_reg`, `brw_emit_predicate_on_sample_mask`,
//! `lower_surface_logical_send`, `lower_a64_logical_send`, `fs_visitor::run_fs`,
//! `brw_nir_populate_wm_prog_data`; brw_fs.h `sample_mask_flag_subreg`; brw_fs_nir.cpp
//! (`nir_intrinsic_discard*`, `demote*`, `terminate*`); Mesa 25 brw_builder.cpp (the same two
//! functions, unchanged for gen9) and brw_lower_logical_sends.cpp
//! `lower_hdc_memory_logical_send`.
//!
//! - **Why.** Helper invocations (the pixels of a 2x2 subspan that only exist for
//!   derivatives) and discarded pixels run the code, but must not write memory: a message
//!   with side effects acts only on the channels that are enabled *and* in the sample mask,
//!   "the mask of SIMD channels enabled during dispatch and not yet disabled by discard".
//! - **Which messages** ([`surface_takes_it`], [`a64_takes_it`], [`memory_takes_it`]): in a
//!   fragment shader, surface messages whose `SURFACE_LOGICAL_SRC_ALLOW_SAMPLE_MASK` is 1 (Mesa
//!   sets it on writes and atomics); A64 writes and atomics (`has_side_effects`), unless Mesa
//!   23's fourth source `A64_LOGICAL_ENABLE_HELPERS` is set (those are predicated on the
//!   vector mask, `emit_predicate_on_vector_mask`, not here); Mesa 25's `memory_store` and
//!   `memory_atomic` other than scratch (`allow_sample_mask = has_side_effects && mode !=
//!   MEMORY_MODE_SCRATCH`), unless `MEMORY_FLAG_INCLUDE_HELPERS` is set (the vector mask
//!   again). Other stages: every channel (`brw_sample_mask_reg` is `0xffffffff` there).
//! - **Where it lives** ([`in_flag`]): in a shader that discards (Mesa's `uses_kill`), in
//!   the flag Mesa keeps the live pixels in, f1.0 for channels 0-15 and f1.1 for 16-31
//!   (`sample_mask_flag_subreg` is 2 on gen7+, plus `group / 16`); otherwise in the thread
//!   payload's dispatch mask, dword 7 of g1 (channels 0-15) or of g2 (16-31, SIMD32), read
//!   as a UW ([`dispatch_mask`]). `run_fs` initializes the flag from the dispatch mask
//!   (`mov(1) f1.0:UW, g1.7:UW NoMask`, and f1.1 from g2.7 in SIMD32) and each discard
//!   clears the bits of the pixels it kills (a `cmp`/`and` with a conditional modifier on
//!   f1.0, predicated on it).
//! - **How it is applied** ([`Apply`]): without discard, a `mov(1) NoMask` of the dispatch
//!   mask into f1.0 (f1.1 for channels 16-31); then the message is predicated `(+f1.0)`. A
//!   message already predicated `(+f0.0)` (a normal, not inverted predicate on flag
//!   subregister 0) keeps its flag and takes the vertical predicate ALLV instead, which
//!   enables a channel when its bit is set in both f0 and f1 ([`crate::shader::Predicate::
//!   Align1Allv`]); Mesa asserts that no other predicate reaches it, and eubatch leaves
//!   such a message logical. Typed messages before gen9, which have a header anyway, take
//!   the mask in the header's dword 7 instead of a predicate (the mask register moved there:
//!   [`super::typed`]).
//!
//! **How eubatch knows that a shader discards.** Mesa's `uses_kill` (`uses_discard ||
//! uses_demote || emit_alpha_test` of the NIR shader) is not in the back-end IR; what it
//! leaves there is the flag: every discard, demote and alpha test writes f1.0/f1.1 with a
//! conditional modifier, and only then does Mesa's fragment code write that flag (Mesa's
//! other users of f1, `emit_predicate_on_vector_mask` and this sample-mask copy, come with
//! the lowering). So the rule ([`in_flag`]): a fragment shader keeps its sample mask in the
//! flag when an instruction writes f1.0 or f1.1 other than a copy of the dispatch mask into
//! it ([`is_dispatch_mask_copy`]). A shader whose only write to f1 is run_fs's copy of the
//! dispatch mask (Mesa's `uses_kill` with the discard optimized away) has the same mask in
//! g1.7 and in f1.0: eubatch reads g1.7 and copies it, one `mov` more than Mesa. The copies
//! this lowering itself adds do not change the answer, so the simulator asks the same
//! question of a shader lowered in part and gets the same place.

use crate::opcode::Opcode;
use crate::operand::{arf, Operand, RegFile, Region};
use crate::shader::{CondMod, Predicate, Shader, Stage};
use crate::types::Type;
use crate::Inst;

/// The flag subregister of the sample mask of channels 0-15, f1.0 (Mesa
/// `sample_mask_flag_subreg` on gen7+; f1.1 holds channels 16-31).
pub const FLAG_SUBREG: u8 = 2;

/// The payload dword holding the dispatch mask in g1 (channels 0-15) and g2 (16-31).
pub const DISPATCH_MASK_DWORD: u32 = 7;

/// The payload register holding the dispatch mask of the channels from `group` (Mesa
/// `brw_vec1_grf(group >= 16 ? 2 : 1, 7)`).
pub fn dispatch_mask_reg(group: u32) -> u32 {
    if group >= 16 {
        2
    } else {
        1
    }
}

/// The dispatch mask of the 16 channels from `group & !15`, as Mesa reads it: `g1.7` or
/// `g2.7` retyped UW (byte 28, a scalar).
pub fn dispatch_mask(group: u32) -> Operand {
    Operand::fixed(
        dispatch_mask_reg(group),
        4 * DISPATCH_MASK_DWORD,
        Type::UW,
        Region::for_stride(0),
    )
}

/// The flag subregister holding the sample mask of the channels from `group` (`subreg +
/// group / 16`).
pub fn flag_subreg(group: u32) -> u8 {
    FLAG_SUBREG + (group / 16) as u8
}

/// That flag subregister as a UW operand (`brw_flag_subreg`).
pub fn flag(group: u32) -> Operand {
    let subreg = flag_subreg(group) as u32;
    Operand::arf(
        arf::FLAG | (subreg / 2),
        (subreg % 2) * 2,
        Type::UW,
        Region::for_stride(0),
    )
}

/// Whether `inst` is a copy of the dispatch mask into the sample-mask flag: run_fs's
/// `mov(1) f1.0:UW, g1.7:UW NoMask` (f1.1 from g2.7), or the one the lowering adds.
pub fn is_dispatch_mask_copy(shader: &Shader, inst: Inst) -> bool {
    let ctl = shader.insts.control[inst];
    let dst = shader.insts.dst[inst];
    let [src] = shader.srcs(inst) else {
        return false;
    };
    let plain = shader.insts.opcode[inst] == Opcode::Mov
        && ctl.exec_size == 1
        && ctl.no_mask()
        && ctl.predicate == Predicate::None
        && ctl.cmod == CondMod::None
        && !ctl.saturate();
    let group = |f: &Operand| {
        (f.file == RegFile::Arf
            && f.nr == arf::FLAG | 1
            && f.ty.size() == 2
            && f.offset.is_multiple_of(2))
        .then_some(8 * f.offset)
    };
    plain
        && group(&dst).is_some_and(|g| {
            let want = dispatch_mask(g);
            src.file == want.file
                && src.nr == want.nr
                && src.offset == want.offset
                && src.ty.size() == 2
                && src.region.vstride == 0
                && src.region.hstride == 0
                && src.mods == crate::operand::Mods::NONE
        })
}

/// Whether `inst` writes a bit of f1.0 or f1.1: a destination in f1, or a conditional
/// modifier whose flag bits (flag subregister × 16 + the instruction's channels) reach it.
fn writes_f1(shader: &Shader, inst: Inst) -> bool {
    let ctl = shader.insts.control[inst];
    let dst = shader.insts.dst[inst];
    let op = shader.insts.opcode[inst];
    let dst_in_f1 = dst.file == RegFile::Arf && dst.nr & 0xf0 == arf::FLAG && {
        // Flag bytes written: f0 is bytes 0-3, f1 bytes 4-7.
        let first = 4 * (dst.nr & 0xf) + dst.offset;
        let end = first + dst.span(ctl.exec_size as u32).max(1);
        end > 4
    };
    let cmod_in_f1 = ctl.cmod != CondMod::None && !matches!(op, Opcode::Sel | Opcode::Csel) && {
        let first = ctl.flag_subreg as u32 * 16 + ctl.group as u32;
        first + ctl.exec_size as u32 > 32
    };
    dst_in_f1 || cmod_in_f1
}

/// Whether the fragment shader `shader` keeps its sample mask in the flag f1 (it
/// discards: see the module doc for the rule), not in the payload's dispatch mask.
pub fn in_flag(shader: &Shader) -> bool {
    shader.stage == Stage::Fs
        && shader
            .layout
            .insts()
            .any(|i| writes_f1(shader, i) && !is_dispatch_mask_copy(shader, i))
}

/// Whether a surface message (Mesa 22.3's surface opcodes) of a `stage` shader takes the
/// sample mask: a fragment shader's, with `ALLOW_SAMPLE_MASK` set.
pub fn surface_takes_it(stage: Stage, allow_sample_mask: bool) -> bool {
    stage == Stage::Fs && allow_sample_mask
}

/// Whether an A64 message (Mesa 22.3's A64 opcodes) of a `stage` shader takes the sample
/// mask: a fragment shader's write or atomic (`has_side_effects`), without Mesa 23's
/// `ENABLE_HELPERS` (`srcs[3]`, absent from Mesa 22.3's dumps) set.
pub fn a64_takes_it(stage: Stage, side_effects: bool, srcs: &[Operand]) -> bool {
    stage == Stage::Fs && side_effects && !a64_enables_helpers(srcs)
}

/// Whether an A64 message has Mesa 23's `A64_LOGICAL_ENABLE_HELPERS` source set (any other
/// value than an immediate 0): it is predicated on the vector mask instead.
pub fn a64_enables_helpers(srcs: &[Operand]) -> bool {
    srcs.get(3)
        .is_some_and(|s| !(s.is_bad() || s.file == RegFile::Imm && s.imm_bits() == 0))
}

/// `MEMORY_FLAG_INCLUDE_HELPERS` of Mesa 25's `enum memory_flags`.
pub const MEMORY_FLAG_INCLUDE_HELPERS: u32 = 2;

/// Whether a Mesa 25 memory message of opcode `op` and sources `srcs` (`enum
/// memory_logical_srcs`) of a `stage` shader takes the sample mask: a fragment shader's
/// store or atomic not to scratch, without `MEMORY_FLAG_INCLUDE_HELPERS`.
pub fn memory_takes_it(stage: Stage, op: Opcode, srcs: &[Operand]) -> bool {
    use super::memory::{src, MODE_SCRATCH};
    let imm = |k: usize| {
        srcs.get(k)
            .filter(|s| s.file == RegFile::Imm)
            .map(|s| s.imm_bits() as u32)
    };
    stage == Stage::Fs
        && op != Opcode::MemoryLoadLogical
        && imm(src::MODE) != Some(MODE_SCRATCH)
        && !memory_includes_helpers(srcs)
}

/// Whether a Mesa 25 memory message has `MEMORY_FLAG_INCLUDE_HELPERS` set (or flags that
/// are not an immediate).
pub fn memory_includes_helpers(srcs: &[Operand]) -> bool {
    use super::memory::src;
    srcs.get(src::FLAGS).is_none_or(|s| {
        s.file != RegFile::Imm || s.imm_bits() as u32 & MEMORY_FLAG_INCLUDE_HELPERS != 0
    })
}

/// Whether logical message `inst` acts only on the pixels in the sample mask (a surface,
/// A64 or Mesa 25 memory message that takes it: [`surface_takes_it`], [`a64_takes_it`],
/// [`memory_takes_it`]): it then writes its destination in those channels only, as the
/// predicated `send` it is lowered to does, and analyses must take the write as partial.
pub fn takes_it(shader: &Shader, inst: Inst) -> bool {
    let op = shader.insts.opcode[inst];
    if shader.stage != Stage::Fs || !op.is_message() {
        return false;
    }
    let srcs = shader.srcs(inst);
    if super::surface::logical_shape(op, srcs).is_some()
        || super::atomic::logical(op, srcs, true).is_some()
    {
        return srcs
            .get(super::surface::src::ALLOW_SAMPLE_MASK)
            .is_some_and(|s| !(s.file == RegFile::Imm && s.imm_bits() == 0));
    }
    let dst = shader.insts.dst[inst];
    if let Some(m) = super::a64::logical(op, srcs, !dst.is_null() && !dst.is_bad()) {
        return a64_takes_it(shader.stage, m.has_side_effects(), srcs);
    }
    matches!(op, Opcode::MemoryStoreLogical | Opcode::MemoryAtomicLogical)
        && memory_takes_it(shader.stage, op, srcs)
}

/// How a message is put under the sample mask (`brw_emit_predicate_on_sample_mask`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Apply {
    /// The register to copy into [`flag`] first (`mov(1) NoMask`), when the shader does
    /// not discard: the dispatch mask.
    pub copy: Option<Operand>,
    /// The message's predicate and flag subregister afterwards.
    pub predicate: Predicate,
    pub flag_subreg: u8,
}

/// How the message of channels from `group` with the predicate `pred` (inverted:
/// `invert`, on flag subregister `pred_flag`) is put under the sample mask of a shader that
/// keeps it in the flag (`in_flag`) or not; an error for what Mesa asserts against (a
/// predicate other than a normal one on f0.0, not inverted).
pub fn apply(
    in_flag: bool,
    group: u32,
    pred: Predicate,
    invert: bool,
    pred_flag: u8,
) -> Result<Apply, String> {
    let copy = (!in_flag).then(|| dispatch_mask(group));
    match pred {
        Predicate::None => Ok(Apply {
            copy,
            predicate: Predicate::Normal,
            flag_subreg: FLAG_SUBREG,
        }),
        Predicate::Normal if !invert && pred_flag == 0 => Ok(Apply {
            copy,
            predicate: Predicate::Align1Allv,
            flag_subreg: 0,
        }),
        _ => Err(format!(
            "a fragment-shader message under the sample mask already predicated \
             ({}f{}.{}{}): Mesa combines only a normal predicate on f0.0 with it \
             (brw_emit_predicate_on_sample_mask)",
            if invert { '-' } else { '+' },
            pred_flag / 2,
            pred_flag % 2,
            pred.suffix()
        )),
    }
}
