//! Immediate values: parsing every printer's spelling and printing eubatch's exact one.

use crate::operand::Operand;
use crate::types::Type;

/// Suffixes in the order they must be tried (longest first). Mesa 22 scalar dumps print W
/// as `d` and UW as `u`; Mesa 25 prints `w`/`uw`; vec4 dumps print `D`, `U`, `F`, `DF`.
const SUFFIXES: [(&str, Type); 17] = [
    ("UV", Type::UV),
    ("DF", Type::DF),
    ("uq", Type::UQ),
    ("uw", Type::UW),
    ("ub", Type::UB),
    ("hf", Type::HF),
    ("df", Type::DF),
    ("V", Type::V),
    ("F", Type::F),
    ("U", Type::UD),
    ("D", Type::D),
    ("d", Type::D),
    ("u", Type::UD),
    ("w", Type::W),
    ("b", Type::B),
    ("q", Type::Q),
    ("f", Type::F),
];

/// Replicates a 16-bit value into both halves of the low word (`brw_imm_w`, `brw_imm_hf`).
pub fn replicate16(v: u16) -> u64 {
    (v as u64) | (v as u64) << 16
}

/// Parses a scalar immediate token such as `1.5f`, `-17q`, `0uw`, `76543210V`, `-infhf`.
pub fn parse_scalar(tok: &str) -> Result<Operand, String> {
    let (num, ty) = SUFFIXES
        .iter()
        .find(|(suf, _)| tok.len() > suf.len() && tok.ends_with(suf))
        .map(|&(suf, ty)| (&tok[..tok.len() - suf.len()], ty))
        .ok_or_else(|| format!("expected an immediate with a type suffix, found `{tok}`"))?;
    let bad = || format!("`{num}` is not a valid {} immediate", ty.letters());
    let bits: u64 = match ty {
        Type::D => num.parse::<i32>().map_err(|_| bad())? as u32 as u64,
        Type::UD => num.parse::<u32>().map_err(|_| bad())? as u64,
        Type::W => replicate16(num.parse::<i16>().map_err(|_| bad())? as u16),
        Type::UW => replicate16(num.parse::<u16>().map_err(|_| bad())?),
        Type::B => num.parse::<i8>().map_err(|_| bad())? as u8 as u64,
        Type::UB => num.parse::<u8>().map_err(|_| bad())? as u64,
        Type::Q => num.parse::<i64>().map_err(|_| bad())? as u64,
        Type::UQ => num.parse::<u64>().map_err(|_| bad())?,
        Type::F => parse_f32(num).ok_or_else(bad)? as u64,
        Type::HF => {
            let bits = match nan_bits(num) {
                Some(b) => u16::try_from(b).map_err(|_| bad())?,
                None => {
                    half::f16::from_f32(f32::from_bits(parse_f32(num).ok_or_else(bad)?)).to_bits()
                }
            };
            replicate16(bits)
        }
        Type::DF => match nan_bits(num) {
            Some(b) => b,
            None => parse_float::<f64>(num).ok_or_else(bad)?.to_bits(),
        },
        Type::V | Type::UV => {
            if num.len() != 8 {
                return Err(format!(
                    "expected 8 hex digits in a {} immediate, found `{num}`",
                    ty.letters()
                ));
            }
            u32::from_str_radix(num, 16).map_err(|_| bad())? as u64
        }
        Type::VF => unreachable!("VF immediates are lists"),
    };
    Ok(Operand::imm(ty, bits))
}

/// `nan(0x7fc00000)`: eubatch's exact spelling of a NaN with its payload.
fn nan_bits(s: &str) -> Option<u64> {
    let inner = s.strip_prefix("nan(0x")?.strip_suffix(')')?;
    u64::from_str_radix(inner, 16).ok()
}

fn parse_float<T: std::str::FromStr>(s: &str) -> Option<T> {
    // Rust accepts "inf", "-inf", "nan"; C's printf also writes "-nan".
    let t = s.strip_prefix('+').unwrap_or(s);
    t.parse::<T>().ok()
}

fn parse_f32(s: &str) -> Option<u32> {
    if let Some(b) = nan_bits(s) {
        return u32::try_from(b).ok();
    }
    let v: f32 = parse_float(s)?;
    if v.is_nan() && s.starts_with('-') {
        return Some((-f32::NAN).to_bits());
    }
    Some(v.to_bits())
}

/// Decodes one 8-bit restricted float (`brw_vf_to_float`, brw_reg.h): sign, 3-bit exponent
/// with bias 3, 4-bit mantissa; 0x00 and 0x80 are the zeros.
pub fn vf_to_f32(vf: u8) -> f32 {
    let v = vf as u32;
    let sign = (v & 0x80) << 24;
    if v & 0x7f == 0 {
        return f32::from_bits(sign);
    }
    let exp = ((v >> 4) & 7) + 124;
    let mant = (v & 0xf) << 19;
    f32::from_bits(sign | exp << 23 | mant)
}

/// Encodes a float as an 8-bit restricted float when it is exactly representable.
pub fn f32_to_vf(f: f32) -> Option<u8> {
    let bits = f.to_bits();
    let sign = ((bits >> 24) & 0x80) as u8;
    if bits & 0x7fff_ffff == 0 {
        return Some(sign);
    }
    let exp = (bits >> 23) & 0xff;
    if !(124..=131).contains(&exp) || bits & 0x7ffff != 0 {
        return None;
    }
    Some(sign | (((exp - 124) << 4) as u8) | ((bits >> 19) & 0xf) as u8)
}

/// Shortest decimal that reads back to the same bits; exponent form when `far` (far from 1);
/// NaN with its payload.
fn fmt_float<T: std::fmt::Display + std::fmt::LowerExp>(
    v: T,
    far: bool,
    nan_bits: Option<String>,
) -> String {
    match nan_bits {
        Some(bits) => format!("nan(0x{bits})"),
        None if far => format!("{v:e}"),
        None => format!("{v}"),
    }
}

fn fmt_f32(v: f32) -> String {
    let a = v.abs();
    let far = a != 0.0 && a.is_finite() && !(1e-5..1e16).contains(&a);
    fmt_float(v, far, v.is_nan().then(|| format!("{:08x}", v.to_bits())))
}

fn fmt_f64(v: f64) -> String {
    let a = v.abs();
    let far = a != 0.0 && a.is_finite() && !(1e-5..1e16).contains(&a);
    fmt_float(v, far, v.is_nan().then(|| format!("{:016x}", v.to_bits())))
}

/// eubatch's spelling of an immediate: exact, so that printing and parsing give the same bits.
pub fn format_imm(op: &Operand, out: &mut String) {
    use std::fmt::Write;
    let bits = op.imm_bits();
    let _ = match op.ty {
        Type::D => write!(out, "{}d", bits as u32 as i32),
        Type::UD => write!(out, "{}u", bits as u32),
        Type::W => write!(out, "{}w", bits as u16 as i16),
        Type::UW => write!(out, "{}uw", bits as u16),
        Type::B => write!(out, "{}b", bits as u8 as i8),
        Type::UB => write!(out, "{}ub", bits as u8),
        Type::Q => write!(out, "{}q", bits as i64),
        Type::UQ => write!(out, "{}uq", bits),
        Type::F => write!(out, "{}f", fmt_f32(f32::from_bits(bits as u32))),
        Type::HF => {
            let h = half::f16::from_bits(bits as u16);
            if h.is_nan() {
                write!(out, "nan(0x{:04x})hf", bits as u16)
            } else {
                write!(out, "{}hf", fmt_f32(h.to_f32()))
            }
        }
        Type::DF => write!(out, "{}df", fmt_f64(f64::from_bits(bits))),
        Type::V => write!(out, "{:08x}V", bits as u32),
        Type::UV => write!(out, "{:08x}UV", bits as u32),
        Type::VF => {
            out.push('[');
            for i in 0..4 {
                if i > 0 {
                    out.push_str(", ");
                }
                let _ = write!(out, "{}F", fmt_f32(vf_to_f32((bits >> (8 * i)) as u8)));
            }
            out.push(']');
            Ok(())
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(op: Operand) {
        let mut s = String::new();
        format_imm(&op, &mut s);
        if op.ty == Type::VF {
            return;
        }
        assert_eq!(parse_scalar(&s).unwrap(), op, "{s}");
    }

    #[test]
    fn mesa_spellings() {
        assert_eq!(
            parse_scalar("1e-05f").unwrap().imm_bits(),
            1e-5f32.to_bits() as u64
        );
        assert_eq!(parse_scalar("-17q").unwrap().imm_bits(), (-17i64) as u64);
        assert_eq!(parse_scalar("0uw").unwrap().ty, Type::UW);
        assert_eq!(parse_scalar("76543210V").unwrap().imm_bits(), 0x76543210);
        assert_eq!(
            parse_scalar("-infhf").unwrap().imm_bits(),
            replicate16(0xfc00)
        );
        assert_eq!(parse_scalar("1U").unwrap().ty, Type::UD);
        assert_eq!(parse_scalar("1.000000F").unwrap().ty, Type::F);
        assert_eq!(parse_scalar("0.000000df").unwrap().ty, Type::DF);
        assert!(parse_scalar("12").is_err());
        assert!(parse_scalar("xyzf").is_err());
    }

    #[test]
    fn exact_round_trips() {
        for bits in [
            0u32,
            0x8000_0000,
            0x3f80_0000,
            0x7f80_0000,
            0x7fc0_0001,
            1,
            0x0080_0000,
            0x4b80_0001,
        ] {
            round_trip(Operand::imm(Type::F, bits as u64));
        }
        for bits in [
            0u64,
            1,
            0x7ff8_0000_0000_0001,
            0x3ff0_0000_0000_0001,
            0x8000_0000_0000_0000,
        ] {
            round_trip(Operand::imm(Type::DF, bits));
        }
        for h in [0u16, 0x8000, 0x3c00, 0x7c00, 0x7e01, 1, 0x3bff] {
            round_trip(Operand::imm(Type::HF, replicate16(h)));
        }
        round_trip(Operand::imm(Type::W, replicate16(0xffff)));
        round_trip(Operand::imm(Type::UQ, u64::MAX));
    }

    #[test]
    fn vf_round_trips() {
        for b in 0..=255u8 {
            assert_eq!(f32_to_vf(vf_to_f32(b)), Some(b));
        }
        assert_eq!(f32_to_vf(0.1), None);
    }
}
