//! Reading one instruction in any of the syntaxes: eubatch's own, Mesa 22's scalar and
//! vec4 printers (`fs_visitor::dump_instruction`, `vec4_visitor::dump_instruction`) and
//! Mesa 25's (`brw_print_instruction`). They share most of their grammar; the differences
//! are switched by [`Dialect`].

use std::sync::OnceLock;

use super::cursor::{Cursor, PResult};
use super::imm::{f32_to_vf, parse_scalar};
use super::TEXT_REG_BYTES;
use crate::opcode::Opcode;
use crate::operand::{arf, Mods, Operand, RegFile, Region};
use crate::shader::{CondMod, Control, InstBuilder, Predicate, SendInfo};
use crate::types::Type;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Syntax {
    Eubatch,
    Mesa22,
    Mesa25,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Dialect {
    pub syntax: Syntax,
    /// Align16 (vec4) operands: writemasks, swizzles, 16-byte uniform slots.
    pub align16: bool,
}

impl Dialect {
    fn uniform_unit(self) -> u32 {
        if self.align16 {
            16
        } else {
            4
        }
    }
}

/// One parsed instruction, before it is placed in a shader. Reused between lines so that
/// parsing allocates nothing per instruction.
#[derive(Clone, Debug)]
pub struct ParsedInst {
    pub opcode: Opcode,
    pub control: Control,
    pub dst: Operand,
    pub srcs: Vec<Operand>,
    /// Mesa prints `+R.B` on a VGRF when the access does not cover the whole register;
    /// where it is absent the access covers it exactly. Bit 0: destination, bit i+1: source i.
    pub offset_shown: u64,
    pub mlen: u8,
    pub ex_mlen: u8,
    pub header_size: u8,
    pub sfid: u8,
    pub desc: u32,
    pub ex_desc: u32,
    /// `(urb_offset: N)`: see [`SendInfo::urb_offset`].
    pub urb_offset: Option<u16>,
    /// `(header_bits: 0xN)`: see [`SendInfo::header_bits`].
    pub header_bits: Option<u32>,
    /// `(size: N)`: eubatch's explicit `size_written`.
    pub size_written: Option<u32>,
    /// Column where the destination starts (for error messages).
    pub dst_col: u32,
}

impl Default for ParsedInst {
    fn default() -> Self {
        ParsedInst {
            opcode: Opcode::Nop,
            control: Control::new(8),
            dst: Operand::NULL,
            srcs: Vec::new(),
            offset_shown: 0,
            mlen: 0,
            ex_mlen: 0,
            header_size: 0,
            sfid: 0,
            desc: 0,
            ex_desc: 0,
            urb_offset: None,
            header_bits: None,
            size_written: None,
            dst_col: 0,
        }
    }
}

impl ParsedInst {
    fn reset(&mut self) {
        self.srcs.clear();
        self.control = Control::new(8);
        self.dst = Operand::NULL;
        self.offset_shown = 0;
        self.mlen = 0;
        self.ex_mlen = 0;
        self.header_size = 0;
        self.sfid = 0;
        self.desc = 0;
        self.ex_desc = 0;
        self.urb_offset = None;
        self.header_bits = None;
        self.size_written = None;
    }

    /// The instruction as the shader's builder takes it (`size_written` still to be set).
    pub fn builder(&self) -> InstBuilder<'_> {
        InstBuilder {
            opcode: self.opcode,
            control: self.control,
            dst: self.dst,
            srcs: &self.srcs,
            size_written: 0,
            send: self.send_info(),
        }
    }

    /// The send side-table row, if the instruction has message fields.
    pub fn send_info(&self) -> Option<SendInfo> {
        if self.opcode.is_message()
            || self.mlen != 0
            || self.ex_mlen != 0
            || self.header_size != 0
            || self.desc != 0
            || self.ex_desc != 0
            || self.sfid != 0
            || self.urb_offset.is_some()
            || self.header_bits.is_some()
        {
            Some(SendInfo {
                mlen: self.mlen,
                ex_mlen: self.ex_mlen,
                header_size: self.header_size,
                sfid: self.sfid,
                desc: self.desc,
                ex_desc: self.ex_desc,
                urb_offset: self.urb_offset,
                header_bits: self.header_bits,
            })
        } else {
            None
        }
    }
}

/// A predicate, if the text has one: `(+f0.0)`, `(-f1.0.any4h)`, `(+f0.0.x)` (the syntax
/// of Mesa's IR printers and of its disassembler alike). Sets predicate, inversion and flag.
pub fn parse_predicate(c: &mut Cursor<'_>, control: &mut Control) -> PResult<()> {
    if !(c.looking_at("(+") || c.looking_at("(-")) {
        return Ok(());
    }
    c.pos += 1;
    let invert = c.peek() == Some(b'-');
    c.pos += 1;
    c.expect("f")?;
    let n = c.number_u8("a flag register")?;
    c.expect(".")?;
    let m = c.number_u8("a flag subregister")?;
    let flag_subreg = Control::flag_subreg_of(n, m).ok_or_else(|| {
        c.error(format!(
            "f{n}.{m}: expected a flag register f0 or f1, subregister 0 or 1"
        ))
    })?;
    let suffix = c.take_while(|b| b != b')');
    control.predicate = Predicate::from_suffix(suffix)
        .ok_or_else(|| c.error(format!("unknown predicate control `{suffix}`")))?;
    c.expect(")")?;
    control.set(Control::PRED_INVERT, invert);
    control.flag_subreg = flag_subreg;
    c.skip_spaces();
    Ok(())
}

/// Parses one instruction that fills the rest of the cursor's line.
pub fn parse_inst(c: &mut Cursor<'_>, mut d: Dialect, out: &mut ParsedInst) -> PResult<()> {
    out.reset();
    c.skip_spaces();
    parse_predicate(c, &mut out.control)?;
    let name_col = c.pos;
    let name = c.take_while(|b| OPCODE_BYTE[b as usize]);
    if name.is_empty() {
        return Err(c.expected("an opcode"));
    }
    out.opcode = opcode_named(name).ok_or_else(|| {
        crate::error::ParseError::new(
            c.line,
            name_col as u32 + 1,
            format!("unknown opcode `{name}`"),
        )
    })?;
    parse_inst_mods(c, out)?;
    c.expect("(")?;
    out.control.exec_size = c.number_u8("an execution size")?;
    c.expect(")")?;
    // vec4 prints `.sat` and the conditional modifier after the execution size.
    parse_inst_mods(c, out)?;
    c.skip_spaces();
    loop {
        // Every attribute starts with `(`; most instructions have none.
        if c.peek() != Some(b'(') {
            break;
        }
        let r = c.rest();
        if let Some(rest) = r.strip_prefix("(mlen: ") {
            c.pos += r.len() - rest.len();
            out.mlen = c.number_u8("a message length")?;
        } else if let Some(rest) = r.strip_prefix("(ex_mlen: ") {
            c.pos += r.len() - rest.len();
            out.ex_mlen = c.number_u8("an extended message length")?;
        } else if r.starts_with("(EOT)") {
            c.pos += 4;
            out.control.set(Control::EOT, true);
        } else if d.syntax == Syntax::Eubatch && r.starts_with("(align16)") {
            c.pos += 8;
            out.control.set(Control::ALIGN16, true);
            d.align16 = true;
        } else if d.syntax == Syntax::Eubatch && r.starts_with("(") && !r.starts_with("(null)") {
            c.pos += 1;
            let key = c.ident();
            c.expect(": ")?;
            match key {
                "header" => out.header_size = c.number_u8("a header size")?,
                "sfid" => out.sfid = c.number_u8("a shared function id")?,
                "desc" => out.desc = hex_u32(c)?,
                "ex_desc" => out.ex_desc = hex_u32(c)?,
                "urb_offset" => {
                    let n = c.number("a URB offset")?;
                    out.urb_offset = Some(u16::try_from(n).map_err(|_| {
                        c.error(format!(
                            "URB offset {n} is beyond the 11-bit descriptor field"
                        ))
                    })?);
                }
                "header_bits" => out.header_bits = Some(hex_u32(c)?),
                "size" => out.size_written = Some(c.number("a size in bytes")?),
                "flag" => out.control.flag_subreg = c.number_u8("a flag subregister")?,
                _ => return Err(c.error(format!("unknown instruction attribute `{key}`"))),
            }
        } else {
            break;
        }
        c.expect(")")?;
        c.skip_spaces();
    }
    out.dst_col = c.pos as u32 + 1;
    let (dst, shown) = parse_operand(c, d, true)?;
    out.dst = dst;
    out.offset_shown |= shown as u64;
    c.skip_spaces();
    if c.eat(",") {
        c.skip_spaces();
    }
    let memory = matches!(
        out.opcode,
        Opcode::MemoryLoadLogical | Opcode::MemoryStoreLogical | Opcode::MemoryAtomicLogical
    );
    if d.syntax == Syntax::Mesa25 && memory {
        super::memory::parse_mesa25_memory_sources(c, d, out)?;
        // The line may end here (no NoMask, no group: an atomic in the shader's channels),
        // after the trailing space Mesa's printer leaves.
        c.skip_spaces();
    }
    loop {
        if c.at_end() || c.looking_at("NoMask") || c.looking_at("group") {
            break;
        }
        let (mut src, shown) = parse_operand(c, d, false)?;
        // Mesa 22.3 prints `mask0` as `arf0` (its printer names only null, a0, acc0 and f0),
        // and its only `fbl` of an architecture register is `lower_find_live_channel`'s
        // `fbl dst, mask0` (brw_fs.cpp: `brw_mask_reg(0)`, the channel enables).
        if out.opcode == Opcode::Fbl && src.file == RegFile::Arf && src.nr == arf::UNKNOWN {
            src.nr = arf::MASK;
        }
        let i = out.srcs.len();
        if i >= 62 {
            return Err(c.error("too many sources (at most 62)"));
        }
        out.srcs.push(src);
        out.offset_shown |= (shown as u64) << (i + 1);
        c.skip_spaces();
        if c.eat(",") {
            c.skip_spaces();
        }
    }
    if c.eat_word("NoMask") {
        out.control.set(Control::NO_MASK, true);
        c.skip_spaces();
    }
    if c.eat("group") {
        out.control.group = c.number_u8("a channel group")?;
        c.skip_spaces();
    }
    if c.eat_word("NoMaskParams") {
        out.control.set(Control::NO_MASK_PARAMS, true);
        c.skip_spaces();
    }
    if !c.at_end() {
        return Err(c.expected("end of instruction"));
    }
    Ok(())
}

/// The opcode named `name`: what [`Opcode::from_name`] finds (the first of
/// [`Opcode::ALL`] with that name), from a hash table built once per process instead of a
/// scan of every opcode's name on every instruction.
fn opcode_named(name: &str) -> Option<Opcode> {
    static BY_NAME: OnceLock<Vec<Option<(&'static str, Opcode)>>> = OnceLock::new();
    let table = BY_NAME.get_or_init(|| {
        // Open addressing, at most a quarter full: probes are short.
        let size = (Opcode::ALL.len() * 4).next_power_of_two();
        let mut t = vec![None; size];
        for &op in Opcode::ALL {
            let mut i = name_hash(op.name()) & (size - 1);
            loop {
                match t[i] {
                    // Of several opcodes with one name, the first in `ALL` stays.
                    Some((n, _)) if n == op.name() => break,
                    Some(_) => i = (i + 1) & (size - 1),
                    None => {
                        t[i] = Some((op.name(), op));
                        break;
                    }
                }
            }
        }
        t
    });
    let mask = table.len() - 1;
    let mut i = name_hash(name) & mask;
    while let Some((n, op)) = table[i] {
        if same_name(n, name) {
            return Some(op);
        }
        i = (i + 1) & mask;
    }
    None
}

/// A cheap hash of an opcode name: its length and its first two and last bytes, mixed by
/// one multiplication. A fixed number of steps whatever the length; names it does not
/// tell apart (`pixel_x`, `pixel_y`) cost a probe more.
fn name_hash(name: &str) -> usize {
    let b = name.as_bytes();
    let at = |i: usize| u32::from(b.get(i).copied().unwrap_or(0));
    let key = at(0) | at(1) << 8 | at(b.len().saturating_sub(1)) << 16 | (b.len() as u32) << 24;
    (key.wrapping_mul(0x9e37_79b1) >> 16) as usize
}

/// `a == b` for the short names of opcodes, byte by byte in place rather than by a call to
/// `memcmp`.
fn same_name(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).all(|(x, y)| x == y)
}

fn hex_u32(c: &mut Cursor<'_>) -> PResult<u32> {
    c.expect("0x")?;
    let digits = c.take_while(|b| b.is_ascii_hexdigit());
    u32::from_str_radix(digits, 16).map_err(|_| c.expected("a 32-bit hexadecimal number"))
}

/// `.sat`, `.l`, `.nz.f0.1`: saturate, conditional modifier and its flag register.
fn parse_inst_mods(c: &mut Cursor<'_>, out: &mut ParsedInst) -> PResult<()> {
    while c.peek() == Some(b'.') {
        let save = c.pos;
        c.pos += 1;
        let word = c.ident();
        if word == "sat" {
            out.control.set(Control::SATURATE, true);
        } else if let Some(cm) = CondMod::from_name(word) {
            out.control.cmod = cm;
        } else if let Some(n) = word.strip_prefix('f').and_then(|n| n.parse::<u8>().ok()) {
            c.expect(".")?;
            let m = c.number_u8("flag subregister")?;
            out.control.flag_subreg = Control::flag_subreg_of(n, m).ok_or_else(|| {
                c.error(format!(
                    "f{n}.{m}: expected a flag register f0 or f1, subregister 0 or 1"
                ))
            })?;
        } else {
            c.pos = save;
            return Err(c.expected("`.sat`, a conditional modifier or a flag register"));
        }
    }
    Ok(())
}

/// Parses an operand. Returns it and whether a `+R.B` offset was written.
pub fn parse_operand(c: &mut Cursor<'_>, d: Dialect, is_dst: bool) -> PResult<(Operand, bool)> {
    match plain_vgrf(c, d) {
        Some(vgrf) => Ok(vgrf),
        None => parse_any_operand(c, d, is_dst),
    }
}

/// [`parse_operand`] for every spelling: an immediate, or a register with its modifiers,
/// offset, channels, region and type, in that order.
fn parse_any_operand(c: &mut Cursor<'_>, d: Dialect, is_dst: bool) -> PResult<(Operand, bool)> {
    let r = c.rest();
    if r.starts_with('[') {
        return parse_vf(c).map(|o| (o, false));
    }
    if starts_immediate(r) && !r.starts_with("null") {
        return parse_immediate(c).map(|o| (o, false));
    }
    let mods = parse_source_mods(c);
    let (mut op, has_region_default) = parse_register(c, d)?;
    // Fixed-register sub-register: `g1.4` in units of the type (scalar printers; fixed up
    // by `place_fixed_sub` once the type is known) or raw bytes (vec4 printer).
    let fixed_sub = if op.file == RegFile::FixedGrf {
        c.dot_number("a subregister number")?
    } else {
        None
    };
    let shown = parse_reg_offset(c, d, &mut op)?;
    parse_channels(c, d, is_dst, &mut op)?;
    // A null operand (`(null)`) names no register, so whatever would place it within one
    // means nothing: an offset (`(null)+0.4`), a destination's writemask (`(null).x`), a
    // source's swizzle (`(null).yyyy`). The grammar allows them (and they are checked like
    // any other), but they are not kept, so the printer, which writes none of them for a
    // null operand, prints back exactly what was kept. In one place, after all of them are
    // parsed, rather than where each is parsed: dropping them one by one left the source
    // swizzle behind (a readers fuzz finding, as the offset was before it).
    if op.file == RegFile::Bad {
        op.offset = Operand::NULL.offset;
        op.region.swizzle = Operand::NULL.region.swizzle;
    }
    if mods & Mods::ABS != 0 {
        c.expect("|")?;
    }
    op.mods = Mods(mods);
    parse_region(c, d, has_region_default, &mut op)?;
    parse_type(c, d, &mut op)?;
    if let Some(sub) = fixed_sub {
        place_fixed_sub(c, d, sub, &mut op)?;
    }
    Ok((op, shown))
}

/// Whether `s` starts an immediate: a digit, `inf` or `nan`, after an optional `-`, or a
/// vector immediate, whose eight hex digits (`%08xV`, `%08xUV`: Mesa's printers) may start
/// with a letter (`fc00fc00V`). Tested on bytes: an ASCII digit is one byte, and starts no
/// longer character.
fn starts_immediate(s: &str) -> bool {
    let s = s.as_bytes();
    let s = s.strip_prefix(b"-").unwrap_or(s);
    s.first().is_some_and(u8::is_ascii_digit)
        || s.starts_with(b"inf")
        || s.starts_with(b"nan")
        || starts_vector_immediate(s)
}

/// Eight hex digits, then `V` or `UV` ending the token.
fn starts_vector_immediate(s: &[u8]) -> bool {
    if s.len() < 9 || !s[..8].iter().all(u8::is_ascii_hexdigit) {
        return false;
    }
    let rest = &s[8..];
    let after = if rest.starts_with(b"UV") {
        &rest[2..]
    } else if rest.starts_with(b"V") {
        &rest[1..]
    } else {
        return false;
    };
    !after
        .first()
        .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
}

/// A scalar immediate (`1.5F`, `-3d`, `0x7fu`, `nan(0x7fc00000)F`), typed by its suffix.
fn parse_immediate(c: &mut Cursor<'_>) -> PResult<Operand> {
    let start = c.pos;
    // `nan(0x...)` is the only spelling with parentheses.
    c.eat("-");
    if c.eat("nan(") {
        c.take_while(|b| b != b')');
        c.expect(")")?;
    }
    c.take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'+' | b'-'));
    let tok = &c.s[start..c.pos];
    parse_scalar(tok).map_err(|m| crate::error::ParseError::new(c.line, start as u32 + 1, m))
}

/// A register operand's source modifiers: `-` (negate), then `|` (absolute value, closed
/// after the register by [`parse_any_operand`]).
fn parse_source_mods(c: &mut Cursor<'_>) -> u8 {
    let mut mods = 0u8;
    if c.eat("-") {
        mods |= Mods::NEGATE;
    }
    if c.eat("|") {
        mods |= Mods::ABS;
    }
    mods
}

/// The register an operand names, up to its number (and the sub-register of those that
/// always print one). Also whether it is a fixed, architecture or indirect register,
/// which take a full `<v,w,h>` region and have a default one.
fn parse_register(c: &mut Cursor<'_>, d: Dialect) -> PResult<(Operand, bool)> {
    let mut op = Operand::NULL;
    // A VGRF first, the most frequent operand: no other spelling starts like `vgrf`.
    if c.eat("vgrf") {
        op.file = RegFile::Vgrf;
        op.nr = c.number("a register number")?;
    } else if c.eat("(null)") {
        op.file = RegFile::Bad;
    } else if c.eat("null") {
        op = Operand::arf(arf::NULL, 0, Type::UD, Region::for_stride(1));
        if let Some(sub) = c.dot_number("a subregister number")? {
            op.offset = sub;
        }
        return Ok((op, true));
    } else if c.rest().starts_with("va")
        && c.s
            .as_bytes()
            .get(c.pos + 2)
            .is_some_and(|b| b.is_ascii_digit())
    {
        c.pos += 2;
        op.file = RegFile::VAddr;
        op.nr = c.number("a register number")?;
        c.expect(".")?;
        op.offset = c.number("a subregister number")?;
    } else if c.eat("g[a0") {
        return parse_indirect(c).map(|op| (op, true));
    } else if d.syntax == Syntax::Mesa25 && (c.eat("%") || c.eat("v")) {
        op.file = RegFile::Vgrf;
        op.nr = c.number("a register number")?;
    } else {
        return parse_named_register(c, d);
    }
    Ok((op, false))
}

/// The rest of an indirect register after `g[a0`: `.S+IMM]` (address sub-register, byte
/// offset).
fn parse_indirect(c: &mut Cursor<'_>) -> PResult<Operand> {
    let mut op = Operand::NULL;
    op.file = RegFile::Indirect;
    op.nr = c.dot_number("an address subregister")?.unwrap_or(0);
    let neg = c.eat("-");
    if neg || c.eat("+") {
        let v = c.number("a byte offset")? as i32;
        op.offset = (if neg { -v } else { v }) as u32;
    }
    c.expect("]")?;
    Ok(op)
}

/// A register named by letters and a number: `g12`, `m3`, `u4`, `attr0`, or an
/// architecture register ([`parse_arf`]). Returned as [`parse_register`] returns it.
fn parse_named_register(c: &mut Cursor<'_>, d: Dialect) -> PResult<(Operand, bool)> {
    let reg_col = c.pos;
    let word = c.take_while(|b| b.is_ascii_alphabetic());
    let mut op = Operand::NULL;
    let (file, what) = match word {
        "g" => (RegFile::FixedGrf, "a register number"),
        "m" => (RegFile::Mrf, "a register number"),
        "u" => (RegFile::Uniform, "a uniform number"),
        "attr" => (RegFile::Attr, "an attribute number"),
        "a" | "acc" | "f" | "arf" | "mask" | "ms" | "msd" | "sr" | "cr" | "n" | "ip" | "tdr"
        | "tm" => return parse_arf(c, d, word).map(|op| (op, true)),
        _ => {
            c.pos = reg_col;
            return Err(c.expected("an operand"));
        }
    };
    op.file = file;
    op.nr = c.number(what)?;
    Ok((op, file == RegFile::FixedGrf))
}

/// An architecture register after its name `word`: its number (none for `ip`) and
/// sub-register.
fn parse_arf(c: &mut Cursor<'_>, d: Dialect, word: &str) -> PResult<Operand> {
    let num_col = c.pos;
    let n = if word == "ip" {
        0
    } else {
        c.number("an architecture register number")?
    };
    let class = match word {
        "a" => arf::ADDRESS,
        "acc" => arf::ACCUMULATOR,
        "f" => arf::FLAG,
        // Mesa 22.3's printers switch on the whole ARF number, so only f0, acc0 and a0 get
        // their names; f1 prints as `arf1.S`. In its dumps `arfN` with N >= 1 is a flag
        // register; `arf0` is of an unknown class.
        "arf" if d.syntax == Syntax::Mesa22 && n >= 1 => arf::FLAG,
        "arf" => arf::UNKNOWN,
        _ => arf::NAMED.iter().find(|(_, nm)| *nm == word).unwrap().0,
    };
    if n > 15 {
        return Err(crate::error::ParseError::new(
            c.line,
            num_col as u32 + 1,
            "architecture register number out of range",
        ));
    }
    let mut op = Operand::arf(class | n, 0, Type::UD, Region::for_stride(1));
    // Mesa prints the sub-register of a0, f and arf as `.N`; acc only when not 0.
    if let Some(sub) = c.dot_number("a subregister number")? {
        op.offset = sub;
    }
    Ok(op)
}

/// `+R.B`, an offset of `R` registers and `B` bytes, if the text continues with one;
/// whether it did. A uniform's `R` counts its slots (4 or 16 bytes); any other's counts
/// 32-byte registers whatever the target ([`TEXT_REG_BYTES`]).
fn parse_reg_offset(c: &mut Cursor<'_>, d: Dialect, op: &mut Operand) -> PResult<bool> {
    if !c.eat("+") {
        return Ok(false);
    }
    let unit = if op.file == RegFile::Uniform {
        d.uniform_unit()
    } else {
        TEXT_REG_BYTES
    };
    let r = c.number("a register offset")?;
    c.expect(".")?;
    let b = c.number("a byte offset")?;
    op.offset = r
        .checked_mul(unit)
        .and_then(|x| x.checked_add(b))
        .ok_or_else(|| c.error("offset out of range"))?;
    Ok(true)
}

/// An Align16 operand's channels: a destination's writemask (`.xy`, all four when none is
/// written) or a source's swizzle (`.yyzw`, four letters). Nothing in Align1 code.
fn parse_channels(c: &mut Cursor<'_>, d: Dialect, is_dst: bool, op: &mut Operand) -> PResult<()> {
    if !d.align16 {
        return Ok(());
    }
    if c.peek() != Some(b'.') {
        if is_dst {
            op.region.swizzle = Region::WRITEMASK_XYZW;
        }
        return Ok(());
    }
    c.pos += 1;
    let letters = c.take_while(|b| matches!(b, b'x' | b'y' | b'z' | b'w'));
    op.region.swizzle = if is_dst {
        // One bit a channel written.
        letters.bytes().fold(0, |mask, ch| mask | 1 << chan(ch))
    } else {
        if letters.len() != 4 {
            return Err(c.expected("a four-letter swizzle"));
        }
        // Two bits a channel: the component each reads.
        letters
            .bytes()
            .enumerate()
            .fold(0, |swz, (i, ch)| swz | chan(ch) << (2 * i))
    };
    Ok(())
}

/// A region, if the text has one: `<VxH,W,H>` (indirect), `<V,W,H>` or `<V;W,H>` (fixed and
/// architecture registers: `has_region_default`), or a stride `<S>`. The channels already
/// read (`op.region.swizzle`) are kept.
fn parse_region(
    c: &mut Cursor<'_>,
    d: Dialect,
    has_region_default: bool,
    op: &mut Operand,
) -> PResult<()> {
    if op.file == RegFile::Indirect && c.eat("<VxH,") {
        let w = c.number_u8("a region width")?;
        c.expect(",")?;
        let h = c.number_u8("a horizontal stride")?;
        c.expect(">")?;
        op.region = Region {
            vstride: Region::VXH,
            width: w,
            hstride: h,
            swizzle: op.region.swizzle,
        };
        op.stride = h;
    } else if c.eat("<") {
        let a = c.number_u8("a stride")?;
        if c.eat(",") || c.eat(";") {
            if !has_region_default {
                return Err(c.error("a region <v,w,h> applies only to fixed and architecture registers; write a stride <s>"));
            }
            let w = c.number_u8("a region width")?;
            c.expect(",")?;
            let h = c.number_u8("a horizontal stride")?;
            op.region = Region {
                vstride: a,
                width: w,
                hstride: h,
                swizzle: op.region.swizzle,
            };
            op.stride = h;
        } else if has_region_default {
            let swz = op.region.swizzle;
            op.region = Region {
                swizzle: swz,
                ..Region::for_stride(a)
            };
            op.stride = a;
        } else {
            op.stride = a;
        }
        c.expect(">")?;
    } else if has_region_default && d.syntax == Syntax::Eubatch && op.file == RegFile::FixedGrf {
        return Err(c.expected("a region `<v,w,h>` after a fixed register"));
    }
    Ok(())
}

/// `:T`, the operand's type; Mesa 25 may leave it out (the operand keeps its default).
fn parse_type(c: &mut Cursor<'_>, d: Dialect, op: &mut Operand) -> PResult<()> {
    if c.eat(":") {
        let t = c.take_while(|b| b.is_ascii_alphabetic());
        op.ty = type_named(t).ok_or_else(|| c.error(format!("unknown type `{t}`")))?;
    } else if d.syntax != Syntax::Mesa25 {
        return Err(c.expected("`:` and a type"));
    }
    Ok(())
}

/// A fixed register's sub-register `sub` as its byte offset: written in units of the
/// operand's type by the scalar printers, in bytes by the vec4 printer.
fn place_fixed_sub(c: &Cursor<'_>, d: Dialect, sub: u32, op: &mut Operand) -> PResult<()> {
    op.offset = if d.align16 {
        sub
    } else {
        sub.checked_mul(op.ty.size())
            .ok_or_else(|| c.error(format!("subregister {sub}: out of range")))?
    };
    Ok(())
}

/// The most frequent operand in its most frequent form, a VGRF without modifiers in
/// Align1 code, `vgrfN[+R.B][<S>]:T` (Mesa 25 also `%N`, `vN`), read in one pass over its
/// bytes: what [`parse_operand`] reads from it, for a fraction of the tests. `None`, the
/// cursor unmoved, for anything else (errors included), which the general path reads.
fn plain_vgrf(c: &mut Cursor<'_>, d: Dialect) -> Option<(Operand, bool)> {
    if d.align16 {
        return None;
    }
    let b = c.s.as_bytes();
    let mut p = c.pos;
    let rest = b.get(p..)?;
    let m25 = d.syntax == Syntax::Mesa25;
    // The general path tries `vgrf` first, and `v` only after `va` and a digit (a VAddr).
    let prefix = match rest {
        [b'v', b'g', b'r', b'f', ..] => 4,
        [b'%', ..] if m25 => 1,
        [b'v', b'a', d, ..] if m25 && d.is_ascii_digit() => return None,
        [b'v', ..] if m25 => 1,
        _ => return None,
    };
    p += prefix;
    let mut op = Operand::NULL;
    op.file = RegFile::Vgrf;
    op.mods = Mods(0);
    op.nr = plain_number(b, &mut p)?;
    let mut shown = false;
    if b.get(p) == Some(&b'+') {
        p += 1;
        let reg = plain_number(b, &mut p)?;
        if b.get(p) != Some(&b'.') {
            return None;
        }
        p += 1;
        let byte = plain_number(b, &mut p)?;
        op.offset = reg.checked_mul(TEXT_REG_BYTES)?.checked_add(byte)?;
        shown = true;
    }
    if b.get(p) == Some(&b'<') {
        p += 1;
        op.stride = u8::try_from(plain_number(b, &mut p)?).ok()?;
        if b.get(p) != Some(&b'>') {
            return None;
        }
        p += 1;
    }
    if b.get(p) != Some(&b':') {
        return None;
    }
    p += 1;
    let letters = p;
    while b.get(p).is_some_and(u8::is_ascii_alphabetic) {
        p += 1;
    }
    op.ty = type_named(c.s.get(letters..p)?)?;
    c.pos = p;
    Some((op, shown))
}

/// The decimal number at `*p` (advanced past it), as [`Cursor::number`] reads it; `None`
/// where that would be an error.
fn plain_number(b: &[u8], p: &mut usize) -> Option<u32> {
    let start = *p;
    let mut value: u32 = 0;
    while let Some(&digit) = b.get(*p).filter(|x| x.is_ascii_digit()) {
        value = value
            .checked_mul(10)?
            .checked_add(u32::from(digit - b'0'))?;
        *p += 1;
    }
    (*p > start).then_some(value)
}

/// The bytes of an opcode name (letters, digits, `_<>,`), as a table: the test runs on
/// every byte of every instruction's name.
const OPCODE_BYTE: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        t[i] = b.is_ascii_alphanumeric() || matches!(b, b'_' | b'<' | b'>' | b',');
        i += 1;
    }
    t
};

/// The type spelled `t`: what [`Type::from_letters`] finds, from a table indexed by the
/// letters (a type follows nearly every operand). Spellings the index does not cover (not
/// one or two capital letters) are looked up by `from_letters` itself.
fn type_named(t: &str) -> Option<Type> {
    static BY_LETTERS: OnceLock<Vec<Option<Type>>> = OnceLock::new();
    let Some(i) = letters_index(t) else {
        return Type::from_letters(t);
    };
    let table = BY_LETTERS.get_or_init(|| {
        let mut table = vec![None; 27 * 27];
        // Backwards, so that of two types with the same letters the first in `ALL` stays,
        // as `from_letters` finds it.
        for &ty in Type::ALL.iter().rev() {
            if let Some(i) = letters_index(ty.letters()) {
                table[i] = Some(ty);
            }
        }
        table
    });
    table[i]
}

/// One or two capital letters as an index below 27 * 27, different for different letters.
fn letters_index(t: &str) -> Option<usize> {
    let letter = |c: u8| c.is_ascii_uppercase().then(|| usize::from(c - b'A') + 1);
    match *t.as_bytes() {
        [a] => letter(a),
        [a, b] => Some(letter(a)? * 27 + letter(b)?),
        _ => None,
    }
}

fn chan(ch: u8) -> u8 {
    match ch {
        b'x' => 0,
        b'y' => 1,
        b'z' => 2,
        _ => 3,
    }
}

/// `[0F, 1F, 0.5F, -2F]`: a VF vector immediate.
fn parse_vf(c: &mut Cursor<'_>) -> PResult<Operand> {
    c.expect("[")?;
    let mut bits = 0u32;
    for i in 0..4 {
        if i > 0 {
            c.expect(", ")?;
        }
        let start = c.pos;
        let tok = c.take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'+' | b'-'));
        let num = tok
            .strip_suffix('F')
            .ok_or_else(|| c.expected("a VF element like `0.5F`"))?;
        let v: f32 = num.parse().map_err(|_| {
            crate::error::ParseError::new(
                c.line,
                start as u32 + 1,
                format!("`{num}` is not a number"),
            )
        })?;
        let vf = f32_to_vf(v).ok_or_else(|| {
            crate::error::ParseError::new(
                c.line,
                start as u32 + 1,
                format!("{v} is not representable as a VF element"),
            )
        })?;
        bits |= (vf as u32) << (8 * i);
    }
    c.expect("]")?;
    Ok(Operand::imm(Type::VF, bits as u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fast path for VGRFs reads what the general path reads, stops where it stops,
    /// and leaves to it whatever it would refuse.
    #[test]
    fn plain_vgrfs_read_as_any_operand() {
        let prefixes = ["vgrf", "%", "v", "va", "vg", "-vgrf", "vgrf-", "g"];
        let numbers = ["", "0", "12", "4294967295", "4294967296"];
        let offsets = [
            "",
            "+1.4",
            "+1.",
            "+1",
            "+134217728.0",
            "+134217727.31",
            "+0.4294967295",
        ];
        let strides = ["", "<2>", "<255>", "<256>", "<2,", "<>", "<2;1,0>"];
        let types = [":F", ":UD", ":", ":XX", "", ":f", ":UQX", ":V"];
        let tails = ["", ", vgrf2:F", " NoMask", "x", "é"];
        let dialects = [Syntax::Mesa22, Syntax::Mesa25, Syntax::Eubatch].map(|syntax| Dialect {
            syntax,
            align16: false,
        });
        let mut fast = 0;
        for p in prefixes {
            for n in numbers {
                for o in offsets {
                    for s in strides {
                        for t in types {
                            for tail in tails {
                                let text = format!("x {p}{n}{o}{s}{t}{tail}");
                                for d in dialects {
                                    let mut a = Cursor::new(&text, 1);
                                    let mut b = Cursor::new(&text, 1);
                                    (a.pos, b.pos) = (2, 2);
                                    let plain = plain_vgrf(&mut a, d);
                                    if plain.is_none() {
                                        assert_eq!(a.pos, 2, "{text:?}");
                                        continue;
                                    }
                                    fast += 1;
                                    let any = parse_any_operand(&mut b, d, true)
                                        .unwrap_or_else(|e| panic!("{text:?}: {e:?}"));
                                    assert_eq!(plain, Some(any), "{text:?} {d:?}");
                                    assert_eq!(a.pos, b.pos, "{text:?} {d:?}");
                                }
                            }
                        }
                    }
                }
            }
        }
        assert!(fast > 1000, "{fast}");
    }

    /// Mesa prints vector immediates as eight hex digits (`%08xV`): one starting with a
    /// letter is an immediate too, and reads back as printed; a register or a longer word
    /// that merely starts with eight hex digits is not one.
    #[test]
    fn vector_immediates_starting_with_a_letter() {
        let d = Dialect {
            syntax: Syntax::Mesa22,
            align16: false,
        };
        for (text, ty, bits) in [
            ("fc00fc00V", Type::V, 0xfc00fc00u64),
            ("abcdef01UV", Type::UV, 0xabcdef01),
            ("76543210V", Type::V, 0x76543210),
        ] {
            let mut c = Cursor::new(text, 1);
            let (op, _) = parse_any_operand(&mut c, d, false).unwrap();
            assert_eq!(op, Operand::imm(ty, bits), "{text}");
            assert!(c.at_end(), "{text}");
            let mut printed = String::new();
            super::super::imm::format_imm(&op, &mut printed);
            assert_eq!(printed, text);
        }
        for text in ["fc00fc00", "fc00fc00Vx", "fc00fc0V", "deadbeefUVW"] {
            assert!(!starts_immediate(text), "{text}");
        }
    }
}
