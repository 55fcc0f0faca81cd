//! vec4 dead-channel elimination: a component of a vec4 value that nothing reads afterwards
//! is not written — the instruction's writemask loses it, and an instruction left with no
//! component goes (Mesa: brw_vec4_dead_code_eliminate.cpp `dead_code_eliminate`, which
//! tracks liveness per register and component and clears dead writemask bits). eubatch's
//! `dce` takes every vec4 access whole (a VGRF is live while any part of it is read), so
//! `.zw` written and only `.xy` read keeps the `.zw` writes; this pass is what sees them.
//!
//! The model: liveness of the dwords of every VGRF, solved over the control-flow graph
//! (backwards, to a fixed point across loops), with the simulator's layout of an Align16
//! operand: half `h` of an instruction (vertex `h` of SIMD4x2; one half at execution size
//! 4) is a vec4 of elements from `offset + h * 4 * size`, component `k` at `k * size`
//! (a DF dvec4 is 32 bytes a vertex). An ALU instruction of execution size 4 or 8 whose
//! VGRF sources have its destination's element size (4 or 8 bytes) reads, per component
//! `c` its writemask writes, component `swizzle[c]` of each source — all four components
//! for the cross-channel `dp2`, `dp3`, `dp4`, `dph`, `line` and for an instruction writing
//! a flag (read by predicates this pass does not follow). When its destination is such a
//! VGRF too, without a conditional modifier or an implicit accumulator write, it writes the
//! components of its writemask, and those are what may be dropped. Every other instruction
//! reads every dword of each VGRF it names and defines nothing, and is never changed here.
//!
//! Rules that limit it: only ALU instructions shrink (Mesa's `can_do_writemask`: messages,
//! pull-constant loads and the DF helpers take no writemask); a DF writemask never becomes
//! the 32-bit-only `XY` or `ZW` (the target's rule, `df_align16::writemask_legal`; it stays
//! whole instead); a flag-writing instruction keeps every component (its flags are read by
//! predicates); a predicated write, and any write inside control flow, is shrunk but kills
//! nothing: a disabled channel keeps the old value, and an enabled channel of the same
//! vertex may read that component through its swizzle (the random-shader test in
//! `crates/passes/tests/vec4_dead_channels.rs` found this under a per-channel `if`).

use eubatch_ir::opcode::Opcode;
use eubatch_ir::shader::{CondMod, Predicate};
use eubatch_ir::{Backend, Gen, Inst, RegFile, Shader};

use crate::analysis::changed::Changed;
use crate::manager::{Scope, ALL_STAGES};
use crate::PassCx;

/// vec4 code: the scalar back end's `dce` tracks its own slots.
pub const SCOPE: Scope = Scope {
    backends: &[Backend::Vec4],
    swizzles: true,
    targets: (Gen::Gen7, Gen::Gen12),
    stages: ALL_STAGES,
    assumes: "it tracks vec4 (Align16) components of SIMD4x2 registers",
};

/// A set of units, one bit each.
#[derive(Clone, PartialEq, Eq)]
struct Units(Vec<u64>);

impl Units {
    fn new(n: usize) -> Units {
        Units(vec![0; n.div_ceil(64)])
    }
    fn get(&self, u: usize) -> bool {
        self.0[u / 64] >> (u % 64) & 1 != 0
    }
    fn set(&mut self, u: usize) {
        self.0[u / 64] |= 1 << (u % 64);
    }
    fn clear(&mut self, u: usize) {
        self.0[u / 64] &= !(1 << (u % 64));
    }
    fn union(&mut self, other: &Units) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a |= b;
        }
    }
}

/// The units (dwords) of every VGRF: the first unit of each, and how many in all.
fn numbering(shader: &Shader) -> (Vec<usize>, usize) {
    let mut base = Vec::with_capacity(shader.vgrfs.len() + 1);
    let mut n = 0;
    for v in shader.vgrfs.iter() {
        base.push(n);
        n += v.size().div_ceil(4) as usize;
    }
    base.push(n);
    (base, n)
}

/// The cross-channel opcodes: every component of their sources feeds every result.
fn cross_channel(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::Dp2 | Opcode::Dp3 | Opcode::Dp4 | Opcode::Dph | Opcode::Line
    )
}

/// The destination writemask (all components when none is written out).
fn writemask(shader: &Shader, inst: Inst) -> u8 {
    eubatch_ir::df_align16::writemask(&shader.insts.dst[inst])
}

/// How precisely an instruction's accesses are known.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Reads every unit of each VGRF source, defines nothing (messages, DF helpers, ...).
    Opaque,
    /// Reads its sources' components precisely; writes no VGRF component this pass may
    /// drop (a message register, a flag, the accumulator).
    ReadsPrecisely,
    /// Reads and writes precisely: its writemask may shrink.
    Precise,
}

/// What `inst` is (see the module doc). Reads are precise for an ALU instruction of
/// execution size 4 or 8 whose VGRF sources have the destination's element size (4 or 8
/// bytes) and lie, dword-aligned, inside their VGRFs; writes too when the destination is
/// such a VGRF and the instruction has no conditional modifier and no implicit
/// accumulator write.
fn kind(shader: &Shader, inst: Inst, base: &[usize]) -> Kind {
    let op = shader.insts.opcode[inst];
    let ctl = shader.insts.control[inst];
    let dst = shader.insts.dst[inst];
    let ts = dst.ty.size();
    let halves = ctl.exec_size as u32 / 4;
    let inside = |nr: u32, offset: u32| {
        (nr as usize) + 1 < base.len()
            && offset.is_multiple_of(4)
            && base[nr as usize] + ((offset + halves * 4 * ts) / 4) as usize
                <= base[nr as usize + 1]
    };
    let reads_precisely = op.alu_arity().is_some()
        && !matches!(op, Opcode::Sad2 | Opcode::Sada2)
        && matches!(ctl.exec_size, 4 | 8)
        && matches!(ts, 4 | 8)
        && shader
            .srcs(inst)
            .iter()
            .all(|s| s.file != RegFile::Vgrf || (s.ty.size() == ts && inside(s.nr, s.offset)));
    if !reads_precisely {
        Kind::Opaque
    } else if ctl.cmod == CondMod::None
        && !matches!(op, Opcode::Mac | Opcode::Mach | Opcode::Addc | Opcode::Subb)
        && dst.file == RegFile::Vgrf
        && inside(dst.nr, dst.offset)
    {
        Kind::Precise
    } else {
        Kind::ReadsPrecisely
    }
}

/// Calls `f` with each unit component `k` of an operand covers, in every half the
/// instruction runs (the simulator's layout: half `h` is a vec4 of elements from
/// `offset + h * 4 * size`).
fn component_units(
    base: &[usize],
    op: &eubatch_ir::Operand,
    halves: u32,
    k: u32,
    f: &mut impl FnMut(usize),
) {
    let ts = op.ty.size();
    for h in 0..halves {
        let byte = op.offset + h * 4 * ts + k * ts;
        for d in 0..ts / 4 {
            f(base[op.nr as usize] + (byte / 4 + d) as usize);
        }
    }
}

/// The units a precise instruction writes with writemask `mask`.
fn writes(shader: &Shader, inst: Inst, base: &[usize], mask: u8, mut f: impl FnMut(usize)) {
    let halves = shader.insts.control[inst].exec_size as u32 / 4;
    for k in 0..4 {
        if mask & (1 << k) != 0 {
            component_units(base, &shader.insts.dst[inst], halves, k, &mut f);
        }
    }
}

/// The units `inst` reads when it writes `mask` (precise reads), or every unit of each
/// VGRF it names as a source (`None`: opaque).
fn reads(shader: &Shader, inst: Inst, base: &[usize], mask: Option<u8>, live: &mut Units) {
    let srcs = shader.srcs(inst);
    let Some(mask) = mask else {
        for s in srcs.iter().filter(|s| s.file == RegFile::Vgrf) {
            if let (Some(&a), Some(&b)) = (base.get(s.nr as usize), base.get(s.nr as usize + 1)) {
                for u in a..b {
                    live.set(u);
                }
            }
        }
        return;
    };
    let halves = shader.insts.control[inst].exec_size as u32 / 4;
    // A flag written per component is read by predicates this pass does not follow: all
    // four components count, as for the cross-channel opcodes.
    let cross = cross_channel(shader.insts.opcode[inst])
        || shader.insts.control[inst].cmod != CondMod::None;
    for s in srcs.iter().filter(|s| s.file == RegFile::Vgrf) {
        for c in 0..4 {
            if cross || mask & (1 << c) != 0 {
                let k = ((s.region.swizzle >> (2 * c)) & 3) as u32;
                component_units(base, s, halves, k, &mut |u| live.set(u));
            }
        }
    }
}

/// One instruction, backwards: what is live before it given what is live after, and the
/// writemask it keeps (precise instructions; `Some(0)`: it goes).
fn step(
    shader: &Shader,
    inst: Inst,
    base: &[usize],
    kind: Kind,
    nested: bool,
    live: &mut Units,
) -> Option<u8> {
    let mask = writemask(shader, inst);
    match kind {
        Kind::Opaque => {
            reads(shader, inst, base, None, live);
            return None;
        }
        Kind::ReadsPrecisely => {
            reads(shader, inst, base, Some(mask), live);
            return None;
        }
        Kind::Precise => {}
    }
    let mut kept = 0u8;
    let halves = shader.insts.control[inst].exec_size as u32 / 4;
    for k in 0..4 {
        if mask & (1 << k) != 0 {
            let mut any = false;
            component_units(base, &shader.insts.dst[inst], halves, k, &mut |u| {
                any |= live.get(u)
            });
            if any {
                kept |= 1 << k;
            }
        }
    }
    // A DF writemask may not become the 32-bit-only XY or ZW (target rule): it stays whole.
    if kept != 0
        && shader.insts.dst[inst].ty.size() == 8
        && !eubatch_ir::df_align16::writemask_legal(kept)
    {
        kept = mask;
    }
    if kept == 0 {
        return Some(0);
    }
    // Inside control flow a channel may be disabled while another channel of the same
    // vertex runs and reads this component through its swizzle: the write defines it
    // only where it runs, so it kills nothing there (nor does a predicated one).
    if !nested && shader.insts.control[inst].predicate == Predicate::None {
        writes(shader, inst, base, kept, |u| live.clear(u));
    }
    reads(shader, inst, base, Some(kept), live);
    Some(kept)
}

pub fn run(shader: &mut Shader, cx: &mut PassCx) -> Changed {
    if shader.backend != Backend::Vec4 {
        return Changed::NOTHING;
    }
    let Ok(cfg) = cx.cfg(shader) else {
        return Changed::NOTHING;
    };
    let (base, total) = numbering(shader);
    let nblocks = shader.layout.blocks.len();
    let nesting = cx.nesting(shader);
    let nested: Vec<bool> = (0..nblocks)
        .map(|b| nesting.block_depth(eubatch_ir::Block::from_usize(b)) > 0)
        .collect();
    let kinds: Vec<Vec<Kind>> = shader
        .layout
        .blocks
        .iter()
        .map(|b| b.insts.iter().map(|&i| kind(shader, i, &base)).collect())
        .collect();
    // Live-in of each block from the live-out, to a fixed point (the transfer walks the
    // block as the rewrite will: a component found dead is not read either).
    let transfer = |b: usize, live: &mut Units| {
        let insts = &shader.layout.blocks[eubatch_ir::Block::from_usize(b)].insts;
        for (k, &i) in insts.iter().enumerate().rev() {
            step(shader, i, &base, kinds[b][k], nested[b], live);
        }
    };
    let mut live_in = vec![Units::new(total); nblocks];
    let mut live_out = vec![Units::new(total); nblocks];
    let mut changed = true;
    let mut rounds = 0;
    while changed {
        if rounds == 1000 {
            return Changed::NOTHING; // No fixed point: change nothing.
        }
        changed = false;
        rounds += 1;
        for b in (0..nblocks).rev() {
            let mut out = Units::new(total);
            for s in &cfg.succs[eubatch_ir::Block::from_usize(b)] {
                out.union(&live_in[s.index()]);
            }
            let mut inn = out.clone();
            transfer(b, &mut inn);
            if inn != live_in[b] {
                live_in[b] = inn;
                changed = true;
            }
            live_out[b] = out;
        }
    }
    // The rewrite: backwards through each block from its live-out.
    let mut gone = Vec::new();
    let mut masks = Vec::new();
    for (b, mut live) in live_out.into_iter().enumerate() {
        let insts = &shader.layout.blocks[eubatch_ir::Block::from_usize(b)].insts;
        for (k, &i) in insts.iter().enumerate().rev() {
            match step(shader, i, &base, kinds[b][k], nested[b], &mut live) {
                Some(0) => gone.push(i),
                Some(kept) if kept != writemask(shader, i) => masks.push((i, kept)),
                _ => {}
            }
        }
    }
    if gone.is_empty() && masks.is_empty() {
        return Changed::NOTHING;
    }
    for (i, kept) in masks {
        let d = &mut shader.insts.dst[i];
        d.region.swizzle = (d.region.swizzle & !0xf) | kept;
    }
    let mut changed = Changed::INSTRUCTION_DATA_FLOW;
    if !gone.is_empty() {
        let order = shader.layout.order();
        let gone: hashbrown::HashSet<Inst> = gone.into_iter().collect();
        let marks: Vec<bool> = order.iter().map(|i| gone.contains(i)).collect();
        changed |= crate::remove_marked(shader, &order, &marks);
    }
    changed
}
