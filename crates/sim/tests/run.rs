//! The simulator on small shaders whose results are computed here independently.

use eubatch_ir::text::parse_shader;
use eubatch_sim::inputs::{word, Space};
use eubatch_sim::{equivalent, run};

fn shader(body: &str, vgrfs: &str) -> eubatch_ir::Shader {
    let text = format!("shader \"t\" stage FS width 8 target skl\n{vgrfs}block0:\n{body}");
    let s = parse_shader(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let errs = eubatch_ir::verify::verify(&s);
    assert!(errs.is_empty(), "{errs:?}");
    s
}

/// Payload dword `i` of g`reg` for `seed`.
fn g(seed: u64, reg: u64, i: u64) -> u32 {
    word(seed, Space::Payload, reg * 8 + i)
}

#[test]
fn arithmetic_reaches_the_framebuffer() {
    let s = shader(
        "    mov(8) vgrf0:F, g2<8,8,1>:F
    mul(8) vgrf1:F, vgrf0:F, 2f
    add.sat(8) vgrf1+1.0:F, vgrf0:F, -g3<8,8,1>:F
    mov(8) vgrf1+2.0:D, g4<8,8,1>:F
    shl(8) vgrf1+3.0:UD, g5<8,8,1>:UD, 3u
    fb_write_logical(8) (EOT) (null):UD, vgrf1:F, (null):UD, (null):UD, (null):UD, (null):UD, (null):UD, (null):UD, 4u
",
        "vgrf0 1x32\nvgrf1 4x32\n",
    );
    for seed in 0..8 {
        let out = run(&s, seed, None).unwrap();
        assert_eq!(out.records.len(), 8);
        for r in &out.records {
            let i = r.channel as u64;
            let x = f32::from_bits(g(seed, 2, i));
            let y = f32::from_bits(g(seed, 3, i));
            let sat = |v: f32| if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) };
            let to_i = |v: f32| {
                if v.is_nan() {
                    0
                } else {
                    v.trunc().clamp(i32::MIN as f32, i32::MAX as f32) as i32
                }
            };
            let want = [
                (x * 2.0).to_bits() as u64,
                sat(x - y).to_bits() as u64,
                to_i(f32::from_bits(g(seed, 4, i))) as u32 as u64,
                (g(seed, 5, i) << 3) as u64,
            ];
            let got: Vec<u64> = r.values.clone();
            // NaN payloads may differ between f32 and f64 arithmetic; compare NaN-ness there.
            for (k, (a, b)) in got.iter().zip(want.iter()).enumerate() {
                let (fa, fb) = (f32::from_bits(*a as u32), f32::from_bits(*b as u32));
                assert!(
                    a == b || (k < 2 && fa.is_nan() && fb.is_nan()),
                    "seed {seed} ch{i} comp{k}: {a:#x} vs {b:#x}"
                );
            }
        }
    }
}

const LOOP: &str = "    mov(8) vgrf0:D, 0d
    mov(8) vgrf1:D, g2<8,8,1>:UD
    and(8) vgrf1:D, vgrf1:D, 7d
block1:
    do(8) (null):UD
block2:
    cmp.ge.f0.0(8) null<8,8,1>:D, vgrf0:D, vgrf1:D
    (+f0.0) break(8) (null):UD
block3:
    add(8) vgrf0:D, vgrf0:D, 1d
    while(8) (null):UD
block4:
    cmp.l.f0.0(8) null<8,8,1>:D, vgrf0:D, 4d
    (+f0.0) if(8) (null):UD
block5:
    mov(8) vgrf2:D, 100d
    else(8) (null):UD
block6:
    mov(8) vgrf2:D, 200d
block7:
    endif(8) (null):UD
    fb_write_logical(8) (EOT) (null):UD, vgrf0:F, (null):UD, (null):UD, (null):UD, (null):UD, (null):UD, (null):UD, 1u
";

#[test]
fn loops_and_branches_follow_each_channel() {
    let s = shader(LOOP, "vgrf0 1x32\nvgrf1 1x32\nvgrf2 1x32\n");
    for seed in 0..8 {
        let out = run(&s, seed, None).unwrap();
        for r in &out.records {
            let n = g(seed, 2, r.channel as u64) & 7;
            assert_eq!(r.values, vec![n as u64], "seed {seed} ch{}", r.channel);
        }
        assert_eq!(out.final_mask, 0xff);
        assert_eq!(out.poison_reads, 0);
    }
}

#[test]
fn halt_discards_channels() {
    let s = shader(
        "    mov(8) vgrf0:UD, g2<8,8,1>:UD
    and.z.f0.0(8) null<8,8,1>:UD, vgrf0:UD, 1u
    (+f0.0) halt(8) (null):UD
block1:
    halt_target(8) (null):UD
    (-f0.0) fb_write_logical(8) (EOT) (null):UD, vgrf0:F, (null):UD, (null):UD, (null):UD, (null):UD, (null):UD, (null):UD, 1u
",
        "vgrf0 1x32\n",
    );
    let out = run(&s, 3, None).unwrap();
    let odd: Vec<u32> = (0..8).filter(|&i| g(3, 2, i as u64) & 1 == 1).collect();
    assert_eq!(
        out.records.iter().map(|r| r.channel).collect::<Vec<_>>(),
        odd
    );
}

/// A fragment shader's write that allows the sample mask stores only the pixels lit in the
/// payload's dispatch mask (g1.7), or, in a shader that discards, those still set in f1.0;
/// one that does not allow it stores every channel. The seeded masks leave pixels off.
#[test]
fn fragment_writes_follow_the_sample_mask() {
    use eubatch_sim::inputs::pixel_mask;
    let write = |allow: u32| {
        format!(
            "    untyped_surface_write_logical(8) (null):UD, 2u, (null):UD, vgrf0:D, g3<8,8,1>:UD, 1u, 1u, {allow}u
    fb_write_logical(8) (EOT) (null):UD, vgrf0:F, (null):UD, (null):UD, (null):UD, (null):UD, (null):UD, (null):UD, 1u
"
        )
    };
    let address = "    shl(8) vgrf0:D, g2<8,8,1>:D, 2u\n";
    let discard = "    mov(1) f1.0:UW, g1.14<0,1,0>:UW NoMask
    (+f1.0) cmp.nz(8) null:UD, g4<8,8,1>:UD, 0u
";
    let written = |s: &eubatch_ir::Shader, seed: u64| -> u32 {
        let out = run(s, seed, None).unwrap();
        out.records
            .iter()
            .filter(|r| r.message == "memory_write")
            .fold(0, |m, r| m | 1 << r.channel)
    };
    let mut some_off = false;
    for seed in 0..16 {
        let mask = pixel_mask(seed, 0, 8);
        assert!(mask != 0 && mask <= 0xff, "seed {seed}: mask {mask:#x}");
        some_off |= mask != 0xff;
        let plain = shader(&format!("{address}{}", write(1)), "vgrf0 1x32\n");
        assert_eq!(written(&plain, seed), mask, "seed {seed}");
        let all = shader(&format!("{address}{}", write(0)), "vgrf0 1x32\n");
        assert_eq!(written(&all, seed), 0xff, "seed {seed}");
        let kept = (0..8)
            .filter(|&c| g(seed, 4, c) != 0)
            .fold(0, |m, c| m | 1 << c);
        let killing = shader(&format!("{address}{discard}{}", write(1)), "vgrf0 1x32\n");
        assert_eq!(written(&killing, seed), mask & kept, "seed {seed}");
    }
    assert!(some_off, "no seed leaves a pixel off");
}

#[test]
fn same_seed_same_outputs() {
    let s = shader(LOOP, "vgrf0 1x32\nvgrf1 1x32\nvgrf2 1x32\n");
    assert_eq!(run(&s, 11, None).unwrap(), run(&s, 11, None).unwrap());
    assert_ne!(run(&s, 11, None).unwrap(), run(&s, 12, None).unwrap());
}

#[test]
fn equivalent_finds_the_difference() {
    let a = shader(LOOP, "vgrf0 1x32\nvgrf1 1x32\nvgrf2 1x32\n");
    assert!(equivalent(&a, &a, 0..4).is_ok());
    let b = shader(
        &LOOP.replace("add(8) vgrf0:D, vgrf0:D, 1d", "add(8) vgrf0:D, vgrf0:D, 2d"),
        "vgrf0 1x32\nvgrf1 1x32\nvgrf2 1x32\n",
    );
    let m = equivalent(&a, &b, 0..4).unwrap_err();
    assert!(m.what.contains("fb_write channel"), "{m:?}");
}

#[test]
fn bad_runs_end_with_errors_naming_the_instruction() {
    let s = shader("    do(8) (null):UD\nblock1:\n    while(8) (null):UD\n", "");
    let e = run(&s, 0, None).unwrap_err();
    assert!(e.msg.contains("infinite loop") && e.inst.is_some(), "{e}");
    let s = shader(
        "    a64_untyped_atomic_int64_logical(8) vgrf0:F, g2<8,8,1>:F, (null):UD, 0u\n",
        "vgrf0 4x32\n",
    );
    let e = run(&s, 0, None).unwrap_err();
    assert!(
        e.to_string()
            .contains("inst0: message `a64_untyped_atomic_int64_logical` is not modelled yet"),
        "{e}"
    );
    let s = shader("    mov(8) vgrf0:F, vgrf1:F\n    fb_write_logical(8) (EOT) (null):UD, vgrf0:F, (null):UD, (null):UD, (null):UD, (null):UD, (null):UD, (null):UD, 1u\n", "vgrf0 1x32\nvgrf1 1x32\n");
    // Read of undefined bytes: 8 by the mov, and 8 more by the write of the copy, which
    // stays undefined (and is recorded so: any value matches it).
    let out = run(&s, 0, None).unwrap();
    assert_eq!(out.poison_reads, 16);
    assert!(out.records.iter().all(|r| r.undefined == 1));
}

/// A `break` inside an `if`: channels that broke stay off after the `endif`, and when all
/// have broken the run goes straight to the `while`.
#[test]
fn break_inside_if() {
    let s = shader(
        "    mov(8) vgrf0:D, 0d
    mov(8) vgrf1:D, g2<8,8,1>:UD
    and(8) vgrf1:D, vgrf1:D, 3d
block1:
    do(8) (null):UD
block2:
    cmp.ge.f0.0(8) null<8,8,1>:D, vgrf0:D, vgrf1:D
    (+f0.0) if(8) (null):UD
block3:
    break(8) (null):UD
block4:
    endif(8) (null):UD
    add(8) vgrf0:D, vgrf0:D, 1d
    while(8) (null):UD
block5:
    fb_write_logical(8) (EOT) (null):UD, vgrf0:F, (null):UD, (null):UD, (null):UD, (null):UD, (null):UD, (null):UD, 1u
",
        "vgrf0 1x32\nvgrf1 1x32\n",
    );
    for seed in 0..8 {
        let out = run(&s, seed, None).unwrap();
        assert_eq!(out.records.len(), 8);
        for r in &out.records {
            assert_eq!(
                r.values,
                vec![(g(seed, 2, r.channel as u64) & 3) as u64],
                "seed {seed} ch{}",
                r.channel
            );
        }
    }
}

/// Mesa 22.3's pixel-centre setup, imported from its dump syntax: pixel i of subspan s is at
/// (s.x + 0,1,0,1; s.y + 0,0,1,1), the subspan X/Y words being g1.4.. of the payload.
#[test]
fn pixel_coordinates_from_the_payload() {
    use eubatch_ir::import::{import_mesa_dump, DumpName};
    let dump = "{  1}    0: add(16) vgrf2:UW, g1<0>:UW, 11001010V NoMask group0 
{  2}    1: pixel_x(8) vgrf0:F, vgrf2:UW, 0u 
{  2}    2: pixel_y(8) vgrf1:F, vgrf2:UW, 0u 
{  4}    3: undef(8) vgrf3:UD,  
{  4}    4: mov(8) vgrf3+0.0:F, vgrf0:F 
{  4}    5: mov(8) vgrf3+1.0:F, vgrf1:F 
{  4}    6: fb_write_logical(8) (EOT) (null):UD, vgrf3:F(null):UD(null):UD(null):UD(null):UD(null):UD(null):UD, 2u 
Maximum   4 registers live at once.
";
    let name = DumpName::parse("FS8-GLSL1-00-00-start").unwrap();
    let s = import_mesa_dump(dump, &name, "px", eubatch_ir::Gen::Gen9).unwrap();
    assert!(eubatch_ir::verify::verify(&s).is_empty());
    for seed in 0..4 {
        let out = run(&s, seed, None).unwrap();
        // UW word k of g1 is half of payload dword 8 + k/2.
        let uw = |k: u64| (g(seed, 1, k / 2) >> (16 * (k % 2))) & 0xffff;
        for r in &out.records {
            let i = r.channel as u64;
            let (ss_x, ss_y) = (uw(4 + 2 * (i / 4)), uw(5 + 2 * (i / 4)));
            let x = (ss_x + [0, 1, 0, 1][(i % 4) as usize]) & 0xffff;
            let y = (ss_y + [0, 0, 1, 1][(i % 4) as usize]) & 0xffff;
            assert_eq!(
                r.values,
                vec![(x as f32).to_bits() as u64, (y as f32).to_bits() as u64],
                "seed {seed} ch{i}"
            );
        }
    }
}

/// Sampler results depend on what the channel sends, not on where it is kept, and are
/// floats in [0, 1) for float destinations.
#[test]
fn sampler_is_a_function_of_the_message() {
    let tex = |coord_reg: &str| {
        shader(
            &format!(
                "    mov(8) {coord_reg}:F, g2<8,8,1>:F
    mov(8) {coord_reg}+1.0:F, g3<8,8,1>:F
    tex_logical(8) (size: 128) vgrf2:F, {coord_reg}:F, (null):UD, (null):UD, (null):UD, (null):UD, (null):UD, (null):UD, 1u, 0u, (null):UD, (null):UD, (null):UD, 2d, 0d
    fb_write_logical(8) (EOT) (null):UD, vgrf2:F, (null):UD, (null):UD, (null):UD, (null):UD, (null):UD, (null):UD, 4u
"
            ),
            "vgrf0 2x32\nvgrf1 2x32\nvgrf2 4x32\n",
        )
    };
    let (a, b) = (tex("vgrf0"), tex("vgrf1"));
    assert!(equivalent(&a, &b, 0..4).is_ok());
    let out = run(&a, 1, None).unwrap();
    for r in &out.records {
        for v in &r.values {
            let f = f32::from_bits(*v as u32);
            assert!((0.0..1.0).contains(&f), "{f}");
        }
    }
}

/// A byte-scattered write is an output and is read back by a later read of the same
/// address; `pack` puts its sources side by side.
#[test]
fn memory_and_pack() {
    let s = shader(
        "    mov(8) vgrf0:UD, g2<8,8,1>:UD
    and(8) vgrf0:UD, vgrf0:UD, 255u
    shl(8) vgrf1:D, vgrf0:D, 2d
    byte_scattered_write_logical(8) (null):UD, 3u, (null):UD, vgrf1:D, vgrf0:UD, 1u, 32u, 1u
    byte_scattered_read_logical(8) (size: 32) vgrf2:UD, 3u, (null):UD, vgrf1:D, (null):UD, 1u, 32u, 0u
    pack(8) vgrf3:UQ, vgrf2:UD, vgrf0:UD
    mov(8) vgrf4:UD, vgrf3<2>:UD
    mov(8) vgrf4+1.0:UD, vgrf3+0.4<2>:UD
    fb_write_logical(8) (EOT) (null):UD, vgrf4:F, (null):UD, (null):UD, (null):UD, (null):UD, (null):UD, (null):UD, 2u
",
        "vgrf0 1x32\nvgrf1 1x32\nvgrf2 1x32\nvgrf3 1x64\nvgrf4 2x32\n",
    );
    let out = run(&s, 2, None).unwrap();
    let writes: Vec<_> = out
        .records
        .iter()
        .filter(|r| r.message == "memory_write")
        .collect();
    let reads: Vec<_> = out
        .records
        .iter()
        .filter(|r| r.message == "fb_write")
        .collect();
    assert_eq!((writes.len(), reads.len()), (8, 8));
    for (w, r) in writes.iter().zip(&reads) {
        let x = g(2, 2, w.channel as u64) as u64 & 255;
        assert_eq!(w.values, vec![3, 4 * x, x]);
        // Low dword of the packed value: what was read back (the last channel to write that
        // address wins); high dword: x.
        let last = writes
            .iter()
            .filter(|o| o.values[1] == 4 * x)
            .last()
            .unwrap()
            .values[2];
        assert_eq!(r.values, vec![last, x]);
    }
}

#[test]
fn push_constants_used_as_integers_are_counts() {
    // Mesa loads push constants as F and reinterprets them where used: the loop bound u1
    // reaches the UD comparison through a raw copy, so it must be a small count (or this
    // loop would run for billions of iterations), while u0, used only as a float, keeps
    // the general distribution.
    let s = shader(
        "    mov(8) vgrf0:UD, 0u
    mov(8) vgrf2:F, u1<0>:F
block1:
    do(8) (null):UD
block2:
    cmp.ge.f0.0(8) null:UD, vgrf0:UD, vgrf2:UD
    (+f0.0) break(8) (null):UD
block3:
    add(8) vgrf0:UD, vgrf0:UD, 1u
    while(8) (null):UD
block4:
    mov(8) vgrf1:F, u0<0>:F
    mov(8) vgrf1+1.0:UD, vgrf0:UD
    fb_write_logical(8) (EOT) (null):UD, vgrf1:F, (null):UD, (null):UD, (null):UD, (null):UD, (null):UD, (null):UD, 2u
",
        "vgrf0 1x32\nvgrf1 2x32\nvgrf2 1x32\n",
    );
    let profile = eubatch_sim::profile::Profile::of(&s);
    assert!(profile.is_integer(Space::Uniform, 1));
    assert!(!profile.is_integer(Space::Uniform, 0));
    let mut floats = std::collections::HashSet::new();
    for seed in 0..16 {
        let out = eubatch_sim::run_limited(&s, seed, 20_000, None).unwrap();
        let count = out.records[0].values[1];
        assert!(count <= 255, "seed {seed}: {count} iterations");
        assert_eq!(
            count as u32,
            eubatch_sim::inputs::integer_word(seed, Space::Uniform, 1)
        );
        floats.insert(out.records[0].values[0]);
    }
    assert!(floats.len() > 8, "u0 should vary as a float: {floats:?}");
}

/// A vec4 shader: `body` between the VGRF lines and a URB write of m2.
fn vec4_shader(vgrfs: &str, body: &str) -> eubatch_ir::Shader {
    let text = format!(
        "shader \"t\" stage VS width 8 target hsw backend vec4\n{vgrfs}block0:\n{body}    vs_urb_write(8) (null):UD\n"
    );
    parse_shader(&text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// The start IR's vec4 scratch opcodes: a register spilled at OWord 4 takes OWords 4 and 5
/// (vertex 0, vertex 1), so a spill at 6 next to it leaves it whole, and reading it back
/// gives both vertices' data, as moving it directly does; a write's writemask leaves the
/// other components as they were.
#[test]
fn vec4_scratch_round_trip() {
    let vgrfs = "vgrf0 1x32\nvgrf1 1x32\nvgrf2 1x32\nvgrf3 1x32\n";
    let direct = vec4_shader(
        vgrfs,
        "    mov(8) vgrf0:UD, attr0.xyzw:UD\n    mov(8) m2:UD, vgrf0.xyzw:UD\n",
    );
    let spilled = vec4_shader(
        vgrfs,
        "    mov(8) vgrf0:UD, attr0.xyzw:UD\n    mov(8) vgrf1:UD, attr1.xyzw:UD\n\
         \x20   gfx4_scratch_write(8) g0<4,4,1>:F, vgrf0.xyzw:F, 4D\n\
         \x20   gfx4_scratch_write(8) g0<4,4,1>:F, vgrf1.xyzw:F, 6D\n\
         \x20   gfx4_scratch_write(8) g0.zw<4,4,1>:F, vgrf1.xyzw:F, 4D\n\
         \x20   mov(8) vgrf3.x:D, 4D\n\
         \x20   gfx4_scratch_read(8) vgrf2:F, vgrf3.xxxx:D\n\
         \x20   mov(8) m2.xy:UD, vgrf2.xyzw:UD\n    mov(8) m2.zw:UD, vgrf0.xyzw:UD\n",
    );
    for seed in 0..4 {
        let a = eubatch_sim::run(&direct, seed, None).unwrap();
        let b = eubatch_sim::run(&spilled, seed, None).unwrap();
        assert_eq!(a.records, b.records, "seed {seed}");
        assert_eq!(b.poison_reads, 0);
    }
    // The third write's .zw did reach scratch: read back, z and w are vgrf1's.
    let overwritten = vec4_shader(
        vgrfs,
        "    mov(8) vgrf0:UD, attr0.xyzw:UD\n    mov(8) vgrf1:UD, attr1.xyzw:UD\n\
         \x20   gfx4_scratch_write(8) g0<4,4,1>:F, vgrf0.xyzw:F, 4D\n\
         \x20   gfx4_scratch_write(8) g0.zw<4,4,1>:F, vgrf1.xyzw:F, 4D\n\
         \x20   gfx4_scratch_read(8) vgrf2:F, 4D\n\
         \x20   mov(8) m2:UD, vgrf2.xyzw:UD\n",
    );
    let expected = vec4_shader(
        vgrfs,
        "    mov(8) vgrf0:UD, attr0.xyzw:UD\n    mov(8) vgrf1:UD, attr1.xyzw:UD\n\
         \x20   mov(8) m2.xy:UD, vgrf0.xyzw:UD\n    mov(8) m2.zw:UD, vgrf1.xyzw:UD\n",
    );
    assert_eq!(
        eubatch_sim::run(&overwritten, 1, None).unwrap().records,
        eubatch_sim::run(&expected, 1, None).unwrap().records
    );
}

/// Subgroup opcodes: `sel_exec` takes its first source in the channels live in the control
/// flow and its second elsewhere (Mesa's generator: a NoMask `mov` of the second, then a
/// masked `mov` of the first); `find_last_live_channel` is the last live channel;
/// `cluster_broadcast` gives each channel its cluster's component; a `shuffle` index outside
/// the channels gives an undefined value, which matches anything.
#[test]
fn subgroup_opcodes_follow_the_live_channels() {
    // Channels 0-2 take the `if` (the pixel x of the first three is below that of the
    // rest: compare the channel index instead, from a vector immediate).
    let s = shader(
        "    mov(8) vgrf0:UW, 76543210V NoMask
    mov(8) vgrf1:UD, vgrf0:UW
    cmp.l.f0.0(8) null:UD, vgrf1:UD, 3u
    (+f0.0) if(8) (null):UD
block1:
    sel_exec(8) vgrf2:UD, 10u, 20u NoMask
    find_last_live_channel(8) vgrf3:UD NoMask
block2:
    endif(8) (null):UD
    cluster_broadcast(8) vgrf4:UD, vgrf1:UD, 1u, 4u
    mov(8) vgrf5:F, vgrf2:F
    mov(8) vgrf5+1.0:UD, vgrf3<0>:UD
    mov(8) vgrf5+2.0:UD, vgrf4:UD
    mov(8) vgrf5+3.0:UD, vgrf1:UD
    fb_write_logical(8) (EOT) (null):UD, vgrf5:F, (null):UD, (null):UD, (null):UD, (null):UD, (null):UD, (null):UD, 4u
",
        "vgrf0 1x16\nvgrf1 1x32\nvgrf2 1x32\nvgrf3 1x32\nvgrf4 1x32\nvgrf5 4x32\n",
    );
    let out = run(&s, 0, None).unwrap();
    assert_eq!(out.records.len(), 8);
    for r in &out.records {
        let i = r.channel as u64;
        let sel = if i < 3 { 10 } else { 20 };
        assert_eq!(r.values, vec![sel, 2, i / 4 * 4 + 1, i], "channel {i}");
    }
}

/// A SIMD8 fragment shader whose channels 0-2 run `body` (writing vgrf2-vgrf5, which hold
/// 99 before), vgrf1 the channel index and vgrf6 the index plus 5; the four values go to
/// the framebuffer, one record per channel.
fn three_live_channels(body: &str) -> Vec<Vec<u64>> {
    let s = shader(
        &format!(
            "    mov(8) vgrf0:UW, 76543210V NoMask
    mov(8) vgrf1:UD, vgrf0:UW
    add(8) vgrf6:UD, vgrf1:UD, 5u
    xor(8) vgrf7:UD, vgrf1:UD, 1u
    mov(8) vgrf2:UD, 99u NoMask
    mov(8) vgrf3:UD, 99u NoMask
    mov(8) vgrf4:UD, 99u NoMask
    mov(8) vgrf5:UD, 99u NoMask
    cmp.l.f0.0(8) null:UD, vgrf1:UD, 3u
    (+f0.0) if(8) (null):UD
block1:
{body}block2:
    endif(8) (null):UD
    mov(8) vgrf8:UD, vgrf2:UD
    mov(8) vgrf8+1.0:UD, vgrf3:UD
    mov(8) vgrf8+2.0:UD, vgrf4:UD
    mov(8) vgrf8+3.0:UD, vgrf5:UD
    fb_write_logical(8) (EOT) (null):UD, vgrf8:F, (null):UD, (null):UD, (null):UD, (null):UD, (null):UD, (null):UD, 4u
"
        ),
        "vgrf0 1x16\nvgrf1 1x32\nvgrf2 1x32\nvgrf3 1x32\nvgrf4 1x32\nvgrf5 1x32\nvgrf6 1x32\nvgrf7 1x32\nvgrf8 4x32\n",
    );
    let out = run(&s, 0, None).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.records.len(), 8);
    assert_eq!(out.poison_reads, 0);
    out.records.iter().map(|r| r.values.clone()).collect()
}

/// Mesa 25's subgroup opcodes take only the live channels (0-2 of 8) and write only the
/// enabled ones, except `load_subgroup_invocation` and gen9's quad vote, which Mesa
/// writes NoMask; scans start from each operation's identity.
#[test]
fn mesa25_subgroup_opcodes_take_the_live_channels_only() {
    let m = 0xffff_ffffu64; // -1 as a dword
                            // ballot of the index (channel 0's is zero); add reduction; exclusive add scan;
                            // inclusive max scan of index ^ 1 (1, 0, 3).
    let r = three_live_channels(
        "    ballot(8) vgrf2:UD, vgrf1:UD
    reduce(8) vgrf3:D, vgrf1:D, 0u, 8u
    exclusive_scan(8) vgrf4:UD, vgrf1:UD, 0u
    inclusive_scan(8) vgrf5:UD, vgrf7:UD, 3u
",
    );
    let want = [[6, 3, 0, 1], [6, 3, 0, 1], [6, 3, 1, 3]];
    for (i, w) in want.iter().enumerate() {
        assert_eq!(r[i], w.to_vec(), "channel {i}");
    }
    for (i, v) in r.iter().enumerate().skip(3) {
        assert_eq!(v, &vec![99, 99, 99, 99], "disabled channel {i}");
    }
    // Reductions in clusters of 2 (0+1, 2 alone in its live half); exclusive min scan
    // (identity: all ones for UD); the votes.
    let r = three_live_channels(
        "    reduce(8) vgrf2:UD, vgrf1:UD, 0u, 2u
    exclusive_scan(8) vgrf3:UD, vgrf6:UD, 2u
    vote_equal(8) vgrf4:D, vgrf1:D
    vote_any(8) vgrf5:D, vgrf1:D, 4u
",
    );
    let want = [[1, m, 0, m], [1, 5, 0, m], [2, 5, 0, m]];
    for (i, w) in want.iter().enumerate() {
        assert_eq!(r[i], w.to_vec(), "channel {i}");
    }
    // The quad vote's NoMask `mov 0` reaches the disabled channels.
    for (i, v) in r.iter().enumerate().skip(3) {
        assert_eq!(v, &vec![99, 99, 99, 0], "disabled channel {i}");
    }
    // Reading channels: the first live one, an immediate one, one named by the first
    // live channel's vgrf7 (1: channel 1); the invocation index, in every channel.
    let r = three_live_channels(
        "    read_from_live_channel(8) vgrf2:D, vgrf6:D
    read_from_channel(8) vgrf3:D, vgrf6:D, 2u
    read_from_channel(8) vgrf4:D, vgrf6:D, vgrf7:UD
    load_subgroup_invocation(8) vgrf5:UD NoMask
",
    );
    for (i, v) in r.iter().enumerate() {
        let i = i as u64;
        let want = if i < 3 {
            vec![5, 7, 6, i]
        } else {
            vec![99, 99, 99, i]
        };
        assert_eq!(v, &want, "channel {i}");
    }
    // A float scan rounds as Mesa's steps do, and vote_all sees channel 0's zero.
    let r = three_live_channels(
        "    mov(8) vgrf2:F, vgrf1:UD
    inclusive_scan(8) vgrf3:F, vgrf2:F, 0u
    vote_all(8) vgrf4:D, vgrf1:D
    vote_equal(8) vgrf5:D, 7d
",
    );
    let f = |x: f32| x.to_bits() as u64;
    let want = [
        [f(0.0), f(0.0), 0, m],
        [f(1.0), f(1.0), 0, m],
        [f(2.0), f(3.0), 0, m],
    ];
    for (i, w) in want.iter().enumerate() {
        assert_eq!(r[i], w.to_vec(), "channel {i}");
    }
}

/// A SIMD8 compute shader whose channels 0-2 run `body`, with vgrf1 the channel index,
/// vgrf2 four times it (a byte address), vgrf3 the index plus 5.
fn cs_three_live_channels(body: &str, vgrfs: &str) -> eubatch_ir::Shader {
    let text = format!(
        "shader \"t\" stage CS width 8 target skl\nvgrf0 1x16\nvgrf1 1x32\nvgrf2 1x32\nvgrf3 1x32\n{vgrfs}block0:
    mov(8) vgrf0:UW, 76543210V NoMask
    mov(8) vgrf1:UD, vgrf0:UW
    shl(8) vgrf2:UD, vgrf1:UD, 2u
    add(8) vgrf3:UD, vgrf1:UD, 5u
    cmp.l.f0.0(8) null:UD, vgrf1:UD, 3u
    (+f0.0) if(8) (null):UD
block1:
{body}block2:
    endif(8) (null):UD
"
    );
    let s = parse_shader(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let errs = eubatch_ir::verify::verify(&s);
    assert!(errs.is_empty(), "{errs:?}\n{text}");
    s
}

/// The data of the `memory_write` records to binding table entry `surface`, by channel.
fn writes_to(out: &eubatch_sim::Outputs, surface: u64) -> Vec<(u32, Vec<u64>)> {
    out.records
        .iter()
        .filter(|r| r.message == "memory_write" && r.values.first() == Some(&surface))
        .map(|r| (r.channel, r.values[2..].to_vec()))
        .collect()
}

/// Mesa 25's memory messages beyond constant blocks and per-channel accesses: an exchange
/// (`atomic_store`, BRW_AOP_MOV) returns the old value and stores its data in the live
/// channels only; a binding table entry computed at run time is its low 8 bits; a block
/// (transposed) load reads consecutive dwords for the whole message; image loads and
/// stores with a channel mask are the typed messages of their components.
#[test]
fn mesa25_memory_exchange_block_load_and_run_time_binding() {
    // Surface 1 through a run-time entry 0x101; old values read first; a NoMask
    // per-channel load and a block load of 8 dwords afterwards.
    let s = cs_three_live_channels(
        "    mov(8) vgrf4:UD, 257u NoMask
    memory_load(8) vgrf5:UD, 0u, 1u, 3u, 1u, vgrf2:UD, 1u, 0u, 2u, 1u, 0u, (null):UD, (null):UD NoMask
    memory_atomic(8) vgrf6:UD, 11u, 1u, 3u, vgrf4<0>:UD, vgrf2:UD, 1u, 0u, 2u, 1u, 0u, vgrf3:UD, (null):UD
    memory_load(8) vgrf7:UD, 0u, 1u, 3u, 1u, vgrf2:UD, 1u, 0u, 2u, 1u, 0u, (null):UD, (null):UD NoMask
    memory_load(1) (size: 32) vgrf8:UD, 0u, 1u, 3u, 1u, 0d, 1u, 4u, 2u, 8u, 1u, (null):UD, (null):UD NoMask
    memory_store(8) (null):UD, 4u, 1u, 3u, 9u, vgrf2:UD, 1u, 0u, 2u, 1u, 0u, vgrf5:UD, (null):UD NoMask
    memory_store(8) (null):UD, 4u, 1u, 3u, 10u, vgrf2:UD, 1u, 0u, 2u, 1u, 0u, vgrf6:UD, (null):UD
    memory_store(8) (null):UD, 4u, 1u, 3u, 11u, vgrf2:UD, 1u, 0u, 2u, 1u, 0u, vgrf7:UD, (null):UD NoMask
    memory_store(8) (null):UD, 4u, 1u, 3u, 12u, vgrf2:UD, 1u, 0u, 2u, 1u, 0u, vgrf8:UD, (null):UD NoMask
",
        "vgrf4 1x32\nvgrf5 1x32\nvgrf6 1x32\nvgrf7 1x32\nvgrf8 1x32\n",
    );
    for seed in 0..4 {
        let out = run(&s, seed, None).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(out.poison_reads, 0);
        let old = writes_to(&out, 9);
        assert_eq!(old.len(), 8);
        let returned = writes_to(&out, 10);
        assert_eq!(
            returned,
            old[..3],
            "seed {seed}: the live channels' old values"
        );
        let after = writes_to(&out, 11);
        assert_eq!(after.len(), 8);
        for (c, v) in &after[..3] {
            assert_eq!(
                v,
                &vec![*c as u64 + 5],
                "seed {seed}: stored in channel {c}"
            );
        }
        // Channels 3-7 did not store: the memory there is as it was.
        assert_eq!(after[3..], old[3..], "seed {seed}");
        assert_eq!(writes_to(&out, 12), after, "seed {seed}: the block load");
        // The exchange is one atomic record per live channel with the value stored.
        let atomics: Vec<_> = out
            .records
            .iter()
            .filter(|r| r.message == "memory_atomic")
            .map(|r| (r.channel, r.values.clone()))
            .collect();
        assert_eq!(atomics.len(), 3);
        for (c, v) in atomics {
            assert_eq!(v, vec![1, 4 * c as u64, c as u64 + 5]);
        }
    }
    // An image store and load with a channel mask (LSC_OP_STORE_CMASK, LOAD_CMASK) are
    // the typed messages of four components, as LSC_OP_STORE and LOAD give them.
    let image = |store: u32, load: u32| {
        cs_three_live_channels(
            &format!(
                "    mov(8) vgrf4:UD, vgrf1:UD
    mov(8) vgrf4+1.0:UD, 0u
    mov(8) vgrf5:UD, vgrf3:UD
    mov(8) vgrf5+1.0:UD, vgrf1:UD
    mov(8) vgrf5+2.0:UD, vgrf2:UD
    mov(8) vgrf5+3.0:UD, 7u
    memory_store(8) (null):UD, {store}u, 0u, 3u, 2u, vgrf4:UD, 2u, 0u, 2u, 4u, 0u, vgrf5:UD, (null):UD
    mov(8) vgrf4:UD, vgrf1:UD NoMask
    memory_load(8) vgrf6:UD, {load}u, 0u, 3u, 2u, vgrf4:UD, 2u, 0u, 2u, 4u, 0u, (null):UD, (null):UD NoMask
    memory_store(8) (null):UD, 4u, 1u, 3u, 9u, vgrf2:UD, 1u, 0u, 2u, 4u, 0u, vgrf6:UD, (null):UD NoMask
"
            ),
            "vgrf4 2x32\nvgrf5 4x32\nvgrf6 4x32\n",
        )
    };
    let cmask = image(6, 2);
    assert!(equivalent(&image(4, 0), &cmask, 0..4).is_ok());
    let out = run(&cmask, 0, None).unwrap();
    let texels = writes_to(&out, 9);
    assert_eq!(texels.len(), 8);
    for (c, v) in &texels[..3] {
        let c = *c as u64;
        assert_eq!(v, &vec![c + 5, c, 4 * c, 7]);
    }
}
