//! Mesa's strategy for scheduling and allocating together (Mesa 22.3 brw_fs.cpp
//! `fs_visitor::allocate_registers`): schedule the shader in each pre-RA mode in turn
//! ([`eubatch_passes::schedule::PRE_MODES`]: top-down, non-lifo, none, lifo; best code first,
//! likeliest to allocate last), each time from the order the shader came in, and keep the
//! first whose allocation fits without spilling. Only the last mode may spill
//! ([`crate::allocate_with_spills`]), as Mesa passes `allow_spilling` to the last try only.
//!
//! The mode kept is part of the result, as Mesa's statistics report it ("scheduled with
//! mode ...").
//!
//! Without `allow_spilling` no mode spills: Mesa compiles SIMD16 and SIMD32 fragment shaders
//! so (brw_fs.cpp `brw_compile_fs` runs them with `allow_spilling = false`) and drops the
//! variant when no mode fits; the last mode's allocation then comes back with the VGRFs
//! that did not fit ([`crate::Allocation::needs_spills`]), and no spill rounds are run for
//! a variant that will be dropped anyway.

use eubatch_ir::Shader;
use eubatch_passes::schedule::{self, Mode, PRE_MODES};
use eubatch_passes::PassCx;

use crate::constraints::{Options, Refusal};
use crate::{allocate_if_fits, allocate_with_spills, spill, Allocator, Spilled};

/// An allocation (spilled or not) with the scheduling mode whose order it is for.
pub struct Scheduled {
    pub mode: Mode,
    pub spilled: Spilled,
}

/// Schedules `shader` and allocates it with `allocator`, Mesa's way (see the module's doc);
/// `modes` are the modes to try, in order ([`PRE_MODES`] for Mesa's; one mode to force
/// it). `shader` is left in the order of the mode kept (a spilled shader is in the result);
/// `cx` describes the shader the allocation is of.
pub fn schedule_and_allocate(
    shader: &mut Shader,
    cx: &mut PassCx,
    allocator: &mut dyn Allocator,
    modes: &[Mode],
    options: &Options,
    allow_spilling: bool,
) -> Result<Scheduled, Refusal> {
    let unspilled = |allocated| Spilled {
        shader: None,
        allocated,
        counts: spill::Counts::default(),
        spilled: 0,
        scratch_bytes: 0,
        rounds: 1,
    };
    // The graphs are built once; each mode starts from the order the shader came in.
    let mut schedules = schedule::Schedules::new(shader, cx);
    // Code that is not scheduled (vec4, or no control-flow graph) has one order to try.
    let modes = if schedules.is_some() {
        modes
    } else {
        &[Mode::None][..]
    };
    for (k, &mode) in modes.iter().enumerate() {
        if let Some(s) = schedules.as_mut() {
            s.apply(shader, cx, mode);
        }
        if k + 1 == modes.len() && allow_spilling {
            // The last try may spill.
            let spilled = allocate_with_spills(shader, cx, allocator, options)?;
            return Ok(Scheduled { mode, spilled });
        }
        // Kept only if it fits: the allocator need not choose what to spill.
        let allocated = allocate_if_fits(shader, cx, allocator, options)?;
        if !allocated.allocation.needs_spills() || k + 1 == modes.len() {
            return Ok(Scheduled {
                mode,
                spilled: unspilled(allocated),
            });
        }
    }
    Err(Refusal("no scheduling mode to try".into()))
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
