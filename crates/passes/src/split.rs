//! VGRF splitting: a VGRF of several components whose every access stays inside one
//! component becomes one VGRF per component, so liveness, coalescing and (later)
//! allocation treat the components as the independent values they are. A flat VGRF (one
//! component, no padding) whose accesses all stay inside whole registers — one, or the two
//! of a SIMD16 half of a split SIMD32 value — becomes one VGRF per such piece, so each half
//! can be coalesced into the payload that reads it. (Mesa: brw_fs.cpp
//! `split_virtual_grfs`, which splits per register; here per component, padding included,
//! so a padded half-float component is a VGRF of its own shape.)
//!
//! A whole-VGRF `undef` becomes one `undef` per part.
//!
//! Rules that limit it: what a logical message or virtual opcode reads is taken to reach
//! the end of the VGRF (but for the derivatives, `pln` and `linterp`, which read their
//! region as Mesa's `size_read` has it) (its layout is the message's; a raw `send` reads its mlen and
//! ex_mlen registers; a payload builder's source is one value, or one register for a
//! header source, as Mesa's `size_read` has it), and what it writes is its `size_written`;
//! such VGRFs are split only where those stay inside one component.

use index_vec::IndexVec;

use eubatch_ir::{Operand, RegFile, Shader, Vgrf, VgrfLayout};

use crate::analysis::changed::Changed;
use crate::PassCx;

/// Virtual opcodes whose reads Mesa's `fs_inst::size_read` bounds by the source's region
/// (brw_fs.cpp `components_read`: 1 for the derivatives; `linterp` reads two barycentric
/// components and 16 bytes of plane), as [`eubatch_ir::size_read::size_read`] gives them.
fn reads_by_region(op: eubatch_ir::Opcode) -> bool {
    use eubatch_ir::Opcode::*;
    matches!(
        op,
        DdxCoarse | DdxFine | DdyCoarse | DdyFine | Pln | Linterp
    )
}

/// Piece sizes tried for a flat VGRF, in registers, smallest first: a register, then the
/// two registers of a SIMD16 half (and four).
const FLAT_PITCHES: [u32; 3] = [1, 2, 4];

/// A VGRF's candidate piece sizes, smallest first: at most the three flat ones, kept in
/// place (a vector per VGRF on every round was most of the pass).
#[derive(Clone, Copy, Default)]
struct Pitches {
    p: [u32; FLAT_PITCHES.len()],
    n: usize,
}

impl Pitches {
    fn push(&mut self, pitch: u32) {
        self.p[self.n] = pitch;
        self.n += 1;
    }

    fn retain(&mut self, keep: impl Fn(u32) -> bool) {
        let mut k = 0;
        for i in 0..self.n {
            if keep(self.p[i]) {
                self.p[k] = self.p[i];
                k += 1;
            }
        }
        self.n = k;
    }

    fn first(&self) -> Option<u32> {
        (self.n > 0).then(|| self.p[0])
    }

    fn is_empty(&self) -> bool {
        self.n == 0
    }
}

/// Scalar code: operands read as Align1 regions.
pub const SCOPE: crate::manager::Scope = crate::manager::Scope::SCALAR;

pub fn run(shader: &mut Shader, _cx: &mut PassCx) -> Changed {
    // A component split off may itself split into registers: repeat until nothing does.
    // After the first round only the VGRFs a round split (the piece keeping the number and
    // the new ones) can split again: every other VGRF kept its layout and its operands, so
    // what held it together still does. The last round, which finds nothing, then looks
    // at those alone (mostly none has a candidate, and the shader is not walked again).
    let mut progress = false;
    let mut only: Option<Vec<bool>> = None;
    while let Some(split) = split_once(shader, only.as_deref()) {
        progress = true;
        only = Some(split);
    }
    // VGRFs split in pieces, their operands and the instructions writing them split too.
    Changed::when(progress, Changed::INSTRUCTIONS | Changed::VARIABLES)
}

/// One round of splitting, among the VGRFs `only` marks (all when `None`); the VGRFs it
/// split and made, marked, or `None` when nothing split.
fn split_once(shader: &mut Shader, only: Option<&[bool]>) -> Option<Vec<bool>> {
    let n = shader.vgrfs.len();
    // Per VGRF, the candidate piece sizes still possible: a multi-component VGRF splits at
    // its components; a flat one (one component, no padding) at whole registers.
    let reg = shader.reg_size();
    let mut cands: Vec<Pitches> = shader
        .vgrfs
        .iter()
        .enumerate()
        .map(|(v, l)| {
            let mut c = Pitches::default();
            if only.is_some_and(|o| !o.get(v).copied().unwrap_or(false)) {
                // (Not split last round: it holds together as it did.)
            } else if l.components > 1 {
                c.push(l.pitch());
            } else if l.padding == 0 {
                let data = l.data as u32;
                for p in FLAT_PITCHES.iter().map(|&r| r * reg) {
                    if p < data && data.is_multiple_of(p) {
                        c.push(p);
                    }
                }
            }
            c
        })
        .collect();
    if cands.iter().all(|c| c.is_empty()) {
        return None;
    }
    let insts: Vec<_> = shader.layout.order();
    // Whether `op` names a VGRF that may still split: an instruction naming none cannot
    // hold one together, and is passed over without working out where its operands end
    // (after the first round, most instructions).
    let open = |cands: &[Pitches], op: &Operand| {
        op.file == RegFile::Vgrf && (op.nr as usize) < n && !cands[op.nr as usize].is_empty()
    };
    let check = |cands: &mut [Pitches], op: &Operand, end: u32| {
        if op.file != RegFile::Vgrf || (op.nr as usize) >= n {
            return;
        }
        let end = end.max(op.offset + 1);
        cands[op.nr as usize].retain(|pitch| op.offset / pitch == (end - 1) / pitch);
    };
    for &inst in &insts {
        let dst = shader.insts.dst[inst];
        if !open(&cands, &dst) && !shader.srcs(inst).iter().any(|s| open(&cands, s)) {
            continue;
        }
        let opc = shader.insts.opcode[inst];
        let exec = shader.insts.control[inst].exec_size as u32;
        // A whole-VGRF `undef` does not hold the VGRF together: it becomes one per part.
        if is_whole_undef(shader, inst) {
            continue;
        }
        let dend = if opc.has_free_size_written() {
            dst.offset + shader.insts.size_written[inst]
        } else {
            dst.offset + dst.span(exec)
        };
        check(&mut cands, &dst, dend);
        let plain = opc.alu_arity().is_some();
        for (k, s) in shader.srcs(inst).iter().enumerate() {
            // Only a VGRF's reads hold it together (an immediate keeps other bits in
            // `offset`).
            if s.file != RegFile::Vgrf {
                continue;
            }
            let end = if plain {
                s.offset + s.span(exec)
            } else if let Some(len) = eubatch_ir::size_read::payload_len(shader, inst, k) {
                s.offset + len
            } else if reads_by_region(opc) {
                // Derivatives read their region, as a plain instruction does (Mesa's
                // `components_read` is 1 for them); `pln` and `linterp` read the plane
                // and the two barycentric components (`size_read`). Taking them to the end
                // of the VGRF held together every interpolated vector whose components a
                // derivative reads (16 registers at SIMD32, where Mesa has four pieces).
                s.offset + eubatch_ir::size_read::size_read(shader, inst, k)
            } else if opc == eubatch_ir::Opcode::LoadPayload {
                // A payload builder's source is one value for the channels (a header
                // source, one register): Mesa's `size_read`, what its split_virtual_grfs
                // looks at. The payload's layout is its destination's, not its sources'.
                s.offset + eubatch_ir::size_read::size_read(shader, inst, k)
            } else if s.file == RegFile::Vgrf && (s.nr as usize) < n {
                shader.vgrfs[s.vgrf_nr()].size()
            } else {
                0
            };
            check(&mut cands, s, end);
        }
    }
    // The piece size of each VGRF that splits (the smallest that held), 0 if none.
    let pitch: Vec<u32> = cands.iter().map(|c| c.first().unwrap_or(0)).collect();
    let ok: Vec<bool> = pitch.iter().map(|&p| p != 0).collect();
    if !ok.iter().any(|o| *o) {
        return None;
    }
    // New VGRFs for pieces 1.. of each split one (piece 0 keeps the number).
    let mut first_new: Vec<u32> = vec![u32::MAX; n];
    let mut pieces: Vec<u32> = vec![1; n];
    let mut vgrfs: IndexVec<Vgrf, VgrfLayout> = shader.vgrfs.clone();
    for v in 0..n {
        if ok[v] {
            let l = shader.vgrfs[Vgrf::from_usize(v)];
            let one = if l.components > 1 {
                VgrfLayout { components: 1, ..l }
            } else {
                VgrfLayout::flat(pitch[v])
            };
            pieces[v] = l.size() / pitch[v];
            vgrfs[Vgrf::from_usize(v)] = one;
            first_new[v] = vgrfs.len() as u32;
            for _ in 1..pieces[v] {
                vgrfs.push(one);
            }
        }
    }
    let old = std::mem::replace(&mut shader.vgrfs, vgrfs);
    let rename = |o: &mut Operand| {
        if o.file == RegFile::Vgrf && (o.nr as usize) < n && ok[o.nr as usize] {
            let pitch = pitch[o.nr as usize];
            let k = o.offset / pitch;
            if k > 0 {
                o.nr = first_new[o.nr as usize] + k - 1;
                o.offset -= k * pitch;
            }
        }
    };
    for &inst in &insts {
        rename(&mut shader.insts.dst[inst]);
        for s in shader.srcs_mut(inst) {
            rename(s);
        }
    }
    // Each whole-VGRF undef of a split VGRF: the same for every part.
    for b in 0..shader.layout.blocks.len() {
        let block = eubatch_ir::Block::from_usize(b);
        let list = std::mem::take(&mut shader.layout.blocks[block].insts);
        let mut out = Vec::with_capacity(list.len());
        for inst in list {
            out.push(inst);
            let dst = shader.insts.dst[inst];
            if shader.insts.opcode[inst] != eubatch_ir::Opcode::Undef
                || dst.file != RegFile::Vgrf
                || (dst.nr as usize) >= n
                || !ok[dst.nr as usize]
                || dst.offset != 0
                || shader.insts.size_written[inst] < old[dst.vgrf_nr()].size()
            {
                continue;
            }
            let v = dst.nr as usize;
            shader.insts.size_written[inst] = pitch[v];
            let ctl = shader.insts.control[inst];
            for k in 1..pieces[v] {
                let mut d = dst;
                d.nr = first_new[dst.nr as usize] + k - 1;
                // Each piece is undefined whole, as the VGRF it was part of.
                out.push(eubatch_ir::Builder::with_control(ctl).alu_sized(
                    shader,
                    eubatch_ir::Opcode::Undef,
                    d,
                    &[],
                    pitch[v],
                ));
            }
        }
        shader.layout.blocks[block].insts = out;
    }
    // What this round split: the VGRFs it cut (keeping their numbers) and the new pieces.
    let mut split = ok;
    split.resize(shader.vgrfs.len(), true);
    Some(split)
}

/// An `undef` of a whole VGRF.
fn is_whole_undef(shader: &Shader, inst: eubatch_ir::Inst) -> bool {
    let dst = shader.insts.dst[inst];
    shader.insts.opcode[inst] == eubatch_ir::Opcode::Undef
        && dst.file == RegFile::Vgrf
        && dst.offset == 0
        && (dst.nr as usize) < shader.vgrfs.len()
        && shader.insts.size_written[inst] >= shader.vgrfs[dst.vgrf_nr()].size()
}
