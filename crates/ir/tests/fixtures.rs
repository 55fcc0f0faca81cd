//! Text fixtures: `tests/fixtures/ir/*.fixture` at the workspace root, each with a pipeline,
//! an input and the expected output. `EUBATCH_BLESS=1 cargo test` rewrites the expected
//! parts from what the code does now (then review the diff).
//!
//! Format:
//! ```text
//! # free comment lines
//! pipeline: import skl FS8-GLSL1-00-00-start
//! input:
//! ...
//! expected:
//! ...
//! ```
//! Pipelines:
//! * `import TARGET DUMP-FILE-NAME`: the input is a Mesa dump with that file name; the
//!   output is the shader in eubatch's format, then every verifier error.
//! * `parse`: the input is eubatch's format; the output is it printed back, then every
//!   verifier error (or the parse error).

mod common;

use std::path::Path;

use eubatch_ir::import::{import_mesa_dump, DumpName};
use eubatch_ir::text::{parse_shader, print_shader};
use eubatch_ir::verify::verify;
use eubatch_ir::{Gen, Shader};

fn finish(shader: Shader, out: &mut String) {
    out.push_str(&print_shader(&shader));
    for e in verify(&shader) {
        out.push_str(&format!("error: {e}\n"));
    }
    // Whatever is printed must parse back to the same IR.
    if let Err(e) = eubatch_ir::text::file::check_round_trip(&shader) {
        out.push_str(&format!("round trip failed: {e}\n"));
    }
}

fn run_pipeline(pipeline: &str, input: &str) -> String {
    let words: Vec<&str> = pipeline.split_whitespace().collect();
    let mut out = String::new();
    match words.as_slice() {
        ["import", target, file] => {
            let gen = Gen::from_name(target).expect("fixture target");
            let dump = DumpName::parse(file).expect("fixture dump name");
            match import_mesa_dump(input, &dump, file, gen) {
                Ok(s) => finish(s, &mut out),
                Err(e) => out.push_str(&format!("parse error: {e}\n")),
            }
        }
        ["parse"] => match parse_shader(input) {
            Ok(s) => finish(s, &mut out),
            Err(e) => out.push_str(&format!("parse error: {e}\n")),
        },
        _ => panic!("unknown pipeline `{pipeline}`"),
    }
    out
}

struct Fixture {
    header: String,
    pipeline: String,
    input: String,
    expected: String,
}

fn read_fixture(path: &Path) -> Fixture {
    let text = std::fs::read_to_string(path).unwrap();
    let (head, rest) = text
        .split_once("\ninput:\n")
        .unwrap_or_else(|| panic!("{}: no `input:` line", path.display()));
    let (input, expected) = rest.split_once("\nexpected:\n").unwrap_or((rest, ""));
    let (header, pipeline) = head
        .rsplit_once("pipeline: ")
        .unwrap_or_else(|| panic!("{}: no `pipeline:` line", path.display()));
    Fixture {
        header: header.to_string(),
        pipeline: pipeline.trim().to_string(),
        input: format!("{input}\n"),
        expected: expected.to_string(),
    }
}

#[test]
fn fixtures() {
    let dir = common::workspace_root().join("tests/fixtures/ir");
    let bless = std::env::var_os("EUBATCH_BLESS").is_some();
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "fixture"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty(), "no fixtures in {}", dir.display());
    let mut failed = Vec::new();
    for path in &paths {
        let f = read_fixture(path);
        let got = run_pipeline(&f.pipeline, &f.input);
        if got != f.expected {
            if bless {
                let text = format!(
                    "{}pipeline: {}\ninput:\n{}expected:\n{}",
                    f.header, f.pipeline, f.input, got
                );
                std::fs::write(path, text).unwrap();
            } else {
                failed.push(format!(
                    "{}:\n--- expected\n{}--- got\n{}",
                    path.display(),
                    f.expected,
                    got
                ));
            }
        }
    }
    assert!(
        failed.is_empty(),
        "{} fixtures differ (EUBATCH_BLESS=1 to accept):\n{}",
        failed.len(),
        failed.join("\n")
    );
}
