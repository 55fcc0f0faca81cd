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
pub use print::print_shader;
