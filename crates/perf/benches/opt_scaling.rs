//! How the optimization loop's time grows with shader size: synthetic shaders of 1k, 10k and
//! 100k instructions ([`eubatch_perf::synthetic_shader`]) and the largest SKL start dumps,
//! one thread, best of 3. The figure to read is the time per input instruction across
//! sizes (flat means linear). Wall-clock: compare figures only within one run.
//!
//! `cargo bench -p eubatch-perf --bench opt_scaling`

use std::time::Instant;

use eubatch_ir::import::{discover, load_file, InputKind};
use eubatch_ir::{Gen, Shader};
use eubatch_passes::manager::{self, Checks, Stats};

fn time_opt(shader: &Shader) -> (f64, usize) {
    let steps = manager::parse("opt").unwrap();
    let mut best = f64::INFINITY;
    let mut after = 0;
    for _ in 0..3 {
        let mut s = shader.clone();
        let t = Instant::now();
        manager::run(&mut s, &steps, &mut Checks::default(), &mut Stats::new()).unwrap();
        best = best.min(t.elapsed().as_secs_f64());
        after = s.num_insts();
    }
    (best, after)
}

fn report(name: &str, shader: &Shader) {
    let n = shader.num_insts();
    let (t, after) = time_opt(shader);
    println!(
        "{name:40} {n:7} -> {after:7} instructions  {:9.3} ms  {:7.2} us/instruction",
        t * 1e3,
        t * 1e6 / n as f64
    );
}

fn main() {
    for n in [1_000, 10_000, 100_000] {
        report(
            &format!("synthetic {n}"),
            &eubatch_perf::synthetic_shader(n),
        );
    }
    let dir = eubatch_perf::workspace_root().join("../shared/corpora/shaderdb-skl");
    if !dir.is_dir() {
        eprintln!("skipping the corpus shaders: {} not found", dir.display());
        return;
    }
    let files = discover(&[dir], |k| matches!(k, InputKind::Mesa(d) if d.is_start())).unwrap();
    let mut shaders: Vec<Shader> = files
        .iter()
        .map(|p| load_file(p, &p.to_string_lossy(), Some(Gen::Gen9)).unwrap())
        .collect();
    shaders.sort_by_key(|s| std::cmp::Reverse(s.num_insts()));
    for s in shaders.iter().take(5) {
        let name: String = s
            .name
            .chars()
            .rev()
            .take(40)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        report(&name, s);
    }
}
