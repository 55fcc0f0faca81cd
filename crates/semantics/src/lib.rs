//! What EU values and ALU opcodes mean, apart from any one consumer: element values and the
//! conversions between types ([`value`]), and what each ALU opcode computes per channel
//! ([`alu`]). The simulator runs shaders on these definitions and constant folding
//! (`eubatch_passes::algebraic`) folds with them, so the two cannot disagree on what an
//! instruction computes, and the optimizer does not depend on the simulator.

pub mod alu;
pub mod value;
