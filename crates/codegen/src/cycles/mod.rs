//! Mesa's static performance model: the `cycles` statistic of every program header
//! (`SIMD8 shader: ... C cycles.`), block marker (`START Bn (N cycles)`) and `stats.txt`
//! line, as `brw_ir_performance.cpp` (`brw::performance`, `calculate_performance`)
//! computes it on the IR after register allocation.
//!
//! The model is a function over per-instruction facts ([`facts::InstFacts`]: cost class,
//! sizes, registers read and written as byte ranges, flags, accumulator, control-flow
//! weight), so the same code can later price eubatch's own allocated code:
//! * [`desc`]: Mesa's timing coefficients per cost class and generation (the one table of
//!   cycle numbers) and `calculate_desc`;
//! * [`model`]: the issue simulation and the weighted sums;
//! * [`classify`]: which cost class a final-code instruction counts as;
//! * [`from_asm`]: the facts of a program read from Mesa's listing;
//! * [`expand`]: generator-expanded sequences through the address register, folded back
//!   into one IR instruction;
//! * [`generated`]: other instructions the generator adds around an IR instruction.

pub mod classify;
pub mod desc;
pub mod expand;
pub mod facts;
pub mod from_asm;
pub mod generated;
pub mod model;

use eubatch_ir::Gen;

pub use model::{estimate, Estimate};

use crate::asm::AsmProgram;

/// Mesa's cycle estimate of a program read from its listing: total and per block.
pub fn program_cycles(p: &AsmProgram, gen: Gen) -> Result<Estimate, String> {
    let (facts, blocks) = from_asm::program_facts(p, gen).map_err(|e| e.to_string())?;
    estimate(&facts, gen, blocks).map_err(|e| e.to_string())
}
