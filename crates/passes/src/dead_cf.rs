//! Dead control flow: an `if` immediately followed by its `endif` (nothing to do either
//! way) goes with it; an `else` with nothing before its `endif` goes; an `else` right after
//! its `if` goes and the `if`'s predicate is inverted (the else-part becomes the
//! then-part); a `halt_target` in a shader with no `halt` goes (nothing jumps there).
//! (Mesa: brw_fs_dead_control_flow.cpp `dead_control_flow_eliminate`; the generator emits
//! nothing for an unused halt target.) The comparison that fed a removed `if` is left to
//! dead-code elimination.

use eubatch_ir::opcode::ControlFlow;
use eubatch_ir::shader::Predicate;
use eubatch_ir::{Control, Inst, Shader};

use crate::PassCx;

pub fn run(shader: &mut Shader, _cx: &mut PassCx) -> bool {
    let order: Vec<Inst> = shader.layout.insts().collect();
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
            _ => {}
        }
    }
    // `if; else; endif`: the else goes first, the if/endif pair on the next run.
    if !remove.iter().any(|r| *r) {
        return false;
    }
    for i in invert {
        let c = &mut shader.insts.control[i];
        let inverted = !c.pred_invert();
        c.set(Control::PRED_INVERT, inverted);
    }
    crate::remove_marked(shader, &order, &remove);
    true
}
