//! What the codegen corpus tests share: finding every `asm.txt` under a corpus directory.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// Every `asm.txt` under `dir`, in path order.
pub fn asm_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
    entries.sort_by_key(|e| e.path());
    for e in entries {
        let p = e.path();
        if p.is_dir() {
            asm_files(&p, out);
        } else if p.file_name().is_some_and(|n| n == "asm.txt") {
            out.push(p);
        }
    }
}
