//! Instruction counts (callgrind) for importing and verifying the example corpus's dumps:
//! stable across runs and machine load, so a change in the count is a change in the code.
//!
//! Needs `iai-callgrind-runner` 0.16.1 on the PATH (`cargo install iai-callgrind-runner
//! --version 0.16.1`) and valgrind. `cargo bench -p eubatch-perf --bench parse_iai`

use std::hint::black_box;
use std::path::PathBuf;

use eubatch_perf::{load_inputs, parse_and_verify, workspace_root};
use iai_callgrind::{library_benchmark, library_benchmark_group, main};

fn example_corpus() -> Vec<(PathBuf, String)> {
    load_inputs(&workspace_root().join("examples/corpus"))
}

#[library_benchmark]
#[bench::examples(example_corpus())]
fn import_and_verify(inputs: Vec<(PathBuf, String)>) -> usize {
    inputs
        .iter()
        .map(|(p, t)| parse_and_verify(black_box(p), black_box(t), None))
        .sum()
}

library_benchmark_group!(name = parse; benchmarks = import_and_verify);
main!(library_benchmark_groups = parse);
