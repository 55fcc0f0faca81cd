//! Mesa's "don't care" policy: the fields its disassembly does not print, filled as Mesa's
//! emitter fills them, so that text → struct → bytes reproduces Mesa's bytes. Each rule
//! names its source; what no rule can recover is reported by [`unrecoverable`].
//!
//! Sources: Mesa 23.0 `brw_eu_emit.c` (`brw_set_dest`, `brw_set_src0`, `brw_set_src1`,
//! `brw_IF`/`brw_ELSE`/`brw_ENDIF`/`brw_WHILE`/`brw_BREAK`/`brw_CONT`/`brw_HALT`,
//! `brw_send_indirect_message`, `brw_send_indirect_split_message`, `brw_alu3`),
//! `brw_reg.h` (`brw_imm_uw`, `brw_imm_w`), and `/work/shared/anchors/codegen.md`.

use super::field::Col;
use super::inst::{Form, Inst, Reg, Src};
use super::opcode;
use super::parse::Seen;
use super::types::RegType;

/// Fills what the text left unprinted.
pub fn apply(inst: &mut Inst, col: Col) {
    let op = inst.ctrl.opcode;
    let nsrc = opcode::by_hw(col, op).map_or(0, |d| d.nsrc);
    match &mut inst.form {
        Form::Basic { src0, src1, .. } => {
            // brw_set_src0: an immediate below 8 bytes sets src1's file to ARF and its type
            // to the immediate's type code.
            if let Src::Imm { ty, wide: false, .. } = *src0 {
                *src1 = Src::Reg(Reg { file: 0, ty, ..Reg::default() });
            } else if nsrc < 2 {
                // One-source instructions never call brw_set_src1: zero.
                *src1 = Src::Reg(Reg::default());
            }
        }
        Form::Jump { dst, src0, src1, .. } => {
            // brw_IF & co.: `null:D` destination (Align1 stride 1); gen8+ src0 `imm 0:D`;
            // gen7 src0 `null:D` <0,1,0> and src1 `imm 0:D` under the jump offsets.
            let d_code = RegType::D.reg_code(col).unwrap();
            *dst = Reg { file: 0, ty: d_code, hstride: 1, ..Reg::default() };
            if col.gen8_plus() {
                *src0 = Reg { file: 3, ty: RegType::D.imm_code(col).unwrap(), ..Reg::default() };
                *src1 = None;
            } else {
                *src0 = Reg { file: 0, ty: d_code, width: 0, ..Reg::default() };
                *src1 = Some((3, RegType::D.imm_code(col).unwrap()));
            }
        }
        Form::Split(s) => {
            // brw_set_src0 for split sends: src0 is a GRF (its file is not printed).
            s.src0.file = 1;
        }
        Form::Send { .. } | Form::Three(_) => {}
    }
}

/// Why a parsed instruction cannot be reproduced from its text alone, if it cannot.
pub fn unrecoverable(inst: &Inst, seen: &Seen) -> Option<&'static str> {
    if seen.unlabelled_jump {
        return Some("jump target without a label");
    }
    let _ = inst;
    None
}
