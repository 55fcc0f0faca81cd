//! What each ALU opcode computes, per channel, on [`Value`]s.
//!
//! Definitions (one each, used everywhere):
//! * float arithmetic is done in `f64` and rounded once to the destination type; `mad`
//!   (`src0 + src1 * src2`) is fused for every float type;
//! * math-box functions (rcp, rsq, sqrt, exp2, log2, pow, sin, cos) are the `f64` functions of
//!   Rust's standard library rounded to the destination: the hardware's precision is
//!   implementation-defined (PRM Vol. 7 "Math Function"), this is eubatch's definition;
//! * min/max (`sel.l`, `sel.ge`) return the other operand when one is NaN (PRM "SEL");
//! * compares with a NaN are false, except `nz` and `u`;
//! * integer division by zero gives all ones for the quotient and the dividend for the
//!   remainder;
//! * a float operation with a NaN operand gives that NaN, unchanged; of several NaN
//!   operands, the one with the greatest bits (so that commuting `add`, `mul` or `mad`'s
//!   operands, as Mesa and eubatch do, changes nothing, and `x * 1.0` is `x` bit for bit);
//!   a NaN computed from numbers (`inf - inf`, `frc(inf)`) is the default quiet NaN
//!   (`0x7fc00000` as F). Which payload the hardware passes on is not modelled beyond this.

use eubatch_ir::shader::CondMod;
use eubatch_ir::{Opcode, Type};

use crate::value::Value;

/// Evaluates a conditional modifier comparing `a` with `b`: integers exactly, floats with
/// NaN unordered.
pub fn compare(cm: CondMod, a: Value, b: Value) -> bool {
    use std::cmp::Ordering::{Equal, Greater, Less};
    let ord = match (a, b) {
        (Value::Int(x), Value::Int(y)) => Some(x.cmp(&y)),
        _ => a.as_f64().partial_cmp(&b.as_f64()),
    };
    match cm {
        CondMod::Z => ord == Some(Equal),
        CondMod::Nz => ord != Some(Equal),
        CondMod::G => ord == Some(Greater),
        CondMod::Ge => matches!(ord, Some(Greater | Equal)),
        CondMod::L => ord == Some(Less),
        CondMod::Le => matches!(ord, Some(Less | Equal)),
        CondMod::O => ord.is_some(),
        CondMod::U => ord.is_none(),
        CondMod::None => false,
    }
}

fn float_domain(tys: &[Type]) -> bool {
    tys.iter().any(|t| t.is_float())
}

fn bits_of(v: Value, ty: Type) -> u64 {
    crate::value::encode(ty, v, false)
}

/// Computes one channel of `op`. `s` holds the source values, `tys` their types.
/// `Err` names what is not modelled.
pub fn eval(op: Opcode, cmod: CondMod, s: &[Value], tys: &[Type]) -> Result<Value, String> {
    use Opcode::*;
    if let Some(n) = op.alu_arity() {
        if s.len() < n || tys.len() < n {
            return Err(format!(
                "`{}` with {} sources ({n} expected)",
                op.name(),
                s.len()
            ));
        }
    }
    let f = float_domain(tys);
    let fl = |i: usize| s[i].as_f64();
    let int = |i: usize| s[i].as_i128();
    let v = compute(op, cmod, s, tys, f, fl, int)?;
    Ok(match v {
        Value::Float(x) if x.is_nan() && !matches!(op, Mov | Dim | MovForScratch | Sel | Csel) => s
            .iter()
            .filter_map(|v| match *v {
                Value::Float(n) if n.is_nan() => Some(n),
                _ => None,
            })
            .max_by_key(|n| n.to_bits())
            .map_or(Value::Float(f64::NAN), Value::Float),
        v => v,
    })
}

fn compute(
    op: Opcode,
    cmod: CondMod,
    s: &[Value],
    tys: &[Type],
    f: bool,
    fl: impl Fn(usize) -> f64,
    int: impl Fn(usize) -> i128,
) -> Result<Value, String> {
    use Opcode::*;
    Ok(match op {
        // Haswell's DIM (PRM Vol. 2a "DIM"): a 64-bit immediate moved whole, where `mov` can
        // take no DF immediate (Mesa brw_fs_nir.cpp `setup_imm_df`).
        // The vec4 back end's VEC4_OPCODE_MOV_FOR_SCRATCH: a `mov` the optimizer leaves
        // alone (Mesa brw_vec4_generator.cpp emits it as `brw_MOV`).
        Mov | Dim | MovForScratch => s[0],
        Add if f => Value::Float(fl(0) + fl(1)),
        Add => Value::Int(int(0) + int(1)),
        Mul if f => Value::Float(fl(0) * fl(1)),
        Mul => Value::Int(int(0).wrapping_mul(int(1))),
        Mad if f => Value::Float(fl(1).mul_add(fl(2), fl(0))),
        Mad => Value::Int(int(0).wrapping_add(int(1).wrapping_mul(int(2)))),
        Lrp => Value::Float(fl(0) * fl(1) + (1.0 - fl(0)) * fl(2)),
        Avg => Value::Int((int(0) + int(1) + 1) >> 1),
        Mulh => Value::Int((int(0) * int(1)) >> 32),
        Frc => Value::Float(fl(0) - fl(0).floor()),
        Rndd => Value::Float(fl(0).floor()),
        Rndu => Value::Float(fl(0).ceil()),
        Rndz => Value::Float(fl(0).trunc()),
        Rnde => Value::Float(fl(0).round_ties_even()),
        Rcp => Value::Float(1.0 / fl(0)),
        Rsq => Value::Float(1.0 / fl(0).sqrt()),
        Sqrt => Value::Float(fl(0).sqrt()),
        Exp2 => Value::Float(fl(0).exp2()),
        Log2 => Value::Float(fl(0).log2()),
        Pow => Value::Float(fl(0).powf(fl(1))),
        Sin => Value::Float(fl(0).sin()),
        Cos => Value::Float(fl(0).cos()),
        IntQuot => Value::Int(if int(1) == 0 { -1 } else { int(0) / int(1) }),
        IntRem => Value::Int(if int(1) == 0 { int(0) } else { int(0) % int(1) }),
        Not => Value::Int(!int(0)),
        And => Value::Int(int(0) & int(1)),
        Or => Value::Int(int(0) | int(1)),
        Xor => Value::Int(int(0) ^ int(1)),
        Shl | Shr | Asr => {
            let width = (tys[0].size() * 8).max(32);
            let sh = (int(1) as u32) & (width - 1);
            let bits = bits_of(s[0], tys[0]) as u128;
            let mask = if width == 64 {
                u64::MAX as u128
            } else {
                (1u128 << width) - 1
            };
            match op {
                Shl => Value::Int(((bits << sh) & mask) as i128),
                Shr => Value::Int(((bits & mask) >> sh) as i128),
                _ => Value::Int(int(0) >> sh),
            }
        }
        Cbit => Value::Int(bits_of(s[0], tys[0]).count_ones() as i128),
        Fbl => {
            let b = bits_of(s[0], tys[0]);
            Value::Int(if b == 0 {
                -1
            } else {
                b.trailing_zeros() as i128
            })
        }
        Lzd => Value::Int((bits_of(s[0], tys[0]) as u32).leading_zeros() as i128),
        // FBH (PRM Vol. 2a "fbh"): the first 1 bit counted from the MSB (bit 31 is 0) of an
        // unsigned source, the first bit that differs from the sign bit of a signed one;
        // all ones where there is none (0, and -1 when signed). NIR's ufind_msb and
        // ifind_msb lower to it (brw_fs_nir.cpp).
        Fbh => {
            let b = bits_of(s[0], tys[0]) as u32;
            let b = if tys[0].is_signed_int() && (b as i32) < 0 {
                !b
            } else {
                b
            };
            Value::Int(if b == 0 {
                -1
            } else {
                b.leading_zeros() as i128
            })
        }
        Bfrev => Value::Int((bits_of(s[0], tys[0]) as u32).reverse_bits() as i128),
        Sel => {
            // Only min/max reach here; predicated sel is resolved by the caller.
            let (a, b) = (s[0], s[1]);
            if f && a.as_f64().is_nan() {
                b
            } else if f && b.as_f64().is_nan() {
                a
            } else if compare(cmod, a, b) {
                a
            } else {
                b
            }
        }
        // PRM Vol. 2a "CSEL": src0 where src2 compares with zero as the conditional
        // modifier says (false for NaN), else src1; no flag is written.
        Csel => {
            let zero = if tys[2].is_float() {
                Value::Float(0.0)
            } else {
                Value::Int(0)
            };
            if compare(cmod, s[2], zero) {
                s[0]
            } else {
                s[1]
            }
        }
        // PRM Vol. 2a "BFI1", "BFI2", "BFE": widths and offsets are 5-bit fields.
        Bfi1 => {
            let (w, o) = (int(0) & 31, int(1) & 31);
            Value::Int((((1i128 << w) - 1) << o) & 0xffff_ffff)
        }
        Bfi2 => {
            let (m, a, b) = (
                bits_of(s[0], tys[0]),
                bits_of(s[1], tys[1]),
                bits_of(s[2], tys[2]),
            );
            Value::Int(((m & a) | (!m & b)) as u32 as i128)
        }
        Bfe => {
            let (w, o) = ((int(0) & 31) as u32, (int(1) & 31) as u32);
            let v = bits_of(s[2], tys[2]) as u32;
            let field = if w == 0 {
                0
            } else {
                (v >> o) & (u32::MAX >> (32 - w))
            };
            // Signed types sign-extend the field.
            if tys[2].is_signed_int() && w != 0 && field >> (w - 1) & 1 == 1 {
                Value::Int((field | !(u32::MAX >> (32 - w))) as i32 as i128)
            } else {
                Value::Int(field as i128)
            }
        }
        F16to32 => Value::Float(half::f16::from_bits(bits_of(s[0], tys[0]) as u16).to_f64()),
        F32to16 => Value::Int(half::f16::from_f64(fl(0)).to_bits() as i128),
        _ => return Err(format!("`{}` is not modelled yet", op.name())),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// FBH counts from the MSB to the first 1 (unsigned) or to the first bit unlike the
    /// sign (signed); none gives all ones.
    #[test]
    fn find_first_bit_high() {
        let fbh = |v: i128, t: Type| eval(Opcode::Fbh, CondMod::None, &[Value::Int(v)], &[t]);
        assert_eq!(fbh(1, Type::UD), Ok(Value::Int(31)));
        assert_eq!(fbh(0x8000_0000, Type::UD), Ok(Value::Int(0)));
        assert_eq!(fbh(0, Type::UD), Ok(Value::Int(-1)));
        assert_eq!(fbh(-1, Type::D), Ok(Value::Int(-1)));
        assert_eq!(fbh(-2, Type::D), Ok(Value::Int(31)));
        assert_eq!(fbh(0x10, Type::D), Ok(Value::Int(27)));
    }

    #[test]
    fn compares() {
        let (one, two, nan) = (Value::Float(1.0), Value::Float(2.0), Value::Float(f64::NAN));
        assert!(compare(CondMod::L, one, two) && !compare(CondMod::Ge, one, two));
        assert!(compare(CondMod::Nz, nan, nan) && !compare(CondMod::Z, nan, nan));
        assert!(compare(CondMod::U, nan, one) && !compare(CondMod::O, nan, one));
        assert!(!compare(CondMod::G, nan, one) && !compare(CondMod::Le, nan, one));
        let ud = [Type::UD, Type::UD, Type::UD];
        let bfe = |w: i128, o: i128, v: i128, t: Type| {
            eval(
                Opcode::Bfe,
                CondMod::None,
                &[Value::Int(w), Value::Int(o), Value::Int(v)],
                &[Type::UD, Type::UD, t],
            )
            .unwrap()
        };
        assert_eq!(bfe(8, 4, 0xabcd, Type::UD), Value::Int(0xbc));
        assert_eq!(bfe(4, 4, 0xf0, Type::D), Value::Int(-1));
        assert_eq!(bfe(0, 4, 0xf0, Type::UD), Value::Int(0));
        let mask = eval(
            Opcode::Bfi1,
            CondMod::None,
            &[Value::Int(4), Value::Int(8)],
            &ud[..2],
        )
        .unwrap();
        assert_eq!(mask, Value::Int(0xf00));
        let ins = eval(
            Opcode::Bfi2,
            CondMod::None,
            &[mask, Value::Int(0x500), Value::Int(0x1234)],
            &ud,
        )
        .unwrap();
        assert_eq!(ins, Value::Int(0x1534));
        let (a, b) = (Value::Int(-3), Value::Int(u32::MAX as i128));
        assert!(
            compare(CondMod::L, a, b) && compare(CondMod::O, a, b) && !compare(CondMod::U, a, b)
        );
    }

    /// A NaN operand is passed on whatever the operands' order (the greater of two), so
    /// `x * 1.0` is `x` and commuting changes nothing; a NaN made from numbers is the
    /// default one.
    #[test]
    fn nan_results() {
        let f = [Type::F, Type::F];
        let nan_a = crate::value::decode(Type::F, 0xffc0_0000);
        let nan_b = crate::value::decode(Type::F, 0x7fc0_1234);
        let bits = |v: Value| crate::value::encode(Type::F, v, false);
        let mul = |x, y| bits(eval(Opcode::Mul, CondMod::None, &[x, y], &f).unwrap());
        assert_eq!(mul(nan_a, nan_b), mul(nan_b, nan_a));
        assert_eq!(mul(nan_a, nan_b), 0xffc0_0000);
        assert_eq!(mul(nan_b, Value::Float(1.0)), 0x7fc0_1234);
        assert_eq!(mul(Value::Float(1.0), nan_b), 0x7fc0_1234);
        let inf = eval(
            Opcode::Frc,
            CondMod::None,
            &[Value::Float(f64::INFINITY)],
            &f,
        )
        .unwrap();
        assert_eq!(bits(inf), 0x7fc0_0000);
        let moved = eval(Opcode::Mov, CondMod::None, &[nan_a], &f).unwrap();
        assert_eq!(bits(moved), 0xffc0_0000);
    }
}
