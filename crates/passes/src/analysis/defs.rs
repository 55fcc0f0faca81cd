//! Definitions: which VGRFs are written by exactly one instruction, writing all of their
//! data (padding is never written) unconditionally outside control flow — values the whole shader can treat as SSA, as
//! Mesa's `fs_def_analysis` (brw_fs.cpp) does for its global passes.
//!
//! One walk over the layout and the access table's writes; the writers of the VGRFs
//! defined in pieces are then placed by counts already known (a counting sort of the
//! writes, in program order), not gathered in linked lists for every VGRF (issue 15).

use eubatch_ir::{Inst, RegFile, Shader};

use crate::analysis::access::{Slot, SLOT};
use crate::analysis::access_table::AccessTable;
use crate::analysis::bitset::BitSet;
use crate::analysis::nesting::Nesting;

pub struct Defs {
    /// Instructions writing each VGRF.
    pub count: Vec<u32>,
    /// The one definition of each VGRF that has one.
    pub single: Vec<Option<Inst>>,
    /// VGRFs defined in pieces ([`Defs::pieces`]): per VGRF, its definitions' place in
    /// `piece_insts` (start, count; count 0 for none).
    piece_at: Vec<(u32, u32)>,
    piece_insts: Vec<Inst>,
}

impl Defs {
    /// The definitions of VGRF `v` if it is defined in pieces: every byte written exactly
    /// once, by full unconditional writes outside control flow, possibly by several
    /// instructions (the channel groups of a split SIMD32 copy, say) — an SSA value too.
    pub fn pieces(&self, v: usize) -> Option<&[Inst]> {
        let &(at, n) = self.piece_at.get(v)?;
        (n > 0).then(|| &self.piece_insts[at as usize..(at + n) as usize])
    }

    /// Whether VGRF `v` holds one value for the whole shader: defined once, or in pieces.
    pub fn is_ssa(&self, v: usize) -> bool {
        self.single.get(v).is_some_and(|d| d.is_some()) || self.pieces(v).is_some()
    }
}

impl Defs {
    pub fn compute(shader: &Shader, access: &AccessTable, nesting: &Nesting) -> Defs {
        let slots = &access.slots;
        let n = shader.vgrfs.len();
        let mut count = vec![0u32; n];
        let mut single: Vec<Option<Inst>> = vec![None; n];
        let mut whole = vec![true; n];
        // Every write of a VGRF, in program order (gathered into per-VGRF lists at the
        // end, for the VGRFs defined in pieces only).
        let mut writes: Vec<(u32, Inst)> = Vec::with_capacity(shader.num_insts());
        // The slots fully written, and those fully written more than once; per VGRF: any
        // other kind of write.
        let mut written: BitSet<Slot> = BitSet::new(slots.vgrf_slots);
        let mut rewritten = BitSet::new(slots.vgrf_slots);
        let mut other_write = vec![false; n];
        for block in shader.layout.blocks.iter() {
            for &inst in &block.insts {
                let dst = shader.insts.dst[inst];
                if dst.file != RegFile::Vgrf || dst.nr as usize >= n {
                    continue;
                }
                let nested = nesting.nested(inst);
                let v = dst.nr as usize;
                count[v] += 1;
                single[v] = Some(inst);
                // All of the VGRF's slots, each fully.
                let range = slots.vgrf(shader, dst.nr);
                let mut covered = 0u32;
                for (r, full, _) in access.def_runs(inst) {
                    // (The part of the run in the VGRF: the flag slots of a conditional
                    // modifier are not its.)
                    let part = r.start.max(range.start)..r.end.min(range.end);
                    if part.is_empty() {
                        continue;
                    }
                    if full {
                        covered += part.end - part.start;
                        written.insert_range_noting_repeats(part, &mut rewritten);
                    } else {
                        other_write[v] = true;
                    }
                }
                if nested {
                    other_write[v] = true;
                }
                writes.push((v as u32, inst));
                // Padding is never written: the data slots are the whole value.
                let l = shader.vgrfs[eubatch_ir::Vgrf::from_usize(v)];
                let data_slots = l.components as u32 * (l.data as u32).div_ceil(SLOT);
                if nested || covered != data_slots {
                    whole[v] = false;
                }
            }
        }
        for v in 0..n {
            if count[v] != 1 || !whole[v] {
                single[v] = None;
            }
        }
        // Each VGRF defined in pieces gets `count` places, filled in program order.
        let mut piece_at = vec![(0u32, 0u32); n];
        let mut total = 0u32;
        for v in 0..n {
            // (The cheap tests first: the VGRF's slots only for those that pass them.)
            if count[v] == 0 || other_write[v] {
                continue;
            }
            let l = shader.vgrfs[eubatch_ir::Vgrf::from_usize(v)];
            let range = slots.base[v]..slots.base[v] + l.size().div_ceil(SLOT);
            let once = l.padding == 0
                && written.contains_range(range.clone())
                && !rewritten.intersects_range(range);
            if once {
                piece_at[v] = (total, count[v]);
                total += count[v];
            }
        }
        let mut piece_insts = vec![Inst::from_usize(0); total as usize];
        let mut filled = vec![0u32; if total > 0 { n } else { 0 }];
        for &(v, inst) in writes.iter().filter(|_| total > 0) {
            let (at, k) = piece_at[v as usize];
            if k > 0 {
                piece_insts[(at + filled[v as usize]) as usize] = inst;
                filled[v as usize] += 1;
            }
        }
        Defs {
            count,
            single,
            piece_at,
            piece_insts,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_definitions() {
        let s = eubatch_ir::text::parse_shader(
            "shader \"d\" stage FS width 8 target skl
vgrf0 1x32
vgrf1 1x64
vgrf2 1x32
vgrf3 1x16+16
block0:
    mov(8) vgrf0:F, g2<8,8,1>:F
    mov(8) vgrf1<2>:UD, g3<8,8,1>:UD
    mov(8) vgrf1+0.4<2>:UD, g4<8,8,1>:UD
    mov(8) vgrf3:HF, g5<8,8,1>:F
    cmp.l.f0.0(8) null<8,8,1>:F, vgrf0:F, 0f
    (+f0.0) if(8) (null):UD
block1:
    mov(8) vgrf2:F, 1f
block2:
    endif(8) (null):UD
",
        )
        .unwrap();
        let n = Nesting::compute(&s);
        let d = Defs::compute(&s, &AccessTable::compute(&s, &n), &n);
        assert_eq!(d.count, vec![1, 2, 1, 1]);
        assert!(d.single[0].is_some());
        // Two half writes: two definitions.
        assert!(d.single[1].is_none());
        // Inside control flow.
        assert!(d.single[2].is_none());
        // A half-float component's 16 data bytes are the whole of its value (the padding
        // is never written).
        assert!(d.single[3].is_some());
    }
}
