//! Mesa 25's subgroup operations as its back end lowers them (brw_lower_subgroup_ops.cpp):
//! the operations `reduce` and the scans take, each one's identity per type, the steps
//! of `brw_emit_scan` in Mesa's order, and the rules that fix the lowered code's widths,
//! types and predicates (the flag fill's type, a vote's group predicate, when a reduction
//! ends in moves rather than `cluster_broadcast`, which types a scan step takes whole).
//! The simulator's model of the opcodes and the lowering pass both follow these, so that
//! a float sum rounds the same in both.

use crate::shader::{CondMod, Predicate};
use crate::target::Target;
use crate::{Opcode, Type};

/// Mesa's `brw_reduce_op` (brw_eu_defines.h), as `reduce` and the scans take it in src1.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ReduceOp {
    Add,
    Mul,
    Min,
    Max,
    And,
    Or,
    Xor,
}

impl ReduceOp {
    pub fn from_imm(v: u64) -> Option<ReduceOp> {
        use ReduceOp::*;
        [Add, Mul, Min, Max, And, Or, Xor].get(v as usize).copied()
    }

    /// The instruction each scan step is (brw_get_reduction_info): min and max are `sel`
    /// with `.l` and `.ge`.
    pub fn alu(self) -> (Opcode, CondMod) {
        match self {
            ReduceOp::Add => (Opcode::Add, CondMod::None),
            ReduceOp::Mul => (Opcode::Mul, CondMod::None),
            ReduceOp::And => (Opcode::And, CondMod::None),
            ReduceOp::Or => (Opcode::Or, CondMod::None),
            ReduceOp::Xor => (Opcode::Xor, CondMod::None),
            ReduceOp::Min => (Opcode::Sel, CondMod::L),
            ReduceOp::Max => (Opcode::Sel, CondMod::Ge),
        }
    }
}

pub fn is_signed(ty: Type) -> bool {
    matches!(ty, Type::B | Type::W | Type::D | Type::Q)
}

/// The identity of `op` on `ty` as bits of `ty` (brw_get_reduction_info): 0 for add, or,
/// xor and an unsigned max; all ones for and and an unsigned min; 1 (1.0) for mul; the
/// type's largest (+inf) for a signed (float) min and its smallest (-inf) for a max.
pub fn identity(op: ReduceOp, ty: Type) -> u64 {
    let bits = ty.size() * 8;
    let ones = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    // 1.0, +inf and -inf in the float type's bits.
    let (one, inf) = match ty {
        Type::HF => (0x3c00, 0x7c00),
        Type::DF => (0x3ff0_0000_0000_0000, 0x7ff0_0000_0000_0000),
        _ => (0x3f80_0000, 0x7f80_0000),
    };
    let sign = 1u64 << (bits - 1);
    match op {
        ReduceOp::Add | ReduceOp::Or | ReduceOp::Xor => 0,
        ReduceOp::And => ones,
        ReduceOp::Mul if ty.is_float() => one,
        ReduceOp::Mul => 1,
        ReduceOp::Min if ty.is_float() => inf,
        ReduceOp::Max if ty.is_float() => inf | sign,
        ReduceOp::Min if is_signed(ty) => ones >> 1,
        ReduceOp::Min => ones,
        ReduceOp::Max if is_signed(ty) => sign,
        ReduceOp::Max => 0,
    }
}

/// One step of `brw_emit_scan_step`: for each of `width` channels c, element
/// `right + c * right_stride` becomes `op(element left + c * left_stride, itself)`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ScanStep {
    pub width: u32,
    pub left: u32,
    pub left_stride: u32,
    pub right: u32,
    pub right_stride: u32,
}

/// The steps of Mesa 25's `brw_emit_scan` for `width` channels of `size`-byte elements in
/// clusters of `cluster`, in order, with element indices counted from the scanned value's
/// first (a half scanned on its own is offset by its first channel).
pub fn scan_steps(width: u32, size: u32, cluster: u32) -> Vec<ScanStep> {
    let mut steps = Vec::new();
    for_each_scan_step(width, size, cluster, &mut |s| steps.push(s));
    steps
}

/// [`scan_steps`] handed to `f` one by one, in order, without collecting them. Each step
/// is one instruction of `width` channels from channel 0 with the execution mask off
/// (`bld.exec_all().group(n, 0)` for every step in `brw_emit_scan`): the scratch register
/// is written in dead channels too, which hold the identity.
pub fn for_each_scan_step(width: u32, size: u32, cluster: u32, f: &mut impl FnMut(ScanStep)) {
    emit_scan(f, 0, width, size, cluster);
}

fn emit_scan(f: &mut impl FnMut(ScanStep), base: u32, width: u32, size: u32, cluster: u32) {
    let mut step = |w: u32, l: u32, ls: u32, r: u32, rs: u32| {
        f(ScanStep {
            width: w,
            left: base + l,
            left_stride: ls,
            right: base + r,
            right_stride: rs,
        })
    };
    // Wider than two registers: each half on its own, then the last of the first half
    // into every channel of the second (`dispatch_width * size > 2 * REG_SIZE`).
    if width * size > 64 {
        let half = width / 2;
        emit_scan(f, base, half, size, cluster);
        emit_scan(f, base + half, half, size, cluster);
        if cluster > half {
            f(ScanStep {
                width: half,
                left: base + half - 1,
                left_stride: 0,
                right: base + half,
                right_stride: 1,
            });
        }
        return;
    }
    if cluster > 1 {
        step(width / 2, 0, 2, 1, 2);
    }
    if cluster > 2 {
        if size <= 4 {
            step(width / 4, 1, 4, 2, 4);
            step(width / 4, 1, 4, 3, 4);
        } else {
            let mut i = 0;
            while i < width {
                step(2, i + 1, 0, i + 2, 1);
                i += 4;
            }
        }
    }
    let mut i = 4;
    while i < cluster.min(width) {
        step(i, i - 1, 0, i, 1);
        if width > i * 2 {
            step(i, i * 3 - 1, 0, i * 3, 1);
        }
        if width > i * 4 {
            step(i, i * 5 - 1, 0, i * 5, 1);
            step(i, i * 7 - 1, 0, i * 7, 1);
        }
        i *= 2;
    }
}

/// Whether a scan step of `op` on `ty` is the one instruction [`ReduceOp::alu`] names:
/// so for every type of at most 4 bytes, floats and 64-bit add, and/or/xor; a 64-bit
/// integer min, max or mul on a target without native 64-bit integers is a compare
/// sequence or a split multiply instead (`brw_emit_scan_step`: `!has_64bit_int ||
/// ver >= 20`), which the lowering does not write.
pub fn scan_step_is_one_instruction(op: ReduceOp, ty: Type, target: &Target) -> bool {
    let q = matches!(ty, Type::Q | Type::UQ);
    !q || target.has_64bit_int || !matches!(op, ReduceOp::Min | ReduceOp::Max | ReduceOp::Mul)
}

/// The type `brw_fill_flag` moves its value into f0.0 as: UD at SIMD32, so that one
/// `mov(1)` fills f0.0 and f0.1, UW (f0.0 alone) below.
pub fn flag_fill_type(dispatch_width: u32) -> Type {
    if dispatch_width == 32 {
        Type::UD
    } else {
        Type::UW
    }
}

/// The predicate a vote over the whole dispatch reads the flag with before Xe2
/// (`brw_lower_dispatch_width_vote`): ANY8H/16H/32H or ALL8H/16H/32H of the dispatch
/// width. `None` for another width.
pub fn dispatch_vote_predicate(any: bool, dispatch_width: u32) -> Option<Predicate> {
    Some(match (any, dispatch_width) {
        (true, 8) => Predicate::Align1Any8h,
        (true, 16) => Predicate::Align1Any16h,
        (true, 32) => Predicate::Align1Any32h,
        (false, 8) => Predicate::Align1All8h,
        (false, 16) => Predicate::Align1All16h,
        (false, 32) => Predicate::Align1All32h,
        _ => return None,
    })
}

/// The predicate of gen9's quad vote (`brw_lower_quad_vote_gfx9`): ANY4H or ALL4H, which
/// Align1 encodes as Align16's (6 and 7).
pub fn quad_vote_predicate(any: bool) -> Predicate {
    if any {
        Predicate::Align16Any4h
    } else {
        Predicate::Align16All4h
    }
}

/// How `brw_lower_reduce` moves each cluster's result out of the scanned register at
/// dispatch width `width`: where a cluster of `size`-byte elements spans two registers
/// or more (`cluster_size * size >= 2 * REG_SIZE`), `Some(groups)`: one plain `mov` per
/// group of `width / groups` channels, `groups = width * size / (2 * REG_SIZE)`, of its
/// cluster's last element; otherwise `None`: one `cluster_broadcast dst, scan,
/// cluster - 1, cluster` (whose region `<0;cluster,0>`-style stride the generator
/// writes, brw_generator.cpp SHADER_OPCODE_CLUSTER_BROADCAST).
pub fn reduce_result_groups(width: u32, size: u32, cluster: u32, reg_size: u32) -> Option<u32> {
    (cluster * size >= 2 * reg_size).then(|| (width * size / (2 * reg_size)).max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Mesa's SIMD8 inclusive scan of dwords: the pairs, the quads (two steps), then the
    /// upper half from channel 3.
    #[test]
    fn scan_steps_follow_brw_emit_scan() {
        let s = |width, left, left_stride, right, right_stride| ScanStep {
            width,
            left,
            left_stride,
            right,
            right_stride,
        };
        assert_eq!(
            scan_steps(8, 4, 8),
            [
                s(4, 0, 2, 1, 2),
                s(2, 1, 4, 2, 4),
                s(2, 1, 4, 3, 4),
                s(4, 3, 0, 4, 1)
            ]
        );
        // SIMD32 dwords: two SIMD16 halves, then channel 15 into 16..31.
        let st = scan_steps(32, 4, 32);
        assert_eq!(st.last(), Some(&s(16, 15, 0, 16, 1)));
        assert_eq!(st.len(), 2 * 6 + 1);
        // Clusters of 4 stop after the quads.
        assert_eq!(scan_steps(16, 4, 4).len(), 3);
    }

    #[test]
    fn identities_per_operation_and_type() {
        assert_eq!(identity(ReduceOp::Min, Type::D), 0x7fff_ffff);
        assert_eq!(identity(ReduceOp::Min, Type::UD), 0xffff_ffff);
        assert_eq!(identity(ReduceOp::Max, Type::D), 0x8000_0000);
        assert_eq!(identity(ReduceOp::Max, Type::UD), 0);
        assert_eq!(
            identity(ReduceOp::Min, Type::F),
            f32::INFINITY.to_bits() as u64
        );
        assert_eq!(
            identity(ReduceOp::Max, Type::F),
            f32::NEG_INFINITY.to_bits() as u64
        );
        assert_eq!(identity(ReduceOp::Mul, Type::F), 1f32.to_bits() as u64);
        assert_eq!(identity(ReduceOp::Mul, Type::UQ), 1);
        assert_eq!(identity(ReduceOp::And, Type::UW), 0xffff);
        assert_eq!(identity(ReduceOp::Max, Type::Q), 1 << 63);
        assert_eq!(identity(ReduceOp::Xor, Type::DF), 0);
    }
}
