//! Mesa's "don't care" policy: the fields its disassembly does not print, filled as Mesa's
//! emitter fills them, so that text → struct → bytes reproduces Mesa's bytes; and what no
//! rule can recover ([`unrecoverable`]).
//!
//! The rules (anchor `/work/shared/anchors/codegen.md`, "Mesa's don't care policy"):
//! 1. An immediate src0 below 8 bytes (`dim`'s 64-bit F included) sets src1's file to ARF
//!    and its type to the immediate's code (`brw_set_src0`).
//! 2. One-source instructions leave src1 zero (no `brw_set_src1`); `wait` has n0 as dst and
//!    src0 and a null F `<8,8,1>` src1 (`brw_WAIT`).
//! 3. Jumps (`brw_IF` ... `brw_HALT`): gen8+ `null:D` dst (none for `endif`, `ip` for
//!    `cont`) and `imm 0:D` src0 — whose src1 type lands in bits 95:64 when no UIP takes
//!    them; gen7 `null:D` src0 (`vec1` for `if`, `ip` for `cont`) and src1 `imm 0:W`
//!    (if/else/endif/while) or `imm 0:D` (break/cont/halt) under the 16-bit JIP/UIP.
//! 4. Gen8+ three-source Src1Type/Src2Type are "half float" exactly when the (printed)
//!    source type is HF (`brw_alu3`); a scalar source's swizzle stays XXXX (0).
//! 5. Split sends keep src0's file field 0 (`brw_set_src0` writes only its number), though
//!    the printer shows a GRF.
//!
//! A compacted line prints Mesa's `precompact` copy (under an immediate src0, src1's type
//! is UD): that rewrite is not a rule here but [`crate::compact::precompact`], which
//! [`super::line`] applies before compacting, as `brw_compact_instructions` does. The
//! policy gives the instruction as Mesa generated it, compacted or not.
//!
//! Rules applied while parsing (see [`super::parse_operand`]): W/UW immediates hold their
//! 16 bits twice (`brw_imm_w`/`brw_imm_uw`); an indirect operand's file is GRF; an Align16
//! destination without a mask suffix writes xyzw; `1H` is quarter 0 and `2H` quarter 2; a
//! send's printed descriptor word carries EOT in bit 31, taken from the options instead.
//!
//! Fields no rule names are zero: the flag register where neither predicate nor
//! conditional modifier prints it, thread/dependency controls not printed. Every native line
//! of the eight corpora bears the rules out except the cases [`unrecoverable`] names.
//!
//! Sources: Mesa 23.0 `brw_eu_emit.c` (`brw_set_dest`, `brw_set_src0`, `brw_set_src1`,
//! `brw_IF`/`brw_ELSE`/`brw_ENDIF`/`brw_WHILE`/`brw_BREAK`/`brw_CONT`/`brw_HALT`/`brw_WAIT`,
//! `brw_alu3`), `brw_reg.h` (`brw_imm_uw`, `brw_imm_w`, `brw_null_reg`, `brw_ip_reg`).

use super::codec::uip_under_imm_src0;
use super::field::Col;
use super::inst::{Ctrl, Form, Inst, Reg, Src};
use super::opcode;
use super::parse::Seen;
use super::types::RegType;

/// Fills what the text left unprinted, as Mesa's emitter did (before any compaction).
pub fn apply(inst: &mut Inst, col: Col) {
    let op = inst.ctrl.opcode;
    let nsrc = opcode::by_hw(col, op).map_or(0, |d| d.nsrc);
    match &mut inst.form {
        Form::Basic { dst, src0, src1 } => {
            // brw_set_src0: an immediate of a type below 8 bytes (also `dim`'s F, whose
            // value is 64 bits) sets src1's file to ARF and its type to the immediate's code.
            let small = |ty| RegType::from_imm(col, ty).is_some_and(|t| t.size() < 8);
            if let Src::Imm { ty, .. } = *src0 {
                if small(ty) {
                    *src1 = Src::Reg(Reg {
                        file: 0,
                        ty,
                        ..Reg::default()
                    });
                }
            } else if op == opcode::WAIT {
                // brw_WAIT: dst and src0 the notification register n0 (<0,1,0>), src1 null
                // (brw_null_reg: F, <8,8,1>).
                let mut n0 = Reg {
                    hstride: 0,
                    writemask: 0,
                    ..*dst
                };
                region(&mut n0, &inst.ctrl, (0, 0, 0));
                *src0 = Src::Reg(n0);
                let f = RegType::F.reg_code(col).unwrap();
                let mut null = Reg {
                    file: 0,
                    ty: f,
                    ..Reg::default()
                };
                region(&mut null, &inst.ctrl, (4, 3, 1));
                *src1 = Src::Reg(null);
            } else if nsrc < 2 {
                // One-source instructions never call brw_set_src1: zero.
                *src1 = Src::Reg(Reg::default());
            }
        }
        Form::Jump {
            dst,
            src0,
            src1,
            uip,
            ..
        } => jump(col, &inst.ctrl, dst, src0, src1, uip),
        // brw_set_src0 for split sends writes only src0's number and subregister: its file
        // field stays 0 although the printer shows a GRF; the parse leaves it 0.
        Form::Split(_) | Form::Send(_) => {}
        Form::Three(t) => {
            // brw_alu3 (gen8+): Src1Type/Src2Type say "half float" for HF sources; the text
            // prints every source with the one source type.
            if col.gen8_plus() {
                let hf = RegType::from_3src(col, t.src_ty) == Some(RegType::HF);
                t.src1_hf = hf as u8;
                t.src2_hf = hf as u8;
            }
        }
    }
}

/// Why a parsed instruction cannot be reproduced from its text alone, if it cannot.
pub fn unrecoverable(seen: &Seen) -> Option<&'static str> {
    if seen.unlabelled_jump {
        return Some("jump target without a label");
    }
    if seen.hf_imm {
        return Some("half-float immediate: Mesa prints `Half Float IMM`, not its value");
    }
    None
}

/// Mesa's registers as `brw_set_dest`/`brw_set_src0` encode them: `null`/`ip` with a type.
fn null(ty: u8) -> Reg {
    Reg {
        file: 0,
        ty,
        hstride: 1,
        ..Reg::default()
    }
}

/// A source region as brw_set_src0 encodes it: Align1 `<v,w,h>` (`<0,1,0>` when width and
/// execution size are 1), Align16 swizzle XYZW and vertical stride 8 written as 4.
fn region(r: &mut Reg, c: &Ctrl, (v, w, h): (u8, u8, u8)) {
    if c.access_mode == 1 {
        r.swizzle = [0, 1, 2, 3];
        r.vstride = if v == 4 { 3 } else { v };
    } else if w == 0 && c.exec_size == 0 {
        (r.vstride, r.width, r.hstride) = (0, 0, 0);
    } else {
        (r.vstride, r.width, r.hstride) = (v, w, h);
    }
}

/// brw_IF, brw_ELSE, brw_ENDIF, brw_WHILE, brw_BREAK, brw_CONT, brw_HALT (gen7 and gen8+).
fn jump(
    col: Col,
    c: &Ctrl,
    dst: &mut Reg,
    src0: &mut Reg,
    src1: &mut Option<(u8, u8)>,
    uip: &mut i32,
) {
    let op = c.opcode;
    let d = RegType::D.reg_code(col).unwrap();
    let ud = RegType::UD.reg_code(col).unwrap();
    let imm_d = RegType::D.imm_code(col).unwrap();
    let imm_w = RegType::W.imm_code(col).unwrap();
    const IP: u8 = 0xa0;
    *dst = match op {
        opcode::CONT => Reg { nr: IP, ..null(ud) },
        opcode::ENDIF if col.gen8_plus() => Reg::default(),
        _ => null(d),
    };
    if c.access_mode == 1 && *dst != Reg::default() {
        dst.writemask = 0xf;
    }
    if col.gen8_plus() {
        *src0 = Reg {
            file: 3,
            ty: imm_d,
            ..Reg::default()
        };
        *src1 = None;
        if !opcode::has_uip(col, op) {
            *uip = uip_under_imm_src0(col, imm_d);
        }
        return;
    }
    // Gen7: src0 null:D (vec1 for `if`), ip for `cont`; src1 imm W for the if/else family,
    // imm D for break/cont/halt.
    *src0 = match op {
        opcode::CONT => Reg { nr: IP, ..null(ud) },
        _ => null(d),
    };
    src0.hstride = 0;
    let reg_region = match op {
        opcode::IF => (0, 0, 0),
        opcode::CONT => (3, 0, 0),
        _ => (4, 3, 1),
    };
    region(src0, c, reg_region);
    let ty = if matches!(op, opcode::BREAK | opcode::CONT | opcode::HALT) {
        imm_d
    } else {
        imm_w
    };
    *src1 = Some((3, ty));
}
