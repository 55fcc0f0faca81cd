//! The `eubatch` binary on the example corpus and on bad input.

mod common;

use common::{eubatch, root};

#[test]
fn check_example_corpus() {
    let (ok, out) = eubatch(&["check", "examples/corpus", "--round-trip", "-j", "2"]);
    assert!(ok, "{out}");
    assert!(out.contains("checked 27 files, 1764 instructions"), "{out}");
    assert!(out.contains("0 files with errors"), "{out}");
}

#[test]
fn one_bad_file_is_reported_and_the_others_checked() {
    let dir = std::env::temp_dir().join(format!("eubatch-cli-{}", std::process::id()));
    let sub = dir.join("shaderdb-skl/t");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(
        sub.join("FS8-GLSL1-00-00-start"),
        "{  1}    0: mov(8) vgrf0:F, 1f \n",
    )
    .unwrap();
    std::fs::write(
        sub.join("FS16-GLSL1-00-00-start"),
        "{  1}    0: mov(16) vgrf0:F, 1f \n{  1}    1: mov(16) vgrf1:F, vgrf0:F  bogus\n",
    )
    .unwrap();
    std::fs::write(sub.join("asm.txt"), "not a dump\n").unwrap();
    let (ok, out) = eubatch(&["check", dir.to_str().unwrap()]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(!ok, "{out}");
    assert!(
        out.contains("FS16-GLSL1-00-00-start:2:39: expected an operand, found `bogus`"),
        "{out}"
    );
    assert!(out.contains("checked 2 files, 1 instructions"), "{out}");
    assert!(out.contains("1 files with errors"), "{out}");
}

#[test]
fn empty_directory_and_unknown_target_are_errors() {
    let dir = std::env::temp_dir().join(format!("eubatch-empty-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (ok, out) = eubatch(&["check", dir.to_str().unwrap()]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(!ok && out.contains("no shader files found"), "{out}");
    let (ok, out) = eubatch(&["check", "examples/corpus", "--target", "pentium"]);
    assert!(!ok && out.contains("unknown target `pentium`"), "{out}");
}

#[test]
fn print_round_trips() {
    let (ok, out) = eubatch(&["print", "examples/corpus/handwritten/fp16-halves.eu"]);
    assert!(ok, "{out}");
    let expected: String =
        std::fs::read_to_string(root().join("examples/corpus/handwritten/fp16-halves.eu"))
            .unwrap()
            .lines()
            .filter(|l| !l.starts_with('#'))
            .map(|l| format!("{l}\n"))
            .collect();
    assert_eq!(out, expected);
}

#[test]
fn run_prints_outputs_and_traces() {
    let file = "examples/corpus/handwritten/fp16-halves.eu";
    let (ok, a) = eubatch(&["run", file, "--seed", "5"]);
    assert!(ok, "{a}");
    let (_, b) = eubatch(&["run", file, "--seed", "5"]);
    assert_eq!(a, b, "same seed, same output");
    assert!(a.contains("final mask 0x000000ff"), "{a}");
    let (ok, t) = eubatch(&["run", file, "--trace"]);
    assert!(
        ok && t.contains("[000000ff] mov(8) vgrf0:F, g1<8,8,1>:F"),
        "{t}"
    );
}

#[test]
fn run_simulates_mesa_final_code_and_hardware_inputs() {
    let dir = "examples/corpus/piglit-fp64-skl/tests/spec/arb_gpu_shader_int64/execution/fs-ishl-then-ishr-loop";
    let (ok, out) = eubatch(&["run", &format!("{dir}/asm.txt"), "--seed", "3"]);
    assert!(ok, "{out}");
    assert!(out.contains("# program 0: FS GLSL1 SIMD8"), "{out}");
    // (The lit pixels' colours only: which are lit depends on the seed.)
    assert!(out.contains("fb_write ch"), "{out}");
    let (again, out2) = eubatch(&["run", &format!("{dir}/asm.txt"), "--seed", "3"]);
    assert!(again && out == out2, "not deterministic");
    let (ok, out) = eubatch(&[
        "run",
        &format!("{dir}/FS8-GLSL1-00-00-start"),
        "--inputs",
        "hardware",
    ]);
    assert!(ok, "{out}");
    assert!(out.contains("fb_write ch"), "{out}");
}

/// `--verify` says what the simulator could not check, and `--verify=strict` makes it a
/// failure: here a vec4 shader reading a 64-bit (DF) attribute, which `dce` handles and
/// the simulator does not run yet.
#[test]
fn verify_counts_what_it_could_not_check_and_strict_fails_on_it() {
    let dir = std::env::temp_dir().join(format!("eubatch-verify-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("vec4.eu");
    std::fs::write(
        &file,
        "shader \"t\" stage VS width 8 target hsw backend vec4\n\
         vgrf0 2x32\nvgrf1 1x32\nblock0:\n\
         \x20   mov(8) vgrf0:DF, attr0.xyzw:DF\n\
         \x20   mov(8) vgrf1:F, attr1.xyzw:F\n\
         \x20   mov(8) m3:F, vgrf0.xyzw:F\n\
         \x20   vs_urb_write(8) (null):UD\n",
    )
    .unwrap();
    let path = file.to_str().unwrap();
    let (ok, out) = eubatch(&["compile", path, "--passes", "dce", "--verify"]);
    assert!(ok, "{out}");
    assert!(
        out.contains("simulator: checked 0 of 1 compiled shaders")
            && out.contains("1 not run by the simulator:")
            && out.contains("64-bit vec4 attributes are not simulated yet"),
        "{out}"
    );
    let (ok, out) = eubatch(&["compile", path, "--passes", "dce", "--verify=strict"]);
    assert!(!ok, "{out}");
    assert!(out.contains("not checked (--verify=strict)"), "{out}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `run asm.txt` runs the vec4 programs of a Haswell listing SIMD4x2: the geometry
/// shader's URB writes and its end-of-thread vertex count, per vertex half.
#[test]
fn run_simulates_vec4_final_code() {
    let (ok, out) = eubatch(&[
        "run",
        "examples/corpus/piglit-fp64-hsw/generated_tests/spec/arb_gpu_shader_fp64/execution/built-in-functions/gs-abs-dvec2/asm.txt",
    ]);
    assert!(ok, "{out}");
    assert!(out.contains("# program 1: GS GLSL1 vec4"), "{out}");
    assert!(out.contains("urb slot 0 ch1:"), "{out}");
    assert!(out.contains("gs vertex count ch1: 0x00000003"), "{out}");
}

/// `eubatch df-swizzles` on the example corpus's Haswell fp64 geometry shader: its DF
/// instructions by class add up, and the levels order as the classes promise: every level
/// enabling more methods gives at most the instructions of the one before, the full
/// lowering fewer than Mesa's rule, Mesa's rule fewer than class E alone.
#[test]
fn df_swizzles_table_orders_the_levels() {
    let dir = root().join("examples/corpus/piglit-fp64-hsw");
    let (ok, out) = eubatch(&["df-swizzles", dir.to_str().unwrap(), "--target", "hsw"]);
    assert!(ok, "{out}");
    let total = |label: &str| -> u64 {
        let line = out
            .lines()
            .find(|l| l.split_whitespace().next() == Some(label))
            .unwrap_or_else(|| panic!("no `{label}` row:\n{out}"));
        // The last column: `ALL / DF`.
        let cells: Vec<&str> = line.split_whitespace().collect();
        cells[cells.len() - 3].parse().unwrap()
    };
    let levels: Vec<u64> = ["e", "d-", "c-", "b", "a+", "all"]
        .iter()
        .map(|l| total(l))
        .collect();
    assert!(levels.windows(2).all(|w| w[1] <= w[0]), "{levels:?}\n{out}");
    assert!(
        total("all") < total("mesa") && total("mesa") < total("e"),
        "{out}"
    );
    assert!(total("start") < total("all"), "{out}");
    let classes: u64 = ["A+", "A-", "B", "C+", "C-", "D+", "D-", "E"]
        .iter()
        .map(|c| {
            out.lines()
                .find(|l| l.split_whitespace().next() == Some(c))
                .and_then(|l| l.split_whitespace().nth(1))
                .unwrap()
                .parse::<u64>()
                .unwrap()
        })
        .sum();
    let df_line = out
        .lines()
        .find(|l| l.contains("no DF register source"))
        .unwrap();
    let immediates = common::number_before(df_line, ";");
    let total_df: u64 = df_line
        .split("total ")
        .nth(1)
        .and_then(|t| t.split_whitespace().next())
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(classes + immediates as u64, total_df, "{out}");
}

/// `--df-swizzle-classes` with `--passes lower` is an error, not a silent level `all`:
/// `lower` runs the DF lowering at its default level, so the figures would be another
/// level's.
#[test]
fn df_swizzle_level_with_the_named_lower_is_an_error() {
    let (ok, out) = eubatch(&[
        "compile",
        "examples/corpus/piglit-fp64-hsw",
        "--target",
        "hsw",
        "--passes",
        "lower",
        "--df-swizzle-classes",
        "e",
    ]);
    assert!(!ok, "{out}");
    assert!(out.contains("`lower` runs it at level `all`"), "{out}");
    let (ok, out) = eubatch(&[
        "compile",
        "examples/corpus/piglit-fp64-hsw",
        "--target",
        "hsw",
        "--passes",
        "opt,lower_df_swizzles,compact",
        "--df-swizzle-classes",
        "e",
    ]);
    assert!(ok, "{out}");
    assert!(
        out.contains("with `opt,lower_df_swizzles_e,compact`"),
        "{out}"
    );
}
