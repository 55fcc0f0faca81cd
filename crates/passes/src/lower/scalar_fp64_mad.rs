//! A 64-bit `mad` reading a scalar (`<0>`) source on gen9 reads it with stride 1 instead:
//! three-source instructions are Align16 before gen10 and 64-bit types cannot use the
//! replicate control ([`eubatch_ir::region_rules`], "three-source Align16 regions"). Mesa
//! 25 computes uniform values in SIMD8 NoMask "scalar" VGRFs (`brw_reg::is_scalar`: every
//! channel of the group holds the value) and reads them `<0>`; its
//! `brw_lower_scalar_fp64_MAD` (brw_lower.cpp, run after SIMD-width lowering) makes such a
//! DF `mad` source `is_scalar = false, stride = 1`, which reads the same value in every
//! channel. Mesa's printer does not show `is_scalar`, so here the VGRF must be seen to be
//! one: every write of it is an unpredicated NoMask ALU instruction of channel group 0, at
//! least as wide as the `mad`, writing 64-bit elements, those read, with stride 1, every source an
//! immediate or a scalar region (so every channel computes the same value). Any other
//! scalar DF source is copied into a temporary of stride 1 first
//! (`mov(N) tmp:DF, src<0>:DF`, a two-source instruction, which may replicate it).
//!
//! Rules that limit it: gen9 only (Mesa's pass; gen8's DF `mad` sources come from 22.3's
//! copy propagation, which never makes them scalar; gen7 fp64 is vec4 here), VGRF
//! sources (a scalar from a fixed register or a push constant is copied).

use eubatch_ir::region_rules::element_stride;
use eubatch_ir::{Builder, Gen, Inst, Opcode, Operand, RegFile, Shader, Type, VgrfLayout};

use crate::analysis::changed::Changed;
use crate::PassCx;

/// Scalar code: operands read as Align1 regions.
pub const SCOPE: crate::manager::Scope = crate::manager::Scope::SCALAR;

pub fn run(shader: &mut Shader, _cx: &mut PassCx) -> Changed {
    // It runs once per pipeline: whatever it changed, every analysis is dropped.
    Changed::when(lower(shader), Changed::EVERYTHING)
}

/// Whether `inst` is a 64-bit `mad` with a scalar source on gen9.
fn candidate(shader: &Shader, inst: Inst) -> bool {
    shader.insts.opcode[inst] == Opcode::Mad
        && shader.insts.dst[inst].ty.size() == 8
        && shader
            .srcs(inst)
            .iter()
            .any(|s| s.ty.size() == 8 && element_stride(s) == Some(0))
}

fn lower(shader: &mut Shader) -> bool {
    if shader.target != Gen::Gen9 {
        return false;
    }
    if !shader.layout.insts().any(|i| candidate(shader, i)) {
        return false;
    }
    let writes = Writes::of(shader);
    super::replace_each(shader, Opcode::Mad, |shader, inst| {
        if !candidate(shader, inst) {
            return None;
        }
        let ctl = shader.insts.control[inst];
        let exec = ctl.exec_size as u32;
        let mut before = Vec::new();
        for k in 0..3 {
            let s = shader.srcs(inst)[k];
            if s.ty.size() != 8 || element_stride(&s) != Some(0) {
                continue;
            }
            let widened = if writes.is_scalar(shader, &s, exec) {
                Operand { stride: 1, ..s }
            } else {
                let tmp = shader.vgrfs.push(VgrfLayout::flat(exec * 8)).index() as u32;
                let t = Operand::vgrf(tmp, 0, Type::DF, 1);
                let mut from = s;
                from.mods = eubatch_ir::Mods::NONE;
                let b = Builder::channels_of(ctl);
                before.push(b.mov(shader, t, from));
                Operand { mods: s.mods, ..t }
            };
            shader.srcs_mut(inst)[k] = widened;
        }
        before.push(inst);
        Some(before)
    })
}

/// Per VGRF, the writes that make it a scalar one, if all of them do: the narrowest such
/// write's width and the bytes every write covers (`None`: some write does not).
struct Writes {
    of: Vec<Option<(u32, u32, u32)>>,
    written: Vec<bool>,
}

impl Writes {
    fn of(shader: &Shader) -> Writes {
        let n = shader.vgrfs.len();
        let mut of: Vec<Option<(u32, u32, u32)>> = vec![None; n];
        let mut written = vec![false; n];
        let mut bad = vec![false; n];
        for i in shader.layout.insts() {
            let d = shader.insts.dst[i];
            if d.file != RegFile::Vgrf || (d.nr as usize) >= n {
                continue;
            }
            let v = d.nr as usize;
            let c = shader.insts.control[i];
            let exec = c.exec_size as u32;
            let scalar_srcs = shader.srcs(i).iter().all(|s| {
                s.file == RegFile::Imm || s.file == RegFile::Bad || element_stride(s) == Some(0)
            });
            let ok = shader.insts.opcode[i].alu_arity().is_some()
                && c.predicate == eubatch_ir::shader::Predicate::None
                && c.no_mask()
                && c.group == 0
                && d.stride == 1
                && d.ty.size() == 8
                && scalar_srcs;
            if !ok {
                bad[v] = true;
                continue;
            }
            let (lo, hi) = (d.offset, d.offset + exec * d.ty.size());
            let w = match (written[v], of[v]) {
                (false, _) => (exec, lo, hi),
                // The bytes every write covers, the narrowest width.
                (true, Some((e, a, b))) => (e.min(exec), a.max(lo), b.min(hi)),
                (true, None) => continue,
            };
            written[v] = true;
            of[v] = Some(w);
        }
        for (o, b) in of.iter_mut().zip(bad) {
            if b {
                *o = None;
            }
        }
        Writes { of, written }
    }

    /// Whether `s`, read by `exec` channels with stride 1 instead of 0, reads the same
    /// value in every channel.
    fn is_scalar(&self, shader: &Shader, s: &Operand, exec: u32) -> bool {
        if s.file != RegFile::Vgrf || (s.nr as usize) >= self.of.len() {
            return false;
        }
        let v = s.nr as usize;
        let Some((width, lo, hi)) = self.of[v].filter(|_| self.written[v]) else {
            return false;
        };
        let end = s.offset + exec * s.ty.size();
        width >= exec
            && lo <= s.offset
            && end <= hi
            && end <= shader.vgrfs[s.vgrf_nr()].size()
            // The elements read are whole elements of what was written.
            && (s.offset - lo) % s.ty.size() == 0
    }
}
