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

/// The opcode of math function `name` (`math_function`'s name).
pub(crate) fn math_opcode(name: &str) -> Result<Opcode, String> {
    MATH.iter()
        .find(|(n, _)| *n == name)
        .map(|(_, o)| *o)
        .ok_or_else(|| format!("math function `{name}` is not supported"))
}

/// The opcode Mesa's disassembly names `name` (not `math`, whose function names it).
/// Final code holds EU instructions only: a virtual opcode's name (`tg4_logical`) in a
/// listing is an error, not an instruction of the program.
pub(crate) fn hardware_opcode(name: &str) -> Result<Opcode, String> {
    match Opcode::from_name(name) {
        Some(op) if op.is_hardware() => Ok(op),
        Some(_) => Err(format!(
            "`{name}` is not a hardware instruction (a listing holds Mesa's final code)"
        )),
        None => Err(format!("unknown opcode `{name}`")),
    }
}

/// An instruction before its operands: `opcode` with `control` as its name, modifiers and
/// execution size say.
pub(crate) fn new_inst(opcode: Opcode, control: Control) -> AsmInst {
    AsmInst {
        opcode,
        control,
        dst: Operand::NULL,
        srcs: Vec::new(),
        send: None,
        jip: None,
        uip: None,
        has_options: false,
        hints: AsmHints::default(),
    }
}

/// Whether `op` is a jump, whose operands are its JIP and UIP labels.
pub(crate) fn is_jump(op: Opcode) -> bool {
    use eubatch_ir::opcode::ControlFlow as F;
    matches!(
        op.control_flow(),
        F::If | F::Else | F::Endif | F::While | F::Break | F::Continue | F::Halt
    )
}

/// Sets the destination. A destination region is its stride: rows of at most eight
/// elements, no wider than the instruction.
pub(crate) fn set_destination(inst: &mut AsmInst, mut op: Operand) {
    let h = op.region.hstride;
    let w = inst.control.exec_size.clamp(1, 8);
    let swizzle = op.region.swizzle;
    op.region = eubatch_ir::Region::new(w * h, w, h);
    op.region.swizzle = swizzle;
    inst.dst = op;
}

/// A send's descriptors from what its disassembly prints after the payloads: the
/// immediate `descriptors` in order (at most two), and whether an address register came
/// before the first of them. A descriptor in the address register (`a0<0,1,0>UD`,
/// "MsgDesc: indirect") leaves only the extended descriptor printed; a split send prints
/// `a0<0>UD 0x...` (descriptor in a0.0) or `0x... a0.1<0>UD` (extended descriptor in a0).
pub(crate) fn send_descriptors(inst: &mut AsmInst, descriptors: &[u32], address_before_hex: bool) {
    let indirect = inst
        .srcs
        .iter()
        .any(|s| s.file == eubatch_ir::RegFile::Arf && s.nr == eubatch_ir::operand::arf::ADDRESS);
    let split = matches!(inst.opcode, Opcode::Sends | Opcode::Sendsc);
    let (desc, ex_desc) = if indirect && split && !address_before_hex {
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

/// What follows from the operands once read: unary math prints a null second source
/// (logical math takes one source); `align16` (the access mode) marks a non-send
/// instruction (a send's options set it).
pub(crate) fn complete(inst: &mut AsmInst, align16: bool) {
    if matches!(
        inst.opcode,
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
    if align16 && !is_send(inst.opcode) {
        inst.control.set(Control::ALIGN16, true);
    }
}

/// A send's shared function (its descriptor line), and what its descriptors say of it.
/// Message and response lengths and the header bit live in the descriptor (PRM Vol. 2a,
/// "Message Descriptor"); the extended message length in the extended descriptor of a
/// split send. An indirect descriptor (`a0`) leaves them unknown here. To call once the
/// send's options are read: its operands were read accepting Align16 syntax, and an
/// Align1 send has no writemask or swizzle.
pub(crate) fn set_send_function(inst: &mut AsmInst, sfid: u8) {
    let send = inst.send.get_or_insert_with(Default::default);
    send.sfid = sfid;
    send.mlen = ((send.desc >> 25) & 0xf) as u8;
    send.header_size = ((send.desc >> 19) & 1) as u8;
    if matches!(inst.opcode, Opcode::Sends | Opcode::Sendsc) {
        send.ex_mlen = ((send.ex_desc >> 6) & 0xf) as u8;
    }
    if !inst.control.align16() {
        for op in std::iter::once(&mut inst.dst).chain(inst.srcs.iter_mut()) {
            op.region.swizzle = eubatch_ir::Region::XYZW;
        }
    }
}

/// The channel group of a quarter (`Q`, 8 channels), half (`H`, 16) or nibble (`N`, 4)
/// control `n` (1-based, brw_disasm.c `qtr_ctrl`): the channels the instruction executes
/// for.
pub(crate) fn channel_group(n: u8, unit: u8) -> Result<u8, String> {
    let size = match unit {
        b'Q' => 8,
        b'H' => 16,
        b'N' => 4,
        _ => return Err(format!("unknown channel group unit `{}`", unit as char)),
    };
    if n == 0 || n > 8 {
        return Err(format!("channel group `{n}{}` out of range", unit as char));
    }
    Ok((n - 1) * size)
}

/// Parses the disassembly of one instruction. `imm_bits`: the immediate field of the
/// encoding, for the `Half Float IMM` the printer leaves out.
pub fn parse_inst(c: &mut Cursor<'_>, imm_bits: Option<u32>) -> PResult<AsmInst> {
    let mut control = Control::new(1);
    c.skip_spaces();
    eubatch_ir::text::inst::parse_predicate(c, &mut control)?;
    let name_col = c.pos;
    let name = c.take_while(|b| b.is_ascii_alphanumeric() || b == b'_');
    let line = c.line;
    let mut opcode = if name == "math" {
        None
    } else {
        Some(
            hardware_opcode(name)
                .map_err(|m| eubatch_ir::error::ParseError::new(line, name_col as u32 + 1, m))?,
        )
    };
    parse_mods(c, &mut control)?;
    if opcode.is_none() {
        c.expect(" ")?;
        let f = c.take_while(|b| b.is_ascii_alphanumeric());
        opcode = Some(math_opcode(f).map_err(|m| c.error(m))?);
        parse_mods(c, &mut control)?;
    }
    let opcode = opcode.unwrap();
    let mut inst = new_inst(opcode, control);
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
    if is_jump(opcode) {
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
                Parsed::Operand(op) => {
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
                        set_destination(&mut inst, op);
                    } else {
                        inst.srcs.push(op);
                    }
                }
                Parsed::HalfFloatImm => {
                    let bits = imm_bits.ok_or_else(|| {
                        c.error("`Half Float IMM` without its encoding (the value is not printed)")
                    })?;
                    inst.srcs.push(
                        super::operand::make_imm(Type::HF, bits as u64, false)
                            .expect("HF immediates exist"),
                    );
                }
            }
            first = false;
        }
        if is_send(opcode) {
            send_descriptors(&mut inst, &descriptors, address_before_hex);
        }
    }
    c.skip_spaces();
    if c.rest().starts_with('{') {
        parse_options(c, &mut inst)?;
    }
    complete(&mut inst, align16);
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
                    let unit = match unit.as_bytes() {
                        [u @ (b'Q' | b'H' | b'N')] => *u,
                        _ => return Err(c.error(format!("unknown instruction option `{w}`"))),
                    };
                    inst.control.group = channel_group(n, unit).map_err(|m| c.error(m))?;
                }
            }
        }
    }
    c.skip_spaces();
    c.eat(";");
    Ok(())
}
