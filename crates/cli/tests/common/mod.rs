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
