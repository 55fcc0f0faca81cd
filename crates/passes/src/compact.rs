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
use eubatch_ir::{Backend, Opcode, RegFile, Shader, Vgrf};

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
    let trimmed = shader.backend == Backend::Scalar && trim(shader, &insts, &used);
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

/// Cuts each VGRF back to the last component an instruction reads or writes: what each
/// operand names (`size_read` or `size_written`, at least one element: what the verifier
/// bounds), except that a logical message and an Align16 instruction are taken to read and
/// write every VGRF they name to its end (the access analysis's rule for them: their
/// payload layouts and swizzles are not regions). Whether any was.
fn trim(shader: &mut Shader, insts: &[eubatch_ir::Inst], used: &[bool]) -> bool {
    let mut end = vec![0u32; shader.vgrfs.len()];
    for &inst in insts {
        let op = shader.insts.opcode[inst];
        let whole = shader.insts.control[inst].align16()
            || (op.is_message()
                && !matches!(
                    op,
                    Opcode::Send | Opcode::Sendc | Opcode::Sends | Opcode::Sendsc
                ));
        let mut note = |o: &eubatch_ir::Operand, bytes: u32| {
            if o.file == RegFile::Vgrf && (o.nr as usize) < end.len() {
                let v = o.nr as usize;
                let e = if whole {
                    shader.vgrfs[Vgrf::from_usize(v)].size()
                } else {
                    o.offset + bytes.max(o.ty.size())
                };
                end[v] = end[v].max(e);
            }
        };
        note(&shader.insts.dst[inst], shader.insts.size_written[inst]);
        for (k, o) in shader.srcs(inst).iter().enumerate() {
            note(o, size_read(shader, inst, k));
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
