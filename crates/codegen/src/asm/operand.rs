//! One operand of Mesa's disassembly (`brw_disasm.c`: `dest`, `src_da1`, `src_da16`,
//! `src_ia1`, `imm`, the three-source printers), into an eubatch operand at the hardware
//! level.
//!
//! Printer facts the reader relies on:
//! - A sub-register `gN.S` counts elements of the operand's type in every access mode:
//!   Align1 prints `subnr / type size`; Align16 can address only bytes 0 and 16 and prints
//!   16 / type size for 16 (`src_da16`), so `g1.4<0>.wUD` and `g2.2<0>.xyxyDF` are both
//!   byte 16. Flags and address registers follow the same rule (`f0.1<0,1,0>UW` is byte 2).
//! - Align1 regions print as `<v,w,h>`, destinations as `<h>`; Align16 sources as `<v>` and a
//!   swizzle (nothing for `.xyzw`, one letter when all four are equal), destinations `<1>`
//!   and a writemask; Align16 three-source sources as `<v,w,h>` and a swizzle.
//! - Logic instructions print a negated source as `~` (gen8+), others as `-`; `(abs)`
//!   follows.
//! - Immediates: hexadecimal with the type (`0x3f800000F /* 1F */`, `0x0VF`), decimal for
//!   D and W (`-1D`, `3W`), and `Half Float IMM` for HF, whose value the printer drops (the
//!   caller takes it from the encoding).

use eubatch_ir::operand::arf;
use eubatch_ir::text::cursor::{Cursor, PResult};
use eubatch_ir::{Mods, Operand, RegFile, Region, Type};

/// What the caller must supply for an operand the text does not spell out.
pub enum Parsed {
    Operand(Operand),
    /// `Half Float IMM`: an HF immediate whose bits are in the encoding.
    HalfFloatImm,
}

/// A register operand as the disassembly spells it: what [`build`] makes an IR operand
/// of. The text reader fills it from the text ([`parse_operand`]), the binary reader
/// ([`super::from_bytes`]) from the decoded instruction, with what Mesa's printer would
/// have shown, so that both readers give the same operand by the same rules.
#[derive(Clone, Copy, Debug)]
pub struct Spelled {
    /// The register: file and number (an indirect operand's address sub-register and
    /// signed byte offset); region, type and sub-register are set by [`build`].
    pub reg: Operand,
    pub mods: u8,
    /// The printed sub-register (`g4.2`), in elements of the operand's type.
    pub sub: Option<u32>,
    pub region: Option<SpelledRegion>,
    /// Align16 channels after the region: a writemask (destination) or a swizzle.
    pub channels: Option<Channels>,
    pub ty: Type,
}

/// A printed region: `<h>` (destination) or `<v>` (Align16 source), or `<v,w,h>`.
#[derive(Clone, Copy, Debug)]
pub enum SpelledRegion {
    One(u8),
    Three(u8, u8, u8),
}

/// Align16 channel letters, read: a destination's writemask (bit per channel), or a
/// source's swizzle (two bits per channel, x first).
#[derive(Clone, Copy, Debug)]
pub enum Channels {
    Writemask(u8),
    Swizzle(u8),
}

/// The IR operand of a spelled one. `align16`: the instruction's access mode (a send's
/// operands are read as Align16 until its options say otherwise).
pub fn build(sp: &Spelled, is_dst: bool, align16: bool) -> Result<Operand, String> {
    let mut op = sp.reg;
    op.mods = Mods(sp.mods);
    match sp.region {
        Some(SpelledRegion::Three(v, w, h)) => {
            op.region = Region::new(v, w, h);
            op.stride = h;
        }
        Some(SpelledRegion::One(v)) if is_dst => {
            // `<h>`: the destination's horizontal stride; element i at i * h.
            op.region = Region::new(8 * v, 8, v);
            op.stride = v;
        }
        Some(SpelledRegion::One(v)) if align16 => {
            // Align16 `<v>`: four elements a row, horizontal stride 1.
            op.region = Region::new(v, 4, 1);
            op.stride = 1;
        }
        Some(SpelledRegion::One(_)) => {
            return Err("an Align1 source region needs `<v,w,h>`".into());
        }
        None => {
            // Send payloads and `sends` destinations print no region: whole registers.
            op.region = Region::new(8, 8, 1);
            op.stride = 1;
        }
    }
    if align16 {
        if is_dst {
            op.region.swizzle = Region::WRITEMASK_XYZW;
        }
        match sp.channels {
            Some(Channels::Writemask(m)) if is_dst => op.region.swizzle = m,
            Some(Channels::Swizzle(s)) if !is_dst => op.region.swizzle = s,
            Some(_) => return Err("a writemask on a source or a swizzle on a destination".into()),
            None => {}
        }
    }
    op.ty = sp.ty;
    if let Some(s) = sp.sub {
        op.offset = s * sp.ty.size();
    }
    Ok(op)
}

/// Parses one operand. `align16`: the instruction's access mode.
pub fn parse_operand(c: &mut Cursor<'_>, is_dst: bool, align16: bool) -> PResult<Parsed> {
    c.skip_spaces();
    if c.eat("Half Float IMM") {
        return Ok(Parsed::HalfFloatImm);
    }
    let r = c.rest();
    let digit_after_minus = r
        .strip_prefix('-')
        .is_some_and(|s| s.starts_with(|ch: char| ch.is_ascii_digit()));
    if r.starts_with(|ch: char| ch.is_ascii_digit()) || digit_after_minus {
        return parse_imm(c).map(Parsed::Operand);
    }
    let start = c.pos;
    let mut mods = 0u8;
    if c.eat("-") || c.eat("~") {
        mods |= Mods::NEGATE;
    }
    if c.eat("(abs)") {
        mods |= Mods::ABS;
    }
    let reg = parse_register(c)?;
    let sub = if reg.file == RegFile::Indirect {
        None
    } else {
        c.dot_number("a subregister number")?
    };
    // Region.
    let mut region = None;
    if c.eat("<") {
        use eubatch_ir::region_rules::{HORIZONTAL_STRIDES, VERTICAL_STRIDES, WIDTHS};
        // Each field one the encoding holds (so `8 * h` in `build` stays small).
        let field = |c: &mut Cursor<'_>, what: &str, legal: &[u8]| -> PResult<u8> {
            let n = c.number_u8(what)?;
            if legal.contains(&n) {
                Ok(n)
            } else {
                Err(c.error(format!("{what} of {n}: expected one of {legal:?}")))
            }
        };
        let v = if reg.file == RegFile::Indirect && c.eat("VxH") {
            Region::VXH
        } else if is_dst {
            // A destination prints its horizontal stride alone (brw_disasm.c `dest`).
            field(c, "a destination stride", &HORIZONTAL_STRIDES)?
        } else {
            field(c, "a vertical stride", &VERTICAL_STRIDES)?
        };
        if c.eat(",") {
            let w = field(c, "a region width", &WIDTHS)?;
            c.expect(",")?;
            let h = field(c, "a horizontal stride", &HORIZONTAL_STRIDES)?;
            region = Some(SpelledRegion::Three(v, w, h));
        } else {
            region = Some(SpelledRegion::One(v));
        }
        c.expect(">")?;
    }
    // Writemask (destination) or swizzle (source) in Align16.
    let mut channels = None;
    if align16 && c.peek() == Some(b'.') {
        c.pos += 1;
        let letters = c.take_while(|b| matches!(b, b'x' | b'y' | b'z' | b'w'));
        if letters.is_empty() {
            return Err(c.expected("a writemask or swizzle"));
        }
        channels = Some(if is_dst {
            Channels::Writemask(letters.bytes().fold(0, |m, ch| m | 1 << chan(ch)))
        } else {
            let chans: Vec<u8> = letters.bytes().map(chan).collect();
            Channels::Swizzle(match chans.len() {
                1 => chans[0] * 0b01_01_01_01,
                4 => chans[0] | chans[1] << 2 | chans[2] << 4 | chans[3] << 6,
                _ => return Err(c.error("a swizzle has one or four channels")),
            })
        });
    }
    let ty = parse_type(c)?;
    let spelled = Spelled {
        reg,
        mods,
        sub,
        region,
        channels,
        ty,
    };
    build(&spelled, is_dst, align16)
        .map(Parsed::Operand)
        .map_err(|m| eubatch_ir::error::ParseError::new(c.line, start as u32 + 1, m))
}

fn chan(ch: u8) -> u8 {
    match ch {
        b'x' => 0,
        b'y' => 1,
        b'z' => 2,
        _ => 3,
    }
}

/// A register name: `g12`, `null`, `acc0`, `f1`, `a0`, `mask0`, `n0`, `sr0`, `cr0`, `ip`,
/// `tdr0`, `tm0`, `ce0`, `m4` (MRF, gen6 and older).
fn parse_register(c: &mut Cursor<'_>) -> PResult<Operand> {
    if c.eat("g[a0") {
        // `g[a0.S IMM]` (src_ia1): address subregister S, signed byte offset IMM.
        let nr = c.dot_number("an address subregister")?.unwrap_or(0);
        let mut imm = 0i32;
        if c.eat(" ") {
            let neg = c.eat("-");
            let v = c.number("an address offset")? as i32;
            imm = if neg { -v } else { v };
        }
        c.expect("]")?;
        return Ok(indirect(nr, imm));
    }
    let start = c.pos;
    // `null` runs into its type when no region follows (`nullUD` in split sends).
    if c.eat("null") {
        return Ok(arf_reg(arf::NULL));
    }
    let word = c.take_while(|b| b.is_ascii_alphabetic() || b == b'_');
    let arf_class = match word {
        "g" => {
            let nr = c.number("a register number")?;
            if nr >= 128 {
                return Err(c.error(format!("g{nr} is outside the register file (g0..g127)")));
            }
            return Ok(grf(nr));
        }
        "m" => {
            // Gen7 and later have no message register file (Mesa gives the messages it
            // built in MRFs the top GRFs, g112..g127, before encoding): final code for the
            // targets eubatch reads never names one. (A region on one would not survive
            // printing either: the IR prints message registers without regions.)
            let nr = c.number("a message register number")?;
            return Err(c.error(format!(
                "m{nr}: final code for gen7 and later has no message registers"
            )));
        }
        "ip" => return Ok(arf_reg(arf::IP)),
        "acc" => arf::ACCUMULATOR,
        "f" => arf::FLAG,
        "a" => arf::ADDRESS,
        "mask" => arf::MASK,
        "ms" => arf::MASK_STACK,
        "msd" => arf::MASK_STACK_DEPTH,
        "n" => arf::NOTIFICATION_COUNT,
        "sr" => arf::STATE,
        "cr" => arf::CONTROL,
        "tdr" => arf::TDR,
        "tm" => arf::TIMESTAMP,
        _ => {
            c.pos = start;
            return Err(c.expected("a register or an immediate"));
        }
    };
    let n = c.number("an architecture register number")?;
    if n > 15 {
        return Err(c.error("architecture register number out of range"));
    }
    Ok(arf_reg(arf_class | n))
}

/// General register `nr` (below 128), before [`build`] gives it a region and type.
pub fn grf(nr: u32) -> Operand {
    Operand::fixed(nr, 0, Type::UD, Region::new(8, 8, 1))
}

/// Architecture register `nr` (class and number, `arf::FLAG | 1`), before [`build`].
pub fn arf_reg(nr: u32) -> Operand {
    Operand::arf(nr, 0, Type::UD, Region::new(8, 8, 1))
}

/// `g[a0.S IMM]`: through address sub-register `sub`, at signed byte offset `imm`.
pub fn indirect(sub: u32, imm: i32) -> Operand {
    Operand {
        file: RegFile::Indirect,
        nr: sub,
        offset: imm as u32,
        ..grf(0)
    }
}

/// The type letters after an operand (`brw_reg_type_to_letters`).
fn parse_type(c: &mut Cursor<'_>) -> PResult<Type> {
    let t = c.take_while(|b| b.is_ascii_alphabetic());
    Type::from_letters(t).ok_or_else(|| c.error(format!("unknown type `{t}`")))
}

/// An immediate: `0x...TYPE` (hex bits, 64-bit when more than eight digits; Mesa prints
/// the digits in lower case, so the upper-case letters after them are the type), or decimal
/// with the type for D/UD/W/UW (`-1D`, `3W`). A `/* ... */` comment after it is skipped.
fn parse_imm(c: &mut Cursor<'_>) -> PResult<Operand> {
    let op = if c.eat("0x") {
        let digits = c.take_while(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        let ty = parse_type(c)?;
        let bits = u64::from_str_radix(digits, 16)
            .map_err(|_| c.error(format!("`0x{digits}` is not a 64-bit hexadecimal number")))?;
        make_imm(ty, bits, digits.len() > 8)
            .ok_or_else(|| c.error(format!("no {ty:?} immediates exist")))?
    } else {
        let neg = c.eat("-");
        let digits = c.take_while(|b| b.is_ascii_digit());
        let v: i64 = digits
            .parse()
            .map_err(|_| c.error(format!("`{digits}` is not a number")))?;
        let ty = parse_type(c)?;
        make_imm(ty, (if neg { -v } else { v }) as u64, false)
            .ok_or_else(|| c.error(format!("no {ty:?} immediates exist")))?
    };
    c.skip_spaces();
    if c.rest().starts_with("/*") {
        match c.rest().find("*/") {
            Some(end) => c.pos += end + 2,
            None => return Err(c.expected("`*/` closing the comment")),
        }
    }
    Ok(op)
}

/// The immediate operand of `ty` with `bits` (W/UW/HF replicated in both halves, as Mesa
/// stores them). A 64-bit payload printed with a 32-bit float type (`dim`'s) is a DF.
/// Byte immediates do not exist (the hardware's immediate types are 16 bits and wider).
pub fn make_imm(ty: Type, bits: u64, wide: bool) -> Option<Operand> {
    Some(match ty {
        Type::W | Type::UW | Type::HF => {
            let h = bits & 0xffff;
            Operand::imm(ty, h | h << 16)
        }
        Type::F if wide => Operand::imm(Type::DF, bits),
        Type::D | Type::UD | Type::F | Type::V | Type::UV | Type::VF => {
            Operand::imm(ty, bits & 0xffff_ffff)
        }
        Type::B | Type::UB => return None,
        _ => Operand::imm(ty, bits),
    })
}
