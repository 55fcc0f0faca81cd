//! Dead control flow: an `if` immediately followed by its `endif` (nothing to do either
//! way) goes with it; an `else` with nothing before its `endif` goes; an `else` right after
//! its `if` goes and the `if`'s predicate is inverted (the else-part becomes the
//! then-part); a `halt` with nothing to jump over but instructions that neither have side
//! effects nor touch the flags goes; a `halt_target` in a shader with no `halt` goes
//! (nothing jumps there). (Mesa: brw_fs_dead_control_flow.cpp
//! `dead_control_flow_eliminate`; brw_fs.cpp `opt_redundant_halt`, which removes the halts
//! right before the target; the generator emits nothing for an unused halt target.) The
//! comparison that fed a removed `if` is left to dead-code elimination.
//!
//! A discard's `halt` only saves work: the channels it disables come back at the target for
//! the render target writes, which are predicated on the pixels still alive. So the
//! instructions it would jump over may run for the discarded channels too, where nothing
//! reads what they compute (see [`crate::analysis::liveness`]), as long as they write no flag (the
//! writes' predicate) and have no effect outside registers.

use eubatch_ir::opcode::ControlFlow;
use eubatch_ir::shader::Predicate;
use eubatch_ir::{Control, Inst, Shader};

use crate::analysis::changed::Changed;
use crate::PassCx;

/// Any code, vec4 included: it reads control flow, predicates and whether an instruction
/// writes a flag or has side effects, never an operand's region. Inverting an `if`'s
/// predicate swaps its two parts for every channel whatever the predicate's form (a vec4
/// `.any4h`/`.all4h` or replicate predicate included), as Mesa's
/// `dead_control_flow_eliminate` does for both back ends; vec4 code has no `halt`.
pub const SCOPE: crate::manager::Scope = crate::manager::Scope::ANY;

pub fn run(shader: &mut Shader, _cx: &mut PassCx) -> Changed {
    let order: Vec<Inst> = shader.layout.order();
    let cf = |i: Inst| shader.insts.opcode[i].control_flow();
    let has_halt = order.iter().any(|&i| cf(i) == ControlFlow::Halt);
    let mut remove = vec![false; order.len()];
    let mut invert = Vec::new();
    for k in 0..order.len() {
        let here = cf(order[k]);
        let next = order.get(k + 1).map(|&i| cf(i));
        match (here, next) {
            (ControlFlow::If, Some(ControlFlow::Endif)) => {
                remove[k] = true;
                remove[k + 1] = true;
            }
            (ControlFlow::Else, Some(ControlFlow::Endif)) => remove[k] = true,
            // An empty then-part: the else-part becomes the then-part of the inverted `if`.
            (ControlFlow::If, Some(ControlFlow::Else))
                if shader.insts.control[order[k]].predicate != Predicate::None =>
            {
                invert.push(order[k]);
                remove[k + 1] = true;
            }
            (ControlFlow::HaltTarget, _) if !has_halt => remove[k] = true,
            (ControlFlow::Halt, _) if jumps_over_nothing(shader, &order[k + 1..]) => {
                remove[k] = true
            }
            _ => {}
        }
    }
    // `if; else; endif`: the else goes first, the if/endif pair on the next run.
    if !remove.iter().any(|r| *r) {
        return Changed::NOTHING;
    }
    for i in invert {
        let c = &mut shader.insts.control[i];
        let inverted = !c.pred_invert();
        c.set(Control::PRED_INVERT, inverted);
    }
    Changed::INSTRUCTION_DETAIL | crate::remove_marked(shader, &order, &remove)
}

/// Whether what a `halt` would skip — `rest`, up to the next `halt_target` — could run for
/// the discarded channels: no side effects, no flag written, no control flow.
fn jumps_over_nothing(shader: &Shader, rest: &[Inst]) -> bool {
    for &i in rest {
        let op = shader.insts.opcode[i];
        if op.control_flow() == ControlFlow::HaltTarget {
            return true;
        }
        let dst = shader.insts.dst[i];
        let flag_dst =
            dst.file == eubatch_ir::RegFile::Arf && dst.nr & 0xf0 == eubatch_ir::operand::arf::FLAG;
        if crate::analysis::access::has_side_effects(shader, i)
            || crate::analysis::access::writes_flag(op, shader.insts.control[i].cmod)
            || flag_dst
        {
            return false;
        }
    }
    false
}
