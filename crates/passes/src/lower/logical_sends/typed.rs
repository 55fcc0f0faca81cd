//! Typed surface reads and writes of the logical sends (`typed_surface_read_logical`,
//! `typed_surface_write_logical`; Mesa: `lower_surface_logical_send`): the shared function
//! and descriptor of [`eubatch_ir::message::typed`], a header before gen9, the image's
//! coordinates, then for writes the data; the payload itself is `surface.rs`'s.
//!
//! Rules that limit it: SIMD8 (SIMD-width lowering runs first); the dimensions argument an
//! immediate of 1 to 4 coordinates.

use eubatch_ir::message::surface::{src, Shape};
use eubatch_ir::message::typed;
use eubatch_ir::{Gen, Operand, RegFile, Shader};

use super::surface::Plan;

pub(super) fn plan(
    shader: &Shader,
    shape: Shape,
    exec: u32,
    group: u32,
    allow_sample_mask: bool,
) -> Result<Plan, String> {
    let (sfid, desc) = typed::descriptor(shader.target, shape, exec, group)
        .ok_or_else(|| format!("a SIMD{exec} typed surface message (typed messages are SIMD8)"))?;
    Ok(Plan {
        sfid,
        desc,
        header_mask: header_mask(shader.target, allow_sample_mask),
        response_comps: if shape.write { 0 } else { shape.comps },
    })
}

/// The coordinates a typed message's address holds (`SURFACE_LOGICAL_SRC_IMM_DIMS`).
pub(super) fn address_components(srcs: &[Operand]) -> Result<u32, String> {
    let dims = srcs[src::IMM_DIMS];
    match (dims.file, dims.imm_bits()) {
        (RegFile::Imm, d @ 1..=4) => Ok(d as u32),
        _ => Err("a typed message whose dimensions are not an immediate of 1 to 4".into()),
    }
}

/// The header's sample mask of a typed message on `gen`, if it has a header.
pub(super) fn header_mask(gen: Gen, allow_sample_mask: bool) -> Option<u32> {
    typed::has_header(gen).then(|| typed::header_sample_mask(allow_sample_mask))
}
