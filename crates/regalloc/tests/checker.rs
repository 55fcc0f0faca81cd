//! The checker and `linear` on small text shaders: `linear`'s allocations pass, and
//! allocations broken in each way the checker knows are rejected with the rule, the VGRFs,
//! the point and the byte. Shaders the rules do not cover are refused with a message.

use eubatch_ir::text::parse_shader;
use eubatch_ir::{Shader, Vgrf};
use eubatch_passes::PassCx;
use eubatch_regalloc::checker::{check, Violation};
use eubatch_regalloc::constraints::Constraints;
use eubatch_regalloc::{allocate, by_name, Allocation, Placement, Reg};

mod common;
use common::{fs, two_hf_values};

/// vgrf0 and vgrf2 never meet; vgrf1 (two registers) meets both; vgrf3 is live throughout;
/// vgrf4 is the end-of-thread payload. The shader reads g4 and g5: the inputs are g0-g5.
fn shader() -> Shader {
    fs(
        &["1x32", "1x64", "1x32", "1x32", "4x32"],
        "block0:
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
",
    )
}

fn at(grf: u32, offset: u32) -> Placement {
    Placement::At(Reg { grf, offset })
}

fn linear(s: &Shader) -> (Allocation, Constraints, PassCx) {
    let mut cx = PassCx::default();
    let mut a = by_name("linear").unwrap();
    let r = allocate(s, &mut cx, a.as_mut()).unwrap();
    (r.allocation, r.constraints, cx)
}

/// `linear`'s allocation of [`shader`] with the placement of `v` replaced.
fn broken(v: usize, p: Placement) -> Result<(), Violation> {
    let s = shader();
    let (mut a, c, mut cx) = linear(&s);
    a.placement[v] = p;
    check(&s, &mut cx, &c, &a)
}

#[test]
fn linear_allocation_passes_and_follows_the_rules() {
    let s = shader();
    let (a, c, mut cx) = linear(&s);
    assert_eq!(c.first_free_grf, 6);
    assert_eq!(c.eot_reads.len(), 1);
    check(&s, &mut cx, &c, &a).unwrap();
    assert!(!a.needs_spills());
    // Input registers are free to a value that starts after their last read (Mesa's
    // payload interference): g2-g3 are never read, g5 is read at point 0 and g4 at 1.
    // Each value takes the lowest run of never-used registers while there is one, else
    // the free run given back longest ago (by the point its registers' last values died
    // at), ties to the lowest: vgrf3 first (g2), vgrf0 next (g3), vgrf1 (from point 2) in
    // g6-g7 (never used; g4 and g5 held inputs), vgrf2 in g8 rather than vgrf0's g3, just
    // freed; the payload at the top of the file; g0-g1 (read by the end-of-thread send)
    // stay the thread's.
    assert_eq!(a.placement[3], at(2, 0));
    assert_eq!(a.placement[0], at(3, 0));
    assert_eq!(a.placement[1], at(6, 0));
    assert_eq!(a.placement[2], at(8, 0));
    assert_eq!(a.placement[4], at(124, 0));
    assert_eq!(a.grf_used(&s, &c), 128);
    // g0-g8 and g124-g127.
    assert_eq!(a.registers_taken(&s, &c), 13);
}

#[test]
fn values_live_together_sharing_a_byte_are_rejected() {
    // vgrf2 onto vgrf3 (live throughout, in g2).
    let e = broken(2, at(2, 0)).unwrap_err();
    assert!(
        matches!(e, Violation::SharedByte { a, b, byte, .. }
            if [a.index(), b.index()] == [2, 3] || [a.index(), b.index()] == [3, 2]
            && byte.grf == 2),
        "{e}"
    );
    assert!(e.to_string().contains("no-shared-byte"), "{e}");
    // vgrf1 (two registers) from g2: its first register onto vgrf3.
    let e = broken(1, at(2, 0)).unwrap_err();
    assert!(e.to_string().contains("vgrf3"), "{e}");
}

#[test]
fn a_dead_write_onto_a_live_value_is_rejected() {
    // vgrf2 is written and never read while vgrf0 is live.
    let s = fs(
        &["1x32", "1x32", "1x32"],
        "block0:
    mov(8) vgrf0:F, g2<8,8,1>:F
    mov(8) vgrf2:F, 1f
    add(8) vgrf1:F, vgrf0:F, 1f
    mov(8) g10<8,8,1>:F, vgrf1:F
",
    );
    let (mut a, c, mut cx) = linear(&s);
    check(&s, &mut cx, &c, &a).unwrap();
    a.placement[2] = a.placement[0];
    let e = check(&s, &mut cx, &c, &a).unwrap_err();
    assert!(
        matches!(e, Violation::Clobber { written, live, inst, .. }
            if written.index() == 2 && live.index() == 0 && inst.point == 1),
        "{e}"
    );
}

/// An `undef` emits no instruction (Mesa's generator skips it): placed where a live value
/// is, it clobbers nothing; the value's first real write there still does.
#[test]
fn an_undef_writes_nothing() {
    let s = fs(
        &["1x32", "1x32", "1x32"],
        "block0:
    mov(8) vgrf0:F, g2<8,8,1>:F
    undef(8) vgrf2:UD, 
    add(8) vgrf1:F, vgrf0:F, 1f
    mov(8) vgrf2:F, vgrf1:F
    mov(8) g10<8,8,1>:F, vgrf2:F
",
    );
    let (mut a, c, mut cx) = linear(&s);
    check(&s, &mut cx, &c, &a).unwrap();
    // vgrf2 onto vgrf0, live until the add: the undef before is no write.
    a.placement[2] = a.placement[0];
    check(&s, &mut cx, &c, &a).unwrap();
    // A real write of vgrf2 while vgrf0 is live, there, is a clobber.
    let s = fs(
        &["1x32", "1x32", "1x32"],
        "block0:
    mov(8) vgrf0:F, g2<8,8,1>:F
    undef(8) vgrf2:UD, 
    mov(8) vgrf2:F, 1f
    add(8) vgrf1:F, vgrf0:F, vgrf2:F
    mov(8) g10<8,8,1>:F, vgrf1:F
",
    );
    let (mut a, c, mut cx) = linear(&s);
    check(&s, &mut cx, &c, &a).unwrap();
    a.placement[2] = a.placement[0];
    let e = check(&s, &mut cx, &c, &a).unwrap_err();
    assert!(
        matches!(e, Violation::Clobber { written, live, inst, .. }
            if written.index() == 2 && live.index() == 0 && inst.point == 2)
            || matches!(e, Violation::SharedByte { .. }),
        "{e}"
    );
}

#[test]
fn placements_outside_the_file_or_on_inputs_are_rejected() {
    assert!(matches!(
        broken(0, at(128, 0)),
        Err(Violation::OutsideFile { .. })
    ));
    // Two registers from g127.
    assert!(matches!(
        broken(1, at(127, 0)),
        Err(Violation::OutsideFile { .. })
    ));
    // g4 is read last at point 1, where vgrf0 starts: it may not take g4 (Mesa's
    // `node_start_ip <= payload_last_use_ip`).
    let e = broken(0, at(4, 0)).unwrap_err();
    assert!(
        matches!(
            e,
            Violation::Reserved {
                input: 4,
                last_use: Some(1),
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("thread-inputs"), "{e}");
    // g0-g1 are kept for the end-of-thread send (point 9).
    let e = broken(2, at(1, 0)).unwrap_err();
    assert!(
        matches!(
            e,
            Violation::Reserved {
                input: 1,
                last_use: Some(9),
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn input_registers_are_free_after_their_last_access() {
    // vgrf2 starts at point 4, after g4's last read (point 1); g2 and g3 are never
    // accessed, so any value may take them.
    let s = shader();
    let (mut a, c, mut cx) = linear(&s);
    assert_eq!(c.input_last_use[4], Some(1));
    assert_eq!(c.input_last_use[2], None);
    a.placement[2] = at(4, 0);
    a.placement[0] = at(2, 0);
    a.placement[3] = at(3, 0);
    check(&s, &mut cx, &c, &a).unwrap();
}

#[test]
fn an_input_read_in_a_loop_is_kept_to_the_loop_end() {
    // g4 is read inside the loop (points 1-5): kept to the `while` (point 5), so vgrf1,
    // defined after the loop, may take it, and vgrf0, defined before, may not.
    let s = fs(
        &["1x32", "1x32"],
        "block0:
    mov(8) vgrf0:F, 0f
block1:
    do(8) (null):UD
block2:
    add(8) vgrf0:F, vgrf0:F, g4<8,8,1>:F
    cmp.l.f0.0(8) (null):F, vgrf0:F, 10f
    mov(8) vgrf0:F, vgrf0:F
    (+f0.0) while(8) (null):UD
block3:
    mov(8) vgrf1:F, vgrf0:F
    mov(8) g10<8,8,1>:F, vgrf1:F
",
    );
    let (mut a, c, mut cx) = linear(&s);
    assert_eq!(c.input_last_use[4], Some(5));
    a.placement[1] = at(4, 0);
    check(&s, &mut cx, &c, &a).unwrap();
    a.placement[0] = at(4, 0);
    a.placement[1] = at(20, 0);
    let e = check(&s, &mut cx, &c, &a).unwrap_err();
    assert!(matches!(e, Violation::Reserved { input: 4, .. }), "{e}");
}

#[test]
fn misplaced_multi_register_and_sub_register_values_are_rejected() {
    assert!(matches!(
        broken(1, at(20, 16)),
        Err(Violation::NotContiguous { .. })
    ));
    assert!(matches!(
        broken(0, at(20, 16)),
        Err(Violation::SubRegister { .. })
    ));
    assert!(matches!(
        broken(0, at(20, 2)),
        Err(Violation::SubRegister { .. })
    ));
}

#[test]
fn an_eot_payload_below_g112_is_rejected() {
    let e = broken(4, at(20, 0)).unwrap_err();
    assert!(
        matches!(e, Violation::EotPayload { vgrf, .. } if vgrf.index() == 4),
        "{e}"
    );
    assert!(e.to_string().contains("g112"), "{e}");
}

#[test]
fn an_accessed_value_without_a_register_is_rejected() {
    let e = broken(2, Placement::Unused).unwrap_err();
    assert!(
        matches!(e, Violation::Unplaced { vgrf, .. } if vgrf.index() == 2),
        "{e}"
    );
    // One that did not fit is not checked: the shader needs spills.
    assert_eq!(broken(2, Placement::NoFit), Ok(()));
    let s = shader();
    let (a, c, mut cx) = linear(&s);
    let short = Allocation {
        placement: a.placement[..3].to_vec(),
    };
    assert!(matches!(
        check(&s, &mut cx, &c, &short),
        Err(Violation::WrongLength {
            vgrfs: 5,
            placements: 3
        })
    ));
}

/// Two SIMD8 half-float values (16 bytes each) live together: at the two halves of one
/// register they pass, at the same half they do not.
#[test]
fn sub_register_placements_are_checked_byte_by_byte() {
    let s = two_hf_values(["1x16"; 3]);
    let (mut a, c, mut cx) = linear(&s);
    check(&s, &mut cx, &c, &a).unwrap();
    a.placement[0] = at(20, 0);
    a.placement[1] = at(20, 16);
    check(&s, &mut cx, &c, &a).unwrap();
    a.placement[1] = at(20, 12);
    let e = check(&s, &mut cx, &c, &a).unwrap_err();
    assert!(
        matches!(e, Violation::SharedByte { byte, .. } if byte.grf == 20 && byte.offset == 12),
        "{e}"
    );
}

/// A value read before any write holds nothing: it may share its register with a value
/// live at the same time.
#[test]
fn undefined_values_hold_no_bytes() {
    let s = fs(
        &["1x32", "1x32", "1x32"],
        "block0:
    mov(8) vgrf0:F, g2<8,8,1>:F
    add(8) vgrf2:F, vgrf1:F, vgrf0:F
    mov(8) g10<8,8,1>:F, vgrf2:F
",
    );
    let (mut a, c, mut cx) = linear(&s);
    a.placement[1] = a.placement[0];
    check(&s, &mut cx, &c, &a).unwrap();
}

#[test]
fn values_live_around_a_loop_keep_their_registers() {
    // vgrf0 is read at the top of the loop and at its bottom, after vgrf1 is written: the
    // two are live together, and vgrf0 is live around the back edge.
    let loop_shader = |body: &str| {
        fs(
            &["1x32", "1x32"],
            &format!(
                "block0:
    mov(8) vgrf0:F, g2<8,8,1>:F
block1:
    do(8) (null):UD
block2:
{body}    cmp.l.f0.0(8) (null):F, vgrf0:F, 10f
    (+f0.0) while(8) (null):UD
block3:
    mov(8) g10<8,8,1>:F, vgrf0:F
"
            ),
        )
    };
    let s = loop_shader("    add(8) vgrf1:F, vgrf0:F, 1f\n    add(8) vgrf0:F, vgrf0:F, vgrf1:F\n");
    let (mut a, c, mut cx) = linear(&s);
    check(&s, &mut cx, &c, &a).unwrap();
    assert_ne!(a.placement[0], a.placement[1]);
    a.placement[1] = a.placement[0];
    let e = check(&s, &mut cx, &c, &a).unwrap_err();
    assert!(
        e.to_string().contains("vgrf0") && e.to_string().contains("vgrf1"),
        "{e}"
    );
    // When vgrf0 is dead from its last read to its next write, the checker (exact per
    // instruction) accepts the sharing that linear intervals (whole loop) rule out.
    let s = loop_shader("    mov(8) vgrf1:F, vgrf0:F\n    add(8) vgrf0:F, vgrf1:F, 1f\n");
    let (mut a, c, mut cx) = linear(&s);
    assert_ne!(a.placement[0], a.placement[1]);
    a.placement[1] = a.placement[0];
    check(&s, &mut cx, &c, &a).unwrap();
}

#[test]
fn too_many_live_values_do_not_fit() {
    // 130 values live at once, and their sum: more than the 126 registers there.
    let n = 130;
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
    let s = parse_shader(&t).unwrap();
    let (a, c, mut cx) = linear(&s);
    assert!(a.needs_spills());
    // g0-g1 and g3-g9 (never accessed) and g11 (after the g10 output) to g127: 126
    // registers, and g2 to the sum, which starts after g2's last read: 127 for 131 values.
    assert_eq!(c.first_free_grf, 11);
    assert_eq!(a.unplaced().count(), 131 - 127);
    check(&s, &mut cx, &c, &a).unwrap();
    assert!(a
        .unplaced()
        .all(|v| v.index() < n || v == Vgrf::from_usize(n)));
}

#[test]
fn shaders_outside_the_rules_are_refused() {
    let mut cx = PassCx::default();
    let s = parse_shader(
        "shader \"t\" stage GS width 8 target skl
vgrf0 1x32
block0:
    mov(8) vgrf0:F, attr2:F
    mov(8) g10<8,8,1>:F, vgrf0:F
",
    )
    .unwrap();
    let mut a = by_name("linear").unwrap();
    let e = allocate(&s, &mut cx, a.as_mut()).err().unwrap();
    assert!(e.to_string().contains("input primitive"), "{e}");
    assert!(by_name("nonesuch").is_none());
}

/// A shader whose one instruction imposes `rule` on vgrf0 and vgrf1 (`body`), allocated by
/// `linear` and then broken by `breaking`: rejected with that rule.
fn instruction_rule_rejects(
    width: u32,
    sizes: &[&str],
    body: &str,
    breaking: impl Fn(&mut Allocation),
    rule: &str,
) {
    let mut t = format!("shader \"t\" stage FS width {width} target skl\n");
    for (k, size) in sizes.iter().enumerate() {
        t += &format!("vgrf{k} {size}\n");
    }
    let s = parse_shader(&(t + body)).unwrap();
    let (mut a, c, mut cx) = linear(&s);
    check(&s, &mut cx, &c, &a).unwrap();
    breaking(&mut a);
    let e = check(&s, &mut cx, &c, &a).unwrap_err();
    assert!(e.to_string().contains(rule), "{e}");
}

#[test]
fn a_simd8_send_destination_on_g127_is_rejected() {
    instruction_rule_rejects(
        8,
        &["1x32", "1x32"],
        "block0:
    mov(8) vgrf0:UD, g2<8,8,1>:UD
    send(8) (mlen: 1) (sfid: 12) (desc: 0x02000000) vgrf1:UD, 0u, 0u, vgrf0:UD
    mov(8) g10<8,8,1>:F, vgrf1:F
",
        |a| {
            a.placement[1] = Placement::At(Reg {
                grf: 127,
                offset: 0,
            })
        },
        "send-dst-r127",
    );
}

#[test]
fn a_compressed_destination_over_its_last_read_source_is_rejected() {
    // vgrf0 dies at the SIMD16 add, so liveness alone lets vgrf1 take its registers, but
    // the second half would read what the first half wrote.
    instruction_rule_rejects(
        16,
        &["1x64", "1x64"],
        "block0:
    mov(16) vgrf0:F, g2<8,8,1>:F
    add(16) vgrf1:F, vgrf0:F, 1f
    mov(16) g10<8,8,1>:F, vgrf1:F
",
        |a| a.placement[1] = a.placement[0],
        "src-dst-hazard",
    );
}

#[test]
fn overlapping_split_send_payloads_are_rejected() {
    // vgrf1 is never written: liveness lets it share anything, the send does not.
    instruction_rule_rejects(
        8,
        &["1x32", "1x32"],
        "block0:
    mov(8) vgrf0:UD, g2<8,8,1>:UD
    send(8) (mlen: 1) (ex_mlen: 1) (sfid: 12) (desc: 0x02000000) (null):UD, 0u, 0u, vgrf0:UD, vgrf1:F
",
        |a| a.placement[1] = a.placement[0],
        "split-send-payloads",
    );
}

/// Spilling's rules: a register budget keeps values but the end-of-thread payload below
/// first free + N (and off g112-g127), spill message registers are off limits on gen8 once
/// the shader spills, and a spill temporary left without a register is rejected.
#[test]
fn spill_rules_are_checked() {
    use eubatch_regalloc::constraints::Options;
    use eubatch_regalloc::spill::Spiller;
    let s = shader();
    // A budget of 2: g6-g7 for values; vgrf4, the payload, may still take g112-g127.
    let c = Constraints::with(
        &s,
        &Options {
            registers: Some(2),
            ..Options::default()
        },
    )
    .unwrap();
    let (mut a, _, mut cx) = linear(&s);
    // linear without the budget puts vgrf0 in g3, an input register after its last read:
    // a budget keeps the inputs from VGRFs too.
    let e = check(&s, &mut cx, &c, &a).unwrap_err();
    assert!(
        matches!(e, Violation::ReservedRegister { grf: 3, .. }),
        "{e}"
    );
    // Values moved into the budget's g6-g7 but one, past it in g8.
    a.placement[0] = at(6, 0);
    a.placement[1] = at(8, 0);
    a.placement[2] = at(6, 0);
    a.placement[3] = at(7, 0);
    let e = check(&s, &mut cx, &c, &a).unwrap_err();
    assert!(
        matches!(e, Violation::ReservedRegister { grf: 8, .. }),
        "{e}"
    );
    assert!(e.to_string().contains("reserved register"), "{e}");
    assert!(c.is_reserved(Vgrf::from_usize(0), 126));
    assert!(!c.is_reserved(Vgrf::from_usize(4), 126));
    // gen8, vgrf3 spilled: g126-g127 (SIMD8: m14-m15) are reserved for everything, and the
    // fills and spills' temporaries must be placed.
    let mut s8 = shader();
    s8.target = eubatch_ir::Gen::Gen8;
    Spiller::new()
        .spill(&mut s8, &[Vgrf::from_usize(3)])
        .unwrap();
    let c8 = Constraints::of(&s8).unwrap();
    assert!(c8.is_reserved(Vgrf::from_usize(4), 126) && c8.is_reserved(Vgrf::from_usize(4), 127));
    assert!(!c8.is_reserved(Vgrf::from_usize(4), 125));
    let temps: Vec<usize> = (0..s8.vgrfs.len()).filter(|&v| c8.unspillable[v]).collect();
    assert_eq!(
        temps,
        [5, 6],
        "the spill's source and the fill's destination"
    );
    let mut cx8 = PassCx::default();
    let mut lin = by_name("linear").unwrap();
    let r = allocate(&s8, &mut cx8, lin.as_mut()).unwrap();
    check(&s8, &mut cx8, &r.constraints, &r.allocation).unwrap();
    assert!(matches!(
        r.allocation.get(Vgrf::from_usize(4)),
        Placement::At(Reg { grf: 122, .. })
    ));
    let mut a8 = r.allocation.clone();
    a8.placement[5] = Placement::NoFit;
    let e = check(&s8, &mut cx8, &r.constraints, &a8).unwrap_err();
    assert!(matches!(e, Violation::SpillTemporary { .. }), "{e}");
    a8.placement[5] = r.allocation.placement[5];
    a8.placement[4] = at(124, 0);
    let e = check(&s8, &mut cx8, &r.constraints, &a8).unwrap_err();
    assert!(
        matches!(e, Violation::ReservedRegister { grf: 126, .. }),
        "{e}"
    );
}
