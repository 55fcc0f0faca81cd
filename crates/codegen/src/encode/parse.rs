//! Parses Mesa's disassembly of one native instruction (and a send's descriptor line) into
//! [`Inst`]: what the text shows, read exactly; what it does not show is left at zero and
//! filled by [`super::policy`].
//!
//! Source: the syntax is what Mesa 23.0 `brw_disasm.c` prints (see [`super::print`]); the
//! `{ ... }` option words and name tables are [`super::tables`]. Shared with the listing
//! reader (`crate::asm`): the line cursor and its errors (`eubatch_ir::text::cursor`) and
//! the shared-function names (`crate::asm::SFIDS`). Its operand parser is not reused: it
//! reads IR operands (logical regions and types) where this needs the encoded fields.

use std::collections::HashMap;

use eubatch_ir::error::ParseError;
use eubatch_ir::text::cursor::{Cursor, PResult};
use eubatch_ir::Gen;

use super::codec::{self, col_of, form_of};
use super::field::Col;
use super::inst::{Ctrl, Desc, Form, Inst, Send, Src};
use super::opcode;
use super::parse_operand::{dst_operand, hex, reg_name, source, src3};
use super::print::jump_unit;
use super::tables::*;

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
    /// A jump whose target had no label (its JIP/UIP are unknown).
    pub unlabelled_jump: bool,
    /// A half-float immediate, whose value the text does not give.
    pub hf_imm: bool,
    /// The options say `compacted`: Mesa's bytes are the compacted form of this word.
    pub compacted: bool,
}

/// Parses one instruction: `first` is the disassembly after the hex bytes, `second` a
/// send's descriptor line. Returns the instruction (unprinted fields zero) and what was seen.
pub fn parse(
    first: &str,
    second: Option<&str>,
    gen: Gen,
    place: &Place<'_>,
) -> PResult<(Inst, Seen)> {
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
            table
                .iter()
                .position(|t| *t == suffix)
                .ok_or_else(|| c.error(format!("unknown predicate control `{suffix}`")))?
                as u8
        };
        c.expect(") ")?;
    }
    let name_at = c.pos;
    let name = c.take_while(|b| b.is_ascii_alphanumeric());
    let desc = opcode::by_name(col, name).ok_or_else(|| {
        ParseError::new(
            place.line,
            name_at as u32 + 1,
            format!("unknown opcode `{name}` on {gen:?}"),
        )
    })?;
    ctrl.opcode = desc.hw;
    let op = desc.hw;
    mods(&mut c, &mut ctrl, op)?;
    if op != opcode::NOP {
        c.expect("(")?;
        let n = c.take_while(|b| b.is_ascii_digit());
        ctrl.exec_size = EXEC_SIZE
            .iter()
            .position(|e| *e == n)
            .ok_or_else(|| c.error(format!("execution size `{n}`")))?
            as u8;
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
            t.dst_ty = dt.code_3src(col).ok_or_else(|| {
                c.error(format!(
                    "type {} in a three-source instruction",
                    dt.letters()
                ))
            })?;
            let mut st = None;
            for s in t.srcs.iter_mut() {
                c.skip_spaces();
                let (s3, ty) = src3(&mut c)?;
                *s = s3;
                st.get_or_insert(ty);
            }
            let st = st.unwrap();
            t.src_ty = st.code_3src(col).ok_or_else(|| {
                c.error(format!(
                    "type {} in a three-source instruction",
                    st.letters()
                ))
            })?;
        }
        Form::Basic { dst, src0, src1 } => {
            if desc.ndst > 0 {
                c.skip_spaces();
                let (d, t) = dst_operand(&mut c, a16, a16)?;
                *dst = d;
                dst.ty = t
                    .reg_code(col)
                    .ok_or_else(|| c.error(format!("type {} as a register", t.letters())))?;
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
        Form::Send(Send {
            dst,
            src0,
            src1_file,
            src1_ty,
            desc: d,
            ..
        }) => {
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
                let mask = if col == Col::Gen9 {
                    0x7fff_ffff
                } else {
                    0x1fff_ffff
                };
                *d = Desc::Imm(hi & mask);
            } else {
                let s = source(&mut c, col, a16, op, &mut seen)?;
                let Src::Reg(r) = s else {
                    return Err(c.error("a register descriptor"));
                };
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
            return Err(
                c.expected("the end of the line (a send's options follow on its descriptor line)")
            );
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
        let brace = c
            .rest()
            .rfind('{')
            .ok_or_else(|| c.expected("`{` options"))?;
        c.pos += brace;
    }
    if op != opcode::NOP {
        options(&mut c, &mut ctrl, &mut form, &mut seen)?;
    }
    c.skip_spaces();
    c.expect(";")?;
    Ok((
        Inst {
            ctrl,
            form,
            residue: [0; 2],
        },
        seen,
    ))
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

fn mods(c: &mut Cursor<'_>, ctrl: &mut Ctrl, op: u8) -> PResult<()> {
    loop {
        if c.eat(".sat") {
            ctrl.saturate = 1;
        } else if c.eat(".breakpoint") {
            ctrl.debug_control = 1;
        } else if op == opcode::MATH && c.eat(" ") {
            let f = c.take_while(|b| b.is_ascii_alphanumeric());
            ctrl.cond_modifier = MATH
                .iter()
                .position(|m| *m == f && !f.is_empty())
                .ok_or_else(|| c.error(format!("unknown math function `{f}`")))?
                as u8;
        } else if c.looking_at(".f")
            && c.s
                .as_bytes()
                .get(c.pos + 2)
                .is_some_and(|b| b.is_ascii_digit())
        {
            c.pos += 1;
            flag(c, ctrl)?;
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
    let target = *place
        .labels
        .get(&n)
        .ok_or_else(|| c.error(format!("LABEL{n} is not in the program")))?;
    let delta = target as i64 - place.at as i64;
    let unit = jump_unit(col);
    if delta % unit != 0 {
        return Err(c.error(format!("LABEL{n} is not a multiple of {unit} bytes away")));
    }
    Ok((delta / unit) as i32)
}

fn options(c: &mut Cursor<'_>, ctrl: &mut Ctrl, form: &mut Form, seen: &mut Seen) -> PResult<()> {
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
                    Form::Send(s) => s.eot = 1,
                    Form::Split(s) => s.eot = 1,
                    _ => return Err(c.error("EOT on an instruction other than a send")),
                },
                "compacted" => seen.compacted = true,
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
