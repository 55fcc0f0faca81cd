//! The target rules of double-precision (DF) Align16 instructions (gen7 vec4 code), as
//! data and small functions, once: which logical 64-bit swizzles and writemasks a DF
//! instruction can take, with which hardware region, and the seed-000 splitting class of
//! each of the 256 swizzles. The DF swizzle lowering
//! (`eubatch_passes::lower::df_swizzles`) decides with these, and its property test proves
//! the regions in the simulator; the hardware-form verifier checks lowered vec4 code with
//! the same functions ([`broken_rule`]). Part of the target description
//! ([`crate::target`]), beside [`crate::region_rules`].
//!
//! In the vec4 IR a DF operand's swizzle and writemask name whole 64-bit components of a
//! dvec4 (32 bytes a vertex: half `h` of a SIMD4x2 operand is one register). The hardware
//! has no such thing (Iago Toral, "Bringing ARB_gpu_shader_fp64 to Intel GPUs", XDC 2016,
//! seed 002; Mesa brw_vec4.cpp `apply_logical_swizzle`, `is_supported_64bit_region`):
//! - **Rows of two DF.** An Align16 source is read in 16-byte rows (an OWord), two DF a
//!   row, with a region `<vstride;2,1>`: `vstride` 4 (32-bit units, one row on) or 0 (the
//!   same row again). Channel `j` of a half (0..3) is DF `j % 2` of row `j / 2`.
//! - **32-bit swizzles.** The swizzle is four 32-bit channels applied to every row: the DF
//!   at position `p` of a row reads the dword pair `swizzle[2p], swizzle[2p+1]`, so it can
//!   pick DF `q_p` (0 or 1) of the row, the same `q_p` in both rows.
//! - **A subregister offset of 16 bytes** starts at the second OWord (Z, W of a dvec4);
//!   with `vstride` 4 its second row would be past the dvec4, so Mesa pairs it with
//!   `vstride` 0 ("Any 64-bit source with an offset at 16B ... needs a vertical stride of 0").
//! - **The gen7 decompression quirk** (seed 000, Francisco Jerez, bug 92760 comment 82): the
//!   second half of a compressed (SIMD4x2, execution size 8) instruction reads one GRF after
//!   the first whatever the vertical stride, so `vstride` 0 still reads each vertex's own
//!   dvec4. Gen8 follows the region: `vstride` 0 reads the first half's register again, and
//!   an instruction that needs it must be split into two SIMD4 instructions, the second one
//!   GRF on (SIMD-width lowering).
//! - **Push constants** are read with `vstride` 0 (Mesa `convert_to_hw_regs`: `<0,4,1>`),
//!   the same for both vertices: on gen7 the quirk would move the second half to the next
//!   register, so a compressed instruction cannot read one (Mesa `get_lowered_simd_width`,
//!   HSW PRM "Region Alignment Rules for Direct Register Addressing": "When destination
//!   spans two registers, the source MUST span two registers").
//! - **Writemasks** are per DF component, except that `XY` and `ZW` are 32-bit masks to the
//!   hardware, with no DF meaning: they are never used (Mesa `scalarize_df`).
//! - **Ivybridge** (gen7.0) runs no compressed Align16 DF instruction at all: at most 4 DF
//!   per instruction (Mesa `get_lowered_simd_width`).
//! - **DF `sel`** of execution size 8 "does not work well" on gen7 ("verified
//!   empirically", Mesa `get_lowered_simd_width`): split to SIMD4.
//!
//! Together: a source can be read in one instruction for the channels `J` it writes when
//! some OWord offset `o` (0 or 1), vertical stride and `q0, q1` give, for every `j` in
//! `J`, `swizzle[j] == 2o + (vstride 4 ? 2 * (j / 2) : 0) + q_(j % 2)`.
//!
//! # The splitting classes (seed 000)
//! With `v` for a component of the first OWord (X, Y) and `^` for the second (Z, W), the
//! first two swizzle components choose the row and the last two the column:
//!
//! ```text
//!        vv   v^   ^v   ^^
//!   vv   A    B    B    A
//!   v^   Cy   Dyz  B    B
//!   ^v   Cx   B    Dxw  B
//!   ^^   E    Cz   Cw   A
//! ```
//! Two components "pair up" when they are equal modulo 2. A+ (12 swizzles): X pairs with Z
//! and Y with W: one instruction on gen7. A- (36) and B (96): X and W, then Y and Z (the
//! XW+YZ split). Ci+ (32): component `i` alone, then the other three (the lone one of
//! them, `i ^ 1`, pairs with `i ^ 3`). Ci- (32): `i`, `i ^ 3`, then the remaining pair.
//! Dij+ (8): XZ+YW. Dij- (24): `i`, `j`, then the remaining pair. E (16): one instruction
//! per component. A class can be lowered as any class after it in the chain
//! `A+ -> A- = B -> C- -> D- -> E` (and `C+ -> C-`, `D+ -> D-`).

use crate::entities::Inst;
use crate::operand::{Operand, RegFile};
use crate::shader::Shader;
use crate::target::Gen;
use crate::Opcode;

/// Logical component `j` (0..3) of a 64-bit swizzle.
pub const fn component(swizzle: u8, j: u32) -> u8 {
    (swizzle >> (2 * j)) & 3
}

/// A splitting class of seed 000. Components are numbered X=0..W=3.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum DfClass {
    APlus,
    AMinus,
    B,
    /// `Ci+`: component `i` alone, then the other three.
    CPlus(u8),
    /// `Ci-`: component `i`, component `i ^ 3`, then the remaining pair.
    CMinus(u8),
    /// `Dij+`: XZ then YW.
    DPlus(u8, u8),
    /// `Dij-`: components `i` and `j` alone, then the remaining pair.
    DMinus(u8, u8),
    E,
}

impl DfClass {
    /// The class's name as the seed writes it (`A+`, `Cy-`, `Dxw+`, ...).
    pub fn name(self) -> String {
        const C: [char; 4] = ['x', 'y', 'z', 'w'];
        match self {
            DfClass::APlus => "A+".into(),
            DfClass::AMinus => "A-".into(),
            DfClass::B => "B".into(),
            DfClass::CPlus(i) => format!("C{}+", C[i as usize]),
            DfClass::CMinus(i) => format!("C{}-", C[i as usize]),
            DfClass::DPlus(i, j) => format!("D{}{}+", C[i as usize], C[j as usize]),
            DfClass::DMinus(i, j) => format!("D{}{}-", C[i as usize], C[j as usize]),
            DfClass::E => "E".into(),
        }
    }

    /// The class's letter group: `A+`, `A-`, `B`, `C+`, `C-`, `D+`, `D-`, `E`.
    pub fn group(self) -> &'static str {
        match self {
            DfClass::APlus => "A+",
            DfClass::AMinus => "A-",
            DfClass::B => "B",
            DfClass::CPlus(_) => "C+",
            DfClass::CMinus(_) => "C-",
            DfClass::DPlus(..) => "D+",
            DfClass::DMinus(..) => "D-",
            DfClass::E => "E",
        }
    }
}

/// Whether components `a` and `b` of `swizzle` pair up (are equal modulo 2).
const fn pairs(swizzle: u8, a: u32, b: u32) -> bool {
    component(swizzle, a) & 1 == component(swizzle, b) & 1
}

/// The class of a 64-bit swizzle (seed 000's table).
pub const fn classify(swizzle: u8) -> DfClass {
    let row = (component(swizzle, 0) >> 1) * 2 + (component(swizzle, 1) >> 1);
    let col = (component(swizzle, 2) >> 1) * 2 + (component(swizzle, 3) >> 1);
    let straight = pairs(swizzle, 0, 2) && pairs(swizzle, 1, 3);
    match (row, col) {
        (0, 0) | (0, 3) | (3, 3) if straight => DfClass::APlus,
        (0, 0) | (0, 3) | (3, 3) => DfClass::AMinus,
        (0, 1) | (0, 2) | (1, 2) | (1, 3) | (2, 1) | (2, 3) => DfClass::B,
        // Ci: the lone component of the dvec3 is i ^ 1; it pairs with i ^ 3.
        (1, 0) => c_class(swizzle, 1),
        (2, 0) => c_class(swizzle, 0),
        (3, 1) => c_class(swizzle, 2),
        (3, 2) => c_class(swizzle, 3),
        (1, 1) if straight => DfClass::DPlus(1, 2),
        (1, 1) => DfClass::DMinus(1, 2),
        (2, 2) if straight => DfClass::DPlus(0, 3),
        (2, 2) => DfClass::DMinus(0, 3),
        _ => DfClass::E,
    }
}

const fn c_class(swizzle: u8, i: u8) -> DfClass {
    if pairs(swizzle, (i ^ 1) as u32, (i ^ 3) as u32) {
        DfClass::CPlus(i)
    } else {
        DfClass::CMinus(i)
    }
}

/// The class of every swizzle, by swizzle (the table as data).
pub const CLASS_TABLE: [DfClass; 256] = {
    let mut t = [DfClass::E; 256];
    let mut s = 0;
    while s < 256 {
        t[s] = classify(s as u8);
        s += 1;
    }
    t
};

/// How good a class is for lowering: the number of its place in the chain, E lowest.
pub const fn rank(class: DfClass) -> u8 {
    match class {
        DfClass::E => 0,
        DfClass::DMinus(..) => 1,
        DfClass::DPlus(..) => 2,
        DfClass::CMinus(_) => 3,
        DfClass::CPlus(_) => 4,
        DfClass::B => 5,
        DfClass::AMinus => 6,
        DfClass::APlus => 7,
    }
}

/// The class of a swizzle for an instruction that writes only the components of
/// `written` (bits X..W): the best class of any swizzle equal to it on those components
/// (the others are read by no channel; Mesa's printer pads them, `.x` reading `.wxxx`).
pub fn class_for(swizzle: u8, written: u8) -> DfClass {
    let mut free = [0u32; 4];
    let mut n = 0;
    for j in (0..4).filter(|j| written & (1 << j) == 0) {
        free[n] = j;
        n += 1;
    }
    let free = &free[..n];
    let fixed = (0..4)
        .filter(|j| written & (1 << j) != 0)
        .fold(0u8, |acc, j| acc | (swizzle & (3 << (2 * j))));
    let mut best = CLASS_TABLE[swizzle as usize];
    for fill in 0..(1u32 << (2 * free.len())) {
        let mut s = fixed;
        for (k, &j) in free.iter().enumerate() {
            s |= (((fill >> (2 * k)) & 3) as u8) << (2 * j);
        }
        let c = CLASS_TABLE[s as usize];
        if rank(c) > rank(best) {
            best = c;
        }
    }
    best
}

/// Whether a DF destination may take writemask `mask` (bits X..W): not empty, not the
/// 32-bit-only `XY` and `ZW` (Mesa brw_vec4.cpp `scalarize_df`; XDC 2016 slides).
pub const fn writemask_legal(mask: u8) -> bool {
    let m = mask & 0xf;
    m != 0 && m != 0b0011 && m != 0b1100
}

/// Where a DF source lives, as far as its hardware region goes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DfFile {
    /// A general register (VGRF, fixed GRF, MRF, attribute): a dvec4 per vertex, one
    /// register each.
    Grf,
    /// A push constant: one dvec4 for both vertices, read with `vstride` 0.
    Uniform,
}

/// The hardware region of a DF Align16 source: `<vstride;2,1>` from OWord `oword` (0 or
/// 1: a subregister offset of 16 bytes), row position `p` reading DF `pair[p]` of each row.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct DfRegion {
    pub oword: u8,
    /// 4 (the next row) or 0 (the same row), in 32-bit elements as the encoding has it.
    pub vstride: u8,
    pub pair: [u8; 2],
}

impl DfRegion {
    /// The 32-bit hardware swizzle (`BRW_SWIZZLE4(2q0, 2q0+1, 2q1, 2q1+1)`).
    pub const fn hw_swizzle(self) -> u8 {
        let a = self.pair[0] * 2;
        let b = self.pair[1] * 2;
        a | (a + 1) << 2 | b << 4 | (b + 1) << 6
    }

    /// The logical component channel `j` (0..3) of a half reads.
    pub const fn reads(self, j: u32) -> u8 {
        let row = if self.vstride == 4 {
            2 * (j / 2) as u8
        } else {
            0
        };
        2 * self.oword + row + self.pair[(j % 2) as usize]
    }
}

/// Whether DF instructions may be compressed (SIMD4x2, execution size 8) on `gen`.
pub const fn df_compression(gen: Gen) -> bool {
    !matches!(gen, Gen::Gen7)
}

/// The region through which a DF source of swizzle `swizzle` gives the channels of
/// `channels` (bits X..W) what the logical swizzle says, in an instruction of execution
/// size 8 (`compressed`) or 4, on `gen`; `None` when there is none (the instruction must be
/// split). The regions tried, in order: `vstride` 4 from the first OWord, `vstride` 0 from
/// the first, `vstride` 0 from the second.
pub fn source_region(
    swizzle: u8,
    channels: u8,
    compressed: bool,
    gen: Gen,
    file: DfFile,
) -> Option<DfRegion> {
    if compressed && !df_compression(gen) {
        return None;
    }
    let gen7 = gen < Gen::Gen8;
    'try_region: for (oword, vstride) in [(0u8, 4u8), (0, 0), (1, 0)] {
        match file {
            DfFile::Grf if vstride == 0 && compressed && !gen7 => continue,
            DfFile::Uniform if vstride != 0 || (compressed && gen7) => continue,
            _ => {}
        }
        let mut pair = [None::<u8>; 2];
        for j in 0..4u32 {
            if channels & (1 << j) == 0 {
                continue;
            }
            let want = component(swizzle, j);
            let base = 2 * oword + if vstride == 4 { 2 * (j / 2) as u8 } else { 0 };
            let Some(q) = want.checked_sub(base).filter(|&q| q < 2) else {
                continue 'try_region;
            };
            match pair[(j % 2) as usize] {
                Some(p) if p != q => continue 'try_region,
                _ => pair[(j % 2) as usize] = Some(q),
            }
        }
        return Some(DfRegion {
            oword,
            vstride,
            pair: [pair[0].unwrap_or(0), pair[1].unwrap_or(1)],
        });
    }
    None
}

/// The DF sources of a DF Align16 ALU instruction (a 64-bit destination or source, in a
/// register or push constant; execution size 4 or 8): (swizzle, file) per source slot;
/// `None` for any other instruction, and for one whose DF operands these rules do not
/// cover (the Align1 DF helpers, messages, attributes and architecture registers).
pub fn df_sources(shader: &Shader, inst: Inst) -> Option<[Option<(u8, DfFile)>; 3]> {
    let op = shader.insts.opcode[inst];
    if op.alu_arity().is_none() && op != Opcode::MovForScratch {
        return None;
    }
    let exec = shader.insts.control[inst].exec_size;
    if exec != 4 && exec != 8 {
        return None;
    }
    let dst = shader.insts.dst[inst];
    let srcs = shader.srcs(inst);
    if srcs.len() > 3 {
        return None;
    }
    let mut df = dst.ty.size() == 8 && !dst.is_bad();
    let mut out = [None; 3];
    for (k, s) in srcs.iter().enumerate() {
        if matches!(s.file, RegFile::Imm | RegFile::Bad) || s.ty.size() != 8 {
            continue;
        }
        df = true;
        out[k] = Some((
            s.region.swizzle,
            match s.file {
                RegFile::Uniform => DfFile::Uniform,
                RegFile::Vgrf | RegFile::FixedGrf | RegFile::Mrf => DfFile::Grf,
                _ => return None,
            },
        ));
    }
    if !df {
        return None;
    }
    if !matches!(
        dst.file,
        RegFile::Vgrf | RegFile::Mrf | RegFile::FixedGrf | RegFile::Arf | RegFile::Bad
    ) {
        return None;
    }
    Some(out)
}

/// A destination's writemask, bits X..W (all components for a null destination).
pub fn writemask(dst: &Operand) -> u8 {
    match dst.region.swizzle & 0xf {
        0 => 0xf,
        m => m,
    }
}

/// The first of these rules a DF Align16 instruction of vec4 code breaks as it is (what
/// the hardware-form verifier reports after lowering): a 32-bit-only writemask (`XY`,
/// `ZW`), a DF `sel` of execution size 8 on gen7, or a DF source whose logical swizzle no
/// region gives for the components written at the instruction's execution size
/// ([`source_region`]: compressed DF on Ivybridge, a push constant in a compressed gen7
/// instruction, a swizzle that must be split, gen8's `vstride` 0 in a compressed one).
pub fn broken_rule(shader: &Shader, inst: Inst) -> Option<String> {
    let srcs = df_sources(shader, inst)?;
    let dst = shader.insts.dst[inst];
    let wm = writemask(&dst);
    let gen = shader.target;
    if dst.ty.size() == 8 && !dst.is_null() && !dst.is_bad() && !writemask_legal(wm) {
        return Some(format!(
            "writemask {} of a DF destination is a 32-bit mask to the hardware (Mesa scalarize_df)",
            mask_name(wm)
        ));
    }
    let compressed = shader.insts.control[inst].exec_size == 8;
    if compressed
        && shader.insts.opcode[inst] == Opcode::Sel
        && dst.ty.size() == 8
        && gen < Gen::Gen8
    {
        return Some(
            "a DF `sel` of execution size 8 on gen7, which \"does not work well\" (Mesa get_lowered_simd_width)"
                .into(),
        );
    }
    for (k, (swizzle, file)) in srcs
        .iter()
        .enumerate()
        .filter_map(|(k, s)| Some((k, (*s)?)))
    {
        if source_region(swizzle, wm, compressed, gen, file).is_none() {
            return Some(format!(
                "source {k}: no {} region reads DF swizzle .{} for writemask .{} at execution size {} (df_align16::source_region; Mesa is_supported_64bit_region)",
                if file == DfFile::Uniform { "push-constant" } else { "register" },
                (0..4).map(|j| b"xyzw"[component(swizzle, j) as usize] as char).collect::<String>(),
                mask_name(wm),
                if compressed { 8 } else { 4 },
            ));
        }
    }
    None
}

fn mask_name(mask: u8) -> String {
    (0..4)
        .filter(|j| mask & (1 << j) != 0)
        .map(|j| b"xyzw"[j] as char)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(f: impl Fn(DfClass) -> bool) -> usize {
        CLASS_TABLE.iter().filter(|&&c| f(c)).count()
    }

    /// Seed 000's counts: A+ 12, A- 36, B 96, C+ 32, C- 32, D+ 8, D- 24, E 16.
    #[test]
    fn class_sizes_are_the_seeds() {
        let sizes: Vec<(&str, usize)> = ["A+", "A-", "B", "C+", "C-", "D+", "D-", "E"]
            .iter()
            .map(|g| (*g, count(|c| c.group() == *g)))
            .collect();
        assert_eq!(
            sizes,
            vec![
                ("A+", 12),
                ("A-", 36),
                ("B", 96),
                ("C+", 32),
                ("C-", 32),
                ("D+", 8),
                ("D-", 24),
                ("E", 16)
            ]
        );
        // The seed's example: XZYX is v^vv, class Cy.
        let xzyx = 2 << 2 | 1 << 4; // x = 0
        assert_eq!(CLASS_TABLE[xzyx].name(), "Cy-");
    }

    /// A+ is exactly what one compressed gen7 instruction reads (Mesa's 4 supported
    /// swizzles and its 8 gen7 ones); on gen8 only the 4 with `vstride` 4.
    #[test]
    fn a_plus_is_native_on_gen7() {
        for s in 0..=255u8 {
            let native = source_region(s, 0xf, true, Gen::Gen75, DfFile::Grf).is_some();
            assert_eq!(native, CLASS_TABLE[s as usize] == DfClass::APlus, "{s:#x}");
            let gen8 = source_region(s, 0xf, true, Gen::Gen8, DfFile::Grf).is_some();
            let vstride4 = [0b11_10_01_00u8, 0b10_10_00_00, 0b11_11_01_01, 0b10_11_00_01];
            assert_eq!(gen8, vstride4.contains(&s), "{s:#x}");
        }
    }

    /// Every region found reads what the swizzle says for the channels asked, and a
    /// single channel always has one.
    /// A component no channel reads does not count: `.wxxx` (Cx+) written `.x` is A+ (it
    /// completes to `.wzwz`); with every component written the class is the table's.
    #[test]
    fn class_for_ignores_unwritten_components() {
        let wxxx = 3; // .w, then x = 0
        assert_eq!(CLASS_TABLE[wxxx as usize].group(), "C+");
        assert_eq!(class_for(wxxx, 0b0001), DfClass::APlus);
        for s in 0..=255u8 {
            assert_eq!(class_for(s, 0xf), CLASS_TABLE[s as usize]);
        }
    }

    #[test]
    fn regions_read_the_swizzle() {
        for s in 0..=255u8 {
            for ch in 1..16u8 {
                for (compressed, gen) in [(true, Gen::Gen75), (false, Gen::Gen8)] {
                    if let Some(r) = source_region(s, ch, compressed, gen, DfFile::Grf) {
                        for j in (0..4).filter(|j| ch & (1 << j) != 0) {
                            assert_eq!(r.reads(j), component(s, j));
                        }
                    } else {
                        assert!(ch.count_ones() > 1, "{s:#x} {ch:#x}");
                    }
                }
            }
        }
        assert!(!writemask_legal(0b0011) && !writemask_legal(0b1100));
        assert!(writemask_legal(0b1001) && writemask_legal(0b0111));
    }
}
