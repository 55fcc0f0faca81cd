//! Definitions: which VGRFs are written by exactly one instruction, writing all of their
//! data (padding is never written) unconditionally outside control flow — values the whole shader can treat as SSA, as
//! Mesa's `fs_def_analysis` (brw_fs.cpp) does for its global passes.

use eubatch_ir::opcode::ControlFlow;
use eubatch_ir::{Inst, RegFile, Shader};

use crate::access_table::AccessTable;

pub struct Defs {
    /// Instructions writing each VGRF.
    pub count: Vec<u32>,
    /// The one definition of each VGRF that has one.
    pub single: Vec<Option<Inst>>,
    /// VGRFs defined in pieces: every byte written exactly once, by full unconditional
    /// writes outside control flow, possibly by several instructions (the channel groups
    /// of a split SIMD32 copy, say) — SSA values too, with their definitions.
    pub pieces: Vec<Option<Vec<Inst>>>,
}

impl Defs {
    pub fn compute(shader: &Shader, access: &AccessTable) -> Defs {
        let slots = &access.slots;
        let n = shader.vgrfs.len();
        let mut count = vec![0u32; n];
        let mut single: Vec<Option<Inst>> = vec![None; n];
        let mut whole = vec![true; n];
        let mut writers: Vec<Vec<Inst>> = vec![Vec::new(); n];
        // Per slot: how often fully written; per VGRF: any other kind of write.
        let mut slot_writes = vec![0u8; slots.vgrf_slots as usize];
        let mut other_write = vec![false; n];
        let mut depth = 0u32;
        for inst in shader.layout.insts() {
            match shader.insts.opcode[inst].control_flow() {
                ControlFlow::If | ControlFlow::Do => depth += 1,
                ControlFlow::Endif | ControlFlow::While => depth = depth.saturating_sub(1),
                _ => {}
            }
            let dst = shader.insts.dst[inst];
            if dst.file != RegFile::Vgrf || dst.nr as usize >= n {
                continue;
            }
            let v = dst.nr as usize;
            count[v] += 1;
            single[v] = Some(inst);
            // All of the VGRF's slots, each fully.
            let range = slots.vgrf(shader, dst.nr);
            let mut covered = 0u32;
            for (s, full) in access.defs(inst) {
                if range.contains(&s) && full {
                    covered += 1;
                    slot_writes[s as usize] = slot_writes[s as usize].saturating_add(1);
                } else if range.contains(&s) {
                    other_write[v] = true;
                }
            }
            if depth > 0 {
                other_write[v] = true;
            }
            writers[v].push(inst);
            // Padding is never written: the data slots are the whole value.
            let l = shader.vgrfs[eubatch_ir::Vgrf::from_usize(v)];
            let data_slots = l.components as u32 * (l.data as u32).div_ceil(4);
            let _ = range;
            if depth > 0 || covered != data_slots {
                whole[v] = false;
            }
        }
        for v in 0..n {
            if count[v] != 1 || !whole[v] {
                single[v] = None;
            }
        }
        let pieces = (0..n)
            .map(|v| {
                let l = shader.vgrfs[eubatch_ir::Vgrf::from_usize(v)];
                let range = slots.vgrf(shader, v as u32);
                let once = !other_write[v]
                    && l.padding == 0
                    && !writers[v].is_empty()
                    && range.clone().all(|s| slot_writes[s as usize] == 1);
                once.then(|| std::mem::take(&mut writers[v]))
            })
            .collect();
        Defs {
            count,
            single,
            pieces,
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
        let d = Defs::compute(&s, &AccessTable::compute(&s));
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
