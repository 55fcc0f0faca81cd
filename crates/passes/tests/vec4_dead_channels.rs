//! vec4 dead-channel elimination (`vec4_dead_channels`) proved in the simulator on random
//! vec4 shaders: 32-bit and DF ALU instructions with random writemasks and swizzles
//! (component-wise and cross-channel opcodes, flag writers and predicated writes, in
//! straight code, inside an `if` and inside a loop), over a few VGRFs that the URB write reads in part.
//! Each case runs through `vec4_dead_channels,dce` with the verifier and the simulator
//! comparing every pass that changed the shader with its input (2 seeds); the cases must
//! also, taken together, shrink writemasks and remove instructions (the pass is not
//! vacuous here). Deterministic: the cases come from a fixed xorshift sequence.

mod simulator;

use eubatch_ir::text::parse_shader;
use eubatch_passes::manager::{self, Checks, Stats};

mod rng;
use rng::Rng;

const XYZW: [char; 4] = ['x', 'y', 'z', 'w'];

fn swizzle(r: &mut Rng) -> String {
    (0..4).map(|_| XYZW[r.below(4) as usize]).collect()
}

fn mask(r: &mut Rng) -> String {
    let m = 1 + r.below(15) as u8;
    (0..4)
        .filter(|k| m & (1 << k) != 0)
        .map(|k| XYZW[k])
        .collect()
}

/// One random instruction: 32-bit on vgrf0..vgrf3, or DF on vgrf4, vgrf5.
fn instruction(r: &mut Rng) -> String {
    let f = |r: &mut Rng| r.below(4);
    if r.below(4) == 0 {
        let (d, a, b) = (4 + r.below(2), 4 + r.below(2), 4 + r.below(2));
        return match r.below(3) {
            0 => format!("    mov(8) vgrf{d}.{}:DF, vgrf{a}.{}:DF\n", mask(r), swizzle(r)),
            1 => format!(
                "    add(8) vgrf{d}.{}:DF, vgrf{a}.{}:DF, vgrf{b}.{}:DF\n",
                mask(r),
                swizzle(r),
                swizzle(r)
            ),
            _ => format!(
                "    cmp.l.f0.0(8) (null):F, vgrf{a}.{}:F, vgrf{b}.{}:F\n    (+f0.0) mov(8) vgrf{d}.{}:DF, vgrf{a}.{}:DF\n",
                swizzle(r),
                swizzle(r),
                mask(r),
                swizzle(r)
            ),
        };
    }
    let (d, a, b, c) = (f(r), f(r), f(r), f(r));
    match r.below(8) {
        0 | 1 => format!("    mov(8) vgrf{d}.{}:F, vgrf{a}.{}:F\n", mask(r), swizzle(r)),
        2 => format!(
            "    add(8) vgrf{d}.{}:F, vgrf{a}.{}:F, vgrf{b}.{}:F\n",
            mask(r),
            swizzle(r),
            swizzle(r)
        ),
        3 => format!(
            "    mad(8) vgrf{d}.{}:F, vgrf{a}.{}:F, vgrf{b}.{}:F, vgrf{c}.{}:F\n",
            mask(r),
            swizzle(r),
            swizzle(r),
            swizzle(r)
        ),
        4 => format!(
            "    dp4(8) vgrf{d}.{}:F, vgrf{a}.{}:F, vgrf{b}.{}:F\n",
            mask(r),
            swizzle(r),
            swizzle(r)
        ),
        5 => format!(
            "    dp3(8) vgrf{d}.{}:F, vgrf{a}.{}:F, vgrf{b}.{}:F\n",
            mask(r),
            swizzle(r),
            swizzle(r)
        ),
        6 => format!(
            "    cmp.l.f0.0(8) vgrf{d}.{}:F, vgrf{a}.{}:F, vgrf{b}.{}:F\n    (+f0.0) sel(8) vgrf{c}.{}:F, vgrf{a}.{}:F, vgrf{b}.{}:F\n",
            mask(r),
            swizzle(r),
            swizzle(r),
            mask(r),
            swizzle(r),
            swizzle(r)
        ),
        _ => format!(
            "    cmp.l.f0.0(8) (null):F, vgrf{a}.{}:F, vgrf{b}.{}:F\n    (+f0.0.{}) mov(8) vgrf{d}.{}:F, vgrf{c}.{}:F\n",
            swizzle(r),
            swizzle(r),
            XYZW[r.below(4) as usize],
            mask(r),
            swizzle(r)
        ),
    }
}

/// A random shader: every VGRF set from the attributes, random instructions (some inside
/// an `if` or a loop of three iterations), then parts of some VGRFs into the URB. Blocks
/// are split after parsing.
fn shader(r: &mut Rng) -> String {
    let mut t = String::from(
        "shader \"t\" stage VS width 8 target hsw backend vec4\n\
         vgrf0 1x32\nvgrf1 1x32\nvgrf2 1x32\nvgrf3 1x32\nvgrf4 1x64\nvgrf5 1x64\nvgrf6 1x32\n\
         block0:\n    mov(8) vgrf6:D, 0d\n",
    );
    for v in 0..4 {
        t += &format!("    mov(8) vgrf{v}:F, attr{v}.xyzw:F\n");
    }
    for v in 4..6 {
        t += &format!("    mov(8) vgrf{v}:UD, attr{}.xyzw:UD\n", 2 * v - 4);
        t += &format!("    mov(8) vgrf{v}+1.0:UD, attr{}.xyzw:UD\n", 2 * v - 3);
    }
    let n = 4 + r.below(10);
    // 0: straight code; 1: an `if` around the second half; 2: a loop around it.
    let region = r.below(3);
    for k in 0..n {
        if k == n / 2 {
            match region {
                1 => t += "    cmp.l.f0.0(8) (null):F, vgrf0.xyzw:F, vgrf1.xyzw:F\n    (+f0.0) if(8) (null):UD\n",
                2 => t += "    do(8) (null):UD\n",
                _ => {}
            }
        }
        t += &instruction(r);
    }
    match region {
        1 => t += "    endif(8) (null):UD\n",
        2 => t +=
            "    add(8) vgrf6:D, vgrf6.xyzw:D, 1d\n    cmp.ge.f0.0(8) (null):D, vgrf6.xyzw:D, 3d\n\
                  \x20   (+f0.0) break(8) (null):UD\n    while(8) (null):UD\n",
        _ => {}
    }
    // Outputs: parts of vgrf0..vgrf3 (32-bit swizzles) and of a DF VGRF.
    for (m, v) in [(2, r.below(4)), (3, r.below(4))] {
        t += &format!("    mov(8) m{m}.{}:F, vgrf{v}.{}:F\n", mask(r), swizzle(r));
    }
    let v = 4 + r.below(2);
    t += &format!(
        "    mov(8) vgrf{v}.{}:DF, vgrf{v}.{}:DF\n",
        mask(r),
        swizzle(r)
    );
    t += &format!("    mov(8) m4:UD, vgrf{v}.xyzw:UD\n    mov(8) m5:UD, vgrf{v}+1.0.xyzw:UD\n");
    t += "    vs_urb_write(8) (null):UD\n";
    t
}

#[test]
fn random_vec4_shaders_keep_their_outputs() {
    let steps = manager::parse("vec4_dead_channels,dce").unwrap();
    let k = manager::pass_index("vec4_dead_channels").unwrap();
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut failures, mut progress, mut checked, mut removed) = (Vec::new(), 0, 0, 0);
    for case in 0..2000 {
        let text = shader(&mut r);
        let mut original = match parse_shader(&text) {
            Ok(s) => s,
            Err(e) => panic!("case {case}: {e}\n{text}"),
        };
        let order = original.layout.order();
        original.layout = eubatch_ir::cfg::split_blocks(&order, |i| original.insts.opcode[i]);
        if let Some(e) = eubatch_ir::verify::verify(&original).first() {
            panic!("case {case}: the input does not verify: {e}\n{text}");
        }
        let mut s = original.clone();
        let check = simulator::check(2, &original);
        let mut checks = Checks {
            verify_ir: true,
            equivalence: Some(&check),
            after_pass: None,
        };
        let mut stats = Stats::new();
        match manager::run(&mut s, &steps, &mut checks, &mut stats) {
            Ok(_) => {}
            Err(e) => failures.push(format!(
                "case {case}: {e}\n{text}\n{}",
                eubatch_ir::text::print_shader(&s)
            )),
        }
        progress += stats.progress[k];
        checked += stats.checked[k];
        removed += original.num_insts() - s.num_insts();
    }
    eprintln!(
        "2000 random vec4 shaders: vec4_dead_channels changed {progress}, {checked} of them compared in the simulator; {removed} instructions removed with dce"
    );
    assert!(
        failures.is_empty(),
        "{} failures, the first:\n{}",
        failures.len(),
        failures[0]
    );
    assert!(
        progress > 500 && checked == progress,
        "{progress} {checked}"
    );
}
