//! eubatch IR at the hardware level → the native instruction [`Inst`], each field as Mesa's
//! emitter sets it, so that [`super::encode`] gives the word Mesa would have generated.
//!
//! Input: code after [`crate::generate::expand`] (register form: fixed registers, every
//! instruction a hardware one or a math function), or a program read from Mesa's listing
//! ([`crate::asm`]), which has the same shapes. The second is the oracle: every instruction
//! of every `asm.txt` in the corpora, read into IR and encoded here, must give Mesa's bytes
//! (`tests/from_ir_corpus.rs`).
//!
//! Rules, with their sources (Mesa 23.0):
//! - channel group → quarter and nibble control (`brw_inst_set_group`, brw_inst.h);
//!   jumps are emitted with `BRW_COMPRESSION_NONE` (`brw_IF`, `brw_ELSE`, `brw_WHILE`,
//!   `brw_HALT` in brw_eu_emit.c);
//! - a send's operands are the generator's (types and regions); its descriptor is the
//!   immediate or `a0.0`, the shared function in the conditional modifier field
//!   (`brw_inst_set_sfid`), EOT its own bit;
//! - a three-source instruction before gen10 is Align16 (`brw_alu3`): an Align1 source of
//!   stride 0 is a replicated scalar (`rep_ctrl`), any other is `<4,4,1>.xyzw`; sub-registers
//!   count dwords;
//! - what the disassembly does not show is filled by [`super::policy::apply`] (the same
//!   don't-care rules the assembler of Mesa's text applies).
//!
//! JIP and UIP are left 0: they depend on where the targets land once compacted, which is
//! [`super::program`]'s job.

use std::sync::OnceLock;

use eubatch_ir::operand::arf;
use eubatch_ir::shader::{CondMod, Predicate, SendInfo};
use eubatch_ir::{Opcode, Operand, RegFile, Region, Shader, Type};

use super::field::{Col, COLS};
use super::inst::{Ctrl, Desc, Form, Inst, Reg, Send, Split, Src, Src3};
use super::opcode;
use super::tables::{COND_MOD, MATH, PRED_ALIGN1, PRED_ALIGN16};
use super::types::RegType;
use crate::asm::inst::AsmHints;

/// The hardware type of an IR type.
pub fn reg_type(t: Type) -> RegType {
    match t {
        Type::B => RegType::B,
        Type::UB => RegType::UB,
        Type::W => RegType::W,
        Type::UW => RegType::UW,
        Type::HF => RegType::HF,
        Type::D => RegType::D,
        Type::UD => RegType::UD,
        Type::F => RegType::F,
        Type::Q => RegType::Q,
        Type::UQ => RegType::UQ,
        Type::DF => RegType::DF,
        Type::V => RegType::V,
        Type::UV => RegType::UV,
        Type::VF => RegType::VF,
    }
}

/// Mesa's math function name of a math opcode (`brw_math_function`), if it is one: the
/// listing reader's table, read the other way.
fn math_function(op: Opcode) -> Option<&'static str> {
    crate::asm::inst::MATH
        .iter()
        .find(|(_, o)| *o == op)
        .map(|(n, _)| *n)
}

/// The hardware opcode of an IR instruction's opcode, when it encodes as one.
pub fn hw_opcode(col: Col, op: Opcode) -> Option<u8> {
    op_codes(col, op).hw
}

/// What the encoder looks up by name for an IR opcode on a column: its hardware opcode
/// and, for a math opcode, the math function's code.
#[derive(Clone, Copy, Debug)]
struct OpCodes {
    hw: Option<u8>,
    math: Option<u8>,
}

/// [`OpCodes`] from the tables (the hardware opcode by Mesa's name, the math function by
/// the listing reader's names), worked out once per column and opcode: those are scans
/// comparing strings, which done for every instruction were a tenth of the encoder's time.
fn op_codes(col: Col, op: Opcode) -> OpCodes {
    static BY_OP: [OnceLock<Vec<OpCodes>>; COLS] = [const { OnceLock::new() }; COLS];
    let table = BY_OP[col as usize].get_or_init(|| {
        let n = Opcode::ALL
            .iter()
            .map(|&o| o as usize + 1)
            .max()
            .unwrap_or(0);
        let mut t = vec![
            OpCodes {
                hw: None,
                math: None
            };
            n
        ];
        for &o in Opcode::ALL {
            let f = math_function(o);
            let hw = if f.is_some() {
                Some(opcode::MATH)
            } else if o.is_hardware() {
                opcode::by_name(col, o.name()).map(|d| d.hw)
            } else {
                None
            };
            t[o as usize] = OpCodes {
                hw,
                math: f.map(|f| code_of(&MATH, f).unwrap_or(0)),
            };
        }
        t
    });
    table[op as usize]
}

/// The conditional modifier field of `m` (COND_MOD holds Mesa's suffixes, `.ge`), looked
/// up once per modifier rather than by comparing names for every instruction.
fn cond_mod_code(m: CondMod) -> u8 {
    static CODES: OnceLock<[u8; CondMod::ALL.len()]> = OnceLock::new();
    let codes = CODES.get_or_init(|| {
        CondMod::ALL.map(|m| {
            let name = m.name();
            COND_MOD
                .iter()
                .position(|t| t.strip_prefix('.') == Some(name))
                .unwrap_or(0) as u8
        })
    });
    CondMod::ALL
        .iter()
        .position(|&x| x == m)
        .map_or(0, |i| codes[i])
}

fn code_of(table: &[&str], name: &str) -> Option<u8> {
    table.iter().position(|t| *t == name).map(|i| i as u8)
}

fn log2(n: u32) -> u8 {
    n.max(1).trailing_zeros() as u8
}

/// Encoded vertical stride (`BRW_VERTICAL_STRIDE_*`; VxH is 15).
fn vstride_code(v: u8) -> Result<u8, String> {
    Ok(match v {
        0 => 0,
        1 => 1,
        2 => 2,
        4 => 3,
        8 => 4,
        16 => 5,
        32 => 6,
        Region::VXH => 15,
        _ => return Err(format!("vertical stride {v} does not encode")),
    })
}

fn width_code(w: u8) -> Result<u8, String> {
    match w {
        1 | 2 | 4 | 8 | 16 => Ok(log2(w as u32)),
        _ => Err(format!("region width {w} does not encode")),
    }
}

fn hstride_code(h: u8) -> Result<u8, String> {
    Ok(match h {
        0 => 0,
        1 => 1,
        2 => 2,
        4 => 3,
        _ => return Err(format!("horizontal stride {h} does not encode")),
    })
}

fn reg_code(col: Col, t: Type) -> Result<u8, String> {
    reg_type(t)
        .reg_code(col)
        .ok_or_else(|| format!("type {t:?} is not a register type on this generation"))
}

/// File and number of a register operand (not an immediate).
fn file_nr(op: &Operand) -> Result<(u8, u8), String> {
    match op.file {
        RegFile::FixedGrf => {
            if op.nr > 127 {
                return Err(format!("g{} is outside the register file", op.nr));
            }
            Ok((1, op.nr as u8))
        }
        RegFile::Arf => Ok((0, op.nr as u8)),
        // A missing operand encodes as the null register.
        RegFile::Bad => Ok((0, arf::NULL as u8)),
        RegFile::Indirect => Ok((1, 0)),
        f => Err(format!("{f:?} operand: not in register form")),
    }
}

/// A destination operand.
fn dst_reg(col: Col, op: &Operand, a16: bool) -> Result<Reg, String> {
    let (file, nr) = file_nr(op)?;
    let mut r = Reg {
        file,
        nr,
        ty: reg_code(col, op.ty)?,
        ..Reg::default()
    };
    if op.file == RegFile::Indirect {
        r.address_mode = 1;
        r.ia_subnr = (op.nr * op.ty.size()) as u8;
        r.ia_imm = op.offset as u16 & 0x3ff;
    } else {
        r.subnr = op.offset as u8;
    }
    if a16 {
        r.hstride = 1;
        r.writemask = op.region.swizzle & 0xf;
    } else {
        let h = if op.file == RegFile::Bad {
            1
        } else {
            op.region.hstride
        };
        r.hstride = hstride_code(h)?;
    }
    Ok(r)
}

/// A source register operand.
fn src_reg(col: Col, op: &Operand, a16: bool) -> Result<Reg, String> {
    let (file, nr) = file_nr(op)?;
    let mut r = Reg {
        file,
        nr,
        ty: reg_code(col, op.ty)?,
        abs: op.mods.abs() as u8,
        negate: op.mods.negate() as u8,
        ..Reg::default()
    };
    if op.file == RegFile::Indirect {
        r.address_mode = 1;
        r.ia_subnr = op.nr as u8;
        r.ia_imm = op.offset as u16 & 0x3ff;
    } else {
        r.subnr = op.offset as u8;
    }
    let reg = if op.file == RegFile::Bad {
        Region::new(8, 8, 1)
    } else {
        op.region
    };
    r.vstride = vstride_code(reg.vstride)?;
    if a16 {
        // brw_set_src0/1: an Align16 `<8>` is encoded `<4>` ("an oddity of the fact we're
        // using the same descriptions for registers in align_16 as align_1"), and so is a
        // gen7 DF `<2>` (Align16 allows only 0 and 4 there, SNB PRM).
        if reg.vstride == 8 || (col == Col::Gen7 && op.ty == Type::DF && reg.vstride == 2) {
            r.vstride = vstride_code(4)?;
        }
        let s = reg.swizzle;
        r.swizzle = [s & 3, (s >> 2) & 3, (s >> 4) & 3, (s >> 6) & 3];
    } else {
        r.width = width_code(reg.width)?;
        r.hstride = hstride_code(reg.hstride)?;
    }
    Ok(r)
}

/// A source: immediate or register.
fn src(col: Col, hw: u8, op: &Operand, a16: bool) -> Result<Src, String> {
    if op.file != RegFile::Imm {
        return src_reg(col, op, a16).map(Src::Reg);
    }
    // `dim` on Haswell: a 64-bit immediate under the F type (the reader keeps it as DF).
    let t = if hw == 10 && col == Col::Gen75 && op.ty == Type::DF {
        RegType::F
    } else {
        reg_type(op.ty)
    };
    let ty = t
        .imm_code(col)
        .ok_or_else(|| format!("no {:?} immediates on this generation", op.ty))?;
    let bits = match t {
        RegType::DF | RegType::UQ | RegType::Q => op.imm_bits(),
        RegType::F if hw == 10 => op.imm_bits(),
        _ => op.imm_bits() & 0xffff_ffff,
    };
    Ok(Src::Imm {
        ty,
        bits,
        wide: super::codec::imm_is_wide(col, hw, ty),
    })
}

/// A three-source source (`brw_alu3`: Align16, dword sub-registers, scalars replicated).
fn src3(op: &Operand, align16_ir: bool) -> Result<(Src3, Type), String> {
    if op.file != RegFile::FixedGrf {
        return Err(format!(
            "three-source operand in {:?}: only general registers",
            op.file
        ));
    }
    let scalar = op.region.vstride == 0 && op.region.hstride == 0;
    let swizzle = if align16_ir && !scalar {
        op.region.swizzle
    } else if scalar && align16_ir {
        // A printed `<0,1,0>` source keeps the swizzle it was given (XXXX when none).
        op.region.swizzle
            & if op.region.swizzle == Region::XYZW {
                0
            } else {
                0xff
            }
    } else if scalar {
        0
    } else {
        Region::XYZW
    };
    Ok((
        Src3 {
            nr: op.nr as u8,
            subnr: (op.offset / 4) as u8,
            swizzle,
            rep_ctrl: scalar as u8,
            abs: op.mods.abs() as u8,
            negate: op.mods.negate() as u8,
        },
        op.ty,
    ))
}

/// The instruction control fields.
fn ctrl(col: Col, s: &Shader, id: eubatch_ir::Inst, hw: u8, hints: AsmHints) -> Ctrl {
    let c = s.insts.control[id];
    let op = s.insts.opcode[id];
    let jump = opcode::has_jip(hw);
    let mut k = Ctrl {
        opcode: hw,
        access_mode: c.align16() as u8,
        mask_control: c.no_mask() as u8,
        exec_size: log2(c.exec_size as u32),
        saturate: c.saturate() as u8,
        pred_inv: c.pred_invert() as u8,
        no_dd_check: hints.no_dd_check as u8,
        no_dd_clear: hints.no_dd_clear as u8,
        acc_wr_control: (hints.acc_wr_enable || op == Opcode::Mach) as u8,
        ..Ctrl::default()
    };
    if !jump {
        k.qtr_control = c.group / 8;
        k.nib_control = (c.group / 4) % 2;
    }
    k.pred_control = match c.predicate {
        Predicate::None => 0,
        Predicate::Normal => 1,
        p if p.align1_only() => code_of(&PRED_ALIGN1, p.suffix()).unwrap_or(1),
        p => code_of(&PRED_ALIGN16, p.suffix()).unwrap_or(1),
    };
    let math = op_codes(col, op).math;
    if let Some(f) = math {
        k.cond_modifier = f;
    } else if opcode::is_send(hw) || opcode::is_split_send(hw) {
        k.cond_modifier = s.send_info(id).map_or(0, |i| i.sfid);
    } else if c.cmod != CondMod::None {
        k.cond_modifier = cond_mod_code(c.cmod);
    }
    let flag_printed = c.predicate != Predicate::None
        || (k.cond_modifier != 0
            && math.is_none()
            && !opcode::is_send(hw)
            && !matches!(hw, opcode::SEL | opcode::CSEL | opcode::IF | opcode::WHILE));
    if flag_printed {
        k.flag_reg_nr = c.flag_subreg / 2;
        k.flag_subreg_nr = c.flag_subreg % 2;
    }
    k
}

/// The native instruction of IR instruction `id` (JIP/UIP 0), don't-care fields filled.
pub fn inst(col: Col, s: &Shader, id: eubatch_ir::Inst, hints: AsmHints) -> Result<Inst, String> {
    let op = s.insts.opcode[id];
    let hw = hw_opcode(col, op)
        .ok_or_else(|| format!("`{}` is not a hardware instruction", op.name()))?;
    let mut ctrl = ctrl(col, s, id, hw, hints);
    let a16 = ctrl.access_mode == 1;
    let dst = s.insts.dst[id];
    let srcs = s.srcs(id);
    let eot = s.insts.control[id].eot() as u8;
    let mut form = super::codec::form_of(col, hw);
    match &mut form {
        Form::Jump { .. } => {}
        Form::Basic { dst: d, src0, src1 } => {
            let desc = opcode::by_hw(col, hw).ok_or("opcode without a description")?;
            if desc.ndst > 0 {
                *d = dst_reg(col, &dst, a16)?;
            }
            if desc.nsrc > 0 {
                if let Some(o) = srcs.first() {
                    *src0 = src(col, hw, o, a16)?;
                }
            }
            if desc.nsrc > 1 {
                match srcs.get(1) {
                    Some(o) => *src1 = src(col, hw, o, a16)?,
                    // Unary math: a null second source (`brw_math`: `brw_null_reg()`, F).
                    None => {
                        *src1 = src(
                            col,
                            hw,
                            &Operand::arf(arf::NULL, 0, Type::F, Region::new(8, 8, 1)),
                            a16,
                        )?
                    }
                }
            }
        }
        Form::Three(t) => {
            // Before gen10 three-source instructions are Align16 (brw_alu3).
            let align16_ir = a16;
            ctrl.access_mode = 1;
            if dst.file != RegFile::FixedGrf {
                return Err("three-source destination: only a general register".into());
            }
            t.dst_nr = dst.nr as u8;
            t.dst_subnr = (dst.offset / 4) as u8;
            t.writemask = if align16_ir {
                dst.region.swizzle & 0xf
            } else {
                0xf
            };
            t.dst_ty = reg_type(dst.ty)
                .code_3src(col)
                .ok_or_else(|| format!("type {:?} in a three-source instruction", dst.ty))?;
            if srcs.len() != 3 {
                return Err(format!("{} sources to a three-source opcode", srcs.len()));
            }
            let mut src_ty = None;
            for (slot, o) in t.srcs.iter_mut().zip(srcs) {
                let (s3, ty) = src3(o, align16_ir)?;
                *slot = s3;
                src_ty.get_or_insert(ty);
            }
            let st = src_ty.unwrap();
            t.src_ty = reg_type(st)
                .code_3src(col)
                .ok_or_else(|| format!("type {st:?} in a three-source instruction"))?;
        }
        Form::Send(sd) => {
            let (payloads, regs) = send_sources(srcs);
            let p0 = payloads.first().ok_or("a send without a payload")?;
            *sd = send_form(col, s, id, &dst, p0, regs.first(), a16, eot)?;
        }
        Form::Split(sp) => {
            let (payloads, regs) = send_sources(srcs);
            *sp = split_form(s, id, &dst, &payloads, &regs, eot)?;
        }
    }
    // brw_CMP, WaCMPInstNullDstForcesThreadSwitch (Haswell workarounds, applied to all of
    // gen7): a `cmp` to the null register must use {switch}.
    if op == Opcode::Cmp && !col.gen8_plus() && dst.file == RegFile::Arf && dst.nr == arf::NULL {
        ctrl.thread_control = 2;
    }
    let mut i = Inst {
        ctrl,
        form,
        residue: [0; 2],
    };
    super::policy::apply(&mut i, col);
    Ok(i)
}

/// The send's message description with its descriptors whole, as `generate_send` ORs
/// them: the immediate descriptor sources (Mesa's SHADER_OPCODE_SEND form, whose first two
/// sources are the descriptors), the instruction's own bits, and the lengths
/// (`brw_message_desc(mlen, rlen, header)`, `brw_message_ex_desc(ex_mlen)`). Final code's
/// form already holds them whole; ORing them again changes nothing.
fn full_descriptors(s: &Shader, id: eubatch_ir::Inst) -> Result<SendInfo, String> {
    use eubatch_ir::message::{ex_desc, message_desc};
    let mut info = *s
        .send_info(id)
        .ok_or("a send without its message description")?;
    let srcs = s.srcs(id);
    let imm = |k: usize| {
        srcs.get(k)
            .filter(|o| o.file == RegFile::Imm)
            .map_or(0, |o| o.imm_bits() as u32)
    };
    let logical = srcs.first().is_some_and(|o| o.file == RegFile::Imm);
    let (d, x) = if logical { (imm(0), imm(1)) } else { (0, 0) };
    let dst = s.insts.dst[id];
    let rlen = if dst.is_null() {
        0
    } else {
        s.insts.size_written[id] / s.reg_size()
    };
    info.desc |= d | message_desc(info.mlen as u32, rlen, info.header_size != 0);
    info.ex_desc |= x | ex_desc(info.ex_mlen as u32);
    Ok(info)
}

/// A send's payloads and its descriptor registers (`a0.N`), in order.
fn send_sources(srcs: &[Operand]) -> (Vec<Operand>, Vec<Operand>) {
    let is_addr = |o: &Operand| o.file == RegFile::Arf && o.nr == arf::ADDRESS;
    let payloads = srcs
        .iter()
        .copied()
        .filter(|o| !is_addr(o) && o.file != RegFile::Imm)
        .collect();
    let regs = srcs.iter().copied().filter(is_addr).collect();
    (payloads, regs)
}

#[allow(clippy::too_many_arguments)] // The parts of one send.
fn send_form(
    col: Col,
    s: &Shader,
    id: eubatch_ir::Inst,
    dst: &Operand,
    payload: &Operand,
    desc_reg: Option<&Operand>,
    a16: bool,
    eot: u8,
) -> Result<Send, String> {
    let info = full_descriptors(s, id)?;
    // The destination's type and the payload's region are the generator's (UW and
    // `<0,1,0>` for SHADER_OPCODE_SEND, `brw_send_indirect_message`; UD for the gen7 pull
    // constant load); the payload is read as UD.
    let mut d = dst_reg(col, dst, a16)?;
    if dst.file == RegFile::Bad {
        d.file = 0;
        d.nr = 0;
    }
    let p = *payload;
    let src0 = src_reg(col, &p, a16)?;
    let (src1_file, src1_ty, desc) = match desc_reg {
        Some(r) => {
            let reg = src_reg(col, r, a16)?;
            (reg.file, reg.ty, Desc::Reg(reg))
        }
        None => {
            let mask = if col == Col::Gen9 {
                0x7fff_ffff
            } else {
                0x1fff_ffff
            };
            (3, 0, Desc::Imm(info.desc & mask))
        }
    };
    Ok(Send {
        dst: d,
        src0,
        src1_file,
        src1_ty,
        desc,
        eot,
    })
}

fn split_form(
    s: &Shader,
    id: eubatch_ir::Inst,
    dst: &Operand,
    payloads: &[Operand],
    regs: &[Operand],
    eot: u8,
) -> Result<Split, String> {
    let info = full_descriptors(s, id)?;
    let p0 = payloads.first().ok_or("a split send without a payload")?;
    let mut sp = Split {
        eot,
        ..Split::default()
    };
    if dst.file == RegFile::Indirect {
        sp.dst.address_mode = 1;
        sp.dst.ia_subnr = (dst.nr * 4) as u8;
    } else {
        let (f, n) = file_nr(dst)?;
        sp.dst.file = f;
        sp.dst.nr = n;
        sp.dst.subnr = if dst.offset >= 16 { 16 } else { 0 };
    }
    let (_, n0) = file_nr(p0)?;
    sp.src0.nr = n0;
    sp.src0.subnr = if p0.offset >= 16 { 16 } else { 0 };
    match payloads.get(1) {
        Some(p1) => {
            let (f, n) = file_nr(p1)?;
            sp.src1_file = f;
            sp.src1_nr = n;
        }
        None => {
            sp.src1_file = 0;
            sp.src1_nr = 0;
        }
    }
    // a0.0 holds a descriptor, a0.2 (16-bit units: byte 4) an extended descriptor; the
    // field counts dwords (brw_eu_emit.c `brw_send_indirect_split_message`: `subnr >> 2`).
    let mut desc_in_reg = false;
    for r in regs {
        if r.offset == 0 {
            desc_in_reg = true;
            sp.desc_in_reg = 1;
        } else {
            sp.ex_desc_in_reg = 1;
            sp.ex_desc_ia_subnr = (r.offset >> 2) as u8;
        }
    }
    if !desc_in_reg {
        sp.desc = info.desc & 0x7fff_ffff;
    }
    if sp.ex_desc_in_reg == 0 {
        sp.ex_desc = info.ex_desc;
    }
    Ok(sp)
}
