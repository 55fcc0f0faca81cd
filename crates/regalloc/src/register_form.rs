//! From IR to register form in one call, for tests and tools that start from IR (random
//! shaders, fixtures): lowered, allocated by an allocator without spilling, checked by the
//! checker, and the allocation applied (`assign`). The driver does the same with Mesa's
//! scheduling strategy and spilling (`eubatch compile --regalloc`).

use eubatch_ir::Shader;
use eubatch_passes::manager::{self, Checks, Stats};
use eubatch_passes::PassCx;

use crate::{allocate, assign::assign, by_name, checker};

/// `shader` lowered (the `lower` pipeline) and in register form with allocator `name`;
/// `None` when the allocator refuses it, some value does not fit without spilling, or the
/// allocation cannot be applied. A lowering failure or a checker violation is an error.
pub fn register_form(shader: Shader, name: &str) -> Result<Option<Shader>, String> {
    Ok(allocated_and_register_form(shader, name)?.map(|(_, code)| code))
}

/// [`register_form`], with the lowered shader it was assigned from (its VGRFs tell which
/// registers came from allocation, as the post-RA passes need: `crate::bank_conflicts`).
pub fn allocated_and_register_form(
    mut shader: Shader,
    name: &str,
) -> Result<Option<(Shader, Shader)>, String> {
    let steps = manager::parse("lower").map_err(|e| e.to_string())?;
    let mut checks = Checks {
        verify_ir: false,
        equivalence: None,
        after_pass: None,
    };
    let mut cx = PassCx::default();
    manager::run_with(&mut shader, &steps, &mut checks, &mut Stats::new(), &mut cx)
        .map_err(|e| format!("lowering: {e}"))?;
    let mut allocator = by_name(name).ok_or_else(|| format!("unknown allocator `{name}`"))?;
    let Ok(r) = allocate(&shader, &mut cx, allocator.as_mut()) else {
        return Ok(None);
    };
    if r.allocation.needs_spills() {
        return Ok(None);
    }
    checker::check(&shader, &mut cx, &r.constraints, &r.allocation)
        .map_err(|e| format!("checker: {e}"))?;
    Ok(assign(&shader, &r.allocation)
        .ok()
        .map(|code| (shader, code)))
}
