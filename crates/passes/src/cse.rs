//! Common-subexpression elimination within a block: an instruction that computes what an
//! earlier one in the block already computed — same opcode, execution control, saturate,
//! types and sources, none of them written since, and the earlier result still in place —
//! becomes a move of that result, which copy propagation and dead-code elimination then
//! fold away. (Mesa: brw_fs_cse.cpp `opt_cse_local`.)
//!
//! Rules that limit it: only plain ALU opcodes without side effects (and
//! `find_live_channel`, whose result depends only on the block's channels, and `broadcast`); no predicated
//! instructions (what they keep depends on the old destination) and none with a
//! conditional modifier (the flag is another result); destinations written whole with a
//! stride of one element (the move that replaces it copies exactly that region) and not
//! overlapping their own sources; the two in the same channels (execution size, group and
//! NoMask), so the earlier result holds the value in every channel the later one writes.
//!
//! A comparison that writes only a flag (`cmp.ge.f0.0 null, a, b`) and repeats an earlier
//! one of the block — same test, flag, channels and sources — goes, if nothing in between
//! wrote a flag or a register the two read: the flag still holds its result (Mesa's
//! `opt_cse_local` does the same for flag writes with a null destination).

use eubatch_ir::shader::{CondMod, Predicate};
use hashbrown::HashMap;

use eubatch_ir::{Inst, Opcode, Operand, RegFile, Shader};

use crate::analysis::access::{for_each_def_run, is_pure, SlotRange, SLOT};
use crate::analysis::access_table::AccessTable;
use crate::analysis::changed::Changed;
use crate::PassCx;

fn candidate(shader: &Shader, inst: Inst) -> bool {
    let op = shader.insts.opcode[inst];
    let ctl = shader.insts.control[inst];
    let dst = shader.insts.dst[inst];
    // The first live channel is the same anywhere in a block: its channels do not change.
    (op.alu_arity().is_some() && is_pure(op) && op != Opcode::Mov
        || matches!(op, Opcode::FindLiveChannel | Opcode::Broadcast))
        && ctl.predicate == Predicate::None
        && ctl.cmod == CondMod::None
        && dst.file == RegFile::Vgrf
        && dst.stride == 1
        && dst.mods == eubatch_ir::Mods::NONE
        && !shader
            .srcs(inst)
            .iter()
            .any(|s| s.file == RegFile::Vgrf && s.nr == dst.nr)
}

fn same(shader: &Shader, a: Inst, b: Inst) -> bool {
    let (ca, cb) = (shader.insts.control[a], shader.insts.control[b]);
    shader.insts.opcode[a] == shader.insts.opcode[b]
        && ca.exec_size == cb.exec_size
        && ca.group == cb.group
        && ca.no_mask() == cb.no_mask()
        && ca.saturate() == cb.saturate()
        && shader.insts.dst[a].ty == shader.insts.dst[b].ty
        && shader.srcs(a) == shader.srcs(b)
}

/// The runs of slots whose write ends `inst`'s value being available: those it writes and
/// those its VGRF sources read.
fn runs_of(shader: &Shader, table: &AccessTable, inst: Inst, mut f: impl FnMut(SlotRange)) {
    let slots = &table.slots;
    for (r, _, _) in table.def_runs(inst) {
        f(r);
    }
    let exec = shader.insts.control[inst].exec_size as u32;
    for s in shader.srcs(inst) {
        if s.file == RegFile::Vgrf && (s.nr as usize) < slots.base.len() {
            let range = slots.vgrf(shader, s.nr);
            let span = s.span(exec);
            let lo = range.start + s.offset / SLOT;
            let hi = (range.start + (s.offset + span).div_ceil(SLOT)).min(range.end);
            if lo < hi {
                f(lo..hi);
            }
        }
    }
}

/// A hash of what makes two instructions compute the same value ([`same`] decides).
/// The hasher's seed only has to be the same for one run: keys are looked up, never
/// iterated, so the result does not depend on it.
fn key(hasher: &hashbrown::DefaultHashBuilder, shader: &Shader, inst: Inst) -> u64 {
    use std::hash::{BuildHasher, Hash, Hasher};
    let mut h = hasher.build_hasher();
    shader.insts.opcode[inst].hash(&mut h);
    let c = shader.insts.control[inst];
    (c.exec_size, c.group, c.no_mask(), c.saturate()).hash(&mut h);
    shader.insts.dst[inst].ty.hash(&mut h);
    shader.srcs(inst).hash(&mut h);
    h.finish()
}

/// No entry (the end of a key's chain).
const NONE: u32 = u32::MAX;

/// Scalar code: operands read as Align1 regions.
pub const SCOPE: crate::manager::Scope = crate::manager::Scope::SCALAR;

pub fn run(shader: &mut Shader, cx: &mut PassCx) -> Changed {
    // Values replaced by moves change operands; flag comparisons removed leave their block
    // without a re-split, perhaps empty.
    let values = Changed::when(
        values(shader, cx),
        Changed::INSTRUCTION_DETAIL | Changed::INSTRUCTION_DATA_FLOW,
    );
    values
        | Changed::when(
            flag_cse(shader),
            Changed::INSTRUCTION_IDENTITY | Changed::BLOCKS,
        )
}

/// A comparison whose only result is its flag, unpredicated.
fn flag_only(shader: &Shader, inst: Inst) -> bool {
    let ctl = shader.insts.control[inst];
    shader.insts.opcode[inst] == Opcode::Cmp
        && shader.insts.dst[inst].is_null()
        && ctl.predicate == Predicate::None
        && !ctl.saturate()
        && shader
            .srcs(inst)
            .iter()
            .all(|s| matches!(s.file, RegFile::Vgrf | RegFile::Imm | RegFile::Uniform))
}

/// Removes flag-only comparisons that repeat an available one (see the module doc).
fn flag_cse(shader: &mut Shader) -> bool {
    let mut progress = false;
    // The block's instructions as the walk found them (one buffer for the run).
    let mut insts: Vec<eubatch_ir::Inst> = Vec::new();
    for b in 0..shader.layout.blocks.len() {
        let block = eubatch_ir::Block::from_usize(b);
        insts.clear();
        insts.extend_from_slice(&shader.layout.blocks[block].insts);
        let mut available: Vec<Inst> = Vec::new();
        let mut gone: Vec<Inst> = Vec::new();
        for &inst in &insts {
            let flag_cmp = flag_only(shader, inst);
            if flag_cmp {
                let repeat = available.iter().any(|&e| {
                    shader.insts.control[e] == shader.insts.control[inst]
                        && shader.insts.dst[e].ty == shader.insts.dst[inst].ty
                        && shader.srcs(e) == shader.srcs(inst)
                });
                if repeat {
                    gone.push(inst);
                    continue;
                }
            }
            let op = shader.insts.opcode[inst];
            let ctl = shader.insts.control[inst];
            let dst = shader.insts.dst[inst];
            let flag_dst =
                dst.file == RegFile::Arf && dst.nr & 0xf0 == eubatch_ir::operand::arf::FLAG;
            if crate::analysis::access::writes_flag(op, ctl.cmod) || flag_dst {
                available.clear();
            } else if dst.file == RegFile::Vgrf {
                available.retain(|&e| {
                    !shader
                        .srcs(e)
                        .iter()
                        .any(|s| s.file == RegFile::Vgrf && s.nr == dst.nr)
                });
            } else if !dst.is_null() {
                available.clear();
            }
            if flag_cmp {
                available.push(inst);
            }
        }
        if !gone.is_empty() {
            shader.layout.blocks[block]
                .insts
                .retain(|i| !gone.contains(i));
            progress = true;
        }
    }
    progress
}

fn values(shader: &mut Shader, cx: &mut PassCx) -> bool {
    let table = cx.access(shader);
    let slots = &table.slots;
    let mut progress = false;
    // Per slot, the position (instructions walked, on the shader's clock) of the last
    // write to it. An available expression ends when a slot it writes or reads is written
    // after it, so an entry made at position `p` is live while none of its slots
    // ([`runs_of`]) was written after `p`: looked at only when its key matches, where
    // filing each entry under every slot it depends on, to end it at each write, cost a
    // list entry per bucket of slots per candidate and a list walk per write. The column
    // is the context's scratch: what earlier runs wrote there is older than any position
    // of this run, so it is neither allocated nor cleared.
    let mut last_write = std::mem::take(&mut cx.slot_stamps);
    if last_write.len() < slots.count() as usize {
        last_write.resize(slots.count() as usize, 0);
    }
    let mut pos = cx.clock;
    if pos > u32::MAX / 2 {
        // (Never in practice: a clock run this far starts again from a cleared column.)
        last_write.fill(0);
        pos = 0;
    }
    let hasher = hashbrown::DefaultHashBuilder::default();
    // Available expressions of the block, each with its position, and their indices by
    // key.
    let most = crate::largest_block(shader);
    let mut entries: Vec<(Inst, u32)> = Vec::with_capacity(most);
    // The newest entry of each key, and each entry's next older one of the same key: at
    // most one live entry of a key computes what an instruction does ([`same`] is an
    // equivalence), so the order they are tried in does not matter.
    let mut by_key: HashMap<u64, u32> = HashMap::with_capacity(most);
    let mut older: Vec<u32> = Vec::with_capacity(most);
    // The block's instructions as the walk found them (one buffer for the run).
    let mut insts: Vec<eubatch_ir::Inst> = Vec::with_capacity(most);
    for b in 0..shader.layout.blocks.len() {
        let block = eubatch_ir::Block::from_usize(b);
        insts.clear();
        insts.extend_from_slice(&shader.layout.blocks[block].insts);
        entries.clear();
        older.clear();
        by_key.clear();
        for &inst in &insts {
            pos += 1;
            let mut replaced = false;
            let is_candidate = candidate(shader, inst);
            let k = if is_candidate {
                key(&hasher, shader, inst)
            } else {
                0
            };
            if is_candidate {
                let mut at = by_key.get(&k).copied().unwrap_or(NONE);
                let mut found = None;
                while at != NONE {
                    let (e, made) = entries[at as usize];
                    if same(shader, e, inst)
                        && unwritten_since(shader, &table, e, made, &last_write)
                    {
                        found = Some(e);
                        break;
                    }
                    at = older[at as usize];
                }
                if let Some(e) = found {
                    // dst = earlier dst: a move of the whole written region.
                    let earlier = shader.insts.dst[e];
                    let ty = shader.insts.dst[inst].ty;
                    let src = Operand {
                        ty,
                        mods: eubatch_ir::Mods::NONE,
                        ..earlier
                    };
                    shader.insts.opcode[inst] = Opcode::Mov;
                    // (`find_live_channel` has no source to overwrite.)
                    shader.set_srcs(inst, &[src]);
                    shader.insts.control[inst].set(eubatch_ir::Control::SATURATE, false);
                    progress = true;
                    replaced = true;
                }
            }
            // A replaced instruction is a move now: what it writes is computed anew.
            let mut wrote = |r: SlotRange| {
                last_write[r.start.get() as usize..r.end.get() as usize].fill(pos);
            };
            if replaced {
                for_each_def_run(shader, slots, inst, |r, _, _| wrote(r));
            } else {
                table.def_runs(inst).for_each(|(r, _, _)| wrote(r));
            }
            if !replaced && is_candidate {
                let i = entries.len();
                entries.push((inst, pos));
                older.push(by_key.insert(k, i as u32).unwrap_or(NONE));
            }
        }
    }
    cx.slot_stamps = last_write;
    cx.clock = pos;
    progress
}

/// Whether no slot that `e` (made at position `made`) writes or reads was written after it.
fn unwritten_since(
    shader: &Shader,
    table: &AccessTable,
    e: Inst,
    made: u32,
    last_write: &[u32],
) -> bool {
    let mut unwritten = true;
    runs_of(shader, table, e, |r| {
        unwritten &= last_write[r.start.get() as usize..r.end.get() as usize]
            .iter()
            .all(|&w| w <= made);
    });
    unwritten
}
