//! Liveness of every slot ([`crate::access`]): which 4-byte pieces of VGRFs and which flag
//! bytes may still be read, at the end of every block. A write kills a slot only when it
//! fully defines it, so two SIMD8 half-float writes into padded components, or two strided
//! halves of a 64-bit value, each kill exactly what they write. Per-path reasoning over the
//! CFG covers channels disabled by control flow, as in Mesa's `fs_live_variables`.
//!
//! The jump of a `halt` to its `halt_target` carries nothing: the channels that take it
//! are discarded pixels, re-enabled at the target only for the render target writes that
//! follow it, which are predicated on the pixels still alive — what those channels read
//! there is never seen. (Mesa's CFG has no such edge either.) Without this, every value
//! the writes read would be live from the start along the jump, undefined there, and
//! could never share a register with what it is copied from.

use index_vec::IndexVec;

use eubatch_ir::cfg::Cfg;
use eubatch_ir::{Block, Shader};

use std::rc::Rc;

use crate::access_table::AccessTable;
use crate::bitset::BitSet;

pub struct Liveness {
    /// The accesses it was computed from (their slot numbering is the sets').
    pub access: Rc<AccessTable>,
    pub live_in: IndexVec<Block, BitSet>,
    pub live_out: IndexVec<Block, BitSet>,
}

impl Liveness {
    pub fn compute(shader: &Shader, access: Rc<AccessTable>) -> Result<Liveness, String> {
        let n = access.slots.count();
        let cfg = Cfg::build(&shader.layout, |i| shader.insts.opcode[i])
            .map_err(|e| format!("{}: {}", e.inst, e.msg))?;
        let nb = shader.layout.blocks.len();
        // Per block: slots read before being fully defined (gen), slots fully defined (kill).
        let mut gens: IndexVec<Block, BitSet> = IndexVec::with_capacity(nb);
        let mut kills: IndexVec<Block, BitSet> = IndexVec::with_capacity(nb);
        for block in shader.layout.blocks.iter() {
            let (mut gen, mut kill) = (BitSet::new(n), BitSet::new(n));
            for &inst in &block.insts {
                for &s in access.uses(inst) {
                    if !kill.contains(s) {
                        gen.insert(s);
                    }
                }
                for (s, full) in access.defs(inst) {
                    if full {
                        kill.insert(s);
                    }
                }
            }
            gens.push(gen);
            kills.push(kill);
        }
        // Block pairs (halt, halt target) joined only by the halt's jump.
        let first_op = |b: Block| {
            shader.layout.blocks[b]
                .insts
                .first()
                .map(|&i| shader.insts.opcode[i])
        };
        let last_op = |b: Block| {
            shader.layout.blocks[b]
                .insts
                .last()
                .map(|&i| shader.insts.opcode[i])
        };
        let halt_jump = |b: Block, s: Block| {
            s.index() != b.index() + 1
                && last_op(b) == Some(eubatch_ir::Opcode::Halt)
                && first_op(s) == Some(eubatch_ir::Opcode::HaltTarget)
        };
        let mut live_in: IndexVec<Block, BitSet> = gens.clone();
        let mut live_out: IndexVec<Block, BitSet> = IndexVec::from_vec(vec![BitSet::new(n); nb]);
        let mut changed = true;
        // One scratch set for the whole fixed point: no allocation per block visit.
        let mut li = BitSet::new(n);
        while changed {
            changed = false;
            for b in (0..nb).rev().map(Block::from_usize) {
                for &s in &cfg.succs[b] {
                    if halt_jump(b, s) {
                        continue;
                    }
                    changed |= live_out[b].union_with(&live_in[s]);
                }
                li.copy_from(&live_out[b]);
                li.transfer(&gens[b], &kills[b]);
                if li != live_in[b] {
                    live_in[b].copy_from(&li);
                    changed = true;
                }
            }
        }
        Ok(Liveness {
            access,
            live_in,
            live_out,
        })
    }
}
