//! Code generation: the readers of Mesa's final code (`asm`: listings, which the binary
//! assembler shares, and binaries straight from their bytes), the table-driven EU
//! encoder/disassembler (`encode`), instruction compaction (`compact`), Mesa's static
//! performance model over final code (`cycles`),
//! the generator's expansion of virtual opcodes into hardware instructions
//! (`generate`), and expanded code to its binary, decoded program and listing
//! (`final_code`).

pub mod asm;
pub mod compact;
pub mod cycles;
pub mod encode;
pub mod final_code;
pub mod generate;
