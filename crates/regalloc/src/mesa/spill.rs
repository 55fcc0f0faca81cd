//! Mesa's spill choice (22.3): the cost of spilling each VGRF (brw_fs_reg_allocate.cpp
//! `fs_reg_alloc::set_spill_costs`) and the node util/register_allocate.c's
//! `ra_get_best_spill_node` picks when colouring fails.
//!
//! Cost: every register an instruction reads or writes of a VGRF counts once, times a
//! block scale that starts at 1 and is multiplied by 10 after each `do` and by 0.5 after
//! each `if`/`iff`, divided back after `while` and `endif` (a loop is guessed to run ten
//! times, a branch half the time; `else` leaves it); the sum is divided by the natural log of
//! the VGRF's live-range length (`end - start`), so long-lived values go first but not
//! overwhelmingly. A range of length 0 or less gets no cost (never spilled), one of length 1
//! an infinite one (log 1 = 0: never chosen, as in Mesa). Single-precision floats, as Mesa.
//!
//! Choice: among nodes with a cost above 0 that are not on the stack (the ones coloured
//! before the failure and the one that failed: spilling a node still on the stack would not
//! help the node that failed), the highest benefit / cost, where the benefit is the sum over
//! neighbours of `q(own class, neighbour's class) / p(own class)` (the node's q total over
//! `p`); ties to the lowest node.
//!
//! Limits: registers read and written are Mesa's `regs_read`/`regs_written` from the
//! operand's byte offset, its size ([`eubatch_ir::size_read`]: Mesa's `size_read`, a
//! send payload's mlen/ex_mlen registers, the barycentrics' two components) and the
//! padding of a strided region. The `no_spill` nodes of Mesa (the temporaries spilling
//! itself makes) do not exist here, see [`super`].

use eubatch_ir::size_read::{regs_read, regs_written};
use eubatch_ir::{Opcode, RegFile, Shader};
use eubatch_passes::analysis::intervals::Interval;

use super::classes::Classes;
use super::colour::Failure;
use super::graph::Graph;

/// Per VGRF: Mesa's spill cost (0: never spilled).
pub fn costs(shader: &Shader, live: &[Interval]) -> Vec<f32> {
    let mut cost = vec![0f32; live.len()];
    let mut scale = 1f32;
    for inst in shader.layout.insts() {
        for (k, s) in shader.srcs(inst).iter().enumerate() {
            if s.file == RegFile::Vgrf {
                if let Some(c) = cost.get_mut(s.nr as usize) {
                    *c += regs_read(shader, inst, k) as f32 * scale;
                }
            }
        }
        let d = &shader.insts.dst[inst];
        if d.file == RegFile::Vgrf {
            if let Some(c) = cost.get_mut(d.nr as usize) {
                *c += regs_written(shader, inst) as f32 * scale;
            }
        }
        match shader.insts.opcode[inst] {
            Opcode::Do => scale *= 10.0,
            Opcode::While => scale /= 10.0,
            Opcode::If | Opcode::Iff => scale *= 0.5,
            Opcode::Endif => scale /= 0.5,
            _ => {}
        }
    }
    for (c, iv) in cost.iter_mut().zip(live) {
        let length = iv.end.get() as i64 - iv.start.get() as i64;
        *c = if iv.is_empty() || length <= 0 {
            0.0
        } else {
            *c / (length as f32).ln()
        };
    }
    cost
}

/// The node Mesa spills after colouring failed as `f` says, given each node's cost (0 for
/// nodes that must not be spilled); none when no node has a benefit.
pub fn best(g: &Graph, cl: &Classes, cost: &[f32], f: &Failure) -> Option<u32> {
    let mut best = None;
    let mut best_ratio = 0f32;
    for n in 0..g.len() as u32 {
        let c = cost[n as usize];
        if c <= 0.0 || f.in_stack(n) {
            continue;
        }
        // Mesa adds q/p per neighbour in floats; the sum of q divided once is the same
        // number but for rounding in the last bits.
        let benefit = g.q_total[n as usize] as f32 / cl.p(g.class[n as usize] as usize) as f32;
        if benefit / c > best_ratio {
            best_ratio = benefit / c;
            best = Some(n);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::super::colour::colour;
    use super::super::graph::Builder;
    use super::*;

    #[test]
    fn costs_weigh_loops_and_branches_and_divide_by_log_length() {
        let s = eubatch_ir::text::parse_shader(
            "shader \"c\" stage FS width 8 target skl
vgrf0 1x32
vgrf1 1x32
vgrf2 2x32
block0:
    mov(8) vgrf0:F, g2<8,8,1>:F
    mov(8) vgrf2:F, g3<8,8,1>:F
    mov(8) vgrf2+1.0:F, g4<8,8,1>:F
block1:
    do(8) (null):UD
block2:
    add(8) vgrf1:F, vgrf0:F, vgrf2:F
    while(8) (null):UD
block3:
    mov(8) g10<8,8,1>:F, vgrf1:F
    mov(8) g11<8,8,1>:F, vgrf2+1.0:F
",
        )
        .unwrap();
        let live = vec![
            Interval::between(0, 5),
            Interval::between(4, 6),
            Interval::between(1, 7),
        ];
        let c = costs(&s, &live);
        // vgrf0: written once (1), read once in the loop (10): 11 / ln 5.
        assert_eq!(c[0], 11.0 / 5f32.ln());
        // vgrf1: written in the loop (10), read after it (1): 11 / ln 2.
        assert_eq!(c[1], 11.0 / 2f32.ln());
        // vgrf2: two writes of one register (2), one read of one register in the loop
        // (10), one after it (1): 13 / ln 6.
        assert_eq!(c[2], 13.0 / 6f32.ln());
        // A one-point range is never spilled.
        assert_eq!(costs(&s, &[Interval::between(3, 3)])[0], 0.0);
    }

    #[test]
    fn the_best_spill_is_the_highest_benefit_per_cost_among_coloured_nodes() {
        // A triangle 0-1-2 plus 3 joined to 0 and 1, in 2 registers: colouring fails at
        // node 2 with 3 still on the stack (colour.rs's test). Candidates 0, 1, 2; benefit
        // = neighbours × q/p = degree / 2: 1.5, 1.5, 1. With costs 3, 2, 4: 0.5, 0.75,
        // 0.25: node 1. Node 3 (on the stack) is never chosen, whatever its cost.
        let mut b = Builder::default();
        for _ in 0..4 {
            b.node(0);
        }
        for (x, y) in [(0, 1), (1, 2), (0, 2), (0, 3), (1, 3)] {
            b.interfere(x, y);
        }
        let mut g = b.finish();
        let cl = Classes::new(2, 1);
        g.weigh(&cl);
        let f = colour(&g, &cl, true, 2).unwrap_err();
        assert_eq!(best(&g, &cl, &[3.0, 2.0, 4.0, 0.001], &f), Some(1));
        // Equal ratios: the lowest node.
        assert_eq!(best(&g, &cl, &[3.0, 3.0, 2.0, 1.0], &f), Some(0));
        // Nothing with a cost: nothing to spill.
        assert_eq!(best(&g, &cl, &[0.0; 4], &f), None);
    }
}
