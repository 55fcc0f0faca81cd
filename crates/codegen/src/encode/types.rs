//! Register and immediate data types: hardware codes per generation and Mesa's letters.
//!
//! Source: Mesa 23.0 `brw_reg_type.c` (`gfx7_hw_type`, `gfx8_hw_type`, `gfx7_hw_3src_type`,
//! `gfx8_hw_3src_type`, `brw_reg_type_to_letters`, `brw_reg_type_to_size`).

use super::field::Col;

/// A data type as the disassembly names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RegType {
    UD,
    D,
    UW,
    W,
    UB,
    B,
    DF,
    F,
    UQ,
    Q,
    HF,
    UV,
    VF,
    V,
}

use RegType::*;

/// Register-operand codes (`hw_reg_type`), gen7 then gen8+ additions.
const REG: [(RegType, u8, bool); 11] = [
    (UD, 0, false),
    (D, 1, false),
    (UW, 2, false),
    (W, 3, false),
    (UB, 4, false),
    (B, 5, false),
    (DF, 6, false),
    (F, 7, false),
    (UQ, 8, true),
    (Q, 9, true),
    (HF, 10, true),
];

/// Immediate codes (`hw_imm_type`); gen7 has no 64-bit or half-float immediates.
const IMM: [(RegType, u8, bool); 12] = [
    (UD, 0, false),
    (D, 1, false),
    (UW, 2, false),
    (W, 3, false),
    (UV, 4, false),
    (VF, 5, false),
    (V, 6, false),
    (F, 7, false),
    (UQ, 8, true),
    (Q, 9, true),
    (DF, 10, true),
    (HF, 11, true),
];

/// Three-source Align16 codes (`hw_3src_reg_type`).
const THREE: [(RegType, u8, bool); 5] = [
    (F, 0, false),
    (D, 1, false),
    (UD, 2, false),
    (DF, 3, false),
    (HF, 4, true),
];

fn lookup(t: &[(RegType, u8, bool)], col: Col, code: u8) -> Option<RegType> {
    t.iter()
        .find(|e| e.1 == code && (!e.2 || col.gen8_plus()))
        .map(|e| e.0)
}

fn code(t: &[(RegType, u8, bool)], col: Col, ty: RegType) -> Option<u8> {
    t.iter()
        .find(|e| e.0 == ty && (!e.2 || col.gen8_plus()))
        .map(|e| e.1)
}

impl RegType {
    pub fn from_reg(col: Col, c: u8) -> Option<RegType> {
        lookup(&REG, col, c)
    }
    pub fn from_imm(col: Col, c: u8) -> Option<RegType> {
        lookup(&IMM, col, c)
    }
    pub fn from_3src(col: Col, c: u8) -> Option<RegType> {
        lookup(&THREE, col, c)
    }
    pub fn reg_code(self, col: Col) -> Option<u8> {
        code(&REG, col, self)
    }
    pub fn imm_code(self, col: Col) -> Option<u8> {
        code(&IMM, col, self)
    }
    pub fn code_3src(self, col: Col) -> Option<u8> {
        code(&THREE, col, self)
    }
    /// The hardware code for an operand in `file` (immediate or register).
    pub fn code_in(self, col: Col, imm: bool) -> Option<u8> {
        if imm {
            self.imm_code(col)
        } else {
            self.reg_code(col)
        }
    }
    pub fn letters(self) -> &'static str {
        match self {
            UD => "UD",
            D => "D",
            UW => "UW",
            W => "W",
            UB => "UB",
            B => "B",
            DF => "DF",
            F => "F",
            UQ => "UQ",
            Q => "Q",
            HF => "HF",
            UV => "UV",
            VF => "VF",
            V => "V",
        }
    }
    /// Size in bytes (`brw_reg_type_to_size`; vector immediates count 4).
    pub fn size(self) -> u32 {
        match self {
            UB | B => 1,
            UW | W | HF => 2,
            UD | D | F | UV | VF | V => 4,
            DF | UQ | Q => 8,
        }
    }
    /// Parses the letters at the start of `s` (longest match), with their length.
    pub fn parse_prefix(s: &str) -> Option<(RegType, usize)> {
        const ALL: [RegType; 14] = [UD, D, UW, W, UB, B, DF, F, UQ, Q, HF, UV, VF, V];
        ALL.iter()
            .filter(|t| s.starts_with(t.letters()))
            .max_by_key(|t| t.letters().len())
            .map(|t| (*t, t.letters().len()))
    }
}
