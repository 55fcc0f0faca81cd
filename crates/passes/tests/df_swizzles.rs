//! The DF swizzle lowering (`lower::df_swizzles`, seed 000) proved in the simulator, for
//! every one of the 256 DF swizzles on gen7.5 (Haswell), gen7 (Ivybridge) and gen8, with
//! every writemask at the full level and random ones at the others, one- and two-source
//! (the second source a register or a push constant).
//!
//! For each case: the unlowered instruction, run on VGRFs with the simulator's logical
//! semantics of an Align16 DF instruction (64-bit swizzles and writemasks, a dvec4 per
//! vertex), is the reference. The lowered sequence is run twice: as IR (the split is
//! right) and in hardware form — each operand a fixed register with the region the target
//! rules give for the components its instruction writes (`df_align16::source_region`:
//! OWord offset, `vstride` 4 or 0, 32-bit swizzle pairs), run with the simulator's
//! hardware semantics of DF regions (rows of 16 bytes, gen7's second half one register
//! on whatever the `vstride`, gen8's following the region). Every lowered instruction
//! must have a legal writemask and a region for every source; the destination's two
//! registers must match the reference's. Inputs are seeded random bits.

use eubatch_ir::df_align16::{self as rules, DfFile};
use eubatch_ir::text::parse_shader;
use eubatch_ir::{Builder, Gen, Inst, Operand, RegFile, Region, Shader, Type};
use eubatch_passes::lower::df_swizzles::{lower, Level};

const XYZW: [char; 4] = ['x', 'y', 'z', 'w'];

fn swizzle_text(s: u8) -> String {
    (0..4)
        .map(|j| XYZW[((s >> (2 * j)) & 3) as usize])
        .collect()
}

fn mask_text(m: u8) -> String {
    if m == 0xf {
        return String::new();
    }
    let s: String = (0..4)
        .filter(|j| m & (1 << j) != 0)
        .map(|j| XYZW[j])
        .collect();
    format!(".{s}")
}

const PROLOGUE_LEN: usize = 6;

/// The shader text: inputs into vgrf0 (a), vgrf1 (b) and vgrf2 (the destination's old
/// value), then `body`, then the destination's two registers into the URB (m2, m3).
fn text(gen: Gen, body: &str, epilogue: &str) -> String {
    format!(
        "shader \"t\" stage VS width 8 target {} backend vec4\n\
         vgrf0 1x64\nvgrf1 1x64\nvgrf2 1x64\n\
         block0:\n\
         \x20   mov(8) vgrf0:UD, attr0.xyzw:UD\n\
         \x20   mov(8) vgrf0+1.0:UD, attr1.xyzw:UD\n\
         \x20   mov(8) vgrf1:UD, attr2.xyzw:UD\n\
         \x20   mov(8) vgrf1+1.0:UD, attr3.xyzw:UD\n\
         \x20   mov(8) vgrf2:UD, attr4.xyzw:UD\n\
         \x20   mov(8) vgrf2+1.0:UD, attr5.xyzw:UD\n\
         {body}{epilogue}\
         \x20   vs_urb_write(8) (null):UD\n",
        gen.name()
    )
}

const LOGICAL_OUT: &str = "    mov(8) m2:UD, vgrf2.xyzw:UD\n    mov(8) m3:UD, vgrf2+1.0.xyzw:UD\n";

/// The second source of a two-source case: `vgrf1` or the push constant `u0` (a dvec4
/// in slots u0, u1, the same for both vertices).
#[derive(Copy, Clone, Debug)]
enum Second {
    Grf(u8),
    Uniform(u8),
}

/// The case's instruction: `mov` of `a` or `add` of `a` and `b`.
fn instruction(wm: u8, sa: u8, sb: Option<Second>) -> String {
    match sb {
        Some(Second::Uniform(sb)) => format!(
            "    add(8) vgrf2{}:DF, vgrf0.{}:DF, u0.{}:DF\n",
            mask_text(wm),
            swizzle_text(sa),
            swizzle_text(sb)
        ),
        None => format!(
            "    mov(8) vgrf2{}:DF, vgrf0.{}:DF\n",
            mask_text(wm),
            swizzle_text(sa)
        ),
        Some(Second::Grf(sb)) => format!(
            "    add(8) vgrf2{}:DF, vgrf0.{}:DF, vgrf1.{}:DF\n",
            mask_text(wm),
            swizzle_text(sa),
            swizzle_text(sb)
        ),
    }
}

/// Fixed register of VGRF `nr`'s register `r` in the hardware form: g10 + 2 nr + r.
fn fixed_nr(nr: u32, offset: u32) -> u32 {
    10 + 2 * nr + offset / 32
}

/// `op` of a lowered instruction (writing components `g`, compressed or not) as the
/// hardware reads it.
fn to_hw(op: &Operand, g: u8, compressed: bool, gen: Gen, dst: bool) -> Result<Operand, String> {
    let (nr, file) = match op.file {
        RegFile::Vgrf => (fixed_nr(op.nr, op.offset), DfFile::Grf),
        // The push constant's register (g16; g17 holds other data, so that a second half
        // read one register on is wrong).
        RegFile::Uniform if op.nr == 0 && op.offset == 0 && !dst => (16, DfFile::Uniform),
        _ => return Err(format!("a lowered operand in {:?}", op.file)),
    };
    if dst {
        let mut o = Operand::fixed(nr, op.offset % 32, Type::DF, Region::new(4, 4, 1));
        o.region.swizzle = op.region.swizzle & 0xf;
        return Ok(o);
    }
    let r = rules::source_region(op.region.swizzle, g, compressed, gen, file).ok_or_else(|| {
        format!(
            "no region reads .{} for the components {g:#06b} (compressed: {compressed})",
            swizzle_text(op.region.swizzle)
        )
    })?;
    let mut o = Operand::fixed(
        nr,
        op.offset % 32 + 16 * r.oword as u32,
        Type::DF,
        Region::new(r.vstride, 2, 1),
    );
    o.region.swizzle = r.hw_swizzle();
    o.mods = op.mods;
    Ok(o)
}

/// The lowered shader's DF instructions in hardware form, inserted into a shader that
/// copies the inputs into g10..g15 and writes g14, g15 out.
fn hardware_form(lowered: &Shader, gen: Gen) -> Result<Shader, String> {
    let copies = "    mov(8) g10<4,4,1>:UD, vgrf0.xyzw:UD\n    mov(8) g11<4,4,1>:UD, vgrf0+1.0.xyzw:UD\n\
                  \x20   mov(8) g12<4,4,1>:UD, vgrf1.xyzw:UD\n    mov(8) g13<4,4,1>:UD, vgrf1+1.0.xyzw:UD\n\
                  \x20   mov(8) g14<4,4,1>:UD, vgrf2.xyzw:UD\n    mov(8) g15<4,4,1>:UD, vgrf2+1.0.xyzw:UD\n\
                  \x20   mov(4) g16<4,4,1>:UD, u0.xyzw:UD group0\n    mov(4) g16.16<4,4,1>:UD, u1.xyzw:UD group4\n\
                  \x20   mov(8) g17<4,4,1>:UD, vgrf1.xyzw:UD\n";
    let out = "    mov(8) m2:UD, g14.xyzw<4,4,1>:UD\n    mov(8) m3:UD, g15.xyzw<4,4,1>:UD\n";
    let mut hw = parse_shader(&text(gen, copies, out)).map_err(|e| e.to_string())?;
    let insts: Vec<Inst> = lowered.layout.blocks[eubatch_ir::Block::from_usize(0)]
        .insts
        .clone();
    let body = &insts[PROLOGUE_LEN..insts.len() - 3];
    for (at, &i) in (PROLOGUE_LEN + 9..).zip(body) {
        let ctl = lowered.insts.control[i];
        let dst = lowered.insts.dst[i];
        let g = dst.region.swizzle & 0xf;
        if !rules::writemask_legal(g) {
            return Err(format!("illegal DF writemask {}", mask_text(g)));
        }
        let compressed = ctl.exec_size == 8;
        let d = to_hw(&dst, g, compressed, gen, true)?;
        let srcs = lowered
            .srcs(i)
            .iter()
            .map(|s| to_hw(s, g, compressed, gen, false))
            .collect::<Result<Vec<_>, _>>()?;
        let new = Builder::with_control(ctl).alu_sized(
            &mut hw,
            lowered.insts.opcode[i],
            d,
            &srcs,
            lowered.insts.size_written[i],
        );
        hw.layout.blocks[eubatch_ir::Block::from_usize(0)]
            .insts
            .insert(at, new);
    }
    Ok(hw)
}

/// Runs `s` on `seed` with the inputs typed as the reference uses them (the hardware form
/// reads the push constant as dwords to copy it, which would type it otherwise): the URB
/// records.
fn outputs(
    s: &Shader,
    seed: u64,
    profile: &eubatch_sim::profile::Profile,
) -> Result<eubatch_sim::Outputs, String> {
    eubatch_sim::run_profiled(s, seed, profile, 10_000, None).map_err(|e| e.to_string())
}

/// One case; `Err` says what is wrong. Returns the number of lowered instructions.
fn check(gen: Gen, level: Level, wm: u8, sa: u8, sb: Option<Second>) -> Result<usize, String> {
    let reference = parse_shader(&text(gen, &instruction(wm, sa, sb), LOGICAL_OUT))
        .map_err(|e| e.to_string())?;
    let mut lowered = reference.clone();
    lower(&mut lowered, level);
    let n = lowered.num_insts() - PROLOGUE_LEN - 3;
    // The hardware-form verifier's DF rules (df_align16::broken_rule) accept every
    // lowering, and at level `all` refuse exactly the instructions the pass splits: the
    // pass and the verifier read the same rules the same way.
    if let Some(e) = eubatch_ir::verify::hardware_form_errors(&lowered).first() {
        return Err(format!("lowered, not in hardware form: {e}"));
    }
    if level == Level::All {
        let refused = !eubatch_ir::verify::hardware_form_errors(&reference).is_empty();
        if refused != (n > 1) {
            return Err(format!(
                "the verifier {} the unlowered instruction, which the pass lowers to {n}",
                if refused { "refuses" } else { "accepts" }
            ));
        }
    }
    let hw = hardware_form(&lowered, gen)?;
    let profile = eubatch_sim::profile::Profile::of(&reference);
    for seed in 0..2 {
        let want = outputs(&reference, seed, &profile)?;
        for (what, s) in [("IR", &lowered), ("hardware form", &hw)] {
            let got = outputs(s, seed, &profile)?;
            if want.records != got.records {
                return Err(format!(
                    "{what} differs on seed {seed}: {:?}",
                    eubatch_sim::first_difference(&want, &got)
                ));
            }
        }
    }
    Ok(n)
}

// The random writemasks and swizzles.
mod rng;
use rng::Rng;

const GENS: [Gen; 3] = [Gen::Gen75, Gen::Gen7, Gen::Gen8];

#[test]
fn every_swizzle_and_writemask_lowers_to_what_the_hardware_reads() {
    let mut failures = Vec::new();
    for gen in GENS {
        for sa in 0..=255u8 {
            for wm in 1..16u8 {
                if let Err(e) = check(gen, Level::All, wm, sa, None) {
                    failures.push(format!(
                        "{gen} mov .{}{}: {e}",
                        swizzle_text(sa),
                        mask_text(wm)
                    ));
                }
            }
        }
    }
    assert_no_failures(&failures);
}

#[test]
fn every_level_with_random_writemasks_and_second_sources() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut failures = Vec::new();
    for gen in GENS {
        for level in Level::ALL {
            for sa in 0..=255u8 {
                let wm = (rng.next() % 15 + 1) as u8;
                let sb = match rng.next() % 3 {
                    0 => None,
                    1 => Some(Second::Grf(rng.next() as u8)),
                    _ => Some(Second::Uniform(rng.next() as u8)),
                };
                if let Err(e) = check(gen, level, wm, sa, sb) {
                    failures.push(format!(
                        "{gen} {} .{}{} {:?}: {e}",
                        level.name(),
                        swizzle_text(sa),
                        mask_text(wm),
                        sb
                    ));
                }
            }
        }
    }
    assert_no_failures(&failures);
}

/// Instruction counts for a full writemask on gen7.5, by class and level: each class's
/// own method gives the seed's count (A+ 1, A-/B 2, C+ 2, C- 3, D+ 2, D- 3, E 4), E only
/// gives 4 everywhere, Mesa's 1 for A+ and 4 otherwise. A pass that did nothing, or
/// scalarized everything at every level, fails here.
#[test]
fn class_methods_give_the_seeds_counts() {
    use eubatch_ir::df_align16::CLASS_TABLE;
    for s in 0..=255u8 {
        let class = CLASS_TABLE[s as usize];
        let want = match class.group() {
            "A+" => 1,
            "A-" | "B" | "C+" | "D+" => 2,
            "C-" | "D-" => 3,
            _ => 4,
        };
        let all = check(Gen::Gen75, Level::All, 0xf, s, None).unwrap();
        assert_eq!(all, want, ".{} {}", swizzle_text(s), class.name());
        assert_eq!(check(Gen::Gen75, Level::E, 0xf, s, None).unwrap(), 4);
        let mesa = check(Gen::Gen75, Level::Mesa, 0xf, s, None).unwrap();
        assert_eq!(mesa, if class.group() == "A+" { 1 } else { 4 });
    }
}

/// Fails with the number of failures and the first twenty of them.
fn assert_no_failures(failures: &[String]) {
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures[..failures.len().min(20)].join("\n")
    );
}
