//! Register data types (Mesa's `brw_reg_type`), including the vector immediates.

/// A register or immediate data type.
///
/// Sizes follow the PRMs ("Execution Data Types", Vol. 7); the letters are the ones
/// Mesa's `brw_reg_type_to_letters` prints, which eubatch's text format reuses.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Type {
    B,
    UB,
    W,
    UW,
    HF,
    D,
    UD,
    F,
    Q,
    UQ,
    DF,
    /// Packed vector of eight signed 4-bit integers (immediates only).
    V,
    /// Packed vector of eight unsigned 4-bit integers (immediates only).
    UV,
    /// Packed vector of four 8-bit restricted floats (immediates only).
    VF,
}

impl Type {
    pub const ALL: [Type; 14] = [
        Type::B,
        Type::UB,
        Type::W,
        Type::UW,
        Type::HF,
        Type::D,
        Type::UD,
        Type::F,
        Type::Q,
        Type::UQ,
        Type::DF,
        Type::V,
        Type::UV,
        Type::VF,
    ];

    /// Size in bytes of one element of this type in a register region. Vector immediates
    /// expand to 16-bit (V/UV) or 32-bit (VF) elements.
    pub const fn size(self) -> u32 {
        match self {
            Type::B | Type::UB => 1,
            Type::W | Type::UW | Type::HF | Type::V | Type::UV => 2,
            Type::D | Type::UD | Type::F | Type::VF => 4,
            Type::Q | Type::UQ | Type::DF => 8,
        }
    }

    pub const fn letters(self) -> &'static str {
        match self {
            Type::B => "B",
            Type::UB => "UB",
            Type::W => "W",
            Type::UW => "UW",
            Type::HF => "HF",
            Type::D => "D",
            Type::UD => "UD",
            Type::F => "F",
            Type::Q => "Q",
            Type::UQ => "UQ",
            Type::DF => "DF",
            Type::V => "V",
            Type::UV => "UV",
            Type::VF => "VF",
        }
    }

    pub fn from_letters(s: &str) -> Option<Type> {
        Type::ALL.iter().copied().find(|t| t.letters() == s)
    }

    pub const fn is_float(self) -> bool {
        matches!(self, Type::HF | Type::F | Type::DF | Type::VF)
    }

    pub const fn is_vector_imm(self) -> bool {
        matches!(self, Type::V | Type::UV | Type::VF)
    }

    pub const fn is_signed_int(self) -> bool {
        matches!(self, Type::B | Type::W | Type::D | Type::Q | Type::V)
    }

    pub const fn is_unsigned_int(self) -> bool {
        matches!(self, Type::UB | Type::UW | Type::UD | Type::UQ | Type::UV)
    }

    pub const fn is_64bit(self) -> bool {
        self.size() == 8
    }
}

impl std::fmt::Display for Type {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.letters())
    }
}
