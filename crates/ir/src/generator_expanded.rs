//! The virtual opcodes Mesa's code generator expands itself, after register allocation,
//! and what it expands each into: the only instructions besides EU instructions that code
//! in hardware form (after `lower`) may hold. Anything else left after lowering is a
//! logical instruction a pass should have lowered, and the hardware-form verifier names it
//! ([`crate::verify::hardware_form_errors`]).
//!
//! Sources: Mesa 22.3 brw_fs_generator.cpp `fs_generator::generate_code` (Mesa 25
//! brw_generator.cpp `brw_generator::generate_code` has the same cases for these) for the
//! scalar back end, brw_vec4_generator.cpp `generate_code` for vec4. `eubatch_codegen`'s
//! `generate` module expands the scalar ones it models the same way and reports the others
//! as not expanded, never counting them as one instruction.

use crate::opcode::Opcode;
use crate::shader::Backend;

/// One opcode the generator expands.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Expansion {
    pub op: Opcode,
    /// What the generator emits for it.
    pub into: &'static str,
}

const fn e(op: Opcode, into: &'static str) -> Expansion {
    Expansion { op, into }
}

const MATH: &str = "one `math` with the opcode's function (`gfx6_math`, gen6+)";
const SAMPLER: &str = "one sampler `send` (`generate_tex`)";

/// The math opcodes, both back ends'.
pub const MATH_OPS: &[Expansion] = &[
    e(Opcode::Rcp, MATH),
    e(Opcode::Rsq, MATH),
    e(Opcode::Sqrt, MATH),
    e(Opcode::Exp2, MATH),
    e(Opcode::Log2, MATH),
    e(Opcode::Pow, MATH),
    e(Opcode::Sin, MATH),
    e(Opcode::Cos, MATH),
    e(Opcode::IntQuot, MATH),
    e(Opcode::IntRem, MATH),
];

/// The scalar back end's (`fs_generator`).
pub const SCALAR: &[Expansion] = &[
    e(Opcode::Undef, "nothing: `generate_code` skips it"),
    e(Opcode::Linterp, "one `pln` on gen7-10 (`generate_linterp`)"),
    e(
        Opcode::PixelX,
        "one `add` of the payload's subspan X words, region <8;4,1>, and the offset (FS_OPCODE_PIXEL_X)",
    ),
    e(
        Opcode::PixelY,
        "one `add` of the payload's subspan Y words, region <8;4,1>, and the offset (FS_OPCODE_PIXEL_Y)",
    ),
    e(Opcode::DdxCoarse, "one `add` of two swizzled regions, one negated (`generate_ddx`)"),
    e(Opcode::DdxFine, "one `add` of two swizzled regions, one negated (`generate_ddx`)"),
    e(Opcode::DdyCoarse, "one `add` of two swizzled regions, one negated (`generate_ddy`)"),
    e(
        Opcode::DdyFine,
        "one `add` of two swizzled regions, one negated, Align16 before gen8 (`generate_ddy`)",
    ),
    e(
        Opcode::HaltTarget,
        "nothing: the HALTs' jump targets are patched to it (`patch_halt_jumps`)",
    ),
    e(
        Opcode::FindLiveChannel,
        "a `mov` of ce0, ANDed with the dispatch mask where dispatch is not packed, then `fbl` (`brw_find_live_channel`)",
    ),
    e(
        Opcode::FindLastLiveChannel,
        "a `mov` of ce0, ANDed with the dispatch mask, then `lzd` and `add` (`brw_find_live_channel`)",
    ),
    e(Opcode::LoadLiveChannels, "one `mov` of ce0"),
    e(
        Opcode::Broadcast,
        "a `mov` of the component, or `shl`/`add` into a0 and an indirect `mov` (`brw_broadcast`)",
    ),
    e(
        Opcode::Shuffle,
        "`shl`/`add` of the indices into a0 and indirect `mov`s (`generate_shuffle`)",
    ),
    e(
        Opcode::SelExec,
        "a NoMask `mov` of the second source, then a masked `mov` of the first",
    ),
    e(
        Opcode::QuadSwizzle,
        "one `mov` with a region or Align16 swizzle, or four (`generate_quad_swizzle`)",
    ),
    e(
        Opcode::ClusterBroadcast,
        "one `mov` of the cluster's component, region <0;cluster,0> (SHADER_OPCODE_CLUSTER_BROADCAST)",
    ),
    e(Opcode::SetSampleId, "`add`s of the sample offsets (`generate_set_sample_id`)"),
    e(
        Opcode::PackHalf2x16Split,
        "`f32to16` of each half into the word halves (`generate_pack_half_2x16_split`)",
    ),
    e(
        Opcode::InterpSample,
        "one pixel-interpolator `send` (`generate_pixel_interpolator_query`)",
    ),
    e(
        Opcode::InterpSharedOffset,
        "one pixel-interpolator `send` (`generate_pixel_interpolator_query`)",
    ),
    e(
        Opcode::InterpPerSlotOffset,
        "one pixel-interpolator `send` (`generate_pixel_interpolator_query`)",
    ),
    e(
        Opcode::CsTerminate,
        "one thread-spawner `send` with EOT (CS_OPCODE_CS_TERMINATE)",
    ),
    e(Opcode::Barrier, "a gateway `send`, then `wait` (`generate_barrier`)"),
    e(
        Opcode::MemoryFence,
        "a data-port fence `send` (SHADER_OPCODE_MEMORY_FENCE)",
    ),
    e(Opcode::Interlock, "a data-port fence `send` (SHADER_OPCODE_INTERLOCK)"),
    e(
        Opcode::SchedulingFence,
        "nothing on gen7-11: it only fences the scheduler (FS_OPCODE_SCHEDULING_FENCE)",
    ),
    e(
        Opcode::MovIndirect,
        "`add` into a0 and indirect `mov`s (`generate_mov_indirect`)",
    ),
    e(Opcode::MovRelocImm, "one `mov` of a relocated immediate"),
    e(
        Opcode::UniformPullConstGfx7,
        "one constant-cache `send` (`generate_uniform_pull_constant_load_gfx7`)",
    ),
    e(
        Opcode::GetBufferSize,
        "one sampler `resinfo` `send` (`generate_get_buffer_size`)",
    ),
    e(
        Opcode::Gfx4ScratchRead,
        "a scratch block read `send` (`generate_scratch_read`): a fill",
    ),
    e(
        Opcode::Gfx4ScratchWrite,
        "`mov`s of the header and a scratch block write `send` (`generate_scratch_write`): a spill",
    ),
    e(
        Opcode::Gfx7ScratchRead,
        "one scratch read `send` (`generate_scratch_read_gfx7`): a fill",
    ),
    e(
        Opcode::ScratchHeader,
        "`mov`s of g0 and the offset into a header (`generate_scratch_header`)",
    ),
    e(Opcode::RndMode, "an `and` and an `or` of cr0 (SHADER_OPCODE_RND_MODE)"),
    e(
        Opcode::FloatControlMode,
        "an `and` and an `or` of cr0 (SHADER_OPCODE_FLOAT_CONTROL_MODE)",
    ),
    e(Opcode::ReadSrReg, "one `mov` of the sr0 dword (SHADER_OPCODE_READ_SR_REG)"),
];

const URB: &str = "one URB `send`";

/// The vec4 back end's (`vec4_generator`).
pub const VEC4: &[Expansion] = &[
    e(Opcode::Tex, SAMPLER),
    e(Opcode::Txd, SAMPLER),
    e(Opcode::Txf, SAMPLER),
    e(Opcode::TxfCms, SAMPLER),
    e(Opcode::TxfCmsW, SAMPLER),
    e(Opcode::TxfMcs, SAMPLER),
    e(Opcode::Txl, SAMPLER),
    e(Opcode::Txs, SAMPLER),
    e(Opcode::Tg4, SAMPLER),
    e(Opcode::Tg4Offset, SAMPLER),
    e(Opcode::SampleInfo, SAMPLER),
    e(Opcode::GetBufferSize, "one sampler `resinfo` `send`"),
    e(
        Opcode::UntypedAtomic,
        "one data-port `send` (`brw_untyped_atomic`)",
    ),
    e(
        Opcode::UntypedSurfaceRead,
        "one data-port `send` (`brw_untyped_surface_read`)",
    ),
    e(
        Opcode::UntypedSurfaceWrite,
        "one data-port `send` (`brw_untyped_surface_write`)",
    ),
    e(Opcode::VsUrbWrite, URB),
    e(Opcode::GsUrbWrite, URB),
    e(Opcode::GsUrbWriteAllocate, URB),
    e(Opcode::GsThreadEnd, "one URB `send` with EOT"),
    e(Opcode::TcsUrbWrite, URB),
    e(Opcode::TcsThreadEnd, "one URB `send` with EOT"),
    e(Opcode::UrbRead, URB),
    e(
        Opcode::Gfx4ScratchRead,
        "a scratch read `send` (`generate_scratch_read`)",
    ),
    e(
        Opcode::Gfx4ScratchWrite,
        "a scratch write `send` (`generate_scratch_write`)",
    ),
    e(
        Opcode::PullConstantLoad,
        "one data-port read `send` (`generate_pull_constant_load`)",
    ),
    e(
        Opcode::PullConstantLoadGfx7,
        "one sampler `ld` `send` (`generate_pull_constant_load_gfx7`)",
    ),
    e(
        Opcode::SetWriteOffset,
        "one `mul` into the URB header's offset dword (`generate_gs_set_write_offset`)",
    ),
    e(
        Opcode::SetVertexCount,
        "`mov`s into the URB header (`generate_gs_set_vertex_count`)",
    ),
    e(
        Opcode::SetDword2,
        "one `mov` into header dword 2 (`generate_gs_set_dword_2`)",
    ),
    e(
        Opcode::PrepareChannelMasks,
        "one `shl` (`generate_gs_prepare_channel_masks`)",
    ),
    e(
        Opcode::SetChannelMasks,
        "one `or` into the header (`generate_gs_set_channel_masks`)",
    ),
    e(
        Opcode::GetInstanceId,
        "one `shr` of r0.1 (`generate_gs_get_instance_id`)",
    ),
    e(Opcode::FfSync, "one URB `send` (`generate_gs_ff_sync`)"),
    e(
        Opcode::SetPrimitiveId,
        "one `mov` into the header (`generate_gs_set_primitive_id`)",
    ),
    e(
        Opcode::GsSvbWrite,
        "one render-cache `send` (`generate_gs_svb_write`)",
    ),
    e(
        Opcode::GsSvbSetDstIndex,
        "one `mov` (`generate_gs_svb_set_destination_index`)",
    ),
    e(
        Opcode::GsFfSyncSetPrimitives,
        "`mov`s into the header (`generate_gs_ff_sync_set_primitives`)",
    ),
    e(
        Opcode::TcsGetInstanceId,
        "an `and` and a `shr` of r0.2 (`generate_tcs_get_instance_id`)",
    ),
    e(
        Opcode::TcsSetInputUrbOffsets,
        "`mov`s and an `add` into the header (`generate_tcs_input_urb_offsets`)",
    ),
    e(
        Opcode::TcsSetOutputUrbOffsets,
        "`mov`s into the header (`generate_tcs_output_urb_offsets`)",
    ),
    e(
        Opcode::TcsGetPrimitiveId,
        "one `mov` of r0.1 (`generate_tcs_get_primitive_id`)",
    ),
    e(
        Opcode::TcsCreateBarrierHeader,
        "`mov`, `and` and `or` into the header (`generate_tcs_create_barrier_header`)",
    ),
    e(
        Opcode::TcsReleaseInput,
        "one URB `send` (`generate_tcs_release_input`)",
    ),
    e(
        Opcode::TcsSrc0010IsZero,
        "one `mov` of src0 with region <0;1,0> to null, its conditional modifier setting the flag (TCS_OPCODE_SRC0_010_IS_ZERO)",
    ),
    e(
        Opcode::TesCreateInputReadHeader,
        "`mov`s of r0 into the header (`generate_tes_create_input_read_header`)",
    ),
    e(
        Opcode::TesAddIndirectUrbOffset,
        "one `add` into the header (`generate_tes_add_indirect_urb_offset`)",
    ),
    e(
        Opcode::TesGetPrimitiveId,
        "one `mov` of r1.7 (`generate_tes_get_primitive_id`)",
    ),
    e(
        Opcode::DoubleToF32,
        "one `mov` with a <2> stride (VEC4_OPCODE_DOUBLE_TO_F32)",
    ),
    e(
        Opcode::DoubleToD32,
        "one `mov` with a <2> stride (VEC4_OPCODE_DOUBLE_TO_D32)",
    ),
    e(
        Opcode::DoubleToU32,
        "one `mov` with a <2> stride (VEC4_OPCODE_DOUBLE_TO_U32)",
    ),
    e(
        Opcode::SingleToDouble,
        "one `mov` with a <2> stride (VEC4_OPCODE_TO_DOUBLE)",
    ),
    e(
        Opcode::PickLow32bit,
        "one `mov` of the low dwords (VEC4_OPCODE_PICK_LOW_32BIT)",
    ),
    e(
        Opcode::PickHigh32bit,
        "one `mov` of the high dwords (VEC4_OPCODE_PICK_HIGH_32BIT)",
    ),
    e(
        Opcode::SetLow32bit,
        "one `mov` into the low dwords (VEC4_OPCODE_SET_LOW_32BIT)",
    ),
    e(
        Opcode::SetHigh32bit,
        "one `mov` into the high dwords (VEC4_OPCODE_SET_HIGH_32BIT)",
    ),
    e(
        Opcode::MovBytes,
        "one `mov` of bytes (VEC4_OPCODE_MOV_BYTES)",
    ),
    e(Opcode::PackBytes, "`mov`s of bytes (`generate_pack_bytes`)"),
    e(
        Opcode::UnpackUniform,
        "one `mov` (`generate_unpack_uniform`)",
    ),
    e(
        Opcode::MovForScratch,
        "one `mov` (VEC4_OPCODE_MOV_FOR_SCRATCH)",
    ),
    e(
        Opcode::ZeroOobPushRegs,
        "`mov`s of zero into the push registers past the range (`generate_zero_oob_push_regs`)",
    ),
    e(
        Opcode::UnpackFlagsSimd4x2,
        "`mov`s of the flag into the two halves (`generate_unpack_flags`)",
    ),
    e(
        Opcode::FindLiveChannel,
        "`fbl` of ce0 (`brw_find_live_channel`)",
    ),
    e(
        Opcode::Broadcast,
        "a `mov` of the component (`brw_broadcast`)",
    ),
    e(
        Opcode::Barrier,
        "a gateway `send`, then `wait` (`brw_barrier`)",
    ),
    e(
        Opcode::MemoryFence,
        "a data-port fence `send` (`brw_memory_fence`)",
    ),
    e(
        Opcode::MovIndirect,
        "indirect `mov`s (`generate_mov_indirect`)",
    ),
];

/// What the generator of `backend` expands `op` into, if it expands it.
pub fn expansion(backend: Backend, op: Opcode) -> Option<&'static Expansion> {
    let table = match backend {
        Backend::Scalar => SCALAR,
        Backend::Vec4 => VEC4,
    };
    MATH_OPS.iter().chain(table).find(|x| x.op == op)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each table names an opcode once and only virtual ones: an EU instruction needs no
    /// entry, and a logical message must not have one.
    #[test]
    fn tables_hold_virtual_opcodes_once() {
        for table in [MATH_OPS, SCALAR, VEC4] {
            for (k, x) in table.iter().enumerate() {
                assert!(!x.op.is_hardware(), "{} is an EU instruction", x.op.name());
                assert!(
                    !x.op.name().ends_with("_logical"),
                    "{} is a logical message",
                    x.op.name()
                );
                assert!(
                    table[..k].iter().all(|y| y.op != x.op),
                    "{} twice",
                    x.op.name()
                );
            }
        }
        assert!(expansion(Backend::Scalar, Opcode::UrbWriteLogical).is_none());
        assert!(expansion(Backend::Scalar, Opcode::VsUrbWrite).is_none());
        assert!(expansion(Backend::Vec4, Opcode::VsUrbWrite).is_some());
        assert!(expansion(Backend::Vec4, Opcode::Rcp).is_some());
        assert!(expansion(Backend::Scalar, Opcode::Rcp).is_some());
    }
}
