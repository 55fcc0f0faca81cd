//! The field walks of the jump, send, split-send and three-source forms (the two-source
//! form and the shared operand walks are in [`super::codec`]).
//!
//! Source: Mesa 23.0 `brw_inst.h` (`brw_inst_set_jip`/`uip`, "SEND instructions",
//! `brw_inst_set_sends_ex_desc`, "Three-source instructions") and `brw_eu_emit.c`
//! (`brw_set_desc_ex`, `brw_alu3`) for which fields each form writes.

use super::codec::{dst, src_file_type, src_reg};
use super::field::Field as F;
use super::inst::{Ctrl, Desc, Reg, Send, Split, Src3, Three};
use super::walk::{Mode, W};

pub(super) fn jump(
    w: &mut W<'_, impl Mode>,
    a16: bool,
    d: &mut Reg,
    s0: &mut Reg,
    s1: &mut Option<(u8, u8)>,
    jip: &mut i32,
    uip: &mut i32,
) {
    dst(w, d, a16);
    src_file_type(w, 0, &mut s0.file, &mut s0.ty);
    let gen7 = !w.col().gen8_plus();
    if gen7 {
        src_reg(w, 0, s0, a16);
        let (mut f, mut t) = s1.unwrap_or((0, 0));
        src_file_type(w, 1, &mut f, &mut t);
        *s1 = Some((f, t));
    }
    let mut j = *jip as u32 as u64 & if gen7 { 0xffff } else { 0xffff_ffff };
    let mut u = *uip as u32 as u64 & if gen7 { 0xffff } else { 0xffff_ffff };
    w.f(F::jip, &mut j);
    w.f(F::uip, &mut u);
    if w.decode() {
        *jip = if gen7 {
            j as u16 as i16 as i32
        } else {
            j as u32 as i32
        };
        *uip = if gen7 {
            u as u16 as i16 as i32
        } else {
            u as u32 as i32
        };
    }
}

pub(super) fn send(w: &mut W<'_, impl Mode>, c: &Ctrl, s: &mut Send) {
    let a16 = c.access_mode == 1;
    dst(w, &mut s.dst, a16);
    src_file_type(w, 0, &mut s.src0.file, &mut s.src0.ty);
    src_reg(w, 0, &mut s.src0, a16);
    src_file_type(w, 1, &mut s.src1_file, &mut s.src1_ty);
    if w.decode() {
        s.desc = if s.src1_file == 3 {
            Desc::Imm(0)
        } else {
            Desc::Reg(Reg::default())
        };
    }
    match &mut s.desc {
        Desc::Imm(v) => {
            let mut x = *v as u64;
            w.f(F::send_desc, &mut x);
            *v = x as u32;
        }
        Desc::Reg(r) => src_reg(w, 1, r, a16),
    }
    w.f(F::eot, &mut s.eot);
}

pub(super) fn split(w: &mut W<'_, impl Mode>, s: &mut Split) {
    w.f(F::send_dst_reg_file, &mut s.dst.file);
    w.f(F::dst_address_mode, &mut s.dst.address_mode);
    if s.dst.address_mode == 1 {
        w.f(F::dst_ia_subreg_nr, &mut s.dst.ia_subnr);
        w.f(F::dst_ia1_addr_imm, &mut s.dst.ia_imm);
    } else {
        w.f(F::dst_da_reg_nr, &mut s.dst.nr);
        let mut b = s.dst.subnr / 16;
        w.f(F::dst_da16_subreg_nr, &mut b);
        s.dst.subnr = b * 16;
    }
    w.f(F::src0_reg_file, &mut s.src0.file);
    w.f(F::src0_address_mode, &mut s.src0.address_mode);
    if s.src0.address_mode == 1 {
        w.f(F::src0_ia_subreg_nr, &mut s.src0.ia_subnr);
        w.f(F::src0_ia1_addr_imm, &mut s.src0.ia_imm);
    } else {
        w.f(F::src0_da_reg_nr, &mut s.src0.nr);
        let mut b = s.src0.subnr / 16;
        w.f(F::src0_da16_subreg_nr, &mut b);
        s.src0.subnr = b * 16;
    }
    w.f(F::send_src1_reg_file, &mut s.src1_file);
    w.f(F::send_src1_reg_nr, &mut s.src1_nr);
    w.f(F::send_sel_reg32_desc, &mut s.desc_in_reg);
    w.f(F::send_sel_reg32_ex_desc, &mut s.ex_desc_in_reg);
    if s.desc_in_reg == 0 {
        let mut x = s.desc as u64;
        w.f(F::send_desc, &mut x);
        s.desc = x as u32;
    }
    if s.ex_desc_in_reg == 0 {
        // brw_inst_set_sends_ex_desc: value bits 31:16 and 9:6.
        let mut hi = (s.ex_desc >> 16) as u64;
        let mut lo = ((s.ex_desc >> 6) & 0xf) as u64;
        w.f(F::sends_ex_desc_hi, &mut hi);
        w.f(F::sends_ex_desc_lo, &mut lo);
        s.ex_desc = ((hi as u32) << 16) | ((lo as u32) << 6);
    } else {
        w.f(F::send_ex_desc_ia_subreg_nr, &mut s.ex_desc_ia_subnr);
    }
    w.f(F::eot, &mut s.eot);
}

pub(super) fn three(w: &mut W<'_, impl Mode>, t: &mut Three) {
    w.f(F::src3_dst_reg_nr, &mut t.dst_nr);
    w.f(F::src3_a16_dst_subreg_nr, &mut t.dst_subnr);
    w.f(F::src3_a16_dst_writemask, &mut t.writemask);
    w.f(F::src3_a16_dst_hw_type, &mut t.dst_ty);
    w.f(F::src3_a16_src_hw_type, &mut t.src_ty);
    w.f(F::src3_a16_src1_type, &mut t.src1_hf);
    w.f(F::src3_a16_src2_type, &mut t.src2_hf);
    let f = [
        [
            F::src3_src0_reg_nr,
            F::src3_src0_subreg_nr,
            F::src3_src0_swizzle,
            F::src3_src0_rep_ctrl,
            F::src3_src0_abs,
            F::src3_src0_negate,
        ],
        [
            F::src3_src1_reg_nr,
            F::src3_src1_subreg_nr,
            F::src3_src1_swizzle,
            F::src3_src1_rep_ctrl,
            F::src3_src1_abs,
            F::src3_src1_negate,
        ],
        [
            F::src3_src2_reg_nr,
            F::src3_src2_subreg_nr,
            F::src3_src2_swizzle,
            F::src3_src2_rep_ctrl,
            F::src3_src2_abs,
            F::src3_src2_negate,
        ],
    ];
    for (s, f) in t.srcs.iter_mut().zip(f) {
        let s: &mut Src3 = s;
        w.f(f[0], &mut s.nr);
        w.f(f[1], &mut s.subnr);
        w.f(f[2], &mut s.swizzle);
        w.f(f[3], &mut s.rep_ctrl);
        w.f(f[4], &mut s.abs);
        w.f(f[5], &mut s.negate);
    }
}
