//! The target description: every hardware fact a pass or the verifier needs, once, with
//! where it comes from. Later issues add the lowering rule tables here.

/// A GPU generation, as Mesa's `intel_device_info::verx10` groups them.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Gen {
    /// Ivy Bridge, Bay Trail.
    Gen7,
    /// Haswell.
    Gen75,
    /// Broadwell, Cherryview.
    Gen8,
    /// Skylake, Broxton, Kaby Lake, Coffee Lake, ...
    Gen9,
    /// Ice Lake, Elkhart Lake.
    Gen11,
    /// Tiger Lake and later Xe.
    Gen12,
}

/// Names accepted on the command line and in eubatch's shader header; the first name of
/// each generation is the one eubatch prints. Device names follow Mesa's
/// `src/intel/dev/intel_device_info.c`.
const NAMES: [(&str, Gen); 22] = [
    ("ivb", Gen::Gen7),
    ("gen7", Gen::Gen7),
    ("byt", Gen::Gen7),
    ("hsw", Gen::Gen75),
    ("gen7.5", Gen::Gen75),
    ("gen75", Gen::Gen75),
    ("bdw", Gen::Gen8),
    ("gen8", Gen::Gen8),
    ("chv", Gen::Gen8),
    ("skl", Gen::Gen9),
    ("gen9", Gen::Gen9),
    ("bxt", Gen::Gen9),
    ("kbl", Gen::Gen9),
    ("glk", Gen::Gen9),
    ("cfl", Gen::Gen9),
    ("icl", Gen::Gen11),
    ("gen11", Gen::Gen11),
    ("ehl", Gen::Gen11),
    ("tgl", Gen::Gen12),
    ("gen12", Gen::Gen12),
    ("rkl", Gen::Gen12),
    ("adl", Gen::Gen12),
];

impl Gen {
    pub fn from_name(name: &str) -> Option<Gen> {
        let lower = name.to_ascii_lowercase();
        NAMES.iter().find(|(n, _)| *n == lower).map(|&(_, g)| g)
    }

    pub fn name(self) -> &'static str {
        NAMES
            .iter()
            .find(|(_, g)| *g == self)
            .map(|(n, _)| *n)
            .unwrap()
    }

    pub fn all_names() -> impl Iterator<Item = &'static str> {
        NAMES.iter().map(|(n, _)| *n)
    }

    /// Mesa's `verx10`.
    pub fn verx10(self) -> u32 {
        match self {
            Gen::Gen7 => 70,
            Gen::Gen75 => 75,
            Gen::Gen8 => 80,
            Gen::Gen9 => 90,
            Gen::Gen11 => 110,
            Gen::Gen12 => 120,
        }
    }

    pub fn target(self) -> Target {
        Target::new(self)
    }
}

impl std::fmt::Display for Gen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Hardware facts for one generation. The rules that limit execution width per opcode,
/// type and generation are in [`crate::width_rules`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Target {
    pub gen: Gen,
    /// General registers per thread: 128 on every generation here (PRM Vol. 7, "GRF
    /// Registers"; Mesa `BRW_MAX_GRF`).
    pub grf_count: u32,
    /// Bytes per register (`REG_SIZE`): 32 before Xe-HPC.
    pub reg_size: u32,
    /// Flag subregisters (16 bits each): f0.0 and f0.1 on gen7, f0.0..f1.1 from gen7.5 on
    /// (Mesa `brw_fs.cpp` treats gen7 as having `f0` only; PRM Vol. 7 "Flag Register").
    pub flag_subregs: u32,
    /// Message registers before they were removed on gen7 (vec4 and gfx6 code use them; Mesa
    /// `BRW_MAX_MRF(ver)` is 16 on gen7+ where they are emulated with GRFs 112-127).
    pub mrf_count: u32,
    /// Widest execution size an instruction may have: 32 (PRM Vol. 7, "Execution Size";
    /// wider than 16 only for some instructions, which lowering handles).
    pub max_exec_size: u32,
    /// Half-float arithmetic: gen8+ (PRM Vol. 7, "Native 16-bit types"; Mesa
    /// `devinfo->ver >= 8` checks in `brw_fs_nir.cpp`).
    pub has_hf: bool,
    /// Native 64-bit integer types Q/UQ: gen8+ (Mesa `devinfo->has_64bit_int`).
    pub has_64bit_int: bool,
    /// Double-precision float: every generation here (gen7+, Mesa `has_64bit_float`).
    pub has_64bit_float: bool,
    /// Align16 access mode: until gen10 (removed on gen11; Mesa `brw_eu_validate.c`).
    pub has_align16: bool,
    /// Split sends (`sends`: a message payload in two register runs, `mlen` + `ex_mlen`):
    /// gen9+ (PRM Vol. 2a "SENDS"; Mesa `brw_fs.cpp` `opt_split_sends` returns early
    /// before gen9).
    pub has_split_send: bool,
    /// A 32-bit integer multiply with a 32-bit result in one instruction: gen8+ (Mesa
    /// `devinfo->has_integer_dword_mul`, false on gen7 and gen7.5, whose pre-RA dumps show
    /// the 32x16-bit split of brw_fs.cpp `lower_mul_dword_inst`; Cherryview and Broxton
    /// lack it too, which a per-generation target cannot tell apart).
    pub has_integer_dword_mul: bool,
    /// Sampler indices above 15, or not known until run time, through the message header:
    /// the descriptor's sampler field has 4 bits, and from Haswell on the header's Sampler
    /// State Pointer (dword 3) can be moved on by 16 samplers at a time (Mesa
    /// brw_lower_logical_sends.cpp `is_high_sampler`: `verx10 >= 75`).
    pub high_sampler_via_header: bool,
    /// Varying (per-channel) pull-constant loads go through the sampler, as a headerless
    /// `ld` of the buffer surface: gen7 to gen11 (Mesa brw_compiler.c
    /// `indirect_ubos_use_sampler = devinfo->ver < 12`, used by
    /// brw_lower_logical_sends.cpp `lower_varying_pull_constant_logical_send`; gen12 reads
    /// them through the data port).
    pub varying_pull_via_sampler: bool,
    /// Two-source math (`pow`, integer quotient and remainder) takes an immediate second
    /// source from gen8 (Mesa brw_fs_combine_constants.cpp `must_promote_imm`: such math
    /// must promote its immediate only before gen8).
    pub math_takes_immediate: bool,
    /// 64-bit immediates (DF, Q, UQ): gen8+. Before, a 64-bit constant is built with
    /// Haswell's `dim` (DF only) or two 32-bit moves (PRM Vol. 2a "Immediate"; Mesa
    /// brw_fs_nir.cpp `setup_imm_df`: "gfx7 does not support DF immediates").
    pub has_64bit_immediates: bool,
    /// Three-source instructions (`mad`, `lrp`, `bfe`, `bfi2`, `csel`) take an immediate:
    /// gen10+ only (PRM Vol. 2a "3-Src Instruction": all operands are registers before
    /// Cannonlake; Mesa brw_fs_combine_constants.cpp `must_promote_imm`, brw_eu_validate.c).
    pub three_src_takes_immediate: bool,
    /// The negate source modifier of a logic instruction ([`crate::Opcode::is_logic`]) is
    /// a bitwise not from gen8 on, an arithmetic negation before (PRM Vol. 2a "Source
    /// Modifiers"; Mesa brw_fs_nir.cpp `load_helper_invocation`: "The negate
    /// source-modifier bit of logical instructions on Gfx8+ performs 1's complement
    /// negation", and brw_fs_copy_propagation.cpp, which propagates a negation or an
    /// absolute value into a logic instruction only before gen8).
    pub logic_negate_is_not: bool,
}

impl Target {
    /// The payload of a `send` that ends the thread (EOT) must lie in g112-g127 (PRM Vol.
    /// 2a "SEND": "the message payload of an EOT message must be in the GRF range
    /// r112-r127"; Mesa brw_fs_reg_allocate.cpp pins it there, and
    /// brw_fs_copy_propagation.cpp `try_copy_propagate` never propagates a fixed register
    /// into an EOT send for that reason). Before allocation, such a payload is a VGRF or a
    /// fixed register from here on.
    pub const EOT_PAYLOAD_FIRST_GRF: u32 = 112;

    /// A two-source instruction takes an immediate as its second source only (PRM Vol. 2a
    /// "Instruction Operands": "src0 ... cannot be an immediate" when src1 is present; Mesa
    /// brw_fs_copy_propagation.cpp `try_constant_propagate` commutes a constant into src1
    /// or leaves it in a register).
    pub const IMMEDIATE_ONLY_IN_LAST_OF_TWO: bool = true;

    /// A 64-bit immediate is the only source of its instruction: its value fills bits
    /// 127:64 of the word, where a second source (and the first's register fields) would
    /// be (PRM Vol. 2a "Immediate"; Mesa brw_fs_copy_propagation.cpp
    /// `try_constant_propagate`: "64-bit types can't be used except for one-source
    /// instructions").
    pub const WIDE_IMMEDIATE_ONLY_ALONE: bool = true;

    pub fn new(gen: Gen) -> Target {
        Target {
            gen,
            grf_count: 128,
            reg_size: 32,
            flag_subregs: if gen == Gen::Gen7 { 2 } else { 4 },
            mrf_count: 16,
            max_exec_size: 32,
            has_hf: gen >= Gen::Gen8,
            has_64bit_int: gen >= Gen::Gen8,
            has_64bit_float: true,
            has_align16: gen < Gen::Gen11,
            has_split_send: gen >= Gen::Gen9,
            has_integer_dword_mul: gen >= Gen::Gen8,
            high_sampler_via_header: gen >= Gen::Gen75,
            varying_pull_via_sampler: gen < Gen::Gen12,
            math_takes_immediate: gen >= Gen::Gen8,
            has_64bit_immediates: gen >= Gen::Gen8,
            three_src_takes_immediate: false,
            logic_negate_is_not: gen >= Gen::Gen8,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for n in Gen::all_names() {
            let g = Gen::from_name(n).unwrap();
            assert_eq!(Gen::from_name(g.name()), Some(g));
        }
        assert_eq!(Gen::from_name("SKL"), Some(Gen::Gen9));
        assert_eq!(Gen::from_name("pentium"), None);
    }
}
