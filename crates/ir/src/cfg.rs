//! The control-flow graph, built from structured control flow.
//!
//! Block boundaries follow Mesa's `cfg_t` (brw_cfg.cpp): `if`, `else`, `while`, `break`,
//! `cont` and `halt` end a block; `endif` and `halt_target` start one; `do` sits alone in a
//! block of its own, ahead of the loop body. Edges:
//! * `if` → the next block and the block after the matching `else` (or the `endif` block);
//! * `else` → the `endif` block, and the block after the `else` (the SIMD machine runs the
//!   else-part after the then-part, so a NoMask read there sees the then-part's writes);
//! * `while` → the first block of the loop body and the block after the loop;
//! * `break` → the block after the loop; `cont` → the loop's first block and the block
//!   after the loop (it lands on the `while`, not on what precedes it in its block); both
//!   also fall through (they are predicated or per-channel);
//! * `halt` → the next block and the next `halt_target` block.

use index_vec::IndexVec;

use crate::entities::{Block, Inst};
use crate::opcode::{ControlFlow, Opcode};
use crate::shader::{BlockData, Layout};

/// Whether an instruction of this kind starts a block (unless its block is empty so far).
pub fn starts_block(cf: ControlFlow) -> bool {
    matches!(
        cf,
        ControlFlow::Endif | ControlFlow::HaltTarget | ControlFlow::Do
    )
}

/// Whether an instruction of this kind ends its block.
pub fn ends_block(cf: ControlFlow) -> bool {
    matches!(
        cf,
        ControlFlow::If
            | ControlFlow::Else
            | ControlFlow::While
            | ControlFlow::Break
            | ControlFlow::Continue
            | ControlFlow::Halt
            | ControlFlow::Do
    )
}

/// Splits a flat instruction sequence into blocks at the control-flow boundaries.
pub fn split_blocks(insts: &[Inst], opcode: impl Fn(Inst) -> Opcode) -> Layout {
    let mut blocks: IndexVec<Block, BlockData> = IndexVec::new();
    // Each block is copied whole from `insts[start..]` once its end is found (a vector of
    // its exact size, not grown instruction by instruction: passes that remove
    // instructions re-split the whole layout).
    let mut start = 0;
    let block = |from: usize, to: usize| BlockData {
        insts: insts[from..to].to_vec(),
    };
    for (i, &inst) in insts.iter().enumerate() {
        let cf = opcode(inst).control_flow();
        if starts_block(cf) && start < i {
            blocks.push(block(start, i));
            start = i;
        }
        if ends_block(cf) {
            blocks.push(block(start, i + 1));
            start = i + 1;
        }
    }
    if start < insts.len() || blocks.is_empty() {
        blocks.push(block(start, insts.len()));
    }
    Layout { blocks }
}

/// Predecessors and successors of every block.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Cfg {
    pub succs: IndexVec<Block, Vec<Block>>,
    pub preds: IndexVec<Block, Vec<Block>>,
}

/// A control-flow nesting error: unbalanced `if`/`endif`, `do`/`while`, a `break` outside a
/// loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CfgError {
    pub inst: Inst,
    pub msg: String,
}

impl Cfg {
    /// Builds the graph for a layout whose blocks were split by [`split_blocks`].
    pub fn build(layout: &Layout, opcode: impl Fn(Inst) -> Opcode) -> Result<Cfg, CfgError> {
        let n = layout.blocks.len();
        let mut succs: IndexVec<Block, Vec<Block>> = IndexVec::from_vec(vec![Vec::new(); n]);
        let last_cf = |b: Block| {
            layout.blocks[b]
                .insts
                .last()
                .map(|&i| (i, opcode(i).control_flow()))
        };
        let first_cf = |b: Block| {
            layout.blocks[b]
                .insts
                .first()
                .map(|&i| (i, opcode(i).control_flow()))
        };

        // Match the structure with a stack.
        enum Open {
            If {
                if_block: Block,
                else_block: Option<Block>,
            },
            Loop {
                do_block: Block,
                breaks: Vec<Block>,
                conts: Vec<Block>,
            },
        }
        let mut stack: Vec<Open> = Vec::new();
        let mut halts: Vec<Block> = Vec::new();
        let next = |b: Block| {
            if b.index() + 1 < n {
                Some(Block::new(b.index() + 1))
            } else {
                None
            }
        };

        for b in (0..n).map(Block::new) {
            if let Some((inst, ControlFlow::Endif)) = first_cf(b) {
                match stack.pop() {
                    Some(Open::If {
                        if_block,
                        else_block,
                    }) => {
                        match else_block {
                            Some(e) => {
                                succs[e].push(b);
                                // `if` jumps past the then-part to the block after `else`.
                                if let Some(after_else) = next(e) {
                                    succs[if_block].push(after_else);
                                    // The machine runs the else-part after the then-part,
                                    // for the other channels: what the then-part wrote is
                                    // there for the else-part's NoMask reads.
                                    if after_else != b {
                                        succs[e].push(after_else);
                                    }
                                }
                            }
                            None => succs[if_block].push(b),
                        }
                    }
                    _ => {
                        return Err(CfgError {
                            inst,
                            msg: "`endif` without a matching `if`".into(),
                        })
                    }
                }
            }
            if let Some((_, ControlFlow::HaltTarget)) = first_cf(b) {
                for h in halts.drain(..) {
                    succs[h].push(b);
                }
            }
            let Some((inst, cf)) = last_cf(b) else {
                continue;
            };
            let fall = next(b);
            match cf {
                ControlFlow::If => {
                    stack.push(Open::If {
                        if_block: b,
                        else_block: None,
                    });
                    succs[b].extend(fall);
                }
                ControlFlow::Else => match stack.last_mut() {
                    Some(Open::If {
                        else_block: e @ None,
                        ..
                    }) => *e = Some(b),
                    _ => {
                        return Err(CfgError {
                            inst,
                            msg: "`else` without a matching `if`".into(),
                        })
                    }
                },
                ControlFlow::Do => {
                    stack.push(Open::Loop {
                        do_block: b,
                        breaks: Vec::new(),
                        conts: Vec::new(),
                    });
                    succs[b].extend(fall);
                }
                ControlFlow::Break | ControlFlow::Continue => {
                    let lp = stack.iter_mut().rev().find_map(|o| match o {
                        Open::Loop { breaks, conts, .. } => Some((breaks, conts)),
                        _ => None,
                    });
                    match lp {
                        Some((breaks, conts)) => {
                            if cf == ControlFlow::Break {
                                breaks.push(b)
                            } else {
                                conts.push(b)
                            }
                        }
                        None => {
                            let what = if cf == ControlFlow::Break {
                                "break"
                            } else {
                                "cont"
                            };
                            return Err(CfgError {
                                inst,
                                msg: format!("`{what}` outside a loop"),
                            });
                        }
                    }
                    succs[b].extend(fall);
                }
                ControlFlow::While => match stack.pop() {
                    Some(Open::Loop {
                        do_block,
                        breaks,
                        conts,
                    }) => {
                        if let Some(body) = next(do_block) {
                            succs[b].push(body);
                        }
                        succs[b].extend(fall);
                        // `cont` lands on the `while` itself, not on the instructions of
                        // its block before it: its channels go round again (the loop's
                        // first block, as Mesa's brw_cfg.cpp links `continue` to the `do`)
                        // or, under a predicated `while`, leave (the block after the loop).
                        for c in conts {
                            if let Some(body) = next(do_block) {
                                succs[c].push(body);
                            }
                            succs[c].extend(fall);
                        }
                        for br in breaks {
                            succs[br].extend(fall);
                        }
                    }
                    _ => {
                        return Err(CfgError {
                            inst,
                            msg: "`while` without a matching `do`".into(),
                        })
                    }
                },
                ControlFlow::Halt => {
                    halts.push(b);
                    succs[b].extend(fall);
                }
                _ => succs[b].extend(fall),
            }
        }
        if let Some(open) = stack.last() {
            let (blk, what) = match open {
                Open::If { if_block, .. } => (*if_block, "`if` without `endif`"),
                Open::Loop { do_block, .. } => (*do_block, "`do` without `while`"),
            };
            let inst = *layout.blocks[blk].insts.last().unwrap();
            return Err(CfgError {
                inst,
                msg: what.into(),
            });
        }
        let mut preds: IndexVec<Block, Vec<Block>> = IndexVec::from_vec(vec![Vec::new(); n]);
        for (b, ss) in succs.iter_mut_enumerated() {
            ss.sort_unstable();
            ss.dedup();
            for &s in ss.iter() {
                preds[s].push(b);
            }
        }
        Ok(Cfg { succs, preds })
    }
}
