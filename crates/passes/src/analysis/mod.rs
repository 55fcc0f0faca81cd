//! The analysis layer: what the passes (and, next, register allocation, scheduling and
//! encoding) know about a shader without changing it.
//!
//! - [`access`]: which 4-byte slots of VGRFs and flags an instruction reads and writes;
//!   [`access_table`] holds those accesses of every instruction as columns.
//! - [`defs`]: the single and piecewise definitions of every VGRF.
//! - [`nesting`]: how deep in `if`/`do` constructs each instruction and block is;
//!   [`points`]: each instruction's position in layout order (program points).
//! - [`liveness`]: which slots are live into and out of every block; [`pressure`] counts
//!   them per instruction in registers; [`live_walk`] is the live set of a backward walk
//!   through a block; [`intervals`] turns it into a linear live interval
//!   per slot and per VGRF, and says which VGRFs interfere.
//! - [`bitset`], [`scratch_set`], [`slot_lists`] and [`range_lists`]: the dense sets and
//!   the per-slot and per-run lists the analyses and passes are made of.
//!
//! Each analysis is computed at most once per version of the shader, on demand, through
//! [`crate::PassCx`]; a pass returns what it changed ([`changed::Changed`], Mesa's
//! dependency classes) and the manager calls [`crate::PassCx::invalidate`], which drops
//! the analyses that depend on a category changed (Mesa's `invalidate_analysis`): the
//! control-flow graph and the nesting outlive a pass that only rewrote operands. Keeping them in one
//! layer is what lets later stages ask the same questions the passes ask, instead of each
//! walking the shader again.

pub mod access;
pub mod access_table;
pub mod bitset;
pub mod changed;
pub mod defs;
pub mod intervals;
pub mod live_walk;
pub mod liveness;
pub mod nesting;
pub mod points;
pub mod pressure;
pub mod range_lists;
pub mod scratch_set;
pub mod slot_lists;
