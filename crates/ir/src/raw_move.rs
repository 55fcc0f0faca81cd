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
