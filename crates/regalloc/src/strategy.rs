//! Mesa's strategy for scheduling and allocating together (Mesa 22.3 brw_fs.cpp
//! `fs_visitor::allocate_registers`): schedule the shader in each pre-RA mode in turn
//! ([`eubatch_passes::schedule::PRE_MODES`]: top-down, non-lifo, none, lifo; best code first,
//! likeliest to allocate last), each time from the order the shader came in, and keep the
//! first whose allocation fits. When none fits, the last mode's order and allocation are
//! kept: it is the one Mesa spills in.
//!
//! The mode kept is part of the result, as Mesa's statistics report it ("scheduled with
//! mode ...").

use eubatch_ir::Shader;
use eubatch_passes::schedule::{self, Mode, PRE_MODES};
use eubatch_passes::PassCx;

use crate::constraints::Refusal;
use crate::{allocate, Allocated, Allocator};

/// An allocation with the scheduling mode whose order it is for.
pub struct Scheduled {
    pub mode: Mode,
    pub allocated: Allocated,
}

/// Schedules `shader` and allocates it with `allocator`, Mesa's way (see the module's doc);
/// `modes` are the modes to try, in order ([`PRE_MODES`] for Mesa's; one mode to force
/// it). `shader` is left in the order of the mode kept.
pub fn schedule_and_allocate(
    shader: &mut Shader,
    cx: &mut PassCx,
    allocator: &mut dyn Allocator,
    modes: &[Mode],
) -> Result<Scheduled, Refusal> {
    // The graphs are built once; each mode starts from the order the shader came in.
    let Some(mut schedules) = schedule::Schedules::new(shader, cx) else {
        let allocated = allocate(shader, cx, allocator)?;
        return Ok(Scheduled {
            mode: Mode::None,
            allocated,
        });
    };
    let mut last = None;
    for &mode in modes {
        schedules.apply(shader, cx, mode);
        let allocated = allocate(shader, cx, allocator)?;
        if !allocated.allocation.needs_spills() {
            return Ok(Scheduled { mode, allocated });
        }
        last = Some(Scheduled { mode, allocated });
    }
    last.ok_or_else(|| Refusal("no scheduling mode to try".into()))
}

/// [`PRE_MODES`], or one mode by its name (`none`: the order as it is).
pub fn modes_named(name: &str) -> Option<Vec<Mode>> {
    if name == "mesa" {
        return Some(PRE_MODES.to_vec());
    }
    PRE_MODES
        .iter()
        .find(|m| m.name() == name)
        .map(|&m| vec![m])
}
