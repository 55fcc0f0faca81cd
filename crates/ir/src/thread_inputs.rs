//! Where a thread's push constants and attributes sit in the register file at thread start:
//! the simulator runs a logical shader (reading `u` and `attr` operands) and Mesa's final
//! code for it (reading the fixed registers they became) on the same inputs, and register
//! allocation keeps values off those registers. A rule of the target's thread interface,
//! so it lives here, below both.
//!
//! The rules are Mesa 22.3's (brw_fs.cpp), for the scalar back end on gen8+:
//! - `assign_curb_setup`: push constants start right after the thread payload. Regular
//!   uniforms come first, `DIV_ROUND_UP(nr_params, 8)` registers; then the pushed UBO ranges
//!   (`u65532`..`u65535`, `UBO_START` + range) in range order, each `range->length`
//!   registers. Uniform dword `n` is `g(payload + n / 8).(n % 8)`.
//! - `convert_attr_sources_to_hw_regs` (VS): attribute `attrN+R.B` is register
//!   `payload + curb + N + R`, byte `B`.
//! - `assign_urb_setup` (FS): attribute `attrN` (one input component's plane equation) is
//!   register `payload + curb + N / 2`, byte `(N % 2) * 16` plus its offset.
//! - Thread payload: VS `g0` (header) and `g1` (URB handles); FS `g0`, `g1` and the
//!   barycentric, depth and W registers it uses (`setup_fs_payload_gfx6`); CS `g0`
//!   (`setup_cs_payload`), its push constants right after; TCS and TES five registers
//!   (`tcs_thread_payload`, `tes_thread_payload`), a TES's pushed inputs after its push
//!   constants as a VS's; GS `g0`, `g1` and the registers its payload holds, as far as the
//!   shader reads them, or, with pushed inputs, as the input primitive's vertex count
//!   gives them ([`InputLayout::of_gs`]).
//!
//! What the logical IR does not record is inferred from what it reads, as a lower bound:
//! `nr_params` from the highest regular uniform read, each UBO range's length from its
//! highest register read (`brw_nir_analyze_ubo_ranges` ends a range at a used register),
//! the FS payload from the highest payload register read (Mesa enables a payload field only
//! when the shader uses it). A Mesa cross-check that disagrees on every seed from the first
//! push-constant read points here first.

use crate::{RegFile, Shader, Stage};

/// `UBO_START` (brw_fs.h): uniform numbers from here on are pushed UBO ranges.
pub const UBO_START: u32 = 65532;
/// The register of a geometry thread's primitive ID when the shader reads it, after g0
/// and the output URB handles in g1 (brw_fs_thread_payload.cpp `gs_thread_payload`).
pub const GS_PRIMITIVE_ID_REG: u32 = 2;
/// Registers of a scalar tessellation thread's payload (see [`InputLayout::of`]).
pub const TESS_PAYLOAD_REGS: u32 = 5;

/// Register positions of a thread's inputs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputLayout {
    pub stage: Stage,
    /// First push-constant register (the payload's length).
    pub curb_start: u32,
    /// Dword within the push constants where each UBO range starts.
    pub ubo_dword: [u32; 4],
    /// Registers of push constants.
    pub curb_regs: u32,
    /// First attribute register.
    pub attr_start: u32,
    /// Bytes per register on the target ([`crate::Target::reg_size`]).
    pub reg_size: u32,
    /// A vec4 geometry shader run DUAL_INSTANCE ([`vec4_gs::dual_instanced`]): its
    /// attributes two slots a register, the same for both halves.
    pub dual_instance: bool,
}

impl InputLayout {
    /// The layout Mesa gives `start` (a logical shader of the scalar back end).
    pub fn of(start: &Shader) -> Result<InputLayout, String> {
        Self::inferred(start, None)
    }

    /// The layout of a geometry shader whose input primitive has `vertices_in` vertices,
    /// which its pushed inputs need (its payload holds one URB handle register per input
    /// vertex before them; the dumps do not print the primitive): brw_fs_thread_payload.cpp
    /// `gs_thread_payload` (g0 header, g1 output URB handles, the primitive ID register
    /// when the shader reads it, `vertices_in` input-vertex URB handle registers), then
    /// the push constants, then the pushed inputs, attribute `attrN+R.B` in register
    /// `payload + curb + N + R` (brw_vec4_gs_visitor.cpp and Mesa 25 brw_compile_gs.cpp
    /// `assign_gs_urb_setup`, brw_fs.cpp `convert_attr_sources_to_hw_regs`; the attribute
    /// numbers are brw_fs_nir.cpp `emit_gs_input_load`'s, `push_reg_count` per vertex). The
    /// primitive ID is read by a `mov` of the whole `g2` (brw_fs_nir.cpp
    /// `load_primitive_id`); an input-vertex handle, as a message source or a scalar.
    pub fn of_gs(start: &Shader, vertices_in: u32) -> Result<InputLayout, String> {
        Self::inferred(start, Some(vertices_in))
    }

    fn inferred(start: &Shader, gs_vertices_in: Option<u32>) -> Result<InputLayout, String> {
        let reg = start.reg_size();
        let mut regular_dwords = 0u32;
        let mut ubo_bytes = [0u32; 4];
        // The fixed payload: g0, then a fragment shader's pixel masks and subspan
        // coordinates, one register per 16 channels (Mesa `fs_thread_payload`:
        // `subspan_coord_reg[j]` for j < dispatch_width / 16, so g1 and g2 in SIMD32).
        let mut max_payload = match start.stage {
            Stage::Fs => (start.dispatch_width as u32 / 16).max(1),
            _ => 1u32,
        };
        let mut reads_attr = false;
        let mut reads_primitive_id = false;
        for inst in start.layout.insts() {
            if start.stage == Stage::Gs && start.insts.opcode[inst] == crate::Opcode::Mov {
                reads_primitive_id |= start.srcs(inst).first().is_some_and(|o| {
                    o.file == RegFile::FixedGrf
                        && o.nr == GS_PRIMITIVE_ID_REG
                        && o.offset == 0
                        && o.stride != 0
                });
            }
            let exec = start.insts.control[inst].exec_size as u32;
            for (k, op) in start.srcs(inst).iter().enumerate() {
                // (Of register operands only: an immediate keeps other bits in `offset`.)
                let end = || op.offset + op.span(exec);
                match op.file {
                    RegFile::Uniform if op.nr >= UBO_START => {
                        let r = (op.nr - UBO_START) as usize;
                        ubo_bytes[r] = ubo_bytes[r].max(end());
                    }
                    RegFile::Uniform => {
                        regular_dwords = regular_dwords.max(op.nr + end().div_ceil(4));
                    }
                    RegFile::FixedGrf => {
                        // What it reads, not only its region: `pln`'s barycentrics are
                        // two registers per 8 channels (crate::size_read).
                        let read = crate::size_read::size_read(start, inst, k).max(1);
                        max_payload = max_payload.max(op.nr + (op.offset + read).div_ceil(reg) - 1);
                    }
                    RegFile::Attr => reads_attr = true,
                    _ => {}
                }
            }
            let d = start.insts.dst[inst];
            if d.file == RegFile::FixedGrf {
                max_payload = max_payload.max(d.nr);
            }
        }
        let curb_start = match start.stage {
            // g0 header, g1 URB handles (brw_vs.c, gen8+ scalar VS).
            Stage::Vs => 2,
            Stage::Fs => max_payload + 1,
            // g0 header only (`setup_cs_payload`: `1 + uses_btd_stack_ids`, none here);
            // the push constants, cross-thread then per-thread (the subgroup ID), follow
            // densely (`cs_fill_push_const_info`).
            Stage::Cs => 1,
            // Five registers whatever the shader reads: a single-patch TCS's g0 header
            // (patch URB handle, primitive ID) and g1-g4 input-vertex URB handles; a
            // TES's g0 header, g1-g3 gl_TessCoord and g4 output URB handles
            // (brw_fs_thread_payload.cpp `tcs_thread_payload`, `tes_thread_payload`:
            // `num_regs = 5`; the multi-patch TCS is gen12's). A TES's pushed inputs
            // follow the push constants as a VS's do (brw_fs.cpp
            // `assign_tes_urb_setup`, `convert_attr_sources_to_hw_regs`).
            Stage::Tcs if !reads_attr => TESS_PAYLOAD_REGS,
            Stage::Tes => TESS_PAYLOAD_REGS,
            // g0 header, g1 URB handles, then the primitive ID if included and the
            // input-vertex URB handles (`gs_thread_payload`), inferred like the fragment
            // payload from the highest register read. Inputs pushed into registers
            // (`attr`, one block per input vertex) are not modelled for it.
            Stage::Gs if !reads_attr => max_payload + 1,
            Stage::Gs if gs_vertices_in.is_some() => {
                let payload = GS_PRIMITIVE_ID_REG
                    + reads_primitive_id as u32
                    + gs_vertices_in.unwrap_or(0);
                if max_payload >= payload {
                    return Err(format!(
                        "a geometry shader reading g{max_payload}, past its payload of {payload} registers"
                    ));
                }
                payload
            }
            Stage::Gs => {
                return Err("the register layout of GS threads' pushed inputs (attr) needs the input primitive's vertex count, which the dumps do not print (it is read from the `[geometry shader]` source beside them, not found here)".to_string())
            }
            s @ Stage::Tcs => {
                return Err(format!(
                    "the register layout of {} threads' pushed inputs (attr) is not modelled yet",
                    s.abbrev()
                ))
            }
            s => {
                return Err(format!(
                    "the register layout of {} threads is not modelled yet",
                    s.abbrev()
                ))
            }
        };
        let reg_dwords = reg / 4;
        let regular_regs = regular_dwords.div_ceil(reg_dwords);
        let mut ubo_dword = [0u32; 4];
        let mut regs = regular_regs;
        for r in 0..4 {
            ubo_dword[r] = regs * reg_dwords;
            regs += ubo_bytes[r].div_ceil(reg);
        }
        Ok(InputLayout {
            stage: start.stage,
            curb_start,
            ubo_dword,
            curb_regs: regs,
            attr_start: curb_start + regs,
            reg_size: reg,
            dual_instance: false,
        })
    }

    /// Register-file byte of push constant `u{nr}` at byte `offset`.
    pub fn uniform_byte(&self, nr: u32, offset: u32) -> u64 {
        let dword = if nr >= UBO_START {
            self.ubo_dword[(nr - UBO_START) as usize] as u64 + offset as u64 / 4
        } else {
            nr as u64 + offset as u64 / 4
        };
        (self.curb_start * self.reg_size) as u64 + dword * 4 + offset as u64 % 4
    }

    /// Register-file byte of attribute `attr{nr}` at byte `offset`.
    pub fn attr_byte(&self, nr: u32, offset: u32) -> u64 {
        let reg = self.reg_size;
        let base = (self.attr_start * reg) as u64;
        match self.stage {
            // Two attributes a register, 16 bytes each (the fragment shader's setup data).
            Stage::Fs => base + (nr / 2 * reg + (nr % 2) * 16 + offset) as u64,
            _ => base + (nr * reg + offset) as u64,
        }
    }
}

/// What a fragment shader's render-target writes carry besides colour 0: pipeline state
/// (3DSTATE_PS_EXTRA, blend state) that the hardware message does not describe, taken from
/// the logical `fb_write_logical` sources (Mesa 22.3 `enum fb_write_logical_srcs`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FbLayout {
    /// Colour components written (`FB_WRITE_LOGICAL_SRC_COMPONENTS`).
    pub components: u32,
    pub color1: bool,
    pub src0_alpha: bool,
    pub src_depth: bool,
    pub src_stencil: bool,
    pub omask: bool,
}

/// `fb_write_logical` source slots.
pub use crate::message::render_target::src as fb_src;

impl FbLayout {
    /// The layout of the first render-target write of `start`, if it has one.
    pub fn of(start: &Shader) -> Option<FbLayout> {
        let inst = start
            .layout
            .insts()
            .find(|&i| start.insts.opcode[i] == crate::Opcode::FbWriteLogical)?;
        let srcs = start.srcs(inst);
        let has = |k: usize| srcs.get(k).is_some_and(|s| !s.is_bad());
        Some(FbLayout {
            components: srcs
                .get(fb_src::COMPONENTS)
                .filter(|s| s.file == RegFile::Imm)
                .map_or(4, |s| s.imm_bits() as u32),
            color1: has(fb_src::COLOR1),
            src0_alpha: has(fb_src::SRC0_ALPHA),
            src_depth: has(fb_src::SRC_DEPTH),
            src_stencil: has(fb_src::SRC_STENCIL),
            omask: has(fb_src::OMASK),
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::import::{import_mesa_dump, DumpName};
    use crate::Gen;

    /// A fragment shader reading no payload register: push constants after g1 in SIMD16,
    /// after g2 in SIMD32 (the second half's subspan coordinates).
    #[test]
    fn simd32_fragment_payload_has_two_subspan_registers() {
        let dump = "\
{  1}    0: mov(16) vgrf0:F, u0<0>:F 
Maximum 1 registers live at once.
";
        for (width, curb) in [(16, 2), (32, 3)] {
            let text = dump.replace("(16)", &format!("({width})"));
            let name = DumpName::parse(&format!("FS{width}-GLSL1-00-00-start")).unwrap();
            let s = import_mesa_dump(&text, &name, "t", Gen::Gen9).unwrap();
            assert_eq!(
                super::InputLayout::of(&s).unwrap().curb_start,
                curb,
                "SIMD{width}"
            );
        }
    }
}

/// The vec4 geometry shader's payload on gen7 (Mesa 22.3 brw_vec4_gs_visitor.cpp
/// `setup_payload`): g0 the thread header, whose dwords 0 and 1 carry the two instances'
/// IDs from bit 27 on (`generate_gs_get_instance_id`: `shr(8) dst r0<1,4,0>
/// GFX7_GS_PAYLOAD_INSTANCE_ID_SHIFT`, brw_eu_defines.h); g1 the primitive ID when the
/// shader reads it (`include_primitive_id`), then the push constants.
///
/// Dispatch mode: a shader of more than one invocation runs DUAL_INSTANCE on gen7
/// (`brw_compile_gs`: `invocations <= 1` tries DUAL_OBJECT, else
/// `DISPATCH_MODE_4X2_DUAL_INSTANCE`): the two halves are two instances of one primitive,
/// and the attributes are interleaved, two slots a register (`setup_payload`:
/// `attributes_per_reg = 2`), read by both halves alike (`setup_varying_inputs` /
/// `attribute_to_hw_reg`: slot `g` is register `g / 2`, half `g % 2`, vertical stride
/// 0). See [`vec4_gs::dual_instanced`].
pub mod vec4_gs {
    use crate::{Opcode, Shader, Stage};

    /// `GFX7_GS_PAYLOAD_INSTANCE_ID_SHIFT`.
    pub const INSTANCE_ID_SHIFT: u32 = 27;
    /// The register of the primitive ID, when present.
    pub const PRIMITIVE_ID_REG: u32 = 1;
    /// Attribute slots a register in DUAL_INSTANCE (and SINGLE) mode.
    pub const DUAL_INSTANCE_ATTRIBUTES_PER_REG: u32 = 2;

    /// Whether a vec4 geometry shader's start IR shows it runs DUAL_INSTANCE: it has a
    /// `get_instance_id`, which Mesa emits only for a shader of more than one invocation
    /// (brw_vec4_gs_nir.cpp `load_invocation_id`: `invocations > 1` emits
    /// GS_OPCODE_GET_INSTANCE_ID, else a `mov` of 0). A shader of several invocations that
    /// never reads its invocation ID runs DUAL_INSTANCE too, which the dump does not show
    /// (and a DUAL_OBJECT compile that fails falls back to SINGLE mode, also two slots a
    /// register): those are laid out as DUAL_OBJECT.
    pub fn dual_instanced(start: &Shader) -> bool {
        start.stage == Stage::Gs
            && start
                .layout
                .insts()
                .any(|i| start.insts.opcode[i] == Opcode::GetInstanceId)
    }
}
