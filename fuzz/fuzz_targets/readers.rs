//! Every reader on arbitrary bytes: Mesa 22 scalar, vec4 and Mesa 25 dumps, eubatch's
//! format and Mesa's final-code listings. Nothing may panic; whatever is accepted must
//! verify without panicking and print and parse back to the same IR, and whatever verifies
//! must simulate without panicking (errors are fine) and deterministically. The property
//! tests in `crates/ir/tests/no_panic.rs` and `crates/codegen/tests/no_panic.rs` check the
//! same on mutated real dumps and listings.
//!
//! `cargo fuzz run readers` (nightly, cargo-fuzz), seeds in `fuzz/corpus/readers`.

#![no_main]

use eubatch_ir::import::{import_mesa_dump, DumpName};
use eubatch_ir::text::{file::check_round_trip, parse_shader};
use eubatch_ir::verify::verify;
use eubatch_ir::Gen;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
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
    let _ = eubatch_ir::import::listing::listed_programs(text);
    if let Ok(programs) = eubatch_codegen::asm::read_asm(text, "asm.txt", Gen::Gen9) {
        for p in &programs {
            let _ = verify(&p.shader);
            check_round_trip(&p.shader).expect("a listing's program round-trips");
        }
    }
});
