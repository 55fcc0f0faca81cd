//! Optimization passes (issue 4) and, later, lowering (issue 7). Every pass is a file with
//! `fn run(&mut Shader, &mut PassCx) -> bool` (progress) and a module doc saying what it
//! does and which hardware rules limit it; [`manager`] runs them by name.

pub mod access;
pub mod algebraic;
pub mod bitset;
pub mod cmod_prop;
pub mod coalesce;
pub mod compact;
pub mod copy_prop;
pub mod cse;
pub mod dce;
pub mod liveness;
pub mod manager;
pub mod sat_prop;

use eubatch_ir::cfg::split_blocks;
use eubatch_ir::Shader;

/// What passes share while they run on one shader.
#[derive(Default)]
pub struct PassCx {}

/// Re-splits the blocks after instructions were removed (a block left empty would no
/// longer be where control flow puts one).
pub fn relayout(shader: &mut Shader) {
    let order: Vec<_> = shader.layout.insts().collect();
    shader.layout = split_blocks(&order, |i| shader.insts.opcode[i]);
}
