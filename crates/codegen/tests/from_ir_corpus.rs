//! The IR-to-binary encoder (`encode::encode_shader`) against Mesa's bytes: every program
//! of every `asm.txt` of the eight corpora is read into IR (`asm::read_asm`, what eubatch's
//! own final code looks like) and encoded whole — instruction fields, JIP/UIP from the
//! program's structure, Mesa's compaction and layout — and each instruction compared with
//! the bytes Mesa printed beside it. Prints per corpus the instructions and how many are
//! exact, and the mismatches grouped by opcode and differing fields; asserts floors.
//! Skipped, with a message, when `../shared` is absent. Run in release mode.

#[path = "../../ir/tests/common/mod.rs"]
mod common;
mod listings;

use std::collections::BTreeMap;

use eubatch_codegen::asm::encoding;
use eubatch_codegen::compact::uncompact;
use eubatch_codegen::encode::{self, decode, Dialect, NativeInst};
use eubatch_ir::Gen;

#[derive(Default)]
struct Tally {
    insts: u64,
    exact: u64,
    programs: u64,
    programs_exact: u64,
    /// Programs that did not encode, by reason.
    refused: BTreeMap<String, u64>,
    /// Mismatch cause → (count, first example).
    failures: BTreeMap<String, (u64, String)>,
}

/// The encoding bytes of each instruction line, per program (listing order).
fn program_bytes(text: &str) -> Vec<Vec<(Vec<u8>, usize)>> {
    let mut out: Vec<Vec<(Vec<u8>, usize)>> = Vec::new();
    for (idx, l) in text.lines().enumerate() {
        if l.starts_with("Native code for") {
            out.push(Vec::new());
            continue;
        }
        let Some(p) = out.last_mut() else { continue };
        if let Some((bytes, _)) = encoding(l) {
            p.push((bytes, idx + 1));
        }
    }
    out
}

fn native_of(bytes: &[u8], gen: Gen) -> Option<NativeInst> {
    match bytes.len() {
        16 => Some(NativeInst::from_bytes(bytes.try_into().unwrap())),
        8 => uncompact(u64::from_le_bytes(bytes.try_into().unwrap()), gen)
            .ok()
            .map(NativeInst),
        _ => None,
    }
}

fn walk(corpus: &str, gen: Gen) -> Option<Tally> {
    let dialect = if corpus.ends_with("mesa25") {
        Dialect::Mesa25
    } else {
        Dialect::Mesa22
    };
    let mut t = Tally::default();
    listings::each_listing(corpus, gen, |name, text, programs| {
        let bytes = program_bytes(text);
        assert_eq!(bytes.len(), programs.len(), "{name}: program count");
        for (p, mesa) in programs.iter().zip(&bytes) {
            t.programs += 1;
            let hints = |i: usize| p.hints.get(i).copied().unwrap_or_default();
            let ours = match encode::encode_shader(&p.shader, gen, dialect, &hints) {
                Ok(o) => o,
                Err(e) => {
                    let key = e.msg.split(':').next().unwrap_or("").to_string();
                    *t.refused.entry(key).or_default() += 1;
                    continue;
                }
            };
            assert_eq!(ours.encoded.len(), mesa.len(), "{name}: instruction count");
            let mut all = true;
            for (k, (e, (m, line))) in ours.encoded.iter().zip(mesa).enumerate() {
                t.insts += 1;
                if e.bytes() == m.as_slice() {
                    t.exact += 1;
                    continue;
                }
                all = false;
                let id = ours.insts[k];
                let op = p.shader.insts.opcode[id].name();
                let ours_n = native_of(e.bytes(), gen);
                let mesa_n = native_of(m, gen);
                let fields = match (ours_n, mesa_n) {
                    (Some(a), Some(b)) if a != b => match decode(b, gen) {
                        Ok(inst) => encode::codec::differing_fields(&inst, gen, a, b).join(","),
                        Err(_) => "undecodable".into(),
                    },
                    (Some(_), Some(_)) => format!("size {} vs {}", e.len(), m.len()),
                    _ => "unreadable".into(),
                };
                let key = format!("{op}: {fields}");
                let entry = t.failures.entry(key).or_default();
                entry.0 += 1;
                if entry.1.is_empty() {
                    let src = text.lines().nth(line - 1).unwrap_or("");
                    entry.1 = format!("{name}:{line}\n      {src}\n      ours {:02x?}", e.bytes());
                }
            }
            t.programs_exact += all as u64;
        }
    })?;
    eprintln!(
        "{corpus}: {} programs ({} exact), {} instructions, {} exact ({:.3}%)",
        t.programs,
        t.programs_exact,
        t.insts,
        t.exact,
        100.0 * t.exact as f64 / t.insts.max(1) as f64
    );
    for (why, n) in &t.refused {
        eprintln!("  refused {n:6}  {why}");
    }
    let mut worst: Vec<_> = t.failures.iter().collect();
    worst.sort_by_key(|(_, (n, _))| std::cmp::Reverse(*n));
    for (k, (n, ex)) in worst.iter().take(25) {
        eprintln!("  FAIL {n:7}  {k}\n      e.g. {ex}");
    }
    Some(t)
}

/// Every program encodes and every instruction is Mesa's, bit for bit, with the corpus's
/// counts of programs and instructions.
fn exact(corpus: &str) {
    let l = listings::listings(corpus);
    let Some(t) = walk(corpus, l.gen) else { return };
    assert!(t.refused.is_empty(), "{corpus}: programs refused");
    assert_eq!(
        (t.programs, t.insts),
        (l.programs, l.insts),
        "{corpus}: counts"
    );
    assert_eq!(t.exact, t.insts, "{corpus}: instructions not bit-exact");
}

#[test]
fn shaderdb_skl() {
    exact("shaderdb-skl");
}

#[test]
fn shaderdb_bdw() {
    exact("shaderdb-bdw");
}

#[test]
fn shaderdb_hsw() {
    exact("shaderdb-hsw");
}

#[test]
fn piglit_fp64() {
    exact("piglit-fp64-skl");
    exact("piglit-fp64-hsw");
}

#[test]
fn vulkan_fp16() {
    exact("vulkan-fp16-skl");
    exact("vulkan-fp16-bdw");
}

#[test]
fn shaderdb_skl_mesa25() {
    exact("shaderdb-skl-mesa25");
}
