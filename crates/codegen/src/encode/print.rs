//! Prints a decoded instruction as Mesa's `brw_disassemble_inst` does for gen7–9, columns
//! and all, so that the text equals the listing's (after the 48-column hex dump).
//!
//! Source: Mesa 23.0 `brw_disasm.c` (`brw_disassemble_inst`, `dest`, `dest_3src`, `src0`,
//! `src1`, `src_da1`, `src_ia1`, `src_da16`, `src*_3src`, `imm`, `reg`, `qtr_ctrl`,
//! `write_label`). The descriptor line of sends is [`super::msgdesc`].

use std::collections::HashMap;

use eubatch_ir::Gen;

use super::codec::{col_of, encode, DecodeError};
use super::field::Col;
use super::inst::{Ctrl, Desc, Form, Inst, Reg, Src, Src3, Three};
use super::opcode::{self, OpDesc};
use super::out::{fmt_g, vf_to_f32, Out};
use super::tables::*;
use super::types::RegType;

/// Labels of a listing: byte offset of the labelled instruction → label number.
pub type Labels = HashMap<u32, u32>;

/// Which Mesa printed the listing. The corpora come from 22.3.6 (this module's source);
/// Mesa 25.0.7's printer differs on the descriptor line only, as its listings show: `mlen`
/// is written as `format(" mlen %u")` (a second space after the message's own text, as in
/// later `brw_disasm.c`), and the constant/sampler-cache data port drops `write_commit`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Dialect {
    #[default]
    Mesa22,
    Mesa25,
}

/// Bytes per unit of JIP/UIP: gen7 counts 8-byte units, gen8+ bytes (`brw_jump_scale`).
pub fn jump_unit(col: Col) -> i64 {
    if col.gen8_plus() {
        1
    } else {
        8
    }
}

fn control(o: &mut Out, table: &[&str], id: u8, what: &str) {
    match table.get(id as usize) {
        Some(s) => o.s(s),
        None => o.raw(&format!("*** invalid {what} value {id} ")),
    }
}

/// `control()` with Mesa's `space` flag.
fn control_sp(o: &mut Out, s: &str, space: &mut bool) {
    if !s.is_empty() {
        if *space {
            o.s(" ");
        }
        o.s(s);
        *space = true;
    }
}

/// `reg()`; false for `ip`/`tdr`, after which Mesa prints nothing more of the operand.
fn reg(o: &mut Out, file: u8, nr: u8) -> bool {
    if file == 0 {
        let n = nr & 0x0f;
        match nr & 0xf0 {
            0x00 => o.s("null"),
            0x10 => o.s(&format!("a{n}")),
            0x20 => o.s(&format!("acc{n}")),
            0x30 => o.s(&format!("f{n}")),
            0x40 => o.s(&format!("mask{n}")),
            0x50 => o.s(&format!("ms{n}")),
            0x60 => o.s(&format!("msd{n}")),
            0x70 => o.s(&format!("sr{n}")),
            0x80 => o.s(&format!("cr{n}")),
            0x90 => o.s(&format!("n{n}")),
            0xa0 => {
                o.s("ip");
                return false;
            }
            0xb0 => {
                o.s("tdr0");
                return false;
            }
            0xc0 => o.s(&format!("tm{n}")),
            _ => o.s(&format!("ARF{nr}")),
        }
    } else {
        let nr = if file == 2 { nr & 0x7f } else { nr };
        o.s(["A", "g", "m", "imm"][file as usize & 3]);
        o.s(&format!("{nr}"));
    }
    true
}

fn reg_type(col: Col, file: u8, ty: u8) -> Option<RegType> {
    if file == 3 {
        RegType::from_imm(col, ty)
    } else {
        RegType::from_reg(col, ty)
    }
}

fn letters(t: Option<RegType>) -> &'static str {
    t.map_or("INVALID", |t| t.letters())
}

fn size(t: Option<RegType>) -> u32 {
    t.map_or(1, |t| t.size())
}

/// Sign-extends the 10-bit address immediate.
fn ia_imm(v: u16) -> i32 {
    ((v as i32) << 22) >> 22
}

fn dest(o: &mut Out, col: Col, c: &Ctrl, d: &Reg) {
    let t = reg_type(col, d.file, d.ty);
    let a16 = c.access_mode == 1;
    if d.address_mode == 1 {
        if a16 {
            o.s("Indirect align16 address mode not supported");
            return;
        }
        o.s("g[a0");
        if d.ia_subnr != 0 {
            o.s(&format!(".{}", d.ia_subnr as u32 / size(t)));
        }
        if d.ia_imm != 0 {
            o.s(&format!(" {}", ia_imm(d.ia_imm)));
        }
        o.s("]<");
        control(o, &HSTRIDE, d.hstride, "horiz stride");
        o.s(">");
        o.s(letters(t));
        return;
    }
    if !reg(o, d.file, d.nr) {
        return;
    }
    if a16 {
        if d.subnr != 0 {
            o.s(&format!(".{}", 16 / size(t)));
        }
        o.s("<1>");
        o.s(WRITEMASK[d.writemask as usize & 15]);
    } else {
        if d.subnr != 0 {
            o.s(&format!(".{}", d.subnr as u32 / size(t)));
        }
        o.s("<");
        control(o, &HSTRIDE, d.hstride, "horiz stride");
        o.s(">");
    }
    o.s(letters(t));
}

fn modifiers(o: &mut Out, col: Col, op: u8, r: &Reg) {
    if r.negate == 1 {
        o.s(if col.gen8_plus() && opcode::is_logic(op) { "~" } else { "-" });
    }
    if r.abs == 1 {
        o.s("(abs)");
    }
}

fn region1(o: &mut Out, v: u8, w: u8, h: u8) {
    o.s("<");
    match vstride(v) {
        Some(s) => o.s(s),
        None => o.raw(&format!("*** invalid vert stride value {v} ")),
    }
    o.s(",");
    control(o, &WIDTH, w, "width");
    o.s(",");
    control(o, &HSTRIDE, h, "horiz_stride");
    o.s(">");
}

fn swizzle(o: &mut Out, s: [u8; 4]) {
    if s[0] == s[1] && s[0] == s[2] && s[0] == s[3] {
        o.s(".");
        o.s(CHAN[s[0] as usize & 3]);
    } else if s != [0, 1, 2, 3] {
        o.s(".");
        for c in s {
            o.s(CHAN[c as usize & 3]);
        }
    }
}

fn source(o: &mut Out, col: Col, c: &Ctrl, s: &Src) {
    let r = match s {
        Src::Imm { ty, bits, .. } => return imm(o, col, c.opcode, *ty, *bits),
        Src::Reg(r) => r,
    };
    let t = reg_type(col, r.file, r.ty);
    if c.access_mode == 1 {
        if r.address_mode == 1 {
            o.s("Indirect align16 address mode not supported");
            return;
        }
        modifiers(o, col, c.opcode, r);
        if !reg(o, r.file, r.nr) {
            return;
        }
        if r.subnr != 0 {
            o.s(&format!(".{}", 16 / size(t)));
        }
        o.s("<");
        match vstride(r.vstride) {
            Some(v) => o.s(v),
            None => o.raw(&format!("*** invalid vert stride value {} ", r.vstride)),
        }
        o.s(">");
        swizzle(o, r.swizzle);
        o.s(letters(t));
        return;
    }
    modifiers(o, col, c.opcode, r);
    if r.address_mode == 1 {
        o.s("g[a0");
        if r.ia_subnr != 0 {
            o.s(&format!(".{}", r.ia_subnr));
        }
        if r.ia_imm != 0 {
            o.s(&format!(" {}", ia_imm(r.ia_imm)));
        }
        o.s("]");
    } else {
        if !reg(o, r.file, r.nr) {
            return;
        }
        if r.subnr != 0 {
            o.s(&format!(".{}", r.subnr as u32 / size(t)));
        }
    }
    region1(o, r.vstride, r.width, r.hstride);
    o.s(letters(t));
}

fn imm(o: &mut Out, col: Col, op: u8, ty: u8, bits: u64) {
    let lo = bits as u32;
    match RegType::from_imm(col, ty) {
        Some(RegType::UQ) => o.s(&format!("0x{bits:016x}UQ")),
        Some(RegType::Q) => o.s(&format!("0x{bits:016x}Q")),
        Some(RegType::UD) => o.s(&format!("0x{lo:08x}UD")),
        Some(RegType::D) => o.s(&format!("{}D", lo as i32)),
        Some(RegType::UW) => o.s(&format!("0x{:04x}UW", lo as u16)),
        Some(RegType::W) => o.s(&format!("{}W", lo as u16 as i16)),
        Some(RegType::UV) => o.s(&format!("0x{lo:08x}UV")),
        Some(RegType::V) => o.s(&format!("0x{lo:08x}V")),
        Some(RegType::VF) => {
            o.s(&format!("0x{lo:x}VF"));
            o.pad(48);
            let e: Vec<String> =
                (0..4).map(|i| fmt_g(vf_to_f32((lo >> (8 * i)) as u8) as f64)).collect();
            o.s(&format!("/* [{}F, {}F, {}F, {}F]VF */", e[0], e[1], e[2], e[3]));
        }
        Some(RegType::F) if op == 10 && col == Col::Gen75 => {
            o.s(&format!("0x{bits:x}F"));
            o.pad(48);
            o.s(&format!("/* {}F */", fmt_g(f64::from_bits(bits))));
        }
        Some(RegType::F) => {
            o.s(&format!("0x{lo:x}F"));
            o.pad(48);
            o.s(&format!(" /* {}F */", fmt_g(f32::from_bits(lo) as f64)));
        }
        Some(RegType::DF) => {
            o.s(&format!("0x{bits:016x}DF"));
            o.pad(48);
            o.s(&format!("/* {}DF */", fmt_g(f64::from_bits(bits))));
        }
        Some(RegType::HF) => o.s("Half Float IMM"),
        _ => o.raw(&format!("*** invalid immediate type {ty} ")),
    }
}

fn three(o: &mut Out, col: Col, t: &Three) {
    let dt = RegType::from_3src(col, t.dst_ty);
    o.pad(16);
    reg(o, 1, t.dst_nr);
    let sub = t.dst_subnr as u32 * 4 / size(dt);
    if sub != 0 {
        o.s(&format!(".{sub}"));
    }
    o.s("<1>");
    o.s(WRITEMASK[t.writemask as usize & 15]);
    o.s(letters(dt));
    let st = RegType::from_3src(col, t.src_ty);
    for (i, s) in t.srcs.iter().enumerate() {
        o.pad(32 + 16 * i);
        src3(o, s, st);
    }
}

fn src3(o: &mut Out, s: &Src3, t: Option<RegType>) {
    let scalar = s.rep_ctrl == 1;
    let sub = s.subnr as u32 * 4 / size(t);
    if s.negate == 1 {
        o.s("-");
    }
    if s.abs == 1 {
        o.s("(abs)");
    }
    reg(o, 1, s.nr);
    if sub != 0 || scalar {
        o.s(&format!(".{sub}"));
    }
    if scalar {
        region1(o, 0, 0, 0);
    } else {
        region1(o, 3, 2, 1);
        let z = s.swizzle;
        swizzle(o, [z & 3, (z >> 2) & 3, (z >> 4) & 3, (z >> 6) & 3]);
    }
    o.s(letters(t));
}

fn label(o: &mut Out, col: Col, at: u32, jump: i32, labels: &Labels) {
    let target = at as i64 + jump as i64 * jump_unit(col);
    if let Some(n) = u32::try_from(target).ok().and_then(|t| labels.get(&t)) {
        o.s(&format!(" LABEL{n}"));
    }
}

/// The instruction's text: one line, or two for a send (without the final newline).
/// `at`: its byte offset in the program, for jump labels.
pub fn disasm(inst: &Inst, gen: Gen, at: u32, labels: &Labels) -> Result<String, DecodeError> {
    disasm_as(inst, gen, at, labels, Dialect::Mesa22)
}

/// [`disasm`] as a given Mesa version prints it.
pub fn disasm_as(inst: &Inst, gen: Gen, at: u32, labels: &Labels, dialect: Dialect) -> Result<String, DecodeError> {
    let col = col_of(gen)?;
    let c = &inst.ctrl;
    let op = c.opcode;
    let desc: OpDesc = opcode::by_hw(col, op)
        .ok_or_else(|| DecodeError(format!("opcode {op} does not exist on {gen:?}")))?;
    let mut o = Out::default();
    if c.pred_control != 0 {
        o.s("(");
        o.s(if c.pred_inv == 1 { "-" } else { "+" });
        o.s(&format!("f{}.{}", c.flag_reg_nr, c.flag_subreg_nr));
        let t: &[&str] = if c.access_mode == 1 { &PRED_ALIGN16 } else { &PRED_ALIGN1 };
        control(&mut o, t, c.pred_control, "predicate control");
        o.s(") ");
    }
    o.s(desc.name);
    let send = opcode::is_send(op);
    if !send && c.saturate == 1 {
        o.s(".sat");
    }
    if c.debug_control == 1 {
        o.s(".breakpoint");
    }
    if op == opcode::MATH {
        o.s(" ");
        control(&mut o, &MATH, c.cond_modifier, "function");
    } else if !send {
        control(&mut o, &COND_MOD, c.cond_modifier, "conditional modifier");
        if c.cond_modifier != 0 && !matches!(op, opcode::SEL | opcode::CSEL | opcode::IF | opcode::WHILE) {
            o.s(&format!(".f{}.{}", c.flag_reg_nr, c.flag_subreg_nr));
        }
    }
    if op != opcode::NOP {
        o.s("(");
        control(&mut o, &EXEC_SIZE, c.exec_size, "execution size");
        o.s(")");
    }
    match &inst.form {
        Form::Jump { jip, uip, .. } => {
            o.pad(16);
            o.s("JIP: ");
            label(&mut o, col, at, *jip, labels);
            if opcode::has_uip(col, op) {
                o.pad(38);
                o.s("UIP: ");
                label(&mut o, col, at, *uip, labels);
            }
        }
        Form::Three(t) => three(&mut o, col, t),
        Form::Basic { dst, src0, src1 } => {
            if desc.ndst > 0 {
                o.pad(16);
                dest(&mut o, col, c, dst);
            }
            if desc.nsrc > 0 {
                o.pad(32);
                source(&mut o, col, c, src0);
            }
            if desc.nsrc > 1 {
                o.pad(48);
                source(&mut o, col, c, src1);
            }
        }
        Form::Send { dst, src0, desc: d, .. } => {
            o.pad(16);
            dest(&mut o, col, c, dst);
            o.pad(32);
            source(&mut o, col, c, &Src::Reg(*src0));
            if let Desc::Reg(r) = d {
                o.pad(48);
                let mut r = *r;
                if let Form::Send { src1_file, src1_ty, .. } = inst.form {
                    r.file = src1_file;
                    r.ty = src1_ty;
                }
                source(&mut o, col, c, &Src::Reg(r));
                o.pad(64);
            } else {
                o.pad(48);
            }
            let word = encode(inst, gen)?;
            o.raw(&format!("0x{:08x}", word.0[1] >> 32));
        }
        Form::Split(s) => {
            o.pad(16);
            if s.dst.address_mode == 1 {
                o.s("g[a0");
                if s.dst.ia_subnr != 0 {
                    o.s(&format!(".{}", s.dst.ia_subnr / 4));
                }
                o.s("]<UD");
            } else {
                reg(&mut o, s.dst.file, s.dst.nr);
                if s.dst.subnr != 0 {
                    o.s(&format!(".{}", s.dst.subnr / 16));
                }
                o.s("UD");
            }
            o.pad(32);
            if s.src0.address_mode == 1 {
                o.s("g[a0");
                if s.src0.ia_subnr != 0 {
                    o.s(".1");
                }
                o.s("]UD");
            } else {
                reg(&mut o, 1, s.src0.nr);
                if s.src0.subnr != 0 {
                    o.s(".1");
                }
                o.s("UD");
            }
            o.pad(48);
            reg(&mut o, s.src1_file, s.src1_nr);
            o.s("UD");
            o.pad(64);
            if s.desc_in_reg == 1 {
                o.s("a0<0>UD");
            } else {
                o.raw(&format!("0x{:08x}", s.desc));
            }
            o.pad(80);
            if s.ex_desc_in_reg == 1 {
                o.s("a0");
                if s.ex_desc_ia_subnr != 0 {
                    o.s(&format!(".{}", s.ex_desc_ia_subnr));
                }
                o.s("<0>UD");
            } else {
                o.raw(&format!("0x{:08x}", s.ex_desc));
            }
        }
    }
    if send {
        super::msgdesc::line(&mut o, col, inst, dialect);
    }
    o.pad(64);
    if op != opcode::NOP {
        options(&mut o, col, inst);
    }
    o.s(";");
    Ok(o.text)
}

fn options(o: &mut Out, col: Col, inst: &Inst) {
    let c = &inst.ctrl;
    o.s("{");
    let mut space = true;
    control_sp(o, if c.access_mode == 1 { "align16" } else { "align1" }, &mut space);
    control_sp(o, if c.mask_control == 1 { "WE_all" } else { "" }, &mut space);
    let dep = ["", "NoDDClr", "NoDDChk", "NoDDClr,NoDDChk"][(c.no_dd_check * 2 + c.no_dd_clear) as usize & 3];
    control_sp(o, dep, &mut space);
    let exec = 1u32 << c.exec_size;
    if exec < 8 || c.nib_control == 1 {
        o.s(&format!(" {}N", c.qtr_control * 2 + c.nib_control + 1));
    } else if exec == 8 {
        o.s(&format!(" {}Q", c.qtr_control + 1));
    } else if exec == 16 {
        o.s(if c.qtr_control < 2 { " 1H" } else { " 2H" });
    }
    let tc = THREAD_CTRL.get(c.thread_control as usize).copied().unwrap_or("");
    control_sp(o, tc, &mut space);
    if opcode::has_branch_ctrl(col, c.opcode) {
        control_sp(o, if c.acc_wr_control == 1 { "BranchCtrl" } else { "" }, &mut space);
    } else {
        control_sp(o, if c.acc_wr_control == 1 { "AccWrEnable" } else { "" }, &mut space);
    }
    let eot = match inst.form {
        Form::Send { eot, .. } => eot,
        Form::Split(s) => s.eot,
        _ => 0,
    };
    if opcode::is_send(c.opcode) {
        control_sp(o, if eot == 1 { "EOT" } else { "" }, &mut space);
    }
    if space {
        o.s(" ");
    }
    o.s("}");
}
