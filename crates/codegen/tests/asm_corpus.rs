//! Every `asm.txt` of every corpus: each program reads, verifies, prints and parses back to
//! the same IR, and its encoded instruction count agrees with Mesa's statistics line (equal,
//! or above it by at most the NOPs in the listing, which Mesa's figure leaves out when its
//! generator inserted them). Skipped, with a message, when `../shared` is absent. Run in
//! release mode.

#[path = "../../ir/tests/common/mod.rs"]
mod common;

use std::collections::BTreeMap;

use eubatch_codegen::asm::read_asm;
use eubatch_ir::Gen;

/// Reads a corpus's listings; returns (programs, instructions as Mesa counts them).
fn walk(corpus: &str, target: Gen) -> Option<(usize, u64)> {
    let dir = common::corpus(corpus)?;
    let files = common::files_named(&dir, "asm.txt");
    assert!(!files.is_empty(), "no asm.txt in {}", dir.display());
    let (mut programs, mut insts) = (0usize, 0u64);
    let mut failures: BTreeMap<String, (usize, String)> = BTreeMap::new();
    let mut fail = |kind: String, what: String| {
        let e = failures.entry(kind).or_default();
        e.0 += 1;
        if e.1.is_empty() {
            e.1 = what;
        }
    };
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let name = path
            .strip_prefix(&dir)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let progs = match read_asm(&text, &name, target) {
            Ok(p) => p,
            Err(e) => {
                fail(e.msg.clone(), e.in_file(&path.display().to_string()));
                continue;
            }
        };
        for p in &progs {
            programs += 1;
            insts += p.stats.instructions as u64;
            let at = format!("{}:{}", path.display(), p.line);
            let errs = eubatch_ir::verify::verify(&p.shader);
            if let Some(e) = errs.first() {
                fail(format!("verify: {}", e.msg), format!("{at}: {e}"));
            }
            if let Err(e) = eubatch_ir::text::file::check_round_trip(&p.shader) {
                fail("round trip".into(), format!("{at}: {e}"));
            }
            let extra = p.encoded as i64 - p.stats.instructions as i64;
            if extra < 0 || extra > p.nops as i64 {
                fail(
                    "instruction count".into(),
                    format!(
                        "{at}: {} encoded ({} NOPs), Mesa counts {}",
                        p.encoded, p.nops, p.stats.instructions
                    ),
                );
            }
        }
    }
    eprintln!(
        "{corpus}: {} listings, {programs} programs, {insts} instructions",
        files.len()
    );
    let total: usize = failures.values().map(|v| v.0).sum();
    let report: Vec<String> = failures
        .iter()
        .map(|(k, (n, first))| format!("{n:6}  {k}\n        first: {first}"))
        .collect();
    assert!(total == 0, "{total} failures:\n{}", report.join("\n"));
    Some((programs, insts))
}

#[test]
fn shaderdb_skl() {
    walk("shaderdb-skl", Gen::Gen9);
}

#[test]
fn shaderdb_bdw() {
    walk("shaderdb-bdw", Gen::Gen8);
}

#[test]
fn shaderdb_hsw() {
    walk("shaderdb-hsw", Gen::Gen75);
}

#[test]
fn piglit_fp64() {
    walk("piglit-fp64-skl", Gen::Gen9);
    walk("piglit-fp64-hsw", Gen::Gen75);
}

#[test]
fn vulkan_fp16() {
    walk("vulkan-fp16-skl", Gen::Gen9);
    walk("vulkan-fp16-bdw", Gen::Gen8);
}

#[test]
fn shaderdb_skl_mesa25() {
    walk("shaderdb-skl-mesa25", Gen::Gen9);
}
