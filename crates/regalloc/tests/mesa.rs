//! `mesa` on small text shaders whose colouring follows by hand from Mesa's rules: the
//! end-of-thread payloads forced to the top (below g127 on gen8+), round-robin select, the
//! live-range test that lets a value take the register of a source its instruction reads
//! last, the pairs instructions keep apart, and the spill loop.

use eubatch_ir::text::parse_shader;
use eubatch_ir::{Shader, Vgrf};
use eubatch_passes::PassCx;
use eubatch_regalloc::checker::check;
use eubatch_regalloc::problem::Problem;
use eubatch_regalloc::{allocate, mesa, Allocation, Input, Placement, Reg};

// (Not every shared shader is used here.)
#[allow(dead_code)]
mod common;
use common::fs;

fn at(grf: u32) -> Placement {
    Placement::At(Reg { grf, offset: 0 })
}

/// `mesa`'s allocation of `s`, checked, with the VGRFs it spilled in order.
fn run(s: &Shader) -> (Allocation, Vec<Vgrf>) {
    let mut cx = PassCx::default();
    let r = allocate(s, &mut cx, &mut mesa::Mesa::default()).unwrap();
    check(s, &mut cx, &r.constraints, &r.allocation).unwrap();
    let problem = Problem::build(s, &mut cx).unwrap();
    let intervals = cx.intervals(s).unwrap();
    let outcome = mesa::run(&Input {
        shader: s,
        problem: &problem,
        intervals: &intervals,
        constraints: &r.constraints,
        only_if_fits: false,
    });
    assert_eq!(outcome.allocation, r.allocation);
    (r.allocation, outcome.spilled)
}

/// The checker test's shader (inputs g0-g5): vgrf0 [1,3], vgrf1 [2,4] (two registers),
/// vgrf2 [4,5], vgrf3 [0,5], vgrf4 the EOT payload [5,9], on `target`.
fn shader(target: &str) -> Shader {
    parse_shader(&format!(
        "shader \"t\" stage FS width 8 target {target}
vgrf0 1x32
vgrf1 1x64
vgrf2 1x32
vgrf3 1x32
vgrf4 4x32
block0:
    mov(8) vgrf3:F, g5<8,8,1>:F
    mov(8) vgrf0:F, g4<8,8,1>:F
    mul(8) vgrf1:F, vgrf0:F, 3f
    mul(8) vgrf1+1.0:F, vgrf0:F, 4f
    add(8) vgrf2:F, vgrf1+1.0:F, vgrf1:F
    add(8) vgrf4:F, vgrf2:F, vgrf3:F
    mov(8) vgrf4+1.0:F, 0f
    mov(8) vgrf4+2.0:F, 0f
    mov(8) vgrf4+3.0:F, 0f
    send(8) (mlen: 4) (sfid: 5) (desc: 0x10031000) (EOT) (null):UD, 0u, 0u, vgrf4:F
"
    ))
    .unwrap()
}

#[test]
fn colours_as_mesa_round_robin_with_the_eot_payload_on_top() {
    // Every node is trivially colourable; simplify pushes vgrf3, 2, 1, 0 (highest node
    // first) and select pops vgrf0 first. The inputs: g0-g1 kept for the EOT send (point
    // 9), g2-g3 never accessed, g4 read last at point 1, g5 at point 0. Round robin moves
    // the search to one past each register chosen: vgrf0 (from point 1, so not g4) g2,
    // vgrf1 g3-g4 (from point 2, after g4's last read), vgrf2 g4 (vgrf1's second register:
    // its range starts where vgrf1's ends), vgrf3 (from point 0: not g4 nor g5) g6. The
    // payload is forced to 128 - 4 - 1 on SKL (g127 kept for SIMD8 send destinations):
    // g123.
    let (a, spilled) = run(&shader("skl"));
    assert!(spilled.is_empty());
    assert_eq!(a.placement, vec![at(2), at(3), at(4), at(6), at(123)]);
    // Haswell has no g127 rule: the payload ends at g127.
    let (a, _) = run(&shader("hsw"));
    assert_eq!(a.placement[4], at(124));
}

#[test]
fn a_split_eot_send_puts_its_second_payload_below_the_first() {
    let s = fs(
        &["2x32", "2x32"],
        "block0:
    mov(8) vgrf0:F, g2<8,8,1>:F
    mov(8) vgrf0+1.0:F, g3<8,8,1>:F
    mov(8) vgrf1:F, g4<8,8,1>:F
    mov(8) vgrf1+1.0:F, g5<8,8,1>:F
    send(8) (mlen: 2) (ex_mlen: 2) (sfid: 5) (desc: 0x10031000) (EOT) (null):UD, 0u, 0u, vgrf0:F, vgrf1:F
",
    );
    let (a, _) = run(&s);
    assert_eq!(a.placement, vec![at(125), at(123)]);
}

#[test]
fn instructions_keep_their_pairs_apart() {
    // vgrf1 (undefined) and vgrf0 meet only at the split send: by Mesa's live-range test
    // they do not interfere, but the two payloads must not overlap. vgrf2, the SIMD8
    // message's destination, may take vgrf0's register but not g127.
    let s = fs(
        &["1x32", "1x32", "1x32"],
        "block0:
    mov(8) vgrf0:UD, g2<8,8,1>:UD
    send(8) (mlen: 1) (ex_mlen: 1) (sfid: 12) (desc: 0x02000000) vgrf2:UD, 0u, 0u, vgrf0:UD, vgrf1:F
    mov(8) g10<8,8,1>:F, vgrf2:F
",
    );
    let (a, _) = run(&s);
    assert_ne!(a.placement[0], a.placement[1]);
    assert_ne!(a.placement[2], at(127));
}

/// `n` values live at once, all summed into vgrf`n`.
fn pressure(n: usize) -> Shader {
    let mut t = String::from("shader \"t\" stage FS width 8 target skl\n");
    for k in 0..=n {
        t += &format!("vgrf{k} 1x32\n");
    }
    t += "block0:\n";
    for k in 0..n {
        t += &format!("    add(8) vgrf{k}:F, g2<8,8,1>:F, {k}f\n");
    }
    t += &format!("    mov(8) vgrf{n}:F, 0f\n");
    for k in 0..n {
        t += &format!("    add(8) vgrf{n}:F, vgrf{n}:F, vgrf{k}:F\n");
    }
    t += &format!("    mov(8) g10<8,8,1>:F, vgrf{n}:F\n");
    parse_shader(&t).unwrap()
}

#[test]
fn spills_cheap_values_until_the_rest_colours() {
    // 131 values live at once. g2, read by the 130 definitions, is free only for the sum;
    // g10, written last, for nothing; g0-g1 and g3-g9, never accessed, for any value: 126
    // registers for the 130 values. Once spilling has begun the scratch header takes one
    // (gen9), and where the sum reads a spilled value its fill's temporary takes another
    // (both may use g2): 6 must go. Each of the 130 values is written once and read once
    // over a range of the same length, the sum is read and written 130 times: Mesa spills
    // among the 130 and never the sum.
    let n = 130;
    let (a, spilled) = run(&pressure(n));
    assert_eq!(spilled.len(), 6);
    assert!(spilled.iter().all(|v| v.index() < n));
    assert_eq!(a.unplaced().collect::<Vec<_>>().len(), 6);
    // Equal costs and benefits: ties go to the lowest node, vgrf0, vgrf1, ...
    assert_eq!(spilled, (0..6).map(Vgrf::from_usize).collect::<Vec<_>>());
    // 125 values and the sum: nothing spills.
    let (a, spilled) = run(&pressure(125));
    assert!(spilled.is_empty() && !a.needs_spills());
}

#[test]
fn an_eot_payload_mesa_would_force_below_g112_does_not_fit() {
    // 16 registers: Mesa forces it to 128 - 16 - 1 = g111 on SKL, outside the EOT range;
    // it is left out, not placed against the rule.
    let mut body = String::from("block0:\n");
    for k in 0..16 {
        body += &format!("    mov(8) vgrf0+{k}.0:F, g2<8,8,1>:F\n");
    }
    body +=
        "    send(8) (mlen: 16) (sfid: 5) (desc: 0x10031000) (EOT) (null):UD, 0u, 0u, vgrf0:F\n";
    let (a, spilled) = run(&fs(&["16x32"], &body));
    assert_eq!(a.placement, vec![Placement::NoFit]);
    assert!(spilled.is_empty());
}
