//! Table-driven encoder and disassembler of native gen7–9 EU instructions, checked against
//! Mesa's own encodings in the corpora's `asm.txt` listings.
//!
//! - [`field`]: the field layout as data, [`field::NativeInst`] with get/set through it;
//! - [`inst`]: the decoded instruction; [`codec`]: encode/decode through the table;
//! - [`parse`]: Mesa's disassembly text → struct; [`policy`]: Mesa's "don't care" policy for
//!   what the text does not show; [`print`] (+ [`msgdesc`]): struct → Mesa's text.
//!
//! Compaction is a separate module: the intended pipeline is text → [`Inst`] → [`encode`]
//! → compact, and for compacted listings uncompact → [`decode`] → text.

pub mod codec;
pub mod field;
pub mod inst;
pub mod msgdesc;
pub mod opcode;
pub mod out;
pub mod parse;
pub mod policy;
pub mod print;
pub mod tables;
pub mod types;

pub use codec::{decode, encode, DecodeError};
pub use field::NativeInst;
pub use inst::Inst;
pub use parse::{LabelOffsets, Place};
pub use print::{disasm, disasm_as, Dialect, Labels};

use eubatch_ir::error::ParseError;
use eubatch_ir::Gen;

/// Text → struct with the don't-care policy applied; also says why, if it does, the text
/// alone cannot give Mesa's bytes.
pub fn assemble(
    first: &str,
    second: Option<&str>,
    gen: Gen,
    place: &Place<'_>,
) -> Result<(Inst, Option<&'static str>), ParseError> {
    let (mut inst, seen) = parse::parse(first, second, gen, place)?;
    let col = codec::col_of(gen).map_err(|e| ParseError::new(place.line, 1, e.0))?;
    policy::apply(&mut inst, col);
    Ok((inst, policy::unrecoverable(&inst, &seen)))
}
