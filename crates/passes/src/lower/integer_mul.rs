//! 32-bit integer multiplication on targets without a dword multiply (gen7 and gen7.5:
//! [`eubatch_ir::target::Target::has_integer_dword_mul`]). The hardware multiplies a dword
//! by a word, so `mul dst:D, a:D, b:D` becomes two 32x16-bit products and one add of the
//! high product's low half into the low product's high half (Mesa: brw_fs.cpp
//! `lower_mul_dword_inst`):
//!
//! ```text
//! mul(8) low:D, a:D, b<2>:UW        (b's low word)
//! mul(8) high:D, a:D, b+2<2>:UW     (b's high word)
//! add(8) low+2<2>:UW, low+2<2>:UW, high<2>:UW
//! ```
//!
//! which is `a * b` modulo 2^32. A multiplier that is an immediate fitting a word (signed or
//! not) needs only `mul dst, a, imm:UW` (or `:W`). The low product goes straight into the
//! destination unless that overlaps a source; then a move copies it, carrying any
//! conditional modifier.
//!
//! Rules that limit it: both sources 32-bit integers (a word source is native); the
//! destination a 32-bit integer VGRF region of stride one; not predicated or saturated; a
//! second source with a modifier, or that is not a VGRF, push constant or input region, is
//! first copied into a VGRF (its words must be addressable with the modifier applied).
//!
//! On every target, `mulh` (the high dword of a 32x32-bit product) becomes a multiply by
//! the low word into the accumulator and a `mach`, which adds the product of the high word
//! and returns the high dword (Mesa: brw_fs.cpp `lower_mulh_inst`):
//!
//! ```text
//! mul(8) acc0:D, a:D, b<2>:UW
//! mach(8) dst:D, a:D, b:D
//! ```
//!
//! Gen8+ multiplies all 32 bits of each source, so the low word is named (`:UW`, stride
//! two); gen7 reads only the low word of the second source anyway, and eubatch names it
//! there too (Mesa leaves `:D`), so one form serves all targets. The accumulator is eight
//! 32-bit channels wide: the SIMD-width rule splits `mulh` to SIMD8 first
//! ([`eubatch_ir::width_rules`], "mulh through the accumulator"). A second source with a modifier is
//! copied first (BDW+ PRM "MACH": "an added preliminary mov is required for source
//! modification on src1").

use eubatch_ir::shader::{CondMod, Predicate};
use eubatch_ir::{
    Builder, Control, Inst, Mods, Opcode, Operand, RegFile, Shader, Type, VgrfLayout,
};

use crate::analysis::changed::Changed;
use crate::PassCx;

/// Scalar code: operands read as Align1 regions.
pub const SCOPE: crate::manager::Scope = crate::manager::Scope::SCALAR;

pub fn run(shader: &mut Shader, cx: &mut PassCx) -> Changed {
    // It runs once per pipeline: whatever it changed, every analysis is dropped.
    Changed::when(lower_all(shader, cx), Changed::EVERYTHING)
}

fn lower_all(shader: &mut Shader, _cx: &mut PassCx) -> bool {
    let dword_mul = shader.target.target().has_integer_dword_mul;
    super::replace_all(shader, |shader, inst| match shader.insts.opcode[inst] {
        Opcode::Mul if !dword_mul => lower(shader, inst),
        Opcode::Mulh => lower_mulh(shader, inst),
        _ => None,
    })
}

fn is_dword_int(ty: Type) -> bool {
    matches!(ty, Type::D | Type::UD)
}

/// The 16-bit half `k` of a 32-bit operand, as a word region.
fn word(op: Operand, k: u32) -> Operand {
    Operand {
        ty: Type::UW,
        offset: op.offset + 2 * k,
        stride: op.stride * 2,
        ..op
    }
}

fn lower(shader: &mut Shader, inst: Inst) -> Option<Vec<Inst>> {
    let ctl = shader.insts.control[inst];
    let dst = shader.insts.dst[inst];
    let srcs = shader.srcs(inst).to_vec();
    if shader.insts.opcode[inst] != Opcode::Mul
        || srcs.len() != 2
        || !is_dword_int(dst.ty)
        || !is_dword_int(srcs[0].ty)
        || !is_dword_int(srcs[1].ty)
        || dst.file != RegFile::Vgrf
        || dst.stride != 1
        || ctl.predicate != Predicate::None
        || ctl.saturate()
    {
        return None;
    }
    let (a, mut b) = (srcs[0], srcs[1]);
    let exec = ctl.exec_size as u32;
    let mut out = Vec::new();
    let mul_ctl = Control {
        cmod: CondMod::None,
        ..ctl
    };
    // A multiplier that fits a word: one dword-by-word multiply.
    if b.file == RegFile::Imm {
        let v = b.imm_bits() as u32 as i32;
        if (i16::MIN as i32..=u16::MAX as i32).contains(&v) {
            let imm = if v >= 0 {
                Operand::imm(Type::UW, v as u64)
            } else {
                Operand::imm(Type::W, (v as i16 as u16) as u64)
            };
            shader.srcs_mut(inst)[1] = imm;
            return Some(vec![inst]);
        }
    }
    let new_vgrf = |shader: &mut Shader| {
        shader
            .vgrfs
            .push(VgrfLayout {
                components: 1,
                data: (exec * 4) as u16,
                padding: 0,
            })
            .index() as u32
    };
    // The multiplier's words must be readable as they are.
    let addressable = b.mods == Mods::NONE
        && matches!(b.file, RegFile::Vgrf | RegFile::Uniform | RegFile::Attr)
        && b.stride <= 1;
    if b.file != RegFile::Imm && !addressable {
        let tmp = Operand::vgrf(new_vgrf(shader), 0, b.ty, 1);
        out.push(Builder::with_control(mul_ctl).mov(shader, tmp, b));
        b = tmp;
    }
    let (b_lo, b_hi) = if b.file == RegFile::Imm {
        let v = b.imm_bits() as u32;
        (
            Operand::imm(Type::UW, (v & 0xffff) as u64),
            Operand::imm(Type::UW, (v >> 16) as u64),
        )
    } else {
        (word(b, 0), word(b, 1))
    };
    let overlaps = |s: &Operand| {
        s.file == RegFile::Vgrf
            && s.nr == dst.nr
            && s.offset < dst.offset + exec * 4
            && dst.offset < s.offset + s.span(exec)
    };
    let in_place = !overlaps(&a) && !overlaps(&b);
    let low = if in_place {
        dst
    } else {
        Operand::vgrf(new_vgrf(shader), 0, dst.ty, 1)
    };
    let high = Operand::vgrf(new_vgrf(shader), 0, dst.ty, 1);
    out.push(Builder::with_control(mul_ctl).mul(shader, low, a, b_lo));
    out.push(Builder::with_control(mul_ctl).mul(shader, high, a, b_hi));
    let low_hi = word(low, 1);
    out.push(Builder::with_control(mul_ctl).add(shader, low_hi, low_hi, word(high, 0)));
    if !in_place || ctl.cmod != CondMod::None {
        let mov_ctl = Control {
            cmod: ctl.cmod,
            ..ctl
        };
        out.push(Builder::with_control(mov_ctl).mov(shader, dst, low));
    }
    Some(out)
}

/// `mulh dst, a, b` -> `mul acc0, a, b.lo; mach dst, a, b` (see the module doc).
fn lower_mulh(shader: &mut Shader, inst: Inst) -> Option<Vec<Inst>> {
    let ctl = shader.insts.control[inst];
    let dst = shader.insts.dst[inst];
    let srcs = shader.srcs(inst).to_vec();
    if srcs.len() != 2
        || !is_dword_int(dst.ty)
        || !is_dword_int(srcs[0].ty)
        || !is_dword_int(srcs[1].ty)
        || ctl.exec_size > 8
        || ctl.saturate()
    {
        return None;
    }
    let (a, mut b) = (srcs[0], srcs[1]);
    let exec = ctl.exec_size as u32;
    let mut out = Vec::new();
    let plain = Control {
        cmod: CondMod::None,
        predicate: Predicate::None,
        ..ctl
    };
    let plain = {
        let mut c = plain;
        c.set(Control::PRED_INVERT, false);
        c
    };
    let addressable = b.mods == Mods::NONE
        && matches!(
            b.file,
            RegFile::Imm | RegFile::Vgrf | RegFile::Uniform | RegFile::Attr
        )
        && b.stride <= 1;
    if !addressable {
        let tmp = shader.vgrfs.push(VgrfLayout::flat(exec * 4)).index() as u32;
        let tmp = Operand::vgrf(tmp, 0, b.ty, 1);
        out.push(Builder::with_control(plain).mov(shader, tmp, b));
        b = tmp;
    }
    let b_lo = if b.file == RegFile::Imm {
        Operand::imm(Type::UW, b.imm_bits() & 0xffff)
    } else {
        word(b, 0)
    };
    let acc = Operand::arf(
        eubatch_ir::operand::arf::ACCUMULATOR,
        0,
        dst.ty,
        eubatch_ir::Region::new(8, 8, 1),
    );
    out.push(Builder::with_control(plain).mul(shader, acc, a, b_lo));
    // `mach` writes what the `mul` it replaces wrote.
    let size_written = shader.insts.size_written[inst];
    out.push(Builder::with_control(ctl).alu_sized(
        shader,
        Opcode::Mach,
        dst,
        &[a, b],
        size_written,
    ));
    Some(out)
}
