//! The simulator over every start dump of the SKL corpus, on 4 seeds each: every one must
//! run to completion (issue 3's first "done when") and deterministically. A run that stops
//! is reported with its reason; one that stops on an out-of-bounds access or a
//! control-flow error points at a simulator or importer bug. Skipped where `../shared` is
//! absent. Run in release mode.

#[path = "../../ir/tests/common/mod.rs"]
mod common;

use eubatch_ir::import::{discover, load_file, InputKind};
use eubatch_ir::Gen;

/// Step limit for this test: far above what the shaders need (under 10,000 but for the
/// dolphin ubershaders' loops over integer push constants), low enough that a runaway
/// loop stops quickly.
const STEPS: u64 = 200_000;

#[test]
fn shaderdb_skl_start_dumps() {
    let Some(dir) = common::corpus("shaderdb-skl") else {
        return;
    };
    let files = discover(
        &[dir.clone()],
        |k| matches!(k, InputKind::Mesa(d) if d.is_start()),
    )
    .unwrap();
    let (mut completed, mut stopped) = (0usize, Vec::new());
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
                    stopped.push(format!("{} (seed {seed}): {e}", path.display()));
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
        stopped.is_empty(),
        "{} runs stopped; first:\n{}",
        stopped.len(),
        stopped[..stopped.len().min(10)].join("\n")
    );
    assert_eq!(completed, files.len());
}
