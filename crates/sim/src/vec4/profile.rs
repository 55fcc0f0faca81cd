//! Which input words a vec4 shader uses as counts ([`crate::profile`]'s rules, read
//! through swizzles and writemasks): a raw `mov` copies component `swizzle[c]` of its
//! source into component `c` of its destination for each `c` of the writemask, and a
//! source read as an integer (or a float compared inside a loop) uses every component its
//! swizzle names. Without this, a dolphin ubershader's loop over an integer push constant
//! read as `u3.xxxx:UD` would run on a random float's bits.

use hashbrown::{HashMap, HashSet};

use eubatch_ir::{Opcode, Operand, RegFile, Shader, Type};

use super::regs::{input_component_addr, HALF_BYTES};
use crate::profile::Kind;

/// Where a component's value comes from: an input word, or a VGRF dword.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
enum From {
    Input(u8, u64),
    Vgrf(u32, u32),
}

/// Sources of component `k` (of both halves) of `op`.
fn sources(op: &Operand, k: u32) -> Vec<From> {
    match op.file {
        RegFile::Uniform | RegFile::Attr => (0..2)
            .map(|h| {
                let (space, a) = input_component_addr(op, h, k);
                From::Input(space as u8, a / 4)
            })
            .collect(),
        RegFile::Vgrf => (0..2)
            .map(|h| From::Vgrf(op.nr, op.offset + h * HALF_BYTES + 4 * k))
            .collect(),
        _ => Vec::new(),
    }
}

/// The count words of a vec4 shader: (space, word) → kind.
pub fn kinds(shader: &Shader) -> HashMap<(u8, u64), Kind> {
    let mut copied: HashMap<From, From> = HashMap::new();
    let mut uses: Vec<(From, Kind)> = Vec::new();
    let mut depth = 0u32;
    for inst in shader.layout.insts() {
        let op = shader.insts.opcode[inst];
        let ctl = shader.insts.control[inst];
        let dst = shader.insts.dst[inst];
        let srcs = shader.srcs(inst);
        match op {
            Opcode::Do => depth += 1,
            Opcode::While => depth = depth.saturating_sub(1),
            _ => {}
        }
        if op == Opcode::Mov
            && !ctl.saturate()
            && srcs.len() == 1
            && srcs[0].mods == eubatch_ir::operand::Mods::NONE
            && srcs[0].ty.size() == 4
            && dst.ty.size() == 4
            && dst.file == RegFile::Vgrf
        {
            for c in 0..4u32 {
                if dst.region.swizzle & (1 << c) == 0 {
                    continue;
                }
                let k = ((srcs[0].region.swizzle >> (2 * c)) & 3) as u32;
                let to = sources(&dst, c);
                for (t, f) in to.into_iter().zip(sources(&srcs[0], k)) {
                    copied.insert(t, f);
                }
            }
        }
        let float_count = op == Opcode::Cmp && depth > 0;
        for s in srcs {
            let kind = if s.file == RegFile::Imm || s.ty.size() != 4 {
                continue;
            } else if !s.ty.is_float() {
                Kind::Integer
            } else if float_count && s.ty == Type::F {
                Kind::FloatCount
            } else {
                continue;
            };
            for c in 0..4u32 {
                let k = ((s.region.swizzle >> (2 * c)) & 3) as u32;
                uses.extend(sources(s, k).into_iter().map(|f| (f, kind)));
            }
        }
    }
    let mut kinds: HashMap<(u8, u64), Kind> = HashMap::new();
    let mut seen = HashSet::new();
    while let Some((f, kind)) = uses.pop() {
        if !seen.insert((f, kind)) {
            continue;
        }
        match f {
            From::Input(space, w) => {
                let e = kinds.entry((space, w)).or_insert(kind);
                if kind == Kind::Integer {
                    *e = Kind::Integer;
                }
            }
            v @ From::Vgrf(..) => {
                if let Some(from) = copied.get(&v) {
                    uses.push((*from, kind));
                }
            }
        }
    }
    kinds
}
