//! Reader of a final binary straight from its bytes: each instruction (8 bytes compacted,
//! 16 native) uncompacted and decoded ([`crate::encode::codec::decode_fields`]), then made
//! the [`AsmInst`] the listing reader ([`super::read_asm`]) would have read from Mesa's
//! disassembly of it, and the program built by the same `asm::build`: the same
//! IR instructions, operands, send descriptors, hints and pseudo-instructions, with no text
//! in between. `final_code` reads eubatch's own binaries back this way (writing and parsing
//! a listing was most of its cost); `tests/from_bytes_corpus.rs` holds it to the text reader
//! on every program of the corpora.
//!
//! The two readers share the IR-building half: operands are built from their spelling
//! ([`super::operand::Spelled`], [`super::operand::build`], [`super::operand::make_imm`]),
//! instructions by [`super::inst`]'s rules (opcode names, destination regions, send
//! descriptors and shared functions, channel groups, unary math), programs by
//! `asm::build`. What this file adds is what Mesa's printer (`brw_disasm.c`, eubatch's
//! [`crate::encode::print`] and [`crate::encode::print_operand`]) would show of a decoded
//! field, since the text reader reads only that: a sub-register in elements of the type
//! (`subnr / size`, 16 / size in Align16), the null register without its number, a
//! writemask or swizzle only in Align16, a send's descriptor as the raw bits 127:96, a
//! jump's targets as labels. What the printer shows in a form the text reader refuses
//! (`*** invalid ...`, `ip` or `tdr` as operands, an indirect Align16 operand, `m` or `imm`
//! files) is an error here too, so that both readers accept the same programs.
//!
//! A binary lacks what its listing's header, statistics line and block markers say:
//! the caller gives them ([`Frame`]).

use std::sync::OnceLock;

use eubatch_ir::operand::arf;
use eubatch_ir::shader::{CondMod, Predicate};
use eubatch_ir::{Control, Gen, Mods, Opcode, Operand, Stage, Type};

use super::inst::{
    channel_group, complete, hardware_opcode, is_send, math_opcode, new_inst, send_descriptors,
    set_destination, set_send_function, AsmInst,
};
use super::operand::{arf_reg, build, grf, indirect, make_imm, Channels, Spelled, SpelledRegion};
use super::{AsmBlock, AsmProgram, AsmStats, Partial};
use crate::compact::uncompact;
use crate::encode::codec::{col_of, decode_fields, encode};
use crate::encode::field::{Col, Field, NativeInst, COLS};
use crate::encode::inst::{Ctrl, Desc, Form, Inst, Reg, Src, Src3, Three};
use crate::encode::opcode::{self, OpDesc};
use crate::encode::print::jump_unit;
use crate::encode::print_operand::ia_imm;
use crate::encode::tables::{
    sfid_name, vstride, COND_MOD, EXEC_SIZE, HSTRIDE, MATH, PRED_ALIGN1, PRED_ALIGN16, WIDTH,
};
use crate::encode::types::RegType;

/// What a program's binary does not hold: its listing's header and statistics line, and
/// the blocks its markers would show.
#[derive(Clone, Debug)]
pub struct Frame<'a> {
    /// Names the shader `{name}#{index}`, as [`super::read_asm`] names the programs of a
    /// listing.
    pub name: &'a str,
    pub index: usize,
    pub stage: Stage,
    /// The program's name in the header (`GLSL1`).
    pub program: String,
    /// SIMD width (8 for vec4 code).
    pub width: u8,
    pub vec4: bool,
    pub stats: AsmStats,
    /// The blocks, over encoded instruction indices.
    pub blocks: Vec<AsmBlock>,
}

impl<'a> Frame<'a> {
    /// A scalar program `name` of `width` channels, the first of its listing, of which
    /// nothing else is known: statistics 0, no blocks.
    pub fn scalar(name: &'a str, stage: Stage, width: u8) -> Frame<'a> {
        Frame {
            name,
            index: 0,
            stage,
            program: name.to_string(),
            width,
            vec4: false,
            stats: AsmStats::default(),
            blocks: Vec::new(),
        }
    }
}

/// Why bytes do not read as a program: the instruction (its index and byte offset; the
/// end for a program cut short) and the reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BinaryError {
    pub inst: usize,
    pub at: u32,
    pub msg: String,
}

impl std::fmt::Display for BinaryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "instruction {} (byte {}): {}",
            self.inst, self.at, self.msg
        )
    }
}

impl std::error::Error for BinaryError {}

/// Reads the program `bytes` encode on `gen`.
pub fn read_binary(bytes: &[u8], gen: Gen, frame: Frame<'_>) -> Result<AsmProgram, BinaryError> {
    let col = col_of(gen).map_err(|e| BinaryError {
        inst: 0,
        at: 0,
        msg: e.0,
    })?;
    let offsets = instruction_offsets(bytes, col)?;
    let n = offsets.len() - 1;
    let end = offsets[n];
    let mut insts = Vec::with_capacity(n);
    let mut targets: Vec<usize> = Vec::new();
    let mut nops = 0;
    for k in 0..n {
        let at = offsets[k];
        let err = |msg: String| BinaryError { inst: k, at, msg };
        let word = &bytes[at as usize..offsets[k + 1] as usize];
        let native = match word.len() {
            8 => {
                let c = u64::from_le_bytes(word.try_into().expect("8 bytes"));
                NativeInst(uncompact(c, gen).map_err(|r| err(format!("uncompact: {r}")))?)
            }
            _ => NativeInst::from_bytes(word.try_into().expect("16 bytes")),
        };
        let decoded = decode_fields(native, gen).map_err(|e| err(e.0))?;
        // A jump's target as the label the listing would put there: the index of the
        // instruction starting at that byte (the end included), which is what the text
        // reader's label resolves to.
        let mut label = |jump: i32| -> Result<u32, String> {
            let to = at as i64 + jump as i64 * jump_unit(col);
            let t = u32::try_from(to)
                .ok()
                .filter(|&t| t <= end)
                .and_then(|t| offsets.binary_search(&t).ok())
                .ok_or_else(|| format!("jump to byte {to}, where no instruction starts"))?;
            targets.push(t);
            Ok(t as u32)
        };
        let inst = inst_of(&decoded, col, gen, &mut label).map_err(err)?;
        nops += (inst.opcode == Opcode::Nop) as u32;
        insts.push(inst);
    }
    targets.sort_unstable();
    targets.dedup();
    let p = Partial {
        line: 0,
        stage: frame.stage,
        program: frame.program,
        vec4: frame.vec4,
        width: frame.width,
        stats: Some(frame.stats),
        insts,
        labels: targets.iter().map(|&t| (t as u32, t)).collect(),
        nops,
        pending_send: false,
        blocks: frame.blocks,
    };
    super::build(p, frame.name, frame.index, gen).map_err(|msg| BinaryError {
        inst: n,
        at: end,
        msg,
    })
}

/// Where each instruction starts, and the end: an instruction is 8 bytes when its
/// compaction bit is set, 16 otherwise.
fn instruction_offsets(bytes: &[u8], col: Col) -> Result<Vec<u32>, BinaryError> {
    let mut offsets = Vec::with_capacity(bytes.len() / 8 + 1);
    let mut at = 0usize;
    while at < bytes.len() {
        let k = offsets.len();
        let short = |need: usize| BinaryError {
            inst: k,
            at: at as u32,
            msg: format!(
                "the program ends {} bytes into an instruction of {need}",
                bytes.len() - at
            ),
        };
        let Some(first) = bytes.get(at..at + 8) else {
            return Err(short(8));
        };
        let lo = u64::from_le_bytes(first.try_into().expect("8 bytes"));
        let size = if NativeInst([lo, 0]).get(Field::cmpt_control, col) == 1 {
            8
        } else {
            16
        };
        if at + size > bytes.len() {
            return Err(short(size));
        }
        offsets.push(at as u32);
        at += size;
    }
    offsets.push(at as u32);
    Ok(offsets)
}

/// The instruction the listing reader would read from Mesa's disassembly of `i`. `label`:
/// the label of a jump's target.
fn inst_of(
    i: &Inst,
    col: Col,
    gen: Gen,
    label: &mut dyn FnMut(i32) -> Result<u32, String>,
) -> Result<AsmInst, String> {
    let c = &i.ctrl;
    let hw = c.opcode;
    let desc: OpDesc =
        opcode::by_hw(col, hw).ok_or_else(|| format!("opcode {hw} does not exist"))?;
    let a16 = c.access_mode == 1;
    let send = opcode::is_send(hw);
    let mut control = Control::new(1);
    if c.pred_control != 0 {
        let table: &[&str] = if a16 { &PRED_ALIGN16 } else { &PRED_ALIGN1 };
        control.flag_subreg = flag(c)?;
        let suffix = table
            .get(c.pred_control as usize)
            .ok_or_else(|| format!("invalid predicate control {}", c.pred_control))?;
        control.predicate = Predicate::from_suffix(suffix)
            .ok_or_else(|| format!("unknown predicate control `{suffix}`"))?;
        control.set(Control::PRED_INVERT, c.pred_inv == 1);
    }
    if !send && c.saturate == 1 {
        control.set(Control::SATURATE, true);
    }
    if c.debug_control == 1 {
        return Err("unknown conditional modifier `.breakpoint`".into());
    }
    let op = if hw == opcode::MATH {
        let f = MATH
            .get(c.cond_modifier as usize)
            .ok_or_else(|| format!("invalid math function {}", c.cond_modifier))?;
        math_opcode(f)?
    } else {
        if !send {
            let m = match COND_MOD.get(c.cond_modifier as usize) {
                Some(m) => *m,
                // The text reader stops at the printer's `*** invalid ...`, and reads
                // nothing more of a NOP.
                None if hw == opcode::NOP => "",
                None => return Err(format!("invalid conditional modifier {}", c.cond_modifier)),
            };
            if let Some(name) = m.strip_prefix('.') {
                control.cmod = CondMod::from_name(name)
                    .ok_or_else(|| format!("unknown conditional modifier `{m}`"))?;
                if !matches!(hw, opcode::SEL | opcode::CSEL | opcode::IF | opcode::WHILE) {
                    control.flag_subreg = flag(c)?;
                }
            }
        }
        ir_opcode(col, hw, desc.name)?
    };
    let mut inst = new_inst(op, control);
    inst.has_options = true;
    if op == Opcode::Nop {
        // The disassembly of a NOP ends at its name: no execution size, no options.
        return Ok(inst);
    }
    inst.control.exec_size = EXEC_SIZE
        .get(c.exec_size as usize)
        .map(|_| 1u8 << c.exec_size)
        .ok_or_else(|| format!("invalid execution size {}", c.exec_size))?;
    // The text reader reads a send's operands accepting Align16 syntax until its options
    // settle the mode.
    let read_a16 = a16 || send;
    let mut ops = Operands {
        inst: &mut inst,
        first: true,
        descriptors: [0; 2],
        num_descriptors: 0,
        address_before_hex: false,
    };
    match &i.form {
        Form::Jump { jip, uip, .. } => {
            ops.inst.dst = Operand::bad(Type::UD);
            ops.inst.jip = Some(label(*jip)?);
            if opcode::has_uip(col, hw) {
                ops.inst.uip = Some(label(*uip)?);
            }
        }
        Form::Basic { dst, src0, src1 } => {
            if desc.ndst > 0 {
                ops.push(spell_dst(col, c, dst)?, read_a16)?;
            }
            for s in [src0, src1].into_iter().take(desc.nsrc as usize) {
                match s {
                    Src::Reg(r) => ops.push(spell_src(col, c, r)?, read_a16)?,
                    Src::Imm { ty, bits, .. } => ops.push_imm(imm(col, hw, *ty, *bits)?),
                }
            }
        }
        Form::Three(t) => three(&mut ops, col, t, a16)?,
        Form::Send(s) => {
            ops.push(spell_dst(col, c, &s.dst)?, read_a16)?;
            ops.push(spell_src(col, c, &s.src0)?, read_a16)?;
            if let Desc::Reg(r) = s.desc {
                let r = Reg {
                    file: s.src1_file,
                    ty: s.src1_ty,
                    ..r
                };
                ops.push(spell_src(col, c, &r)?, read_a16)?;
            }
            // The printer shows bits 127:96 of the word as encoded from the fields.
            let word = encode(i, gen).map_err(|e| e.0)?;
            ops.hex((word.0[1] >> 32) as u32);
        }
        Form::Split(s) => {
            if s.dst.address_mode == 1 {
                return Err("an indirect split-send destination (`g[a0]<UD`)".into());
            }
            let ud = |reg: Operand, sub: Option<u32>, region| Spelled {
                reg,
                mods: 0,
                sub,
                region,
                channels: None,
                ty: Type::UD,
            };
            // `g12UD`, `g12.1UD`: the printer counts the sub-register in halves (16 bytes).
            let dst = register(s.dst.file, s.dst.nr, true)?;
            ops.push(
                ud(
                    dst,
                    (s.dst.subnr != 0).then_some(s.dst.subnr as u32 / 16),
                    None,
                ),
                true,
            )?;
            let src0 = if s.src0.address_mode == 1 {
                indirect((s.src0.ia_subnr != 0) as u32, 0)
            } else {
                register(1, s.src0.nr, true)?
            };
            let sub0 = (s.src0.address_mode == 0 && s.src0.subnr != 0).then_some(1);
            ops.push(ud(src0, sub0, None), true)?;
            ops.push(
                ud(register(s.src1_file, s.src1_nr, true)?, None, None),
                true,
            )?;
            let a0 = arf_reg(arf::ADDRESS);
            if s.desc_in_reg == 1 {
                ops.push(ud(a0, None, Some(SpelledRegion::One(0))), true)?;
            } else {
                ops.hex(s.desc);
            }
            if s.ex_desc_in_reg == 1 {
                let sub = (s.ex_desc_ia_subnr != 0).then_some(s.ex_desc_ia_subnr as u32);
                ops.push(ud(a0, sub, Some(SpelledRegion::One(0))), true)?;
            } else {
                ops.hex(s.ex_desc);
            }
        }
    }
    if send {
        let (d, n, before) = (ops.descriptors, ops.num_descriptors, ops.address_before_hex);
        send_descriptors(&mut inst, &d[..n], before);
    }
    options(&mut inst, col, i)?;
    complete(&mut inst, a16);
    if send {
        let sfid = c.cond_modifier;
        sfid_name(sfid).ok_or_else(|| format!("invalid shared function {sfid}"))?;
        set_send_function(&mut inst, sfid);
    }
    Ok(inst)
}

/// The IR opcode of hardware opcode `hw` named `name`: [`hardware_opcode`] of its name,
/// looked up once per column and opcode (the name lookup scans the IR's opcode names).
fn ir_opcode(col: Col, hw: u8, name: &str) -> Result<Opcode, String> {
    static BY_HW: [OnceLock<[Option<Opcode>; 128]>; COLS] = [const { OnceLock::new() }; COLS];
    let table = BY_HW[col as usize].get_or_init(|| {
        std::array::from_fn(|h| {
            opcode::by_hw(col, h as u8).and_then(|d| hardware_opcode(d.name).ok())
        })
    });
    match table.get(hw as usize).copied().flatten() {
        Some(op) => Ok(op),
        // Not an instruction the reader takes: the lookup's own error.
        None => hardware_opcode(name),
    }
}

/// The flag register the disassembly names (`f0.1`).
fn flag(c: &Ctrl) -> Result<u8, String> {
    Control::flag_subreg_of(c.flag_reg_nr, c.flag_subreg_nr).ok_or_else(|| {
        format!(
            "f{}.{}: expected a flag register f0 or f1, subregister 0 or 1",
            c.flag_reg_nr, c.flag_subreg_nr
        )
    })
}

/// The operands of one instruction in the order the disassembly prints them: the first
/// is the destination, a send's immediate descriptors are kept apart.
struct Operands<'a> {
    inst: &'a mut AsmInst,
    first: bool,
    descriptors: [u32; 2],
    num_descriptors: usize,
    address_before_hex: bool,
}

impl Operands<'_> {
    fn push(&mut self, sp: Spelled, align16: bool) -> Result<(), String> {
        let op = build(&sp, self.first, align16)?;
        self.add(op);
        Ok(())
    }

    fn push_imm(&mut self, op: Operand) {
        self.add(op);
    }

    fn add(&mut self, op: Operand) {
        if self.num_descriptors == 0 && op.file == eubatch_ir::RegFile::Arf && op.nr == arf::ADDRESS
        {
            self.address_before_hex = true;
        }
        if self.first {
            set_destination(self.inst, op);
        } else {
            self.inst.srcs.push(op);
        }
        self.first = false;
    }

    fn hex(&mut self, v: u32) {
        self.descriptors[self.num_descriptors] = v;
        self.num_descriptors += 1;
    }
}

/// The register `reg()` prints for `file` and `nr`, as the text reader reads it back.
/// `continues`: the printer goes on after it (a split send's `ipUD`); elsewhere it stops
/// after `ip` and `tdr0`, which leaves the text reader without the operand's type.
fn register(file: u8, nr: u8, continues: bool) -> Result<Operand, String> {
    match file {
        0 => {
            let class = nr as u32 & 0xf0;
            match class {
                // The printer writes `null` whatever the low bits.
                arf::NULL => Ok(arf_reg(arf::NULL)),
                arf::IP | arf::TDR if !continues => Err(format!(
                    "architecture register {nr:#x} (`ip`, `tdr`) as an operand"
                )),
                arf::IP => Ok(arf_reg(arf::IP)),
                // `tdr0` whatever the low bits.
                arf::TDR => Ok(arf_reg(arf::TDR)),
                arf::ADDRESS..=arf::NOTIFICATION_COUNT | arf::TIMESTAMP => Ok(arf_reg(nr as u32)),
                _ => Err(format!("unknown architecture register {nr:#x}")),
            }
        }
        1 if nr < 128 => Ok(grf(nr as u32)),
        1 => Err(format!("g{nr} is outside the register file (g0..g127)")),
        2 => Err(format!(
            "m{}: final code for gen7 and later has no message registers",
            nr & 0x7f
        )),
        _ => Err("an immediate's file on a register operand".into()),
    }
}

/// The IR type of a hardware type, by [`crate::encode::from_ir::reg_type`] read the other
/// way.
fn ir_type(t: Option<RegType>) -> Result<Type, String> {
    let t = t.ok_or("invalid type code")?;
    Type::ALL
        .iter()
        .copied()
        .find(|&x| crate::encode::from_ir::reg_type(x) == t)
        .ok_or_else(|| format!("type {t:?} has no IR type"))
}

fn reg_type(col: Col, r: &Reg) -> Option<RegType> {
    crate::encode::print_operand::reg_type(col, r.file, r.ty)
}

fn size(t: Option<RegType>) -> u32 {
    crate::encode::print_operand::size(t)
}

/// A printed sub-register: `subnr / size` when the byte offset is not 0 (Align16: only 0
/// and 16 exist, printed 16 / size).
fn sub(subnr: u8, t: Option<RegType>, a16: bool) -> Option<u32> {
    (subnr != 0).then(|| if a16 { 16 } else { subnr as u32 } / size(t))
}

fn mods(r: &Reg) -> u8 {
    (if r.negate == 1 { Mods::NEGATE } else { 0 }) | if r.abs == 1 { Mods::ABS } else { 0 }
}

fn stride_value(table: &[u8], code: u8, what: &str) -> Result<u8, String> {
    table
        .get(code as usize)
        .copied()
        .ok_or_else(|| format!("invalid {what} {code}"))
}

/// The printer's names of widths and strides (all decimal) as the numbers the text reader
/// reads from them, at compile time: parsing the printed name for every operand was a
/// tenth of the reader's spelling of sources.
const fn numbers<const N: usize>(names: [&str; N]) -> [u8; N] {
    let mut out = [0u8; N];
    let mut i = 0;
    while i < N {
        match decimal(names[i]) {
            Some(v) => out[i] = v,
            None => panic!("a width or stride name that is not a number"),
        }
        i += 1;
    }
    out
}

/// The number a name spells in decimal (what `str::parse::<u8>` reads), `None` for any
/// other name (`VxH`).
const fn decimal(name: &str) -> Option<u8> {
    let b = name.as_bytes();
    if b.is_empty() {
        return None;
    }
    let mut v = 0u8;
    let mut j = 0;
    while j < b.len() {
        if !b[j].is_ascii_digit() {
            return None;
        }
        v = v * 10 + (b[j] - b'0');
        j += 1;
    }
    Some(v)
}

static WIDTH_VALUE: [u8; WIDTH.len()] = numbers(WIDTH);
static HSTRIDE_VALUE: [u8; HSTRIDE.len()] = numbers(HSTRIDE);

/// Per 4-bit vertical stride code, [`vstride`]'s name as a number (`None`: `VxH`, or no
/// name), for the same reason.
static VSTRIDE_VALUE: [Option<u8>; 16] = {
    let mut t = [None; 16];
    let mut c = 0;
    while c < 16 {
        if let Some(name) = vstride(c as u8) {
            t[c] = decimal(name);
        }
        c += 1;
    }
    t
};

/// A destination as `dest()` prints it.
fn spell_dst(col: Col, c: &Ctrl, d: &Reg) -> Result<Spelled, String> {
    let t = reg_type(col, d);
    let ty = ir_type(t)?;
    let a16 = c.access_mode == 1;
    let h = stride_value(&HSTRIDE_VALUE, d.hstride, "horizontal stride")?;
    if d.address_mode == 1 {
        if a16 {
            return Err("indirect Align16 destination".into());
        }
        return Ok(Spelled {
            reg: indirect(d.ia_subnr as u32 / size(t), ia_imm(d.ia_imm)),
            mods: 0,
            sub: None,
            region: Some(SpelledRegion::One(h)),
            channels: None,
            ty,
        });
    }
    let (region, channels) = if a16 {
        (Some(SpelledRegion::One(1)), writemask(d.writemask)?)
    } else {
        (Some(SpelledRegion::One(h)), None)
    };
    Ok(Spelled {
        reg: register(d.file, d.nr, false)?,
        mods: 0,
        sub: sub(d.subnr, t, a16),
        region,
        channels,
        ty,
    })
}

/// A printed writemask: none for `.xyzw`; `.` alone (writemask 0) the text reader refuses.
fn writemask(m: u8) -> Result<Option<Channels>, String> {
    match m & 0xf {
        0xf => Ok(None),
        0 => Err("an empty writemask".into()),
        m => Ok(Some(Channels::Writemask(m))),
    }
}

/// A register source as `source()` prints it.
fn spell_src(col: Col, c: &Ctrl, r: &Reg) -> Result<Spelled, String> {
    let t = reg_type(col, r);
    let ty = ir_type(t)?;
    vstride(r.vstride).ok_or_else(|| format!("invalid vertical stride {}", r.vstride))?;
    // The name's number; `None`: `VxH`.
    let v = VSTRIDE_VALUE[r.vstride as usize];
    if c.access_mode == 1 {
        if r.address_mode == 1 {
            return Err("indirect Align16 source".into());
        }
        let v = v.ok_or("VxH in Align16")?;
        let s = r.swizzle;
        return Ok(Spelled {
            reg: register(r.file, r.nr, false)?,
            mods: mods(r),
            sub: sub(r.subnr, t, true),
            region: Some(SpelledRegion::One(v)),
            channels: Some(Channels::Swizzle(
                (s[0] & 3) | (s[1] & 3) << 2 | (s[2] & 3) << 4 | (s[3] & 3) << 6,
            )),
            ty,
        });
    }
    let (reg, sub) = if r.address_mode == 1 {
        (indirect(r.ia_subnr as u32, ia_imm(r.ia_imm)), None)
    } else {
        (register(r.file, r.nr, false)?, sub(r.subnr, t, false))
    };
    let v = match v {
        Some(v) => v,
        None if r.address_mode == 1 => eubatch_ir::Region::VXH,
        None => return Err("VxH on a direct source".into()),
    };
    let w = stride_value(&WIDTH_VALUE, r.width, "width")?;
    let h = stride_value(&HSTRIDE_VALUE, r.hstride, "horizontal stride")?;
    Ok(Spelled {
        reg,
        mods: mods(r),
        sub,
        region: Some(SpelledRegion::Three(v, w, h)),
        channels: None,
        ty,
    })
}

/// An immediate as `imm()` prints it, read back: 64-bit types in full (and Haswell's
/// `dim`, whose F holds 64 bits, printed without leading zeros), the others their low 32
/// bits (D and W as decimal, which reads back the same bits).
fn imm(col: Col, hw: u8, ty: u8, bits: u64) -> Result<Operand, String> {
    let t = RegType::from_imm(col, ty);
    let (bits, wide) = match t {
        Some(RegType::UQ | RegType::Q | RegType::DF) => (bits, true),
        Some(RegType::F) if hw == 10 && col == Col::Gen75 => (bits, bits >> 32 != 0),
        _ => (bits & 0xffff_ffff, false),
    };
    let ty = ir_type(t).map_err(|_| format!("invalid immediate type {ty}"))?;
    make_imm(ty, bits, wide).ok_or_else(|| format!("no {ty:?} immediates exist"))
}

/// A three-source Align16 instruction as `three()` prints it.
fn three(ops: &mut Operands<'_>, col: Col, t: &Three, a16: bool) -> Result<(), String> {
    let dt = RegType::from_3src(col, t.dst_ty);
    let channels = |c: Option<Channels>| -> Result<Option<Channels>, String> {
        match c {
            // Outside Align16 the text reader does not read channel letters.
            Some(_) if !a16 => Err("channels printed on an Align1 instruction".into()),
            c => Ok(c),
        }
    };
    let sub = t.dst_subnr as u32 * 4 / size(dt);
    ops.push(
        Spelled {
            reg: register(1, t.dst_nr, false)?,
            mods: 0,
            sub: (sub != 0).then_some(sub),
            region: Some(SpelledRegion::One(1)),
            channels: channels(writemask(t.writemask)?)?,
            ty: ir_type(dt)?,
        },
        a16,
    )?;
    let st = RegType::from_3src(col, t.src_ty);
    let ty = ir_type(st)?;
    for s in &t.srcs {
        let sp = src3(s, st, ty)?;
        let sp = Spelled {
            channels: channels(sp.channels)?,
            ..sp
        };
        ops.push(sp, a16)?;
    }
    Ok(())
}

fn src3(s: &Src3, st: Option<RegType>, ty: Type) -> Result<Spelled, String> {
    let scalar = s.rep_ctrl == 1;
    let sub = s.subnr as u32 * 4 / size(st);
    let z = s.swizzle;
    Ok(Spelled {
        reg: register(1, s.nr, false)?,
        mods: (if s.negate == 1 { Mods::NEGATE } else { 0 })
            | if s.abs == 1 { Mods::ABS } else { 0 },
        sub: (sub != 0 || scalar).then_some(sub),
        region: Some(if scalar {
            SpelledRegion::Three(0, 1, 0)
        } else {
            SpelledRegion::Three(4, 4, 1)
        }),
        channels: (!scalar && z != eubatch_ir::Region::XYZW).then_some(Channels::Swizzle(z)),
        ty,
    })
}

/// The `{ ... }` options as `options()` prints them, read back.
fn options(inst: &mut AsmInst, col: Col, i: &Inst) -> Result<(), String> {
    let c = &i.ctrl;
    if c.access_mode == 1 {
        inst.control.set(Control::ALIGN16, true);
    }
    if c.mask_control == 1 {
        inst.control.set(Control::NO_MASK, true);
    }
    inst.hints.no_dd_clear = c.no_dd_clear == 1;
    inst.hints.no_dd_check = c.no_dd_check == 1;
    let exec = 1u32 << c.exec_size;
    let group = if exec < 8 || c.nib_control == 1 {
        Some((c.qtr_control * 2 + c.nib_control + 1, b'N'))
    } else if exec == 8 {
        Some((c.qtr_control + 1, b'Q'))
    } else if exec == 16 {
        Some((if c.qtr_control < 2 { 1 } else { 2 }, b'H'))
    } else {
        None
    };
    if let Some((n, unit)) = group {
        inst.control.group = channel_group(n, unit)?;
    }
    // Gen8+ `if` and `else` print bit 28 as BranchCtrl, which the reader skips.
    if !opcode::has_branch_ctrl(col, c.opcode) && c.acc_wr_control == 1 {
        inst.hints.acc_wr_enable = true;
    }
    let eot = match i.form {
        Form::Send(s) => s.eot,
        Form::Split(s) => s.eot,
        _ => 0,
    };
    if is_send(inst.opcode) && eot == 1 {
        inst.control.set(Control::EOT, true);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The numbers built at compile time are what parsing the printed names reads.
    #[test]
    fn region_numbers_are_the_parsed_names() {
        for c in 0..16u8 {
            let parsed = vstride(c).and_then(|n| n.parse::<u8>().ok());
            assert_eq!(VSTRIDE_VALUE[c as usize], parsed, "vstride {c}");
        }
        for (v, n) in WIDTH_VALUE.iter().zip(WIDTH) {
            assert_eq!(Ok(*v), n.parse::<u8>());
        }
        for (v, n) in HSTRIDE_VALUE.iter().zip(HSTRIDE) {
            assert_eq!(Ok(*v), n.parse::<u8>());
        }
    }
}
