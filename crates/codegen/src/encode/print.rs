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
use super::inst::{Desc, Form, Inst, Src};
use super::opcode::{self, OpDesc};
use super::out::Out;
use super::print_operand::{control, dest, reg, source, three};
use super::tables::*;

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

fn label(o: &mut Out, col: Col, at: u32, jump: i32, labels: &Labels) {
    let target = at as i64 + jump as i64 * jump_unit(col);
    if let Some(n) = u32::try_from(target).ok().and_then(|t| labels.get(&t)) {
        o.s(&format!(" LABEL{n}"));
    }
}

/// The instruction's text: one line, or two for a send (without the final newline).
/// `at`: its byte offset in the program, for jump labels.
pub fn disasm(inst: &Inst, gen: Gen, at: u32, labels: &Labels) -> Result<String, DecodeError> {
    disasm_as(inst, gen, at, labels, Style::default())
}

/// How to print: which Mesa's text, and whether the instruction was compacted (Mesa then
/// adds `compacted` to the options of the uncompacted instruction it prints).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Style {
    pub dialect: Dialect,
    pub compacted: bool,
}

/// [`disasm`] in a given [`Style`].
pub fn disasm_as(
    inst: &Inst,
    gen: Gen,
    at: u32,
    labels: &Labels,
    style: Style,
) -> Result<String, DecodeError> {
    let dialect = style.dialect;
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
        let t: &[&str] = if c.access_mode == 1 {
            &PRED_ALIGN16
        } else {
            &PRED_ALIGN1
        };
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
        if c.cond_modifier != 0
            && !matches!(op, opcode::SEL | opcode::CSEL | opcode::IF | opcode::WHILE)
        {
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
        Form::Send(s) => {
            let (dst, src0, d) = (&s.dst, &s.src0, &s.desc);
            o.pad(16);
            dest(&mut o, col, c, dst);
            o.pad(32);
            source(&mut o, col, c, &Src::Reg(*src0));
            if let Desc::Reg(r) = d {
                o.pad(48);
                let mut r = *r;
                r.file = s.src1_file;
                r.ty = s.src1_ty;
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
        options(&mut o, col, inst, style.compacted);
    }
    o.s(";");
    Ok(o.text)
}

fn options(o: &mut Out, col: Col, inst: &Inst, compacted: bool) {
    let c = &inst.ctrl;
    o.s("{");
    let mut space = true;
    control_sp(
        o,
        if c.access_mode == 1 {
            "align16"
        } else {
            "align1"
        },
        &mut space,
    );
    control_sp(
        o,
        if c.mask_control == 1 { "WE_all" } else { "" },
        &mut space,
    );
    let dep = ["", "NoDDClr", "NoDDChk", "NoDDClr,NoDDChk"]
        [(c.no_dd_check * 2 + c.no_dd_clear) as usize & 3];
    control_sp(o, dep, &mut space);
    let exec = 1u32 << c.exec_size;
    if exec < 8 || c.nib_control == 1 {
        o.s(&format!(" {}N", c.qtr_control * 2 + c.nib_control + 1));
    } else if exec == 8 {
        o.s(&format!(" {}Q", c.qtr_control + 1));
    } else if exec == 16 {
        o.s(if c.qtr_control < 2 { " 1H" } else { " 2H" });
    }
    control_sp(o, if compacted { "compacted" } else { "" }, &mut space);
    let tc = THREAD_CTRL
        .get(c.thread_control as usize)
        .copied()
        .unwrap_or("");
    control_sp(o, tc, &mut space);
    if opcode::has_branch_ctrl(col, c.opcode) {
        control_sp(
            o,
            if c.acc_wr_control == 1 {
                "BranchCtrl"
            } else {
                ""
            },
            &mut space,
        );
    } else {
        control_sp(
            o,
            if c.acc_wr_control == 1 {
                "AccWrEnable"
            } else {
                ""
            },
            &mut space,
        );
    }
    let eot = match inst.form {
        Form::Send(s) => s.eot,
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
