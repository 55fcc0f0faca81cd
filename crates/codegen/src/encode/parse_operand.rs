//! Operands of Mesa's disassembly: registers, regions, Align16 swizzles and writemasks,
//! immediates (with Mesa's 16-bit replication), three-source Align16 sources.
//!
//! Source: the syntax `brw_disasm.c` (Mesa 23.0) prints in `reg`, `dest`, `src_da1`,
//! `src_ia1`, `src_da16`, `src*_3src` and `imm`; `brw_reg.h` `brw_imm_uw`/`brw_imm_w`.

use eubatch_ir::text::cursor::{Cursor, PResult};

use super::codec;
use super::field::Col;
use super::inst::{Reg, Src, Src3};
use super::parse::Seen;
use super::tables::*;
use super::types::RegType;

pub fn hex(c: &mut Cursor<'_>) -> PResult<u64> {
    c.expect("0x")?;
    // Mesa prints hex digits in lower case; the type's letters that follow are upper case.
    let d = c.take_while(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    u64::from_str_radix(d, 16).map_err(|_| c.expected("hexadecimal digits"))
}

/// A register name: (file, number).
pub fn reg_name(c: &mut Cursor<'_>) -> PResult<(u8, u8)> {
    const ARF: [(&str, u8); 11] = [
        ("acc", 0x20),
        ("a", 0x10),
        ("f", 0x30),
        ("mask", 0x40),
        ("msd", 0x60),
        ("ms", 0x50),
        ("sr", 0x70),
        ("cr", 0x80),
        ("n", 0x90),
        ("tm", 0xc0),
        ("ARF", 0),
    ];
    if c.eat("null") {
        return Ok((0, 0));
    }
    if c.eat("ip") {
        return Ok((0, 0xa0));
    }
    if c.eat("tdr0") {
        return Ok((0, 0xb0));
    }
    for (file, p) in [(1u8, "g"), (2, "m")] {
        if c.looking_at(p)
            && c.s
                .as_bytes()
                .get(c.pos + 1)
                .is_some_and(|b| b.is_ascii_digit())
        {
            c.pos += 1;
            return Ok((file, c.number_u8("a register number")?));
        }
    }
    for (p, base) in ARF {
        if c.looking_at(p)
            && c.s
                .as_bytes()
                .get(c.pos + p.len())
                .is_some_and(|b| b.is_ascii_digit())
        {
            c.pos += p.len();
            let n = c.number_u8("a register number")?;
            return Ok((0, base | n));
        }
    }
    Err(c.expected("a register"))
}

pub fn ty(c: &mut Cursor<'_>) -> PResult<RegType> {
    let (t, n) = RegType::parse_prefix(c.rest()).ok_or_else(|| c.expected("a type"))?;
    c.pos += n;
    Ok(t)
}

pub fn code_of(table: &[&str], s: &str, c: &Cursor<'_>, what: &str) -> PResult<u8> {
    table
        .iter()
        .position(|t| *t == s)
        .map(|i| i as u8)
        .ok_or_else(|| c.error(format!("{what} `{s}`")))
}

pub fn vstride_code(c: &Cursor<'_>, s: &str) -> PResult<u8> {
    (0..16u8)
        .find(|&i| vstride(i) == Some(s))
        .ok_or_else(|| c.error(format!("vertical stride `{s}`")))
}

/// `<v,w,h>`.
pub fn region(c: &mut Cursor<'_>) -> PResult<(u8, u8, u8)> {
    c.expect("<")?;
    let v = c.take_while(|b| b.is_ascii_alphanumeric());
    let v = vstride_code(c, v)?;
    c.expect(",")?;
    let w = c.take_while(|b| b.is_ascii_digit());
    let w = code_of(&WIDTH, w, c, "width")?;
    c.expect(",")?;
    let h = c.take_while(|b| b.is_ascii_digit());
    let h = code_of(&HSTRIDE, h, c, "horizontal stride")?;
    c.expect(">")?;
    Ok((v, w, h))
}

pub fn dot_number(c: &mut Cursor<'_>) -> PResult<Option<u32>> {
    if c.looking_at(".")
        && c.s
            .as_bytes()
            .get(c.pos + 1)
            .is_some_and(|b| b.is_ascii_digit())
    {
        c.pos += 1;
        return Ok(Some(c.number("a subregister")?));
    }
    Ok(None)
}

/// A destination: the register (type code not yet set) and its type. `a16`: the
/// subregister is Align16's (printed as 16 / size); `mask`: a writemask may follow.
pub fn dst_operand(c: &mut Cursor<'_>, a16: bool, mask: bool) -> PResult<(Reg, RegType)> {
    let mut r = Reg::default();
    let sub;
    if c.eat("g[a0") {
        // Indirect addressing reads the GRF file.
        r.address_mode = 1;
        r.file = 1;
        sub = dot_number(c)?;
        if c.eat(" ") {
            r.ia_imm = signed(c)? as u16 & 0x3ff;
        }
        c.expect("]")?;
    } else {
        let (f, n) = reg_name(c)?;
        r.file = f;
        r.nr = n;
        if r.file == 0 && matches!(n, 0xa0 | 0xb0) {
            return Err(c.error("ip/tdr as a destination: Mesa prints nothing more of it"));
        }
        sub = dot_number(c)?;
    }
    c.expect("<")?;
    let h = c.take_while(|b| b.is_ascii_digit());
    r.hstride = code_of(&HSTRIDE, h, c, "horizontal stride")?;
    c.expect(">")?;
    if mask && c.looking_at(".") {
        c.pos += 1;
        let m = c.take_while(|b| matches!(b, b'x' | b'y' | b'z' | b'w'));
        r.writemask = code_of(&WRITEMASK, &format!(".{m}"), c, "writemask")?;
    } else {
        r.writemask = 0xf;
    }
    let t = ty(c)?;
    if let Some(s) = sub {
        if r.address_mode == 1 {
            r.ia_subnr = (s * t.size()) as u8;
        } else {
            r.subnr = if a16 { 16 } else { (s * t.size()) as u8 };
        }
    }
    if !mask {
        r.writemask = 0;
    }
    Ok((r, t))
}

pub fn signed(c: &mut Cursor<'_>) -> PResult<i64> {
    let neg = c.eat("-");
    let v = c.number("a number")? as i64;
    Ok(if neg { -v } else { v })
}

pub fn source(c: &mut Cursor<'_>, col: Col, a16: bool, op: u8, seen: &mut Seen) -> PResult<Src> {
    if c.eat("Half Float IMM") {
        seen.hf_imm = true;
        let ty = RegType::HF
            .imm_code(col)
            .ok_or_else(|| c.error("a half-float immediate before gen8"))?;
        return Ok(Src::Imm {
            ty,
            bits: 0,
            wide: false,
        });
    }
    let b = c.s.as_bytes();
    let digit_at = |i: usize| b.get(i).is_some_and(|x| x.is_ascii_digit());
    if c.looking_at("0x") || digit_at(c.pos) || (c.looking_at("-") && digit_at(c.pos + 1)) {
        return immediate(c, col, op);
    }
    let mut r = Reg::default();
    if c.eat("-") || c.eat("~") {
        r.negate = 1;
    }
    if c.eat("(abs)") {
        r.abs = 1;
    }
    let sub;
    if c.eat("g[a0") {
        r.address_mode = 1;
        r.file = 1;
        if let Some(s) = dot_number(c)? {
            r.ia_subnr = s as u8;
        }
        if c.eat(" ") {
            r.ia_imm = signed(c)? as u16 & 0x3ff;
        }
        c.expect("]")?;
        sub = None;
    } else {
        let (f, n) = reg_name(c)?;
        r.file = f;
        r.nr = n;
        if f == 0 && matches!(n, 0xa0 | 0xb0) {
            return Err(c.error("ip/tdr as a source: Mesa prints nothing more of it"));
        }
        sub = dot_number(c)?;
    }
    if a16 {
        c.expect("<")?;
        let v = c.take_while(|b| b.is_ascii_alphanumeric());
        r.vstride = vstride_code(c, v)?;
        c.expect(">")?;
        r.swizzle = [0, 1, 2, 3];
        if c.looking_at(".") {
            c.pos += 1;
            let s = c.take_while(|b| matches!(b, b'x' | b'y' | b'z' | b'w'));
            let ch: Vec<u8> = s
                .bytes()
                .map(|b| "xyzw".find(b as char).unwrap() as u8)
                .collect();
            r.swizzle = match ch.len() {
                1 => [ch[0]; 4],
                4 => [ch[0], ch[1], ch[2], ch[3]],
                _ => return Err(c.error(format!("swizzle `.{s}`"))),
            };
        }
    } else {
        let (v, w, h) = region(c)?;
        r.vstride = v;
        r.width = w;
        r.hstride = h;
    }
    let t = ty(c)?;
    r.ty = t
        .reg_code(col)
        .ok_or_else(|| c.error(format!("type {} as a register", t.letters())))?;
    if let Some(s) = sub {
        r.subnr = if a16 { 16 } else { (s * t.size()) as u8 };
    }
    Ok(Src::Reg(r))
}

pub fn immediate(c: &mut Cursor<'_>, col: Col, op: u8) -> PResult<Src> {
    let (bits, hexed) = if c.looking_at("0x") {
        (hex(c)?, true)
    } else {
        (signed(c)? as u64, false)
    };
    let t = ty(c)?;
    let code = t
        .imm_code(col)
        .ok_or_else(|| c.error(format!("an immediate of type {}", t.letters())))?;
    let ok = match t {
        RegType::D | RegType::W => !hexed,
        _ => hexed,
    };
    if !ok {
        return Err(c.error(format!(
            "a {} immediate written as Mesa prints it",
            t.letters()
        )));
    }
    // Mesa's brw_imm_uw/brw_imm_w replicate the 16 bits into both halves; the text shows one.
    let bits = match t {
        RegType::UW | RegType::W => {
            let h = bits & 0xffff;
            h | (h << 16)
        }
        RegType::D => bits & 0xffff_ffff,
        _ => bits,
    };
    if matches!(t, RegType::F | RegType::VF | RegType::DF) {
        c.skip_spaces();
        if c.eat("/*") {
            let end = c.rest().find("*/").ok_or_else(|| c.expected("`*/`"))?;
            c.pos += end + 2;
        }
    }
    Ok(Src::Imm {
        ty: code,
        bits,
        wide: codec::imm_is_wide(col, op, code),
    })
}

pub fn src3(c: &mut Cursor<'_>) -> PResult<(Src3, RegType)> {
    let mut s = Src3::default();
    if c.eat("-") {
        s.negate = 1;
    }
    if c.eat("(abs)") {
        s.abs = 1;
    }
    let (f, n) = reg_name(c)?;
    if f != 1 {
        return Err(c.error("a GRF in a three-source instruction"));
    }
    s.nr = n;
    let sub = dot_number(c)?.unwrap_or(0);
    let (v, w, h) = region(c)?;
    match (v, w, h) {
        (0, 0, 0) => s.rep_ctrl = 1,
        (3, 2, 1) => {
            s.swizzle = 0b11_10_01_00;
            if c.looking_at(".") {
                c.pos += 1;
                let t = c.take_while(|b| matches!(b, b'x' | b'y' | b'z' | b'w'));
                let ch: Vec<u8> = t
                    .bytes()
                    .map(|b| "xyzw".find(b as char).unwrap() as u8)
                    .collect();
                let ch = match ch.len() {
                    1 => [ch[0]; 4],
                    4 => [ch[0], ch[1], ch[2], ch[3]],
                    _ => return Err(c.error(format!("swizzle `.{t}`"))),
                };
                s.swizzle = ch[0] | ch[1] << 2 | ch[2] << 4 | ch[3] << 6;
            }
        }
        _ => return Err(c.error("a three-source region <4,4,1> or <0,1,0>")),
    }
    let t = ty(c)?;
    s.subnr = (sub * t.size() / 4) as u8;
    Ok((s, t))
}
