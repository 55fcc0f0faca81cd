//! Control-flow nesting: how many `if`/`do` constructs are open at each instruction and at
//! the start of each block, and which blocks are in a loop.
//!
//! Several questions hang on it: a NoMask write inside control flow reaches channels on
//! another path ([`super::access::Slots`]), a write inside control flow does not
//! define its VGRF for the whole shader ([`super::defs`]), a load inside a loop is
//! not hoisted, constants are loaded before the outermost construct that uses them. One walk
//! answers all of them, with one convention, instead of each pass counting for itself.
//!
//! The convention: an instruction's depth counts its own effect, so an `if` or a `do` is
//! inside the construct it opens and an `endif` or a `while` outside the one it closes
//! (`else` changes nothing). A closer without an opener does not go below zero.

use eubatch_ir::opcode::ControlFlow;
use eubatch_ir::Shader;

pub struct Nesting {
    /// Per instruction (indexed by its number; 0 for one not in the layout): its depth.
    depth: Vec<u32>,
    /// Per block: the depth at its start (that of the instruction before it).
    block_depth: Vec<u32>,
    /// Per block: whether it is in a loop, i.e. a `do` is open at its start or the block
    /// holds a `do` or a `while` (counting `do`/`while` alone, `if`s aside).
    in_loop: Vec<bool>,
}

impl Nesting {
    pub fn compute(shader: &Shader) -> Nesting {
        let mut depth = vec![0u32; shader.insts.opcode.len()];
        let nb = shader.layout.blocks.len();
        let mut block_depth = Vec::with_capacity(nb);
        let mut in_loop = Vec::with_capacity(nb);
        let (mut d, mut loops) = (0u32, 0u32);
        for block in shader.layout.blocks.iter() {
            block_depth.push(d);
            let mut looped = loops > 0;
            for &i in &block.insts {
                match shader.insts.opcode[i].control_flow() {
                    ControlFlow::If => d += 1,
                    ControlFlow::Do => {
                        d += 1;
                        loops += 1;
                        looped = true;
                    }
                    ControlFlow::Endif => d = d.saturating_sub(1),
                    ControlFlow::While => {
                        d = d.saturating_sub(1);
                        loops = loops.saturating_sub(1);
                        looped = true;
                    }
                    _ => {}
                }
                depth[i.index()] = d;
            }
            in_loop.push(looped);
        }
        Nesting {
            depth,
            block_depth,
            in_loop,
        }
    }

    /// How many constructs are open at `inst`, counting one it opens and not one it closes.
    pub fn depth(&self, inst: eubatch_ir::Inst) -> u32 {
        self.depth[inst.index()]
    }

    /// Whether `inst` is inside control flow (an `if` or `do` itself is).
    pub fn nested(&self, inst: eubatch_ir::Inst) -> bool {
        self.depth(inst) > 0
    }

    /// How many constructs are open at the start of block `b`.
    pub fn block_depth(&self, b: eubatch_ir::Block) -> u32 {
        self.block_depth[b.index()]
    }

    /// Whether block `b` is in a loop or holds a `do` or `while`.
    pub fn in_loop(&self, b: eubatch_ir::Block) -> bool {
        self.in_loop[b.index()]
    }
}
