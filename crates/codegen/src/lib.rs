//! Code generation: the reader of Mesa's final code listings (`asm`), which the binary
//! assembler shares, the table-driven EU encoder/disassembler (`encode`) and instruction
//! compaction (`compact`).

pub mod asm;
pub mod compact;
pub mod encode;
