//! Mesa 25's subgroup operations as its back end lowers them (brw_lower_subgroup_ops.cpp):
//! the operations `reduce` and the scans take, each one's identity per type, and the steps
//! of `brw_emit_scan` in Mesa's order. The simulator's model of the opcodes and the
//! lowering pass both follow these, so that a float sum rounds the same in both.

use crate::shader::CondMod;
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
    emit_scan(&mut steps, 0, width, size, cluster);
    steps
}

fn emit_scan(steps: &mut Vec<ScanStep>, base: u32, width: u32, size: u32, cluster: u32) {
    let mut step = |w: u32, l: u32, ls: u32, r: u32, rs: u32| {
        steps.push(ScanStep {
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
        emit_scan(steps, base, half, size, cluster);
        emit_scan(steps, base + half, half, size, cluster);
        if cluster > half {
            steps.push(ScanStep {
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
