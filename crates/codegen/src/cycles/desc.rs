//! Timing of one instruction: Mesa's `perf_desc` and the linear coefficients behind it
//! (`brw_ir_performance.cpp`, `calculate_desc` and `instruction_desc`). Every cycle figure
//! of the model lives in [`coefficients`], one row per Mesa cost class and generation,
//! copied from Mesa 23.0's `instruction_desc` (the corpora's 22.3.6 has the same table).

use eubatch_ir::Gen;

/// The asynchronous units of an EU thread (`intel_eu_unit`); `None` is `EU_UNIT_NULL`, for
/// instructions that only take front-end time.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Unit {
    Fpu,
    ExtendedMath,
    Sampler,
    PixelInterp,
    Urb,
    DataCache,
    RenderCache,
    ConstantCache,
    Gateway,
    Spawner,
    None,
}

impl Unit {
    /// Index among the back-end units (the front end has its own slot in the model).
    pub fn index(self) -> Option<usize> {
        match self {
            Unit::None => None,
            u => Some(u as usize),
        }
    }
    pub const COUNT: usize = Unit::None as usize;
}

/// Mesa's cost classes: instructions `instruction_desc` gives the same coefficients.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Class {
    /// `sel`, logic, shifts, `frc`, `rnd*`, bit ops, `mac`, `nop`, derivatives, ...
    Logic,
    /// `mov`, `cmp`, `add`, `mul` (on gen7 their latency depends on float execution).
    Arith,
    /// `bfe`, `bfi2`, `csel`.
    Bitfield,
    Mad,
    F32to16,
    /// `dp4`, `dph`, `dp3`, `dp2`.
    Dot,
    /// Unary extended math (`rcp`, `rsq`, `sqrt`, `exp2`, `log2`, `sin`, `cos`).
    Math,
    Pow,
    /// `int_quot`, `int_rem`.
    IntDiv,
    /// `do` (no code on gen6+).
    Do,
    /// `if`, `else`, `endif`, `while`, `break`, `cont`, `halt`.
    Jump,
    /// `FS_OPCODE_LINTERP` (`pln`).
    Linterp,
    Lrp,
    /// `FS_OPCODE_PACK_HALF_2x16_SPLIT`.
    PackHalf,
    MovIndirect,
    Broadcast,
    FindLiveChannel,
    /// `SHADER_OPCODE_RND_MODE`, `FLOAT_CONTROL_MODE`.
    RndMode,
    Shuffle,
    SelExec,
    QuadSwizzle,
    DdyFine,
    LoadLiveChannels,
    /// Sampler messages (texturing, vec4 pull constants).
    Sampler,
    /// URB messages.
    Urb,
    /// Render cache writes and reads.
    RenderCache,
    RenderCacheAtomic,
    /// Data cache messages (surface reads and writes).
    DataCache,
    DataCacheAtomic,
    /// `SHADER_OPCODE_MEMORY_FENCE`/`INTERLOCK` to the render cache.
    FenceRender,
    /// The same to the data cache or the URB.
    FenceData,
    /// Legacy scratch messages (`GFX4_SCRATCH_*`, `GFX7_SCRATCH_READ`).
    Scratch,
    /// `FS_OPCODE_UNIFORM_PULL_CONSTANT_LOAD_GFX7` (constant cache).
    ConstantCache,
    /// `FS_OPCODE_INTERPOLATE_AT_*`.
    PixelInterp,
    Barrier,
    CsTerminate,
    /// `undef`, `halt_target`, scheduling fences: no time.
    Free,
}

/// Mesa's `perf_desc`: the unit and its timings for one instruction.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PerfDesc {
    pub unit: Unit,
    /// Front-end cycles before the next instruction can issue.
    pub df: i32,
    /// Back-end cycles before the unit takes the next instruction.
    pub db: i32,
    /// Latency until the sources have been read.
    pub ls: i32,
    /// Latency until the destination is written.
    pub ld: i32,
    /// Latency of an accumulator destination.
    pub la: i32,
    /// Latency of a flag destination.
    pub lf: i32,
}

/// Sizes `calculate_desc` scales with (`instruction_info`), in registers.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Sizes {
    /// Destination (`sd`).
    pub dst: u32,
    /// Execution size times execution type size (`sx`).
    pub exec: u32,
    /// Largest source, or a send's whole payload (`ss`).
    pub src: u32,
    /// Bank-conflict penalty (`sc`: `sd` when the sources conflict, else 0).
    pub conflict: u32,
}

/// What besides the class the coefficients depend on: the execution type.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct ExecType {
    /// Size in bytes (after Mesa's 32x32 integer multiply promotion to 8).
    pub size: u8,
    /// Exactly `F` (gen7 `mov`/`add`/`mul`/`cmp`/`mad` latencies depend on it).
    pub is_f: bool,
}

/// Coefficients of `calculate_desc`, in Mesa's parameter order: `df = df_1 + df_sd·sd +
/// df_sc·sc`, `db = db_1 + db_sx·sx`, `ls = ls_1 + l_ss·ss`, `ld = ld_1 + l_ss·ss + l_sd·sd`,
/// `la = la_1`, `lf = lf_1`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Coefficients {
    pub unit: Unit,
    pub df_1: i32,
    pub df_sd: i32,
    pub df_sc: i32,
    pub db_1: i32,
    pub db_sx: i32,
    pub ls_1: i32,
    pub ld_1: i32,
    pub la_1: i32,
    pub lf_1: i32,
    pub l_ss: i32,
    pub l_sd: i32,
}

/// Generation groups `instruction_desc` distinguishes for gen7–9.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Ver {
    /// `ver >= 8`.
    Gen8Plus,
    /// `verx10 >= 75`.
    Hsw,
    /// `ver == 7`.
    Ivb,
}

/// Errors of the model: a class Mesa's table has no entry for on the generation
/// (`abort()` there).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoCost {
    pub class: Class,
    pub gen: Gen,
}

impl std::fmt::Display for NoCost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Mesa's model has no cost for {:?} on {:?}",
            self.class, self.gen
        )
    }
}

/// The coefficients Mesa uses for `class` on `gen` with execution type `tx`
/// (`instruction_desc`, brw_ir_performance.cpp, Mesa 22.3/23.0, rows for gen7–9; gen11+
/// rows are not transcribed).
#[rustfmt::skip]
pub fn coefficients(class: Class, gen: Gen, tx: ExecType) -> Result<Coefficients, NoCost> {
    use Class as C;
    use Unit::*;
    let ver = match gen {
        Gen::Gen8 | Gen::Gen9 => Ver::Gen8Plus,
        Gen::Gen75 => Ver::Hsw,
        Gen::Gen7 => Ver::Ivb,
        _ => return Err(NoCost { class, gen }),
    };
    let wide = tx.size > 4;
    let c = |unit, df_1, df_sd, df_sc, db_1, db_sx, ls_1, ld_1, la_1, lf_1, l_ss, l_sd| {
        Ok(Coefficients { unit, df_1, df_sd, df_sc, db_1, db_sx, ls_1, ld_1, la_1, lf_1, l_ss, l_sd })
    };
    use Ver::*;
    match (class, ver) {
        (C::Logic, Gen8Plus) if wide => c(Fpu, 0, 4, 0, 0, 4, 0, 12, 8, 16, 0, 0),
        (C::Logic, Gen8Plus) => c(Fpu, 0, 2, 0, 0, 2, 0, 8, 4, 12, 0, 0),
        (C::Logic, Hsw) => c(Fpu, 0, 2, 0, 0, 2, 0, 10, 6, 16, 0, 0),
        (C::Logic, Ivb) => c(Fpu, 0, 2, 0, 0, 2, 0, 12, 8, 18, 0, 0),

        (C::Arith, Gen8Plus) if wide => c(Fpu, 0, 4, 0, 0, 4, 0, 12, 8, 16, 0, 0),
        (C::Arith, Gen8Plus) => c(Fpu, 0, 2, 0, 0, 2, 0, 8, 4, 12, 0, 0),
        (C::Arith, Hsw) if tx.is_f => c(Fpu, 0, 2, 0, 0, 2, 0, 12, 8, 18, 0, 0),
        (C::Arith, Hsw) => c(Fpu, 0, 2, 0, 0, 2, 0, 10, 6, 16, 0, 0),
        (C::Arith, Ivb) if tx.is_f => c(Fpu, 0, 2, 0, 0, 2, 0, 14, 10, 20, 0, 0),
        (C::Arith, Ivb) => c(Fpu, 0, 2, 0, 0, 2, 0, 12, 8, 18, 0, 0),

        (C::Bitfield, Gen8Plus) => c(Fpu, 0, 2, 1, 0, 2, 0, 8, 4, 12, 0, 0),
        (C::Bitfield, Hsw) => c(Fpu, 0, 2, 1, 0, 2, 0, 10, 6, 16, 0, 0),
        (C::Bitfield, Ivb) => c(Fpu, 0, 2, 1, 0, 2, 0, 12, 8, 18, 0, 0),

        (C::Mad, Gen8Plus) if wide => c(Fpu, 0, 4, 1, 0, 4, 0, 12, 8, 16, 0, 0),
        (C::Mad, Gen8Plus) => c(Fpu, 0, 2, 1, 0, 2, 0, 8, 4, 12, 0, 0),
        (C::Mad, Hsw) if tx.is_f => c(Fpu, 0, 2, 1, 0, 2, 0, 12, 8, 18, 0, 0),
        (C::Mad, Hsw) => c(Fpu, 0, 2, 1, 0, 2, 0, 10, 6, 16, 0, 0),
        (C::Mad, Ivb) if tx.is_f => c(Fpu, 0, 2, 1, 0, 2, 0, 14, 10, 20, 0, 0),
        (C::Mad, Ivb) => c(Fpu, 0, 2, 1, 0, 2, 0, 12, 8, 18, 0, 0),

        (C::F32to16, Gen8Plus) => c(Fpu, 0, 4, 0, 0, 4, 0, 8, 4, 12, 0, 0),
        (C::F32to16, Hsw) => c(Fpu, 0, 4, 0, 0, 4, 0, 10, 6, 16, 0, 0),
        (C::F32to16, Ivb) => c(Fpu, 0, 4, 0, 0, 4, 0, 12, 8, 18, 0, 0),

        (C::Dot, Gen8Plus) => c(Fpu, 0, 2, 0, 0, 2, 0, 12, 8, 16, 0, 0),
        (C::Dot, Hsw) => c(Fpu, 0, 2, 0, 0, 2, 0, 10, 6, 16, 0, 0),
        (C::Dot, Ivb) => c(Fpu, 0, 2, 0, 0, 2, 0, 12, 8, 18, 0, 0),

        (C::Math, Gen8Plus) => c(ExtendedMath, -2, 4, 0, 0, 4, 0, 16, 0, 0, 0, 0),
        (C::Math, Hsw) => c(ExtendedMath, 0, 2, 0, 0, 2, 0, 12, 0, 0, 0, 0),
        (C::Math, Ivb) => c(ExtendedMath, 0, 2, 0, 0, 2, 0, 14, 0, 0, 0, 0),
        (C::Pow, Gen8Plus) => c(ExtendedMath, -2, 4, 0, 0, 8, 0, 24, 0, 0, 0, 0),
        (C::Pow, Hsw) => c(ExtendedMath, 0, 2, 0, 0, 4, 0, 20, 0, 0, 0, 0),
        (C::Pow, Ivb) => c(ExtendedMath, 0, 2, 0, 0, 4, 0, 22, 0, 0, 0, 0),
        (C::IntDiv, _) => c(ExtendedMath, 2, 0, 0, 26, 0, 0, 28, 0, 0, 0, 0),

        (C::Do, _) => c(None, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
        (C::Jump, Gen8Plus) => c(None, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
        (C::Jump, Hsw) => c(None, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
        (C::Jump, Ivb) => c(None, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),

        (C::Linterp, Gen8Plus) => c(Fpu, 0, 4, 0, 0, 4, 0, 12, 8, 16, 0, 0),
        (C::Linterp, Hsw) => c(Fpu, 0, 2, 0, 0, 2, 0, 10, 6, 16, 0, 0),
        (C::Linterp, Ivb) => c(Fpu, 0, 2, 0, 0, 2, 0, 12, 8, 18, 0, 0),

        (C::Lrp, Gen8Plus) => c(Fpu, 0, 4, 1, 0, 4, 0, 12, 8, 16, 0, 0),
        (C::Lrp, Hsw) => c(Fpu, 0, 2, 1, 0, 2, 0, 10, 6, 16, 0, 0),
        (C::Lrp, Ivb) => c(Fpu, 0, 2, 1, 0, 2, 0, 12, 8, 18, 0, 0),

        (C::PackHalf, Gen8Plus) => c(Fpu, 16, 6, 0, 0, 6, 0, 8, 4, 12, 0, 0),
        (C::PackHalf, Hsw) => c(Fpu, 20, 6, 0, 0, 6, 0, 10, 6, 16, 0, 0),
        (C::PackHalf, Ivb) => c(Fpu, 24, 6, 0, 0, 6, 0, 12, 8, 18, 0, 0),

        (C::MovIndirect, Gen8Plus) => c(Fpu, 34, 0, 0, 34, 0, 0, 8, 4, 12, 0, 0),
        (C::MovIndirect, Hsw) => c(Fpu, 34, 0, 0, 34, 0, 0, 10, 6, 16, 0, 0),
        (C::MovIndirect, Ivb) => c(Fpu, 34, 0, 0, 34, 0, 0, 12, 8, 18, 0, 0),

        (C::Broadcast, Gen8Plus) => c(Fpu, 18, 0, 0, 4, 0, 0, 8, 4, 12, 0, 0),
        (C::Broadcast, Hsw) => c(Fpu, 18, 0, 0, 4, 0, 0, 10, 6, 16, 0, 0),
        (C::Broadcast, Ivb) => c(Fpu, 20, 0, 0, 4, 0, 0, 12, 8, 18, 0, 0),

        (C::FindLiveChannel, Gen8Plus) => c(Fpu, 2, 0, 0, 2, 0, 0, 8, 4, 12, 0, 0),
        (C::FindLiveChannel, Hsw) => c(Fpu, 36, 0, 0, 6, 0, 0, 10, 6, 16, 0, 0),
        (C::FindLiveChannel, Ivb) => c(Fpu, 40, 0, 0, 6, 0, 0, 12, 8, 18, 0, 0),

        (C::RndMode, Gen8Plus) => c(Fpu, 20, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0),
        (C::RndMode, Hsw) => c(Fpu, 24, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0),
        (C::RndMode, Ivb) => c(Fpu, 28, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0),

        (C::Shuffle, Gen8Plus) => c(Fpu, 42, 0, 0, 42, 0, 0, 8, 4, 12, 0, 0),
        (C::Shuffle, Hsw) => c(Fpu, 0, 44, 0, 0, 44, 0, 10, 6, 16, 0, 0),
        (C::Shuffle, Ivb) => c(Fpu, 0, 46, 0, 0, 46, 0, 12, 8, 18, 0, 0),

        (C::SelExec, Gen8Plus) => c(Fpu, 8, 4, 0, 0, 4, 0, 8, 4, 12, 0, 0),
        (C::SelExec, Hsw) => c(Fpu, 10, 4, 0, 0, 4, 0, 10, 6, 16, 0, 0),
        (C::SelExec, Ivb) => c(Fpu, 12, 4, 0, 0, 4, 0, 12, 8, 18, 0, 0),

        (C::QuadSwizzle, Gen8Plus) => c(Fpu, 0, 8, 0, 0, 8, 0, 8, 4, 12, 0, 0),
        (C::QuadSwizzle, Hsw) => c(Fpu, 0, 8, 0, 0, 8, 0, 10, 6, 16, 0, 0),
        (C::QuadSwizzle, Ivb) => c(Fpu, 0, 8, 0, 0, 8, 0, 12, 8, 18, 0, 0),

        (C::DdyFine, Gen8Plus) => c(Fpu, 0, 2, 0, 0, 2, 0, 8, 4, 12, 0, 0),
        (C::DdyFine, Hsw) => c(Fpu, 0, 2, 0, 0, 2, 0, 12, 8, 18, 0, 0),
        (C::DdyFine, Ivb) => c(Fpu, 0, 2, 0, 0, 2, 0, 14, 10, 20, 0, 0),

        (C::LoadLiveChannels, Gen8Plus) => c(Fpu, 0, 2, 0, 0, 2, 0, 0, 0, 8, 0, 0),

        (C::Sampler, _) => c(Sampler, 2, 0, 0, 0, 16, 8, 750, 0, 0, 2, 0),
        (C::Urb, _) => c(Urb, 2, 0, 0, 0, 6, 32, 200, 0, 0, 0, 0),
        (C::RenderCache, _) => c(RenderCache, 2, 0, 0, 0, 450, 10, 300, 0, 0, 0, 0),
        (C::RenderCacheAtomic, _) => c(RenderCache, 2, 0, 0, 30, 450, 10, 100, 0, 0, 0, 400),
        (C::DataCache, _) => c(DataCache, 2, 0, 0, 0, 20, 10, 100, 0, 0, 0, 0),
        (C::DataCacheAtomic, _) => c(DataCache, 2, 0, 0, 30, 400, 10, 100, 0, 0, 0, 400),
        (C::FenceRender, _) => c(RenderCache, 2, 0, 0, 30, 0, 10, 300, 0, 0, 0, 0),
        (C::FenceData, _) => c(DataCache, 2, 0, 0, 30, 0, 10, 100, 0, 0, 0, 0),
        (C::Scratch, _) => c(DataCache, 2, 0, 0, 0, 8, 10, 100, 0, 0, 0, 0),
        (C::ConstantCache, _) => c(ConstantCache, 2, 0, 0, 0, 16, 10, 100, 0, 0, 0, 0),
        (C::PixelInterp, _) => c(PixelInterp, 2, 0, 0, 14, 0, 0, 90, 0, 0, 0, 0),
        (C::Barrier, _) => c(Gateway, 90, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
        (C::CsTerminate, _) => c(Spawner, 2, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0),
        (C::Free, _) => c(None, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),

        (C::LoadLiveChannels, _) => Err(NoCost { class, gen }),
    }
}

/// `calculate_desc`: the timings of one instruction from its coefficients and sizes.
pub fn perf_desc(k: &Coefficients, s: Sizes) -> PerfDesc {
    let (sd, sx, ss, sc) = (s.dst as i32, s.exec as i32, s.src as i32, s.conflict as i32);
    PerfDesc {
        unit: k.unit,
        df: k.df_1 + k.df_sd * sd + k.df_sc * sc,
        db: k.db_1 + k.db_sx * sx,
        ls: k.ls_1 + k.l_ss * ss,
        ld: k.ld_1 + k.l_ss * ss + k.l_sd * sd,
        la: k.la_1,
        lf: k.lf_1,
    }
}
