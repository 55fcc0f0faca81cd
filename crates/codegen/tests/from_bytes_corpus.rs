//! The binary reader (`asm::from_bytes::read_binary`) against the listing reader
//! (`asm::read_asm`): every program of every `asm.txt` of the eight corpora is read from
//! its text and, separately, from the bytes of its hex column alone (with the header,
//! statistics and block markers the text gives, which a binary lacks); both must give the
//! same program: the same IR instructions column by column (opcode, control, operands,
//! send description, bytes written), the same printed IR, the same hints, NOP count and
//! blocks. Prints per corpus the programs and instructions compared and how many agree;
//! asserts all of them, and the corpus's counts. Skipped, with a message, when `../shared`
//! is absent. Run in release mode.

#[path = "../../ir/tests/common/mod.rs"]
mod common;
mod listings;

use std::collections::BTreeMap;

use eubatch_codegen::asm::from_bytes::{read_binary, Frame};
use eubatch_codegen::asm::{encoding, AsmProgram};
use eubatch_ir::{Gen, Shader};

/// The bytes of each program of a listing (its instruction lines' hex columns, in order).
fn program_bytes(text: &str) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = Vec::new();
    for l in text.lines() {
        if l.starts_with("Native code for") {
            out.push(Vec::new());
            continue;
        }
        let Some(p) = out.last_mut() else { continue };
        if let Some((bytes, _)) = encoding(l) {
            p.extend_from_slice(&bytes);
        }
    }
    out
}

/// Where two shaders first differ, instruction by instruction (layout order).
fn first_difference(a: &Shader, b: &Shader) -> Option<String> {
    let (ia, ib): (Vec<_>, Vec<_>) = (a.layout.insts().collect(), b.layout.insts().collect());
    if ia.len() != ib.len() {
        return Some(format!("{} vs {} instructions", ia.len(), ib.len()));
    }
    if a.layout.blocks.len() != b.layout.blocks.len() {
        return Some("block count".into());
    }
    for (k, (&x, &y)) in ia.iter().zip(&ib).enumerate() {
        let col = |what: &str, same: bool| (!same).then(|| format!("instruction {k}: {what}"));
        let diff = col("opcode", a.insts.opcode[x] == b.insts.opcode[y])
            .or_else(|| col("control", a.insts.control[x] == b.insts.control[y]))
            .or_else(|| col("destination", a.insts.dst[x] == b.insts.dst[y]))
            .or_else(|| col("sources", a.srcs(x) == b.srcs(y)))
            .or_else(|| col("send", a.send_info(x) == b.send_info(y)))
            .or_else(|| {
                col(
                    "size written",
                    a.insts.size_written[x] == b.insts.size_written[y],
                )
            });
        if diff.is_some() {
            return diff;
        }
    }
    let (pa, pb) = (
        eubatch_ir::text::print_shader(a),
        eubatch_ir::text::print_shader(b),
    );
    (pa != pb).then(|| "printed IR".into())
}

/// Why the program read from `bytes` is not the one read from the text, if it is not.
fn compare(text: &AsmProgram, bytes: &[u8], name: &str, index: usize, gen: Gen) -> Option<String> {
    let frame = Frame {
        name,
        index,
        stage: text.stage,
        program: text.program.clone(),
        width: text.shader.dispatch_width,
        vec4: text.vec4,
        stats: text.stats.clone(),
        blocks: text.blocks.clone(),
    };
    let ours = match read_binary(bytes, gen, frame) {
        Ok(p) => p,
        Err(e) => return Some(format!("not read: {e}")),
    };
    if let Some(d) = first_difference(&text.shader, &ours.shader) {
        return Some(d);
    }
    let fields = [
        ("hints", text.hints == ours.hints),
        ("encoded", text.encoded == ours.encoded),
        ("nops", text.nops == ours.nops),
        ("blocks", text.blocks == ours.blocks),
        ("stats", text.stats == ours.stats),
        ("name", text.shader.name == ours.shader.name),
        (
            "program",
            (text.stage, &text.program) == (ours.stage, &ours.program),
        ),
    ];
    fields
        .iter()
        .find(|(_, same)| !same)
        .map(|(what, _)| what.to_string())
}

#[derive(Default)]
struct Tally {
    programs: u64,
    insts: u64,
    same: u64,
    same_insts: u64,
    /// Cause → (count, first example).
    failures: BTreeMap<String, (u64, String)>,
}

fn walk(corpus: &str, gen: Gen) -> Option<Tally> {
    let mut t = Tally::default();
    listings::each_listing(corpus, gen, |name, text, programs| {
        let bytes = program_bytes(text);
        assert_eq!(bytes.len(), programs.len(), "{name}: program count");
        for (index, (p, b)) in programs.iter().zip(&bytes).enumerate() {
            t.programs += 1;
            t.insts += p.encoded as u64;
            match compare(p, b, name, index, gen) {
                None => {
                    t.same += 1;
                    t.same_insts += p.encoded as u64;
                }
                Some(why) => {
                    let key = why.split(':').next_back().unwrap_or("").trim().to_string();
                    let e = t.failures.entry(key).or_default();
                    e.0 += 1;
                    if e.1.is_empty() {
                        e.1 = format!("{name} program {index} (line {}): {why}", p.line);
                    }
                }
            }
        }
    })?;
    eprintln!(
        "{corpus}: {} programs, {} read the same from their bytes; {} instructions, {} in those ({:.3}%)",
        t.programs,
        t.same,
        t.insts,
        t.same_insts,
        100.0 * t.same_insts as f64 / t.insts.max(1) as f64
    );
    for (k, (n, ex)) in &t.failures {
        eprintln!("  FAIL {n:6}  {k}\n      e.g. {ex}");
    }
    Some(t)
}

/// Every program of every corpus reads the same from its bytes as from its text, with the
/// corpus's counts of programs and instructions. (One test: the eight take seconds.)
#[test]
fn every_program_reads_the_same_from_its_bytes() {
    let mut wrong = Vec::new();
    for l in &listings::CORPORA {
        let Some(t) = walk(l.corpus, l.gen) else {
            return;
        };
        if (t.programs, t.insts) != (l.programs, l.insts) {
            wrong.push(format!("{}: counts {} {}", l.corpus, t.programs, t.insts));
        }
        if t.same != t.programs {
            wrong.push(format!(
                "{}: {} programs read differently",
                l.corpus,
                t.programs - t.same
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Bytes that are no program are an error naming the instruction, never a panic: a word
/// cut short, an opcode the generation lacks, a jump into the middle of an instruction.
#[test]
fn bad_bytes_are_errors() {
    let frame = || Frame::scalar("t", eubatch_ir::Stage::Fs, 8);
    // `mov(8) g121<1>F 0x3f800000F` and `while(8) JIP: ...` from shaderdb-skl.
    let mov: [u8; 16] = [
        0x01, 0x00, 0x60, 0x00, 0xe8, 0x3e, 0x20, 0x2f, 0x00, 0x00, 0x00, 0x38, 0x00, 0x00, 0x80,
        0x3f,
    ];
    let while_to = |jip: i32| {
        let mut w: Vec<u8> = vec![
            0x27, 0x00, 0x60, 0x00, 0x20, 0x0e, 0x00, 0x20, 0x00, 0x00, 0x00, 0x08,
        ];
        w.extend_from_slice(&jip.to_le_bytes());
        w
    };
    let program = |jip: i32| [&mov[..], &while_to(jip)].concat();
    let p = read_binary(&program(-16), Gen::Gen9, frame()).unwrap();
    let ops: Vec<_> = p
        .shader
        .layout
        .insts()
        .map(|i| p.shader.insts.opcode[i])
        .collect();
    use eubatch_ir::Opcode;
    assert_eq!(ops, [Opcode::Do, Opcode::Mov, Opcode::While]);
    // The loop jumps to byte 8, inside the `mov`.
    let e = read_binary(&program(-8), Gen::Gen9, frame()).unwrap_err();
    assert_eq!((e.inst, e.at), (1, 16), "{e}");
    // Cut short: 12 bytes of a native instruction.
    let e = read_binary(&mov[..12], Gen::Gen9, frame()).unwrap_err();
    assert_eq!((e.inst, e.at), (0, 0), "{e}");
    // Opcode 127 does not exist.
    let mut bad = mov;
    bad[0] = 0x7f;
    let e = read_binary(&bad, Gen::Gen9, frame()).unwrap_err();
    assert!(e.msg.contains("opcode"), "{e}");
    // Random words: errors or programs, never a panic.
    let mut x = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..2000 {
        let mut word = [0u8; 64];
        for b in word.iter_mut() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            *b = x as u8;
        }
        for gen in [Gen::Gen7, Gen::Gen75, Gen::Gen8, Gen::Gen9] {
            let _ = read_binary(&word, gen, frame());
        }
    }
}
