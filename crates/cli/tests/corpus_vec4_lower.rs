//! The vec4 pipeline end to end (issue 19): `compile --stop-after lower --verify` on every
//! vec4 start dump of shaderdb-hsw and piglit-fp64-hsw (Haswell vertex and geometry
//! shaders, `VS-`/`GS-` dumps without a width) compiles each one through vec4's own `lower`
//! (`manager::LOWER_VEC4`), with every pass run that changed a shader compared with its
//! input in the simulator and the result in hardware form. Fails on any failure, any
//! mismatch, any vec4 shader left out or not simulated, and holds the instruction totals
//! after `lower` as ceilings (more instructions than that is a regression to look at).
//! Only the vec4 dumps are named on the command line, so it takes seconds. Skipped (with a
//! message) where the corpora are absent. Run in release mode.

mod common;
#[path = "../../ir/tests/common/mod.rs"]
mod corpora;

use common::{eubatch, line_starting, number_before};
use eubatch_ir::import::{discover, load_file, InputKind};
use eubatch_ir::Gen;

struct Expected {
    corpus: &'static str,
    /// vec4 start dumps in the corpus.
    shaders: usize,
    /// Instructions after `lower`, summed: a ceiling.
    instructions: usize,
    /// Whether the DF swizzle lowering must make progress (fp64 code).
    df: bool,
    /// With `df`: start dumps breaking a DF Align16 rule of the hardware-form verifier
    /// before lowering, a floor.
    df_breaking: usize,
}

const EXPECTED: [Expected; 2] = [
    Expected {
        corpus: "shaderdb-hsw",
        shaders: 507,
        instructions: 122_786,
        df: false,
        df_breaking: 0,
    },
    Expected {
        corpus: "piglit-fp64-hsw",
        shaders: 1128,
        instructions: 151_206,
        df: true,
        df_breaking: 746,
    },
];

#[test]
fn every_vec4_shader_lowers_and_matches_in_the_simulator() {
    for e in &EXPECTED {
        let Some(dir) = corpora::corpus(e.corpus) else {
            continue;
        };
        let files = discover(
            &[dir.clone()],
            |k| matches!(k, InputKind::Mesa(d) if d.is_start() && d.width.is_none()),
        )
        .unwrap();
        assert_eq!(files.len(), e.shaders, "{}: vec4 start dumps", e.corpus);
        let mut args = vec![
            "compile",
            "--target",
            "hsw",
            "--stop-after",
            "lower",
            "--verify",
            "-j",
            "2",
        ];
        args.extend(files.iter().map(|p| p.to_str().unwrap()));
        let (ok, out) = eubatch(&args);
        let summary = line_starting(&out, "compiled ", e.corpus);
        eprintln!("{}: {summary}", e.corpus);
        assert!(ok, "{}: compile failed:\n{out}", e.corpus);
        assert!(
            summary.starts_with(&format!("compiled {n} of {n} shaders", n = e.shaders))
                && summary.contains("; 0 failures")
                && !summary.contains("not compiled"),
            "{}: {summary}",
            e.corpus
        );
        let sim = line_starting(&out, "simulator: checked", e.corpus);
        assert!(
            sim.contains("; 0 not run by the simulator"),
            "{}: {sim}",
            e.corpus
        );
        // Every vec4 shader was changed by some pass and the change compared: none counts
        // as checked for having nothing to compare.
        let vec4 = line_starting(&out, "simulator, vec4 (Align16) shaders:", e.corpus);
        eprintln!("{}: {vec4}", e.corpus);
        assert_eq!(number_before(vec4, "compiled"), e.shaders, "{vec4}");
        assert_eq!(number_before(vec4, "of them compared"), e.shaders, "{vec4}");
        assert_eq!(number_before(vec4, "changed by no pass"), 0, "{vec4}");
        let after = number_before(summary, "after (");
        assert!(
            after <= e.instructions,
            "{}: {after} instructions after lower, more than the {} held",
            e.corpus,
            e.instructions
        );
        if e.df {
            let df = line_starting(&out, "lower_df_swizzles ", e.corpus);
            let progress: usize = df.split_whitespace().nth(2).unwrap().parse().unwrap();
            assert!(
                progress > 0,
                "{}: the DF lowering did nothing: {df}",
                e.corpus
            );
            // The hardware-form verifier's DF rules are not vacuous: start dumps break them
            // (the lowered code, checked above, does not).
            let breaking = files
                .iter()
                .filter(|p| {
                    let s = load_file(p, &p.to_string_lossy(), Some(Gen::Gen75)).unwrap();
                    eubatch_ir::verify::hardware_form_errors(&s)
                        .iter()
                        .any(|e| e.msg.contains("a DF Align16 rule"))
                })
                .count();
            eprintln!(
                "{}: {breaking} vec4 start dumps break a DF Align16 rule before lowering",
                e.corpus
            );
            assert!(breaking >= e.df_breaking, "{}: {breaking}", e.corpus);
        }
    }
}
