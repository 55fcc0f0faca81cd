//! Text fixtures: a header of comment lines, `pipeline: ...`, `input:` and `expected:`
//! sections; the runner compares what a pipeline produces with the expected text and, with
//! `EUBATCH_BLESS=1`, rewrites it.

use std::path::Path;

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

/// Runs every `*.fixture` in `dir` (relative to the workspace root) through `run`
/// (pipeline, input) and compares with the expected output; `EUBATCH_BLESS=1` rewrites the
/// expectations instead.
pub fn run_dir(dir: &str, run: impl Fn(&str, &str) -> String) {
    let dir = super::workspace_root().join(dir);
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
        let got = run(&f.pipeline, &f.input);
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
