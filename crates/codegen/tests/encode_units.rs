//! The encoder on its own: every decodable word re-encodes to itself and prints; bad text is
//! an error naming its line, never a panic; jumps count Mesa's units per generation; known
//! lines of Mesa's listings encode to Mesa's bytes.

use std::collections::HashMap;

use eubatch_codegen::encode::{self, field::Col, field::Field, NativeInst, Place};
use eubatch_ir::Gen;

const GENS: [Gen; 4] = [Gen::Gen7, Gen::Gen75, Gen::Gen8, Gen::Gen9];

fn xorshift(s: &mut u64) -> u64 {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    *s
}

#[test]
fn random_words_decode_to_themselves_or_fail_cleanly() {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut decoded = 0;
    for i in 0..200_000u32 {
        let gen = GENS[i as usize % 4];
        let col = Col::of(gen).unwrap();
        let mut n = NativeInst([xorshift(&mut seed), xorshift(&mut seed)]);
        if i % 2 == 0 {
            // Mostly real opcodes, uncompacted.
            const OPS: [u64; 12] = [1, 2, 5, 16, 34, 36, 37, 39, 49, 56, 64, 91];
            n.set(Field::hw_opcode, col, OPS[(i as usize / 2) % OPS.len()]);
            n.set(Field::cmpt_control, col, 0);
        }
        match encode::decode(n, gen) {
            Ok(inst) => {
                decoded += 1;
                assert_eq!(encode::encode(&inst, gen).unwrap(), n, "{gen:?} {:x?}", n.0);
                let labels = HashMap::new();
                encode::disasm(&inst, gen, 0, &labels).unwrap();
            }
            Err(e) => assert!(!e.0.is_empty()),
        }
    }
    assert!(decoded > 100_000, "only {decoded} words decoded");
}

const LINES: [(&str, Option<&str>); 8] = [
    ("mul(8)          g29<1>F         g4.7<0,1,0>F    g10<8,8,1>F     { align1 1Q };", None),
    ("mov(1)          g79<1>D         1073741824D                     { align1 WE_all 1N };", None),
    ("mad(8)          g26<1>F         g25<4,4,1>F     g9<4,4,1>F      g4.2<0,1,0>F { align16 1Q };", None),
    ("mov(8)          g121<1>F        0x3f800000F      /* 1F */       { align1 1Q };", None),
    ("(+f0.0) if(8)   JIP:  LABEL1          UIP:  LABEL0              { align1 1Q };", None),
    (
        "send(16)        g55<1>UD        g80<0,1,0>UD    0x02280300",
        Some("                            const MsgDesc: (bti 0, msg_ctrl 3, msg_type 0, write_commit 0) mlen 1 rlen 2 { align1 WE_all 1H };"),
    ),
    (
        "sends(8)        nullUD          g1UD            g17UD           0x02080017                0x00000200",
        Some("                            urb MsgDesc: offset 1 SIMD8 write mlen 1 ex_mlen 8 rlen 0 { align1 1Q };"),
    ),
    ("dim(4)          g44<1>.xDF      0x3fe0000000000000F /* 0.5F */  { align16 WE_all 1N };", None),
];

/// Mesa's bytes for [`LINES`] (Skylake, the `dim` on Haswell), from the listings.
const BYTES: [&str; 8] = [
    "41 00 60 00 e8 3a a0 23 9c 00 00 3a 40 01 8d 00",
    "01 00 00 00 2c 0e e0 29 00 00 00 08 00 00 00 40",
    "5b 01 60 00 00 00 1e 1a c8 91 01 39 12 04 10 01",
    "01 00 60 00 e8 3e 20 2f 00 00 00 38 00 00 80 3f",
    "22 00 61 00 20 0e 00 20 60 02 00 00 90 01 00 00",
    "31 00 80 09 0c 02 e0 26 00 0a 00 06 00 03 28 02",
    "33 00 60 06 10 10 01 00 28 00 00 00 17 00 08 02",
    "0a 03 40 00 f9 73 81 25 00 00 00 00 00 00 e0 3f",
];

fn bytes(s: &str) -> NativeInst {
    let v: Vec<u8> = s
        .split(' ')
        .map(|b| u8::from_str_radix(b, 16).unwrap())
        .collect();
    NativeInst::from_bytes(&v.try_into().unwrap())
}

#[test]
fn known_lines_encode_to_mesa_bytes_and_print_back() {
    // The `if` at byte 0x10 jumps to LABEL1 at 0x1a0 and LABEL0 at 0x270 (its bytes say
    // JIP 0x190, UIP 0x260).
    let labels = HashMap::from([(1, 0x1a0), (0, 0x270)]);
    let by_offset = labels.iter().map(|(n, at)| (*at, *n)).collect();
    for (i, ((first, second), hex)) in LINES.iter().zip(BYTES).enumerate() {
        let gen = if i == 7 { Gen::Gen75 } else { Gen::Gen9 };
        let place = Place {
            line: 1,
            at: 0x10,
            labels: &labels,
        };
        let a = encode::assemble(first, *second, gen, &place).unwrap();
        assert!(a.unrecoverable.is_none() && !a.compacted);
        assert_eq!(encode::encode(&a.inst, gen).unwrap(), bytes(hex), "{first}");
        let text = encode::disasm(
            &encode::decode(bytes(hex), gen).unwrap(),
            gen,
            0x10,
            &by_offset,
        )
        .unwrap();
        let want = match second {
            Some(s) => format!("{first}\n{s}"),
            None => first.to_string(),
        };
        assert_eq!(text, want);
    }
}

#[test]
fn jumps_count_eight_byte_units_on_gen7_and_bytes_on_gen8() {
    let labels = HashMap::from([(0, 0x40), (1, 0x80)]);
    let place = Place {
        line: 3,
        at: 0x10,
        labels: &labels,
    };
    let line = "(+f0.0) if(8)   JIP:  LABEL0          UIP:  LABEL1              { align1 1Q };";
    for (gen, jip, uip) in [(Gen::Gen75, 6, 14), (Gen::Gen8, 0x30, 0x70)] {
        let a = encode::assemble(line, None, gen, &place).unwrap();
        let n = encode::encode(&a.inst, gen).unwrap();
        let col = Col::of(gen).unwrap();
        assert_eq!(n.get(Field::jip, col), jip, "{gen:?}");
        assert_eq!(n.get(Field::uip, col), uip, "{gen:?}");
    }
    // A backward jump is negative in the field's width.
    let back = Place {
        line: 3,
        at: 0x90,
        labels: &labels,
    };
    let a = encode::assemble(line, None, Gen::Gen75, &back).unwrap();
    let n = encode::encode(&a.inst, Gen::Gen75).unwrap();
    assert_eq!(n.get(Field::jip, Col::Gen75), (-10i16) as u16 as u64);
}

#[test]
fn bad_text_is_an_error_naming_its_line() {
    let labels = HashMap::new();
    let place = Place {
        line: 42,
        at: 0,
        labels: &labels,
    };
    for (text, second, what) in [
        (
            "frob(8)         g1<1>F          g2<8,8,1>F      { align1 1Q };",
            None,
            "unknown opcode",
        ),
        (
            "mov(8)          g1<1>F          g2<8,8,1>Z      { align1 1Q };",
            None,
            "type",
        ),
        (
            "mov(8)          g1<1>F          g2<8,8,1>F      { align1 7Q };",
            None,
            "quarter",
        ),
        (
            "(+f0.0) if(8)   JIP:  LABEL9                    { align1 1Q };",
            None,
            "LABEL9",
        ),
        (
            "send(8)         g8<1>UW         g52<0,1,0>UD    0x04420001",
            None,
            "descriptor line",
        ),
        (
            "send(8)         g8<1>UW         g52<0,1,0>UD    0x04420001",
            Some("   frob MsgDesc: { align1 1Q };"),
            "shared function",
        ),
        (
            "mov(8)          g1<1>F          g2<8,8,1>F      { align1 1Q }",
            None,
            "`;`",
        ),
        (
            "csel(8)         g1<1>F          g2<8,8,1>F      { align1 1Q };",
            None,
            "unknown opcode",
        ),
    ] {
        let gen = if text.starts_with("csel") {
            Gen::Gen75
        } else {
            Gen::Gen9
        };
        let e = encode::assemble(text, second, gen, &place).unwrap_err();
        assert!(e.line == 42 || e.line == 43, "{text}: line {}", e.line);
        assert!(e.msg.contains(what), "{text}: {}", e.msg);
    }
}

#[test]
fn every_prefix_and_mutation_of_real_lines_parses_or_errs() {
    let labels = HashMap::from([(0, 0x40), (1, 0x80)]);
    let place = Place {
        line: 1,
        at: 0,
        labels: &labels,
    };
    for (first, second) in LINES {
        for cut in 0..first.len() {
            let _ = encode::assemble(&first[..cut], second, Gen::Gen9, &place);
        }
        for (i, _) in first.char_indices() {
            for ch in ['.', '<', '0', 'g', ' ', '-', 'x', '9'] {
                let mut s = first.to_string();
                s.replace_range(i..i + 1, &ch.to_string());
                if let Ok(a) = encode::assemble(&s, second, Gen::Gen9, &place) {
                    encode::encode(&a.inst, Gen::Gen9).unwrap();
                }
            }
        }
    }
}
