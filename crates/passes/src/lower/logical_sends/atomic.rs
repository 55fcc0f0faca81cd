//! Untyped and typed atomics of the logical sends (`untyped_atomic_logical`,
//! `untyped_atomic_float_logical`, `typed_atomic_logical`; Mesa:
//! `lower_surface_logical_send`): the shared function and descriptor of
//! [`eubatch_ir::message::atomic`], the address (the image's coordinates for typed ones),
//! then the operands; the payload itself is `surface.rs`'s.
//!
//! Rules that limit it: the width is the message's (SIMD8 or SIMD16 untyped, SIMD8 typed:
//! SIMD-width lowering runs first); float atomics exist on gen9 only; typed atomics carry
//! the header of [`super::typed`] before gen9.

use eubatch_ir::message::atomic::{self, Atomic, Kind};
use eubatch_ir::Shader;

use super::surface::Plan;
use super::typed::header_mask;

pub(super) fn plan(
    shader: &Shader,
    a: Atomic,
    exec: u32,
    group: u32,
    allow_sample_mask: bool,
) -> Result<Plan, String> {
    let (sfid, desc) = atomic::descriptor(shader.target, a, exec, group).ok_or_else(|| {
        format!(
            "a SIMD{exec} {:?} atomic on {:?} (Mesa has no such message)",
            a.kind, shader.target
        )
    })?;
    let typed = a.kind == Kind::Typed;
    Ok(Plan {
        sfid,
        desc,
        header_mask: if typed {
            header_mask(shader.target, allow_sample_mask)
        } else {
            None
        },
        response_comps: a.response as u32,
    })
}
