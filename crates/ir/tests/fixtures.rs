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

#[test]
fn fixtures() {
    common::fixture::run_dir("tests/fixtures/ir", run_pipeline);
}
