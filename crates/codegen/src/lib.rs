//! Code generation: the reader of Mesa's final code listings (`asm`), which the binary
//! assembler will share.

pub mod asm;
pub mod generate;
