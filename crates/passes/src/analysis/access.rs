//! What an instruction reads and writes, precise to the 4-byte slot: the unit every
//! analysis in this crate tracks.
//!
//! A VGRF is a run of slots (4 bytes each; [`Slots`] numbers them across the shader), and
//! the flag registers f0 and f1 are eight more slots of eight channel bits each. A write
//! *fully defines* a slot when it writes all of its bytes unconditionally; that is what lets
//! liveness, copy propagation and dead-code elimination see that the second SIMD8 write of
//! a half-float component (16 data bytes of a padded 32-byte component, seed 003) or the
//! second strided half of a DF value (seed 002) completes a value, where Mesa only
//! recognizes writes of whole 32-byte registers. What is not exact is conservative: a
//! predicated write defines nothing fully, a message's VGRF sources read to the end of their
//! VGRF, anything touching fixed registers or other ARFs is a side effect, and a write under
//! the channel mask does not fully define a VGRF that some instruction reads regardless of
//! the mask (NoMask, or another channel's element): disabled channels keep the old value.
//!
//! What the slot model cannot express it treats as opaque ([`opaque`]): every instruction
//! of a vec4 shader (SIMD4x2 channels, Align16 swizzles and writemasks, gen7's DF regions)
//! and an Align16 instruction of scalar code with a swizzle or a writemask. Such an
//! instruction reads every slot of each VGRF it names, writes every slot of its destination
//! VGRF, and defines nothing fully: a `.x` write followed by a `.y` write leaves the value
//! live through both, where reading elements by offset and stride alone would see two full
//! overwrites.

use crate::analysis::bitset::BitSet;
use eubatch_ir::operand::arf;
use eubatch_ir::shader::Predicate;
use eubatch_ir::{Inst, Opcode, Operand, RegFile, Shader};

crate::dense_index! {
    /// A 4-byte slot of a VGRF, or a flag slot: what every analysis tracks, numbered across
    /// the shader by [`Slots`].
    pub struct Slot;
}

/// A run of consecutive slots.
pub type SlotRange = std::ops::Range<Slot>;

/// Bytes per slot.
pub const SLOT: u32 = 4;
/// Flag slots: f0 and f1, 32 channel bits each, in slots of 8 bits.
pub const FLAG_SLOTS: u32 = 8;

/// The slot numbering of a shader: VGRF `v`'s byte `b` is slot `base[v] + b / 4`; the flag
/// slots come after all VGRF slots.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slots {
    pub base: Vec<Slot>,
    /// VGRF slots in all (flag slots start here).
    pub vgrf_slots: u32,
    /// Per VGRF slot: whether its values cross the channel mask: some instruction reads
    /// the slot in channels that may be disabled (NoMask, or another channel's element),
    /// or writes it NoMask inside control flow (reaching channels on another path). Such a
    /// slot is defined fully only by a NoMask write, since a write under the mask leaves
    /// disabled channels' old values, and those are observed. Kept per slot, not per VGRF:
    /// a send payload whose header register is written NoMask inside a loop keeps its data
    /// registers, written under the mask and read by the message only in enabled channels,
    /// fully defined by those writes (Mesa's liveness ignores the mask altogether).
    /// (A set of bits, not a `bool` per slot: it is made, and compared with the last
    /// table's, on every update of the access table.)
    pub read_unmasked: BitSet<Slot>,
    /// Per VGRF: whether any of its slots is [`Slots::read_unmasked`] (most are not, and
    /// their writes need no look at each slot).
    pub any_unmasked: Vec<bool>,
}

impl Slots {
    /// The slots of `shader`, whose control-flow nesting is `nesting`.
    pub fn of(shader: &Shader, nesting: &crate::analysis::nesting::Nesting) -> Slots {
        let mut n = 0u32;
        let base: Vec<Slot> = shader
            .vgrfs
            .iter()
            .map(|l| {
                let b = Slot::new(n);
                n += l.size().div_ceil(SLOT);
                b
            })
            .collect();
        // The slots each instruction reads and writes do not depend on the flags: found
        // with the numbering while they are all clear (taken out to be set).
        let mut slots = Slots {
            any_unmasked: vec![false; base.len()],
            base,
            vgrf_slots: n,
            read_unmasked: BitSet::new(0),
        };
        let mut read_unmasked: BitSet<Slot> = BitSet::new(n);
        let mut any_unmasked = std::mem::take(&mut slots.any_unmasked);
        // (Flag slots, past the VGRFs', are not kept.)
        let mut mark = |r: SlotRange| {
            let end = r.end.get().min(n);
            let start = r.start.get().min(end);
            if start < end {
                read_unmasked.insert_range(Slot::new(start)..Slot::new(end));
            }
        };
        // Which block writes each VGRF, found when a broadcast first needs it.
        let mut write_blocks: Option<Vec<u32>> = None;
        for (b, block) in shader.layout.blocks.iter().enumerate() {
            for (i, &inst) in block.insts.iter().enumerate() {
                let op = shader.insts.opcode[inst];
                let no_mask = shader.insts.control[inst].no_mask();
                if op == Opcode::Broadcast {
                    let blocks = write_blocks.get_or_insert_with(|| writing_blocks(shader));
                    if reads_enabled_channels_only(shader, blocks, b, &block.insts, i) {
                        continue;
                    }
                }
                // A NoMask write inside control flow writes channels that are on another
                // path: its value reaches them past the CFG's edges.
                let dst = shader.insts.dst[inst];
                if no_mask && dst.file == RegFile::Vgrf && nesting.nested(inst) {
                    if let Some(any) = any_unmasked.get_mut(dst.nr as usize) {
                        *any = true;
                    }
                    for_each_def_run(shader, &slots, inst, |r, _, _| mark(r));
                }
                if no_mask || reads_other_channels(op) {
                    let mut vgrf_read = false;
                    for s in shader.srcs(inst) {
                        if let Some(any) = any_unmasked
                            .get_mut(s.nr as usize)
                            .filter(|_| s.file == RegFile::Vgrf)
                        {
                            *any = true;
                            vgrf_read = true;
                        }
                    }
                    if vgrf_read {
                        for_each_source_run(shader, &slots, inst, &mut mark);
                    }
                }
            }
        }
        // (`any_unmasked` may name a VGRF none of whose slots is read unmasked, where a
        // run was empty: it only sends writes of that VGRF the slow way.)
        slots.read_unmasked = read_unmasked;
        slots.any_unmasked = any_unmasked;
        slots
    }

    /// Whether slot `s`'s values cross the channel mask ([`Slots::read_unmasked`]).
    pub fn unmasked(&self, s: Slot) -> bool {
        s.get() < self.vgrf_slots && self.read_unmasked.contains(s)
    }

    /// [`Slots::read_unmasked`] of VGRF `nr`'s first `slots` slots.
    pub fn unmasked_of(&self, nr: usize, slots: u32) -> Vec<bool> {
        let b = self.base[nr];
        Slot::each(b..b + slots).map(|s| self.unmasked(s)).collect()
    }

    /// Whether the first `slots` slots of VGRF `nr` here and of VGRF `other_nr` in `other`
    /// have the same [`Slots::read_unmasked`] flags (word-level).
    pub fn same_unmasked(&self, nr: usize, other: &Slots, other_nr: usize, slots: u32) -> bool {
        // A VGRF no instruction reads unmasked has no such slot (the flags are set only
        // on the slots of VGRFs `any_unmasked` names): mostly both, and no bit is read.
        if !self.any_unmasked[nr] && !other.any_unmasked[other_nr] {
            debug_assert!(
                !self
                    .read_unmasked
                    .intersects_range(self.base[nr]..self.base[nr] + slots)
                    && !other
                        .read_unmasked
                        .intersects_range(other.base[other_nr]..other.base[other_nr] + slots),
                "slots read unmasked in a VGRF that any_unmasked does not name"
            );
            return true;
        }
        self.read_unmasked.same_run(
            self.base[nr],
            &other.read_unmasked,
            other.base[other_nr],
            slots,
        )
    }

    pub fn count(&self) -> u32 {
        self.vgrf_slots + FLAG_SLOTS
    }

    /// The slot of flag bit `bit` (flag subregister × 16 + channel).
    pub fn flag(&self, bit: u32) -> Slot {
        self.first_flag() + (bit / 8).min(FLAG_SLOTS - 1)
    }

    /// The first flag slot (of f0.0's first eight channels), after every VGRF slot.
    pub fn first_flag(&self) -> Slot {
        Slot::new(self.vgrf_slots)
    }

    /// Every flag slot.
    pub fn flags(&self) -> SlotRange {
        self.first_flag()..self.first_flag() + FLAG_SLOTS
    }

    /// The slots of VGRF `nr`.
    pub fn vgrf(&self, shader: &Shader, nr: u32) -> SlotRange {
        let b = self.base[nr as usize];
        b..b + shader.vgrfs[eubatch_ir::Vgrf::from_raw(nr)]
            .size()
            .div_ceil(SLOT)
    }
}

/// Messages and virtual opcodes with no effect but their destination (so an instruction
/// whose destination is dead can go); everything else not a plain ALU opcode is kept.
pub fn is_pure(op: Opcode) -> bool {
    use Opcode::*;
    if let Some(_) = op.alu_arity() {
        // The accumulator-writing and carry ALU ops have an effect besides their destination.
        return !matches!(op, Mac | Mach | Addc | Subb);
    }
    matches!(
        op,
        Undef
            | LoadPayload
            | Linterp
            | Pln
            | PixelX
            | PixelY
            | DdxCoarse
            | DdxFine
            | DdyCoarse
            | DdyFine
            | FindLiveChannel
            | Broadcast
            | UniformPullConst
            | UniformPullConstGfx7
            | VaryingPullConstLogical
            | TexLogical
            | TxdLogical
            | TxfLogical
            | TxlLogical
            | TxsLogical
            | TxbLogical
            | TxfCmsLogical
            | TxfCmsWLogical
            | TxfUmsLogical
            | TxfMcsLogical
            | LodLogical
            | Tg4Logical
            | Tg4OffsetLogical
            | SampleInfoLogical
            | ImageSizeLogical
            | UntypedSurfaceReadLogical
            | ByteScatteredReadLogical
            | DwordScatteredReadLogical
    )
}

/// Whether the instruction's result depends on the channel mask only through what it
/// writes: true for everything but the cross-channel ops, which read other channels.
fn reads_other_channels(op: Opcode) -> bool {
    use Opcode::*;
    matches!(
        op,
        DdxCoarse
            | DdxFine
            | DdyCoarse
            | DdyFine
            | FindLiveChannel
            | Broadcast
            | Shuffle
            | QuadSwizzle
            | ClusterBroadcast
    )
}

/// Per VGRF, the block that writes it: `NO_BLOCK` when none does, `MANY_BLOCKS` when more
/// than one.
fn writing_blocks(shader: &Shader) -> Vec<u32> {
    let mut blocks = vec![NO_BLOCK; shader.vgrfs.len()];
    for (b, block) in shader.layout.blocks.iter().enumerate() {
        for &inst in &block.insts {
            let dst = shader.insts.dst[inst];
            if let Some(w) = blocks
                .get_mut(dst.nr as usize)
                .filter(|_| dst.file == RegFile::Vgrf)
            {
                *w = if *w == NO_BLOCK || *w == b as u32 {
                    b as u32
                } else {
                    MANY_BLOCKS
                };
            }
        }
    }
    blocks
}

const NO_BLOCK: u32 = u32::MAX;
const MANY_BLOCKS: u32 = u32::MAX - 1;

/// Whether the broadcast `insts[at]` of block `b` reads its value only in channels the
/// writes of that value enabled: its channel index is the one `find_live_channel` (or its
/// gen8+ lowering, [`finds_a_live_channel`]) wrote earlier in the block (an enabled
/// channel: Mesa's FIND_LIVE_CHANNEL gives the first channel of the execution mask,
/// brw_fs_generator.cpp `generate_find_live_channel`), and
/// every write of the value comes earlier in the same block, under the same execution mask
/// (within a block the mask only shrinks, at a `halt`). Such a read does not cross the
/// channel mask: a masked write of the value defines every channel it can read. (The
/// pattern is NIR's uniform-index lowering for a non-uniform-looking index: a
/// find_live_channel, broadcasts, then a send with a scalar descriptor.)
fn reads_enabled_channels_only(
    shader: &Shader,
    write_blocks: &[u32],
    b: usize,
    insts: &[Inst],
    at: usize,
) -> bool {
    let srcs = shader.srcs(insts[at]);
    let [value, index] = srcs else {
        return false;
    };
    if value.file != RegFile::Vgrf || index.file != RegFile::Vgrf || index.stride != 0 {
        return false;
    }
    let in_block = |v: u32| write_blocks.get(v as usize) == Some(&(b as u32));
    if !in_block(value.nr) || !in_block(index.nr) {
        return false;
    }
    // Nothing after the broadcast in the block writes either (the broadcast would read the
    // value of an earlier pass round a loop), and the index's one write is a
    // find_live_channel.
    let writes = |k: usize, v: u32| {
        let d = shader.insts.dst[insts[k]];
        d.file == RegFile::Vgrf && d.nr == v
    };
    if (at..insts.len()).any(|k| writes(k, value.nr) || writes(k, index.nr)) {
        return false;
    }
    // (A `halt` before the broadcast could disable the channel found after it was found.)
    let halts = |k: usize| {
        matches!(
            shader.insts.opcode[insts[k]],
            Opcode::Halt | Opcode::PlaceholderHalt
        )
    };
    // (An `undef` gives no channel a value: it is not a write here.)
    let mut index_writes =
        (0..at).filter(|&k| writes(k, index.nr) && shader.insts.opcode[insts[k]] != Opcode::Undef);
    match (index_writes.next(), index_writes.next()) {
        (Some(k), None) => finds_a_live_channel(shader, insts[k]) && !(0..at).any(halts),
        _ => false,
    }
}

/// Whether `inst` writes the index of an enabled channel: a `find_live_channel`, or what
/// Mesa lowers it to on gen8+ before register allocation (`lower_find_live_channel`,
/// brw_fs.cpp): `fbl(1)` NoMask of the channel-enable register `ce0` (the mask ARF; Mesa
/// 22.3's printer writes it `arf0.0`, which the importer reads as `mask0` in an `fbl`), the
/// first channel enabled at that instruction.
fn finds_a_live_channel(shader: &Shader, inst: Inst) -> bool {
    match shader.insts.opcode[inst] {
        Opcode::FindLiveChannel => true,
        Opcode::Fbl => {
            let ctl = shader.insts.control[inst];
            let [src] = shader.srcs(inst) else {
                return false;
            };
            ctl.no_mask()
                && ctl.exec_size == 1
                && ctl.predicate == Predicate::None
                && src.file == RegFile::Arf
                && src.nr == arf::MASK
                && src.offset == 0
        }
        _ => false,
    }
}

/// Whether `inst` writes only some of its channels, whatever the execution mask: a
/// predicated instruction (but `sel`, whose predicate chooses a source), a fragment
/// shader's message under the sample mask
/// ([`eubatch_ir::message::sample_mask::takes_it`]), which lowering predicates on it, and a
/// send whose header masks its channels ([`eubatch_ir::message::typed::masked_by_header`]).
pub fn writes_conditionally(shader: &Shader, inst: Inst) -> bool {
    let ctl = shader.insts.control[inst];
    let op = shader.insts.opcode[inst];
    ctl.predicate != Predicate::None && op != Opcode::Sel
        || op.is_message() && eubatch_ir::message::sample_mask::takes_it(shader, inst)
        || op == Opcode::Send
            && shader
                .send_info(inst)
                .is_some_and(eubatch_ir::message::typed::masked_by_header)
}

/// Whether the slot model cannot read `inst` element by element (see the module doc): its
/// VGRF operands are taken whole, and its writes define nothing fully.
pub fn opaque(shader: &Shader, inst: Inst) -> bool {
    shader.backend == eubatch_ir::Backend::Vec4 || shader.has_swizzle_or_writemask(inst)
}

/// The bytes `[start, end)` of each element of a region operand over `exec` channels, as
/// (byte offset within the VGRF, length) pairs.
fn elements(op: &Operand, exec: u32, mut f: impl FnMut(u32, u32)) {
    let sz = op.ty.size();
    if op.stride == 0 {
        f(op.offset, sz);
        return;
    }
    for i in 0..exec {
        f(op.offset + i * op.stride as u32 * sz, sz);
    }
}

/// Calls `f(slots, fully, fully_ignoring_mask)` for each run of consecutive slots an
/// instruction writes with the same flags, in increasing order (a packed write is one run,
/// or three with a partial first and last slot): `fully` when all four bytes of each slot
/// are written unconditionally, `fully_ignoring_mask` when they would be if the execution
/// mask were not looked at (what matters to an `undef`, which gives no channel a value).
pub fn for_each_def_run(
    shader: &Shader,
    slots: &Slots,
    inst: Inst,
    mut f: impl FnMut(SlotRange, bool, bool),
) {
    let op = shader.insts.opcode[inst];
    let ctl = shader.insts.control[inst];
    let dst = shader.insts.dst[inst];
    let exec = ctl.exec_size as u32;
    let opaque = opaque(shader, inst);
    // An opaque instruction defines nothing fully, as a predicated one.
    let conditional = opaque || writes_conditionally(shader, inst);
    if opaque && dst.file == RegFile::Vgrf && (dst.nr as usize) < slots.base.len() {
        let r = slots.vgrf(shader, dst.nr);
        if !r.is_empty() {
            f(r, false, false);
        }
    } else if dst.file == RegFile::Vgrf && (dst.nr as usize) < slots.base.len() {
        let base = slots.base[dst.nr as usize];
        let size = shader.vgrfs[dst.vgrf_nr()].size();
        let masked_write = !ctl.no_mask() && slots.any_unmasked[dst.nr as usize];
        // Bytes written per slot, as a 4-bit mask, slot by slot in increasing order: the
        // elements of a region come in increasing byte order (a stride of at least one
        // element, or one element), so no slot comes back once left, and nothing needs
        // sorting or a buffer.
        let mut cur: Option<(u32, u8)> = None;
        let mut emit = |c: u32, m: u8| {
            let whole = !conditional && m == 0xf;
            let masked = masked_write && slots.unmasked(base + c);
            f(base + c..base + c + 1, whole && !masked, whole)
        };
        let mut mark = |start: u32, len: u32| {
            let end = (start + len).min(size);
            let mut b = start;
            while b < end {
                // The bytes of this slot in [b, end).
                let s = b / SLOT;
                let hi = end.min((s + 1) * SLOT);
                let bits = ((1u8 << (hi - b)) - 1) << (b % SLOT);
                b = hi;
                match &mut cur {
                    Some((c, m)) if *c == s => *m |= bits,
                    Some((c, m)) => {
                        emit(*c, *m);
                        (*c, *m) = (s, bits);
                    }
                    None => cur = Some((s, bits)),
                }
            }
        };
        let run = if op.has_free_size_written() {
            Some(shader.insts.size_written[inst])
        } else if dst.stride == 1 {
            Some(exec * dst.ty.size())
        } else {
            None
        };
        if let Some(len) = run {
            // Packed elements or a message's result: one run of bytes, whose slots are
            // whole but for a partial first or last one.
            let (start, end) = (dst.offset, (dst.offset + len).min(size));
            if start < end {
                // Slots first..=last; the first and the last are partial when the bytes
                // start or end inside them.
                let (mut first, mut last) = (start / SLOT, (end - 1) / SLOT + 1);
                if start % SLOT != 0 {
                    f(base + first..base + first + 1, false, false);
                    first += 1;
                }
                let partial_last = end % SLOT != 0 && last > first;
                if partial_last {
                    last -= 1;
                }
                // Split where the slots' flags change (a write under the mask defines
                // fully only the slots no one reads unmasked).
                let whole = !conditional;
                let mut a = first;
                while a < last {
                    let m = masked_write && slots.unmasked(base + a);
                    let mut b = a + 1;
                    while b < last && masked_write && slots.unmasked(base + b) == m {
                        b += 1;
                    }
                    if !masked_write {
                        b = last;
                    }
                    f(base + a..base + b, whole && !m, whole);
                    a = b;
                }
                if partial_last {
                    f(base + last..base + last + 1, false, false);
                }
            }
        } else {
            elements(&dst, exec, &mut mark);
            if let Some((c, m)) = cur {
                emit(c, m);
            }
        }
    }
    if dst.file == RegFile::Arf && dst.nr & 0xf0 == arf::FLAG {
        // A flag written as a register: all of it, conservatively partially.
        f(slots.flags(), false, false);
    }
    if writes_flag(op, ctl.cmod) {
        // Channel bits first..first+exec of the 64 flag bits, eight to a slot.
        let first = ctl.flag_subreg as u32 * 16 + ctl.group as u32;
        let end = (first + exec).min(8 * FLAG_SLOTS);
        for k in (first / 8..end.div_ceil(8)).filter(|_| first < end) {
            let (lo, hi) = (first.max(8 * k), end.min(8 * k + 8));
            let whole = !conditional && lo == 8 * k && hi == 8 * k + 8;
            f(
                slots.first_flag() + k..slots.first_flag() + k + 1,
                whole,
                whole,
            );
        }
    }
}

/// Whether a conditional modifier writes the flag (`sel`'s selects min/max instead).
pub fn writes_flag(op: Opcode, cmod: eubatch_ir::shader::CondMod) -> bool {
    cmod != eubatch_ir::shader::CondMod::None && !matches!(op, Opcode::Sel | Opcode::Csel)
}

/// Calls `f(slots)` for each run of consecutive slots an instruction reads (never empty;
/// a slot may come more than once): what the access table keeps.
pub fn for_each_use_run(shader: &Shader, slots: &Slots, inst: Inst, mut f: impl FnMut(SlotRange)) {
    let mut f = |r: SlotRange| {
        if !r.is_empty() {
            f(r)
        }
    };
    for_each_source_run(shader, slots, inst, &mut f);
    let ctl = shader.insts.control[inst];
    let exec = ctl.exec_size as u32;
    let opaque = opaque(shader, inst);
    // The predicate reads the flag bits of the instruction's channels (the whole group of
    // four for the ANY4H/ALL4H forms, which stays inside a slot; those of both flag
    // registers for ALLV, `Predicate::vertical_flags`); an opaque instruction's predicate,
    // every flag bit.
    if ctl.predicate != Predicate::None && opaque {
        f(slots.flags());
    } else if ctl.predicate != Predicate::None {
        let subregs = ctl
            .predicate
            .vertical_flags(ctl.flag_subreg)
            .unwrap_or([ctl.flag_subreg; 2]);
        let mut seen = [false; FLAG_SLOTS as usize];
        for subreg in subregs {
            let first = subreg as u32 * 16 + ctl.group as u32;
            for c in 0..exec.max(1) {
                let k = (((first + c) / 8) as usize).min(FLAG_SLOTS as usize - 1);
                if !seen[k] {
                    seen[k] = true;
                    f(slots.first_flag() + k as u32..slots.first_flag() + k as u32 + 1);
                }
            }
        }
    }
    // A predicated write keeps the old value in the channels it skips, and so does a write
    // under a writemask (an opaque instruction's writes are all partial).
    if writes_conditionally(shader, inst) || opaque {
        for_each_def_run(shader, slots, inst, |r, _, _| f(r));
    }
}

/// The runs of slots an instruction's source operands read (part of [`for_each_use_run`]:
/// without the predicate's flags and the old values a partial write keeps); never empty.
fn for_each_source_run(shader: &Shader, slots: &Slots, inst: Inst, mut f: impl FnMut(SlotRange)) {
    let mut f = |r: SlotRange| {
        if !r.is_empty() {
            f(r)
        }
    };
    let op = shader.insts.opcode[inst];
    let ctl = shader.insts.control[inst];
    let exec = ctl.exec_size as u32;
    let srcs = shader.srcs(inst);
    let header = shader.send_info(inst).map_or(0, |s| s.header_size as usize);
    let send_reads = |k: usize| eubatch_ir::size_read::payload_len(shader, inst, k);
    let opaque = opaque(shader, inst);
    for (k, s) in srcs.iter().enumerate() {
        match s.file {
            RegFile::Vgrf if opaque && (s.nr as usize) < slots.base.len() => {
                f(slots.vgrf(shader, s.nr));
            }
            RegFile::Vgrf if (s.nr as usize) < slots.base.len() => {
                let range = slots.vgrf(shader, s.nr);
                let base = range.start;
                let first = s.offset / SLOT;
                if op == Opcode::LoadPayload {
                    // (A header source is one whole register.)
                    let len = if k < header {
                        shader.reg_size()
                    } else {
                        exec * s.ty.size()
                    };
                    let last = (s.offset + len).div_ceil(SLOT);
                    f(base + first..(base + last).min(range.end).max(base + first));
                } else if let Some(len) = send_reads(k) {
                    let last = (s.offset + len).div_ceil(SLOT);
                    f(base + first..(base + last).min(range.end).max(base + first));
                } else if op.is_message()
                    || op.alu_arity().is_none() && !reads_other_channels(op) && op != Opcode::Undef
                {
                    // A message or virtual opcode reads as much as it needs: to the end.
                    f(base + first..range.end.max(base + first));
                } else if s.stride <= 1 {
                    // One element, or packed elements: one run of bytes, its slots once.
                    let len = if s.stride == 0 { 1 } else { exec } * s.ty.size();
                    let last = (s.offset + len).div_ceil(SLOT);
                    f(base + first..(base + last).min(range.end).max(base + first));
                    if reads_other_channels(op) {
                        let comp = shader.dispatch_width.max(ctl.exec_size) as u32 * s.ty.size();
                        let last = (s.offset + comp).div_ceil(SLOT);
                        f(base + first..(base + last).min(range.end).max(base + first));
                    }
                } else {
                    elements(s, exec, |start, len| {
                        let (lo, hi) = (base + start / SLOT, base + (start + len).div_ceil(SLOT));
                        f(lo..hi.min(range.end).max(lo));
                    });
                    if reads_other_channels(op) {
                        // Other channels' values: the whole component the operand starts
                        // (every channel of the dispatch), not the components after it.
                        let comp = shader.dispatch_width.max(ctl.exec_size) as u32
                            * s.ty.size()
                            * s.stride.max(1) as u32;
                        let last = (s.offset + comp).div_ceil(SLOT);
                        f(base + first..(base + last).min(range.end).max(base + first));
                    }
                }
            }
            RegFile::Arf if s.nr & 0xf0 == arf::FLAG => {
                f(slots.flags());
            }
            _ => {}
        }
    }
}

/// Whether removing the instruction could change anything but its destination and flags.
pub fn has_side_effects(shader: &Shader, inst: Inst) -> bool {
    let op = shader.insts.opcode[inst];
    let ctl = shader.insts.control[inst];
    let dst = shader.insts.dst[inst];
    if !is_pure(op) || ctl.eot() || op.control_flow() != eubatch_ir::opcode::ControlFlow::None {
        return true;
    }
    match dst.file {
        RegFile::Vgrf | RegFile::Bad => false,
        RegFile::Arf => !(dst.nr == arf::NULL || dst.nr & 0xf0 == arf::FLAG),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A send-like payload in a loop: its first register (a header) is written NoMask and
    /// read NoMask, its second written and read under the mask. Only the header's slots
    /// cross the channel mask; the data register is defined fully by its masked write (a
    /// flag per VGRF kept both registers live around the loop).
    #[test]
    fn channel_mask_crossing_is_per_slot() {
        let s = eubatch_ir::text::parse_shader(
            "shader \"m\" stage FS width 8 target skl
vgrf0 2x32
vgrf1 1x32
vgrf2 1x32
block0:
    mov(8) vgrf1:F, 0f
block1:
    do(8) (null):UD
block2:
    mov(8) vgrf0:UD, g0<8,8,1>:UD NoMask
    mov(8) vgrf0+1.0:F, vgrf1:F
    mov(8) vgrf2:UD, vgrf0:UD NoMask
    add(8) vgrf1:F, vgrf0+1.0:F, 1f
    cmp.ge.f0.0(8) null:F, vgrf1:F, 3f
    (+f0.0) break(8) (null):UD
block3:
    while(8) (null):UD
block4:
    fb_write_logical(8) (EOT) (null):UD, vgrf2:F, (null):UD, (null):UD, (null):UD, (null):UD, (null):UD, (null):UD, 1u
",
        )
        .unwrap();
        let nesting = crate::analysis::nesting::Nesting::compute(&s);
        let slots = Slots::of(&s, &nesting);
        let header = slots.unmasked_of(0, 16);
        assert!(header[..8].iter().all(|&u| u), "header: {header:?}");
        assert!(header[8..].iter().all(|&u| !u), "data: {header:?}");
        // The masked write of the data register defines each of its slots fully; the
        // NoMask header write too.
        let insts: Vec<_> = s.layout.insts().collect();
        let mut fully = Vec::new();
        for_each_def_run(&s, &slots, insts[3], |r, f, _| fully.push((r, f)));
        assert!(fully.iter().all(|&(_, f)| f), "{fully:?}");
        fully.clear();
        for_each_def_run(&s, &slots, insts[2], |r, f, _| fully.push((r, f)));
        assert!(fully.iter().all(|&(_, f)| f), "{fully:?}");
        // A masked write of the header would not.
        let mut masked = s.clone();
        masked.insts.control[insts[2]].set(eubatch_ir::shader::Control::NO_MASK, false);
        fully.clear();
        for_each_def_run(&masked, &slots, insts[2], |r, f, _| fully.push((r, f)));
        assert!(fully.iter().all(|&(_, f)| !f), "{fully:?}");
    }

    /// A broadcast reads its value in the channel find_live_channel found: when both and
    /// every write of the value are in one block, the channel was enabled at the write, and
    /// the value's slots do not cross the mask; written in another block (here inside an
    /// `if`, under a smaller mask), they do.
    #[test]
    fn broadcast_of_a_live_channel_reads_enabled_channels_only() {
        let shader = |inside_if: bool| {
            let write = "    add(8) vgrf0:UD, vgrf3:UD, 2u\n";
            let (before, after) = if inside_if { (write, "") } else { ("", write) };
            eubatch_ir::text::parse_shader(&format!(
                "shader \"b\" stage FS width 8 target skl
vgrf0 1x32
vgrf1 1x32
vgrf2 1x32
vgrf3 1x32
block0:
    mov(8) vgrf3:UD, g2<8,8,1>:UD
    cmp.ge.f0.0(8) null:F, vgrf3:F, 3f
    (+f0.0) if(8) (null):UD
block1:
{before}    endif(8) (null):UD
block2:
{after}    find_live_channel(8) vgrf1:UD NoMask
    broadcast(8) vgrf2:UD, vgrf0:UD, vgrf1<0>:UD NoMask
    fb_write_logical(8) (EOT) (null):UD, vgrf2:F, (null):UD, (null):UD, (null):UD, (null):UD, (null):UD, (null):UD, 1u
"
            ))
            .unwrap()
        };
        let same_block = shader(false);
        let slots = Slots::of(
            &same_block,
            &crate::analysis::nesting::Nesting::compute(&same_block),
        );
        assert!(slots.unmasked_of(0, 8).iter().all(|&u| !u));
        let other_block = shader(true);
        let slots = Slots::of(
            &other_block,
            &crate::analysis::nesting::Nesting::compute(&other_block),
        );
        assert!(slots.unmasked_of(0, 8).iter().all(|&u| u));
    }

    /// The same with the index as Mesa's gen8+ pre-RA dumps show it, find_live_channel
    /// lowered to `undef` and `fbl(1)` of the channel-enable register (printed `arf0.0`):
    /// the broadcast still reads an enabled channel. `fbl` of anything else is no such
    /// index.
    #[test]
    fn broadcast_of_the_lowered_find_live_channel_reads_enabled_channels_only() {
        let shader = |fbl_src: &str| {
            eubatch_ir::text::parse_shader(&format!(
                "shader \"b\" stage FS width 8 target skl
vgrf0 1x32
vgrf1 1x32
vgrf2 1x32
block0:
    add(8) vgrf0:UD, g2<8,8,1>:UD, 2u
    undef(8) vgrf1:UD NoMask
    fbl(1) vgrf1:UD, {fbl_src} NoMask group0
    broadcast(8) vgrf2:UD, vgrf0:UD, vgrf1<0>:UD NoMask
    fb_write_logical(8) (EOT) (null):UD, vgrf2:F, (null):UD, (null):UD, (null):UD, (null):UD, (null):UD, (null):UD, 1u
"
            ))
            .unwrap()
        };
        let unmasked = |src: &str| {
            let s = shader(src);
            let slots = Slots::of(&s, &crate::analysis::nesting::Nesting::compute(&s));
            slots.unmasked_of(0, 8)
        };
        assert!(unmasked("arf0.0<0>:UD").iter().all(|&u| !u));
        assert!(unmasked("mask0<0>:UD").iter().all(|&u| !u));
        assert!(unmasked("g3<0,1,0>:UD").iter().all(|&u| u));
    }
}
