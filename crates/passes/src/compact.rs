//! VGRF compaction: VGRFs no instruction names any more (after copy propagation, dead-code
//! elimination and coalescing) are dropped and the rest renumbered densely, keeping their
//! order (Mesa: brw_fs.cpp `compact_virtual_grfs`). In scalar code a VGRF is also cut back
//! to the components some instruction still reads or writes: a message payload made of a
//! longer value's first components (an RGB colour of an RGBA value whose alpha the send
//! takes from elsewhere) keeps the dead tail otherwise, which Mesa's own payloads, sized
//! when built, never have — and a register allocator pinning an end-of-thread payload to
//! the top of the file pins the tail too. No hardware rule limits it.

use index_vec::IndexVec;

use eubatch_ir::size_read::size_read;
use eubatch_ir::{Backend, RegFile, Shader, Vgrf};

use crate::analysis::access::{Slot, SLOT};
use crate::analysis::changed::Changed;
use crate::PassCx;

/// Any code: it renumbers VGRFs and reads no region.
pub const SCOPE: crate::manager::Scope = crate::manager::Scope::ANY;

pub fn run(shader: &mut Shader, cx: &mut PassCx) -> Changed {
    let n = shader.vgrfs.len();
    let mut used = vec![false; n];
    let insts: Vec<_> = shader.layout.insts().collect();
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
    let trimmed = shader.backend == Backend::Scalar && trim(shader, cx, &insts, &used);
    if used.iter().all(|u| *u) {
        return if trimmed {
            Changed::VARIABLES
        } else {
            Changed::NOTHING
        };
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

/// Cuts each VGRF back to the last component an instruction reads or writes: the furthest
/// of the slots the access analysis gives (a logical message reads to the end of each VGRF
/// it names, an opaque instruction the whole VGRF: those keep their size) and of what each
/// operand names (`size_read`, at least one element: what the verifier bounds). Whether any
/// was.
fn trim(shader: &mut Shader, cx: &mut PassCx, insts: &[eubatch_ir::Inst], used: &[bool]) -> bool {
    let table = cx.access(shader);
    let slots = &table.slots;
    let mut end = vec![0u32; shader.vgrfs.len()];
    let mut note = |run: std::ops::Range<Slot>| {
        if run.start >= run.end || run.end.get() > slots.vgrf_slots {
            return;
        }
        let v = slots.base.partition_point(|&b| b <= run.start) - 1;
        let e = &mut end[v];
        *e = (*e).max((run.end.get() - slots.base[v].get()) * SLOT);
    };
    for &inst in insts {
        for (run, _, _) in table.def_runs(inst) {
            note(run);
        }
        for run in table.use_runs(inst) {
            note(run);
        }
    }
    // And what each operand names, as the verifier bounds it (a scalar byte a message
    // reads is an operand the slot model may not list).
    for &inst in insts {
        let d = &shader.insts.dst[inst];
        if d.file == RegFile::Vgrf && (d.nr as usize) < end.len() {
            let e = &mut end[d.nr as usize];
            *e = (*e).max(d.offset + shader.insts.size_written[inst]);
        }
        for (k, o) in shader.srcs(inst).iter().enumerate() {
            if o.file == RegFile::Vgrf && (o.nr as usize) < end.len() {
                let e = &mut end[o.nr as usize];
                *e = (*e).max(o.offset + size_read(shader, inst, k).max(o.ty.size()));
            }
        }
    }
    let mut trimmed = false;
    for (v, layout) in shader.vgrfs.iter_mut_enumerated() {
        let (e, pitch) = (end[v.index()], layout.pitch());
        if !used[v.index()] || e == 0 || pitch == 0 {
            continue;
        }
        let components = e.div_ceil(pitch).max(1);
        if components < layout.components as u32 {
            layout.components = components as u16;
            trimmed = true;
        }
    }
    trimmed
}
