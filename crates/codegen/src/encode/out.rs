//! Mesa's disassembly output discipline: text written through `string()`/`format()` moves a
//! column counter, `pad(c)` writes at least one space and up to column `c`, and text written
//! with a bare `fprintf` (the send descriptors, the decode line's indent) does not count.
//! Also C's `%g` (used for immediates' comments) and the VF element decoding.
//!
//! Source: Mesa 23.0 `brw_disasm.c` (`string`, `format`, `pad`, `newline`),
//! `brw_packed_float.c` (`brw_vf_to_float`).

#[derive(Default)]
pub struct Out {
    pub text: String,
    pub column: usize,
}

impl Out {
    /// `string()`: counted.
    pub fn s(&mut self, s: &str) {
        self.text.push_str(s);
        self.column += s.len();
    }
    /// A bare `fprintf`: not counted.
    pub fn raw(&mut self, s: &str) {
        self.text.push_str(s);
    }
    pub fn pad(&mut self, c: usize) {
        loop {
            self.s(" ");
            if self.column >= c {
                break;
            }
        }
    }
    pub fn newline(&mut self) {
        self.text.push('\n');
        self.column = 0;
    }
}

/// C's `printf("%g", x)`: six significant digits, trailing zeros removed, exponent form
/// when the exponent is below -4 or at least 6.
pub fn fmt_g(x: f64) -> String {
    if x.is_nan() {
        return if x.is_sign_negative() { "-nan" } else { "nan" }.into();
    }
    if x.is_infinite() {
        return if x < 0.0 { "-inf" } else { "inf" }.into();
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0" } else { "0" }.into();
    }
    let e = format!("{x:.5e}");
    let (mant, exp) = e.split_once('e').unwrap();
    let exp: i32 = exp.parse().unwrap();
    if !(-4..6).contains(&exp) {
        let m = strip_zeros(mant);
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{m}e{sign}{:02}", exp.abs())
    } else {
        let prec = (5 - exp).max(0) as usize;
        strip_zeros(&format!("{x:.prec$}"))
    }
}

fn strip_zeros(s: &str) -> String {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s.to_string()
    }
}

/// `brw_vf_to_float`: sign bit 7, exponent 6:4 biased by 3, mantissa 3:0; ±0 special.
pub fn vf_to_f32(vf: u8) -> f32 {
    if vf == 0 || vf == 0x80 {
        return f32::from_bits((vf as u32) << 24);
    }
    let sign = (vf >> 7) as u32;
    let exp = ((vf as u32 & 0x70) >> 4) + (127 - 3);
    let mant = (vf as u32 & 0xf) << (23 - 4);
    f32::from_bits((sign << 31) | (exp << 23) | mant)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn g_matches_c() {
        assert_eq!(fmt_g(1.0), "1");
        assert_eq!(fmt_g(0.5), "0.5");
        assert_eq!(fmt_g(2.2250738585072014e-308), "2.22507e-308");
        assert_eq!(fmt_g(123456.0), "123456");
        assert_eq!(fmt_g(1234567.0), "1.23457e+06");
        assert_eq!(fmt_g(0.0001), "0.0001");
        assert_eq!(fmt_g(0.00001), "1e-05");
        assert_eq!(fmt_g(-0.333333333), "-0.333333");
        assert_eq!(fmt_g(999999.5), "1e+06");
    }

    #[test]
    fn vf_elements() {
        assert_eq!(vf_to_f32(0x30), 1.0);
        assert_eq!(vf_to_f32(0xb0), -1.0);
        assert_eq!(vf_to_f32(0x80).to_bits(), (-0.0f32).to_bits());
    }
}
