//! Optimization passes (issue 4) and, later, lowering (issue 7). Every pass is a file with
//! `fn run(&mut Shader, &mut PassCx) -> bool` (progress) and a module doc saying what it
//! does and which hardware rules limit it; [`manager`] runs them by name.

pub mod algebraic;
pub mod analysis;
pub mod cmod_prop;
pub mod coalesce;
pub mod compact;
pub mod copy_prop;
pub mod cse;
pub mod dce;
pub mod dead_cf;
pub mod load_cse;
pub mod lower;
pub mod manager;
pub mod payload_cse;
pub mod predicated_break;
pub mod sat_prop;
pub mod schedule;
pub mod sel_peephole;
pub mod split;
pub mod tex_response;
pub mod value_range;
pub mod vec4_dead_channels;

use std::rc::Rc;

use eubatch_ir::cfg::split_blocks;
use eubatch_ir::{Shader, Vgrf};

use analysis::changed::{BlockShape, Changed, Snapshot};
use analysis::{access_table, defs, intervals, liveness, nesting, points, pressure};

/// What passes share while they run on one shader: the analyses, computed on demand and
/// kept until a pass reports that it changed the shader (the manager then calls
/// [`PassCx::invalidate`]). A pass that changes the shader and then needs an analysis of
/// the changed shader computes it itself: what is here describes the shader as the pass
/// found it.
#[derive(Default)]
pub struct PassCx {
    access: Option<Rc<access_table::AccessTable>>,
    /// The last table, of an earlier version of the shader: the next is made from it.
    stale_access: Option<Rc<access_table::AccessTable>>,
    /// A table of another shader, whose storage the first table of this one takes
    /// ([`PassCx::reusing`]).
    recycled: Option<access_table::AccessTable>,
    nesting: Option<Rc<nesting::Nesting>>,
    points: Option<Rc<points::Points>>,
    /// The control-flow graph, or why the layout has none (unbalanced control flow).
    cfg: Option<Result<Rc<eubatch_ir::cfg::Cfg>, String>>,
    liveness: Option<Rc<liveness::Liveness>>,
    intervals: Option<Rc<intervals::LiveIntervals>>,
    defs: Option<Rc<defs::Defs>>,
    pressure: Option<Rc<pressure::Pressure>>,
    /// Per slot, a position on [`PassCx::clock`]: scratch that outlives a pass run, so
    /// that a pass keeping positions per slot neither allocates nor clears a column the
    /// size of the shader each run (what an earlier run left is older than any position
    /// of this one, whatever the slot numbering then). CSE's last writes.
    pub(crate) slot_stamps: Vec<u32>,
    /// The last position handed out for [`PassCx::slot_stamps`].
    pub(crate) clock: u32,
    /// How many times each analysis was computed (for the pass statistics).
    pub computed: u64,
    /// How many times a pass changed the shader: a version number of the shader.
    pub version: u64,
}

impl PassCx {
    /// No analysis yet; the first access table is computed into the storage of `table`, the
    /// last one of a shader compiled before ([`PassCx::into_storage`]): a thread compiling
    /// shader after shader keeps that room instead of allocating it for each (and having
    /// it faulted in again by the system).
    pub fn reusing(table: Option<access_table::AccessTable>) -> PassCx {
        PassCx {
            recycled: table,
            ..PassCx::default()
        }
    }

    /// The storage of the access table, once nothing else is wanted of this shader's
    /// analyses, for the next shader's ([`PassCx::reusing`]); none while something outside
    /// still holds the table.
    pub fn into_storage(mut self) -> Option<access_table::AccessTable> {
        // The analyses built on the table hold it too.
        self.liveness = None;
        self.intervals = None;
        self.defs = None;
        self.pressure = None;
        let table = self.access.take().or(self.stale_access.take())?;
        Rc::try_unwrap(table).ok()
    }

    /// Control-flow nesting of every instruction and block, computed once until invalidated.
    pub fn nesting(&mut self, shader: &Shader) -> Rc<nesting::Nesting> {
        self.nesting
            .get_or_insert_with(|| Rc::new(nesting::Nesting::compute(shader)))
            .clone()
    }

    /// Every instruction's position in layout order, numbered once until invalidated.
    pub fn points(&mut self, shader: &Shader) -> Rc<points::Points> {
        self.points
            .get_or_insert_with(|| Rc::new(points::Points::compute(shader)))
            .clone()
    }

    /// The control-flow graph, built once until invalidated; an error when the layout's
    /// control flow does not nest.
    pub fn cfg(&mut self, shader: &Shader) -> Result<Rc<eubatch_ir::cfg::Cfg>, String> {
        self.cfg
            .get_or_insert_with(|| {
                eubatch_ir::cfg::Cfg::build(&shader.layout, |i| shader.insts.opcode[i])
                    .map(Rc::new)
                    .map_err(|e| format!("{}: {}", e.inst, e.msg))
            })
            .clone()
    }

    /// Every instruction's slot accesses, computed once until invalidated.
    pub fn access(&mut self, shader: &Shader) -> Rc<access_table::AccessTable> {
        if self.access.is_none() {
            let nesting = self.nesting(shader);
            self.access = Some(Rc::new(
                match (self.stale_access.take(), self.recycled.take()) {
                    (Some(old), _) => access_table::AccessTable::update(old, shader, &nesting),
                    (None, Some(room)) => {
                        access_table::AccessTable::compute_reusing(room, shader, &nesting)
                    }
                    (None, None) => access_table::AccessTable::compute(shader, &nesting),
                },
            ));
        }
        self.access.clone().unwrap()
    }

    /// Liveness of `shader`, computed once until invalidated.
    pub fn liveness(&mut self, shader: &Shader) -> Option<Rc<liveness::Liveness>> {
        if self.liveness.is_none() {
            self.computed += 1;
            let access = self.access(shader);
            self.liveness = self
                .cfg(shader)
                .ok()
                .map(|cfg| Rc::new(liveness::Liveness::compute(shader, access, &cfg)));
        }
        self.liveness.clone()
    }

    /// Live intervals of every slot and VGRF of `shader`, computed once until invalidated
    /// (none when liveness cannot be computed).
    pub fn intervals(&mut self, shader: &Shader) -> Option<Rc<intervals::LiveIntervals>> {
        if self.intervals.is_none() {
            let live = self.liveness(shader)?;
            let points = self.points(shader);
            self.intervals = Some(Rc::new(intervals::LiveIntervals::compute(
                shader, &live, &points,
            )));
        }
        self.intervals.clone()
    }

    /// Single and piecewise definitions of every VGRF, computed once until invalidated.
    pub fn defs(&mut self, shader: &Shader) -> Rc<defs::Defs> {
        if self.defs.is_none() {
            let access = self.access(shader);
            let nesting = self.nesting(shader);
            self.defs = Some(Rc::new(defs::Defs::compute(shader, &access, &nesting)));
        }
        self.defs.clone().unwrap()
    }

    /// Register pressure of `shader`, computed once until invalidated.
    pub fn pressure(&mut self, shader: &Shader) -> Option<Rc<pressure::Pressure>> {
        if self.pressure.is_none() {
            let live = self.liveness(shader)?;
            self.pressure = Some(Rc::new(pressure::Pressure::compute(shader, &live)));
        }
        self.pressure.clone()
    }

    /// The shader changed in `changed`: the analyses depending on one of those categories
    /// are stale and dropped, the others kept (Mesa's `invalidate_analysis`).
    pub fn invalidate(&mut self, changed: Changed) {
        if changed.is_empty() {
            return;
        }
        self.version += 1;
        if changed.intersects(Self::CFG_DEPENDS_ON) {
            self.cfg = None;
        }
        if changed.intersects(Self::NESTING_DEPENDS_ON) {
            self.nesting = None;
        }
        if changed.intersects(Self::POINTS_DEPEND_ON) {
            self.points = None;
        }
        // The access table reads every field of every instruction, the VGRF table and the
        // nesting, not the order: stale after any change but a move inside blocks. The rest
        // follow the order too.
        if changed.intersects(Self::ACCESS_DEPENDS_ON) {
            if let Some(access) = self.access.take() {
                self.stale_access = Some(access);
            }
        }
        self.liveness = None;
        self.intervals = None;
        self.defs = None;
        self.pressure = None;
    }

    /// The control-flow graph reads the blocks and their first and last instructions' control
    /// flow, nothing else ([`eubatch_ir::cfg::Cfg::build`]).
    const CFG_DEPENDS_ON: Changed = Changed::BLOCKS;
    /// The nesting is per instruction, counted along the order from the control-flow
    /// instructions that open and close the blocks (which a move inside blocks keeps).
    const NESTING_DEPENDS_ON: Changed = Changed::INSTRUCTION_IDENTITY.union(Changed::BLOCKS);
    /// The numbering follows the instruction order and the blocks, nothing else.
    const POINTS_DEPEND_ON: Changed = Changed::INSTRUCTION_IDENTITY
        .union(Changed::INSTRUCTION_ORDER)
        .union(Changed::BLOCKS);
    /// Each instruction's accesses (and the nesting and VGRF table they read).
    const ACCESS_DEPENDS_ON: Changed = Changed::INSTRUCTION_IDENTITY
        .union(Changed::INSTRUCTION_DETAIL)
        .union(Changed::INSTRUCTION_DATA_FLOW)
        .union(Changed::VARIABLES)
        .union(Changed::BLOCKS);
}

/// The most instructions one block of `shader` holds: what a pass walking block by block
/// sizes its per-block buffers for, so that they grow at most once in a run instead of
/// doubling from nothing.
pub(crate) fn largest_block(shader: &Shader) -> usize {
    shader
        .layout
        .blocks
        .iter()
        .map(|b| b.insts.len())
        .max()
        .unwrap_or(0)
}

/// Makes every source that reads a VGRF in `renames` read its replacement instead.
pub fn rename_sources(shader: &mut Shader, renames: &hashbrown::HashMap<Vgrf, Vgrf>) {
    let order: Vec<eubatch_ir::Inst> = shader.layout.order();
    for inst in order {
        for s in shader.srcs_mut(inst) {
            if let Some(&to) = s.as_vgrf().and_then(|v| renames.get(&v)) {
                s.nr = to.raw();
            }
        }
    }
}

/// Removes the instructions of `order` (the layout order) marked in `remove`, and re-splits
/// the blocks; what that changed ([`relayout`]).
pub fn remove_marked(shader: &mut Shader, order: &[eubatch_ir::Inst], remove: &[bool]) -> Changed {
    let mut gone = vec![false; shader.insts.opcode.len()];
    for (i, _) in order.iter().zip(remove).filter(|(_, r)| **r) {
        gone[i.index()] = true;
    }
    remove_flagged(shader, &gone)
}

/// Removes the instructions in `gone` and re-splits the blocks; what that changed
/// ([`relayout`]).
pub fn remove_set(shader: &mut Shader, gone: &hashbrown::HashSet<eubatch_ir::Inst>) -> Changed {
    let mut flagged = vec![false; shader.insts.opcode.len()];
    for i in gone {
        flagged[i.index()] = true;
    }
    remove_flagged(shader, &flagged)
}

/// Removes the instructions flagged in `gone` (by instruction number: a look-up per
/// instruction of the layout, not a hash) and re-splits the blocks.
fn remove_flagged(shader: &mut Shader, gone: &[bool]) -> Changed {
    let before = Snapshot::blocks(shader);
    for b in shader.layout.blocks.iter_mut() {
        b.insts.retain(|i| !gone[i.index()]);
    }
    relayout(shader, &before)
}

/// Re-splits the blocks after instructions were removed (a block left empty would no
/// longer be where control flow puts one). The instruction order changed; the blocks did
/// too when they differ from `before` ([`Snapshot::blocks`] of the shader before the
/// removal) as the control-flow graph sees them: what it returns.
pub fn relayout(shader: &mut Shader, before: &[BlockShape]) -> Changed {
    let order: Vec<_> = shader.layout.order();
    shader.layout = split_blocks(&order, |i| shader.insts.opcode[i]);
    if Snapshot::blocks(shader) == before {
        Changed::INSTRUCTION_IDENTITY
    } else {
        Changed::INSTRUCTION_IDENTITY | Changed::BLOCKS
    }
}
