//! Code generation: the reader of Mesa's final code listings (`asm`), which the binary
//! assembler will share, and Mesa's static performance model over final code (`cycles`).

pub mod asm;
pub mod cycles;
