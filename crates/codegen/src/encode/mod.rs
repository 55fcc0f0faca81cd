//! Table-driven encoder and disassembler of native gen7–9 EU instructions, checked against
//! Mesa's own encodings in the corpora's `asm.txt` listings (`tests/encode_corpus.rs`).
//!
//! - [`field`]: the field layout as data, [`field::NativeInst`] with get/set through it;
//!   gen11/gen12 become new columns of its table (fields are lists of bit pieces, so
//!   gen12's split descriptors are data too);
//! - [`inst`]: the decoded instruction; [`codec`] and [`forms`]: encode/decode through the
//!   table, one field walk per form used both ways (`walk`: the walker, its direction and
//!   column fixed at compile time);
//! - [`parse`] (+ [`parse_operand`]): Mesa's disassembly text → struct; [`policy`]: Mesa's
//!   "don't care" policy for what the text does not show; [`print`](mod@print) (+ [`print_operand`],
//!   [`msgdesc`]): struct → Mesa's text, columns included;
//! - [`line`]: the join with [`crate::compact`]: a line or a program of Mesa's text → the
//!   8 or 16 bytes Mesa emitted ([`assemble_line`], [`assemble_program`], with Mesa's
//!   compaction decision), and bytes of either size → Mesa's text ([`disassemble`]).

pub mod codec;
pub mod field;
pub mod forms;
pub mod from_ir;
pub mod inst;
pub mod line;
pub mod listing;
pub mod msgdesc;
pub mod opcode;
pub mod out;
pub mod parse;
pub mod parse_operand;
pub mod policy;
pub mod print;
pub mod print_operand;
pub mod program;
pub mod tables;
pub mod types;
mod walk;

pub use codec::{decode, encode, DecodeError};
pub use field::NativeInst;
pub use inst::Inst;
pub use line::{
    assemble_line, assemble_program, disassemble, lay_out, mesa_compaction, AssembleError, Encoded,
    ProgramLine,
};
pub use parse::{LabelOffsets, Place};
pub use print::{disasm, disasm_as, Dialect, Labels, Style};
pub use program::{encode_shader, EncodeError, Program};

use eubatch_ir::error::ParseError;
use eubatch_ir::Gen;

/// An instruction assembled from Mesa's text.
#[derive(Clone, Copy, Debug)]
pub struct Assembled {
    /// The native instruction, unprinted fields filled by the don't-care policy.
    pub inst: Inst,
    /// The text said `compacted`: Mesa's bytes are `compact(precompact(encode(inst)))`.
    pub compacted: bool,
    /// Why the text alone cannot give Mesa's bytes, where it cannot.
    pub unrecoverable: Option<&'static str>,
}

/// Text → struct with the don't-care policy applied. `first`: the disassembly after the
/// hex bytes; `second`: a send's descriptor line.
pub fn assemble(
    first: &str,
    second: Option<&str>,
    gen: Gen,
    place: &Place<'_>,
) -> Result<Assembled, ParseError> {
    let (mut inst, seen) = parse::parse(first, second, gen, place)?;
    let col = codec::col_of(gen).map_err(|e| ParseError::new(place.line, 1, e.0))?;
    policy::apply(&mut inst, col);
    Ok(Assembled {
        inst,
        compacted: seen.compacted,
        unrecoverable: policy::unrecoverable(&seen),
    })
}
