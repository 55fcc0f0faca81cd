//! Where a thread's inputs sit: the target's rules ([`eubatch_ir::thread_inputs`]), which
//! register allocation reads too.

pub use eubatch_ir::thread_inputs::*;
