//! Mesa 25's memory messages (`memory_load`, `memory_store`, `memory_atomic`) on gen9, as
//! Mesa 25's `lower_hdc_memory_logical_send` lowers them before LSC hardware: constant
//! block loads to the constant cache (`pull_constants.rs`), other block loads of a buffer
//! or shared memory to data-cache OWord block reads (`block.rs`); the per-channel loads, stores
//! and atomics of a buffer, shared local memory (binding table entry 254), an image or a
//! 64-bit address to the gen9 data-port messages Mesa 22.3's opcodes become
//! ([`eubatch_ir::message::memory::per_channel`] says which), built by `surface.rs`
//! ([`super::surface::lower_request`]) and `a64.rs` ([`super::a64::lower_a64`]).
//!
//! A binding table entry computed at run time (a scalar) is masked into the descriptor
//! register as Mesa 25 does (`and(1) tmp, binding, 0xff`; `BindingTable`).
//!
//! Rules that limit it: gen9 (Mesa 25's back end starts there); scratch, block
//! (transpose) stores and A64 block loads, and bindless surfaces are left logical, as are 16/64-bit atomics and
//! fragment-shader messages that include helper invocations (`MEMORY_FLAG_INCLUDE_HELPERS`:
//! Mesa predicates them on the vector mask, not lowered here). A fragment shader's stores
//! and atomics go under the sample mask as Mesa 22.3's surface and A64 messages do
//! (`lower_hdc_memory_logical_send`: `allow_sample_mask = has_side_effects && mode !=
//! MEMORY_MODE_SCRATCH`; [`eubatch_ir::message::sample_mask`]).

use eubatch_ir::message::memory::{self, src, Legacy, Target};
use eubatch_ir::message::sample_mask;
use eubatch_ir::shader::Stage;
use eubatch_ir::{Gen, Inst, Opcode, Shader};

use super::surface::{components, lower_request, Request};

pub(super) fn memory_message(
    shader: &mut Shader,
    inst: Inst,
    prior: &[Inst],
    in_flag: bool,
) -> Result<Vec<Inst>, String> {
    let op = shader.insts.opcode[inst];
    let srcs = shader.srcs(inst).to_vec();
    if op == Opcode::MemoryLoadLogical && memory::constant_block(&srcs).is_some() {
        return super::pull_constants::memory_load(shader, inst);
    }
    if op == Opcode::MemoryLoadLogical {
        if let Some(load) = memory::block_load(&srcs) {
            if shader.target != Gen::Gen9 {
                return Err(format!(
                    "a Mesa 25 memory message on {:?} (Mesa 25's back end starts at gen9)",
                    shader.target
                ));
            }
            return super::block::memory_block_load(shader, inst, prior, load);
        }
    }
    let dst = shader.insts.dst[inst];
    let has_dst = !dst.is_null() && !dst.is_bad();
    let m = memory::per_channel(&srcs, has_dst).ok_or_else(|| {
        format!(
            "a {} other than a constant block load or a per-channel access of a buffer, \
             shared memory, an image or a 64-bit address with 8-, 16- or 32-bit data \
             (not lowered yet)",
            op.name()
        )
    })?;
    if shader.target != Gen::Gen9 {
        return Err(format!(
            "a Mesa 25 memory message on {:?} (Mesa 25's back end starts at gen9)",
            shader.target
        ));
    }
    let ctl = shader.insts.control[inst];
    let comps = srcs[src::COMPONENTS].imm_bits() as u32;
    // The data: DATA0's components, then DATA1's (the compare-exchanges' second operand).
    let mut data = Vec::new();
    for k in [src::DATA0, src::DATA1] {
        if !srcs[k].is_bad() {
            data.extend(components(srcs[k], comps, ctl));
        }
    }
    let expected = match m.op {
        Legacy::Access(s) if s.write => s.comps,
        Legacy::Access(_) => 0,
        Legacy::Atomic(a) => a.data_components(),
    };
    if data.len() as u32 != expected {
        return Err(format!(
            "a memory message with {} data components where its operation takes {expected}",
            data.len()
        ));
    }
    let address = srcs[src::ADDRESS];
    if shader.stage == Stage::Fs && sample_mask::memory_includes_helpers(&srcs) {
        return Err(format!(
            "a fragment-shader {} including helper invocations (predicated on the vector \
             mask; not lowered yet)",
            op.name()
        ));
    }
    // Mesa 25: `allow_sample_mask = has_side_effects && mode != MEMORY_MODE_SCRATCH`.
    let side_effects = op != Opcode::MemoryLoadLogical;
    let takes = sample_mask::memory_takes_it(shader.stage, op, &srcs);
    match m.target {
        Target::Flat => super::a64::lower_a64(
            shader,
            inst,
            prior,
            m.op,
            address,
            data,
            takes.then_some(in_flag),
        ),
        Target::Bti(surface) | Target::Typed(surface) => {
            if address.ty.size() != 4 {
                return Err("a 64-bit address on a binding table surface".into());
            }
            let request = Request {
                what: m.op,
                surface,
                allow_sample_mask: side_effects,
                address: components(address, m.coord_components, ctl),
                data,
            };
            lower_request(shader, inst, prior, request, in_flag)
        }
    }
}
