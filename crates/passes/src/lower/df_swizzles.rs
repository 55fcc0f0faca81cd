//! DF swizzle lowering for Align16 (vec4) code, seed 000's plan: every double-precision
//! Align16 instruction whose logical 64-bit swizzles and writemask the hardware cannot
//! read in one instruction is split into pieces that it can, each writing a subset of
//! the destination's components with the original swizzles, and each piece that still
//! needs a region a compressed instruction cannot have is split into two SIMD4
//! instructions (the second one register on). It replaces Mesa's `scalarize_df`, which
//! knows only the one-instruction case and full scalarization.
//!
//! How: each DF source's swizzle has a splitting class (seed 000's table,
//! [`eubatch_ir::df_align16::CLASS_TABLE`], taken for the components the instruction
//! writes: [`eubatch_ir::df_align16::class_for`]); a class may be lowered by its own splitting
//! method or any after it in the chain `A+ -> A- = B -> C- -> D- -> E` (`C+ -> C-`,
//! `D+ -> D-`). Of the methods allowed for every source's class and enabled by the
//! [`Level`], the one giving the fewest instructions is taken (ties: the higher class).
//! The methods, as groups of components: A+ `xyzw`; B (and A-) `xw`, `yz`; C+ `i`, the
//! other three; C- and D- `i`, `j`, the remaining pair (`x`, `w`, `yz` or `y`, `z`, `xw`:
//! C-'s `i`, `i ^ 3` are one of these two); D+ `xz`, `yw`; E one component each. Each
//! group is intersected with the writemask (empty groups vanish).
//!
//! The hardware rules that limit it are the target's ([`eubatch_ir::df_align16`]): a
//! group is one instruction when its writemask is legal (not `xy` or `zw`) and every DF
//! source has a region for its components (`vstride` 4 or 0, an OWord offset, one 32-bit
//! swizzle pair per row position); gen7's decompression quirk gives compressed
//! instructions `vstride` 0 (the "vstride-0 trick"), gen8 does not, and then the group is
//! two SIMD4 instructions, as it is for a push constant read by a compressed gen7
//! instruction, for DF `sel` on gen7 and for everything on Ivybridge.
//! A predicated or flag-writing instruction is left whole or split into single
//! components only (Mesa's choice: its per-channel flags are not known for other
//! groups), a normal predicate becoming the component's replicate predicate (Mesa
//! `scalarize_predicate`). When a piece would overwrite what a later one reads (the
//! destination is one of the sources), the pieces write a temporary, copied into place
//! after (Mesa `lower_simd_width`'s `needs_temp`). Instructions it does not cover are
//! left as they are: the Align1 DF helpers (`pick_low_32bit`, ...), messages, and DF
//! sources in architecture registers or attributes (64-bit vertex attributes are another
//! extension; a geometry shader's interleaved attributes would need their own rule, Mesa
//! `get_lowered_simd_width`; no corpus shader reads one, and the simulator refuses them).
//!
//! The pass is linear in the shader: one walk of each block, a bounded number of method
//! checks per instruction, and one output list reused across blocks.

use eubatch_ir::df_align16::{self as rules, DfClass, DfFile};
use eubatch_ir::shader::{CondMod, Predicate};
use eubatch_ir::vgrf::VgrfLayout;
use eubatch_ir::{Backend, Block, Builder, Gen, Inst, Opcode, Operand, RegFile, Region, Shader};

use crate::analysis::changed::Changed;
use crate::manager::{Scope, ALL_STAGES};
use crate::PassCx;

/// vec4 code on gen7 (Ivybridge, Haswell) and gen8's rules.
pub const SCOPE: Scope = Scope {
    backends: &[Backend::Vec4],
    swizzles: true,
    targets: (Gen::Gen7, Gen::Gen8),
    stages: ALL_STAGES,
    assumes: "it lowers vec4 (Align16) DF code, which only gen7 and gen8 have",
};

/// Which splitting methods are enabled: the classes step by step (E only, then D-, C-,
/// B, A+), all of seed 000's (with C+ and D+), or Mesa 22.3's (one instruction where the
/// region is native, else one per component).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    E,
    DMinus,
    CMinus,
    B,
    APlus,
    All,
    Mesa,
}

impl Level {
    /// Every level, in the order of the closing note's table.
    pub const ALL: [Level; 7] = [
        Level::E,
        Level::DMinus,
        Level::CMinus,
        Level::B,
        Level::APlus,
        Level::All,
        Level::Mesa,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Level::E => "e",
            Level::DMinus => "d-",
            Level::CMinus => "c-",
            Level::B => "b",
            Level::APlus => "a+",
            Level::All => "all",
            Level::Mesa => "mesa",
        }
    }

    /// The pass that lowers with this level (`lower_df_swizzles_...`).
    pub fn pass_name(self) -> &'static str {
        match self {
            Level::E => "lower_df_swizzles_e",
            Level::DMinus => "lower_df_swizzles_dm",
            Level::CMinus => "lower_df_swizzles_cm",
            Level::B => "lower_df_swizzles_b",
            Level::APlus => "lower_df_swizzles_ap",
            Level::All => "lower_df_swizzles",
            Level::Mesa => "lower_df_swizzles_mesa",
        }
    }

    pub fn from_name(name: &str) -> Option<Level> {
        Level::ALL.into_iter().find(|l| l.name() == name)
    }
}

/// A splitting method: the groups of components it writes in separate instructions.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Method {
    Whole,
    XwYz,
    XzYw,
    CPlus(u8),
    ScalarsXw,
    ScalarsYz,
    Singles,
}

/// Methods in order of preference on equal cost.
const METHODS: [Method; 10] = [
    Method::Whole,
    Method::XwYz,
    Method::XzYw,
    Method::CPlus(0),
    Method::CPlus(1),
    Method::CPlus(2),
    Method::CPlus(3),
    Method::ScalarsXw,
    Method::ScalarsYz,
    Method::Singles,
];

impl Method {
    fn groups(self) -> [u8; 4] {
        match self {
            Method::Whole => [0xf, 0, 0, 0],
            Method::XwYz => [0b1001, 0b0110, 0, 0],
            Method::XzYw => [0b0101, 0b1010, 0, 0],
            Method::CPlus(i) => [1 << i, 0xf ^ (1 << i), 0, 0],
            Method::ScalarsXw => [0b0001, 0b1000, 0b0110, 0],
            Method::ScalarsYz => [0b0010, 0b0100, 0b1001, 0],
            Method::Singles => [1, 2, 4, 8],
        }
    }

    fn enabled(self, level: Level) -> bool {
        match self {
            Method::Singles => true,
            Method::ScalarsXw | Method::ScalarsYz => level >= Level::DMinus && level != Level::Mesa,
            Method::XwYz => matches!(level, Level::B | Level::APlus | Level::All),
            Method::Whole => matches!(level, Level::APlus | Level::All | Level::Mesa),
            Method::CPlus(_) | Method::XzYw => level == Level::All,
        }
    }

    /// Whether a swizzle of `class` may be lowered so (its class's method or one after
    /// it in the demotion chain).
    fn allowed_for(self, class: DfClass) -> bool {
        match self {
            Method::Singles => true,
            Method::ScalarsXw | Method::ScalarsYz => class != DfClass::E,
            Method::XwYz => matches!(class, DfClass::APlus | DfClass::AMinus | DfClass::B),
            Method::Whole => class == DfClass::APlus,
            Method::CPlus(i) => class == DfClass::CPlus(i),
            Method::XzYw => matches!(class, DfClass::DPlus(..)),
        }
    }
}

/// The class of an instruction: its worst DF source's for the components it writes
/// ([`rules::class_for`]); `None` without a DF source in a register.
pub fn instruction_class(shader: &Shader, inst: Inst) -> Option<DfClass> {
    let srcs = df_sources(shader, inst)?;
    let wm = writemask(&shader.insts.dst[inst]);
    srcs.iter()
        .flatten()
        .map(|&(s, _)| rules::class_for(s, wm))
        .min_by_key(|&c| rules::rank(c))
}

/// Whether `inst` is a DF Align16 instruction this pass handles.
pub fn is_df_align16(shader: &Shader, inst: Inst) -> bool {
    df_sources(shader, inst).is_some()
}

/// The DF sources of an instruction the pass handles: the target's
/// ([`rules::df_sources`]), which the hardware-form verifier checks with the same rules.
fn df_sources(shader: &Shader, inst: Inst) -> Option<[Option<(u8, DfFile)>; 3]> {
    rules::df_sources(shader, inst)
}

/// How an instruction is lowered: the method, and per group whether it is two SIMD4
/// instructions.
#[derive(Copy, Clone, Debug)]
struct Plan {
    method: Method,
    split: [bool; 4],
    cost: u32,
}

use rules::writemask;

/// The cheapest plan for `inst` at `level`, or `None` when it is out of reach.
fn plan(shader: &Shader, inst: Inst, level: Level, gen: Gen) -> Option<Plan> {
    let srcs = df_sources(shader, inst)?;
    let ctl = shader.insts.control[inst];
    let dst = shader.insts.dst[inst];
    let wm = writemask(&dst);
    let compressed = ctl.exec_size == 8;
    // Mesa get_lowered_simd_width: "Align16 8-wide double-precision SEL does not work well".
    let sel_df = shader.insts.opcode[inst] == Opcode::Sel && dst.ty.size() == 8 && gen < Gen::Gen8;
    let flags = ctl.predicate != Predicate::None || ctl.cmod != CondMod::None;
    let reads = |g: u8, compressed: bool| {
        srcs.iter()
            .flatten()
            .all(|&(s, file)| rules::source_region(s, g, compressed, gen, file).is_some())
    };
    let mut best: Option<Plan> = None;
    for m in METHODS {
        if !m.enabled(level)
            || (flags && !matches!(m, Method::Whole | Method::Singles))
            || (level != Level::Mesa
                && !srcs
                    .iter()
                    .flatten()
                    .all(|&(s, _)| m.allowed_for(rules::class_for(s, wm))))
        {
            continue;
        }
        // Mesa's native test is the region's, whatever the class.
        if level == Level::Mesa && m == Method::Whole && !reads(wm, compressed && !sel_df) {
            continue;
        }
        let mut p = Plan {
            method: m,
            split: [false; 4],
            cost: 0,
        };
        let mut ok = true;
        for (k, g) in m.groups().into_iter().enumerate() {
            let g = g & wm;
            if g == 0 {
                continue;
            }
            if !rules::writemask_legal(g) {
                ok = false;
                break;
            }
            if compressed && !sel_df && reads(g, true) {
                p.cost += 1;
            } else if reads(g, false) {
                p.cost += if compressed { 2 } else { 1 };
                p.split[k] = compressed;
            } else {
                ok = false;
                break;
            }
        }
        if ok && best.is_none_or(|b| p.cost < b.cost) {
            best = Some(p);
        }
    }
    best
}

/// `op` moved `piece` SIMD4 halves on: a register (one vertex's vec4) for the files that
/// hold one a vertex; push constants and immediates are the same for both.
fn piece_of(op: &Operand, piece: u32) -> Operand {
    let mut o = *op;
    if matches!(
        op.file,
        RegFile::Vgrf | RegFile::FixedGrf | RegFile::Mrf | RegFile::Attr
    ) {
        o.offset += piece * 4 * op.ty.size();
    }
    o
}

/// Lowers `inst` into `out` (the block's new instruction list); false when it is left as
/// it is (then the caller keeps it).
fn lower_inst(shader: &mut Shader, inst: Inst, level: Level, out: &mut Vec<Inst>) -> bool {
    let gen = shader.target;
    let Some(p) = plan(shader, inst, level, gen) else {
        return false;
    };
    let dst = shader.insts.dst[inst];
    let wm = writemask(&dst);
    let groups = p.method.groups().map(|g| g & wm);
    let pieces: u32 = groups
        .iter()
        .zip(p.split)
        .filter(|(g, _)| **g != 0)
        .map(|(_, s)| if s { 2 } else { 1 })
        .sum();
    let ctl = shader.insts.control[inst];
    let replicate = ctl.predicate == Predicate::Normal;
    if pieces == 1 && groups.contains(&wm) && !(replicate && wm.count_ones() == 1) {
        return false; // Already one legal instruction.
    }
    let op = shader.insts.opcode[inst];
    let size_written = shader.insts.size_written[inst];
    let mut srcs = [Operand::bad(eubatch_ir::Type::UD); 3];
    let n = shader.srcs(inst).len();
    srcs[..n].copy_from_slice(shader.srcs(inst));
    // A piece must not overwrite what a later one reads.
    let overlap = pieces > 1
        && dst.file == RegFile::Vgrf
        && srcs[..n]
            .iter()
            .any(|s| s.file == RegFile::Vgrf && s.nr == dst.nr);
    let target = if overlap {
        let nr = shader
            .vgrfs
            .push(VgrfLayout::flat(size_written.max(shader.reg_size())))
            .index() as u32;
        Operand {
            nr,
            offset: 0,
            ..dst
        }
    } else {
        dst
    };
    for (k, &g) in groups.iter().enumerate() {
        if g == 0 {
            continue;
        }
        let mut c = ctl;
        if replicate && g.count_ones() == 1 {
            c.predicate = match g {
                1 => Predicate::Align16ReplicateX,
                2 => Predicate::Align16ReplicateY,
                4 => Predicate::Align16ReplicateZ,
                _ => Predicate::Align16ReplicateW,
            };
        }
        let mut d = target;
        d.region.swizzle = (target.region.swizzle & !0xf) | g;
        // A single component reads one swizzle component: replicated, as Mesa writes it.
        let mut srcs = srcs;
        if g.count_ones() == 1 {
            let j = g.trailing_zeros();
            for s in srcs[..n]
                .iter_mut()
                .filter(|s| !matches!(s.file, RegFile::Imm | RegFile::Bad))
            {
                let c = (s.region.swizzle >> (2 * j)) & 3;
                s.region.swizzle = c * 0b01_01_01_01;
            }
        }
        if p.split[k] {
            for piece in 0..2u32 {
                let mut cp = c;
                cp.exec_size = 4;
                cp.group = ctl.group + 4 * piece as u8;
                let mut s = srcs;
                for x in &mut s[..n] {
                    *x = piece_of(x, piece);
                }
                out.push(Builder::with_control(cp).alu_sized(
                    shader,
                    op,
                    piece_of(&d, piece),
                    &s[..n],
                    size_written / 2,
                ));
            }
        } else {
            out.push(Builder::with_control(c).alu_sized(shader, op, d, &srcs[..n], size_written));
        }
    }
    if overlap {
        // The copy into place: the original writemask and predicate, lowered itself.
        let mut c = ctl;
        c.cmod = CondMod::None;
        c.set(eubatch_ir::Control::SATURATE, false);
        let mut src = target;
        src.region = Region::new(
            target.region.vstride,
            target.region.width,
            target.region.hstride,
        );
        src.region.swizzle = Region::XYZW;
        let mov =
            Builder::with_control(c).alu_sized(shader, Opcode::Mov, dst, &[src], size_written);
        if !lower_inst(shader, mov, level, out) {
            out.push(mov);
        }
    }
    true
}

/// Lowers every DF Align16 instruction of `shader` at `level`. Whether anything changed.
pub fn lower(shader: &mut Shader, level: Level) -> bool {
    if shader.backend != Backend::Vec4 {
        return false;
    }
    let mut progress = false;
    let mut new: Vec<Inst> = Vec::new();
    for b in 0..shader.layout.blocks.len() {
        let block = Block::from_usize(b);
        let old = std::mem::take(&mut shader.layout.blocks[block].insts);
        new.clear();
        new.reserve(old.len());
        for &inst in &old {
            if lower_inst(shader, inst, level, &mut new) {
                progress = true;
            } else {
                new.push(inst);
            }
        }
        // The old list's storage is the next block's output buffer.
        shader.layout.blocks[block].insts = std::mem::replace(&mut new, old);
    }
    progress
}

fn run_at(shader: &mut Shader, level: Level) -> Changed {
    Changed::when(lower(shader, level), Changed::EVERYTHING)
}

/// All of seed 000's methods (`lower_df_swizzles`).
pub fn run(shader: &mut Shader, _cx: &mut PassCx) -> Changed {
    run_at(shader, Level::All)
}

macro_rules! level_pass {
    ($name:ident, $level:ident, $doc:literal) => {
        #[doc = $doc]
        pub mod $name {
            pub use super::SCOPE;
            pub fn run(
                shader: &mut eubatch_ir::Shader,
                _cx: &mut crate::PassCx,
            ) -> crate::analysis::changed::Changed {
                super::run_at(shader, super::Level::$level)
            }
        }
    };
}

level_pass!(e, E, "Class E only: one instruction per component.");
level_pass!(dm, DMinus, "E and D- (and the C- it equals).");
level_pass!(cm, CMinus, "E, D- and C-.");
level_pass!(b, B, "E, D-, C- and B (A- lowered as B).");
level_pass!(ap, APlus, "E, D-, C-, B and A+.");
level_pass!(
    mesa,
    Mesa,
    "Mesa 22.3's `scalarize_df`: one instruction where native, else per component."
);
