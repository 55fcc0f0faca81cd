//! Where a vec4 vertex shader's push constants and attributes sit at thread start, as
//! Mesa 22.3's vec4 back end lays them out (brw_vec4.cpp `vec4_vs_visitor::setup_payload`,
//! `setup_uniforms`, `convert_to_hw_regs`; brw_vec4_vs_visitor.cpp `setup_attributes`):
//! - g0 is the thread header (URB handles); push constants start at g1. A geometry
//!   shader's payload is the same unless it reads the primitive ID, then in g1 and the
//!   push constants from g2 (`vec4_gs_visitor::setup_payload`,
//!   [`eubatch_ir::thread_inputs::vec4_gs`]).
//! - Regular uniforms: `DIV_ROUND_UP(nr_params, 8)` registers, two 16-byte slots a
//!   register: `uN+O` is register `1 + N / 2`, byte `(N % 2) * 16 + O`.
//! - Pushed UBO ranges (`u65532`.. `UBO_START`): after the regular uniforms in range
//!   order, each `range->length` registers; `u(UBO_START+r)+O` is register
//!   `1 + ubo_push_start[r] + O / 32`, byte `O % 32`.
//! - Attributes: right after the push constants, one register each: `attrN+R.B` is
//!   register `first + N + R`, byte `B` (a vec4 per half). A dual-instanced geometry
//!   shader's (one reading `get_instance_id`: [`eubatch_ir::thread_inputs::vec4_gs`]) are
//!   two slots a register, `attrN` in register `first + N / 2`, half `N % 2`, the same
//!   for both halves (`vec4_gs_visitor::setup_varying_inputs`).
//! - Tessellation stages ([`eubatch_ir::message::tess_vec4`]): a TCS's push constants start
//!   at g5 (g1-g4 hold the input control points' handles), a TES's at g2; a TES's pushed
//!   patch inputs follow them, slot `N + O / 16` of `attrN+O` at register `first + slot /
//!   2`, half `slot % 2` of it, read by both halves (`vec4_tes_visitor::setup_payload`).
//!
//! As in the scalar layout ([`crate::layout`]), what the start IR does not record is
//! inferred from what it reads, as a lower bound: `nr_params` from the highest uniform slot
//! read, each UBO range's length from its highest register read.

use eubatch_ir::{Operand, RegFile, Shader, Stage};

use super::regs::{half_comp, swizzled, HALF_BYTES};
use crate::layout::{InputLayout, UBO_START};
use crate::SimError;

/// The layout Mesa's vec4 back end gives `start` (a vec4 vertex shader's start IR).
pub fn of(start: &Shader) -> Result<InputLayout, String> {
    if !matches!(start.stage, Stage::Vs | Stage::Gs | Stage::Tcs | Stage::Tes) {
        return Err(format!(
            "the register layout of vec4 {} threads is not modelled yet",
            start.stage.abbrev()
        ));
    }
    let reg = start.reg_size();
    // A geometry shader reading the primitive ID has it in g1 (`include_primitive_id`, set
    // when the shader reads the system value: its read is the IR's only use of g1).
    use eubatch_ir::thread_inputs::vec4_gs::PRIMITIVE_ID_REG;
    let primitive_id = start.stage == Stage::Gs
        && start.layout.insts().any(|i| {
            start
                .srcs(i)
                .iter()
                .any(|s| s.file == RegFile::FixedGrf && s.nr == PRIMITIVE_ID_REG)
        });
    // A geometry shader of several invocations runs dual-instanced on gen7: attributes
    // two slots a register, the same for both halves.
    let dual_instance = eubatch_ir::thread_inputs::vec4_gs::dual_instanced(start);
    let mut slots = 0u32;
    let mut ubo_bytes = [0u32; 4];
    for inst in start.layout.insts() {
        for op in start.srcs(inst) {
            if op.file != RegFile::Uniform {
                continue;
            }
            // The bytes it reads: up to its highest swizzled component.
            let top = (0..4)
                .map(|c| (op.region.swizzle >> (2 * c)) & 3)
                .max()
                .unwrap_or(3);
            let end = op.offset + (top as u32 + 1) * op.ty.size();
            if op.nr >= UBO_START {
                let r = (op.nr - UBO_START) as usize;
                ubo_bytes[r] = ubo_bytes[r].max(end);
            } else {
                slots = slots.max(op.nr + end.div_ceil(HALF_BYTES));
            }
        }
    }
    // nr_params counts dwords: four a slot.
    let mut regs = (slots * 4).div_ceil(8);
    let mut ubo_dword = [0u32; 4];
    for r in 0..4 {
        ubo_dword[r] = regs * (reg / 4);
        regs += ubo_bytes[r].div_ceil(reg);
    }
    // g0 (VS, GS); g0-g4 with the input control points' handles (TCS); g0-g1 (TES).
    let curb_start = match start.stage {
        Stage::Tcs => eubatch_ir::message::tess_vec4::TCS_CURB_START,
        Stage::Tes => eubatch_ir::message::tess_vec4::TES_CURB_START,
        Stage::Gs if primitive_id => PRIMITIVE_ID_REG + 1,
        _ => 1,
    };
    Ok(InputLayout {
        stage: start.stage,
        curb_start,
        ubo_dword,
        curb_regs: regs,
        attr_start: curb_start + regs,
        reg_size: reg,
        dual_instance,
    })
}

/// Register-file byte of channel `i` of a uniform or attribute source in `l`.
pub fn input_grf_byte(l: &InputLayout, op: &Operand, i: u32) -> Result<u64, SimError> {
    let (h, _) = half_comp(i);
    let k = (swizzled(op, i) * op.ty.size()) as u64;
    let reg = l.reg_size as u64;
    Ok(match op.file {
        RegFile::Uniform if op.nr >= UBO_START => {
            let r = (op.nr - UBO_START) as usize;
            let first = l.curb_start as u64 * reg + l.ubo_dword[r] as u64 * 4;
            first + op.offset as u64 + k
        }
        RegFile::Uniform => {
            (l.curb_start + op.nr / 2) as u64 * reg
                + (op.nr % 2 * HALF_BYTES) as u64
                + op.offset as u64
                + k
        }
        // A TES's pushed patch inputs: two slots a register, both halves the same.
        RegFile::Attr if l.stage == Stage::Tes => {
            let slot = op.nr + op.offset / HALF_BYTES;
            (l.attr_start + slot / 2) as u64 * reg
                + (slot % 2 * HALF_BYTES + op.offset % HALF_BYTES) as u64
                + k
        }
        // A dual-instanced geometry shader's attributes: slot `N` (`attrN`) in register
        // `first + N / 2`, half `N % 2`, read by both halves (`setup_varying_inputs`).
        RegFile::Attr if l.dual_instance => {
            if op.offset != 0 {
                return Err(SimError::msg(
                    "a dual-instanced geometry shader's attribute at an offset (`attrN+R.B`) is not modelled yet",
                ));
            }
            let per_reg = eubatch_ir::thread_inputs::vec4_gs::DUAL_INSTANCE_ATTRIBUTES_PER_REG;
            (l.attr_start + op.nr / per_reg) as u64 * reg
                + (op.nr % per_reg * HALF_BYTES) as u64
                + k
        }
        RegFile::Attr => {
            (l.attr_start + op.nr) as u64 * reg + op.offset as u64 + (h * HALF_BYTES) as u64 + k
        }
        _ => return Err(SimError::msg("not an input operand")),
    })
}

/// The inputs of `start` (a vec4 shader) for `seed` in the register file `grf` (the seeded
/// payload): every push-constant and attribute dword it reads, drawn as a logical run
/// draws it, at its register in Mesa's layout.
pub fn hardware_inputs(
    start: &Shader,
    seed: u64,
    mut grf: Vec<u8>,
) -> Result<crate::HardwareInputs, SimError> {
    let layout = of(start).map_err(SimError::msg)?;
    let profile = crate::profile::Profile::of(start);
    for inst in start.layout.insts() {
        for op in start.srcs(inst) {
            if !matches!(op.file, RegFile::Uniform | RegFile::Attr) {
                continue;
            }
            for i in 0..8 {
                let same_halves = start.stage == Stage::Tes || layout.dual_instance;
                let (space, a) = super::regs::input_addr_of(op, i, same_halves);
                let b = input_grf_byte(&layout, op, i)? as usize;
                // Each dword of the element (two of a DF).
                for d in 0..op.ty.size().div_ceil(4) as u64 {
                    let w = crate::state::counted_word(&profile, seed, space, a / 4 + d);
                    let b = b + 4 * d as usize;
                    if let Some(x) = grf.get_mut(b..b + 4) {
                        x.copy_from_slice(&w.to_le_bytes());
                    }
                }
            }
        }
    }
    Ok(crate::HardwareInputs {
        layout,
        fb: None,
        grf,
        vec4: true,
    })
}
