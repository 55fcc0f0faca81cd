//! Element values and the conversions between types.
//!
//! Arithmetic works on [`Value`]: integers as `i128` (wide enough for every integer type and
//! for 64×64-bit products' low halves), floats as `f64` (every HF and F value is exact in it).
//! Definitions, used everywhere:
//! * float → integer: round toward zero, saturate to the destination range, NaN → 0
//!   (PRM Vol. 7, "Float to Integer conversion");
//! * integer → integer: keep the low bits (wrap), or clamp to the range with `.sat`;
//! * float → narrower float: round to nearest even (F and HF), once, from the `f64` result;
//! * `.sat` on a float destination clamps the value rounded to the destination type to
//!   [0, 1], NaN → 0.

use eubatch_ir::Type;

#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Value {
    Int(i128),
    Float(f64),
}

impl Value {
    pub fn as_f64(self) -> f64 {
        match self {
            Value::Int(i) => i as f64,
            Value::Float(f) => f,
        }
    }

    pub fn as_i128(self) -> i128 {
        match self {
            Value::Int(i) => i,
            Value::Float(f) => f.trunc() as i128,
        }
    }
}

/// Decodes `bits` (little-endian, `ty.size()` bytes) as a value.
pub fn decode(ty: Type, bits: u64) -> Value {
    match ty {
        Type::B => Value::Int(bits as u8 as i8 as i128),
        Type::UB => Value::Int(bits as u8 as i128),
        Type::W | Type::V => Value::Int(bits as u16 as i16 as i128),
        Type::UW | Type::UV => Value::Int(bits as u16 as i128),
        Type::D => Value::Int(bits as u32 as i32 as i128),
        Type::UD => Value::Int(bits as u32 as i128),
        Type::Q => Value::Int(bits as i64 as i128),
        Type::UQ => Value::Int(bits as i128),
        Type::HF => Value::Float(half::f16::from_bits(bits as u16).to_f64()),
        Type::F | Type::VF => Value::Float(f32::from_bits(bits as u32) as f64),
        Type::DF => Value::Float(f64::from_bits(bits)),
    }
}

fn int_range(ty: Type) -> (i128, i128) {
    match ty {
        Type::B => (i8::MIN as i128, i8::MAX as i128),
        Type::UB => (0, u8::MAX as i128),
        Type::W | Type::V => (i16::MIN as i128, i16::MAX as i128),
        Type::UW | Type::UV => (0, u16::MAX as i128),
        Type::D => (i32::MIN as i128, i32::MAX as i128),
        Type::UD => (0, u32::MAX as i128),
        Type::Q => (i64::MIN as i128, i64::MAX as i128),
        _ => (0, u64::MAX as i128),
    }
}

/// Encodes `v` as `ty`, applying the conversion rules above.
pub fn encode(ty: Type, v: Value, saturate: bool) -> u64 {
    if ty.is_float() {
        // Round to the destination's precision, then saturate the rounded value: the
        // hardware clamps the result it computed, so a tiny negative product that rounds
        // to -0.0 stays -0.0 (whether `.sat` is on the instruction or on a later move).
        let sat = |f: f64| {
            if !saturate {
                f
            } else if f.is_nan() {
                0.0
            } else {
                f.clamp(0.0, 1.0)
            }
        };
        let f = v.as_f64();
        return match ty {
            Type::HF => half::f16::from_f64(sat(half::f16::from_f64(f).to_f64())).to_bits() as u64,
            Type::DF => sat(f).to_bits(),
            _ => (sat((f as f32) as f64) as f32).to_bits() as u64,
        };
    }
    let (lo, hi) = int_range(ty);
    let i = match v {
        Value::Float(f) if f.is_nan() => 0,
        Value::Float(f) => {
            let t = f.trunc();
            if t <= lo as f64 {
                lo
            } else if t >= hi as f64 {
                hi
            } else {
                t as i128
            }
        }
        Value::Int(i) if saturate => i.clamp(lo, hi),
        Value::Int(i) => i,
    };
    let bits = i as u128 as u64;
    match ty.size() {
        1 => bits & 0xff,
        2 => bits & 0xffff,
        4 => bits & 0xffff_ffff,
        _ => bits,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions() {
        assert_eq!(
            encode(Type::D, Value::Float(-2.7), false),
            (-2i32) as u32 as u64
        );
        assert_eq!(encode(Type::UD, Value::Float(-2.7), false), 0);
        assert_eq!(encode(Type::D, Value::Float(f64::NAN), false), 0);
        assert_eq!(encode(Type::D, Value::Float(1e20), false), i32::MAX as u64);
        assert_eq!(encode(Type::UW, Value::Int(0x12345), false), 0x2345);
        assert_eq!(encode(Type::UW, Value::Int(0x12345), true), 0xffff);
        assert_eq!(
            encode(Type::F, Value::Float(2.0), true),
            1.0f32.to_bits() as u64
        );
        assert_eq!(encode(Type::HF, Value::Float(1.0), false), 0x3c00);
        assert_eq!(decode(Type::HF, 0xc000), Value::Float(-2.0));
        assert_eq!(decode(Type::B, 0xff), Value::Int(-1));
    }
}
