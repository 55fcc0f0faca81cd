//! The Mesa cross-check: Mesa's start IR and Mesa's final code for it (asm.txt) compute the
//! same outputs in the simulator; a miscompile planted in the final code is caught; and over
//! the SKL corpus no pair disagrees and at least as many agree as when last raised.

use eubatch_codegen::asm::read_asm;
use eubatch_ir::import::load_file;
use eubatch_ir::text::{parse_shader, print_shader};
use eubatch_ir::Gen;
use eubatch_sim::crosscheck::{crosscheck, Verdict};

mod common;
#[path = "../../ir/tests/common/mod.rs"]
mod corpora;

use common::{eubatch, root};

/// (agree, differ) from the summary line.
fn counts(out: &str) -> (usize, usize) {
    let line = out
        .lines()
        .find(|l| l.starts_with("cross-checked"))
        .unwrap_or_else(|| panic!("no summary:\n{out}"));
    let num = |key: &str| -> usize {
        let i = line.find(key).unwrap();
        line[..i]
            .trim_end()
            .rsplit([' ', ','])
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    (num(" agree"), num(" differ"))
}

#[test]
fn example_corpus_agrees_with_mesa() {
    let (ok, out) = eubatch(&["crosscheck", "examples/corpus", "-j", "2"]);
    assert!(ok, "{out}");
    // 6 FS, the scalar GS (its thread layout inferred from the registers it reads), a VS
    // and HSW's vec4 VS and GS.
    assert_eq!(counts(&out), (10, 0), "{out}");
}

#[test]
fn a_planted_miscompile_is_caught() {
    let dir = root().join(
        "examples/corpus/piglit-fp64-skl/tests/spec/arb_gpu_shader_int64/execution/fs-ishl-then-ishr-loop",
    );
    let start = load_file(&dir.join("FS8-GLSL1-00-00-start"), "start", Some(Gen::Gen9)).unwrap();
    let text = std::fs::read_to_string(dir.join("asm.txt")).unwrap();
    let programs = read_asm(&text, "asm.txt", Gen::Gen9).unwrap();
    let final_code = &programs
        .iter()
        .find(|p| p.shader.dispatch_width == 8)
        .unwrap()
        .shader;
    assert_eq!(
        crosscheck(&start, final_code, 0..4, 1_000_000),
        Verdict::Agree
    );
    // Plant a miscompile: one more instruction adding 1 to the red channel's payload just
    // before the render target write.
    let printed = print_shader(final_code);
    let send = printed.lines().find(|l| l.contains("(sfid: 5)")).unwrap();
    // The first payload source (red is its first register).
    let payload = send.split(", ").nth(1).unwrap();
    let reg = payload.split(['<', '.']).next().unwrap();
    let planted = printed.replacen(
        send,
        &format!("    add(8) {reg}<8,8,1>:UD, {reg}<8,8,1>:UD, 1u\n{send}"),
        1,
    );
    let broken = parse_shader(&planted).unwrap();
    match crosscheck(&start, &broken, 0..4, 1_000_000) {
        Verdict::Differ { what, .. } => assert!(what.contains("fb_write"), "{what}"),
        v => panic!("the planted miscompile was not caught: {v:?}\n{planted}"),
    }
}

/// SKL pairs that agreed when this was last raised (raise it as messages get modelled).
const SKL_AGREE_AT_LEAST: usize = 1646;

#[test]
fn shaderdb_skl_agrees_with_mesa() {
    let Some(corpus) = corpora::corpus("shaderdb-skl") else {
        return;
    };
    let (_, out) = eubatch(&["crosscheck", corpus.to_str().unwrap(), "-j", "2"]);
    eprintln!("{out}");
    let (agree, differ) = counts(&out);
    assert_eq!(differ, 0, "{out}");
    assert!(agree >= SKL_AGREE_AT_LEAST, "only {agree} agree:\n{out}");
}

/// Every scalar geometry shader of piglit's fp64 tests for SKL agrees with Mesa's final
/// code: the GS thread layout (header, URB handles, input-vertex handles, then push
/// constants) is inferred right, and each URB read is paired with its send by data flow
/// (two reads filling the halves of one write's data are told apart by the half).
#[test]
fn piglit_fp64_skl_geometry_shaders_agree_with_mesa() {
    let Some(corpus) = corpora::corpus("piglit-fp64-skl") else {
        return;
    };
    let (_, out) = eubatch(&["crosscheck", corpus.to_str().unwrap(), "-j", "2"]);
    let gs = out
        .lines()
        .find(|l| l.starts_with("GS "))
        .unwrap_or_else(|| panic!("no GS line:\n{out}"));
    assert!(
        gs.contains("371 pairs:    371 agree (100.0%),     0 differ"),
        "{gs}\n{out}"
    );
}

/// BDW pairs that agreed when this was last raised.
const BDW_AGREE_AT_LEAST: usize = 1605;

#[test]
fn shaderdb_bdw_agrees_with_mesa() {
    let Some(corpus) = corpora::corpus("shaderdb-bdw") else {
        return;
    };
    let (_, out) = eubatch(&[
        "crosscheck",
        corpus.to_str().unwrap(),
        "--target",
        "bdw",
        "-j",
        "2",
    ]);
    eprintln!("{out}");
    let (agree, differ) = counts(&out);
    assert_eq!(differ, 0, "{out}");
    assert!(agree >= BDW_AGREE_AT_LEAST, "only {agree} agree:\n{out}");
}

/// Compute shaders (vulkan-fp16, SKL and BDW): the thread layout (g0, then the push
/// constants), the work-group ID's header dwords r0.1, r0.6, r0.7 (which Mesa 22.3's
/// printer writes as `g0<0>`: `eubatch_ir::import::payload_scalars`) and the thread
/// spawner's end-of-thread message are modelled, so Mesa's final code runs: every pair
/// agrees. (The ten that differed before the work-group ID was restored, the int8
/// quantization kernels and two reductions, read r0.0 for the group's ID.)
const CS_AGREE_AT_LEAST: usize = 261;

#[test]
fn vulkan_fp16_compute_shaders_agree_with_mesa() {
    for (name, target) in [("vulkan-fp16-skl", "skl"), ("vulkan-fp16-bdw", "bdw")] {
        let Some(corpus) = corpora::corpus(name) else {
            return;
        };
        let path = corpus.to_str().unwrap();
        let (_, out) = eubatch(&["crosscheck", path, "--target", target, "-j", "2"]);
        eprintln!("{out}");
        let (agree, differ) = counts(&out);
        assert_eq!(differ, 0, "{name}:\n{out}");
        assert!(
            agree >= CS_AGREE_AT_LEAST,
            "{name}: only {agree} agree:\n{out}"
        );
    }
}

/// The repository's piglit-coverage corpora (every stage, piglit's tests compiled by Mesa
/// 22.3.6 for SKL and HSW and by Mesa 25.0.7 for SKL: `corpora/README.md`): the pairs that
/// agreed when this was last raised, and the pairs known to differ (open, issue 18); any
/// other difference fails.
/// - SKL, 22.3: none. Mesa 22.3's URB reads print no global offset, its pre-RA dump no
///   descriptor, and its scheduler reorders the reads; each read is paired with its
///   final-code send by data flow (`import::dataflow_match`: the pre-allocation dump and
///   the final code are the same computation). Before, the k-th read took the k-th
///   send's offset: three TES (tcs-tes-max-in-out-components, tcs-output-array-float-
///   and vec2-index-wr) took other reads' offsets, and a TCS (quads) and two instanced
///   GS were left reading the first input vertex's handle. 4 pairs are not compared
///   (not modelled): reads of tcs-output-array-vec3/vec4-index-wr's TES and
///   `-before-barrier` TCS whose data flow several sends of other offsets share.
/// - SKL, Mesa 25: none (its two tcs-output-array-*-index-wr TES, whose reads its
///   scheduler exchanged too, take them in the pre-allocation dump's order).
/// - HSW: none (its two vec4 vertex shaders indexing an array of arrays of samplers read
///   texture 0 until the texture indices the vec4 printer leaves out were taken from the
///   final code: `import::vec4_texture_indices`).
///
/// Raised when the gathers' header bits were recovered (g0 itself as the header, varying
/// pull-constant `ld`s passed over): 1,549 -> 1,554, 1,544 -> 1,549, 1,265 -> 1,268; then
/// with the timestamp, the gen8+ logic negate, the geometry shaders' pushed inputs, the
/// vec4 texture indices and the input-vertex handles: 1,554 -> 1,578 (of 1,584), and
/// with the reads paired by data flow 1,578 -> 1,580 (6 differing -> 0, 4 not modelled),
/// 1,549 -> 1,583 (every pair), 1,268 -> 1,271. HSW raised when the vec4 final code's
/// SIMD4x2 untyped atomic and surface read sends (atomic counters in VS, TCS, TES) were
/// modelled, then the vec4 geometry shaders' control data OWord writes (their
/// `gs_urb_write` descriptors taken from the final code) and the dual-instanced GS's
/// attribute layout: 1,271 -> 1,289; then with the URB reads Mesa's vec4 scheduler
/// reordered matched by the only assignment of their offsets that agrees: 1,289 -> 1,298;
/// then with the vec4 texture lookups indexed at run time (12 VS, 7 GS of sampler arrays:
/// the start IR's texture and sampler from its `emit_uniformize` broadcasts, the final
/// code's indirect SIMD4x2 sends with a header, Mesa's `generate_tex`): 1,298 -> 1,317;
/// and with the reordered URB reads paired by data flow between the final code and the
/// pre-allocation dump (`dataflow_match::vec4`, spills and fills as moves): -> 1,360 (the
/// one left: dvec3-vs-tcs-tes's TCS, 64-bit values the vec4 graphs do not describe).
const COVERAGE: [(&str, &str, usize, &[&str]); 3] = [
    ("piglit-coverage-skl", "skl", 1580, &[]),
    ("piglit-coverage-skl-mesa25", "skl", 1583, &[]),
    ("piglit-coverage-hsw", "hsw", 1360, &[]),
];

#[test]
fn piglit_coverage_corpora_agree_with_mesa() {
    for (name, target, agree_at_least, known) in COVERAGE {
        let Some(corpus) = corpora::corpus(name) else {
            return;
        };
        let path = corpus.to_str().unwrap();
        let (_, out) = eubatch(&[
            "crosscheck",
            path,
            "--target",
            target,
            "-j",
            "2",
            "--verbose",
        ]);
        eprintln!("{out}");
        let (agree, differ) = counts(&out);
        assert!(
            agree >= agree_at_least,
            "{name}: only {agree} agree:\n{out}"
        );
        let differing: Vec<&str> = out.lines().filter(|l| l.starts_with("differ: ")).collect();
        assert_eq!(differing.len(), differ, "{out}");
        for line in differing {
            assert!(
                known.iter().any(|k| line.contains(k)),
                "{name}: a new difference: {line}"
            );
        }
    }
}

/// A TCS of piglit's variable-indexing tests on Haswell reads its outputs back after the
/// barrier (direct and indirect reads in one run, with different offsets), which Mesa's
/// vec4 scheduler may reorder: the listing's order proves nothing, and of the assignments
/// of the listed offsets to the reads only one makes the start IR agree with Mesa's final
/// code. The pair agrees by it and is said to, and `compile --verify` checks the shader.
#[test]
fn reordered_vec4_urb_reads_are_matched_by_the_only_agreeing_assignment() {
    let Some(corpus) = corpora::corpus("piglit-coverage-hsw") else {
        return;
    };
    let dir = corpus.join(
        "tests/spec/arb_tessellation_shader/execution/variable-indexing/\
         tcs-output-array-float-index-rd-after-barrier",
    );
    let dir = dir.to_str().unwrap();
    let (_, out) = eubatch(&["crosscheck", dir, "--target", "hsw", "-j", "1"]);
    let (agree, differ) = counts(&out);
    assert!(
        agree == 5 && differ == 0 && out.contains(" 0 not modelled yet\n"),
        "{out}"
    );
    assert!(
        out.contains("of the pairs that agree, 1 have vec4 URB reads"),
        "{out}"
    );
    let tcs = format!("{dir}/TCS-GLSL1-00-00-start");
    let (_, out) = eubatch(&[
        "compile",
        &tcs,
        "--target",
        "hsw",
        "--stop-after",
        "lower",
        "--verify",
    ]);
    assert!(out.contains("simulator: checked 1 of 1"), "{out}");
}
