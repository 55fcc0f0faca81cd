//! Upper bounds of 32-bit integer values: the largest value, read as unsigned, that an
//! operand can hold in any channel. Flow-insensitive — a VGRF's bound is the largest over
//! every instruction that writes it, wherever it stands — so it holds at every read;
//! `undef` writes give no value and do not count (reading what nothing wrote is undefined
//! whatever the bound says). A value that depends on itself (a loop counter) is unbounded.
//!
//! What it is for: lowering asks whether an index computed at run time stays below a
//! hardware field's range — a sampler index below 16 needs no message header to move the
//! Sampler State Pointer (dolphin's ubershaders clamp theirs with `min(x, 7)`).
//!
//! Rules that limit it: only 4-byte integer destinations and sources without source
//! modifiers or saturation; `mov`, `and`, `or`, `shr`, `shl`, `add`, `mul`, `sel`
//! (min, max, or predicated choice) and `broadcast` propagate bounds, within 32 bits;
//! immediates are their own bound; anything else, and any other register file, is
//! unbounded.

use eubatch_ir::shader::CondMod;
use eubatch_ir::{Inst, Mods, Opcode, Operand, RegFile, Shader, Type};

/// Bounds of one shader's values, computed on demand.
pub struct ValueRange<'a> {
    shader: &'a Shader,
    writers: Vec<Vec<Inst>>,
    /// Per VGRF: not yet asked, being computed (a cycle), or the bound.
    memo: Vec<State>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Unknown,
    InProgress,
    Done(Option<u32>),
}

fn int32(ty: Type) -> bool {
    matches!(ty, Type::D | Type::UD)
}

impl<'a> ValueRange<'a> {
    pub fn new(shader: &'a Shader) -> ValueRange<'a> {
        let n = shader.vgrfs.len();
        let mut writers = vec![Vec::new(); n];
        for inst in shader.layout.insts() {
            let d = shader.insts.dst[inst];
            if d.file == RegFile::Vgrf && (d.nr as usize) < n {
                writers[d.nr as usize].push(inst);
            }
        }
        ValueRange {
            shader,
            writers,
            memo: vec![State::Unknown; n],
        }
    }

    /// The largest unsigned value `op` can hold, if bounded.
    pub fn max_unsigned(&mut self, op: &Operand) -> Option<u32> {
        match op.file {
            RegFile::Imm if int32(op.ty) || op.ty == Type::UW => Some(op.imm_bits() as u32),
            RegFile::Vgrf if int32(op.ty) && op.mods == Mods::NONE => self.vgrf(op.nr as usize),
            _ => None,
        }
    }

    fn vgrf(&mut self, v: usize) -> Option<u32> {
        match self.memo.get(v).copied()? {
            State::Done(b) => return b,
            State::InProgress => return None,
            State::Unknown => {}
        }
        self.memo[v] = State::InProgress;
        let mut bound = Some(0u32);
        let writers = self.writers[v].clone();
        for inst in writers {
            if self.shader.insts.opcode[inst] == Opcode::Undef {
                continue;
            }
            let b = self.result(inst);
            bound = match (bound, b) {
                (Some(x), Some(y)) => Some(x.max(y)),
                _ => None,
            };
            if bound.is_none() {
                break;
            }
        }
        // A VGRF nothing writes holds nothing defined: no bound to claim.
        if self.writers[v]
            .iter()
            .all(|&i| self.shader.insts.opcode[i] == Opcode::Undef)
        {
            bound = None;
        }
        self.memo[v] = State::Done(bound);
        bound
    }

    /// The bound of what `inst` writes.
    fn result(&mut self, inst: Inst) -> Option<u32> {
        let s = self.shader;
        let ctl = s.insts.control[inst];
        if !int32(s.insts.dst[inst].ty) || ctl.saturate() {
            return None;
        }
        let srcs = s.srcs(inst).to_vec();
        let mut b = |k: usize| srcs.get(k).and_then(|o| self.max_unsigned(o));
        let fits = |x: u64| u32::try_from(x).ok();
        match s.insts.opcode[inst] {
            Opcode::Mov | Opcode::Broadcast => b(0),
            Opcode::And => match (b(0), b(1)) {
                (Some(x), Some(y)) => Some(x.min(y)),
                (x, y) => x.or(y),
            },
            Opcode::Or => {
                let m = b(0)?.max(b(1)?);
                Some(u32::MAX >> m.leading_zeros())
            }
            Opcode::Shr if srcs.first().is_some_and(|o| o.ty == Type::UD) => {
                let x = b(0)?;
                let n = srcs.get(1).filter(|o| o.file == RegFile::Imm)?.imm_bits() & 31;
                Some(x >> n)
            }
            Opcode::Shl => {
                let x = b(0)? as u64;
                let n = srcs.get(1).filter(|o| o.file == RegFile::Imm)?.imm_bits() & 31;
                fits(x << n)
            }
            // Addition and multiplication modulo 2^32 are the same for either signedness.
            Opcode::Add => fits(b(0)? as u64 + b(1)? as u64),
            Opcode::Mul => fits(b(0)? as u64 * b(1)? as u64),
            Opcode::Sel => {
                let (x, y) = (b(0), b(1));
                let unsigned = srcs
                    .iter()
                    .all(|o| o.ty == Type::UD || o.file == RegFile::Imm);
                // Signed comparisons order the values as unsigned ones do only where both
                // are non-negative.
                let same_order = |v: u32| unsigned || v <= i32::MAX as u32;
                match ctl.cmod {
                    CondMod::L | CondMod::Le => match (x, y) {
                        (Some(x), Some(y)) if same_order(x) && same_order(y) => Some(x.min(y)),
                        (Some(x), None) if unsigned => Some(x),
                        (None, Some(y)) if unsigned => Some(y),
                        _ => None,
                    },
                    _ => Some(x?.max(y?)),
                }
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bound_of_last_dst(text: &str) -> Option<u32> {
        let s = eubatch_ir::text::parse_shader(text).unwrap();
        let last = s.layout.insts().last().unwrap();
        let dst = s.insts.dst[last];
        ValueRange::new(&s).max_unsigned(&dst)
    }

    const HEAD: &str =
        "shader \"t\" stage FS width 8 target skl\nvgrf0 1x32\nvgrf1 1x32\nvgrf2 1x32\nblock0:\n";

    #[test]
    fn min_and_masks_bound() {
        let t = format!(
            "{HEAD}    mov(8) vgrf0:UD, g3<0,1,0>:UD\n    sel.l(8) vgrf1:UD, vgrf0:UD, 7u\n    add(8) vgrf2:UD, vgrf1:D, 2u\n"
        );
        assert_eq!(bound_of_last_dst(&t), Some(9));
        // A mask bounds whatever it masks; a fixed register alone is unbounded.
        let t = format!("{HEAD}    and(8) vgrf2:UD, g3<0,1,0>:UD, 31u\n");
        assert_eq!(bound_of_last_dst(&t), Some(31));
        let t = format!("{HEAD}    or(8) vgrf2:UD, g3<0,1,0>:UD, 1u\n");
        assert_eq!(bound_of_last_dst(&t), None);
        let t = format!(
            "{HEAD}    mov(8) vgrf0:UD, 12u\n    and(8) vgrf1:UD, vgrf0:UD, vgrf0:UD\n    shl(8) vgrf2:UD, vgrf1:UD, 2u\n"
        );
        assert_eq!(bound_of_last_dst(&t), Some(48));
    }

    #[test]
    fn signed_min_and_cycles_are_unbounded() {
        // A signed minimum with an unbounded operand may be negative: huge as unsigned.
        let t =
            format!("{HEAD}    mov(8) vgrf0:D, g3<0,1,0>:D\n    sel.l(8) vgrf2:D, vgrf0:D, 7d\n");
        assert_eq!(bound_of_last_dst(&t), None);
        // A value that depends on itself.
        let t = format!("{HEAD}    mov(8) vgrf2:UD, 0u\n    add(8) vgrf2:UD, vgrf2:UD, 1u\n");
        assert_eq!(bound_of_last_dst(&t), None);
        // Every writer counts, wherever it is.
        let t = format!("{HEAD}    mov(8) vgrf2:UD, 3u\n    mov(8) vgrf2:UD, 300u\n");
        assert_eq!(bound_of_last_dst(&t), Some(300));
    }
}
