//! The bit fields compaction reads and writes, in the native 128-bit encoding and in the
//! 64-bit compacted one, for gen7 to gen11. Positions from Mesa `src/intel/compiler/
//! brw_inst.h` (the `F`/`F8`/`FF`/`FI` field lists for `brw_inst_*`, and the `brw_compact_inst_*`
//! list near its end); the "8+" column applies to gen8, gen9 and gen11.
//!
//! Deliberately small and local: the full native field table is another module's job and
//! will replace the native half of this one.

use eubatch_ir::Gen;

/// A native instruction as two little-endian 64-bit words: bit `i` of the instruction is bit
/// `i % 64` of word `i / 64` (Mesa `brw_inst.data[2]`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub(crate) struct Native(pub [u64; 2]);

fn mask(hi: u32, lo: u32) -> u64 {
    let width = hi - lo + 1;
    if width == 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

impl Native {
    /// Bits `hi..=lo` (Mesa `brw_inst_bits`); a field never straddles bit 64.
    pub fn bits(&self, hi: u32, lo: u32) -> u64 {
        debug_assert!(hi >= lo && hi / 64 == lo / 64);
        (self.0[(lo / 64) as usize] >> (lo % 64)) & mask(hi, lo)
    }

    /// Sets bits `hi..=lo` to the low bits of `v` (Mesa `brw_inst_set_bits`).
    pub fn set_bits(&mut self, hi: u32, lo: u32, v: u64) {
        debug_assert!(hi >= lo && hi / 64 == lo / 64);
        let w = &mut self.0[(lo / 64) as usize];
        let m = mask(hi, lo) << (lo % 64);
        *w = (*w & !m) | ((v << (lo % 64)) & m);
    }

    pub fn opcode(&self) -> u8 {
        self.bits(6, 0) as u8
    }

    /// `cmpt_control`, bit 29.
    pub fn cmpt_control(&self) -> bool {
        self.bits(29, 29) != 0
    }

    /// `cond_modifier`, 27:24.
    pub fn cond_modifier(&self) -> u64 {
        self.bits(27, 24)
    }

    /// `eot`, bit 127 (meaningful on sends).
    pub fn eot(&self) -> bool {
        self.bits(127, 127) != 0
    }

    /// `imm_ud`: 127:96.
    pub fn imm_ud(&self) -> u32 {
        self.bits(127, 96) as u32
    }

    /// `dst_hstride`, 62:61 (Align1).
    pub fn dst_hstride(&self) -> u64 {
        self.bits(62, 61)
    }

    /// `src0_reg_file`: 38:37 before gen8, 42:41 from gen8.
    pub fn src0_file(&self, gen: Gen) -> u64 {
        if gen >= Gen::Gen8 {
            self.bits(42, 41)
        } else {
            self.bits(38, 37)
        }
    }

    /// `src1_reg_file`: 43:42 before gen8, 90:89 from gen8.
    pub fn src1_file(&self, gen: Gen) -> u64 {
        if gen >= Gen::Gen8 {
            self.bits(90, 89)
        } else {
            self.bits(43, 42)
        }
    }

    /// `dst_reg_hw_type`: 36:34 before gen8, 40:37 from gen8.
    pub fn dst_hw_type(&self, gen: Gen) -> u64 {
        if gen >= Gen::Gen8 {
            self.bits(40, 37)
        } else {
            self.bits(36, 34)
        }
    }

    pub fn set_dst_hw_type(&mut self, gen: Gen, t: u64) {
        if gen >= Gen::Gen8 {
            self.set_bits(40, 37, t)
        } else {
            self.set_bits(36, 34, t)
        }
    }

    /// `src0_reg_hw_type`: 41:39 before gen8, 46:43 from gen8.
    pub fn src0_hw_type(&self, gen: Gen) -> u64 {
        if gen >= Gen::Gen8 {
            self.bits(46, 43)
        } else {
            self.bits(41, 39)
        }
    }

    pub fn set_src0_hw_type(&mut self, gen: Gen, t: u64) {
        if gen >= Gen::Gen8 {
            self.set_bits(46, 43, t)
        } else {
            self.set_bits(41, 39, t)
        }
    }

    /// `src1_reg_hw_type`: 46:44 before gen8, 94:91 from gen8.
    pub fn src1_hw_type(&self, gen: Gen) -> u64 {
        if gen >= Gen::Gen8 {
            self.bits(94, 91)
        } else {
            self.bits(46, 44)
        }
    }

    pub fn set_src1_hw_type(&mut self, gen: Gen, t: u64) {
        if gen >= Gen::Gen8 {
            self.set_bits(94, 91, t)
        } else {
            self.set_bits(46, 44, t)
        }
    }
}

/// `enum brw_reg_file` values as the hardware encodes them (brw_reg.h).
pub(crate) const FILE_IMM: u64 = 3;

/// Native direct-addressing register numbers (Align1 and Align16 alike): `dst_da_reg_nr`
/// 60:53, `src0_da_reg_nr` 76:69, `src1_da_reg_nr` 108:101.
pub(crate) const DST_REG_NR: (u32, u32) = (60, 53);
pub(crate) const SRC0_REG_NR: (u32, u32) = (76, 69);
pub(crate) const SRC1_REG_NR: (u32, u32) = (108, 101);
/// `debug_control` 30, `acc_wr_control` 28 (gen6+), `cond_modifier` 27:24.
pub(crate) const DEBUG_CONTROL: u32 = 30;
pub(crate) const ACC_WR_CONTROL: u32 = 28;

/// Three-source (Align16, gen8-11) native fields: `3src_dst_reg_nr` 63:56,
/// `3src_src{0,1,2}_reg_nr` 83:76 / 104:97 / 125:118, `3src_a16_src{0,1,2}_rep_ctrl`
/// 64 / 85 / 106, `3src_a16_src{0,1,2}_subreg_nr` 75:73 / 96:94 / 117:115, `3src_saturate` 31.
pub(crate) mod three_src {
    pub const DST_REG_NR: (u32, u32) = (63, 56);
    pub const SRC_REG_NR: [(u32, u32); 3] = [(83, 76), (104, 97), (125, 118)];
    pub const SRC_REP_CTRL: [u32; 3] = [64, 85, 106];
    pub const SRC_SUBREG_NR: [(u32, u32); 3] = [(75, 73), (96, 94), (117, 115)];
    pub const SATURATE: u32 = 31;
}

/// The compacted layout (gen6-11; Mesa `brw_compact_inst_*`, "4+" column).
pub(crate) mod compacted {
    /// `hw_opcode` 6:0, `debug_control` 7, `control_index` 12:8, `datatype_index` 17:13,
    /// `subreg_index` 22:18, `acc_wr_control` 23, `cond_modifier` 27:24, `cmpt_control` 29,
    /// `src0_index` 34:30, `src1_index` 39:35, `dst_reg_nr` 47:40, `src0_reg_nr` 55:48,
    /// `src1_reg_nr` 63:56. An immediate keeps its 13 low bits in src1_index (high 5) and
    /// src1_reg_nr (low 8): `brw_compact_inst_imm`.
    pub const OPCODE: (u32, u32) = (6, 0);
    pub const DEBUG_CONTROL: u32 = 7;
    pub const CONTROL_INDEX: (u32, u32) = (12, 8);
    pub const DATATYPE_INDEX: (u32, u32) = (17, 13);
    pub const SUBREG_INDEX: (u32, u32) = (22, 18);
    pub const ACC_WR_CONTROL: u32 = 23;
    pub const COND_MODIFIER: (u32, u32) = (27, 24);
    pub const CMPT_CONTROL: u32 = 29;
    pub const SRC0_INDEX: (u32, u32) = (34, 30);
    pub const SRC1_INDEX: (u32, u32) = (39, 35);
    pub const DST_REG_NR: (u32, u32) = (47, 40);
    pub const SRC0_REG_NR: (u32, u32) = (55, 48);
    pub const SRC1_REG_NR: (u32, u32) = (63, 56);

    /// Three-source (gen8-11): `3src_control_index` 9:8, `3src_source_index` 11:10,
    /// `3src_dst_reg_nr` 18:12, `3src_src0_rep_ctrl` 28, `3src_saturate` 31,
    /// `3src_src1_rep_ctrl` 32, `3src_src2_rep_ctrl` 33, `3src_src{0,1,2}_subreg_nr`
    /// 36:34 / 39:37 / 42:40, `3src_src{0,1,2}_reg_nr` 49:43 / 56:50 / 63:57; opcode,
    /// debug_control (30 here) and cmpt_control as above.
    pub mod three_src {
        pub const CONTROL_INDEX: (u32, u32) = (9, 8);
        pub const SOURCE_INDEX: (u32, u32) = (11, 10);
        pub const DST_REG_NR: (u32, u32) = (18, 12);
        pub const SRC_REP_CTRL: [u32; 3] = [28, 32, 33];
        pub const DEBUG_CONTROL: u32 = 30;
        pub const SATURATE: u32 = 31;
        pub const SRC_SUBREG_NR: [(u32, u32); 3] = [(36, 34), (39, 37), (42, 40)];
        pub const SRC_REG_NR: [(u32, u32); 3] = [(49, 43), (56, 50), (63, 57)];
    }
}

/// Bits `hi..=lo` of a compacted instruction (`brw_compact_inst_bits`).
pub(crate) fn cbits(c: u64, (hi, lo): (u32, u32)) -> u64 {
    (c >> lo) & mask(hi, lo)
}

/// `c` with bits `hi..=lo` set to `v`, or `None` when `v` does not fit (Mesa asserts).
pub(crate) fn cset(c: u64, (hi, lo): (u32, u32), v: u64) -> Option<u64> {
    let m = mask(hi, lo);
    (v & !m == 0).then(|| (c & !(m << lo)) | (v << lo))
}
