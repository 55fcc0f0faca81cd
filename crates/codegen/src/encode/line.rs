//! The encoder joined with [`crate::compact`]: Mesa's text → the 8 or 16 bytes Mesa
//! emitted for it, and bytes of either size → Mesa's text.
//!
//! Mesa's compaction decision (`brw_compact_instructions`, Mesa 22.3 `brw_eu_compact.c`) is
//! [`mesa_compaction`]: every instruction, as generated, goes through `precompact` (its type
//! rewrites under an immediate src0, stated once in [`crate::compact::precompact`]) and is
//! compacted when the rewritten copy has a compacted form; otherwise the original stays
//! native. What Mesa never compacts (EOT sends, gen7 three-source, reserved bits, gen12 here)
//! [`crate::compact::try_compact`] refuses.
//!
//! Jumps: Mesa decides a jump's compaction on its JIP/UIP as generated (counting every
//! instruction as 16 bytes), then shortens JIP/UIP by the compacted instructions jumped over
//! and compacts the fixed jump again. [`assemble_program`] does exactly that: it parses
//! every line at its uncompacted offset, decides, lays the program out, then parses the
//! jumps again at their final offsets. [`assemble_line`] has one line only: it decides on the
//! JIP/UIP its [`Place`] gives (the final ones, in a listing), which for a native jump may
//! compact where Mesa's unfixed ones did not. An `add` to `ip` (fixed by Mesa the same way)
//! is taken as printed.

use std::collections::HashMap;
use std::fmt;

use eubatch_ir::error::ParseError;
use eubatch_ir::Gen;

use super::codec::{col_of, decode_fields, encode, is_three, DecodeError};
use super::field::NativeInst;
use super::inst::Form;
use super::parse::{LabelOffsets, Place};
use super::print::{disasm_as, Dialect, Labels, Style};
use crate::compact::{compact, precompact, uncompact};

/// An instruction as Mesa emitted it: 16 bytes, or 8 when compacted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Encoded {
    bytes: [u8; 16],
    compacted: bool,
    /// The text said `compacted` (Mesa compacted it; [`Encoded::compacted`] says whether we do).
    pub text_compacted: bool,
    /// Why the text alone cannot give Mesa's bytes, where it cannot (see
    /// [`super::policy::unrecoverable`]).
    pub unrecoverable: Option<&'static str>,
}

impl Encoded {
    /// The 8 or 16 bytes, in memory order.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes[..self.len() as usize]
    }

    /// 8 or 16.
    pub fn len(&self) -> u32 {
        if self.compacted {
            8
        } else {
            16
        }
    }

    /// Always false: an instruction has 8 bytes at least (for clippy's `len_without_is_empty`).
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Mesa compacts it.
    pub fn compacted(&self) -> bool {
        self.compacted
    }

    fn of(n: NativeInst, c: Option<u64>, text_compacted: bool, why: Option<&'static str>) -> Self {
        let mut bytes = n.to_bytes();
        if let Some(c) = c {
            bytes[..8].copy_from_slice(&c.to_le_bytes());
            bytes[8..].fill(0);
        }
        Encoded {
            bytes,
            compacted: c.is_some(),
            text_compacted,
            unrecoverable: why,
        }
    }
}

/// Why a line does not assemble.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AssembleError {
    /// The text does not parse.
    Parse(ParseError),
    /// The parsed instruction does not encode (no encoder column for the generation).
    Encode(DecodeError),
    /// A compacted jump that no longer compacts once its JIP/UIP are fixed (Mesa asserts it
    /// does); the instruction index.
    JumpRecompaction(usize),
}

impl fmt::Display for AssembleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AssembleError::Parse(e) => write!(f, "{e}"),
            AssembleError::Encode(e) => write!(f, "{}", e.0),
            AssembleError::JumpRecompaction(i) => {
                write!(
                    f,
                    "instruction {i}: compacted jump does not compact after fixing"
                )
            }
        }
    }
}

impl std::error::Error for AssembleError {}

/// Mesa's compaction decision for a generated native instruction: the compacted word of
/// its `precompact` copy, or `None` (it stays native). `dialect`: Mesa 25.0.7 never uses
/// the fourth three-source source index (`gfx8_3src_source_index_table[3]`, src2 negated:
/// 0 of its 29,483 compacted three-source instructions in shaderdb-skl-mesa25, where 22.3.6
/// uses it in 2,112 of 32,507; cause not found, see `tests/compact_corpus.rs`), so those
/// stay native there.
pub fn mesa_compaction(native: NativeInst, gen: Gen, dialect: Dialect) -> Option<u64> {
    let c = compact(precompact(native.0, gen).ok()?, gen)?;
    let three = col_of(gen).is_ok_and(|col| is_three(col, (c & 0x7f) as u8));
    if dialect == Dialect::Mesa25 && three && (c >> 10) & 3 == 3 {
        return None;
    }
    Some(c)
}

/// Parse (with the don't-care policy) and encode: the generated native word.
fn native(
    first: &str,
    second: Option<&str>,
    gen: Gen,
    place: &Place<'_>,
) -> Result<(super::Assembled, NativeInst), AssembleError> {
    let a = super::assemble(first, second, gen, place).map_err(AssembleError::Parse)?;
    let n = encode(&a.inst, gen).map_err(AssembleError::Encode)?;
    Ok((a, n))
}

/// One instruction's text (a send's descriptor line after a `\n`) → Mesa's bytes, with
/// Mesa's compaction decision taken on the word as the text gives it (see the module
/// documentation for jumps; [`assemble_program`] decides them as Mesa does).
pub fn assemble_line(
    text: &str,
    gen: Gen,
    place: &Place<'_>,
    dialect: Dialect,
) -> Result<Encoded, AssembleError> {
    let (first, second) = match text.split_once('\n') {
        Some((a, b)) => (a, Some(b)),
        None => (text, None),
    };
    let (a, n) = native(first, second, gen, place)?;
    let c = mesa_compaction(n, gen, dialect);
    Ok(Encoded::of(n, c, a.compacted, a.unrecoverable))
}

/// One line of a program: the disassembly after the hex bytes, a send's descriptor line,
/// and the line number (for errors).
#[derive(Clone, Copy, Debug)]
pub struct ProgramLine<'a> {
    pub first: &'a str,
    pub second: Option<&'a str>,
    pub line: u32,
}

/// A program's lines → Mesa's bytes for each, as `brw_compact_instructions` lays them out:
/// every instruction generated at its uncompacted offset (16 bytes each) and its compaction
/// decided there; then jumps re-assembled at their final offsets (JIP/UIP shortened by what
/// was compacted in between) and, when compacted, compacted again. `labels`: label number
/// → index of the instruction it marks (the number of instructions for the end).
/// The compacted NOP Mesa appends when the program's length is not a multiple of 16 is not
/// returned (the listings do not show it).
pub fn assemble_program(
    lines: &[ProgramLine<'_>],
    labels: &HashMap<u32, usize>,
    gen: Gen,
    dialect: Dialect,
) -> Result<Vec<Encoded>, (usize, AssembleError)> {
    let mut meta = vec![(false, None); lines.len()];
    let mut native_at = |i: usize, at: &dyn Fn(usize) -> u32| {
        let l = &lines[i];
        let offsets: LabelOffsets = labels.iter().map(|(&n, &j)| (n, at(j))).collect();
        let place = Place {
            line: l.line,
            at: at(i),
            labels: &offsets,
        };
        let (a, n) = native(l.first, l.second, gen, &place)?;
        meta[i] = (a.compacted, a.unrecoverable);
        Ok((n, matches!(a.inst.form, Form::Jump { .. })))
    };
    let laid = lay_out(lines.len(), gen, dialect, &mut native_at)?;
    Ok(laid
        .into_iter()
        .zip(meta)
        .map(|(mut e, (text_compacted, why))| {
            e.text_compacted = text_compacted;
            e.unrecoverable = why;
            e
        })
        .collect())
}

/// Generates instruction `i` of a program given the byte offset of every instruction (see
/// [`lay_out`]): its native word and whether it is a jump.
pub type Generate<'a, E> =
    dyn FnMut(usize, &dyn Fn(usize) -> u32) -> Result<(NativeInst, bool), E> + 'a;

/// Lays out a program of `n` instructions as `brw_compact_instructions` does: each
/// generated at its uncompacted offset (16 bytes each) and its compaction decided there;
/// then the jumps generated again at their final offsets (JIP/UIP shortened by what was
/// compacted in between) and, when compacted, compacted again. `native(i, at)` generates
/// instruction `i` given the byte offset `at(j)` of every instruction `j` (`at(n)`: the
/// end) and says whether it is a jump.
pub fn lay_out<E: From<AssembleError>>(
    n: usize,
    gen: Gen,
    dialect: Dialect,
    native: &mut Generate<'_, E>,
) -> Result<Vec<Encoded>, (usize, E)> {
    let generated = |j: usize| 16 * j as u32;
    let mut out = Vec::with_capacity(n);
    let mut jumps = Vec::new();
    for i in 0..n {
        let (w, jump) = native(i, &generated).map_err(|e| (i, e))?;
        if jump {
            jumps.push(i);
        }
        let c = mesa_compaction(w, gen, dialect);
        out.push(Encoded::of(w, c, false, None));
    }
    if jumps.is_empty() {
        return Ok(out);
    }
    let mut at = Vec::with_capacity(n + 1);
    let mut total = 0u32;
    for e in &out {
        at.push(total);
        total += e.len();
    }
    at.push(total);
    let fixed = |j: usize| at.get(j).copied().unwrap_or(total);
    for i in jumps {
        let (w, _) = native(i, &fixed).map_err(|e| (i, e))?;
        let c = if out[i].compacted {
            // Mesa: uncompact, fix, compact again (the word is precompact's already).
            let c = precompact(w.0, gen).ok().and_then(|p| compact(p, gen));
            Some(c.ok_or((i, AssembleError::JumpRecompaction(i).into()))?)
        } else {
            None
        };
        out[i] = Encoded::of(w, c, false, None);
    }
    Ok(out)
}

/// Mesa's text for an instruction of 16 bytes or (compacted) 8: uncompact, decode, print
/// (with `compacted` among the options for 8 bytes). `at`: its byte offset in the program
/// and `labels` the program's labels by offset, for jumps.
pub fn disassemble(
    bytes: &[u8],
    gen: Gen,
    at: u32,
    labels: &Labels,
    dialect: Dialect,
) -> Result<String, DecodeError> {
    let (n, compacted) = match bytes.len() {
        16 => (NativeInst::from_bytes(bytes.try_into().unwrap()), false),
        8 => {
            let c = u64::from_le_bytes(bytes.try_into().unwrap());
            let words = uncompact(c, gen).map_err(|r| DecodeError(format!("uncompact: {r}")))?;
            (NativeInst(words), true)
        }
        k => {
            return Err(DecodeError(format!(
                "{k} bytes: an instruction has 8 or 16"
            )))
        }
    };
    let inst = decode_fields(n, gen)?;
    disasm_as(&inst, gen, at, labels, Style { dialect, compacted })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Mesa's bytes → text → the same bytes, for compacted words whose text shows
    /// `precompact`'s rewrites (from shaderdb-skl and the `asm` module's example).
    #[test]
    fn compacted_words_round_trip_through_text() {
        let labels = HashMap::new();
        let place = Place {
            line: 1,
            at: 0,
            labels: &labels,
        };
        for (bytes, shows) in [
            ([0x5a, 0x4b, 0x02, 0x20, 0xe0, 0x34, 0x08, 0x02], "pln(8)"),
            ([0x01, 0xab, 0x00, 0x20, 0x00, 0x16, 0x00, 0x00], "0x0VF"),
            (
                [0x01, 0x6b, 0x00, 0x20, 0x00, 0x1b, 0x00, 0x01],
                "0x00000001UD",
            ),
        ] {
            let t = disassemble(&bytes, Gen::Gen9, 0, &Labels::new(), Dialect::Mesa22).unwrap();
            assert!(t.contains(shows) && t.contains("compacted"), "{t}");
            let e = assemble_line(&t, Gen::Gen9, &place, Dialect::Mesa22).unwrap();
            assert!(e.compacted() && e.text_compacted, "{t}");
            assert_eq!(e.bytes(), &bytes[..], "{t}");
        }
    }

    /// A line Mesa left native (shaderdb-skl: an immediate wider than 13 bits) comes out
    /// native, alone and in a program.
    #[test]
    fn an_uncompactable_line_stays_native() {
        let bytes = [
            0x01, 0x00, 0x00, 0x00, 0x2c, 0x0e, 0x40, 0x2d, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00,
            0x7f, 0x43,
        ];
        let t = disassemble(&bytes, Gen::Gen9, 0, &Labels::new(), Dialect::Mesa22).unwrap();
        assert!(t.starts_with("mov(1)") && t.contains("1132396544D") && !t.contains("compacted"));
        let labels = HashMap::new();
        let place = Place {
            line: 1,
            at: 0,
            labels: &labels,
        };
        let e = assemble_line(&t, Gen::Gen9, &place, Dialect::Mesa22).unwrap();
        assert_eq!(e.bytes(), &bytes[..]);
        let lines = [ProgramLine {
            first: &t,
            second: None,
            line: 1,
        }];
        let indices = HashMap::new();
        let e = assemble_program(&lines, &indices, Gen::Gen9, Dialect::Mesa22).unwrap();
        assert_eq!(e[0].bytes(), &bytes[..]);
        assert!(disassemble(&bytes[..12], Gen::Gen9, 0, &Labels::new(), Dialect::Mesa22).is_err());
    }
}
