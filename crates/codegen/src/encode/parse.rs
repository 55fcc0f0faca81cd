//! Parses Mesa's disassembly of one native instruction (and a send's descriptor line) into
//! [`Inst`]: what the text shows, read exactly; what it does not show is left at zero and
//! filled by [`super::policy`].
//!
//! Source: the syntax is what Mesa 23.0 `brw_disasm.c` prints (see [`super::print`]); the
//! `{ ... }` option words and name tables are [`super::tables`].

use std::collections::HashMap;

use eubatch_ir::error::ParseError;
use eubatch_ir::text::cursor::{Cursor, PResult};
use eubatch_ir::Gen;

use super::codec::{self, col_of, form_of};
use super::field::Col;
use super::inst::{Ctrl, Desc, Form, Inst, Reg, Src, Src3};
use super::opcode;
use super::print::jump_unit;
use super::tables::*;
use super::types::RegType;

/// Label number → byte offset of the instruction it marks.
pub type LabelOffsets = HashMap<u32, u32>;

/// Where a line sits: its line number (for errors), its byte offset in the program (for
/// jumps) and the program's labels.
pub struct Place<'a> {
    pub line: u32,
    pub at: u32,
    pub labels: &'a LabelOffsets,
}

/// What the parse saw that the policy layer needs.
#[derive(Clone, Copy, Debug, Default)]
pub struct Seen {
    /// The flag register appeared (predicate or conditional modifier's `.fN.M`).
    pub flag: bool,
    /// A jump whose target had no label (its JIP/UIP are unknown).
    pub unlabelled_jump: bool,
    /// A half-float immediate, whose value the text does not give.
    pub hf_imm: bool,
}

/// Parses one instruction: `first` is the disassembly after the hex bytes, `second` a
/// send's descriptor line. Returns the instruction (unprinted fields zero) and what was seen.
pub fn parse(first: &str, second: Option<&str>, gen: Gen, place: &Place<'_>) -> PResult<(Inst, Seen)> {
    let col = col_of(gen).map_err(|e| ParseError::new(place.line, 1, e.0))?;
    let mut c = Cursor::new(first, place.line);
    let mut seen = Seen::default();
    let mut ctrl = Ctrl::default();
    let a16 = first.contains("{ align16") || second.is_some_and(|s| s.contains("{ align16"));
    ctrl.access_mode = a16 as u8;
    c.skip_spaces();
    if c.eat("(") {
        ctrl.pred_inv = match c.peek() {
            Some(b'+') => 0,
            Some(b'-') => 1,
            _ => return Err(c.expected("`+` or `-` of a predicate")),
        };
        c.pos += 1;
        flag(&mut c, &mut ctrl)?;
        let suffix = c.take_while(|b| b.is_ascii_alphanumeric() || b == b'.');
        let table: &[&str] = if a16 { &PRED_ALIGN16 } else { &PRED_ALIGN1 };
        ctrl.pred_control = if suffix.is_empty() {
            1
        } else {
            table.iter().position(|t| *t == suffix).ok_or_else(|| c.error(format!("unknown predicate control `{suffix}`")))? as u8
        };
        c.expect(") ")?;
        seen.flag = true;
    }
    let name_at = c.pos;
    let name = c.take_while(|b| b.is_ascii_alphanumeric());
    let desc = opcode::by_name(col, name)
        .ok_or_else(|| ParseError::new(place.line, name_at as u32 + 1, format!("unknown opcode `{name}` on {gen:?}")))?;
    ctrl.opcode = desc.hw;
    let op = desc.hw;
    mods(&mut c, &mut ctrl, &mut seen, op)?;
    if op != opcode::NOP {
        c.expect("(")?;
        let n = c.take_while(|b| b.is_ascii_digit());
        ctrl.exec_size = EXEC_SIZE.iter().position(|e| *e == n).ok_or_else(|| c.error(format!("execution size `{n}`")))? as u8;
        c.expect(")")?;
    }
    let mut form = form_of(col, op);
    match &mut form {
        Form::Jump { jip, uip, .. } => {
            c.skip_spaces();
            c.expect("JIP: ")?;
            *jip = jump(&mut c, col, place, &mut seen)?;
            c.skip_spaces();
            if opcode::has_uip(col, op) {
                c.expect("UIP: ")?;
                *uip = jump(&mut c, col, place, &mut seen)?;
            }
        }
        Form::Three(t) => {
            c.skip_spaces();
            let d = dst_operand(&mut c, false, true)?;
            let dt = d.1;
            t.dst_nr = d.0.nr;
            t.writemask = d.0.writemask;
            t.dst_subnr = d.0.subnr / 4;
            t.dst_ty = dt.code_3src(col).ok_or_else(|| c.error(format!("type {} in a three-source instruction", dt.letters())))?;
            let mut st = None;
            for s in t.srcs.iter_mut() {
                c.skip_spaces();
                let (s3, ty) = src3(&mut c)?;
                *s = s3;
                st.get_or_insert(ty);
            }
            let st = st.unwrap();
            t.src_ty = st.code_3src(col).ok_or_else(|| c.error(format!("type {} in a three-source instruction", st.letters())))?;
        }
        Form::Basic { dst, src0, src1 } => {
            if desc.ndst > 0 {
                c.skip_spaces();
                let (d, t) = dst_operand(&mut c, a16, a16)?;
                *dst = d;
                dst.ty = t.reg_code(col).ok_or_else(|| c.error(format!("type {} as a register", t.letters())))?;
            }
            if desc.nsrc > 0 {
                c.skip_spaces();
                *src0 = source(&mut c, col, a16, op, &mut seen)?;
            }
            if desc.nsrc > 1 {
                c.skip_spaces();
                *src1 = source(&mut c, col, a16, op, &mut seen)?;
            }
        }
        Form::Send { dst, src0, src1_file, src1_ty, desc: d, .. } => {
            c.skip_spaces();
            let (r, t) = dst_operand(&mut c, a16, a16)?;
            *dst = r;
            dst.ty = t.reg_code(col).ok_or_else(|| c.error("a register type"))?;
            c.skip_spaces();
            match source(&mut c, col, a16, op, &mut seen)? {
                Src::Reg(r) => *src0 = r,
                Src::Imm { .. } => return Err(c.error("a send's payload is a register")),
            }
            c.skip_spaces();
            if c.looking_at("0x") {
                let hi = hex(&mut c)? as u32;
                *src1_file = 3;
                *src1_ty = 0;
                let mask = if col == Col::Gen9 { 0x7fff_ffff } else { 0x1fff_ffff };
                *d = Desc::Imm(hi & mask);
            } else {
                let s = source(&mut c, col, a16, op, &mut seen)?;
                let Src::Reg(r) = s else { return Err(c.error("a register descriptor")) };
                *src1_file = r.file;
                *src1_ty = r.ty;
                c.skip_spaces();
                let hi = hex(&mut c)? as u32;
                *d = Desc::Reg(codec::src1_from_high(col, hi, a16));
            }
        }
        Form::Split(s) => {
            c.skip_spaces();
            if c.eat("g[a0") {
                s.dst.address_mode = 1;
                if c.eat(".") {
                    s.dst.ia_subnr = (c.number_u8("an address subregister")? as u32 * 4) as u8;
                }
                c.expect("]<")?;
            } else {
                let (f, n) = reg_name(&mut c)?;
                s.dst.file = f;
                s.dst.nr = n;
                if c.eat(".1") {
                    s.dst.subnr = 16;
                }
            }
            c.expect("UD")?;
            c.skip_spaces();
            let (_, n) = reg_name(&mut c)?;
            s.src0.nr = n;
            if c.eat(".1") {
                s.src0.subnr = 16;
            }
            c.expect("UD")?;
            c.skip_spaces();
            let (f, n) = reg_name(&mut c)?;
            s.src1_file = f;
            s.src1_nr = n;
            c.expect("UD")?;
            c.skip_spaces();
            if c.eat("a0<0>UD") {
                s.desc_in_reg = 1;
            } else {
                s.desc = hex(&mut c)? as u32;
            }
            c.skip_spaces();
            if c.eat("a0") {
                s.ex_desc_in_reg = 1;
                if c.eat(".") {
                    s.ex_desc_ia_subnr = c.number_u8("a subregister")?;
                }
                c.expect("<0>UD")?;
            } else {
                s.ex_desc = hex(&mut c)? as u32;
            }
        }
    }
    c.skip_spaces();
    if opcode::is_send(op) {
        if !c.at_end() {
            return Err(c.expected("the end of the line (a send's options follow on its descriptor line)"));
        }
        let text = second.ok_or_else(|| c.error("a send without its descriptor line"))?;
        c = Cursor::new(text, place.line + 1);
        c.skip_spaces();
        let sfid = crate::asm::SFIDS
            .iter()
            .filter(|(n, _)| c.rest().starts_with(&format!("{n} MsgDesc:")))
            .max_by_key(|(n, _)| n.len())
            .ok_or_else(|| c.expected("a shared function name and `MsgDesc:`"))?;
        ctrl.cond_modifier = sfid.1;
        let brace = c.rest().rfind('{').ok_or_else(|| c.expected("`{` options"))?;
        c.pos += brace;
    }
    if op != opcode::NOP {
        options(&mut c, &mut ctrl, &mut form)?;
    }
    c.skip_spaces();
    c.expect(";")?;
    Ok((Inst { ctrl, form, residue: [0; 2] }, seen))
}

fn flag(c: &mut Cursor<'_>, ctrl: &mut Ctrl) -> PResult<()> {
    c.expect("f")?;
    ctrl.flag_reg_nr = c.number_u8("a flag register")?;
    c.expect(".")?;
    ctrl.flag_subreg_nr = c.number_u8("a flag subregister")?;
    if ctrl.flag_reg_nr > 1 || ctrl.flag_subreg_nr > 1 {
        return Err(c.error("a flag register f0/f1 with subregister 0/1"));
    }
    Ok(())
}

fn mods(c: &mut Cursor<'_>, ctrl: &mut Ctrl, seen: &mut Seen, op: u8) -> PResult<()> {
    loop {
        if c.eat(".sat") {
            ctrl.saturate = 1;
        } else if c.eat(".breakpoint") {
            ctrl.debug_control = 1;
        } else if op == opcode::MATH && c.eat(" ") {
            let f = c.take_while(|b| b.is_ascii_alphanumeric());
            ctrl.cond_modifier = MATH.iter().position(|m| *m == f && !f.is_empty()).ok_or_else(|| c.error(format!("unknown math function `{f}`")))? as u8;
        } else if c.looking_at(".f") && c.s.as_bytes().get(c.pos + 2).is_some_and(|b| b.is_ascii_digit()) {
            c.pos += 1;
            flag(c, ctrl)?;
            seen.flag = true;
        } else if c.looking_at(".") {
            let save = c.pos;
            c.pos += 1;
            let m = c.take_while(|b| b.is_ascii_lowercase());
            let full = format!(".{m}");
            match COND_MOD.iter().position(|x| *x == full) {
                Some(i) if i > 0 => ctrl.cond_modifier = i as u8,
                _ => {
                    c.pos = save;
                    return Err(c.error(format!("unknown conditional modifier `{full}`")));
                }
            }
        } else {
            return Ok(());
        }
    }
}

fn jump(c: &mut Cursor<'_>, col: Col, place: &Place<'_>, seen: &mut Seen) -> PResult<i32> {
    c.skip_spaces();
    if !c.eat("LABEL") {
        seen.unlabelled_jump = true;
        return Ok(0);
    }
    let n = c.number("a label number")?;
    let target = *place.labels.get(&n).ok_or_else(|| c.error(format!("LABEL{n} is not in the program")))?;
    let delta = target as i64 - place.at as i64;
    let unit = jump_unit(col);
    if delta % unit != 0 {
        return Err(c.error(format!("LABEL{n} is not a multiple of {unit} bytes away")));
    }
    Ok((delta / unit) as i32)
}

fn hex(c: &mut Cursor<'_>) -> PResult<u64> {
    c.expect("0x")?;
    // Mesa prints hex digits in lower case; the type's letters that follow are upper case.
    let d = c.take_while(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    u64::from_str_radix(d, 16).map_err(|_| c.expected("hexadecimal digits"))
}

/// A register name: (file, number).
fn reg_name(c: &mut Cursor<'_>) -> PResult<(u8, u8)> {
    const ARF: [(&str, u8); 11] = [
        ("acc", 0x20), ("a", 0x10), ("f", 0x30), ("mask", 0x40), ("msd", 0x60), ("ms", 0x50),
        ("sr", 0x70), ("cr", 0x80), ("n", 0x90), ("tm", 0xc0), ("ARF", 0),
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
        if c.looking_at(p) && c.s.as_bytes().get(c.pos + 1).is_some_and(|b| b.is_ascii_digit()) {
            c.pos += 1;
            return Ok((file, c.number_u8("a register number")?));
        }
    }
    for (p, base) in ARF {
        if c.looking_at(p) && c.s.as_bytes().get(c.pos + p.len()).is_some_and(|b| b.is_ascii_digit()) {
            c.pos += p.len();
            let n = c.number_u8("a register number")?;
            return Ok((0, base | n));
        }
    }
    Err(c.expected("a register"))
}

fn ty(c: &mut Cursor<'_>) -> PResult<RegType> {
    let (t, n) = RegType::parse_prefix(c.rest()).ok_or_else(|| c.expected("a type"))?;
    c.pos += n;
    Ok(t)
}

fn code_of(table: &[&str], s: &str, c: &Cursor<'_>, what: &str) -> PResult<u8> {
    table.iter().position(|t| *t == s).map(|i| i as u8).ok_or_else(|| c.error(format!("{what} `{s}`")))
}

fn vstride_code(c: &Cursor<'_>, s: &str) -> PResult<u8> {
    (0..16u8).find(|&i| vstride(i) == Some(s)).ok_or_else(|| c.error(format!("vertical stride `{s}`")))
}

/// `<v,w,h>`.
fn region(c: &mut Cursor<'_>) -> PResult<(u8, u8, u8)> {
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

fn dot_number(c: &mut Cursor<'_>) -> PResult<Option<u32>> {
    if c.looking_at(".") && c.s.as_bytes().get(c.pos + 1).is_some_and(|b| b.is_ascii_digit()) {
        c.pos += 1;
        return Ok(Some(c.number("a subregister")?));
    }
    Ok(None)
}

/// A destination: the register (type code not yet set) and its type. `a16`: the
/// subregister is Align16's (printed as 16 / size); `mask`: a writemask may follow.
fn dst_operand(c: &mut Cursor<'_>, a16: bool, mask: bool) -> PResult<(Reg, RegType)> {
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

fn signed(c: &mut Cursor<'_>) -> PResult<i64> {
    let neg = c.eat("-");
    let v = c.number("a number")? as i64;
    Ok(if neg { -v } else { v })
}

fn source(c: &mut Cursor<'_>, col: Col, a16: bool, op: u8, seen: &mut Seen) -> PResult<Src> {
    if c.eat("Half Float IMM") {
        seen.hf_imm = true;
        let ty = RegType::HF.imm_code(col).ok_or_else(|| c.error("a half-float immediate before gen8"))?;
        return Ok(Src::Imm { ty, bits: 0, wide: false });
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
            let ch: Vec<u8> = s.bytes().map(|b| "xyzw".find(b as char).unwrap() as u8).collect();
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
    r.ty = t.reg_code(col).ok_or_else(|| c.error(format!("type {} as a register", t.letters())))?;
    if let Some(s) = sub {
        r.subnr = if a16 { 16 } else { (s * t.size()) as u8 };
    }
    Ok(Src::Reg(r))
}

fn immediate(c: &mut Cursor<'_>, col: Col, op: u8) -> PResult<Src> {
    let (bits, hexed) = if c.looking_at("0x") {
        (hex(c)?, true)
    } else {
        (signed(c)? as u64, false)
    };
    let t = ty(c)?;
    let code = t.imm_code(col).ok_or_else(|| c.error(format!("an immediate of type {}", t.letters())))?;
    let ok = match t {
        RegType::D | RegType::W => !hexed,
        _ => hexed,
    };
    if !ok {
        return Err(c.error(format!("a {} immediate written as Mesa prints it", t.letters())));
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
    Ok(Src::Imm { ty: code, bits, wide: codec::imm_is_wide(col, op, code) })
}

fn src3(c: &mut Cursor<'_>) -> PResult<(Src3, RegType)> {
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
                let ch: Vec<u8> = t.bytes().map(|b| "xyzw".find(b as char).unwrap() as u8).collect();
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

fn options(c: &mut Cursor<'_>, ctrl: &mut Ctrl, form: &mut Form) -> PResult<()> {
    c.skip_spaces();
    c.expect("{")?;
    loop {
        c.skip_spaces();
        if c.eat("}") {
            return Ok(());
        }
        let w = c.take_while(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b',');
        for w in w.split(',') {
            match w {
                "align1" => ctrl.access_mode = 0,
                "align16" => ctrl.access_mode = 1,
                "WE_all" => ctrl.mask_control = 1,
                "NoDDClr" => ctrl.no_dd_clear = 1,
                "NoDDChk" => ctrl.no_dd_check = 1,
                "atomic" => ctrl.thread_control = 1,
                "switch" => ctrl.thread_control = 2,
                "AccWrEnable" | "BranchCtrl" => ctrl.acc_wr_control = 1,
                "EOT" => match form {
                    Form::Send { eot, .. } => *eot = 1,
                    Form::Split(s) => s.eot = 1,
                    _ => return Err(c.error("EOT on an instruction other than a send")),
                },
                "compacted" => return Err(c.error("a compacted instruction among native ones")),
                "1H" => ctrl.qtr_control = 0,
                "2H" => ctrl.qtr_control = 2,
                _ if w.len() == 2 && w.ends_with('Q') => {
                    let n = w.as_bytes()[0].wrapping_sub(b'1');
                    if n > 3 {
                        return Err(c.error(format!("quarter `{w}`")));
                    }
                    ctrl.qtr_control = n;
                }
                _ if w.len() == 2 && w.ends_with('N') => {
                    let n = w.as_bytes()[0].wrapping_sub(b'1');
                    if n > 7 {
                        return Err(c.error(format!("nibble `{w}`")));
                    }
                    ctrl.qtr_control = n / 2;
                    ctrl.nib_control = n % 2;
                }
                _ => return Err(c.error(format!("unknown instruction option `{w}`"))),
            }
        }
    }
}
