//! Predicated jumps: `(+f0) if; break; endif` becomes `(+f0) break` — the `if` and `endif`
//! go and the jump takes the `if`'s predicate (the same for `cont`). Where the break is
//! then the last thing before the loop's `while`, the break goes too and the `while` is
//! predicated the other way: channels that would have left stop looping there instead.
//! (Mesa: brw_fs_predicated_break.cpp `opt_predicated_break`.)
//!
//! Rules that limit it: the `if` is predicated (not a gen6 `if` comparing its own sources)
//! and holds nothing but the unpredicated jump, with no `else`; the `while` it merges into
//! is unpredicated.

use eubatch_ir::opcode::ControlFlow;
use eubatch_ir::shader::Predicate;
use eubatch_ir::{Control, Inst, Shader};

use crate::analysis::changed::Changed;
use crate::PassCx;

/// Any code, vec4 included: it moves a predicate between control-flow instructions and
/// reads no operand region; a jump takes the `if`'s predicate with its form (a vec4
/// `.any4h`/`.all4h` or replicate predicate included), so each channel jumps exactly when
/// it would have entered the `if` (Mesa runs the same `opt_predicated_break` on vec4 code).
pub const SCOPE: crate::manager::Scope = crate::manager::Scope::ANY;

pub fn run(shader: &mut Shader, _cx: &mut PassCx) -> Changed {
    let order: Vec<Inst> = shader.layout.order();
    let cf = |i: Inst| shader.insts.opcode[i].control_flow();
    let mut remove = vec![false; order.len()];
    let mut progress = false;
    let mut k = 0;
    while k + 2 < order.len() {
        let (if_, jump, endif) = (order[k], order[k + 1], order[k + 2]);
        let if_ctl = shader.insts.control[if_];
        let jump_ctl = shader.insts.control[jump];
        let is_jump = matches!(cf(jump), ControlFlow::Break | ControlFlow::Continue);
        if cf(if_) != ControlFlow::If
            || !is_jump
            || cf(endif) != ControlFlow::Endif
            || if_ctl.predicate == Predicate::None
            || jump_ctl.predicate != Predicate::None
            || !shader.srcs(if_).iter().all(|s| s.is_null() || s.is_bad())
        {
            k += 1;
            continue;
        }
        let c = &mut shader.insts.control[jump];
        c.predicate = if_ctl.predicate;
        c.flag_subreg = if_ctl.flag_subreg;
        c.set(Control::PRED_INVERT, if_ctl.pred_invert());
        remove[k] = true;
        remove[k + 2] = true;
        progress = true;
        // `(+f0) break; while` is `(-f0) while`.
        if let Some(&while_) = order.get(k + 3) {
            let while_ctl = shader.insts.control[while_];
            if cf(jump) == ControlFlow::Break
                && cf(while_) == ControlFlow::While
                && while_ctl.predicate == Predicate::None
            {
                let c = &mut shader.insts.control[while_];
                c.predicate = if_ctl.predicate;
                c.flag_subreg = if_ctl.flag_subreg;
                c.set(Control::PRED_INVERT, !if_ctl.pred_invert());
                remove[k + 1] = true;
            }
        }
        k += 3;
    }
    if !progress {
        return Changed::NOTHING;
    }
    // The `break` (`continue`) takes the `if`'s predicate.
    Changed::INSTRUCTION_DATA_FLOW | crate::remove_marked(shader, &order, &remove)
}
