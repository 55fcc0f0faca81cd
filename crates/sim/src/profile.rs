//! Which input words a shader uses as integers, so that the generated inputs look like
//! what an application supplies: a push constant the shader compares as `UD` against a
//! loop counter is a count, not the bit pattern of a random float (which would make the
//! loop run for billions of iterations).
//!
//! A push-constant or attribute word is an integer input when the shader reads it with an
//! integer type, directly or through raw copies: a `mov` without modifiers or saturate
//! between types of one size (Mesa's NIR-to-IR translation loads every push constant as
//! `F` and reinterprets it where used, e.g. `mov vgrf355:F, u65533+2.0<0>:F` then
//! `cmp.ge vgrf356:UD, vgrf59:UD, vgrf355:UD`). Copies are followed transitively.
//! Everything else keeps the general distribution of [`crate::inputs::word`].

use hashbrown::{HashMap, HashSet};

use eubatch_ir::{Opcode, Operand, RegFile, Shader};

use crate::inputs::Space;

/// Input words read as integers: (space, 32-bit word index in that space).
#[derive(Clone, Debug, Default)]
pub struct Profile {
    integer_words: HashSet<(u8, u64)>,
}

/// Word index of a push-constant or attribute operand's first byte, in the numbering
/// [`crate::state`] reads inputs with ([`crate::inputs::input_byte`]).
pub fn input_word(op: &Operand) -> Option<(Space, u64)> {
    match op.file {
        RegFile::Uniform => Some((
            Space::Uniform,
            crate::inputs::input_byte(Space::Uniform, op.nr, op.offset) / 4,
        )),
        RegFile::Attr => Some((
            Space::Attr,
            crate::inputs::input_byte(Space::Attr, op.nr, op.offset) / 4,
        )),
        _ => None,
    }
}

impl Profile {
    pub fn of(shader: &Shader) -> Profile {
        // Which input word (each) VGRF byte offset holds a raw copy of, and the copies
        // between VGRFs, so integer uses can be traced back to the input.
        let mut copied_from: HashMap<(u32, u32), Copy> = HashMap::new();
        let mut integer_uses: Vec<Copy> = Vec::new();
        for inst in shader.layout.insts() {
            let op = shader.insts.opcode[inst];
            let ctl = shader.insts.control[inst];
            let dst = shader.insts.dst[inst];
            let srcs = shader.srcs(inst);
            let raw_copy = op == Opcode::Mov
                && !ctl.saturate()
                && srcs.len() == 1
                && srcs[0].mods == eubatch_ir::operand::Mods::NONE
                && srcs[0].ty.size() == dst.ty.size()
                && dst.file == RegFile::Vgrf;
            if raw_copy {
                if let Some(from) = Copy::of(&srcs[0]) {
                    copied_from.insert((dst.nr, dst.offset), from);
                }
            }
            for s in srcs {
                if !s.ty.is_float() && s.file != RegFile::Imm {
                    if let Some(c) = Copy::of(s) {
                        integer_uses.push(c);
                    }
                }
            }
        }
        let mut integer_words = HashSet::new();
        let mut seen = HashSet::new();
        while let Some(c) = integer_uses.pop() {
            if !seen.insert(c) {
                continue;
            }
            match c {
                Copy::Input(space, w) => {
                    integer_words.insert((space as u8, w));
                }
                Copy::Vgrf(nr, off) => {
                    if let Some(from) = copied_from.get(&(nr, off)) {
                        integer_uses.push(*from);
                    }
                }
            }
        }
        Profile { integer_words }
    }

    pub fn is_integer(&self, space: Space, word: u64) -> bool {
        self.integer_words.contains(&(space as u8, word))
    }

    /// The integer input words.
    pub fn words(&self) -> impl Iterator<Item = (Space, u64)> + '_ {
        self.integer_words.iter().map(|&(s, w)| {
            let space = if s == Space::Uniform as u8 {
                Space::Uniform
            } else {
                Space::Attr
            };
            (space, w)
        })
    }

    /// How many input words are integers.
    pub fn len(&self) -> usize {
        self.integer_words.len()
    }

    pub fn is_empty(&self) -> bool {
        self.integer_words.is_empty()
    }
}

/// Where a value comes from: an input word or a VGRF byte offset.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
enum Copy {
    Input(Space, u64),
    Vgrf(u32, u32),
}

impl Copy {
    fn of(op: &Operand) -> Option<Copy> {
        if let Some((space, w)) = input_word(op) {
            return Some(Copy::Input(space, w));
        }
        (op.file == RegFile::Vgrf).then_some(Copy::Vgrf(op.nr, op.offset))
    }
}
