//! Walks the real corpora: every start and pre_register_allocate dump must import, verify,
//! and survive printing and parsing back unchanged. Skipped, with a message, when
//! `../shared` is absent. Run in release mode (`cargo test --release`): it reads ~5.5 M
//! instructions.

mod common;

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use eubatch_ir::import::{discover, load_file, InputKind};
use eubatch_ir::Gen;

/// Checks every start and pre-RA dump of a corpus; returns (files, instructions).
fn walk(corpus: &str, target: Gen, expect_insts: usize) {
    let Some(dir) = common::corpus(corpus) else {
        return;
    };
    let files = discover(
        &[dir.clone()],
        |k| matches!(k, InputKind::Mesa(d) if d.is_start() || d.is_pre_register_allocate()),
    )
    .unwrap();
    assert!(!files.is_empty(), "no dumps in {}", dir.display());
    let next = AtomicUsize::new(0);
    let insts = AtomicUsize::new(0);
    let failures: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(path): Option<&PathBuf> = files.get(i) else {
                    break;
                };
                let name = path
                    .strip_prefix(&dir)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                let fail = |m: String| failures.lock().unwrap().push(m);
                match load_file(path, &name, Some(target)) {
                    Err(e) => fail(e.to_string()),
                    Ok(shader) => {
                        insts.fetch_add(shader.num_insts(), Ordering::Relaxed);
                        let errs = eubatch_ir::verify::verify(&shader);
                        if let Some(e) = errs.first() {
                            fail(format!(
                                "{}: {} verifier errors, first: {e}",
                                path.display(),
                                errs.len()
                            ));
                        }
                        if let Err(e) = eubatch_ir::text::file::check_round_trip(&shader) {
                            fail(format!("{}: round trip: {e}", path.display()));
                        }
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    let total = insts.load(Ordering::Relaxed);
    eprintln!(
        "{corpus}: {} dumps, {total} instructions, {} failures",
        files.len(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {} dumps failed; first ones:\n{}",
        failures.len(),
        files.len(),
        failures[..failures.len().min(10)].join("\n")
    );
    // The corpus README's counts of start + pre_register_allocate instructions.
    assert_eq!(
        total, expect_insts,
        "instruction count differs from the corpus README"
    );
}

#[test]
fn shaderdb_skl() {
    walk("shaderdb-skl", Gen::Gen9, 870_814 + 387_027);
}

#[test]
fn shaderdb_bdw() {
    walk("shaderdb-bdw", Gen::Gen8, 870_566 + 391_030);
}

#[test]
fn shaderdb_hsw_scalar_and_vec4() {
    walk("shaderdb-hsw", Gen::Gen75, 822_355 + 439_692);
}

#[test]
fn piglit_fp64_skl() {
    walk("piglit-fp64-skl", Gen::Gen9, 243_859 + 107_645);
}

#[test]
fn piglit_fp64_hsw() {
    walk("piglit-fp64-hsw", Gen::Gen75, 199_006 + 178_001);
}

#[test]
fn vulkan_fp16_skl() {
    walk("vulkan-fp16-skl", Gen::Gen9, 128_271 + 61_627);
}

#[test]
fn vulkan_fp16_bdw() {
    walk("vulkan-fp16-bdw", Gen::Gen8, 128_919 + 62_451);
}

#[test]
fn shaderdb_skl_mesa25() {
    // + 4: the copies the importer adds where a SIMD16/SIMD32 message reads a Mesa 25 scalar
    // VGRF (tesseract/133, two components each; `import::scalar_sources`).
    walk("shaderdb-skl-mesa25", Gen::Gen9, 503_492 + 4 + 417_597);
}

/// The dumps of each directory imported one after another with one shared listing
/// (`import::Listings`, as the driver imports them) come out as each imported alone, which
/// reads and takes apart the listing beside it afresh: the listing's text, and the programs
/// taken apart for one dump, serve the next.
fn a_shared_listing_imports_what_each_dump_reads_alone(corpus: &str, target: Gen) {
    let Some(dir) = common::corpus(corpus) else {
        return;
    };
    let files = discover(
        &[dir.clone()],
        |k| matches!(k, InputKind::Mesa(d) if d.is_start()),
    )
    .unwrap();
    let mut listings = eubatch_ir::import::Listings::default();
    let mut compared = 0;
    for path in &files {
        let name = path.to_string_lossy();
        let text = std::fs::read_to_string(path).unwrap();
        let alone = eubatch_ir::import::load_text(path, &text, &name, Some(target));
        let shared =
            eubatch_ir::import::load_text_with(path, &text, &name, Some(target), &mut listings);
        match (alone, shared) {
            (Ok(a), Ok(b)) => assert_eq!(
                eubatch_ir::text::print::print_shader(&a),
                eubatch_ir::text::print::print_shader(&b),
                "{}",
                path.display()
            ),
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
            (a, b) => panic!(
                "{}: alone {:?}, shared {:?}",
                path.display(),
                a.err(),
                b.err()
            ),
        }
        compared += 1;
    }
    eprintln!("{corpus}: {compared} start dumps imported alone and with a shared listing");
    assert_eq!(compared, files.len());
}

#[test]
fn shaderdb_skl_listing_shared_by_a_directory() {
    a_shared_listing_imports_what_each_dump_reads_alone("shaderdb-skl", Gen::Gen9);
}

#[test]
fn shaderdb_hsw_listing_shared_by_a_directory() {
    a_shared_listing_imports_what_each_dump_reads_alone("shaderdb-hsw", Gen::Gen75);
}
