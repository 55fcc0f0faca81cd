//! Text: eubatch's own format (print and parse, exact round trip) and the instruction
//! grammar shared with the Mesa dump importer.

pub mod cursor;
pub mod file;
pub mod imm;
pub mod inst;
pub mod lines;
pub mod memory;
pub mod print;

pub use file::parse_shader;

/// The register of the text's `+R.B` offsets (`vgrf3+1.4`, `g2+1.0`), in bytes: the
/// notation is Mesa's printers' (`reg_offset / REG_SIZE`, with `REG_SIZE` 32 on every
/// generation they print), and eubatch's own format keeps it, so that an operand's text
/// means the same bytes whatever the target (the parser of one instruction does not know
/// it). Not the target's register size: that is [`crate::target::Target::reg_size`].
pub const TEXT_REG_BYTES: u32 = 32;
pub use print::print_shader;
