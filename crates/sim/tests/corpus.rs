//! The simulator over every start dump of the SKL corpus, on 4 seeds each. Runs that stop
//! must stop for something not modelled yet (never an out-of-bounds access or a control-flow
//! error, which would be a simulator or importer bug); runs that complete must be
//! deterministic; and at least as many complete as when this was last raised (a ratchet:
//! raise it as messages and payload opcodes get modelled). Skipped where `../shared` is
//! absent. Run in release mode.

use std::path::Path;

use eubatch_ir::import::{discover, load_file, InputKind};
use eubatch_ir::Gen;

/// SKL start dumps that ran to completion on 4 seeds when this was last raised.
const COMPLETED_AT_LEAST: usize = 1968;
/// Step limit for this test: far above what the completing shaders need (under 10,000),
/// low enough that loops bounded by random push constants stop quickly.
const STEPS: u64 = 200_000;

#[test]
fn shaderdb_skl_start_dumps() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpora/shaderdb-skl");
    if !dir.is_dir() {
        eprintln!("skipping: {} not found", dir.display());
        return;
    }
    let files = discover(
        &[dir.clone()],
        |k| matches!(k, InputKind::Mesa(d) if d.is_start()),
    )
    .unwrap();
    let (mut completed, mut bugs) = (0usize, Vec::new());
    for path in &files {
        let shader = load_file(path, &path.to_string_lossy(), Some(Gen::Gen9)).unwrap();
        let mut ok = true;
        for seed in 0..4 {
            match eubatch_sim::run_limited(&shader, seed, STEPS, None) {
                Ok(out) => {
                    if seed == 0 {
                        assert_eq!(
                            out,
                            eubatch_sim::run(&shader, 0, None).unwrap(),
                            "{}: not deterministic",
                            path.display()
                        );
                    }
                }
                Err(e) => {
                    ok = false;
                    if !e.msg.contains("not modelled")
                        && !e.msg.contains("not simulated yet")
                        && !e.msg.contains("infinite loop")
                    {
                        bugs.push(format!("{}: {e}", path.display()));
                    }
                    break;
                }
            }
        }
        completed += ok as usize;
    }
    eprintln!(
        "{} start dumps, {completed} ran to completion on 4 seeds",
        files.len()
    );
    assert!(
        bugs.is_empty(),
        "{} runs stopped on a bug; first:\n{}",
        bugs.len(),
        bugs[..bugs.len().min(10)].join("\n")
    );
    assert!(
        completed >= COMPLETED_AT_LEAST,
        "only {completed} completed, fewer than {COMPLETED_AT_LEAST}"
    );
}
