//! `mesa`: Mesa 22.3's graph-colouring allocator (brw_fs_reg_allocate.cpp over
//! util/register_allocate.c), the control the other allocators are measured against.
//!
//! The graph, node for node in Mesa's numbering (which decides ties in simplify):
//! - payload nodes, one per register below the first free one (aligned to the SIMD width's
//!   registers, as `payload_node_count`), forced to their register, each interfering with
//!   the VGRFs that start at or before its last access ([`THREAD_INPUTS`], Mesa's
//!   `calculate_payload_ranges`);
//! - once spilling has begun on gen7/8, the 16 MRF-hack nodes forced to g112-g127, the top
//!   ones (from `spill_base_mrf`) interfering with every VGRF;
//! - on gen8+, a node forced to g127 that every SIMD8 message destination interferes with
//!   ([`SEND_DST_NOT_R127`]);
//! - one node per accessed VGRF, of the class of its size in registers ([`classes`]),
//!   interfering by Mesa's live-range test on the analysis layer's intervals, widened to
//!   Mesa 22.3's register-granular ranges on its IR ([`live`]) ([`graph`]: touching ends
//!   do not interfere) and as instructions demand ([`Constraints::apart`]:
//!   [`SOURCE_DESTINATION_HAZARD`], [`SPLIT_SEND_PAYLOADS`]); an end-of-thread send's
//!   payload forced to the top of the file (`128 - size`, one lower on gen8+ to avoid g127,
//!   below the MRF-hack registers once spilling on gen7/8) and its second payload just below
//!   it ([`EOT_PAYLOAD`]);
//! - once spilling has begun on gen9+, the scratch header: one register interfering with
//!   everything.
//!
//! Colouring is [`colour`] (simplify, optimistic, select round robin). When it fails, the
//! VGRF Mesa spills is [`spill::best`]'s choice; Mesa spills it and colours again (its
//! `assign_regs` loop), and so does this allocator: the spilled VGRF's node stays, without
//! edges (as `ra_reset_node_interference` leaves it), what spilling adds to the graph comes
//! in ([`temps`]: a temporary per access of the spilled VGRF, the scratch header or MRF
//! hack from the first spill on), and colouring is retried until it succeeds.
//!
//! The answer (the choice the brief leaves open, made here): every VGRF Mesa's loop spills
//! is `NoFit`, in [`Outcome::spilled`] in Mesa's order, and every other accessed VGRF is at
//! its colour — a complete, checkable allocation of the rest, which one `NoFit` alone could
//! not always give (the graph without only Mesa's first choice may still not colour). The
//! first choice is exactly Mesa's on this IR; a driver that spills one VGRF per retry, as
//! Mesa 22.3 does, spills `spilled[0]` and asks again; one that spills every `NoFit` at
//! once gets the set Mesa's loop reaches on this graph (the temporaries are modelled, not
//! built, so the later choices can differ from Mesa's where its real spill code differs).
//! If nothing can be spilled and colouring still fails (Mesa fails the compile), the nodes
//! left uncoloured are `NoFit` too.
//!
//! Left `NoFit` from the start (not Mesa's: Mesa would assert or fail): a VGRF larger than
//! the registers above the inputs, and an end-of-thread payload whose forced register is
//! below g112 or overlaps another forced payload live at the same time.
//!
//! [`THREAD_INPUTS`]: crate::constraints::THREAD_INPUTS
//! [`SEND_DST_NOT_R127`]: crate::constraints::SEND_DST_NOT_R127
//! [`SOURCE_DESTINATION_HAZARD`]: crate::constraints::SOURCE_DESTINATION_HAZARD
//! [`SPLIT_SEND_PAYLOADS`]: crate::constraints::SPLIT_SEND_PAYLOADS
//! [`EOT_PAYLOAD`]: crate::constraints::EOT_PAYLOAD
//! [`Constraints::apart`]: crate::constraints::Constraints::apart

pub mod classes;
pub mod colour;
pub mod graph;
pub mod live;
pub mod spill;
pub mod temps;

use eubatch_ir::{Gen, Vgrf};

use crate::constraints::Constraints;
use crate::{Allocation, Allocator, Input, Placement, Reg};
use classes::Classes;
use graph::{Builder, Graph, NO_REG};

/// The allocator; it keeps the graph builder's lists from one allocation to the next
/// (the scheduling modes of one shader, each spill round's rebuild), so a rebuild does not
/// allocate them again.
#[derive(Default)]
pub struct Mesa {
    builder: Builder,
    live: live::Scratch,
}

impl Allocator for Mesa {
    fn allocate(&mut self, input: &Input<'_>) -> Allocation {
        run_with(input, &mut self.builder, &mut self.live).allocation
    }
}

/// What [`run`] answers.
pub struct Outcome {
    pub allocation: Allocation,
    /// The VGRFs spilled, in the order Mesa's loop chooses them (the first is Mesa's
    /// choice on this graph exactly).
    pub spilled: Vec<Vgrf>,
}

/// Mesa's `BRW_MAX_MRF` on gen7+, and the first GRF its MRF hack uses (`GFX7_MRF_HACK_START`).
const MAX_MRF: u32 = 16;
const MRF_HACK_START: u32 = 112;

/// Where each kind of node is, for one build of the graph.
struct Layout {
    payload: u32,
    /// First MRF-hack node, when present.
    mrf: Option<u32>,
    r127: Option<u32>,
    first_vgrf: u32,
    /// The scratch header node, when present.
    header: Option<u32>,
}

/// The shader's facts every build reads.
struct Shape<'a> {
    input: &'a Input<'a>,
    classes: Classes,
    regs: u32,
    gen: Gen,
    /// Registers per SIMD-width value (`reg_width`, Mesa's `dispatch_width / 8`).
    reg_width: u32,
    /// VGRF of each VGRF node, in order.
    vgrfs: Vec<u32>,
    /// Per VGRF node: its live range (start, end) as Mesa compares them.
    live: Vec<(u32, u32)>,
    /// Per VGRF: its node's index among the VGRF nodes, or `u32::MAX`.
    node_of: Vec<u32>,
}

impl Shape<'_> {
    /// `spill_base_mrf`: the first MRF spilling uses (the registers from there to g127
    /// are kept for it once spilling has begun on gen7/8).
    fn spill_base_mrf(&self) -> u32 {
        MAX_MRF - self.reg_width - 1
    }

    fn layout(&self, spilling: bool) -> Layout {
        let c = self.input.constraints;
        let payload = c
            .first_free_grf
            .next_multiple_of(self.reg_width)
            .min(self.regs);
        let mut next = payload;
        let mrf = (spilling && self.gen < Gen::Gen9).then(|| {
            next += MAX_MRF;
            next - MAX_MRF
        });
        let r127 = (self.gen >= Gen::Gen8).then(|| {
            next += 1;
            next - 1
        });
        Layout {
            payload,
            mrf,
            r127,
            first_vgrf: next,
            header: (spilling && self.gen >= Gen::Gen9).then_some(next + self.vgrfs.len() as u32),
        }
    }

    /// The graph Mesa colours with `spilled` VGRFs spilled (`spilling`: once any has been,
    /// the MRF hack or scratch header is in): spilled VGRFs are nodes without edges. Also
    /// the end-of-thread payload nodes it forced (a spilled payload stays forced, as Mesa
    /// forces before it spills, and its temporary takes the same register).
    fn build(
        &self,
        spilled: &[bool],
        spilling: bool,
        b: &mut Builder,
    ) -> (Graph, Layout, Vec<u32>) {
        let c: &Constraints = self.input.constraints;
        let l = self.layout(spilling);
        // (A guess at the edges: a few dozen neighbours per value is usual, and the list
        // is one allocation instead of a dozen doublings.)
        let nodes = self.vgrfs.len() + 256;
        b.reset(nodes, 24 * nodes);
        for r in 0..l.payload {
            let n = b.node(0);
            b.force(n, r);
        }
        if l.mrf.is_some() {
            for i in 0..MAX_MRF {
                let n = b.node(0);
                b.force(n, MRF_HACK_START + i);
            }
        }
        if l.r127.is_some() {
            let n = b.node(0);
            b.force(n, 127);
        }
        for &v in &self.vgrfs {
            b.node(Classes::of_len(self.input.problem.regs[v as usize]) as u32);
        }
        let header = l.header.map(|h| {
            let n = b.node(0);
            debug_assert_eq!(n, h);
            n
        });
        // Nodes that take part: VGRFs not spilled.
        let live_nodes: Vec<u32> = (0..self.vgrfs.len() as u32)
            .filter(|&k| !spilled[self.vgrfs[k as usize] as usize])
            .collect();
        let ranges: Vec<(u32, u32)> = live_nodes.iter().map(|&k| self.live[k as usize]).collect();
        let nodes: Vec<u32> = live_nodes.iter().map(|&k| l.first_vgrf + k).collect();
        b.interfere_intervals(&nodes, &ranges);
        // (Edges to nodes outside the sweep, each pair once: `interfere_new`.)
        // A payload register meets the values starting at or before its last access
        // (setup_live_interference's `node_start_ip <= payload_last_use_ip`); the scratch
        // header starts at 0.
        let inputs = c.first_free_grf.min(l.payload);
        for (&n, &(start, _)) in nodes.iter().zip(&ranges) {
            for r in 0..inputs {
                if c.input_last_use[r as usize].is_some_and(|last| start <= last) {
                    b.interfere_new(n, r);
                }
            }
        }
        if let Some(h) = header {
            for r in 0..inputs {
                if c.input_last_use[r as usize].is_some() {
                    b.interfere_new(h, r);
                }
            }
        }
        for &n in nodes.iter().chain(header.iter()) {
            if let Some(m) = l.mrf {
                for i in self.spill_base_mrf()..MAX_MRF {
                    b.interfere_new(n, m + i);
                }
            }
            if let Some(h) = header.filter(|&h| h != n) {
                b.interfere_new(n, h);
            }
        }
        let node = |v: Vgrf| -> Option<u32> {
            let k = *self.node_of.get(v.index())?;
            // (Not `then_some`: its argument, evaluated for `k == u32::MAX` too, overflows.)
            if k == u32::MAX || spilled[v.index()] {
                return None;
            }
            Some(l.first_vgrf + k)
        };
        if let Some(r) = l.r127 {
            for (v, &off) in c.not_r127.iter().enumerate() {
                if let (true, Some(n)) = (off, node(Vgrf::from_usize(v))) {
                    b.interfere_new(n, r);
                }
            }
        }
        for p in &c.apart {
            if let (Some(x), Some(y)) = (node(p.a), node(p.b)) {
                b.interfere(x, y);
            }
        }
        // Registers the rules keep from VGRFs beyond Mesa's own (a register budget; the
        // spill message registers of a shader spilled before it came here, which the MRF
        // hack covers too): a node forced to each, meeting every VGRF node that may not take
        // it (end-of-thread payloads may take what only they may).
        let kept = c.reserved | c.eot_only;
        for g in (0..128u32).filter(|&g| kept >> g & 1 == 1) {
            let r = b.node(0);
            b.force(r, g);
            let eot_may = c.eot_only >> g & 1 == 1 && c.reserved >> g & 1 == 0;
            for (k, &v) in self.vgrfs.iter().enumerate() {
                if spilled[v as usize] || (eot_may && c.is_eot[v as usize]) {
                    continue;
                }
                b.interfere_new(l.first_vgrf + k as u32, r);
            }
        }
        // End-of-thread payloads at the top, per send: the first VGRF it reads, then the
        // second payload below it.
        let mut eot_top = Vec::new();
        let mut k = 0;
        while k < c.eot_reads.len() {
            let inst = c.eot_reads[k].0;
            let mut reg = self.regs;
            if l.mrf.is_some() {
                reg = reg.saturating_sub(MAX_MRF - self.spill_base_mrf());
            } else if l.r127.is_some() {
                reg -= 1;
            }
            while k < c.eot_reads.len() && c.eot_reads[k].0 == inst {
                let v = c.eot_reads[k].1;
                let size = self.input.problem.regs[v.index()].max(1);
                reg = reg.saturating_sub(size);
                let any = self.node_of.get(v.index()).filter(|&&k| k != u32::MAX);
                if let Some(n) = any.map(|&k| l.first_vgrf + k) {
                    b.force(n, reg);
                    eot_top.push(n);
                }
                k += 1;
            }
        }
        (b.finish(), l, eot_top)
    }
}

/// Runs Mesa's allocation loop on `input`.
pub fn run(input: &Input<'_>) -> Outcome {
    run_with(
        input,
        &mut Builder::default(),
        &mut live::Scratch::default(),
    )
}

/// [`run`] with a builder whose storage it may reuse (what [`Mesa`] keeps).
fn run_with(input: &Input<'_>, builder: &mut Builder, scratch: &mut live::Scratch) -> Outcome {
    let (shader, p, c) = (input.shader, input.problem, input.constraints);
    // Mesa's live ranges: the analysis layer's widened where Mesa's register-granular
    // liveness keeps a value live longer ([`live`]).
    let wide = if c.mesa22_liveness {
        live::widen(
            shader,
            &input.intervals.access,
            &p.live,
            c.undefs_removed,
            scratch,
        )
    } else {
        p.live.clone()
    };
    let n = wide.len();
    let mut out = Allocation::unused(n);
    let regs = c.grf_count.min(128);
    let room = regs.saturating_sub(c.first_free_grf);
    let mut vgrfs = Vec::new();
    let mut node_of = vec![u32::MAX; n];
    let mut live = Vec::new();
    for (v, iv) in wide.iter().enumerate() {
        if iv.is_empty() {
            continue;
        }
        if p.regs[v].max(1) > room {
            out.placement[v] = Placement::NoFit;
            continue;
        }
        node_of[v] = vgrfs.len() as u32;
        vgrfs.push(v as u32);
        live.push((iv.start.get(), iv.end.get()));
    }
    let max_len = vgrfs
        .iter()
        .map(|&v| p.regs[v as usize].max(1))
        .max()
        .unwrap_or(1);
    let shape = Shape {
        input,
        classes: Classes::new(regs, max_len),
        regs,
        gen: shader.target,
        reg_width: (shader.dispatch_width as u32 / 8).max(1),
        vgrfs,
        live,
        node_of,
    };
    let mut cost = spill::costs(shader, &wide);
    // Spill temporaries of earlier rounds are never spilled again (Mesa's no_spill).
    for (c, &u) in cost.iter_mut().zip(&c.unspillable) {
        if u {
            *c = 0.0;
        }
    }
    let mut spilled = vec![false; n];
    let mut node_cost = Vec::new();
    let mut spill_order: Vec<Vgrf> = Vec::new();
    // The graph is built without spilling's nodes, and once more with them after the first
    // spill (Mesa's rebuild with allow_spilling, then the spill's temporaries); each later
    // spill removes a node's edges and adds its temporaries.
    let mut built: Option<Built> = None;
    // Each round spills one more VGRF: at most one round per VGRF node.
    // A shader spilled before it came here (by the spill driver between rounds) already
    // holds scratch messages: on gen7/8 their message registers are kept from the start.
    let spilled_before = c.unspillable.iter().any(|&u| u) && shape.gen < Gen::Gen9;
    for _ in 0..=shape.vgrfs.len() + 1 {
        let spilling = spilled_before || !spill_order.is_empty();
        let b = match &mut built {
            Some(b) if b.spilling == spilling => b,
            _ => {
                if let Some(old) = built.take() {
                    builder.recycle(old.graph);
                }
                let (g, l, eot) = shape.build(&spilled, spilling, builder);
                let vgrf = |node: u32| shape.vgrfs[(node - l.first_vgrf) as usize] as usize;
                let mut bad = bad_eot_payloads(&g, &eot, c);
                // (One already out has no place to break the rule from.)
                bad.retain(|&node| !spilled[vgrf(node)]);
                if !bad.is_empty() {
                    // Not Mesa's: its forced payload breaks the rule; take it out and
                    // build again.
                    for node in bad {
                        spilled[vgrf(node)] = true;
                        out.placement[vgrf(node)] = Placement::NoFit;
                    }
                    builder.recycle(g);
                    continue;
                }
                let mut b = Built::new(&shape, g, l, spilling);
                for &v in &spill_order {
                    b.add_spill(&shape, &spilled, v.index());
                }
                built.insert(b)
            }
        };
        let first_vgrf = b.layout.first_vgrf;
        let vgrf_of = |node: u32| -> Option<usize> {
            let k = node.checked_sub(first_vgrf)? as usize;
            shape.vgrfs.get(k).map(|&v| v as usize)
        };
        let f = match colour::colour(&b.graph, &shape.classes, true, regs) {
            Ok(reg) => {
                place(&shape, &b.layout, &reg, &spilled, &mut out);
                break;
            }
            Err(f) if input.only_if_fits => {
                // Nothing to spill is wanted: what was coloured stays, the rest does not
                // fit (as when Mesa fails the compile, below).
                place_coloured(&shape, &b.layout, &f, &spilled, &mut out);
                break;
            }
            Err(f) => f,
        };
        // Costs per node: only VGRFs not yet spilled have one (temporaries and the scratch
        // header are Mesa's no_spill).
        node_cost.clear();
        node_cost.extend((0..b.graph.len() as u32).map(|node| match vgrf_of(node) {
            Some(v) if !spilled[v] => cost[v],
            _ => 0.0,
        }));
        match spill::best(&b.graph, &shape.classes, &node_cost, &f)
            .and_then(|n| Some((n, vgrf_of(n)?)))
        {
            Some((node, v)) => {
                spilled[v] = true;
                spill_order.push(Vgrf::from_usize(v));
                out.placement[v] = Placement::NoFit;
                if spilling {
                    b.graph.remove(node, &shape.classes);
                    b.add_spill(&shape, &spilled, v);
                }
            }
            None => {
                // Mesa fails the compile here: what was coloured stays, the rest does
                // not fit.
                place_coloured(&shape, &b.layout, &f, &spilled, &mut out);
                break;
            }
        }
    }
    if let Some(done) = built {
        builder.recycle(done.graph);
    }
    Outcome {
        allocation: out,
        spilled: spill_order,
    }
}

/// Places what a failed colouring coloured; the rest (the node that found no register, and
/// those still on the stack) does not fit.
fn place_coloured(
    shape: &Shape<'_>,
    layout: &Layout,
    f: &colour::Failure,
    spilled: &[bool],
    out: &mut Allocation,
) {
    let mut reg = f.reg.clone();
    for (node, r) in reg.iter_mut().enumerate() {
        if f.in_stack(node as u32) || node as u32 == f.node {
            *r = NO_REG;
        }
    }
    place(shape, layout, &reg, spilled, out);
}

/// A graph being coloured, with what spilling has added to it.
struct Built {
    graph: Graph,
    layout: Layout,
    spilling: bool,
    /// VGRF nodes with their ranges, by start, for the temporaries.
    by_start: Vec<(u32, u32, u32)>,
    temps: temps::Temps,
}

impl Built {
    fn new(shape: &Shape<'_>, graph: Graph, layout: Layout, spilling: bool) -> Built {
        let mut graph = graph;
        graph.weigh(&shape.classes);
        let mut by_start: Vec<(u32, u32, u32)> = shape
            .live
            .iter()
            .enumerate()
            .map(|(k, &(s, e))| (s, e, layout.first_vgrf + k as u32))
            .collect();
        by_start.sort_unstable();
        Built {
            graph,
            layout,
            spilling,
            by_start,
            temps: temps::Temps::default(),
        }
    }

    /// Adds the temporaries of spilling VGRF `v`.
    fn add_spill(&mut self, shape: &Shape<'_>, spilled: &[bool], v: usize) {
        let l = &self.layout;
        let node_of = |w: usize| -> Option<u32> {
            let k = *shape.node_of.get(w)?;
            (k != u32::MAX).then_some(l.first_vgrf + k)
        };
        let mrf = match l.mrf {
            Some(m) => m + shape.spill_base_mrf()..m + MAX_MRF,
            None => 0..0,
        };
        let around = temps::Around {
            shader: shape.input.shader,
            constraints: shape.input.constraints,
            classes: &shape.classes,
            inputs: shape.input.constraints.first_free_grf.min(l.payload),
            mrf,
            r127: l.r127,
            header: l.header,
            spill_max_size: shape.reg_width,
            node_of: &node_of,
            spilled,
            by_start: &self.by_start,
        };
        self.temps.spill(&mut self.graph, &around, v);
        self.graph.compact();
    }
}

/// Answers every VGRF node not spilled with its register (`NoFit` when it has none).
fn place(shape: &Shape<'_>, l: &Layout, reg: &[u32], spilled: &[bool], out: &mut Allocation) {
    for (k, &v) in shape.vgrfs.iter().enumerate() {
        if spilled[v as usize] {
            continue;
        }
        let r = reg[(l.first_vgrf as usize) + k];
        out.placement[v as usize] = if r == NO_REG {
            Placement::NoFit
        } else {
            Placement::At(Reg { grf: r, offset: 0 })
        };
    }
}

/// End-of-thread payload nodes whose forced register breaks [`EOT_PAYLOAD`] or
/// overlaps a forced neighbour (Mesa forces without looking).
///
/// [`EOT_PAYLOAD`]: crate::constraints::EOT_PAYLOAD
fn bad_eot_payloads(g: &Graph, eot: &[u32], c: &Constraints) -> Vec<u32> {
    let floor = c.eot_first_grf.max(c.first_free_grf);
    let mut bad = Vec::new();
    for &n in eot {
        let r = g.forced[n as usize];
        let len = Classes::len(g.class[n as usize] as usize);
        let clash = g.neighbours(n).any(|m| {
            let rm = g.forced[m as usize];
            rm != NO_REG && rm < r + len && r < rm + Classes::len(g.class[m as usize] as usize)
        });
        if r < floor || clash {
            bad.push(n);
        }
    }
    bad
}
