//! Parse + verify throughput over the whole SKL corpus (`../shared/corpora/shaderdb-skl`),
//! one thread, inputs already in memory: MB/s and instructions/s. Wall-clock figures are
//! only comparable within one run on one machine; `parse_iai` gives stable counts.
//!
//! `cargo bench -p eubatch-perf --bench parse_throughput`

use std::time::Instant;

use eubatch_ir::Gen;
use eubatch_perf::{load_inputs, parse_and_verify, workspace_root};

fn main() {
    let dir = workspace_root().join("../shared/corpora/shaderdb-skl");
    if !dir.is_dir() {
        eprintln!("skipping: {} not found", dir.display());
        return;
    }
    let inputs = load_inputs(&dir);
    let bytes: usize = inputs.iter().map(|(_, t)| t.len()).sum();
    let mut best = f64::INFINITY;
    let mut insts = 0;
    for round in 0..3 {
        let start = Instant::now();
        insts = inputs
            .iter()
            .map(|(p, t)| parse_and_verify(p, t, Some(Gen::Gen9)))
            .sum::<usize>();
        let secs = start.elapsed().as_secs_f64();
        eprintln!("round {round}: {secs:.3} s");
        best = best.min(secs);
    }
    println!(
        "shaderdb-skl parse+verify, 1 thread: {} files, {:.1} MB, {} instructions; best of 3: {:.3} s = {:.1} MB/s, {:.2} M instructions/s",
        inputs.len(),
        bytes as f64 / 1e6,
        insts,
        best,
        bytes as f64 / 1e6 / best,
        insts as f64 / 1e6 / best
    );
}
