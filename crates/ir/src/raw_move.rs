//! Which moves copy bits unchanged (Mesa's `fs_inst::is_raw_move`): the one test the
//! passes that remove, merge or look through copies share.
//!
//! A raw move is a `mov` without predicate, saturate, conditional modifier or source
//! modifiers whose source and destination types are the same, or integers (not floats) of
//! one size: a float conversion is an operation, not a copy. Where the move writes, from
//! which file, at which stride, in which channels, is for each pass to ask.

use crate::shader::{CondMod, Predicate};
use crate::{Inst, Mods, Opcode, Shader, Type};

/// Whether a move from `src` to `dst` copies bits: the same type, or non-float types of
/// one size.
pub fn raw_types(src: Type, dst: Type) -> bool {
    src == dst || (src.size() == dst.size() && !src.is_float() && !dst.is_float())
}

impl Shader {
    /// Whether `inst` is a raw move (the module's documentation).
    pub fn is_raw_move(&self, inst: Inst) -> bool {
        let c = self.insts.control[inst];
        let dst = self.insts.dst[inst];
        self.insts.opcode[inst] == Opcode::Mov
            && c.predicate == Predicate::None
            && !c.saturate()
            && c.cmod == CondMod::None
            && self
                .srcs(inst)
                .first()
                .is_some_and(|s| s.mods == Mods::NONE && raw_types(s.ty, dst.ty))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shader::Backend;
    use crate::{Builder, Control, Gen, Operand, Stage};

    fn one_mov(b: Builder, dst: Operand, src: Operand) -> (Shader, Inst) {
        let mut shader = Shader::new("t", Stage::Fs, Backend::Scalar, 8, Gen::Gen9);
        let inst = b.mov(&mut shader, dst, src);
        (shader, inst)
    }

    #[test]
    fn copies_of_bits_are_raw_moves_and_conversions_are_not() {
        let b = Builder::new(8);
        let v = |ty| Operand::vgrf(0, 0, ty, 1);
        let (s, i) = one_mov(b, v(Type::UD), v(Type::D));
        assert!(s.is_raw_move(i));
        let (s, i) = one_mov(b, v(Type::F), v(Type::F));
        assert!(s.is_raw_move(i));
        let (s, i) = one_mov(b, v(Type::F), v(Type::D));
        assert!(!s.is_raw_move(i), "a conversion");
        let (s, i) = one_mov(b, v(Type::UD), v(Type::UW));
        assert!(!s.is_raw_move(i), "a widening");
        let mut neg = v(Type::D);
        neg.mods = Mods(Mods::NEGATE);
        let (s, i) = one_mov(b, v(Type::D), neg);
        assert!(!s.is_raw_move(i), "a negation");
        let mut sat = Control::new(8);
        sat.set(Control::SATURATE, true);
        let (s, i) = one_mov(Builder::with_control(sat), v(Type::F), v(Type::F));
        assert!(!s.is_raw_move(i), "a saturation");
    }
}
