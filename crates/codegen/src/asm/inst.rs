//! One instruction of Mesa's disassembly (`brw_disassemble_inst`) after its encoding bytes:
//! predicate, opcode with saturate and conditional modifier, execution size, operands,
//! jump labels, and the `{ ... }` options (access mode, channel group, WE_all, EOT).

use eubatch_ir::shader::{CondMod, SendInfo};
use eubatch_ir::text::cursor::{Cursor, PResult};
use eubatch_ir::{Control, Opcode, Operand, Type};

use super::operand::{parse_operand, Parsed};

/// An instruction as read, before it joins a shader.
#[derive(Clone, Debug)]
pub struct AsmInst {
    pub opcode: Opcode,
    pub control: Control,
    pub dst: Operand,
    pub srcs: Vec<Operand>,
    /// Descriptor fields of a send (SFID from the decode line, lengths from the descriptor).
    pub send: Option<SendInfo>,
    /// JIP and UIP labels of a jump.
    pub jip: Option<u32>,
    pub uip: Option<u32>,
    /// A `{ ... }` option list was read (a send's comes on the decode line).
    pub has_options: bool,
    /// Options the IR does not keep: dependency-check hints and accumulator writes.
    pub hints: AsmHints,
}

/// Options of an instruction that change no result but matter to timing: Mesa's
/// `no_dd_check`/`no_dd_clear` (`NoDDChk`/`NoDDClr`) and `writes_accumulator`
/// (`AccWrEnable`), as `brw_disasm.c` prints them.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct AsmHints {
    pub no_dd_check: bool,
    pub no_dd_clear: bool,
    pub acc_wr_enable: bool,
}

/// Mesa's math function names (`math_function` in brw_disasm.c) and the eubatch opcodes with
/// the same semantics. The three macro functions (`intdivmod`, `invm`, `rsqrtm`) have no
/// logical counterpart.
pub(crate) const MATH: [(&str, Opcode); 10] = [
    ("inv", Opcode::Rcp),
    ("log", Opcode::Log2),
    ("exp", Opcode::Exp2),
    ("sqrt", Opcode::Sqrt),
    ("rsq", Opcode::Rsq),
    ("sin", Opcode::Sin),
    ("cos", Opcode::Cos),
    ("pow", Opcode::Pow),
    ("intdiv", Opcode::IntQuot),
    ("intmod", Opcode::IntRem),
];

fn math_opcode(name: &str) -> Option<Opcode> {
    MATH.iter().find(|(n, _)| *n == name).map(|(_, o)| *o)
}

/// Parses the disassembly of one instruction. `imm_bits`: the immediate field of the
/// encoding, for the `Half Float IMM` the printer leaves out.
pub fn parse_inst(c: &mut Cursor<'_>, imm_bits: Option<u32>) -> PResult<AsmInst> {
    let mut control = Control::new(1);
    c.skip_spaces();
    eubatch_ir::text::inst::parse_predicate(c, &mut control)?;
    let name_col = c.pos;
    let name = c.take_while(|b| b.is_ascii_alphanumeric() || b == b'_');
    let mut opcode = if name == "math" {
        None
    } else {
        // Final code holds EU instructions only: a virtual opcode's name (`tg4_logical`)
        // in a listing is an error, not an instruction of the program.
        let op = Opcode::from_name(name).filter(|op| op.is_hardware());
        Some(op.ok_or_else(|| {
            let what = if Opcode::from_name(name).is_some() {
                format!(
                    "`{name}` is not a hardware instruction (a listing holds Mesa's final code)"
                )
            } else {
                format!("unknown opcode `{name}`")
            };
            eubatch_ir::error::ParseError::new(c.line, name_col as u32 + 1, what)
        })?)
    };
    parse_mods(c, &mut control)?;
    if opcode.is_none() {
        c.expect(" ")?;
        let f = c.take_while(|b| b.is_ascii_alphanumeric());
        opcode = Some(
            math_opcode(f)
                .ok_or_else(|| c.error(format!("math function `{f}` is not supported")))?,
        );
        parse_mods(c, &mut control)?;
    }
    let opcode = opcode.unwrap();
    let mut inst = AsmInst {
        opcode,
        control,
        dst: Operand::NULL,
        srcs: Vec::new(),
        send: None,
        jip: None,
        uip: None,
        has_options: false,
        hints: AsmHints::default(),
    };
    if opcode == Opcode::Nop {
        c.skip_spaces();
        c.eat(";");
        inst.has_options = true;
        return Ok(inst);
    }
    c.expect("(")?;
    let control = &mut inst.control;
    control.exec_size = c.number_u8("an execution size")?;
    c.expect(")")?;
    // The access mode is known only from the options at the end of the line: look ahead.
    // A send's options come on its descriptor line: read its operands accepting either
    // mode's syntax, and settle the mode there.
    let align16 = c.rest().contains("align16") || is_send(opcode);
    if matches!(
        opcode.control_flow(),
        eubatch_ir::opcode::ControlFlow::If
            | eubatch_ir::opcode::ControlFlow::Else
            | eubatch_ir::opcode::ControlFlow::Endif
            | eubatch_ir::opcode::ControlFlow::While
            | eubatch_ir::opcode::ControlFlow::Break
            | eubatch_ir::opcode::ControlFlow::Continue
            | eubatch_ir::opcode::ControlFlow::Halt
    ) {
        inst.dst = Operand::bad(Type::UD);
        c.skip_spaces();
        if c.eat("JIP:") {
            inst.jip = Some(label(c)?);
        }
        c.skip_spaces();
        if c.eat("UIP:") {
            inst.uip = Some(label(c)?);
        }
    } else {
        let mut first = true;
        let mut descriptors: Vec<u32> = Vec::new();
        // Whether the first descriptor slot (after the payloads) is a register: a split
        // send prints `a0<0>UD 0x...` (descriptor in a0.0) or `0x... a0.1<0>UD` (extended
        // descriptor in a0.2).
        let mut address_before_hex = false;
        loop {
            c.skip_spaces();
            let r = c.rest();
            if r.is_empty() || r.starts_with('{') || r.starts_with(';') {
                break;
            }
            // A send's descriptors: `0x0222a000` (send) or `0x02080017 0x00000200` (sends),
            // without a type; `a0<0,1,0>UD` for a descriptor in a register.
            if is_send(opcode) && r.starts_with("0x") && !first {
                c.pos += 2;
                let d = c.take_while(|b| b.is_ascii_hexdigit());
                let v = u32::from_str_radix(d, 16)
                    .map_err(|_| c.error("a 32-bit message descriptor"))?;
                if descriptors.len() == 2 {
                    return Err(c.error("a send has at most two descriptors"));
                }
                descriptors.push(v);
                continue;
            }
            match parse_operand(c, first, align16)? {
                Parsed::Operand(mut op) => {
                    if descriptors.is_empty()
                        && op.file == eubatch_ir::RegFile::Arf
                        && op.nr == eubatch_ir::operand::arf::ADDRESS
                    {
                        address_before_hex = true;
                    }
                    if first && op.file == eubatch_ir::RegFile::Imm {
                        return Err(c.error("a destination register, not an immediate"));
                    }
                    if first {
                        // A destination region is its stride: rows of at most eight
                        // elements, no wider than the instruction.
                        let h = op.region.hstride;
                        let w = inst.control.exec_size.clamp(1, 8);
                        let swizzle = op.region.swizzle;
                        op.region = eubatch_ir::Region::new(w * h, w, h);
                        op.region.swizzle = swizzle;
                        inst.dst = op;
                    } else {
                        inst.srcs.push(op);
                    }
                }
                Parsed::HalfFloatImm => {
                    let bits = imm_bits.ok_or_else(|| {
                        c.error("`Half Float IMM` without its encoding (the value is not printed)")
                    })?;
                    inst.srcs
                        .push(Operand::imm(Type::HF, (bits & 0xffff) as u64 * 0x1_0001));
                }
            }
            first = false;
        }
        if is_send(opcode) {
            // A descriptor in the address register (`a0<0,1,0>UD`, "MsgDesc: indirect")
            // leaves only the extended descriptor printed.
            let indirect = inst.srcs.iter().any(|s| {
                s.file == eubatch_ir::RegFile::Arf && s.nr == eubatch_ir::operand::arf::ADDRESS
            });
            let split = matches!(opcode, Opcode::Sends | Opcode::Sendsc);
            let (desc, ex_desc) = if indirect && split && !address_before_hex {
                // `0x... a0.1<0>UD`: the descriptor printed, the extended one in a0.
                (descriptors.first().copied().unwrap_or(0), 0)
            } else if indirect {
                (0, descriptors.first().copied().unwrap_or(0))
            } else {
                (
                    descriptors.first().copied().unwrap_or(0),
                    descriptors.get(1).copied().unwrap_or(0),
                )
            };
            inst.send = Some(SendInfo {
                desc,
                ex_desc,
                ..SendInfo::default()
            });
        }
    }
    c.skip_spaces();
    if c.rest().starts_with('{') {
        parse_options(c, &mut inst)?;
    }
    // Unary math prints a null second source; logical math takes one source.
    if matches!(
        opcode,
        Opcode::Rcp
            | Opcode::Log2
            | Opcode::Exp2
            | Opcode::Sqrt
            | Opcode::Rsq
            | Opcode::Sin
            | Opcode::Cos
    ) && inst.srcs.len() == 2
        && inst.srcs[1].is_null()
    {
        inst.srcs.pop();
    }
    if align16 && !is_send(opcode) {
        inst.control.set(Control::ALIGN16, true);
    }
    Ok(inst)
}

pub fn is_send(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::Send | Opcode::Sendc | Opcode::Sends | Opcode::Sendsc
    )
}

fn label(c: &mut Cursor<'_>) -> PResult<u32> {
    c.skip_spaces();
    c.expect("LABEL")?;
    c.number("a label number")
}

/// `.sat`, `.l`, `.nz.f0.1` after the opcode.
fn parse_mods(c: &mut Cursor<'_>, control: &mut Control) -> PResult<()> {
    loop {
        if c.eat(".sat") {
            control.set(Control::SATURATE, true);
        } else if c.rest().starts_with(".f")
            && c.rest()[2..].starts_with(|ch: char| ch.is_ascii_digit())
        {
            c.pos += 2;
            let n = c.number_u8("a flag register")?;
            c.expect(".")?;
            let m = c.number_u8("a flag subregister")?;
            control.flag_subreg = Control::flag_subreg_of(n, m).ok_or_else(|| {
                c.error(format!(
                    "f{n}.{m}: expected a flag register f0 or f1, subregister 0 or 1"
                ))
            })?;
        } else if c.peek() == Some(b'.') {
            let save = c.pos;
            c.pos += 1;
            let m = c.take_while(|b| b.is_ascii_alphabetic());
            match CondMod::from_name(m) {
                Some(cm) => control.cmod = cm,
                None => {
                    c.pos = save;
                    return Err(c.error(format!("unknown conditional modifier `.{m}`")));
                }
            }
        } else {
            return Ok(());
        }
    }
}

/// `{ align1 1Q compacted }`, `{ align16 WE_all 1H EOT };`.
pub fn parse_options(c: &mut Cursor<'_>, inst: &mut AsmInst) -> PResult<()> {
    c.expect("{")?;
    inst.has_options = true;
    loop {
        c.skip_spaces();
        if c.eat("}") {
            break;
        }
        let word = c.take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b','));
        if word.is_empty() {
            return Err(c.expected("an instruction option or `}`"));
        }
        for w in word.split(',') {
            let exec = inst.control.exec_size;
            match w {
                "align1" => {}
                "align16" => inst.control.set(Control::ALIGN16, true),
                "WE_all" => inst.control.set(Control::NO_MASK, true),
                "EOT" => inst.control.set(Control::EOT, true),
                // Dependency hints and accumulator writes: no effect on results, kept
                // for timing.
                "NoDDClr" => inst.hints.no_dd_clear = true,
                "NoDDChk" => inst.hints.no_dd_check = true,
                "AccWrEnable" => inst.hints.acc_wr_enable = true,
                // Scheduling hints with no effect on results.
                "compacted" | "switch" | "BranchCtrl" | "Breakpoint" | "atomic" => {}
                _ => {
                    let (n, unit) = w.split_at(w.len().saturating_sub(1));
                    let n: u8 = n
                        .parse()
                        .map_err(|_| c.error(format!("unknown instruction option `{w}`")))?;
                    // Quarter (8 channels), half (16) or nibble (4) control: the channel
                    // group the instruction executes for (brw_disasm.c `qtr_ctrl`).
                    let size = match unit {
                        "Q" => 8,
                        "H" => 16,
                        "N" => 4,
                        _ => return Err(c.error(format!("unknown instruction option `{w}`"))),
                    };
                    if n == 0 || n > 8 {
                        return Err(c.error(format!("channel group `{w}` out of range")));
                    }
                    let _ = exec;
                    inst.control.group = (n - 1) * size;
                }
            }
        }
    }
    c.skip_spaces();
    c.eat(";");
    Ok(())
}
