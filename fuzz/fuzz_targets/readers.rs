//! Every reader on arbitrary bytes: Mesa 22 scalar, vec4 and Mesa 25 dumps, eubatch's
//! format and Mesa's final-code listings (their data-flow graphs too). Nothing may panic;
//! whatever is accepted must verify without panicking and print and parse back to the same
//! IR, and whatever verifies must simulate without panicking (errors are fine) and
//! deterministically. The EU
//! encoder too: each line assembled, disassembled and assembled again to the same bytes,
//! and the bytes decoded as instructions of every generation and read as a final binary.
//! The property tests in `crates/ir/tests/no_panic.rs` and
//! `crates/codegen/tests/no_panic.rs` check the same on mutated real dumps, listings and
//! binaries.
//!
//! `cargo fuzz run readers` (nightly, cargo-fuzz), seeds in `fuzz/corpus/readers`.

#![no_main]

use eubatch_ir::import::{import_mesa_dump, DumpName};
use eubatch_ir::text::{file::check_round_trip, parse_shader};
use eubatch_ir::verify::verify;
use eubatch_ir::Gen;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    check_binary(data);
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for (file, gen) in [
        ("FS16-GLSL1-00-00-start", Gen::Gen9),
        ("VS-GLSL1-00-00-start", Gen::Gen75),
        ("CS8-(null)-90-90-pre_register_allocate", Gen::Gen8),
    ] {
        let dump = DumpName::parse(file).unwrap();
        if let Ok(shader) = import_mesa_dump(text, &dump, file, gen) {
            let valid = verify(&shader).is_empty();
            check_round_trip(&shader).expect("imported shader round-trips");
            if valid {
                let a = eubatch_sim::run_limited(&shader, 1, 10_000, None);
                let b = eubatch_sim::run_limited(&shader, 1, 10_000, None);
                assert_eq!(a, b, "simulation is deterministic");
            }
        }
    }
    if let Ok(shader) = parse_shader(text) {
        let _ = verify(&shader);
        check_round_trip(&shader).expect("parsed shader round-trips");
    }
    // Mesa's final-code listings (asm.txt): the importer's reader of URB offsets and the
    // full reader.
    check_listing_filters(text);
    check_data_flow(text);
    if let Ok(programs) = eubatch_codegen::asm::read_asm(text, "asm.txt", Gen::Gen9) {
        for p in &programs {
            let _ = verify(&p.shader);
            check_round_trip(&p.shader).expect("a listing's program round-trips");
        }
    }
    check_encoder(data, text);
});

/// The bytes as a final binary of every generation (`asm::from_bytes`, what `final_code`
/// reads back): nothing may panic, and a program read verifies without panicking.
fn check_binary(data: &[u8]) {
    use eubatch_codegen::asm::from_bytes::{read_binary, Frame};
    for gen in [Gen::Gen7, Gen::Gen75, Gen::Gen8, Gen::Gen9] {
        let frame = Frame::scalar("binary", eubatch_ir::Stage::Fs, 8);
        if let Ok(p) = read_binary(data, gen, frame) {
            let _ = verify(&p.shader);
        }
    }
}

/// The encoder on arbitrary input: each line of the text as a listing line, and the bytes
/// as instructions, for every generation. Nothing may panic; what assembles disassembles,
/// and the text it disassembles to assembles to the same bytes again (printing keeps
/// everything it shows).
fn check_encoder(data: &[u8], text: &str) {
    use eubatch_codegen::encode::{assemble_line, disassemble, Dialect, LabelOffsets, Labels, Place};
    let (offsets, labels) = (LabelOffsets::new(), Labels::new());
    let place = Place { line: 1, at: 0, labels: &offsets };
    for gen in [Gen::Gen7, Gen::Gen75, Gen::Gen8, Gen::Gen9] {
        for line in text.lines().take(16) {
            let Ok(e) = assemble_line(line, gen, &place, Dialect::Mesa22) else {
                continue;
            };
            let printed = disassemble(e.bytes(), gen, 0, &labels, Dialect::Mesa22)
                .expect("assembled bytes disassemble");
            if let Ok(again) = assemble_line(&printed, gen, &place, Dialect::Mesa22) {
                if e.unrecoverable.is_none() && again.unrecoverable.is_none() {
                    assert_eq!(again.bytes(), e.bytes(), "{line}\n{printed}");
                }
            }
        }
        for chunk in data.chunks_exact(16).take(8) {
            for bytes in [chunk, &chunk[..8]] {
                if let Ok(printed) = disassemble(bytes, gen, 0, &labels, Dialect::Mesa22) {
                    let _ = assemble_line(&printed, gen, &place, Dialect::Mesa22);
                }
            }
        }
    }
}

/// The importer reads a listing filtered to one program, passing over the others by a
/// search: what it keeps must be what the unfiltered reader gives for that program, and it
/// must refuse what the unfiltered reader refuses, with the same error.
fn check_listing_filters(text: &str) {
    use eubatch_ir::import::listing::{listed_programs, listed_programs_filtered, ListingFilter};
    use eubatch_ir::shader::Stage;
    let all = listed_programs(text);
    let mut wanted: Vec<(Stage, String)> = vec![(Stage::Fs, "GLSL1".into())];
    if let Ok(programs) = &all {
        wanted.extend(programs.iter().map(|p| (p.stage, p.program.clone())));
    }
    for (stage, program) in &wanted {
        let filter = ListingFilter {
            program: Some((*stage, program)),
            wide_immediates: true,
        };
        match (&all, listed_programs_filtered(text, filter)) {
            (Ok(all), Ok(some)) => {
                let same: Vec<String> = all
                    .iter()
                    .filter(|p| p.stage == *stage && p.program == *program)
                    .map(|p| format!("{p:?}"))
                    .collect();
                let some: Vec<String> = some.iter().map(|p| format!("{p:?}")).collect();
                assert_eq!(some, same, "the filtered reader keeps what the full one reads");
            }
            (Err(a), Err(b)) => assert_eq!(*a, b, "the filtered reader refuses alike"),
            (a, b) => panic!("unfiltered {a:?}, filtered {b:?}"),
        }
    }
}

/// The data-flow readers of listings (`dataflow_match`, scalar and vec4, spills read as
/// moves and as messages): nothing may panic, and a graph matched with itself pairs
/// every send with itself.
fn check_data_flow(text: &str) {
    use eubatch_ir::import::dataflow_match::{self, vec4};
    let lines: Vec<&str> = text.lines().collect();
    let _ = dataflow_match::listing_graph(&lines, &dataflow_match::Graph::default());
    for spills in [false, true] {
        if let Some((g, _)) = vec4::listing_graph(&lines, spills) {
            let m = dataflow_match::match_sends(&g, &g).expect("a graph is its own computation");
            for (k, class) in m.iter().enumerate() {
                assert!(class.contains(&k), "send {k} is not in its own class");
            }
        }
    }
}
