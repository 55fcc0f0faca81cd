//! Repeated constant loads: a pull-constant load (`varying_pull_const_logical`,
//! `uniform_pull_const`, or a lowered `send` to the sampler or the constant cache) that
//! reads the same surface at the same offsets as an earlier one in its block, in the same
//! channels, is dropped and its result's readers read the earlier result instead. Constant
//! buffers and textures do not change while a shader runs, so the two load the same data.
//! (Mesa's `opt_cse_local` does this for these opcodes and for sends without side effects,
//! copying the earlier
//! result with a LOAD_PAYLOAD that coalescing then removes; renaming skips the copy.)
//!
//! Two block loads of one constant block that keep different numbers of its registers (dead
//! registers trimmed from one) match too: the shorter result is the start of the longer.
//!
//! Rules that limit it: the earlier result is a whole VGRF, not written again before the
//! later load; no predicate; a VGRF source of the earlier load written in between ends the
//! match. The later result is renamed to the earlier one when both are written by their
//! loads alone in the whole shader and the block is in no loop (a reader in a later
//! iteration could otherwise see the earlier load's newer value before the dropped one
//! would have run); otherwise — a result also written elsewhere, like the two sides of an
//! `if` — the load becomes moves of the earlier result in its channels, as in Mesa.

use hashbrown::HashMap;

use eubatch_ir::message::sfid;
use eubatch_ir::shader::Predicate;
use eubatch_ir::{Builder, Inst, Opcode, Operand, RegFile, Shader, Type, Vgrf};

use crate::analysis::changed::Changed;
use crate::PassCx;

fn is_constant_load(shader: &Shader, inst: Inst) -> bool {
    let op = shader.insts.opcode[inst];
    match op {
        Opcode::VaryingPullConstLogical
        | Opcode::UniformPullConst
        | Opcode::UniformPullConstGfx7 => true,
        // A lowered read of the sampler or the constant cache: the same payload in the same
        // channels reads the same data (Mesa's `is_expression` takes sends without side
        // effects).
        Opcode::Send => shader.send_info(inst).is_some_and(|s| {
            matches!(s.sfid, sfid::SAMPLER | sfid::CONSTANT_CACHE)
                && !shader.insts.control[inst].eot()
        }),
        _ => false,
    }
}

/// Scalar code: operands read as Align1 regions.
pub const SCOPE: crate::manager::Scope = crate::manager::Scope::SCALAR;

pub fn run(shader: &mut Shader, cx: &mut PassCx) -> Changed {
    if !shader.layout.insts().any(|i| is_constant_load(shader, i)) {
        return Changed::NOTHING;
    }
    let defs = cx.defs(shader);
    // Which blocks are in a loop, as the shader was found (the walk below keeps blocks).
    let nesting = cx.nesting(shader);
    let whole_single = |shader: &Shader, inst: Inst| {
        let dst = shader.insts.dst[inst];
        let ctl = shader.insts.control[inst];
        dst.file == RegFile::Vgrf
            && dst.offset == 0
            && ctl.predicate == Predicate::None
            && (dst.nr as usize) < defs.count.len()
            && defs.count[dst.nr as usize] == 1
            && shader.insts.size_written[inst] == shader.vgrfs[dst.vgrf_nr()].size()
    };
    let mut renames: HashMap<Vgrf, Vgrf> = HashMap::new();
    let mut removed = hashbrown::HashSet::new();
    let mut copies: HashMap<Inst, Vec<Inst>> = HashMap::new();
    // Scratch kept across blocks (cleared, not reallocated, per block).
    let mut earlier = EarlierLoads::default();
    for b in shader.layout.blocks.indices() {
        earlier.clear();
        for k in 0..shader.layout.blocks[b].insts.len() {
            let inst = shader.layout.blocks[b].insts[k];
            if is_constant_load(shader, inst) && whole_unpredicated(shader, inst) {
                let layout = |i: Inst| shader.vgrfs[shader.insts.dst[i].vgrf_nr()];
                // The first earlier live load with this one's opcode, message, control and
                // sources (those share its bucket, in layout order).
                let found = earlier.candidates(shader, inst).find(|&e| {
                    shader.insts.opcode[e] == shader.insts.opcode[inst]
                        && shader.send_info(e) == shader.send_info(inst)
                        && shader.insts.control[e] == shader.insts.control[inst]
                        && shader.srcs(e) == shader.srcs(inst)
                        && ((shader.insts.size_written[e] == shader.insts.size_written[inst]
                            && layout(e) == layout(inst))
                            || block_load_prefix(shader, e, inst))
                });
                if let Some(e) = found {
                    if !nesting.in_loop(b) && whole_single(shader, inst) && whole_single(shader, e)
                    {
                        // A block load that kept fewer registers than this one reads
                        // grows to this one's size (the message reads the block anyway).
                        let v_e = shader.insts.dst[e].vgrf_nr();
                        if shader.insts.size_written[e] < shader.insts.size_written[inst] {
                            shader.vgrfs[v_e] = layout(inst);
                            shader.insts.size_written[e] = shader.insts.size_written[inst];
                        }
                        renames.insert(shader.insts.dst[inst].vgrf_nr(), v_e);
                        removed.insert(inst);
                        continue;
                    }
                    if shader.insts.size_written[e] != shader.insts.size_written[inst] {
                        continue;
                    }
                    if let Some(movs) = copy_of(shader, e, inst) {
                        copies.insert(inst, movs);
                        removed.insert(inst);
                        continue;
                    }
                }
            }
            // A write to what an earlier load read, or to its result, ends it.
            let dst = shader.insts.dst[inst];
            if dst.file == RegFile::Vgrf {
                earlier.kill_mentions(dst.nr);
            }
            if is_constant_load(shader, inst) && whole_unpredicated(shader, inst) {
                earlier.push(shader, inst);
            }
        }
    }
    if removed.is_empty() {
        return Changed::NOTHING;
    }
    crate::rename_sources(shader, &renames);
    for block in shader.layout.blocks.iter_mut() {
        let mut insts = Vec::with_capacity(block.insts.len());
        for &i in &block.insts {
            if let Some(movs) = copies.get(&i) {
                insts.extend_from_slice(movs);
            } else if !removed.contains(&i) {
                insts.push(i);
            }
        }
        block.insts = insts;
    }
    Changed::EVERYTHING
}

/// The loads of a block still valid at the walk's point, found without scanning them all:
/// by a hash of what must be equal for two loads to match (opcode, message, control,
/// sources), and, to end them, by the VGRFs each one names (its result and its sources).
/// Lists are chains through flat arrays, so pushing a load allocates nothing once the
/// arrays have grown (a dolphin ubershader's blocks hold hundreds of loads: comparing each
/// with every earlier one, and scanning them all at every write, was quadratic).
#[derive(Default)]
struct EarlierLoads {
    /// By load, in layout order: the instruction, whether it is still valid, and the next
    /// load of its bucket.
    loads: Vec<(Inst, bool, u32)>,
    /// Bucket hash to its first and last load.
    buckets: HashMap<u64, (u32, u32)>,
    /// VGRF number to the first node of the loads naming it; nodes are (load, next node).
    by_vgrf: HashMap<u32, u32>,
    nodes: Vec<(u32, u32)>,
    /// One hasher for every bucket (a `DefaultHashBuilder` is seeded anew each time one is
    /// made, so each load must be hashed with the same one).
    hasher: hashbrown::DefaultHashBuilder,
}

const END: u32 = u32::MAX;

impl EarlierLoads {
    fn clear(&mut self) {
        self.loads.clear();
        self.buckets.clear();
        self.by_vgrf.clear();
        self.nodes.clear();
    }

    fn bucket(&self, shader: &Shader, inst: Inst) -> u64 {
        use std::hash::{BuildHasher, Hash, Hasher};
        let mut h = self.hasher.build_hasher();
        shader.insts.opcode[inst].hash(&mut h);
        shader.send_info(inst).hash(&mut h);
        shader.insts.control[inst].hash(&mut h);
        for s in shader.srcs(inst) {
            s.key().hash(&mut h);
        }
        h.finish()
    }

    /// The valid loads that may match `inst`, earliest first.
    fn candidates<'a>(&'a self, shader: &Shader, inst: Inst) -> impl Iterator<Item = Inst> + 'a {
        let mut at = self
            .buckets
            .get(&self.bucket(shader, inst))
            .map_or(END, |b| b.0);
        std::iter::from_fn(move || {
            while at != END {
                let (load, valid, next) = self.loads[at as usize];
                at = next;
                if valid {
                    return Some(load);
                }
            }
            None
        })
    }

    fn push(&mut self, shader: &Shader, inst: Inst) {
        let id = self.loads.len() as u32;
        self.loads.push((inst, true, END));
        let bucket = self.bucket(shader, inst);
        match self.buckets.entry(bucket) {
            hashbrown::hash_map::Entry::Occupied(mut o) => {
                let last = o.get().1;
                self.loads[last as usize].2 = id;
                o.get_mut().1 = id;
            }
            hashbrown::hash_map::Entry::Vacant(v) => {
                v.insert((id, id));
            }
        }
        let named = std::iter::once(shader.insts.dst[inst].nr).chain(
            shader
                .srcs(inst)
                .iter()
                .filter(|s| s.file == RegFile::Vgrf)
                .map(|s| s.nr),
        );
        for nr in named {
            let node = self.nodes.len() as u32;
            let head = self.by_vgrf.entry(nr).or_insert(END);
            self.nodes.push((id, *head));
            *head = node;
        }
    }

    /// Ends every load whose result or source is VGRF `nr` (it is written).
    fn kill_mentions(&mut self, nr: u32) {
        let mut at = self.by_vgrf.remove(&nr).unwrap_or(END);
        while at != END {
            let (load, next) = self.nodes[at as usize];
            self.loads[load as usize].1 = false;
            at = next;
        }
    }
}

/// Two NoMask block loads of one constant block (`uniform_pull_const`) whose results are
/// plain bytes (no padding) and differ only in how many registers of the block they keep:
/// the shorter one's bytes are the first bytes of the longer one's.
fn block_load_prefix(shader: &Shader, a: Inst, b: Inst) -> bool {
    let flat = |i: Inst| shader.vgrfs[shader.insts.dst[i].vgrf_nr()].padding == 0;
    matches!(
        shader.insts.opcode[a],
        Opcode::UniformPullConst | Opcode::UniformPullConstGfx7
    ) && shader.insts.control[a].no_mask()
        && flat(a)
        && flat(b)
}

/// Whether `inst` writes its whole destination VGRF, unpredicated (its old value is dead).
fn whole_unpredicated(shader: &Shader, inst: Inst) -> bool {
    let dst = shader.insts.dst[inst];
    dst.file == RegFile::Vgrf
        && dst.offset == 0
        && shader.insts.control[inst].predicate == Predicate::None
        && shader.insts.size_written[inst] == shader.vgrfs[dst.vgrf_nr()].size()
}

/// Moves copying what the load `earlier` wrote into `later`'s destination, in `later`'s
/// channels: for a masked load, one move per 32-bit component in its execution size and
/// group (SIMD16 at most, as a move allows); for a NoMask load, NoMask moves of whole
/// registers. None when the result is not made of such pieces.
fn copy_of(shader: &mut Shader, earlier: Inst, later: Inst) -> Option<Vec<Inst>> {
    let ctl = shader.insts.control[later];
    let size = shader.insts.size_written[later];
    let from = shader.insts.dst[earlier].nr;
    let to = shader.insts.dst[later].nr;
    // (execution size, group, byte offset) of every move.
    let mut pieces = Vec::new();
    if ctl.no_mask() {
        // Whole registers, each a NoMask move of its dwords.
        let reg = shader.reg_size();
        if size % reg != 0 {
            return None;
        }
        let dwords = (reg / 4) as u8;
        pieces.extend((0..size / reg).map(|r| (dwords, 0u8, r * reg, true)));
    } else {
        let exec = ctl.exec_size as u32;
        let comp = exec * 4;
        if size % comp != 0 {
            return None;
        }
        let step = exec.min(16);
        for c in 0..size / comp {
            for g in (0..exec).step_by(step as usize) {
                pieces.push((step as u8, ctl.group + g as u8, c * comp + g * 4, false));
            }
        }
    }
    let movs = pieces
        .into_iter()
        .map(|(exec, group, offset, no_mask)| {
            let dst = Operand::vgrf(to, offset, Type::UD, 1);
            let src = Operand::vgrf(from, offset, Type::UD, 1);
            Builder::new(exec)
                .at(group)
                .exec_all_if(no_mask)
                .mov(shader, dst, src)
        })
        .collect();
    Some(movs)
}
