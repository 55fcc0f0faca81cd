//! What spilling a VGRF adds to Mesa's graph before it colours again (brw_fs_reg_allocate.cpp
//! `spill_reg`, `alloc_spill_reg`, and `setup_inst_interference` run on the instructions it
//! inserts): every read of the spilled VGRF gets a fill into a new temporary of the
//! registers read, every write a new temporary of the registers written, spilled after the
//! instruction. Each temporary is a node (after every other, in order of creation) of the
//! class of its size, never spilled itself (`no_spill`), live around its instruction only
//! (`ip - 1 .. ip + 1` in the instruction numbering liveness had, which spilling does not
//! renumber), so it interferes with:
//! - the thread's inputs accessed at or after `ip - 1`, the MRF-hack registers (gen7/8) and
//!   the scratch header (gen9+);
//! - every VGRF whose range meets `ip - 1 .. ip + 1` by Mesa's test (a VGRF live at `ip`),
//!   spilled ones included: ranges are not recomputed, so a VGRF spilled earlier meets the
//!   temporaries of later spills;
//! - the other temporaries of the same instruction, of this spill or earlier ones;
//! - g127 on gen8+ when it is the destination of a SIMD8 message: a fill (gen8's scratch
//!   read always; gen9's oword block read when it reads an odd number of registers, being
//!   SIMD8), the fill before a partial or non-per-channel write, or the instruction's own
//!   destination ([`keeps_dst_off_r127`]);
//! - what the instruction keeps apart from the spilled VGRF ([`Constraints::apart`]), now
//!   kept apart from its temporaries.
//!
//! A temporary read by an end-of-thread send takes the spilled payload's forced register.
//!
//! Limits: the spill and fill messages are not built, only what they add to the graph;
//! gen7's MRF-based messages (no g127 node there) and LSC (gen12.5) are not distinguished.
//! Finding the VGRFs live at an instruction walks those started by then (sorted by start
//! once): O(VGRFs) per temporary at worst.
//!
//! [`keeps_dst_off_r127`]: crate::constraints::keeps_dst_off_r127
//! [`Constraints::apart`]: crate::constraints::Constraints::apart

use eubatch_ir::{Gen, Opcode, RegFile, Shader};

use super::classes::Classes;
use super::graph::{Graph, NO_REG};
use crate::constraints::{keeps_dst_off_r127, Constraints};
use eubatch_ir::size_read::{regs_read, regs_written};

/// The nodes of a built graph the temporaries meet.
pub struct Around<'a> {
    pub shader: &'a Shader,
    pub constraints: &'a Constraints,
    pub classes: &'a Classes,
    /// Payload nodes holding the thread's inputs: `0..inputs`.
    pub inputs: u32,
    /// The MRF-hack nodes temporaries meet (gen7/8).
    pub mrf: std::ops::Range<u32>,
    pub r127: Option<u32>,
    pub header: Option<u32>,
    /// Registers per scratch message at most (Mesa's `spill_max_size`).
    pub spill_max_size: u32,
    /// Per VGRF: its node, if it has one.
    pub node_of: &'a dyn Fn(usize) -> Option<u32>,
    /// Per VGRF: whether it is spilled (its accesses are temporaries now).
    pub spilled: &'a [bool],
    /// VGRF nodes with their ranges, by start.
    pub by_start: &'a [(u32, u32, u32)],
}

/// The temporaries made so far: (instruction number, node).
#[derive(Default)]
pub struct Temps {
    at: Vec<(u32, u32)>,
}

impl Temps {
    /// Adds to `g` what spilling VGRF `v` adds.
    pub fn spill(&mut self, g: &mut Graph, a: &Around<'_>, v: usize) {
        let shader = a.shader;
        let reg = shader.reg_size();
        let gen = shader.target;
        let forced = (a.node_of)(v).map_or(NO_REG, |n| g.forced[n as usize]);
        let apart: Vec<_> = a
            .constraints
            .apart
            .iter()
            .filter(|p| p.a.index() == v || p.b.index() == v)
            .collect();
        let mut mine: Vec<u32> = Vec::new();
        for (ip, inst) in shader.layout.insts().enumerate() {
            let ip = ip as u32;
            mine.clear();
            let ctl = shader.insts.control[inst];
            for (k, s) in shader.srcs(inst).iter().enumerate() {
                if s.file != RegFile::Vgrf || s.nr as usize != v {
                    continue;
                }
                let count = regs_read(shader, inst, k).max(1);
                let t = self.temporary(g, a, ip, count);
                // The fill: gen8's scratch read, gen9's block read of the largest power of
                // two dividing the registers (up to 4), SIMD8 for an odd count.
                let width = (count * 8).trailing_zeros().min(5);
                if gen == Gen::Gen8 || (gen >= Gen::Gen9 && (1u32 << width) < 16) {
                    self.off_r127(g, a, t);
                }
                if ctl.eot() && forced != NO_REG {
                    g.forced[t as usize] = forced;
                }
                mine.push(t);
            }
            let d = &shader.insts.dst[inst];
            let op = shader.insts.opcode[inst];
            if d.file == RegFile::Vgrf && d.nr as usize == v && op != Opcode::Undef {
                let t = self.temporary(g, a, ip, regs_written(shader, inst).max(1));
                let exec = ctl.exec_size as u32;
                let width = 8 * d.footprint(exec).div_ceil(reg).min(a.spill_max_size);
                let per_channel = d.stride == 1 && d.ty.size() == 4 && exec == width;
                let partial = (ctl.predicate != eubatch_ir::shader::Predicate::None
                    && op != Opcode::Sel)
                    || exec * d.ty.size() < 32
                    || d.stride != 1
                    || !d.offset.is_multiple_of(reg);
                let fill_first = partial || (!ctl.no_mask() && !per_channel);
                if fill_first && (gen == Gen::Gen8 || (gen >= Gen::Gen9 && width < 16)) {
                    self.off_r127(g, a, t);
                }
                if keeps_dst_off_r127(shader, inst) {
                    self.off_r127(g, a, t);
                }
                mine.push(t);
            }
            if mine.is_empty() {
                continue;
            }
            for p in apart.iter().filter(|p| p.inst == inst) {
                let other = if p.a.index() == v { p.b } else { p.a };
                // (A spilled partner's temporaries at this instruction meet these already.)
                if a.spilled[other.index()] {
                    continue;
                }
                if let Some(o) = (a.node_of)(other.index()) {
                    for &t in &mine {
                        g.add_edge(t, o, a.classes);
                    }
                }
            }
        }
    }

    /// A temporary of `count` registers at instruction `ip` with the interference of
    /// Mesa's `setup_live_interference(n, ip - 1, ip + 1)` and `alloc_spill_reg`.
    fn temporary(&mut self, g: &mut Graph, a: &Around<'_>, ip: u32, count: u32) -> u32 {
        let cl = a.classes;
        let t = g.add_node(Classes::of_len(count.min(cl.count() as u32)) as u32);
        // Inputs accessed at or after ip - 1.
        for p in 0..a.inputs {
            let last = a.constraints.input_last_use[p as usize];
            if last.is_some_and(|last| ip as i64 - 1 <= last as i64) {
                g.add_edge(t, p, cl);
            }
        }
        for m in a.mrf.clone() {
            g.add_edge(t, m, cl);
        }
        if let Some(h) = a.header {
            g.add_edge(t, h, cl);
        }
        for &(start, end, n) in a.by_start {
            if start > ip {
                break;
            }
            // !(ip + 1 <= start || end <= ip - 1)
            if end >= ip {
                g.add_edge(t, n, cl);
            }
        }
        for &(at, other) in &self.at {
            if at == ip {
                g.add_edge(t, other, cl);
            }
        }
        self.at.push((ip, t));
        t
    }

    fn off_r127(&self, g: &mut Graph, a: &Around<'_>, t: u32) {
        if let Some(r) = a.r127 {
            g.add_edge(t, r, a.classes);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::graph::Builder;
    use super::*;

    #[test]
    fn a_fill_meets_what_is_live_at_its_instruction() {
        // vgrf0 [0,2] is spilled; vgrf1 [1,3] is live where vgrf0 is read (ip 2), vgrf2
        // [3,4] is not. Nodes: g0-g1 inputs (0, 1), g127 (2), vgrf0-2 (3-5), header (6).
        let s = eubatch_ir::text::parse_shader(
            "shader \"t\" stage FS width 8 target skl
vgrf0 1x32
vgrf1 1x32
vgrf2 1x32
block0:
    mov(8) vgrf0:F, g1<8,8,1>:F
    mov(8) vgrf1:F, g1<8,8,1>:F
    add(8) vgrf2:F, vgrf0:F, vgrf1:F
    mul(8) vgrf2:F, vgrf2:F, vgrf1:F
    mov(8) g10<8,8,1>:F, vgrf2:F
",
        )
        .unwrap();
        let c = Constraints::of(&s).unwrap();
        let cl = Classes::new(128, 1);
        let mut b = Builder::default();
        for _ in 0..7 {
            b.node(0);
        }
        let mut g = b.finish();
        g.weigh(&cl);
        let by_start = [(0, 2, 3), (1, 3, 4), (2, 4, 5)];
        let node_of = |v: usize| Some(3 + v as u32);
        let spilled = [true, false, false];
        let a = Around {
            shader: &s,
            constraints: &c,
            classes: &cl,
            inputs: 2,
            mrf: 0..0,
            r127: Some(2),
            header: Some(6),
            spill_max_size: 1,
            node_of: &node_of,
            spilled: &spilled,
            by_start: &by_start,
        };
        Temps::default().spill(&mut g, &a, 0);
        // Two temporaries: the write at ip 0 (node 7), the read at ip 2 (node 8).
        assert_eq!(g.len(), 9);
        let row = |n: u32| {
            let mut r: Vec<u32> = g.neighbours(n).collect();
            r.sort();
            r
        };
        // The write's (ip 0): g1 (read until ip 1; g0 is never accessed), header, vgrf0
        // (live at 0). The fill's (ip 2): g1 (its last access at 1 = ip - 1), g127 (a SIMD8
        // block read), vgrf0, vgrf1 and vgrf2 (its range starts at 2), header.
        assert_eq!(c.input_last_use[..2], [None, Some(1)]);
        assert_eq!(row(7), vec![1, 3, 6]);
        assert_eq!(row(8), vec![1, 2, 3, 4, 5, 6]);
    }
}
