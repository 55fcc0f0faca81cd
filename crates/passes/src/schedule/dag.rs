//! The dependency graph of one block's instructions, as Mesa 22.3's
//! `fs_instruction_scheduler::calculate_deps` builds it before register allocation
//! (brw_schedule_instructions.cpp), on eubatch's slots instead of whole registers:
//!
//! - read after write and write after write on every VGRF and flag slot the access table
//!   says an instruction reads or writes ([`crate::analysis::access_table`]), each edge to
//!   the slot's last writer; write after read from the bottom up. A slot is 4 bytes of a
//!   VGRF (Mesa tracks whole registers of a VGRF), so two half-register values are
//!   independent here where Mesa orders them;
//! - scheduling barriers (Mesa's `is_scheduling_barrier` and `add_barrier_deps`): control
//!   flow, `halt_target`, and every instruction with an effect beyond its VGRF and flag
//!   writes ([`crate::analysis::access::has_side_effects`]: messages with side effects,
//!   EOT, writes to fixed, message or architecture registers; a raw `send` whose message
//!   only reads, [`eubatch_ir::message::only_reads`], has none), and, as Mesa does for an
//!   architecture register other than null, an instruction reading one (the accumulator
//!   too: eubatch does not track it apart) or reading the accumulator implicitly. A
//!   barrier is ordered after everything since the previous barrier and before everything
//!   up to the next.
//!
//! Latencies are Mesa's before register allocation: every instruction's is 1; a write after
//! read on a VGRF costs 0, on a flag 1; a write after write on a flag 0; barrier edges 0.
//! Edges keep the order they were added in, a repeated edge only raising its latency (Mesa's
//! `add_dep`): the children's order decides ties when the scheduler picks.
//!
//! Cost: linear in the block's accesses, plus for each barrier the instructions back to
//! the previous barrier and on to the next (Mesa's walk), once each.

use eubatch_ir::opcode::ControlFlow;
use eubatch_ir::operand::arf;
use eubatch_ir::{Inst, Opcode, RegFile, Shader};

use crate::analysis::access::has_side_effects;
use crate::analysis::access_table::AccessTable;

/// No node.
pub const NONE: u32 = u32::MAX;

/// One block's graph: nodes are the block's instructions in order (node `k` is the block's
/// `k`-th instruction).
#[derive(Default)]
pub struct Dag {
    /// Per node: where its children start in `children` (one more entry at the end).
    pub child_start: Vec<u32>,
    /// Children and the latency of the edge to each, grouped by parent, in the order the
    /// edges were added.
    pub children: Vec<(u32, u32)>,
    /// Per node: how many parents it has.
    pub parents: Vec<u32>,
}

impl Dag {
    /// The children of node `n`, with edge latencies.
    pub fn children(&self, n: u32) -> &[(u32, u32)] {
        &self.children
            [self.child_start[n as usize] as usize..self.child_start[n as usize + 1] as usize]
    }
}

/// What building graphs needs, kept from block to block: storage sized by the shader.
#[derive(Default)]
pub struct Builder {
    /// Per node of the block being built: whether it is a scheduling barrier.
    barrier: Vec<bool>,
    edges: Edges,
    /// Per slot: the last node that wrote it in the walk (`NONE`), and the slots touched.
    last_write: Vec<u32>,
    touched: Vec<u32>,
}

impl Builder {
    /// The graph of `insts` (one block of `shader`, whose accesses `table` holds).
    pub fn build(&mut self, shader: &Shader, table: &AccessTable, insts: &[Inst]) -> Dag {
        let n = insts.len();
        self.edges.clear();
        self.barrier.clear();
        self.barrier
            .extend(insts.iter().map(|&i| is_barrier(shader, i)));
        let slots = table.slots.count() as usize;
        if self.last_write.len() < slots {
            self.last_write.resize(slots, NONE);
        }
        let flag_start = table.slots.vgrf_slots;
        // Top down: barriers, read after write, write after write.
        for (k, &inst) in insts.iter().enumerate() {
            let k = k as u32;
            if self.barrier[k as usize] {
                self.edges.barrier_deps(&self.barrier, k);
            }
            let (defs, uses) = table.runs(inst);
            // Within a run, neighbouring slots mostly have one last writer: the edge to it
            // is added once, not once per slot (a repeated edge of the same latency changes
            // nothing, and a run's slots are all VGRF or all flag, so one latency).
            for r in uses {
                let mut last = NONE;
                for s in r.start.get() as usize..r.end.get() as usize {
                    let w = self.last_write[s];
                    if w != NONE && w != k && w != last {
                        self.edges.add(w, k, 1);
                        last = w;
                    }
                }
            }
            for (r, _, _) in defs {
                let mut last = NONE;
                for s in r.start.get() as usize..r.end.get() as usize {
                    let w = self.last_write[s];
                    if w == NONE {
                        self.touched.push(s as u32);
                    } else if w != k && w != last {
                        // Write after write: 1 on a VGRF, 0 on a flag (Mesa's
                        // last_conditional_mod edge).
                        self.edges.add(w, k, (s < flag_start as usize) as u32);
                        last = w;
                    }
                    self.last_write[s] = k;
                }
            }
        }
        self.clear_last_writes();
        // Bottom up: write after read (the reader before the next writer).
        for (k, &inst) in insts.iter().enumerate().rev() {
            let k = k as u32;
            let (defs, uses) = table.runs(inst);
            for r in uses {
                let mut last = NONE;
                for s in r.start.get() as usize..r.end.get() as usize {
                    let w = self.last_write[s];
                    if w != NONE && w != k && w != last {
                        self.edges.add(k, w, (s >= flag_start as usize) as u32);
                        last = w;
                    }
                }
            }
            for (r, _, _) in defs {
                for s in r.start.get() as usize..r.end.get() as usize {
                    if self.last_write[s] == NONE {
                        self.touched.push(s as u32);
                    }
                    self.last_write[s] = k;
                }
            }
        }
        self.clear_last_writes();
        self.edges.to_dag(n)
    }

    fn clear_last_writes(&mut self) {
        for &s in &self.touched {
            self.last_write[s as usize] = NONE;
        }
        self.touched.clear();
    }
}

/// A graph's edges as they are added, kept from block to block: (parent, child, latency)
/// in the order added, and where each (parent, child) pair is.
#[derive(Default)]
pub struct Edges {
    edges: Vec<(u32, u32, u32)>,
    seen: hashbrown::HashMap<(u32, u32), u32>,
}

impl Edges {
    pub fn clear(&mut self) {
        self.edges.clear();
        self.seen.clear();
    }

    /// Mesa's `add_dep`: `child` after `parent`; a repeated edge keeps its place and takes
    /// the larger latency.
    pub fn add(&mut self, parent: u32, child: u32, latency: u32) {
        debug_assert_ne!(parent, child);
        match self.seen.entry((parent, child)) {
            hashbrown::hash_map::Entry::Occupied(e) => {
                let lat = &mut self.edges[*e.get() as usize].2;
                *lat = (*lat).max(latency);
            }
            hashbrown::hash_map::Entry::Vacant(e) => {
                e.insert(self.edges.len() as u32);
                self.edges.push((parent, child, latency));
            }
        }
    }

    /// Mesa's `add_barrier_deps`: node `k` after every node back to the previous barrier
    /// (included) and before every node up to the next one (included); `barrier` has one
    /// entry per node of the block.
    pub fn barrier_deps(&mut self, barrier: &[bool], k: u32) {
        for p in (0..k).rev() {
            self.add(p, k, 0);
            if barrier[p as usize] {
                break;
            }
        }
        for c in k + 1..barrier.len() as u32 {
            self.add(k, c, 0);
            if barrier[c as usize] {
                break;
            }
        }
    }

    /// The graph of `n` nodes: edges grouped by parent, in the order they were added.
    pub fn to_dag(&self, n: usize) -> Dag {
        let mut dag = Dag {
            child_start: vec![0; n + 1],
            children: vec![(0, 0); self.edges.len()],
            parents: vec![0; n],
        };
        for &(p, c, _) in &self.edges {
            dag.child_start[p as usize + 1] += 1;
            dag.parents[c as usize] += 1;
        }
        for k in 0..n {
            dag.child_start[k + 1] += dag.child_start[k];
        }
        let mut fill: Vec<u32> = dag.child_start[..n].to_vec();
        for &(p, c, lat) in &self.edges {
            dag.children[fill[p as usize] as usize] = (c, lat);
            fill[p as usize] += 1;
        }
        dag
    }
}

/// Whether `inst` is ordered against everything around it (see the module's doc).
pub fn is_barrier(shader: &Shader, inst: Inst) -> bool {
    let op = shader.insts.opcode[inst];
    if op == Opcode::HaltTarget
        || op.control_flow() != ControlFlow::None
        || (has_side_effects(shader, inst) && !send_only_reads(shader, inst))
        || reads_accumulator_implicitly(op)
    {
        return true;
    }
    let arf_read = |o: &eubatch_ir::Operand| match o.file {
        RegFile::Arf => !(o.nr == arf::NULL || o.nr & 0xf0 == arf::FLAG),
        RegFile::Indirect | RegFile::VAddr => true,
        _ => false,
    };
    shader.srcs(inst).iter().any(arf_read) || arf_read(&shader.insts.dst[inst])
}

/// A raw `send` into a VGRF (or nowhere) whose message only reads
/// ([`eubatch_ir::message::only_reads`]): a texture fetch or a load moves freely between
/// barriers, as Mesa's sends without `send_has_side_effects` do.
fn send_only_reads(shader: &Shader, inst: Inst) -> bool {
    let Some(info) = shader.send_info(inst) else {
        return false;
    };
    let dst = &shader.insts.dst[inst];
    let srcs = shader.srcs(inst);
    shader.insts.opcode[inst] == Opcode::Send
        && (dst.file == RegFile::Vgrf || dst.is_null())
        && eubatch_ir::message::only_reads(
            info.sfid,
            info.desc,
            shader.insts.control[inst].eot(),
            eubatch_ir::message::descriptor_register(srcs).is_some(),
        )
}

/// Opcodes that read (and write) the accumulator without naming it: `mach`, `mac`, and the
/// carry and borrow of `addc` and `subb` (Mesa `backend_instruction::
/// reads_accumulator_implicitly`, `writes_accumulator_implicitly`).
fn reads_accumulator_implicitly(op: Opcode) -> bool {
    matches!(op, Opcode::Mach | Opcode::Mac | Opcode::Addc | Opcode::Subb)
}
