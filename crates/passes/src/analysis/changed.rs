//! What a pass changed, in the categories analyses depend on: Mesa's
//! `analysis_dependency_class` (`brw_ir_analysis.h`) and `fs_visitor::invalidate_analysis`.
//!
//! A pass returns the categories it changed ([`Changed::NOTHING`] when it made no
//! progress); [`crate::PassCx::invalidate`] then drops only the analyses that depend on one
//! of them, so that the control-flow graph, say, outlives a pass that rewrote operands
//! inside blocks. Each analysis states its dependencies beside its cache in `PassCx`. A
//! claim is checked where the verifier runs ([`Changed::check_claim`]): a pass that
//! changed the blocks, the VGRF table or the instruction order without saying so fails
//! there, rather than leaving a stale graph to the next pass.

use eubatch_ir::opcode::ControlFlow;
use eubatch_ir::{Inst, Shader};

/// A set of change categories.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Changed(u8);

impl Changed {
    /// Nothing: the pass made no progress.
    pub const NOTHING: Changed = Changed(0);
    /// Instructions were added, removed or moved (the layout's instruction order).
    pub const INSTRUCTION_IDENTITY: Changed = Changed(1);
    /// Fields of instructions that do not name what they read and write changed (opcode,
    /// conditional modifier, saturate, ...).
    pub const INSTRUCTION_DETAIL: Changed = Changed(2);
    /// What instructions read and write changed: operands, regions, predicates, masks,
    /// execution size.
    pub const INSTRUCTION_DATA_FLOW: Changed = Changed(4);
    /// Instructions moved inside their blocks, none added, removed or changed, and every
    /// block's control flow where it was (a scheduler): what each instruction reads and
    /// writes, and the nesting, are as they were; positions and liveness are not.
    /// [`Changed::INSTRUCTION_IDENTITY`] says more (it covers this).
    pub const INSTRUCTION_ORDER: Changed = Changed(32);
    /// Any change to instructions.
    pub const INSTRUCTIONS: Changed = Changed(7 | 32);
    /// The VGRF table: a VGRF added, removed, renumbered or given another layout.
    pub const VARIABLES: Changed = Changed(8);
    /// The blocks and the edges between them.
    pub const BLOCKS: Changed = Changed(16);
    /// Anything: what a pass says when it does not know better.
    pub const EVERYTHING: Changed = Changed(63);

    /// Both sets of categories (`|`, usable in constants).
    pub const fn union(self, other: Changed) -> Changed {
        Changed(self.0 | other.0)
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether `self` and `other` share a category: an analysis depending on `other` is
    /// stale after changes `self`.
    pub fn intersects(self, other: Changed) -> bool {
        self.0 & other.0 != 0
    }

    pub fn contains(self, other: Changed) -> bool {
        self.0 & other.0 == other.0
    }

    /// `changed` when `progress`, else nothing: a pass whose changes are always of one kind.
    pub fn when(progress: bool, changed: Changed) -> Changed {
        if progress {
            changed
        } else {
            Changed::NOTHING
        }
    }

    /// Checks what a pass claims against the shader before and after it: the categories
    /// that can be compared without a model of every field (the instruction order, the VGRF
    /// table, the blocks) must be claimed when they changed. `Err` names the first category
    /// changed and not claimed.
    pub fn check_claim(self, before: &Snapshot, after: &Shader) -> Result<(), String> {
        let now = Snapshot::of(after);
        let unclaimed = |what: Changed, name: &str| {
            if self.contains(what) {
                Ok(())
            } else {
                Err(format!("it changed {name} and did not say so"))
            }
        };
        if now.order != before.order {
            // Moving instructions inside their blocks is all INSTRUCTION_ORDER may claim.
            if !(self.contains(Changed::INSTRUCTION_ORDER) && now.same_blocks_as(before)) {
                unclaimed(Changed::INSTRUCTION_IDENTITY, "the instruction order")?;
            }
        }
        if now.vgrfs != before.vgrfs {
            unclaimed(Changed::VARIABLES, "the VGRF table")?;
        }
        if now.blocks != before.blocks {
            unclaimed(Changed::BLOCKS, "the blocks")?;
        }
        Ok(())
    }
}

impl std::ops::BitOr for Changed {
    type Output = Changed;
    fn bitor(self, other: Changed) -> Changed {
        Changed(self.0 | other.0)
    }
}

impl std::ops::BitOrAssign for Changed {
    fn bitor_assign(&mut self, other: Changed) {
        self.0 |= other.0;
    }
}

/// A block as the control-flow graph sees it: the control flow of its first and last
/// instruction (`None`: the block is empty).
pub type BlockShape = (Option<ControlFlow>, Option<ControlFlow>);

/// What [`Changed::check_claim`] compares: the instruction order, the VGRF table, and the
/// blocks as [`eubatch_ir::cfg::Cfg::build`] reads them: how many there are and the control
/// flow of each one's first and last instruction (the edges it draws depend on nothing
/// else).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Snapshot {
    order: Vec<Inst>,
    /// Where each block's instructions end in `order`.
    block_ends: Vec<usize>,
    vgrfs: Vec<eubatch_ir::VgrfLayout>,
    blocks: Vec<BlockShape>,
}

impl Snapshot {
    pub fn of(shader: &Shader) -> Snapshot {
        let mut end = 0;
        Snapshot {
            order: shader.layout.order(),
            block_ends: shader
                .layout
                .blocks
                .iter()
                .map(|b| {
                    end += b.insts.len();
                    end
                })
                .collect(),
            vgrfs: shader.vgrfs.iter().copied().collect(),
            blocks: Self::blocks(shader),
        }
    }

    /// Whether every block holds the instructions it held in `before`, in any order.
    fn same_blocks_as(&self, before: &Snapshot) -> bool {
        if self.block_ends != before.block_ends {
            return false;
        }
        let mut start = 0;
        self.block_ends.iter().all(|&end| {
            let (mut a, mut b) = (
                self.order[start..end].to_vec(),
                before.order[start..end].to_vec(),
            );
            a.sort_unstable();
            b.sort_unstable();
            start = end;
            a == b
        })
    }

    /// The blocks as the control-flow graph sees them: per block, the control flow of its
    /// first and last instruction.
    pub fn blocks(shader: &Shader) -> Vec<BlockShape> {
        let cf = |i: Option<&Inst>| i.map(|&i| shader.insts.opcode[i].control_flow());
        shader
            .layout
            .blocks
            .iter()
            .map(|b| (cf(b.insts.first()), cf(b.insts.last())))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PassCx;

    fn shader() -> Shader {
        eubatch_ir::text::parse_shader(
            "shader \"c\" stage FS width 8 target skl
vgrf0 1x32
vgrf1 1x32
block0:
    mov(8) vgrf0:F, g2<8,8,1>:F
    (+f0.0) if(8) (null):UD
block1:
    add(8) vgrf1:F, vgrf0:F, 1f
    mov(8) vgrf1:F, vgrf0:F
block2:
    endif(8) (null):UD
    mov(8) g10<8,8,1>:F, vgrf1:F
",
        )
        .unwrap()
    }

    #[test]
    fn a_change_not_claimed_is_found() {
        let mut s = shader();
        let before = Snapshot::of(&s);
        assert_eq!(Changed::NOTHING.check_claim(&before, &s), Ok(()));
        // Remove the `add` inside the `if`: the order changes, the blocks do not.
        let b1 = eubatch_ir::Block::from_usize(1);
        s.layout.blocks[b1].insts.remove(0);
        let claim = Changed::INSTRUCTION_DATA_FLOW.check_claim(&before, &s);
        assert!(claim.unwrap_err().contains("instruction order"));
        assert_eq!(
            Changed::INSTRUCTION_IDENTITY.check_claim(&before, &s),
            Ok(())
        );
        // Empty the then-part: a block is gone as the graph sees it.
        s.layout.blocks[b1].insts.clear();
        let claim = Changed::INSTRUCTION_IDENTITY.check_claim(&before, &s);
        assert!(claim.unwrap_err().contains("blocks"));
        s.vgrfs.push(eubatch_ir::VgrfLayout::flat(32));
        let claim = (Changed::INSTRUCTION_IDENTITY | Changed::BLOCKS).check_claim(&before, &s);
        assert!(claim.unwrap_err().contains("VGRF table"));
    }

    #[test]
    fn the_graph_and_nesting_outlive_a_change_of_operands_only() {
        let s = shader();
        let mut cx = PassCx::default();
        let (cfg, nesting, access) = (cx.cfg(&s).unwrap(), cx.nesting(&s), cx.access(&s));
        cx.invalidate(Changed::INSTRUCTION_DATA_FLOW | Changed::INSTRUCTION_DETAIL);
        assert!(std::rc::Rc::ptr_eq(&cfg, &cx.cfg(&s).unwrap()));
        assert!(std::rc::Rc::ptr_eq(&nesting, &cx.nesting(&s)));
        assert!(!std::rc::Rc::ptr_eq(&access, &cx.access(&s)));
        // Instructions removed: the nesting is per instruction; the graph stays.
        cx.invalidate(Changed::INSTRUCTION_IDENTITY);
        assert!(std::rc::Rc::ptr_eq(&cfg, &cx.cfg(&s).unwrap()));
        assert!(!std::rc::Rc::ptr_eq(&nesting, &cx.nesting(&s)));
        cx.invalidate(Changed::BLOCKS);
        assert!(!std::rc::Rc::ptr_eq(&cfg, &cx.cfg(&s).unwrap()));
    }
}
