//! Register coalescing: `mov A.k, B` copying the whole of a one-component VGRF B into
//! component k of A (or all of a VGRF into another of its layout) is removed by giving B's
//! value A's storage — every operand of B is renamed to A's component — when their live
//! ranges do not overlap: B's last use is that move and A's component holds nothing live
//! before it, or B lives on but neither is written again while both are live (both then hold
//! the same value; past the first of their last uses only one is live). The other way round too: `mov A, B.k` filling a one-component A from
//! component k of B (a message's result) gives A B's component as storage, when nothing
//! touches that component after the move and A nothing before it. And a VGRF of several
//! components copied component by component into another by consecutive moves.
//! (Mesa: brw_fs_register_coalesce.cpp.)
//!
//! Live ranges are linear intervals of instruction positions per 4-byte slot
//! ([`crate::analysis::intervals`], from liveness across block boundaries), so a half-float
//! component with padding coalesces into a padded component of the same shape; they are
//! computed only when some move has a shape that could coalesce, and only for the slots of
//! such moves' VGRFs (issue 15). Rules that limit it:
//! the move has no modifiers, saturate, predicate or conditional modifier, copies a stride-one
//! region of the same type size, and covers exactly one component of A whose data and padding equal
//! B's; a pair coalesces once per run (intervals change), the optimization loop repeats.

use hashbrown::HashSet;

use eubatch_ir::{Inst, RegFile, Shader, Vgrf};

use crate::analysis::access::{Slot, SlotRange, SLOT};
use crate::analysis::bitset::BitSet;
use crate::analysis::changed::Changed;
use crate::analysis::intervals::LiveIntervals;
use crate::analysis::liveness::Liveness;
use crate::analysis::range_lists::RangeLists;
use crate::PassCx;

/// The runs of slots each instruction writes, by position, filed under every
/// register-sized bucket of slots they touch (ascending positions per bucket), so that "is
/// any of these slots written between two positions" is a binary search and a short scan,
/// with one entry per run rather than one per slot.
struct Writes {
    /// Per bucket, where its entries start.
    start: Vec<u32>,
    ips: Vec<u32>,
    runs: Vec<(u32, u32)>,
}

impl Writes {
    fn new(live: &Liveness, order: &[Inst]) -> Writes {
        let table = &live.access;
        let n = RangeLists::bucket_count(table.slots.count());
        // (bucket, position, run)
        let mut entries: Vec<(u32, u32, (u32, u32))> = Vec::with_capacity(order.len() * 2);
        for (ip, &inst) in order.iter().enumerate() {
            for (r, _, _) in table.def_runs(inst) {
                if r.is_empty() {
                    continue;
                }
                for b in RangeLists::buckets(&r) {
                    entries.push((b, ip as u32, (r.start.get(), r.end.get())));
                }
            }
        }
        // A counting sort by bucket: the entries come in position order, and a stable
        // placement keeps each bucket's positions ascending (linear, where sorting was
        // n log n).
        let mut start = vec![0u32; n + 1];
        for &(b, _, _) in &entries {
            start[b as usize + 1] += 1;
        }
        for k in 0..n {
            start[k + 1] += start[k];
        }
        let mut next = start.clone();
        let mut ips = vec![0u32; entries.len()];
        let mut runs = vec![(0u32, 0u32); entries.len()];
        for &(b, ip, r) in &entries {
            let at = next[b as usize] as usize;
            ips[at] = ip;
            runs[at] = r;
            next[b as usize] += 1;
        }
        Writes { start, ips, runs }
    }

    /// Whether any of slots `r` is written at a position in `after+1..=upto`.
    fn any_between(&self, r: SlotRange, after: u32, upto: u32) -> bool {
        if r.is_empty() {
            return false;
        }
        let (lo, hi) = (r.start.get(), r.end.get());
        RangeLists::buckets(&r).any(|b| {
            let (from, to) = (
                self.start[b as usize] as usize,
                self.start[b as usize + 1] as usize,
            );
            let ips = &self.ips[from..to];
            let k = ips.partition_point(|&ip| ip <= after);
            ips[k..]
                .iter()
                .zip(&self.runs[from + k..to])
                .take_while(|(&ip, _)| ip <= upto)
                .any(|(_, &(s, e))| s < hi && lo < e)
        })
    }
}

/// Scalar code: operands read as Align1 regions.
pub const SCOPE: crate::manager::Scope = crate::manager::Scope::SCALAR;

/// How a move between VGRFs can coalesce, by its shape alone (the live ranges decide the
/// rest).
#[derive(Clone, Copy)]
enum Shape {
    /// B, the source, is one component copied whole into `part` bytes of A: B takes A's
    /// storage.
    IntoA { part: u32 },
    /// A, the destination, is one component filled whole from a component of B: A takes
    /// B's component.
    IntoB,
}

/// A move's control, destination and source.
type Move = (
    eubatch_ir::Control,
    eubatch_ir::Operand,
    eubatch_ir::Operand,
);

/// A move that could coalesce, by its shape alone: its position, the move, how it could
/// coalesce into or from a one-component VGRF, and the component of B it copies whole
/// (`merge_componentwise`).
type Candidate = (u32, Inst, Option<Shape>, Option<u32>);

/// The control, destination and source of `inst` if it is a raw move of stride-one
/// regions from one VGRF into another: what both kinds of coalescing start from.
fn vgrf_move(shader: &Shader, inst: Inst) -> Option<Move> {
    if !shader.is_raw_move(inst) {
        return None;
    }
    let dst = shader.insts.dst[inst];
    let src = shader.srcs(inst)[0];
    (dst.file == RegFile::Vgrf
        && src.file == RegFile::Vgrf
        && src.nr != dst.nr
        && src.stride == 1
        && dst.stride == 1)
        .then(|| (shader.insts.control[inst], dst, src))
}

/// The shape of a move (`vgrf_move`'s) that could coalesce (see the module doc).
fn shape(shader: &Shader, (ctl, dst, src): Move) -> Option<Shape> {
    let lb = shader.vgrfs[src.vgrf_nr()];
    let la = shader.vgrfs[dst.vgrf_nr()];
    let bytes = ctl.exec_size as u32 * dst.ty.size();
    // B is one component; the move copies all its data into one component of A of
    // the same shape.
    let pitch = la.pitch();
    let whole_b = lb.components == 1 && src.offset == 0 && bytes == lb.data as u32;
    let same_shape = la.data == lb.data && la.padding == lb.padding;
    // The other way round: A is one component, all of it written by the move from
    // one component of B; A takes B's component as its storage.
    let whole_a = la.components == 1
        && dst.offset == 0
        && bytes == la.data as u32
        && lb.components > 1
        && src.offset % lb.pitch().max(1) == 0;
    if whole_a && same_shape && !whole_b {
        return Some(Shape::IntoB);
    }
    // B whole into a part of a flat A (a payload laid out as bytes): the part is B's
    // size.
    let into_flat = whole_b
        && lb.padding == 0
        && la.components == 1
        && la.padding == 0
        && dst.offset % SLOT == 0
        && dst.offset + bytes <= la.data as u32;
    if into_flat {
        Some(Shape::IntoA { part: bytes })
    } else if whole_b && same_shape && dst.offset % pitch.max(1) == 0 {
        Some(Shape::IntoA { part: pitch })
    } else {
        None
    }
}

pub fn run(shader: &mut Shader, cx: &mut PassCx) -> Changed {
    // The VGRFs at either end of a move that could coalesce, by its shape alone: the only
    // ones whose live ranges are asked for (below and in `merge_componentwise`). With
    // none, nothing can coalesce, and neither liveness nor intervals are computed.
    let points = cx.points(shader);
    let order = points.order();
    let mut ends = vec![false; shader.vgrfs.len()];
    let mut moves: Vec<Candidate> = Vec::new();
    for (ip, &inst) in order.iter().enumerate() {
        let Some(m) = vgrf_move(shader, inst) else {
            continue;
        };
        let (how, k) = (shape(shader, m), component_copy(shader, m));
        if how.is_some() || k.is_some() {
            moves.push((ip as u32, inst, how, k));
            ends[m.1.nr as usize] = true;
            ends[m.2.nr as usize] = true;
        }
    }
    if moves.is_empty() {
        return Changed::NOTHING;
    }
    let Some(live) = cx.liveness(shader) else {
        return Changed::NOTHING;
    };
    let slots = &live.access.slots;
    let mut wanted: BitSet<Slot> = BitSet::new(slots.count());
    for (nr, _) in ends.iter().enumerate().filter(|(_, e)| **e) {
        if nr < slots.base.len() {
            let r = slots.vgrf(shader, nr as u32);
            if !r.is_empty() {
                wanted.insert_range(r);
            }
        }
    }
    let iv = LiveIntervals::compute_within(shader, &live, &points, Some(wanted));
    let writes = Writes::new(&live, order);
    // First and last position (program point) of slots `r` together.
    let range = |r: SlotRange| -> (u32, u32) {
        let i = iv.slots(r);
        (i.start.get(), i.end.get())
    };
    // VGRFs renamed away this run (B), and VGRFs that receive others (A): a VGRF is
    // renamed at most once and not both; one A may receive several B's, in disjoint parts
    // (each part's interval starts at its own move).
    let mut touched: HashSet<u32> = HashSet::new();
    let mut targets: HashSet<u32> = HashSet::new();
    // (mov, B, A, byte offset of the component in A)
    let mut merges: Vec<(Inst, u32, u32, u32)> = Vec::new();
    for &(ip, inst, how, _) in &moves {
        let Some(shape) = how else {
            continue;
        };
        let dst = shader.insts.dst[inst];
        let src = shader.srcs(inst)[0];
        if touched.contains(&src.nr) || touched.contains(&dst.nr) {
            continue;
        }
        let part = match shape {
            Shape::IntoB => {
                if targets.contains(&dst.nr) {
                    continue;
                }
                let pb = shader.vgrfs[src.vgrf_nr()].pitch();
                let b_first = slots.base[src.nr as usize] + src.offset / SLOT;
                let (_, b_end) = range(b_first..b_first + pb.div_ceil(SLOT));
                let a_slots = slots.vgrf(shader, dst.nr);
                let (a_start, _) = range(a_slots);
                if b_end <= ip && a_start >= ip {
                    merges.push((inst, dst.nr, src.nr, src.offset));
                    touched.insert(dst.nr);
                    targets.insert(src.nr);
                }
                continue;
            }
            Shape::IntoA { part } => part,
        };
        if targets.contains(&src.nr) {
            continue;
        }
        let b_slots = slots.vgrf(shader, src.nr);
        let a_first = slots.base[dst.nr as usize] + dst.offset / SLOT;
        let a_comp = a_first..a_first + part.div_ceil(SLOT);
        let (_, b_end) = range(b_slots.clone());
        let (a_start, a_end) = range(a_comp.clone());
        // B may live on past the move when both keep the copied value while both are live:
        // neither is written again before the first of B's and A's component's last uses
        // (Mesa's `can_coalesce_vars`: no write to either in the intersection of their live
        // ranges). Past that point one of them is dead, and what the other writes there
        // lands where nothing is read (a loop variable B copied into a message payload
        // read once in the loop: B lives on around the loop, the payload's component ends
        // at the send).
        let shared_end = b_end.min(a_end);
        let still_equal = || {
            !writes.any_between(b_slots.clone(), ip, shared_end)
                && !writes.any_between(a_comp.clone(), ip, shared_end)
        };
        if a_start < ip || (b_end > ip && !still_equal()) {
            continue;
        }
        merges.push((inst, src.nr, dst.nr, dst.offset));
        touched.insert(src.nr);
        targets.insert(dst.nr);
    }
    let mut removed: HashSet<Inst> = merges.iter().map(|m| m.0).collect();
    merge_componentwise(
        shader,
        slots,
        order,
        &moves,
        &range,
        &mut touched,
        &mut targets,
        &mut merges,
        &mut removed,
    );
    if merges.is_empty() {
        return Changed::NOTHING;
    }
    let renames: hashbrown::HashMap<u32, (u32, u32)> =
        merges.iter().map(|&(_, b, a, off)| (b, (a, off))).collect();
    let rename = |o: &mut eubatch_ir::Operand| {
        if o.file == RegFile::Vgrf {
            if let Some(&(a, off)) = renames.get(&o.nr) {
                o.nr = a;
                o.offset += off;
            }
        }
    };
    for inst in order {
        rename(&mut shader.insts.dst[*inst]);
        for s in shader.srcs_mut(*inst) {
            rename(s);
        }
    }
    Changed::INSTRUCTION_DATA_FLOW | crate::remove_set(shader, &removed)
}

/// A VGRF B of several components (a message's result, say) copied into A by one move per
/// component (those not copied being dead), each to the same place relative to the first
/// (into components of A of B's shape, or side by side into a flat A such as a payload),
/// by moves that follow one another in one block: B takes A's storage as above, when B's last use is the last of
/// those moves and A's part holds nothing live before the first (Mesa's
/// `register_coalesce` does the same with its per-register `channels_remaining`).
fn merge_componentwise(
    shader: &Shader,
    slots: &crate::analysis::access::Slots,
    order: &[Inst],
    moves: &[Candidate],
    range: &dyn Fn(SlotRange) -> (u32, u32),
    touched: &mut HashSet<u32>,
    targets: &mut HashSet<u32>,
    merges: &mut Vec<(Inst, u32, u32, u32)>,
    removed: &mut HashSet<Inst>,
) {
    // Per B: (position, move, component, A, offset of component 0 in A).
    let mut copies: hashbrown::HashMap<u32, Vec<(u32, Inst, u32, u32, u32)>> = Default::default();
    let mut block_of = Vec::with_capacity(order.len());
    for (b, block) in shader.layout.blocks.iter_enumerated() {
        block_of.extend(std::iter::repeat_n(b.index() as u32, block.insts.len()));
    }
    for &(ip, inst, _, k) in moves {
        let Some(k) = k else {
            continue;
        };
        let dst = shader.insts.dst[inst];
        let src = shader.srcs(inst)[0];
        copies
            .entry(src.nr)
            .or_default()
            .push((ip, inst, k, dst.nr, dst.offset - src.offset));
    }
    let mut keys: Vec<u32> = copies.keys().copied().collect();
    keys.sort_unstable();
    for b in keys {
        let list = &copies[&b];
        let lb = shader.vgrfs[Vgrf::from_usize(b as usize)];
        let (a, delta) = (list[0].3, list[0].4);
        let la = shader.vgrfs[Vgrf::from_usize(a as usize)];
        let pitch = lb.pitch().max(1);
        // One move per component, all to A at one offset, consecutive in one block.
        let mut seen = vec![false; lb.components as usize];
        // Components not copied must be dead (B's interval ends with the moves); their
        // place in A then receives what was never read there.
        let consistent = list.len() <= lb.components as usize
            && list.iter().all(|c| {
                c.3 == a && c.4 == delta && !std::mem::replace(&mut seen[c.2 as usize], true)
            })
            && list.windows(2).all(|w| w[1].0 == w[0].0 + 1)
            && list
                .iter()
                .all(|c| block_of[c.0 as usize] == block_of[list[0].0 as usize])
            && if la.components == 1 && la.data != lb.data {
                // Inside a flat A, on a register boundary (a message's result is whole
                // registers).
                delta % shader.reg_size() == 0
            } else {
                delta % la.pitch().max(1) == 0
            }
            && delta + lb.size() <= la.size();
        // A receiving other VGRFs in this run could have them in the parts B now covers.
        if !consistent
            || touched.contains(&a)
            || targets.contains(&a)
            || touched.contains(&b)
            || targets.contains(&b)
        {
            continue;
        }
        let (first, last) = (list[0].0, list[list.len() - 1].0);
        let b_slots = slots.vgrf(shader, b);
        let a_first = slots.base[a as usize] + delta / SLOT;
        let (_, b_end) = range(b_slots);
        let (a_start, _) = range(a_first..a_first + (lb.components as u32 * pitch).div_ceil(SLOT));
        if b_end > last || a_start < first {
            continue;
        }
        targets.insert(a);
        touched.insert(b);
        merges.push((list[0].1, b, a, delta));
        removed.extend(list.iter().map(|c| c.1));
    }
}

/// The component of B that a move (`vgrf_move`'s) copies whole, if it is one of a
/// VGRF B of several into A, of B's component shape or side by side into a flat A
/// (`merge_componentwise`).
fn component_copy(shader: &Shader, (ctl, dst, src): Move) -> Option<u32> {
    let lb = shader.vgrfs[src.vgrf_nr()];
    let la = shader.vgrfs[dst.vgrf_nr()];
    let pitch = lb.pitch().max(1);
    let bytes = ctl.exec_size as u32 * dst.ty.size();
    // A of B's component shape, or a flat A (a message payload laid out as bytes)
    // that B's unpadded components fill side by side.
    let flat_a = la.components == 1 && la.padding == 0 && lb.padding == 0;
    if lb.components < 2
        || !((la.data == lb.data && la.padding == lb.padding) || flat_a)
        || bytes != lb.data as u32
        || src.offset % pitch != 0
        || dst.offset < src.offset
    {
        return None;
    }
    Some(src.offset / pitch)
}
