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

/// How many of a SIMD8 fragment thread's pixels are lit for `seed`: the render-target
/// writes record those only (a helper invocation's colour is not written).
fn lit(seed: u64) -> usize {
    eubatch_sim::inputs::pixel_mask(seed, 0, 8).count_ones() as usize
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
        assert_eq!(out.records.len(), lit(seed));
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
    // Read of undefined bytes: 8 by the mov, and one more by the write of the copy for
    // each lit pixel, which stays undefined (and is recorded so: any value matches it).
    let out = run(&s, 0, None).unwrap();
    assert_eq!(out.poison_reads, 8 + lit(0) as u64);
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
        assert_eq!(out.records.len(), lit(seed));
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
    assert_eq!(out.records.len(), lit(0));
    for r in &out.records {
        let i = r.channel as u64;
        let sel = if i < 3 { 10 } else { 20 };
        assert_eq!(r.values, vec![sel, 2, i / 4 * 4 + 1, i], "channel {i}");
    }
}

/// A render-target write records the lit pixels only: a channel off in the payload's
/// dispatch mask (a helper invocation) runs the code but its colour is not written.
#[test]
fn helper_invocations_write_no_colour() {
    let s = shader(
        "    mov(8) vgrf0:F, 1f
    fb_write_logical(8) (EOT) (null):UD, vgrf0:F, (null):UD, (null):UD, (null):UD, (null):UD, (null):UD, (null):UD, 1u
",
        "vgrf0 1x32\n",
    );
    let mut helpers_seen = false;
    for seed in 0..16 {
        let mask = eubatch_sim::inputs::pixel_mask(seed, 0, 8);
        helpers_seen |= mask != 0xff;
        let channels: Vec<u32> = run(&s, seed, None)
            .unwrap()
            .records
            .iter()
            .map(|r| r.channel)
            .collect();
        let want: Vec<u32> = (0..8).filter(|c| mask & (1 << c) != 0).collect();
        assert_eq!(channels, want, "seed {seed}: mask {mask:#x}");
    }
    assert!(helpers_seen, "no seed has a helper invocation");
}

/// Align1 group predicates: `.any8h` enables every channel of an 8-channel group where
/// one of its flag bits is set, `.all8h` where all are; sr0.2, the dispatch mask, holds
/// every channel of the dispatch (Mesa's find-live-channel reads it where dispatch is not
/// packed).
#[test]
fn group_predicates_and_the_dispatch_mask() {
    let text = "shader \"t\" stage FS width 16 target skl
vgrf0 8x32
vgrf1 1x32
block0:
    mov(1) f0.0:UW, 511uw NoMask group0
    mov(16) vgrf0:UD, 0u
    (+f0.0.any8h) mov(16) vgrf0:UD, 1u
    mov(16) vgrf0+2.0:UD, 0u
    (+f0.0.all8h) mov(16) vgrf0+2.0:UD, 1u
    mov(1) vgrf1:UD, sr0.8<0>:UD NoMask group0
    mov(16) vgrf0+4.0:UD, vgrf1<0>:UD
    mov(16) vgrf0+6.0:UD, 0u
    fb_write_logical(16) (EOT) (null):UD, vgrf0:F, (null):UD, (null):UD, (null):UD, (null):UD, (null):UD, (null):UD, 4u
";
    let s = parse_shader(text).unwrap_or_else(|e| panic!("{e}"));
    let errs = eubatch_ir::verify::verify(&s);
    assert!(errs.is_empty(), "{errs:?}");
    let out = run(&s, 0, None).unwrap();
    assert!(!out.records.is_empty());
    for r in &out.records {
        // f0.0 = 0x1ff: channels 0-7 all set, of 8-15 only channel 8.
        let all = (r.channel < 8) as u64;
        assert_eq!(r.values, vec![1, all, 0xffff, 0], "channel {}", r.channel);
    }
}

/// A negated source of a logic instruction is a bitwise not from gen8 on (Mesa's
/// `gl_HelperInvocation` relies on it: `and(16) d, -shifted, 0x10001`), an arithmetic
/// negation on Haswell.
#[test]
fn logic_negate_is_a_bitwise_not_from_gen8() {
    let text = |target: &str| {
        format!(
            "shader \"t\" stage FS width 8 target {target}
vgrf0 4x32
vgrf1 1x32
block0:
    mov(8) vgrf1:UD, 6u
    and(8) vgrf0:UD, -vgrf1:UD, 255u
    or(8) vgrf0+1.0:UD, -vgrf1:UD, 0u
    mov(8) vgrf0+2.0:UD, -vgrf1:D
    mov(8) vgrf0+3.0:UD, 0u
    fb_write_logical(8) (EOT) (null):UD, vgrf0:F, (null):UD, (null):UD, (null):UD, (null):UD, (null):UD, (null):UD, 4u
"
        )
    };
    for (target, want) in [("skl", [0xf9, 0xffff_fff9]), ("hsw", [0xfa, 0xffff_fffa])] {
        let s = parse_shader(&text(target)).unwrap_or_else(|e| panic!("{e}"));
        let out = run(&s, 0, None).unwrap();
        let r = &out.records[0].values;
        assert_eq!(
            [r[0], r[1], r[2]],
            [want[0], want[1], 0xffff_fffa],
            "{target}"
        );
    }
}

/// The timestamp tm0: dwords 0 and 1 hold a count drawn from the seed, which does not
/// advance within a thread (two reads agree), dword 2's reset bit is clear, and another
/// seed draws another count.
#[test]
fn timestamp_reads() {
    let text = "shader \"t\" stage FS width 8 target skl
vgrf0 4x32
vgrf1 1x32
vgrf2 1x32
block0:
    mov(4) vgrf1:UD, tm0:UD NoMask group0
    mov(4) vgrf2:UD, tm0:UD NoMask group0
    mov(8) vgrf0:UD, vgrf1<0>:UD
    mov(8) vgrf0+1.0:UD, vgrf1+0.4<0>:UD
    mov(8) vgrf0+2.0:UD, vgrf2<0>:UD
    mov(8) vgrf0+3.0:UD, vgrf1+0.8<0>:UD
    fb_write_logical(8) (EOT) (null):UD, vgrf0:F, (null):UD, (null):UD, (null):UD, (null):UD, (null):UD, (null):UD, 4u
";
    let s = parse_shader(text).unwrap_or_else(|e| panic!("{e}"));
    let errs = eubatch_ir::verify::verify(&s);
    assert!(errs.is_empty(), "{errs:?}");
    let first = |seed| run(&s, seed, None).unwrap().records[0].values.clone();
    let (a, b) = (first(0), first(1));
    assert_eq!((a[0], a[3]), (a[2], 0), "{a:?}");
    assert_ne!(a[..2], b[..2]);
}

/// The pixel interpolator: a logical per-slot offset query (Mesa's IR: the two coordinates
/// planar) and the SIMD16 `send` Mesa's generator makes of it (the hardware's answer
/// interleaved per 8 channels) give every channel the same barycentrics, which depend on
/// the channel's offsets.
#[test]
fn pixel_interpolator_logical_and_raw_agree() {
    let head =
        "shader \"t\" stage FS width 16 target skl\nvgrf0 4x32\nvgrf1 4x32\nvgrf2 8x32\nblock0:\n";
    let tail = "    mov(16) vgrf2+4.0:F, 0f
    mov(16) vgrf2+6.0:F, 0f
    fb_write_logical(16) (EOT) (null):UD, vgrf2:F, (null):UD, (null):UD, (null):UD, (null):UD, (null):UD, (null):UD, 4u
";
    let logical = format!(
        "{head}    mov(16) vgrf0:D, g20<8,8,1>:D
    mov(16) vgrf0+2.0:D, g22<8,8,1>:D
    interp_per_slot_offset(16) vgrf1:F, vgrf0:D, 0u
    mov(16) vgrf2:F, vgrf1:F
    mov(16) vgrf2+2.0:F, vgrf1+2.0:F
{tail}"
    );
    // Descriptor: mlen 4, rlen 4, per-slot offset (3 << 12), SIMD16 (bit 16).
    let raw = format!(
        "{head}    send(16) (mlen: 4) (sfid: 11) (desc: 0x08413000) (size: 128) g30<8,8,1>:UW, g20<8,8,1>:UD
    mov(8) vgrf2:F, g30<8,8,1>:F NoMask group0
    mov(8) vgrf2+1.0:F, g32<8,8,1>:F NoMask group0
    mov(8) vgrf2+2.0:F, g31<8,8,1>:F NoMask group0
    mov(8) vgrf2+3.0:F, g33<8,8,1>:F NoMask group0
{tail}"
    );
    let parse = |text: &str| {
        let s = parse_shader(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let errs = eubatch_ir::verify::verify(&s);
        assert!(errs.is_empty(), "{errs:?}\n{text}");
        s
    };
    let (a, b) = (parse(&logical), parse(&raw));
    for seed in 0..4 {
        let ra = run(&a, seed, None).unwrap().records;
        let rb = run(&b, seed, None).unwrap().records;
        assert!(!ra.is_empty());
        assert_eq!(ra, rb, "seed {seed}");
        // Two channels with other offsets get other coordinates.
        let offs = |c: u64| (g(seed, 20 + c / 8, c % 8), g(seed, 22 + c / 8, c % 8));
        for (x, y) in ra.iter().zip(ra.iter().skip(1)) {
            if offs(x.channel as u64) != offs(y.channel as u64) {
                assert_ne!(x.values[..2], y.values[..2]);
            }
        }
    }
}

/// A vec4 shader of `stage` from its VGRF lines and body.
fn vec4_stage_shader(stage: &str, vgrfs: &str, body: &str) -> eubatch_ir::Shader {
    let text = format!(
        "shader \"t\" stage {stage} width 8 target hsw backend vec4\n{vgrfs}block0:\n{body}"
    );
    let s = parse_shader(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let errs = eubatch_ir::verify::verify(&s);
    assert!(errs.is_empty(), "{errs:?}");
    s
}

/// URB dword `c` of slot `slot` of entry `handle` for `seed` (the previous stage's data).
fn urb(seed: u64, handle: u32, slot: u32, c: u32) -> u32 {
    word(
        seed,
        Space::Urb,
        (handle as u64) << 32 | (slot as u64 * 4 + c as u64),
    )
}

/// The vec4 TCS opcodes as Mesa's generator expands them. The invocation IDs are 0 and 1
/// (g0.2 is 0 in the simulator's payload); a register vertex index is read per half
/// through a0 (2 in half 0: g1.2; 9 in half 1: g2.1), an immediate one for both (3: g1.3);
/// the reads' slots are the global offset plus the per-slot offsets (the instance IDs);
/// the writes go to the patch entry (g0.0) with the enables of their write mask, those not
/// enabled undefined in the record; `tcs_src0<0,1,0>_is_zero` sets every channel's flag
/// from dword 0; the barrier header's dword 2 (the barrier count) is undefined; the
/// releases name vertices 0 and 1, then 2 alone (unpaired); the thread's end writes `.x`
/// of slot 0 of the patch entry, zero.
#[test]
fn vec4_tcs_opcodes_follow_the_generator() {
    let vgrfs: String = (0..14)
        .map(|n| {
            format!(
                "vgrf{n} {}x32\n",
                if [3, 8, 12].contains(&n) { 2 } else { 1 }
            )
        })
        .collect();
    let body = "    tcs_get_instance_id(8) vgrf0.x:UD\n\
         \x20   mul(8) vgrf6.x:UD, vgrf0.xxxx:UD, 7u\n\
         \x20   add(8) vgrf6.x:UD, vgrf6.xxxx:UD, 2u\n\
         \x20   tcs_set_input_urb_offsets(8) vgrf5:UD, vgrf6.xxxx:UD, vgrf0.xxxx:UD NoMask\n\
         \x20   urb_read(8) (urb_offset: 1) vgrf2:D, vgrf5.xyzw:UD\n\
         \x20   tcs_set_input_urb_offsets(8) vgrf1:UD, 3u NoMask\n\
         \x20   urb_read(8) (urb_offset: 4) vgrf4:D, vgrf1.xyzw:UD\n\
         \x20   tcs_set_output_urb_offsets(8) vgrf3+0.0:UD, 5u, vgrf0.xxxx:UD NoMask\n\
         \x20   mov(8) vgrf3+1.0:D, vgrf2.xyzw:D NoMask\n\
         \x20   tcs_urb_write(8) (urb_offset: 2) null:F, vgrf3.xyzw:UD\n\
         \x20   tcs_set_output_urb_offsets(8) vgrf8+0.0:UD, 15u NoMask\n\
         \x20   mov(8) vgrf8+1.0:D, vgrf4.xyzw:D NoMask\n\
         \x20   tcs_src0<0,1,0>_is_zero(8).z.f0.0 null:D, vgrf6.xxxx:UD\n\
         \x20   (+f0.0) tcs_urb_write(8) (urb_offset: 6) null:F, vgrf8.xyzw:UD\n\
         \x20   tcs_src0<0,1,0>_is_zero(8).z.f0.0 null:D, vgrf0.xxxx:UD\n\
         \x20   (+f0.0) tcs_urb_write(8) (urb_offset: 6) null:F, vgrf8.xyzw:UD\n\
         \x20   tcs_create_barrier_header(8) vgrf11:UD\n\
         \x20   tcs_set_output_urb_offsets(8) vgrf12+0.0:UD, 15u NoMask\n\
         \x20   mov(8) vgrf12+1.0:UD, vgrf11.xyzw:UD NoMask\n\
         \x20   tcs_urb_write(8) (urb_offset: 8) null:F, vgrf12.xyzw:UD\n\
         \x20   tcs_release_input(8) vgrf7:UD, 0u, 0u\n\
         \x20   tcs_release_input(8) vgrf10:UD, 2u, 1u\n\
         \x20   tcs_thread_end(8) (null):UD\n";
    let s = vec4_stage_shader("TCS", &vgrfs, body);
    for seed in 0..3 {
        let out = run(&s, seed, None).unwrap_or_else(|e| panic!("{e}"));
        let patch = g(seed, 0, 0) as u64;
        let recs: Vec<(&str, u32, Vec<u64>, u64)> = out
            .records
            .iter()
            .map(|r| (r.message.as_str(), r.channel, r.values.clone(), r.undefined))
            .collect();
        // Values: slot, enables, handle, four dwords; y and w not enabled by `.xz`.
        let write = |h: u32, slot: u32, mask: u64, data: [u64; 4], undefined: u64| {
            let mut v = vec![slot as u64, mask, patch];
            v.extend(data);
            ("urb_write", h, v, undefined)
        };
        let read = |handle: u32, slot: u32| {
            let d: Vec<u64> = (0..4).map(|c| urb(seed, handle, slot, c) as u64).collect();
            [d[0], d[1], d[2], d[3]]
        };
        let icp = [g(seed, 1, 2), g(seed, 2, 1)];
        let mut expected = Vec::new();
        for h in 0..2u32 {
            expected.push(write(
                h,
                2 + h,
                0b101,
                read(icp[h as usize], 1 + h),
                0b1010 << 3,
            ));
        }
        for h in 0..2u32 {
            expected.push(write(h, 6, 0xf, read(g(seed, 1, 3), 4), 0));
        }
        // The barrier header: dword 2 of half 0 undefined.
        expected.push(write(0, 8, 0xf, [0; 4], 0b0100 << 3));
        expected.push(write(1, 8, 0xf, [0; 4], 0));
        for (h, v) in [(0u32, 0u64), (1, 1), (0, 2)] {
            expected.push(("urb release", h, vec![g(seed, 1, v) as u64], 0));
        }
        expected.push(write(0, 0, 1, [0; 4], 0b1110 << 3));
        assert_eq!(recs, expected, "seed {seed}");
    }
}

/// The vec4 TES opcodes: the input read header names the patch entry (g1.3's low 13 bits)
/// for both halves, `tes_add_indirect_urb_offset` copies it with per-slot offsets, the
/// primitive ID is g1.7 in every channel; pushed patch inputs are the same for both
/// halves.
#[test]
fn vec4_tes_opcodes_follow_the_generator() {
    let vgrfs = "vgrf0 1x32\nvgrf1 1x32\nvgrf2 1x32\nvgrf3 1x32\nvgrf4 1x32\n";
    let body = "    tes_create_input_read_header(8) vgrf0:UD\n\
         \x20   urb_read(8) (urb_offset: 3) vgrf1:D, vgrf0.xyzw:UD\n\
         \x20   mov(8) vgrf2:UD, 5u\n\
         \x20   tes_add_indirect_urb_offset(8) vgrf3:UD, vgrf0.xyzw:UD, vgrf2.xxxx:UD NoMask\n\
         \x20   urb_read(8) (urb_offset: 3) vgrf4:D, vgrf3.xyzw:UD\n\
         \x20   mov(8) m2:D, vgrf1.xyzw:D\n\
         \x20   mov(8) m3:D, vgrf4.xyzw:D\n\
         \x20   tes_get_primitive_id(8) m4:UD\n\
         \x20   mov(8) m5:D, attr1.wzyx:D\n\
         \x20   vs_urb_write(8) (null):UD\n";
    let s = vec4_stage_shader("TES", vgrfs, body);
    for seed in 0..3 {
        let out = run(&s, seed, None).unwrap_or_else(|e| panic!("{e}"));
        let handle = g(seed, 1, 3) & 0x1fff;
        let slot = |r: &eubatch_sim::Record| r.message.clone();
        let data: Vec<(String, u32, Vec<u64>)> = out
            .records
            .iter()
            .map(|r| (slot(r), r.channel, r.values.clone()))
            .collect();
        let read =
            |s: u32| -> Vec<u64> { (0..4).map(|c| urb(seed, handle, s, c) as u64).collect() };
        let mut expected = Vec::new();
        for h in 0..2 {
            expected.push(("urb slot 0".to_string(), h, read(3)));
        }
        for h in 0..2 {
            expected.push(("urb slot 1".to_string(), h, read(8)));
        }
        for h in 0..2 {
            expected.push(("urb slot 2".to_string(), h, vec![g(seed, 1, 7) as u64; 4]));
        }
        assert_eq!(&data[..6], &expected[..]);
        // The patch input: half 1 as half 0.
        assert_eq!(data[6].2, data[7].2);
        assert_eq!(data[6].0, "urb slot 3");
    }
}

/// The vec4 geometry shader's `get_instance_id`: each half's dwords are g0's dword of that
/// half (0, 1) shifted right by 27 (`generate_gs_get_instance_id`).
#[test]
fn vec4_gs_instance_id_is_g0_shifted() {
    let body = "    get_instance_id(8) vgrf0:D\n\
         \x20   mov(8) m1:UD, g0.xyzw<8,8,1>:UD NoMask\n\
         \x20   set_write_offset(8) m1:UD, 0u, 1u\n\
         \x20   mov(8) m2:D, vgrf0.xyzw:D\n\
         \x20   gs_urb_write(8) (null):UD\n\
         \x20   gs_thread_end(8) (null):UD\n";
    let s = vec4_stage_shader("GS", "vgrf0 1x32\n", body);
    for seed in 0..3 {
        let out = run(&s, seed, None).unwrap_or_else(|e| panic!("{e}"));
        let slot: Vec<(u32, Vec<u64>)> = out
            .records
            .iter()
            .filter(|r| r.message == "urb slot 0")
            .map(|r| (r.channel, r.values.clone()))
            .collect();
        let id = |h: u64| (g(seed, 0, h) >> 27) as u64;
        assert_eq!(
            slot,
            vec![(0, vec![id(0); 4]), (1, vec![id(1); 4])],
            "seed {seed}"
        );
    }
}

/// A vec4 geometry shader with control data (Mesa `emit_control_data_bits`): its vertex
/// writes go to the per-slot offset plus the global offset (the control data header's
/// HWords), its control data bits as an interleaved OWord write (`BRW_URB_OPCODE_WRITE_OWORD`,
/// mlen 2) to OWord 0. The start IR's `gs_urb_write`s carry the descriptors the import
/// takes from the final code (Mesa 22.3's, from piglit's ubo_array_indexing/gs-simple but
/// for mlen); the final code's sends record the same slots.
#[test]
fn vec4_gs_control_data_oword_writes_match_the_start_ir() {
    let start = vec4_stage_shader(
        "GS",
        "",
        "    mov(8) m1:UD, g0.xyzw<8,8,1>:UD NoMask\n\
         \x20   set_write_offset(8) m1:UD, 2u, 1u\n\
         \x20   mov(8) m2:UD, g2.xyzw<4,4,1>:UD\n\
         \x20   mov(8) m3:UD, g3.xyzw<4,4,1>:UD\n\
         \x20   gs_urb_write(8) (sfid: 6) (desc: 0x06094008) (urb_offset: 1) (null):UD\n\
         \x20   mov(8) m1:UD, g0.xyzw<8,8,1>:UD NoMask\n\
         \x20   mov(8) m2:UD, g4.xxxx<4,4,1>:UD NoMask\n\
         \x20   gs_urb_write(8) (sfid: 6) (desc: 0x04084001) (urb_offset: 0) (null):UD\n\
         \x20   mov(8) m1:UD, g0.xyzw<8,8,1>:UD NoMask\n\
         \x20   set_vertex_count(8) m1:UD, 1u\n\
         \x20   gs_thread_end(8) (null):UD\n",
    );
    let sends = vec4_stage_shader(
        "GS",
        "",
        "    mov(8) g19<4,4,1>:UD, g0.xyzw<8,8,1>:UD NoMask\n\
         \x20   set_write_offset(8) g19<4,4,1>:UD, 2u, 1u\n\
         \x20   mov(8) g20<4,4,1>:UD, g2.xyzw<4,4,1>:UD\n\
         \x20   mov(8) g21<4,4,1>:UD, g3.xyzw<4,4,1>:UD\n\
         \x20   send(8) (mlen: 3) (sfid: 6) (desc: 0x06094008) (null):F, g19.xyzw<4,4,1>:UD\n\
         \x20   mov(8) g19<4,4,1>:UD, g0.xyzw<8,8,1>:UD NoMask\n\
         \x20   mov(8) g20<4,4,1>:UD, g4.xxxx<4,4,1>:UD NoMask\n\
         \x20   send(8) (mlen: 2) (sfid: 6) (desc: 0x04084001) (null):F, g19.xyzw<4,4,1>:UD\n\
         \x20   mov(8) g19<4,4,1>:UD, g0.xyzw<8,8,1>:UD NoMask\n\
         \x20   set_vertex_count(8) g19<4,4,1>:UD, 1u\n\
         \x20   send(8) (mlen: 1) (sfid: 6) (desc: 0x82084000) (EOT) (null):F, g19.xyzw<4,4,1>:UD\n",
    );
    for seed in 0..3 {
        let a = run(&start, seed, None).unwrap_or_else(|e| panic!("{e}"));
        let b = run(&sends, seed, None).unwrap_or_else(|e| panic!("{e}"));
        let slots: Vec<(&str, u32)> = a
            .records
            .iter()
            .filter(|r| r.message.starts_with("urb slot"))
            .map(|r| (r.message.as_str(), r.channel))
            .collect();
        assert_eq!(
            slots,
            [
                ("urb slot 6", 0),
                ("urb slot 6", 1),
                ("urb slot 7", 0),
                ("urb slot 7", 1),
                ("urb slot 0", 0),
                ("urb slot 0", 1)
            ],
            "seed {seed}"
        );
        let control = a
            .records
            .iter()
            .find(|r| r.message == "urb slot 0")
            .unwrap();
        assert_eq!(control.values, vec![g(seed, 4, 0) as u64; 4]);
        assert_eq!(a.records, b.records, "seed {seed}");
    }
    // An OWord write with per-slot offsets (a control data header past 128 bits).
    let per_slot = vec4_stage_shader(
        "GS",
        "",
        "    mov(8) m1:UD, g0.xyzw<8,8,1>:UD NoMask\n\
         \x20   mov(8) m2:UD, g4.xxxx<4,4,1>:UD NoMask\n\
         \x20   gs_urb_write(8) (sfid: 6) (desc: 0x04094001) (urb_offset: 0) (null):UD\n\
         \x20   gs_thread_end(8) (null):UD\n",
    );
    let e = run(&per_slot, 0, None).unwrap_err();
    assert!(e.msg.contains("not modelled"), "{}", e.msg);
}

/// A dual-instanced vec4 geometry shader (it reads `get_instance_id`, so Mesa compiled
/// it for several invocations: DUAL_INSTANCE on gen7): its attributes are two slots a
/// register after the payload (`attr1` is g1's second half, `attr2` g2's first), read by
/// both halves alike (vertical stride 0), as Mesa's final code reads them; reading
/// `attr1` from g1's first half is caught.
#[test]
fn vec4_dual_instanced_gs_attributes_are_two_a_register() {
    use eubatch_sim::crosscheck::{crosscheck, Verdict};
    let start = vec4_stage_shader(
        "GS",
        "vgrf0 1x32\n",
        "    get_instance_id(8) vgrf0:D\n\
         \x20   mov(8) m1:UD, g0.xyzw<8,8,1>:UD NoMask\n\
         \x20   set_write_offset(8) m1:UD, 0u, 1u\n\
         \x20   add(8) m2:D, attr1.xyzw:D, vgrf0.xxxx:D\n\
         \x20   mov(8) m3:D, attr2.xyzw:D\n\
         \x20   gs_urb_write(8) (null):UD\n\
         \x20   mov(8) m1:UD, g0.xyzw<8,8,1>:UD NoMask\n\
         \x20   gs_thread_end(8) (null):UD\n",
    );
    let final_code = |attr1: &str| {
        vec4_stage_shader(
            "GS",
            "vgrf0 1x32\n",
            &format!(
                "    get_instance_id(8) g30<4,4,1>:D\n\
                 \x20   mov(8) g19<4,4,1>:UD, g0.xyzw<8,8,1>:UD NoMask\n\
                 \x20   set_write_offset(8) g19<4,4,1>:UD, 0u, 1u\n\
                 \x20   add(8) g20<4,4,1>:D, {attr1}.xyzw<0,4,1>:D, g30.xxxx<4,4,1>:D\n\
                 \x20   mov(8) g21<4,4,1>:D, g2.xyzw<0,4,1>:D\n\
                 \x20   send(8) (mlen: 3) (sfid: 6) (desc: 0x06094000) (null):F, g19.xyzw<4,4,1>:UD\n\
                 \x20   mov(8) g19<4,4,1>:UD, g0.xyzw<8,8,1>:UD NoMask\n\
                 \x20   send(8) (mlen: 1) (sfid: 6) (desc: 0x82084000) (EOT) (null):F, g19.xyzw<4,4,1>:UD\n"
            ),
        )
    };
    assert_eq!(
        crosscheck(&start, &final_code("g1.16"), 0..4, 100_000),
        Verdict::Agree
    );
    assert!(matches!(
        crosscheck(&start, &final_code("g1"), 0..4, 100_000),
        Verdict::Differ { .. }
    ));
    // Both halves read the same attributes: slot 1 is the same for both.
    let out = run(&start, 0, None).unwrap_or_else(|e| panic!("{e}"));
    let slot1: Vec<&Vec<u64>> = out
        .records
        .iter()
        .filter(|r| r.message == "urb slot 1")
        .map(|r| &r.values)
        .collect();
    assert_eq!(slot1.len(), 2);
    assert_eq!(slot1[0], slot1[1]);
}

/// `pull_constant_load_gfx7` from a surface in a register: dword 0 of the register, its
/// low 8 bits (the generator's `and(1) a0 surf 0xff`), so 0x103 loads from surface 3;
/// an undefined surface gives an undefined result.
#[test]
fn vec4_pull_constant_from_a_register_surface() {
    let vgrfs = "vgrf0 1x32\nvgrf1 1x32\nvgrf2 1x32\n";
    let body = "    mov(8) vgrf0.x:UD, 259u\n\
         \x20   mov(8) vgrf2.x:UD, 32u\n\
         \x20   pull_constant_load_gfx7(8) vgrf1:F, vgrf0.xxxx:UD, vgrf2.xxxx:UD\n\
         \x20   mov(8) m2:F, vgrf1.xyzw:F\n";
    let s = vec4_shader(vgrfs, body);
    for seed in 0..3 {
        let out = run(&s, seed, None).unwrap_or_else(|e| panic!("{e}"));
        let want: Vec<u64> = (0..4)
            .map(|c| eubatch_sim::inputs::constant_dword(seed, 3, 8 + c) as u64)
            .collect();
        for h in 0..2 {
            assert_eq!(out.records[h].values, want, "seed {seed} half {h}");
            assert_eq!(out.records[h].undefined, 0);
        }
    }
    let undefined = vec4_shader(vgrfs, &body.replace("    mov(8) vgrf0.x:UD, 259u\n", ""));
    let out = run(&undefined, 0, None).unwrap();
    assert_eq!(out.records[0].undefined, 0xf);
}

/// The records of a run with message `message`, in order.
fn records<'a>(out: &'a eubatch_sim::Outputs, message: &str) -> Vec<&'a eubatch_sim::Record> {
    out.records
        .iter()
        .filter(|r| r.message == message)
        .collect()
}

/// The vec4 (SIMD4x2) `untyped_atomic`: each half in order at the address in its `x`
/// (both 8 here), the old value back in `x`, the other components undefined; `add` takes
/// its operand from the payload's second register.
#[test]
fn vec4_untyped_atomics_run_per_half() {
    let vgrfs = "vgrf0 2x32\nvgrf1 1x32\nvgrf2 1x32\n";
    let body = "    mov(8) vgrf0.x:UD, 8u\n\
         \x20   mov(8) vgrf0+1.0.x:UD, 10u\n\
         \x20   untyped_atomic(8) vgrf1:UD, vgrf0.xyzw:UD, 2u, 5u\n\
         \x20   untyped_atomic(8) vgrf2:UD, vgrf0.xyzw:UD, 2u, 7u\n\
         \x20   mov(8) m2:UD, vgrf2.xyzw:UD\n";
    let s = vec4_shader(vgrfs, body);
    for seed in 0..3 {
        let out = run(&s, seed, None).unwrap_or_else(|e| panic!("{e}"));
        let atomics = records(&out, "memory_atomic");
        assert_eq!(atomics.len(), 4);
        let old = (atomics[0].values[2] as u32).wrapping_sub(1);
        let news: Vec<u32> = atomics.iter().map(|r| r.values[2] as u32).collect();
        assert_eq!(
            news,
            vec![
                old.wrapping_add(1),
                old.wrapping_add(2),
                old.wrapping_add(12),
                old.wrapping_add(22)
            ],
            "seed {seed}"
        );
        assert!(atomics.iter().all(|r| r.values[..2] == [2, 8]));
        let slot = records(&out, "urb slot 0");
        assert_eq!(slot[0].values[0] as u32, old.wrapping_add(2));
        assert_eq!(slot[1].values[0] as u32, old.wrapping_add(12));
        assert_eq!(slot[0].undefined, 0b1110);
    }
}

/// The vec4 (SIMD4x2) `untyped_surface_read`: each half reads `n` dwords from the address
/// in its `x` into its first `n` components, the others undefined; it reads what an
/// atomic before it left (both halves incremented the dword at 8) and the seeded words
/// after it.
#[test]
fn vec4_untyped_surface_reads_run_per_half() {
    let vgrfs = "vgrf0 2x32\nvgrf1 1x32\nvgrf2 1x32\n";
    let body = "    mov(8) vgrf0.x:UD, 8u\n\
         \x20   untyped_atomic(8) vgrf1:UD, vgrf0.xyzw:UD, 2u, 5u\n\
         \x20   untyped_surface_read(8) vgrf2:UD, vgrf0.xyzw:UD, 2u, 3u\n\
         \x20   mov(8) m2:UD, vgrf2.xyzw:UD\n";
    let s = vec4_shader(vgrfs, body);
    for seed in 0..3 {
        let out = run(&s, seed, None).unwrap_or_else(|e| panic!("{e}"));
        let atomics = records(&out, "memory_atomic");
        let last = atomics[1].values[2];
        let slot = records(&out, "urb slot 0");
        for h in 0..2 {
            assert_eq!(slot[h].values[0], last, "seed {seed} half {h}");
            assert_eq!(slot[h].undefined, 0b1000, "seed {seed} half {h}");
            assert_eq!(slot[h].values[1..3], slot[0].values[1..3]);
        }
    }
    let four = vec4_shader(vgrfs, &body.replace("2u, 3u", "2u, 5u"));
    assert!(run(&four, 0, None).is_err(), "a channel count of 5");
}

/// The final code's SIMD4x2 untyped atomic `send` (Haswell, data cache 1, message type 3:
/// the generator's `brw_untyped_atomic` in Align16) does what the start IR's
/// `untyped_atomic` does: the same atomics per half in the same order, the same records,
/// the old value in `x`. Descriptors as Mesa 22.3 prints them: `inc` with return
/// (0x0210e500: mlen 1, rlen 1) and `add` with return (0x0410e700: mlen 2, the operand
/// in the second payload register).
#[test]
fn vec4_untyped_atomic_sends_match_the_start_ir() {
    let vgrfs = "vgrf0 2x32\nvgrf1 1x32\nvgrf2 1x32\n";
    let start = vec4_shader(
        vgrfs,
        "    mov(8) vgrf0.x:UD, 8u\n\
         \x20   mov(8) vgrf0+1.0.x:UD, 10u\n\
         \x20   untyped_atomic(8) vgrf1:UD, vgrf0.xyzw:UD, 2u, 5u\n\
         \x20   untyped_atomic(8) vgrf2:UD, vgrf0.xyzw:UD, 2u, 7u\n\
         \x20   mov(8) m2.x:UD, vgrf2.xxxx:UD\n\
         \x20   mov(8) m2.y:UD, vgrf1.xxxx:UD\n",
    );
    let send = vec4_shader(
        "",
        "    mov(8) g10.x<4,4,1>:UD, 8u\n\
         \x20   mov(8) g11.x<4,4,1>:UD, 10u\n\
         \x20   send(8) (mlen: 1) (sfid: 12) (desc: 0x0210e502) g13.x<4,4,1>:UD, g10.xyzw<4,4,1>:UD\n\
         \x20   send(8) (mlen: 2) (sfid: 12) (desc: 0x0410e702) g14.x<4,4,1>:UD, g10.xyzw<4,4,1>:UD\n\
         \x20   mov(8) m2.x:UD, g14.xxxx<4,4,1>:UD\n\
         \x20   mov(8) m2.y:UD, g13.xxxx<4,4,1>:UD\n",
    );
    for seed in 0..3 {
        let a = run(&start, seed, None).unwrap_or_else(|e| panic!("{e}"));
        let b = run(&send, seed, None).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            a.records
                .iter()
                .filter(|r| r.message == "memory_atomic")
                .count(),
            4
        );
        assert_eq!(a.records, b.records, "seed {seed}");
    }
    // Ivybridge's SIMD8 form of the message in vec4 code is not modelled.
    let simd8 = vec4_shader(
        "",
        "    send(8) (mlen: 1) (sfid: 12) (desc: 0x0210f502) g13.x<4,4,1>:UD, g10.xyzw<4,4,1>:UD\n",
    );
    let e = run(&simd8, 0, None).unwrap_err();
    assert!(e.msg.contains("not modelled"), "{}", e.msg);
}

/// The final code's SIMD4x2 untyped surface read `send` (message type 1, SIMD mode 0:
/// `brw_untyped_surface_read` in Align16; 0x02104000 reads four components, 0x02104e00
/// one) reads what the start IR's `untyped_surface_read` reads, after an atomic.
#[test]
fn vec4_untyped_surface_read_sends_match_the_start_ir() {
    let vgrfs = "vgrf0 2x32\nvgrf1 1x32\nvgrf2 1x32\nvgrf3 1x32\n";
    let start = vec4_shader(
        vgrfs,
        "    mov(8) vgrf0.x:UD, 8u\n\
         \x20   untyped_atomic(8) vgrf1:UD, vgrf0.xyzw:UD, 2u, 5u\n\
         \x20   untyped_surface_read(8) vgrf2:UD, vgrf0.xyzw:UD, 2u, 4u\n\
         \x20   untyped_surface_read(8) vgrf3:UD, vgrf0.xyzw:UD, 2u, 1u\n\
         \x20   mov(8) m2:UD, vgrf2.xyzw:UD\n\
         \x20   mov(8) m3.x:UD, vgrf3.xxxx:UD\n",
    );
    let send = vec4_shader(
        "",
        "    mov(8) g10.x<4,4,1>:UD, 8u\n\
         \x20   send(8) (mlen: 1) (sfid: 12) (desc: 0x0210e502) g13.x<4,4,1>:UD, g10.xyzw<4,4,1>:UD\n\
         \x20   send(8) (mlen: 1) (sfid: 12) (desc: 0x02104002) g14<4,4,1>:UD, g10.xyzw<4,4,1>:UD\n\
         \x20   send(8) (mlen: 1) (sfid: 12) (desc: 0x02104e02) g15<4,4,1>:UD, g10.xyzw<4,4,1>:UD\n\
         \x20   mov(8) m2:UD, g14.xyzw<4,4,1>:UD\n\
         \x20   mov(8) m3.x:UD, g15.xxxx<4,4,1>:UD\n",
    );
    for seed in 0..3 {
        let a = run(&start, seed, None).unwrap_or_else(|e| panic!("{e}"));
        let b = run(&send, seed, None).unwrap_or_else(|e| panic!("{e}"));
        assert!(a.records.iter().any(|r| r.message == "urb slot 0"));
        assert_eq!(a.records, b.records, "seed {seed}");
    }
}

/// A vec4 `txl` whose texture (5) and sampler (17) are in registers, as Mesa's
/// `nir_emit_texture` leaves a run-time index (Haswell: a message header in m2, the
/// parameters from m3), samples what the final code's `sample_l` send with a header
/// samples: the header g0 with its Sampler State Pointer (dword 3) moved on by 16 sampler
/// states (`brw_adjust_sampler_state_pointer`), the descriptor's sampler 17 & 15 = 1
/// (desc 0x06182105: mlen 3, rlen 1, header, sample_l, SIMD4x2, surface 5). Without the
/// pointer moved on the send reads sampler 1, and with another texture index the `txl`
/// reads another surface: both differ. A header masking response components off is not
/// modelled.
#[test]
fn vec4_txl_with_run_time_indices_matches_a_send_with_a_header() {
    let vgrfs = "vgrf0 1x32\nvgrf1 1x32\nvgrf2 1x32\n";
    let params = "    mov(8) m3.x:D, 1061158912d\n\
         \x20   mov(8) m3.y:D, 1048576000d\n\
         \x20   mov(8) m3.zw:D, 0d\n\
         \x20   mov(8) m4:D, 0d\n";
    let start_body = format!(
        "    mov(8) vgrf0.x:UD, 5u\n\
         \x20   mov(8) vgrf1.x:UD, 17u\n\
         {params}\
         \x20   txl(8) vgrf2:F, (null):UD, vgrf0.xxxx:UD, vgrf1.xxxx:UD\n\
         \x20   mov(8) m2:F, vgrf2.xyzw:F\n"
    );
    let start = vec4_shader(vgrfs, &start_body);
    let header = "    mov(8) g114<4,4,1>:UD, g0.xyzw<4,4,1>:UD NoMask\n\
         \x20   add(8) g114.w<4,4,1>:UD, g0.wwww<4,4,1>:UD, 256u NoMask\n";
    let send_body = |header: &str| {
        format!(
            "{header}{params}\
             \x20   send(8) (mlen: 3) (header: 1) (sfid: 2) (desc: 0x06182105) g20<4,4,1>:UD, g114.xyzw<4,4,1>:UD\n\
             \x20   mov(8) m2:F, g20.xyzw<4,4,1>:F\n"
        )
    };
    let send = vec4_shader("", &send_body(header));
    for seed in 0..3 {
        let a = run(&start, seed, None).unwrap_or_else(|e| panic!("{e}"));
        let b = run(&send, seed, None).unwrap_or_else(|e| panic!("{e}"));
        let slot = records(&a, "urb slot 0");
        assert_eq!(slot.len(), 2);
        assert!(slot.iter().all(|r| r.undefined == 0), "seed {seed}");
        assert_eq!(a.records, b.records, "seed {seed}");
    }
    let sampler_1 = vec4_shader(
        "",
        &send_body(&format!("{}\n", header.lines().next().unwrap())),
    );
    let texture_6 = vec4_shader(vgrfs, &start_body.replace("5u", "6u"));
    for seed in 0..3 {
        let a = run(&start, seed, None).unwrap();
        assert_ne!(a.records, run(&sampler_1, seed, None).unwrap().records);
        assert_ne!(a.records, run(&texture_6, seed, None).unwrap().records);
    }
    let masked = vec4_shader(
        "",
        &send_body(&format!(
            "{header}    mov(8) g114.z<4,4,1>:UD, 4096u NoMask\n"
        )),
    );
    let e = run(&masked, 0, None).unwrap_err();
    assert!(e.msg.contains("not modelled"), "{}", e.msg);
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
    // A seed whose eight pixels are all lit: the framebuffer write records every channel.
    let seed = (0..)
        .find(|&s| eubatch_sim::inputs::pixel_mask(s, 0, 8) == 0xff)
        .unwrap();
    let out = run(&s, seed, None).unwrap_or_else(|e| panic!("{e}"));
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
    // The ballot is written in every channel (a scalar destination is Mesa's scalar group,
    // NoMask); the reduction and scans in the live ones only.
    for (i, v) in r.iter().enumerate().skip(3) {
        assert_eq!(v, &vec![6, 99, 99, 99], "disabled channel {i}");
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
