//! The vec4 back end's code in the simulator (issue 19, step 1): every vec4 start dump of
//! shaderdb-hsw and piglit-fp64-hsw (Haswell vertex and geometry shaders, `VS-`/`GS-`
//! dumps without a width) is run on 4 seeds, and cross-checked against Mesa's final vec4
//! code (`asm.txt`). Prints how many simulate and how many agree, differ or cannot be
//! compared yet, and holds the counts reached as floors: fewer simulating or agreeing, or
//! any new difference, fails. Skipped (with a message) where the corpora are absent.
//! Run in release mode.

mod common;
#[path = "../../ir/tests/common/mod.rs"]
mod corpora;

use common::eubatch;
use eubatch_ir::import::{discover, load_file, InputKind};
use eubatch_ir::Gen;

/// Step limit per run: far above what the corpora's vec4 shaders need.
const STEPS: u64 = 1_000_000;

/// (simulating, agree) floors per corpus, and the pairs known to differ (each a path
/// fragment with the reason): any other difference fails.
struct Floor {
    corpus: &'static str,
    simulate: usize,
    agree: usize,
    known_differences: &'static [&'static str],
}

const FLOORS: [Floor; 2] = [
    Floor {
        corpus: "shaderdb-hsw",
        // All 507 vec4 VS, the two with `txl` and the one with `txs` among them.
        simulate: 507,
        agree: 507,
        known_differences: &[],
    },
    Floor {
        corpus: "piglit-fp64-hsw",
        // All 757 VS and 371 GS, the VS and the GS with `mov_for_scratch` and virtual
        // scratch reads and writes among them.
        simulate: 1128,
        agree: 1128,
        known_differences: &[],
    },
];

/// Vec4 start dumps of `dir` that run to completion on 4 seeds, of how many.
fn simulate(dir: &std::path::Path) -> (usize, usize, Vec<String>) {
    let files = discover(
        &[dir.to_path_buf()],
        |k| matches!(k, InputKind::Mesa(d) if d.is_start() && d.width.is_none()),
    )
    .unwrap();
    let mut ran = 0;
    let mut reasons = std::collections::BTreeMap::<String, usize>::new();
    for path in &files {
        let shader = load_file(path, &path.to_string_lossy(), Some(Gen::Gen75)).unwrap();
        let stopped =
            (0..4).find_map(|seed| eubatch_sim::run_limited(&shader, seed, STEPS, None).err());
        match stopped {
            None => ran += 1,
            Some(e) => *reasons.entry(eubatch_sim::reason(&e)).or_default() += 1,
        }
    }
    let reasons = reasons
        .into_iter()
        .map(|(r, n)| format!("{n:6}  {r}"))
        .collect();
    (ran, files.len(), reasons)
}

/// (pairs, agree, differ, cannot compare) of the vec4 stages' lines (`VS`, `GS`) of a
/// crosscheck's output, and the `differ:` lines.
fn vec4_verdicts(out: &str) -> ((usize, usize, usize, usize), Vec<&str>) {
    let mut t = (0, 0, 0, 0);
    for l in out
        .lines()
        .filter(|l| l.starts_with("VS ") || l.starts_with("GS "))
    {
        let nums: Vec<usize> = l
            .split(|c: char| !c.is_ascii_digit() && c != '.')
            .filter(|w| !w.is_empty() && !w.contains('.'))
            .map(|w| w.parse().unwrap())
            .collect();
        // `VS      507 pairs:    503 agree (99.2%),     1 differ,      3 not modelled yet`
        t.0 += nums[0];
        t.1 += nums[1];
        t.2 += nums[2];
        t.3 += nums[3];
    }
    let differ = out.lines().filter(|l| l.starts_with("differ: ")).collect();
    (t, differ)
}

#[test]
fn vec4_start_dumps_simulate_and_agree_with_mesa() {
    for f in &FLOORS {
        let Some(dir) = corpora::corpus(f.corpus) else {
            continue;
        };
        let (ran, total, reasons) = simulate(&dir);
        eprintln!(
            "{}: {ran} of {total} vec4 start dumps simulate on 4 seeds\n{}",
            f.corpus,
            reasons.join("\n")
        );
        let (_, out) = eubatch(&[
            "crosscheck",
            dir.to_str().unwrap(),
            "--target",
            "hsw",
            "-j",
            "2",
            "--verbose",
        ]);
        let ((pairs, agree, differ, unchecked), lines) = vec4_verdicts(&out);
        eprintln!(
            "{}: {pairs} vec4 pairs cross-checked: {agree} agree, {differ} differ, {unchecked} cannot be compared yet",
            f.corpus
        );
        let unknown: Vec<&&str> = lines
            .iter()
            .filter(|l| l.contains("-GLSL") && !f.known_differences.iter().any(|k| l.contains(k)))
            .filter(|l| l.contains("/VS-") || l.contains("/GS-"))
            .collect();
        assert!(
            unknown.is_empty(),
            "{}: new differences:\n{unknown:#?}",
            f.corpus
        );
        assert!(
            ran >= f.simulate,
            "{}: only {ran} vec4 start dumps simulate (floor {})",
            f.corpus,
            f.simulate
        );
        assert!(
            agree >= f.agree,
            "{}: only {agree} vec4 pairs agree (floor {}):\n{out}",
            f.corpus,
            f.agree
        );
        assert!(differ <= f.known_differences.len(), "{out}");
    }
}

/// A vec4 pair of the example corpus agrees, and the cross-check catches a wrong swizzle or
/// writemask planted in Mesa's final code: swizzles and writemasks are modelled, not
/// passed over.
/// The vertex shader of the test in `dir`: its start IR and Mesa's final vec4 code, read
/// from the listing, checked to agree in the simulator before a planted error changes one.
fn agreeing_vertex_shaders(dir: &std::path::Path) -> (eubatch_ir::Shader, eubatch_ir::Shader) {
    use eubatch_codegen::asm::read_asm;
    use eubatch_sim::crosscheck::{crosscheck, Verdict};
    let start = load_file(&dir.join("VS-GLSL1-00-00-start"), "start", Some(Gen::Gen75)).unwrap();
    let text = std::fs::read_to_string(dir.join("asm.txt")).unwrap();
    let programs = read_asm(&text, "asm.txt", Gen::Gen75).unwrap();
    let vs = programs
        .into_iter()
        .find(|p| p.vec4 && p.stage == eubatch_ir::Stage::Vs)
        .unwrap()
        .shader;
    assert_eq!(crosscheck(&start, &vs, 0..4, STEPS), Verdict::Agree);
    (start, vs)
}

#[test]
fn a_planted_swizzle_or_writemask_error_is_caught() {
    use eubatch_sim::crosscheck::{crosscheck, Verdict};
    let (start, vs) = agreeing_vertex_shaders(&common::root().join(
        "examples/corpus/piglit-fp64-hsw/generated_tests/spec/arb_gpu_shader_fp64/execution/built-in-functions/gs-abs-dvec2",
    ));
    let vs = &vs;
    // `mov(8) g116<1>F g1<4>F`: the attribute into the second VUE slot (m4).
    let mov = vs
        .layout
        .insts()
        .find(|&i| {
            vs.insts.dst[i].file == eubatch_ir::RegFile::FixedGrf && vs.insts.dst[i].nr == 116
        })
        .unwrap();
    // Its source read as `.yxzw`.
    let mut swizzled = vs.clone();
    swizzled.srcs_mut(mov)[0].region.swizzle = 0b11_10_00_01;
    // Its destination written as `.xyz` (w keeps what g116 held).
    let mut masked = vs.clone();
    masked.insts.dst[mov].region.swizzle = 0b0111;
    for (what, broken) in [("swizzle", swizzled), ("writemask", masked)] {
        match crosscheck(&start, &broken, 0..4, STEPS) {
            Verdict::Differ { what: w, .. } => assert!(w.contains("urb slot"), "{what}: {w}"),
            v => panic!("the planted {what} error was not caught: {v:?}"),
        }
    }
}

/// The vec4 sampler messages are compared, not passed over: tesseract/136's `txl` agrees
/// with Mesa's `sample_l` send, and reading the LOD (m3.x) from another register makes the
/// pair differ. Skipped where shaderdb-hsw is absent.
#[test]
fn a_planted_txl_parameter_error_is_caught() {
    use eubatch_sim::crosscheck::{crosscheck, Verdict};
    let Some(corpus) = corpora::corpus("shaderdb-hsw") else {
        return;
    };
    let (start, vs) = agreeing_vertex_shaders(&corpus.join("shaders/tesseract/136"));
    let vs = &vs;
    // `mov(8) m3.x:F, vgrf1.xxxx:F`: the LOD; read vgrf4 (4.0) instead.
    let lod = start
        .layout
        .insts()
        .find(|&i| {
            let d = start.insts.dst[i];
            d.file == eubatch_ir::RegFile::Mrf && d.nr == 3
        })
        .unwrap();
    let mut broken = start.clone();
    broken.srcs_mut(lod)[0].nr = 4;
    match crosscheck(&broken, vs, 0..4, STEPS) {
        Verdict::Differ { .. } => {}
        v => panic!("the planted LOD error was not caught: {v:?}"),
    }
}

/// A vec4 texture lookup indexed at run time is compared, not passed over:
/// vs-non-const-index's `txl` (texture and sampler from the start IR's `emit_uniformize`
/// broadcasts) agrees with Mesa's indirect `sample_l` send with a header, and a sampler
/// index one past the texture's (the sampler's `add` base 0 made 1) makes the pair differ.
/// Skipped where piglit-coverage-hsw is absent.
#[test]
fn a_planted_run_time_sampler_index_error_is_caught() {
    use eubatch_sim::crosscheck::{crosscheck, Verdict};
    let Some(corpus) = corpora::corpus("piglit-coverage-hsw") else {
        return;
    };
    let (start, vs) = agreeing_vertex_shaders(
        &corpus.join("tests/spec/arb_arrays_of_arrays/execution/sampler/vs-non-const-index"),
    );
    let txl = start
        .layout
        .insts()
        .find(|&i| start.insts.opcode[i] == eubatch_ir::Opcode::Txl)
        .unwrap();
    let sampler = start.srcs(txl)[2];
    assert_eq!(
        sampler.file,
        eubatch_ir::RegFile::Vgrf,
        "the sampler is a register"
    );
    // The `add` whose value the sampler's broadcast reads (two instructions before it).
    let order: Vec<_> = start.layout.insts().collect();
    let bcast = order
        .iter()
        .position(|&i| {
            start.insts.opcode[i] == eubatch_ir::Opcode::Broadcast
                && start.insts.dst[i].nr == sampler.nr
        })
        .unwrap();
    let add = order[bcast - 2];
    assert_eq!(start.insts.opcode[add], eubatch_ir::Opcode::Add);
    let mut broken = start.clone();
    broken.srcs_mut(add)[1] = eubatch_ir::Operand::imm(eubatch_ir::Type::UD, 1);
    match crosscheck(&broken, &vs, 0..4, STEPS) {
        Verdict::Differ { .. } => {}
        v => panic!("the planted sampler index error was not caught: {v:?}"),
    }
}
