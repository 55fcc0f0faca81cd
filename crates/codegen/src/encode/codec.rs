//! encode(struct, gen) → native word and decode(word, gen) → struct, both through the field
//! table ([`super::field`]), form by form, in the same order so that they are inverse.
//!
//! Source: which fields each form uses follows Mesa 23.0 `brw_disasm.c` (what it reads per
//! opcode) and `brw_eu_emit.c` (`brw_set_dest`, `brw_set_src0/1`, `brw_set_desc`,
//! `brw_set_uip_jip`); field positions are the table's.

use eubatch_ir::Gen;

use super::field::{Col, Field as F, NativeInst};
use super::forms::{jump, send, split, three};
use super::inst::{Ctrl, Desc, Form, Inst, Reg, Send, Split, Src, Three};
use super::opcode;
use super::types::RegType;
use super::walk::{on_col, Fixed, Logging, Mode, W};

/// Why a word cannot be decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeError(pub String);

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

pub fn col_of(gen: Gen) -> Result<Col, DecodeError> {
    Col::of(gen).ok_or_else(|| DecodeError(format!("{gen:?}: no column in the field table")))
}

/// Whether the form of `opcode` is three-source (`desc->nsrc == 3`).
pub fn is_three(col: Col, op: u8) -> bool {
    opcode::by_hw(col, op).is_some_and(|d| d.nsrc == 3)
}

/// A 64-bit immediate: DF/UQ/Q, and `dim`'s F (brw_disasm.c `imm`).
pub fn imm_is_wide(col: Col, op: u8, ty: u8) -> bool {
    matches!(
        RegType::from_imm(col, ty),
        Some(RegType::DF | RegType::UQ | RegType::Q)
    ) || (op == 10 && col == Col::Gen75)
}

fn ctrl(w: &mut W<'_, impl Mode>, c: &mut Ctrl, three: bool) {
    w.f(F::hw_opcode, &mut c.opcode);
    w.f(F::access_mode, &mut c.access_mode);
    w.f(F::no_dd_clear, &mut c.no_dd_clear);
    w.f(F::no_dd_check, &mut c.no_dd_check);
    w.f(F::qtr_control, &mut c.qtr_control);
    w.f(F::thread_control, &mut c.thread_control);
    w.f(F::pred_control, &mut c.pred_control);
    w.f(F::pred_inv, &mut c.pred_inv);
    w.f(F::exec_size, &mut c.exec_size);
    w.f(F::cond_modifier, &mut c.cond_modifier);
    w.f(F::acc_wr_control, &mut c.acc_wr_control);
    w.f(F::debug_control, &mut c.debug_control);
    w.f(F::saturate, &mut c.saturate);
    if three {
        w.f(F::src3_mask_control, &mut c.mask_control);
        w.f(F::src3_nib_ctrl, &mut c.nib_control);
        w.f(F::src3_flag_reg_nr, &mut c.flag_reg_nr);
        w.f(F::src3_flag_subreg_nr, &mut c.flag_subreg_nr);
    } else {
        w.f(F::mask_control, &mut c.mask_control);
        w.f(F::nib_control, &mut c.nib_control);
        w.f(F::flag_reg_nr, &mut c.flag_reg_nr);
        w.f(F::flag_subreg_nr, &mut c.flag_subreg_nr);
    }
}

#[inline(always)]
pub(super) fn dst(w: &mut W<'_, impl Mode>, d: &mut Reg, a16: bool) {
    w.f(F::dst_reg_file, &mut d.file);
    w.f(F::dst_reg_hw_type, &mut d.ty);
    w.f(F::dst_address_mode, &mut d.address_mode);
    w.f(F::dst_hstride, &mut d.hstride);
    if d.address_mode == 1 {
        w.f(F::dst_ia_subreg_nr, &mut d.ia_subnr);
        w.f(F::dst_ia1_addr_imm, &mut d.ia_imm);
        return;
    }
    w.f(F::dst_da_reg_nr, &mut d.nr);
    if a16 {
        let mut s = d.subnr / 16;
        w.f(F::dst_da16_subreg_nr, &mut s);
        d.subnr = s * 16;
        w.f(F::da16_writemask, &mut d.writemask);
    } else {
        w.f(F::dst_da1_subreg_nr, &mut d.subnr);
    }
}

/// Source `i` (0 or 1): file and type only. Inlined, here and in the operand walks: with
/// `i` a constant the field (and so its place in the word) is one.
#[inline(always)]
pub(super) fn src_file_type(w: &mut W<'_, impl Mode>, i: usize, file: &mut u8, ty: &mut u8) {
    let (ff, ft) = [
        (F::src0_reg_file, F::src0_reg_hw_type),
        (F::src1_reg_file, F::src1_reg_hw_type),
    ][i];
    w.f(ff, file);
    w.f(ft, ty);
}

/// Source `i`'s register fields (region, number, modifiers), not file and type.
#[inline(always)]
pub(super) fn src_reg(w: &mut W<'_, impl Mode>, i: usize, s: &mut Reg, a16: bool) {
    let f = if i == 0 {
        [
            F::src0_address_mode,
            F::src0_ia_subreg_nr,
            F::src0_ia1_addr_imm,
            F::src0_da_reg_nr,
            F::src0_da16_subreg_nr,
            F::src0_da1_subreg_nr,
            F::src0_vstride,
            F::src0_width,
            F::src0_hstride,
            F::src0_da16_swiz_x,
            F::src0_da16_swiz_y,
            F::src0_da16_swiz_z,
            F::src0_da16_swiz_w,
            F::src0_abs,
            F::src0_negate,
        ]
    } else {
        [
            F::src1_address_mode,
            F::src1_ia_subreg_nr,
            F::src1_ia1_addr_imm,
            F::src1_da_reg_nr,
            F::src1_da16_subreg_nr,
            F::src1_da1_subreg_nr,
            F::src1_vstride,
            F::src1_width,
            F::src1_hstride,
            F::src1_da16_swiz_x,
            F::src1_da16_swiz_y,
            F::src1_da16_swiz_z,
            F::src1_da16_swiz_w,
            F::src1_abs,
            F::src1_negate,
        ]
    };
    w.f(f[0], &mut s.address_mode);
    w.f(f[13], &mut s.abs);
    w.f(f[14], &mut s.negate);
    w.f(f[6], &mut s.vstride);
    if s.address_mode == 1 {
        w.f(f[1], &mut s.ia_subnr);
        w.f(f[2], &mut s.ia_imm);
    } else {
        w.f(f[3], &mut s.nr);
    }
    if a16 {
        if s.address_mode == 0 {
            let mut b = s.subnr / 16;
            w.f(f[4], &mut b);
            s.subnr = b * 16;
        }
        for k in 0..4 {
            w.f(f[9 + k], &mut s.swizzle[k]);
        }
    } else {
        if s.address_mode == 0 {
            w.f(f[5], &mut s.subnr);
        }
        w.f(f[7], &mut s.width);
        w.f(f[8], &mut s.hstride);
    }
}

#[inline(always)]
fn src(w: &mut W<'_, impl Mode>, i: usize, s: &mut Src, a16: bool, op: u8) {
    let (mut file, mut ty) = match s {
        Src::Reg(r) => (r.file, r.ty),
        Src::Imm { ty, .. } => (3, *ty),
    };
    src_file_type(w, i, &mut file, &mut ty);
    if w.decode() {
        *s = if file == 3 {
            Src::Imm {
                ty,
                bits: 0,
                wide: imm_is_wide(w.col(), op, ty),
            }
        } else {
            Src::Reg(Reg {
                file,
                ty,
                ..Reg::default()
            })
        };
    }
    match s {
        Src::Reg(r) => src_reg(w, i, r, a16),
        Src::Imm { bits, wide, .. } => {
            let f = if *wide { F::imm64 } else { F::imm32 };
            w.f(f, bits);
        }
    }
}

fn basic(w: &mut W<'_, impl Mode>, c: &Ctrl, d: &mut Reg, s0: &mut Src, s1: &mut Src) {
    let a16 = c.access_mode == 1;
    dst(w, d, a16);
    // An immediate src0 takes the high bits, and src1 keeps only what lies outside them:
    // its file and type (below bit 96, or in the low word on gen7) unless it is 64 bits.
    let (mut f0, mut t0) = match s0 {
        Src::Reg(r) => (r.file, r.ty),
        Src::Imm { ty, .. } => (3, *ty),
    };
    src_file_type(w, 0, &mut f0, &mut t0);
    if f0 == 3 {
        src(w, 0, s0, a16, c.opcode);
        let wide = matches!(s0, Src::Imm { wide: true, .. });
        if !(wide && w.col().gen8_plus()) {
            let (mut f1, mut t1) = match s1 {
                Src::Reg(r) => (r.file, r.ty),
                Src::Imm { ty, .. } => (3, *ty),
            };
            src_file_type(w, 1, &mut f1, &mut t1);
            if w.decode() {
                *s1 = Src::Reg(Reg {
                    file: f1,
                    ty: t1,
                    ..Reg::default()
                });
            }
        } else if w.decode() {
            *s1 = Src::Reg(Reg::default());
        }
    } else {
        src(w, 0, s0, a16, c.opcode);
        src(w, 1, s1, a16, c.opcode);
    }
}

fn fields(w: &mut W<'_, impl Mode>, inst: &mut Inst) {
    let three_form = matches!(inst.form, Form::Three(_));
    ctrl(w, &mut inst.ctrl, three_form);
    let c = inst.ctrl;
    match &mut inst.form {
        Form::Basic { dst: d, src0, src1 } => basic(w, &c, d, src0, src1),
        Form::Jump {
            dst: d,
            src0,
            src1,
            jip,
            uip,
        } => jump(w, c.access_mode == 1, d, src0, src1, jip, uip),
        Form::Send(s) => send(w, &c, s),
        Form::Split(s) => split(w, s),
        Form::Three(t) => three(w, t),
    }
}

/// The empty form an opcode takes (decode fills it).
pub fn form_of(col: Col, op: u8) -> Form {
    if opcode::is_split_send(op) {
        Form::Split(Split::default())
    } else if opcode::is_send(op) {
        Form::Send(Send {
            dst: Reg::default(),
            src0: Reg::default(),
            src1_file: 0,
            src1_ty: 0,
            desc: Desc::Imm(0),
            eot: 0,
        })
    } else if opcode::has_jip(op) {
        Form::Jump {
            dst: Reg::default(),
            src0: Reg::default(),
            src1: None,
            jip: 0,
            uip: 0,
        }
    } else if is_three(col, op) {
        Form::Three(Three::default())
    } else {
        let r = Src::Reg(Reg::default());
        Form::Basic {
            dst: Reg::default(),
            src0: r,
            src1: r,
        }
    }
}

/// The word of a decoded instruction.
pub fn encode(inst: &Inst, gen: Gen) -> Result<NativeInst, DecodeError> {
    let col = col_of(gen)?;
    let mut n = NativeInst::default();
    let mut copy = *inst;
    on_col!(col, false, &mut n, |w| fields(w, &mut copy));
    n.0[0] ^= inst.residue[0];
    n.0[1] ^= inst.residue[1];
    Ok(n)
}

/// Decodes a native word. Errors: a compacted word, an opcode gen7–9 do not have.
pub fn decode(n: NativeInst, gen: Gen) -> Result<Inst, DecodeError> {
    let mut inst = decode_fields(n, gen)?;
    let again = encode(&inst, gen)?;
    inst.residue = [n.0[0] ^ again.0[0], n.0[1] ^ again.0[1]];
    Ok(inst)
}

/// [`decode`] without the residue (the bits no field names, found by encoding the fields
/// again): what printing needs, at half the cost.
pub fn decode_fields(n: NativeInst, gen: Gen) -> Result<Inst, DecodeError> {
    let col = col_of(gen)?;
    if n.get(F::cmpt_control, col) == 1 {
        return Err(DecodeError(
            "compacted instruction: uncompact it first".into(),
        ));
    }
    let op = n.get(F::hw_opcode, col) as u8;
    if opcode::by_hw(col, op).is_none() {
        return Err(DecodeError(format!(
            "opcode {op} does not exist on {gen:?}"
        )));
    }
    let mut inst = Inst {
        ctrl: Ctrl::default(),
        form: form_of(col, op),
        residue: [0; 2],
    };
    let mut copy = n;
    on_col!(col, true, &mut copy, |w| fields(w, &mut inst));
    Ok(inst)
}

/// A send's register descriptor from the raw bits 127:96 its disassembly prints.
pub fn src1_from_high(col: Col, hi: u32, a16: bool) -> Reg {
    let mut n = NativeInst([0, (hi as u64) << 32]);
    let mut r = Reg::default();
    on_col!(col, true, &mut n, |w| src_reg(w, 1, &mut r, a16));
    r
}

/// Names the fields in which two words of the same instruction differ: each differing bit
/// is owned by the last field `inst`'s encoding wrote there; bits no field wrote are
/// `bit N`. For grouping mismatches by cause.
pub fn differing_fields(inst: &Inst, gen: Gen, a: NativeInst, b: NativeInst) -> Vec<String> {
    let Ok(col) = col_of(gen) else {
        return vec!["generation".into()];
    };
    let mut log = Vec::new();
    let mut n = NativeInst::default();
    let mut copy = *inst;
    fields(
        &mut W {
            n: &mut n,
            m: Logging { col, log: &mut log },
        },
        &mut copy,
    );
    let mut names: Vec<String> = Vec::new();
    for bit in 0..128u32 {
        let w = (bit / 64) as usize;
        if (a.0[w] ^ b.0[w]) >> (bit % 64) & 1 == 0 {
            continue;
        }
        let owner = log.iter().rev().find(|f| {
            f.pieces(col)
                .iter()
                .any(|&(hi, lo)| (lo as u32..=hi as u32).contains(&bit))
        });
        let name = owner.map_or_else(|| format!("bit {bit}"), |f| f.name().to_string());
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

/// The bits 95:64 (gen8+ UIP) that Mesa's `brw_set_src0` leaves for an immediate src0 of
/// type code `ty`: src1's file ARF and type `ty` (what a jump without UIP keeps there).
pub fn uip_under_imm_src0(col: Col, ty: u8) -> i32 {
    let mut n = NativeInst::default();
    n.set(F::src1_reg_file, col, 0);
    n.set(F::src1_reg_hw_type, col, ty as u64);
    n.get(F::uip, col) as u32 as i32
}
