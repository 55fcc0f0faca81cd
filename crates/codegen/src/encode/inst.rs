//! The decoded instruction: every field of a native gen7–9 instruction, grouped by the form
//! the opcode gives the word (two-source ALU, jump, send, split send, three-source Align16).
//!
//! Values are the hardware's codes (register file 0 ARF / 1 GRF / 2 MRF / 3 immediate,
//! type codes of `brw_reg_type.c`, region fields as encoded, subregisters in bytes), so that
//! [`super::codec`] maps it to and from the word field by field. What no field of the form
//! covers is kept in `residue` (bits Mesa set that this model does not name), so bytes →
//! struct → bytes is exact by construction and any unmodelled bit is visible.

/// Instruction control fields common to all forms (brw_inst.h, bits 0–31 plus the flag
/// register, nibble control and mask control, which moved between generations).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ctrl {
    pub opcode: u8,
    /// 0 Align1, 1 Align16.
    pub access_mode: u8,
    /// 1: WE_all.
    pub mask_control: u8,
    pub no_dd_clear: u8,
    pub no_dd_check: u8,
    pub qtr_control: u8,
    pub nib_control: u8,
    /// 0 normal, 1 atomic, 2 switch.
    pub thread_control: u8,
    pub pred_control: u8,
    pub pred_inv: u8,
    /// log2 of the execution size.
    pub exec_size: u8,
    /// Conditional modifier; the math function on `math`; the SFID on sends.
    pub cond_modifier: u8,
    /// AccWrEnable; BranchCtrl on gen8+ `if`/`else`.
    pub acc_wr_control: u8,
    pub debug_control: u8,
    pub saturate: u8,
    pub flag_reg_nr: u8,
    pub flag_subreg_nr: u8,
}

/// A register operand of the two-source form (destination or source).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Reg {
    /// 0 ARF, 1 GRF, 2 MRF, 3 immediate.
    pub file: u8,
    /// Hardware type code (register or immediate table by `file`).
    pub ty: u8,
    pub nr: u8,
    /// Byte offset in the register (Align16: 0 or 16).
    pub subnr: u8,
    /// 0 direct, 1 indirect through `a0`.
    pub address_mode: u8,
    pub ia_subnr: u8,
    /// Raw address immediate field (two's complement in its width).
    pub ia_imm: u16,
    /// Encoded strides and width (Align1), vertical stride (Align16).
    pub vstride: u8,
    pub width: u8,
    pub hstride: u8,
    /// Align16 swizzle (x, y, z, w), two bits each.
    pub swizzle: [u8; 4],
    /// Align16 destination writemask.
    pub writemask: u8,
    pub abs: u8,
    pub negate: u8,
}

/// A source of the two-source form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Src {
    Reg(Reg),
    /// An immediate: its type code and bits (32, or 64 for 64-bit types and `dim`).
    Imm {
        ty: u8,
        bits: u64,
        wide: bool,
    },
}

/// A three-source Align16 source.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Src3 {
    pub nr: u8,
    /// In dwords.
    pub subnr: u8,
    /// Eight bits: x in bits 1:0 ... w in bits 7:6.
    pub swizzle: u8,
    pub rep_ctrl: u8,
    pub abs: u8,
    pub negate: u8,
}

/// The message descriptor of `send`/`sendc`: immediate, or a register (`a0.0`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Desc {
    Imm(u32),
    Reg(Reg),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// ALU instructions with up to two sources, `math`, `nop`.
    Basic { dst: Reg, src0: Src, src1: Src },
    /// if/else/endif/while/break/cont/halt. Gen7: `src0` complete, `src1` its file and type
    /// (JIP/UIP take the immediate's bits); gen8+: `src0` only file and type, `src1` none
    /// (UIP takes bits 95:64).
    Jump {
        dst: Reg,
        src0: Reg,
        src1: Option<(u8, u8)>,
        jip: i32,
        uip: i32,
    },
    /// send/sendc: the descriptor in src1; the SFID in `cond_modifier`. On gen9 the
    /// extended descriptor's bits 31:16 share the src0 region and src1 type fields.
    Send(Send),
    /// Gen9 sends/sendsc.
    Split(Split),
    /// mad, lrp, bfe, bfi2, csel, madm in Align16.
    Three(Three),
}

/// send/sendc: destination, payload, and the descriptor in src1 (its file and type fields
/// kept as encoded).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Send {
    pub dst: Reg,
    pub src0: Reg,
    pub src1_file: u8,
    pub src1_ty: u8,
    pub desc: Desc,
    pub eot: u8,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Split {
    pub dst: Reg,
    pub src0: Reg,
    pub src1_file: u8,
    pub src1_nr: u8,
    pub desc_in_reg: u8,
    pub ex_desc_in_reg: u8,
    pub ex_desc_ia_subnr: u8,
    pub desc: u32,
    pub ex_desc: u32,
    pub eot: u8,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Three {
    pub dst_nr: u8,
    /// In dwords.
    pub dst_subnr: u8,
    pub writemask: u8,
    pub dst_ty: u8,
    pub src_ty: u8,
    /// Gen8+: src1/src2 are half float while the others are not.
    pub src1_hf: u8,
    pub src2_hf: u8,
    pub srcs: [Src3; 3],
}

/// One native instruction, decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Inst {
    pub ctrl: Ctrl,
    pub form: Form,
    /// Bits of the word no field of the form names (see the module doc).
    pub residue: [u64; 2],
}
