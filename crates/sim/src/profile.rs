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
//! A float compared inside a loop (`for (float i = 0.; i < u_count; i++)`) is a count too,
//! a small whole float. Everything else keeps the general distribution of
//! [`crate::inputs::word`].

use hashbrown::{HashMap, HashSet};

use eubatch_ir::{Opcode, Operand, RegFile, Shader};

use crate::inputs::Space;

/// How a shader uses an input word that is a count.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Read as an integer: a small integer.
    Integer,
    /// A float compared inside a loop: a small whole float.
    FloatCount,
}

/// Input words that are counts: (space, 32-bit word index in that space) → kind.
#[derive(Clone, Debug, Default)]
pub struct Profile {
    kinds: HashMap<(u8, u64), Kind>,
    /// What the shader's render target writes carry (pipeline state, read from its
    /// logical writes): lowered writes of the same shader are decoded with it.
    pub fb: Option<crate::layout::FbLayout>,
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
        if shader.backend == eubatch_ir::Backend::Vec4 {
            return Profile {
                kinds: crate::vec4::profile::kinds(shader),
                fb: None,
            };
        }
        // Which input word (each) VGRF byte offset holds a raw copy of, and the copies
        // between VGRFs, so uses can be traced back to the input.
        let mut copied_from: HashMap<(u32, u32), Copy> = HashMap::new();
        let mut uses: Vec<(Copy, Kind)> = Vec::new();
        let mut loop_depth = 0u32;
        for inst in shader.layout.insts() {
            let op = shader.insts.opcode[inst];
            let ctl = shader.insts.control[inst];
            let dst = shader.insts.dst[inst];
            let srcs = shader.srcs(inst);
            match op {
                Opcode::Do => loop_depth += 1,
                Opcode::While => loop_depth = loop_depth.saturating_sub(1),
                _ => {}
            }
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
            // A float compared inside a loop bounds it (`for (float i = 0.; i < n; i++)`):
            // a count too.
            let float_count = op == Opcode::Cmp && loop_depth > 0;
            for s in srcs {
                if s.file == RegFile::Imm {
                    continue;
                }
                let kind = if !s.ty.is_float() {
                    Kind::Integer
                } else if float_count && s.ty == eubatch_ir::Type::F {
                    Kind::FloatCount
                } else {
                    continue;
                };
                if let Some(c) = Copy::of(s) {
                    uses.push((c, kind));
                }
            }
        }
        let mut kinds: HashMap<(u8, u64), Kind> = HashMap::new();
        let mut seen = HashSet::new();
        while let Some((c, kind)) = uses.pop() {
            if !seen.insert((c, kind)) {
                continue;
            }
            match c {
                Copy::Input(space, w) => {
                    // An integer use wins: the word's bits are what the shader counts with.
                    let e = kinds.entry((space as u8, w)).or_insert(kind);
                    if kind == Kind::Integer {
                        *e = Kind::Integer;
                    }
                }
                Copy::Vgrf(nr, off) => {
                    if let Some(from) = copied_from.get(&(nr, off)) {
                        uses.push((*from, kind));
                    }
                }
            }
        }
        Profile {
            kinds,
            fb: crate::layout::FbLayout::of(shader),
        }
    }

    /// How the shader uses input word `word` of `space`, if it is a count.
    pub fn kind(&self, space: Space, word: u64) -> Option<Kind> {
        self.kinds.get(&(space as u8, word)).copied()
    }

    pub fn is_integer(&self, space: Space, word: u64) -> bool {
        self.kind(space, word) == Some(Kind::Integer)
    }

    /// The input words that are counts, with their kind.
    pub fn words(&self) -> impl Iterator<Item = (Space, u64, Kind)> + '_ {
        self.kinds.iter().map(|(&(s, w), &k)| {
            let space = if s == Space::Uniform as u8 {
                Space::Uniform
            } else {
                Space::Attr
            };
            (space, w, k)
        })
    }

    /// How many input words are counts.
    pub fn len(&self) -> usize {
        self.kinds.len()
    }

    pub fn is_empty(&self) -> bool {
        self.kinds.is_empty()
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
