//! Code generation: the reader of Mesa's final code listings (`asm`), which the binary
//! assembler will share, and the table-driven EU encoder/disassembler (`encode`).

pub mod asm;
pub mod encode;
