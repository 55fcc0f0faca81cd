//! VGRF compaction: VGRFs no instruction names any more (after copy propagation, dead-code
//! elimination and coalescing) are dropped and the rest renumbered densely, keeping their
//! order. (Mesa: brw_fs.cpp `compact_virtual_grfs`.) No hardware rule limits it.

use index_vec::IndexVec;

use eubatch_ir::{RegFile, Shader, Vgrf};

use crate::analysis::changed::Changed;
use crate::PassCx;

/// Any code: it renumbers VGRFs and reads no region.
pub const SCOPE: crate::manager::Scope = crate::manager::Scope::ANY;

pub fn run(shader: &mut Shader, _cx: &mut PassCx) -> Changed {
    let n = shader.vgrfs.len();
    let mut used = vec![false; n];
    let insts: Vec<_> = shader.layout.order();
    for &inst in &insts {
        let d = shader.insts.dst[inst];
        if d.file == RegFile::Vgrf && (d.nr as usize) < n {
            used[d.nr as usize] = true;
        }
        for s in shader.srcs(inst) {
            if s.file == RegFile::Vgrf && (s.nr as usize) < n {
                used[s.nr as usize] = true;
            }
        }
    }
    if used.iter().all(|u| *u) {
        return Changed::NOTHING;
    }
    let mut map = vec![u32::MAX; n];
    let mut vgrfs: IndexVec<Vgrf, _> = IndexVec::new();
    for (i, u) in used.iter().enumerate() {
        if *u {
            map[i] = vgrfs.len() as u32;
            vgrfs.push(shader.vgrfs[Vgrf::from_usize(i)]);
        }
    }
    shader.vgrfs = vgrfs;
    for &inst in &insts {
        let d = &mut shader.insts.dst[inst];
        if d.file == RegFile::Vgrf {
            d.nr = map[d.nr as usize];
        }
        for s in shader.srcs_mut(inst) {
            if s.file == RegFile::Vgrf {
                s.nr = map[s.nr as usize];
            }
        }
    }
    Changed::VARIABLES | Changed::INSTRUCTION_DATA_FLOW
}
