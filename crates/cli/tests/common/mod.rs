//! What the CLI tests share: the workspace root and running the built binary there.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// Runs `eubatch ARGS` in the workspace root: (success, stdout + stderr).
pub fn eubatch(args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_eubatch"))
        .args(args)
        .current_dir(root())
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), text)
}

/// The number before `key` in `line` (`1102 allocated shaders ran`).
pub fn number_before(line: &str, key: &str) -> usize {
    let i = line
        .find(key)
        .unwrap_or_else(|| panic!("no `{key}` in {line}"));
    line[..i]
        .trim_end()
        .rsplit([' ', ';', ',', '('])
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

/// The first line of `out` that starts with `prefix`; panics naming `what` (the corpus or
/// run) and showing the whole output when there is none.
pub fn line_starting<'a>(out: &'a str, prefix: &str, what: &str) -> &'a str {
    out.lines()
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("{what}: no `{prefix}` line:\n{out}"))
}

/// Mesa's final-code statistics of the corpus `dir` for `target` into `out`
/// (`eubatch stats --mesa --stage final`); panics naming `what` when that fails.
pub fn mesa_final_stats(dir: &str, target: &str, out: &Path, what: &str) {
    let (ok, text) = eubatch(&[
        "stats",
        "--mesa",
        dir,
        "--stage",
        "final",
        "--target",
        target,
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(ok, "{what}: stats --mesa:\n{text}");
}
