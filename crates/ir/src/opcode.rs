//! Opcodes: the hardware instructions and Mesa's virtual (logical) opcodes.
//!
//! The names are the ones Mesa's `brw_instruction_name` prints (Mesa 22.3 to 25.0,
//! `src/intel/compiler/brw_shader.cpp`, and the hardware names from `brw_eu.c`'s opcode
//! descriptions), so dumps import by name. The list is Mesa's whole set, not just the opcodes
//! seen in the corpora: a dump of another stage or version uses others. A name that is not
//! here is an import error that names it.

macro_rules! opcodes {
    ($($variant:ident => $name:literal,)*) => {
        /// An instruction opcode.
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u16)]
        pub enum Opcode { $($variant,)* }

        impl Opcode {
            pub const ALL: &'static [Opcode] = &[$(Opcode::$variant,)*];

            /// The name as Mesa and eubatch print it.
            pub const fn name(self) -> &'static str {
                match self { $(Opcode::$variant => $name,)* }
            }
        }
    };
}

opcodes! {
    // Hardware opcodes (brw_eu.c opcode_descs; `do` and `f16to32`/`f32to16` kept as markers).
    Illegal => "illegal",
    Mov => "mov",
    Sel => "sel",
    Movi => "movi",
    Not => "not",
    And => "and",
    Or => "or",
    Xor => "xor",
    Shr => "shr",
    Shl => "shl",
    Smov => "smov",
    Asr => "asr",
    Ror => "ror",
    Rol => "rol",
    Cmp => "cmp",
    Cmpn => "cmpn",
    Csel => "csel",
    F32to16 => "f32to16",
    F16to32 => "f16to32",
    Bfrev => "bfrev",
    Bfe => "bfe",
    Bfi1 => "bfi1",
    Bfi2 => "bfi2",
    Jmpi => "jmpi",
    Brd => "brd",
    If => "if",
    Iff => "iff",
    Brc => "brc",
    Else => "else",
    Endif => "endif",
    Do => "do",
    Case => "case",
    While => "while",
    Break => "break",
    Continue => "cont",
    Halt => "halt",
    Calla => "calla",
    Call => "call",
    Ret => "ret",
    Goto => "goto",
    Join => "join",
    Wait => "wait",
    Send => "send",
    Sendc => "sendc",
    Sends => "sends",
    Sendsc => "sendsc",
    Math => "math",
    Add => "add",
    Mul => "mul",
    Avg => "avg",
    Frc => "frc",
    Rndu => "rndu",
    Rndd => "rndd",
    Rnde => "rnde",
    Rndz => "rndz",
    Mac => "mac",
    Mach => "mach",
    Lzd => "lzd",
    Fbh => "fbh",
    Fbl => "fbl",
    Cbit => "cbit",
    Addc => "addc",
    Subb => "subb",
    Sad2 => "sad2",
    Sada2 => "sada2",
    Add3 => "add3",
    Dp4 => "dp4",
    Dph => "dph",
    Dp3 => "dp3",
    Dp2 => "dp2",
    Dp4a => "dp4a",
    Line => "line",
    Pln => "pln",
    Mad => "mad",
    Lrp => "lrp",
    Madm => "madm",
    Nenop => "nenop",
    Nop => "nop",
    Dpas => "dpas",
    Sync => "sync",
    Srnd => "srnd",
    // Haswell's DIM: a 64-bit immediate move (PRM Vol. 2a "dim", gen7.5 only).
    Dim => "dim",
    // Virtual opcodes (brw_instruction_name).
    FbWrite => "fb_write",
    FbWriteLogical => "fb_write_logical",
    RepFbWrite => "rep_fb_write",
    FbRead => "fb_read",
    FbReadLogical => "fb_read_logical",
    Rcp => "rcp",
    Rsq => "rsq",
    Sqrt => "sqrt",
    Exp2 => "exp2",
    Log2 => "log2",
    Pow => "pow",
    IntQuot => "int_quot",
    IntRem => "int_rem",
    Sin => "sin",
    Cos => "cos",
    Undef => "undef",
    Tex => "tex",
    TexLogical => "tex_logical",
    Txd => "txd",
    TxdLogical => "txd_logical",
    Txf => "txf",
    TxfLogical => "txf_logical",
    TxfLz => "txf_lz",
    Txl => "txl",
    TxlLogical => "txl_logical",
    TxlLz => "txl_lz",
    Txs => "txs",
    TxsLogical => "txs_logical",
    Txb => "txb",
    TxbLogical => "txb_logical",
    TxfCms => "txf_cms",
    TxfCmsLogical => "txf_cms_logical",
    TxfCmsW => "txf_cms_w",
    TxfCmsWLogical => "txf_cms_w_logical",
    TxfCmsWGfx12Logical => "txf_cms_w_gfx12_logical",
    TxfUms => "txf_ums",
    TxfUmsLogical => "txf_ums_logical",
    TxfMcs => "txf_mcs",
    TxfMcsLogical => "txf_mcs_logical",
    Lod => "lod",
    LodLogical => "lod_logical",
    Tg4 => "tg4",
    Tg4Logical => "tg4_logical",
    Tg4Offset => "tg4_offset",
    Tg4OffsetLogical => "tg4_offset_logical",
    Tg4BiasLogical => "tg4_bias_logical",
    Tg4ExplicitLodLogical => "tg4_explicit_lod_logical",
    Tg4ImplicitLodLogical => "tg4_implicit_lod_logical",
    Tg4OffsetLodLogical => "tg4_offset_lod_logical",
    Tg4OffsetBiasLogical => "tg4_offset_bias_logical",
    SampleInfo => "sampleinfo",
    SampleInfoLogical => "sampleinfo_logical",
    ImageSizeLogical => "image_size_logical",
    UntypedAtomic => "untyped_atomic",
    UntypedAtomicLogical => "untyped_atomic_logical",
    UntypedAtomicFloatLogical => "untyped_atomic_float_logical",
    UntypedSurfaceRead => "untyped_surface_read",
    UntypedSurfaceReadLogical => "untyped_surface_read_logical",
    UntypedSurfaceWrite => "untyped_surface_write",
    UntypedSurfaceWriteLogical => "untyped_surface_write_logical",
    UnalignedOwordBlockReadLogical => "unaligned_oword_block_read_logical",
    OwordBlockWriteLogical => "oword_block_write_logical",
    A64UntypedReadLogical => "a64_untyped_read_logical",
    A64OwordBlockReadLogical => "a64_oword_block_read_logical",
    A64UnalignedOwordBlockReadLogical => "a64_unaligned_oword_block_read_logical",
    A64OwordBlockWriteLogical => "a64_oword_block_write_logical",
    A64UntypedWriteLogical => "a64_untyped_write_logical",
    A64ByteScatteredReadLogical => "a64_byte_scattered_read_logical",
    A64ByteScatteredWriteLogical => "a64_byte_scattered_write_logical",
    A64UntypedAtomicLogical => "a64_untyped_atomic_logical",
    A64UntypedAtomicFloatLogical => "a64_untyped_atomic_float_logical",
    // Mesa 22.3's A64 atomics by data size (brw_shader.cpp `brw_instruction_name`).
    A64UntypedAtomicInt16Logical => "a64_untyped_atomic_int16_logical",
    A64UntypedAtomicInt64Logical => "a64_untyped_atomic_int64_logical",
    A64UntypedAtomicFloat16Logical => "a64_untyped_atomic_float16_logical",
    A64UntypedAtomicFloat32Logical => "a64_untyped_atomic_float32_logical",
    A64UntypedAtomicFloat64Logical => "a64_untyped_atomic_float64_logical",
    TypedAtomicLogical => "typed_atomic_logical",
    TypedSurfaceReadLogical => "typed_surface_read_logical",
    TypedSurfaceWriteLogical => "typed_surface_write_logical",
    MemoryFence => "memory_fence",
    SchedulingFence => "scheduling_fence",
    Interlock => "interlock",
    ByteScatteredReadLogical => "byte_scattered_read_logical",
    ByteScatteredWriteLogical => "byte_scattered_write_logical",
    DwordScatteredReadLogical => "dword_scattered_read_logical",
    DwordScatteredWriteLogical => "dword_scattered_write_logical",
    MemoryLoadLogical => "memory_load",
    MemoryStoreLogical => "memory_store",
    MemoryAtomicLogical => "memory_atomic",
    LoadPayload => "load_payload",
    Pack => "pack",
    Gfx4ScratchRead => "gfx4_scratch_read",
    Gfx4ScratchWrite => "gfx4_scratch_write",
    Gfx7ScratchRead => "gfx7_scratch_read",
    ScratchHeader => "scratch_header",
    UrbWriteLogical => "urb_write_logical",
    UrbReadLogical => "urb_read_logical",
    FindLiveChannel => "find_live_channel",
    FindLastLiveChannel => "find_last_live_channel",
    LoadLiveChannels => "load_live_channels",
    Broadcast => "broadcast",
    Shuffle => "shuffle",
    SelExec => "sel_exec",
    QuadSwizzle => "quad_swizzle",
    ClusterBroadcast => "cluster_broadcast",
    GetBufferSize => "get_buffer_size",
    MovBytes => "mov_bytes",
    PackBytes => "pack_bytes",
    UnpackUniform => "unpack_uniform",
    DoubleToF32 => "double_to_f32",
    DoubleToD32 => "double_to_d32",
    DoubleToU32 => "double_to_u32",
    SingleToDouble => "single_to_double",
    PickLow32bit => "pick_low_32bit",
    PickHigh32bit => "pick_high_32bit",
    SetLow32bit => "set_low_32bit",
    SetHigh32bit => "set_high_32bit",
    MovForScratch => "mov_for_scratch",
    ZeroOobPushRegs => "zero_oob_push_regs",
    DdxCoarse => "ddx_coarse",
    DdxFine => "ddx_fine",
    DdyCoarse => "ddy_coarse",
    DdyFine => "ddy_fine",
    Linterp => "linterp",
    PixelX => "pixel_x",
    PixelY => "pixel_y",
    UniformPullConst => "uniform_pull_const",
    UniformPullConstGfx7 => "uniform_pull_const_gfx7",
    VaryingPullConstGfx4 => "varying_pull_const_gfx4",
    VaryingPullConstLogical => "varying_pull_const_logical",
    SetSampleId => "set_sample_id",
    PackHalf2x16Split => "pack_half_2x16_split",
    HaltTarget => "halt_target",
    PlaceholderHalt => "placeholder_halt",
    InterpSample => "interp_sample",
    InterpSharedOffset => "interp_shared_offset",
    InterpPerSlotOffset => "interp_per_slot_offset",
    VsUrbWrite => "vs_urb_write",
    PullConstantLoad => "pull_constant_load",
    PullConstantLoadGfx7 => "pull_constant_load_gfx7",
    UnpackFlagsSimd4x2 => "unpack_flags_simd4x2",
    GsUrbWrite => "gs_urb_write",
    GsUrbWriteAllocate => "gs_urb_write_allocate",
    GsThreadEnd => "gs_thread_end",
    SetWriteOffset => "set_write_offset",
    SetVertexCount => "set_vertex_count",
    SetDword2 => "set_dword_2",
    PrepareChannelMasks => "prepare_channel_masks",
    SetChannelMasks => "set_channel_masks",
    GetInstanceId => "get_instance_id",
    FfSync => "ff_sync",
    SetPrimitiveId => "set_primitive_id",
    GsSvbWrite => "gs_svb_write",
    GsSvbSetDstIndex => "gs_svb_set_dst_index",
    GsFfSyncSetPrimitives => "gs_ff_sync_set_primitives",
    CsTerminate => "cs_terminate",
    Barrier => "barrier",
    Mulh => "mulh",
    IsubSat => "isub_sat",
    UsubSat => "usub_sat",
    MovIndirect => "mov_indirect",
    MovRelocImm => "mov_reloc_imm",
    UrbRead => "urb_read",
    TcsGetInstanceId => "tcs_get_instance_id",
    TcsUrbWrite => "tcs_urb_write",
    TcsSetInputUrbOffsets => "tcs_set_input_urb_offsets",
    TcsSetOutputUrbOffsets => "tcs_set_output_urb_offsets",
    TcsGetPrimitiveId => "tcs_get_primitive_id",
    TcsCreateBarrierHeader => "tcs_create_barrier_header",
    TcsSrc0010IsZero => "tcs_src0<0,1,0>_is_zero",
    TcsReleaseInput => "tcs_release_input",
    TcsThreadEnd => "tcs_thread_end",
    TesCreateInputReadHeader => "tes_create_input_read_header",
    TesAddIndirectUrbOffset => "tes_add_indirect_urb_offset",
    TesGetPrimitiveId => "tes_get_primitive_id",
    RtTraceRayLogical => "rt_trace_ray_logical",
    RndMode => "rnd_mode",
    FloatControlMode => "float_control_mode",
    BtdSpawnLogical => "btd_spawn_logical",
    BtdRetireLogical => "btd_retire_logical",
    ReadSrReg => "read_sr_reg",
    ReadArchReg => "read_arch_reg",
    LoadReg => "load_reg",
    RegUndef => "reg_undef",
    QuadSwap => "quad_swap",
    ReadFromLiveChannel => "read_from_live_channel",
    ReadFromChannel => "read_from_channel",
    Ballot => "ballot",
    VoteAny => "vote_any",
    VoteAll => "vote_all",
    VoteEqual => "vote_equal",
    Reduce => "reduce",
    InclusiveScan => "inclusive_scan",
    ExclusiveScan => "exclusive_scan",
    LoadSubgroupInvocation => "load_subgroup_invocation",
    FlagMaskSetup => "flag_mask_setup",
}

/// How an opcode takes part in structured control flow.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ControlFlow {
    None,
    If,
    Else,
    Endif,
    Do,
    While,
    Break,
    Continue,
    Halt,
    HaltTarget,
}

impl Opcode {
    /// Whether the opcode is an EU instruction (`brw_eu.c`'s opcode descriptions: the
    /// list up to `dim`), as Mesa's final code and its disassembly hold, rather than one
    /// of Mesa's virtual opcodes, which only its IR holds.
    pub fn is_hardware(self) -> bool {
        self <= Opcode::Dim
    }

    pub fn from_name(name: &str) -> Option<Opcode> {
        // A linear scan is fine at import rates (a few hundred opcodes, first-byte filtered);
        // a perfect hash can replace it if the benchmark ever says so.
        let first = name.as_bytes().first().copied();
        Opcode::ALL
            .iter()
            .copied()
            .find(|op| op.name().as_bytes().first().copied() == first && op.name() == name)
    }

    pub fn control_flow(self) -> ControlFlow {
        match self {
            Opcode::If => ControlFlow::If,
            Opcode::Else => ControlFlow::Else,
            Opcode::Endif => ControlFlow::Endif,
            Opcode::Do => ControlFlow::Do,
            Opcode::While => ControlFlow::While,
            Opcode::Break => ControlFlow::Break,
            Opcode::Continue => ControlFlow::Continue,
            Opcode::Halt => ControlFlow::Halt,
            Opcode::HaltTarget => ControlFlow::HaltTarget,
            _ => ControlFlow::None,
        }
    }

    /// The extended math functions, integer division included (Mesa `fs_inst::is_math`):
    /// what the math box computes, under its own operand rules.
    pub fn is_math(self) -> bool {
        use Opcode::*;
        matches!(
            self,
            Rcp | Rsq | Sqrt | Exp2 | Log2 | Sin | Cos | Pow | IntQuot | IntRem
        )
    }

    /// Opcodes that send a message to a shared function: their destination and payload
    /// sizes are set by the message, not by the execution size (Mesa:
    /// `fs_inst::is_send_from_grf`, `is_tex`, and the `*_logical` opcodes).
    pub fn is_message(self) -> bool {
        use Opcode::*;
        matches!(
            self,
            Send | Sendc
                | Sends
                | Sendsc
                | FbWrite
                | FbWriteLogical
                | RepFbWrite
                | FbRead
                | FbReadLogical
                | Tex
                | TexLogical
                | Txd
                | TxdLogical
                | Txf
                | TxfLogical
                | TxfLz
                | Txl
                | TxlLogical
                | TxlLz
                | Txs
                | TxsLogical
                | Txb
                | TxbLogical
                | TxfCms
                | TxfCmsLogical
                | TxfCmsW
                | TxfCmsWLogical
                | TxfCmsWGfx12Logical
                | TxfUms
                | TxfUmsLogical
                | TxfMcs
                | TxfMcsLogical
                | Lod
                | LodLogical
                | Tg4
                | Tg4Logical
                | Tg4Offset
                | Tg4OffsetLogical
                | Tg4BiasLogical
                | Tg4ExplicitLodLogical
                | Tg4ImplicitLodLogical
                | Tg4OffsetLodLogical
                | Tg4OffsetBiasLogical
                | SampleInfo
                | SampleInfoLogical
                | ImageSizeLogical
                | UntypedAtomic
                | UntypedAtomicLogical
                | UntypedAtomicFloatLogical
                | UntypedSurfaceRead
                | UntypedSurfaceReadLogical
                | UntypedSurfaceWrite
                | UntypedSurfaceWriteLogical
                | UnalignedOwordBlockReadLogical
                | OwordBlockWriteLogical
                | A64UntypedReadLogical
                | A64OwordBlockReadLogical
                | A64UnalignedOwordBlockReadLogical
                | A64OwordBlockWriteLogical
                | A64UntypedWriteLogical
                | A64ByteScatteredReadLogical
                | A64ByteScatteredWriteLogical
                | A64UntypedAtomicLogical
                | A64UntypedAtomicFloatLogical
                | A64UntypedAtomicInt16Logical
                | A64UntypedAtomicInt64Logical
                | A64UntypedAtomicFloat16Logical
                | A64UntypedAtomicFloat32Logical
                | A64UntypedAtomicFloat64Logical
                | TypedAtomicLogical
                | TypedSurfaceReadLogical
                | TypedSurfaceWriteLogical
                | MemoryFence
                | Interlock
                | ByteScatteredReadLogical
                | ByteScatteredWriteLogical
                | DwordScatteredReadLogical
                | DwordScatteredWriteLogical
                | MemoryLoadLogical
                | MemoryStoreLogical
                | MemoryAtomicLogical
                | Gfx4ScratchRead
                | Gfx4ScratchWrite
                | Gfx7ScratchRead
                | UrbWriteLogical
                | UrbReadLogical
                | GetBufferSize
                | UniformPullConst
                | UniformPullConstGfx7
                | VaryingPullConstGfx4
                | VaryingPullConstLogical
                | InterpSample
                | InterpSharedOffset
                | InterpPerSlotOffset
                | VsUrbWrite
                | PullConstantLoad
                | PullConstantLoadGfx7
                | GsUrbWrite
                | GsUrbWriteAllocate
                | GsThreadEnd
                | GsSvbWrite
                | FfSync
                | CsTerminate
                | Barrier
                | UrbRead
                | TcsUrbWrite
                | TcsReleaseInput
                | TcsThreadEnd
                | RtTraceRayLogical
                | BtdSpawnLogical
                | BtdRetireLogical
        )
    }

    /// Opcodes whose destination size is not `exec_size * stride * type size`: messages,
    /// payload builders and the opcodes Mesa sets `size_written` for by hand.
    pub fn has_free_size_written(self) -> bool {
        self.is_message() || matches!(self, Opcode::LoadPayload | Opcode::Undef)
    }

    /// The logic instructions, whose source modifiers mean something else from gen8 on
    /// ([`crate::target::Target::logic_negate_is_not`]; Mesa brw_fs_copy_propagation.cpp
    /// `is_logic_op`).
    pub fn is_logic(self) -> bool {
        matches!(self, Opcode::And | Opcode::Or | Opcode::Xor | Opcode::Not)
    }

    /// Number of sources of a plain ALU opcode, `None` where the opcode's source list is
    /// open-ended (virtual opcodes, messages, control flow) or a source is not one element
    /// per channel (`pln` reads its barycentrics as register pairs: a virtual opcode here).
    pub fn alu_arity(self) -> Option<usize> {
        use Opcode::*;
        Some(match self {
            Mov | Not | Frc | Rndu | Rndd | Rnde | Rndz | Lzd | Fbh | Fbl | Cbit | Bfrev
            | F32to16 | F16to32 | Movi | Dim | Rcp | Rsq | Sqrt | Exp2 | Log2 | Sin | Cos => 1,
            Sel | And | Or | Xor | Shr | Shl | Asr | Ror | Rol | Cmp | Cmpn | Add | Mul | Avg
            | Mac | Mach | Addc | Subb | Sad2 | Sada2 | Dp4 | Dph | Dp3 | Dp2 | Line | Pow
            | IntQuot | IntRem | Mulh | Bfi1 | Smov => 2,
            Mad | Lrp | Bfe | Bfi2 | Csel | Add3 | Madm | Dp4a => 3,
            _ => return None,
        })
    }
}

impl std::fmt::Display for Opcode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_parse_back() {
        for &op in Opcode::ALL {
            assert_eq!(Opcode::from_name(op.name()), Some(op), "{}", op.name());
        }
        assert_eq!(Opcode::from_name("frobnicate"), None);
    }
}
