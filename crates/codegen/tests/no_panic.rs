//! Property test: no listing makes the final-code reader panic, and every program it
//! accepts verifies without panicking, prints and parses back to the same IR, and
//! simulates without panicking. Inputs are a real listing's lines, mutated.

use eubatch_codegen::asm::read_asm;
use eubatch_ir::text::file::check_round_trip;
use eubatch_ir::Gen;
use proptest::prelude::*;

#[path = "../../ir/tests/common/mutate.rs"]
mod mutate;

const LISTING: &str = "Native code for unnamed fragment shader GLSL1 (src_hash 0x627fc8bf) (sha1 1b64966fecb6af1866597b8352f286a1e6cbe80d)
SIMD8 shader: 20 instructions. 1 loops. 976 cycles. 0:0 spills:fills, 2 sends, scheduled with mode top-down. Promoted 0 constants. Compacted 816 to 496 bytes (39%)
   START B0 (976 cycles)
5a 4b 02 20 e0 34 08 02                         pln(8)          g52<1>F         g8<0,1,0>F      g2<8,8,1>F      { align1 1Q compacted };
31 00 60 02 48 02 00 21 80 06 00 06 01 00 42 04 send(8)         g8<1>UW         g52<0,1,0>UD    0x04420001
                            sampler MsgDesc: sample SIMD8 Surface = 1 Sampler = 0 mlen 2 rlen 4 { align1 1Q };
5b 01 60 00 00 00 1e 19 c8 81 21 80 08 20 87 10 mad(8)          g25<1>F         g24<4,4,1>F     g4.2<0,1,0>F    g66<4,4,1>F { align16 1Q };
01 00 00 00 2c 0e 20 23 00 00 00 08 00 00 80 3f mov(1)          g25<1>D         1065353216D                     { align1 WE_all 1N };
41 4b 6e 20 07 0c 08 06                         mul.sat(8)      g12<1>F         -g8<8,8,1>F     (abs)g6.4<0,1,0>F { align1 1Q compacted };
38 eb 01 21 e7 0d 0b 00                         math inv(8)     g13<1>F         g11<8,8,1>F     null<8,8,1>F    { align1 1Q compacted };
02 00 80 04 48 53 a0 28 20 08 ae 5e 00 fc 00 fc sel.ge(16)      g69<1>HF        g65<16,8,2>HF   Half Float IMM  { align1 1H };
40 00 60 00 28 0a 60 2e c0 0e 8d 00 e0 00 00 00 cmp.l.f0.0(8)   null<1>F        g3<8,8,1>F      0x3f800000F /* 1F */ { align1 1Q };
22 00 60 00 00 00 00 00 00 00 00 00 00 00 00 00 (+f0.0) if(8)   JIP:  LABEL1          UIP:  LABEL0              { align1 1Q };
   END B0 ->B1 ->B2
LABEL2:
01 00 00 00 2c 0e 20 23 00 00 00 08 00 00 80 3f mov(1)          g123<1>UD       g[a0 320]<0,1,0>UD              { align1 WE_all 1N };
28 00 60 00 00 00 00 00 00 00 00 00 00 00 00 00 (+f0.0) break(8) JIP:  LABEL3         UIP:  LABEL3              { align1 1Q };
27 00 60 00 00 00 00 00 00 00 00 00 00 00 00 00 while(8)        JIP:  LABEL2                                    { align1 1Q };
LABEL3:
24 00 60 00 00 00 00 00 00 00 00 00 00 00 00 00 else(8)         JIP:  LABEL0          UIP:  LABEL0              { align1 1Q };
LABEL1:
LABEL0:
25 00 60 00 00 00 00 00 00 00 00 00 00 00 00 00 endif(8)        JIP:  LABEL4                                    { align1 1Q };
LABEL4:
2d 00 60 00 00 00 00 00 00 00 00 00 00 00 00 00 (-f0.1.any4h) halt(8) JIP:  LABEL5   UIP:  LABEL5              { align1 1Q };
LABEL5:
7e 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 nop                                                             ;
32 00 60 05 40 02 00 20 60 0f 00 06 00 14 03 88 sendc(8)        null<1>UW       g123<0,1,0>UD   0x88031400
                            render MsgDesc: RT write SIMD8 LastRT Surface = 0 mlen 4 rlen 0 { align1 1Q EOT };
   END B0
";

/// Characters that matter to the disassembly grammar.
const ALPHABET: &[u8] = b"0123456789abcdef+-.,:;<>()[]{}| gfnulaxyzwFUDHBQVWLABEL1Q1HN";

fn check(text: &str) {
    // The importer's own reader of listings (URB offsets) on the same text.
    let _ = eubatch_ir::import::listing::listed_programs(text);
    if let Ok(programs) = read_asm(text, "asm.txt", Gen::Gen9) {
        for p in &programs {
            let valid = eubatch_ir::verify::verify(&p.shader).is_empty();
            if let Err(e) = check_round_trip(&p.shader) {
                panic!("round trip failed: {e}\ninput:\n{text}");
            }
            if valid {
                let _ = eubatch_sim::run_limited(&p.shader, 1, 10_000, None);
            }
            // Mesa's performance model on whatever the reader accepted: an error or a figure.
            for gen in [Gen::Gen75, Gen::Gen8, Gen::Gen9] {
                let _ = eubatch_codegen::cycles::program_cycles(p, gen);
            }
        }
    }
}

#[test]
fn the_listing_reads() {
    let programs = read_asm(LISTING, "asm.txt", Gen::Gen9).unwrap();
    assert_eq!(programs.len(), 1);
    let p = &programs[0];
    assert_eq!(p.encoded, 17);
    assert_eq!(p.nops, 1);
    let errs = eubatch_ir::verify::verify(&p.shader);
    assert!(errs.is_empty(), "{errs:?}");
    check_round_trip(&p.shader).unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn mutated_listings(edits in prop::collection::vec(mutate::edit(ALPHABET), 1..6)) {
        check(&mutate::apply(LISTING, &edits));
    }
}

/// A line whose destination is an immediate (a mutation found it: `mov(1)  1065353216D`)
/// is an error, not an instruction writing a constant.
#[test]
fn immediate_destination_is_an_error() {
    let text = "Native code for unnamed fragment shader GLSL1 (sha1 0)\n\
SIMD8 shader: 1 instructions. 0 loops. 2 cycles. 0:0 spills:fills, 0 sends, ...\n\
01 00 00 00 2c 0e 20 23 00 00 00 08 00 00 80 3f mov(1)                   1065353216D                     { align1 WE_all 1N };\n";
    let e = read_asm(text, "asm.txt", Gen::Gen9).unwrap_err();
    assert!(e.msg.contains("destination"), "{}", e.msg);
}

/// Region fields and flag registers the encoding cannot hold are errors naming what was
/// expected (issue 22: a destination `<v>` of 32 or more overflowed `8 * v` in a `u8`, and a
/// release build wrapped it into a wrong region without an error).
#[test]
fn unencodable_regions_and_flags_are_errors() {
    let listing = |inst: &str| {
        format!(
            "Native code for unnamed fragment shader GLSL1 (sha1 0)\n\
             SIMD8 shader: 1 instructions. 0 loops. 2 cycles. 0:0 spills:fills, 0 sends, ...\n\
             01 00 00 00 2c 0e 20 23 00 00 00 08 00 00 80 3f {inst}\n"
        )
    };
    for (inst, expected) in [
        (
            "mov(8)          g10<64>UD       g11<8,8,1>UD                    { align1 1Q };",
            "destination stride of 64",
        ),
        (
            "mov(8)          g10<1>UD        g11<64,8,1>UD                   { align1 1Q };",
            "vertical stride of 64",
        ),
        (
            "mov(8)          g10<1>UD        g11<8,3,1>UD                    { align1 1Q };",
            "region width of 3",
        ),
        (
            "mov(8)          g10<1>UD        g11<8,8,3>UD                    { align1 1Q };",
            "horizontal stride of 3",
        ),
        (
            "cmp.z.f200.0(8) null<1>D        g11<8,8,1>D     0D              { align1 1Q };",
            "f200.0",
        ),
    ] {
        let e = read_asm(&listing(inst), "asm.txt", Gen::Gen9).unwrap_err();
        assert!(e.msg.contains(expected), "{inst}: {}", e.msg);
    }
}

/// A virtual opcode's name where a listing has an instruction is an error: final code holds
/// EU instructions only. (The readers fuzz target found `tg4_logical(8)` put in place of a
/// `mad(8)`: the reader took it for an instruction of the program, which then printed and
/// parsed back as a different one.)
#[test]
fn virtual_opcodes_are_not_final_code() {
    let text = "Native code for unnamed vertex shader GLSL1 (sha1 0)\n\
SIMD8 shader: 1 instructions. 0 loops. 2 cycles. 0:0 spills:fills, 0 sends, ...\n\
5b 01 60 00 00 00 1e 19 c8 81 21 80 08 20 87 10 tg4_logical(8)  g62<8,8,1>F     g55<8,8,1>F     g24<8,8,1>F { align1 1Q };\n";
    let e = read_asm(text, "asm.txt", Gen::Gen9).unwrap_err();
    assert!(e.msg.contains("not a hardware instruction"), "{}", e.msg);
    assert_eq!(e.line, 3, "{e:?}");
    // A hardware mnemonic in the same place still reads.
    let ok = text.replace("tg4_logical(8)", "mad(8)       ");
    let _ = read_asm(&ok, "asm.txt", Gen::Gen9);
}

/// A message register in a listing is an error: gen7 and later have none. (The readers fuzz
/// target found `m9` in place of a `g9` source of an Align16 `mad`: read with the
/// three-source region, it printed without one and parsed back as another operand.)
#[test]
fn message_registers_are_not_final_code() {
    let text = "Native code for unnamed vertex shader GLSL1 (sha1 0)\n\
SIMD8 shader: 1 instructions. 0 loops. 2 cycles. 0:0 spills:fills, 0 sends, ...\n\
5b 01 60 00 00 00 1e 19 c8 81 21 80 08 20 87 10 mad(8)          g26<1>F         g69<4,4,1>F     m9<4,4,1>F      g3.7<0,1,0>F { align16 1Q };\n";
    let e = read_asm(text, "asm.txt", Gen::Gen9).unwrap_err();
    assert!(e.msg.contains("no message registers"), "{}", e.msg);
}

/// A multi-byte character where an instruction line's hex encoding is expected is an
/// error or not an instruction, never a panic (the readers fuzz target found the encoding
/// reader slicing the line through a character).
#[test]
fn non_ascii_in_the_encoding_is_no_panic() {
    for line in [
        "5\u{d2409}4b 02 20 e0 34 08 02 pln(8) g52<1>F g8<0,1,0>F g2<8,8,1>F { align1 1Q };",
        "\u{e9}a 4b",
        "5a 4\u{e9} 02",
    ] {
        let text = format!(
            "Native code for unnamed fragment shader GLSL1 (sha1 0)\n\
             SIMD8 shader: 1 instructions. 0 loops. 2 cycles. 0:0 spills:fills, 0 sends, ...\n{line}\n"
        );
        let _ = read_asm(&text, "asm.txt", Gen::Gen9);
    }
    // And in the statistics line, before a number.
    let text = "Native code for unnamed fragment shader GLSL1 (sha1 0)\n\
SIMD8 shader: \u{e9}1 instructions. 0 loops. 2 cycles. 0:0 spills:fills, 0 sends, ...\n";
    let _ = read_asm(text, "asm.txt", Gen::Gen9);
}

/// The bytes of [`LISTING`]'s instructions, in order.
fn listing_bytes() -> Vec<u8> {
    LISTING
        .lines()
        .filter_map(eubatch_codegen::asm::encoding)
        .flat_map(|(b, _)| b)
        .collect()
}

/// `bytes` as Mesa's listing would show them on `gen`, every instruction labelled (label
/// `k` before instruction `k`, and the end), so that any jump to an instruction prints its
/// label; `None` where the bytes do not split into instructions or one does not print.
fn listing_of(bytes: &[u8], gen: Gen) -> Option<String> {
    use eubatch_codegen::encode::{disassemble, Dialect, Labels};
    let mut at = Vec::new();
    let mut k = 0;
    while k < bytes.len() {
        at.push(k);
        // The compaction bit: bit 29 (Mesa's `cmpt_control`).
        let compacted = bytes.get(k + 3)? & 0x20 != 0;
        k += if compacted { 8 } else { 16 };
    }
    if k != bytes.len() {
        return None;
    }
    at.push(k);
    let labels: Labels = at
        .iter()
        .enumerate()
        .map(|(n, &a)| (a as u32, n as u32))
        .collect();
    let mut text = format!(
        "Native code for unnamed fragment shader t\n\
         SIMD8 shader: {} instructions. 0 loops. 0 cycles. 0:0 spills:fills, 0 sends, ...\n",
        at.len() - 1
    );
    for w in at.windows(2) {
        let word = &bytes[w[0]..w[1]];
        let hex: String = word.iter().map(|b| format!("{b:02x} ")).collect();
        let dis = disassemble(word, gen, w[0] as u32, &labels, Dialect::Mesa22).ok()?;
        text += &format!("LABEL{}:\n{hex:48}{dis}\n", labels[&(w[0] as u32)]);
    }
    text += &format!("LABEL{}:\n", at.len() - 1);
    Some(text)
}

/// Mutated binaries: the binary reader never panics, and it accepts what the listing
/// reader accepts from Mesa's listing of the same bytes, with the same program (printed
/// IR and hints), on every generation.
fn check_binary(bytes: &[u8]) {
    use eubatch_codegen::asm::from_bytes::{read_binary, Frame};
    for gen in [Gen::Gen7, Gen::Gen75, Gen::Gen8, Gen::Gen9] {
        let text = listing_of(bytes, gen).unwrap_or_default();
        let from_text = read_asm(&text, "t", gen).ok().and_then(|mut v| v.pop());
        let stats = from_text
            .as_ref()
            .map(|p| p.stats.clone())
            .unwrap_or_default();
        let frame = Frame {
            stats,
            ..Frame::scalar("t", eubatch_ir::Stage::Fs, 8)
        };
        // (Not the round trip through eubatch's format, which `check` holds the listing
        // reader to: a V immediate whose hex starts with a letter, `fc00fc00V`, prints in
        // a form eubatch's parser does not read back, whichever reader made it.)
        let from_bytes = read_binary(bytes, gen, frame);
        if let Some(t) = from_text {
            let b = from_bytes.unwrap_or_else(|e| {
                panic!("{gen:?}: the listing reads, the bytes do not: {e}\n{text}")
            });
            let (x, y) = (
                eubatch_ir::text::print_shader(&t.shader),
                eubatch_ir::text::print_shader(&b.shader),
            );
            assert_eq!(x, y, "{gen:?}: listing\n{text}");
            assert_eq!(t.hints, b.hints, "{gen:?}");
        }
    }
}

#[test]
fn the_listing_reads_the_same_from_its_bytes() {
    check_binary(&listing_bytes());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn mutated_binaries(flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..4)) {
        let mut bytes = listing_bytes();
        for (at, x) in &flips {
            let i = at.index(bytes.len());
            bytes[i] ^= x;
        }
        check_binary(&bytes);
    }
}
