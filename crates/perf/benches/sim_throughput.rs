//! Simulator speed: simulated instructions per second over the SKL start dumps the
//! simulator runs to completion on all of 4 seeds, one thread. Wall-clock: compare figures only
//! within one run.
//!
//! `cargo bench -p eubatch-perf --bench sim_throughput`

use std::time::Instant;

use eubatch_ir::import::{discover, load_file, InputKind};
use eubatch_ir::Gen;
use eubatch_perf::workspace_root;

/// Shaders that need more steps than this on some seed (loops bounded by random push
/// constants) are left out.
const LIMIT: u64 = 200_000;

fn main() {
    let dir = workspace_root().join("../shared/corpora/shaderdb-skl");
    if !dir.is_dir() {
        eprintln!("skipping: {} not found", dir.display());
        return;
    }
    let files = discover(&[dir], |k| matches!(k, InputKind::Mesa(d) if d.is_start())).unwrap();
    let shaders: Vec<_> = files
        .iter()
        .map(|p| load_file(p, &p.to_string_lossy(), Some(Gen::Gen9)).unwrap())
        .filter(|s| (0..4).all(|seed| eubatch_sim::run_limited(s, seed, LIMIT, None).is_ok()))
        .collect();
    let mut best = f64::INFINITY;
    let mut steps = 0u64;
    for _ in 0..3 {
        let start = Instant::now();
        steps = 0;
        for s in &shaders {
            for seed in 0..4 {
                steps += eubatch_sim::run_limited(s, seed, LIMIT, None)
                    .unwrap()
                    .steps;
            }
        }
        best = best.min(start.elapsed().as_secs_f64());
    }
    println!(
        "simulated {} shaders x 4 seeds: {} instructions in {:.3} s (best of 3) = {:.2} M simulated instructions/s",
        shaders.len(),
        steps,
        best,
        steps as f64 / 1e6 / best
    );
}
