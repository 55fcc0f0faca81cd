//! The throughput budget (issues 15, 16 and 17): x86 instructions, counted by callgrind,
//! that three pipelines execute on a fixed subset of shaderdb-skl
//! (`crates/perf/budget/subset.txt`: ordinary shaders and two of dolphin's ubershaders),
//! against the figures committed in `crates/perf/budget/budget.txt`:
//!
//! - `pre-ra`: `eubatch compile --stop-after lower -j 1`, start IR to the IR before register
//!   allocation and nothing else: the import, the optimization loop and lowering to hardware
//!   form (issue 15's figure, x86 instructions per start-IR instruction);
//! - `lower`: `eubatch compile --stop-after lower --regalloc linear -j 1`, the pipeline to
//!   hardware form, then register allocation, its checker and the allocation applied;
//! - `final`: `eubatch compile -j 1`, what a user runs by default: the same pipeline, then
//!   Mesa's pre-RA scheduling modes with the `mesa` allocator, the checker, bank conflicts,
//!   post-RA scheduling, the generator's expansion, encoding, the binary read back and
//!   Mesa's cycle estimate of it.
//!
//! More than 2% over any of them fails: a change that costs more is made faster, or the budget is
//! raised deliberately, with the reason in the commit (`EUBATCH_BLESS=1 cargo test --release
//! -p eubatch --test budget` writes the measured figures). Instruction counts, not seconds:
//! the same on a loaded machine. Skipped where `../shared` (failure under
//! `EUBATCH_REQUIRE_CORPORA=1`) or valgrind is absent.

mod common;
#[path = "../../ir/tests/common/mod.rs"]
mod corpora;

use std::path::Path;
use std::process::Command;

use common::root;

/// Over the budget by more than this fails.
const TOLERANCE: f64 = 0.02;

/// A measured pipeline: its key in `budget.txt` and `eubatch`'s arguments before the files,
/// separated by spaces.
struct Pipeline {
    key: &'static str,
    args: &'static str,
}

const PIPELINES: [Pipeline; 3] = [
    Pipeline {
        key: "pre-ra",
        args: "compile --target skl --stop-after lower -j 1",
    },
    Pipeline {
        key: "lower",
        args: "compile --target skl --stop-after lower --regalloc linear -j 1",
    },
    Pipeline {
        key: "final",
        args: "compile --target skl -j 1",
    },
];

/// What callgrind counted for one pipeline, and the start-IR instructions `compile` read.
struct Measured {
    instructions: u64,
    start_ir: u64,
}

fn measure(p: &Pipeline, files: &[String]) -> Measured {
    let out_file = std::env::temp_dir().join(format!(
        "eubatch-budget-{}-{}.cg",
        p.key,
        std::process::id()
    ));
    let out = Command::new("valgrind")
        .arg("--tool=callgrind")
        .arg(format!("--callgrind-out-file={}", out_file.display()))
        .arg(env!("CARGO_BIN_EXE_eubatch"))
        .args(p.args.split(' '))
        .args(files)
        .env_remove("EUBATCH_INJECT_PANIC")
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&out_file);
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{}: {text}", p.key);
    let number_after = |key: &str| -> u64 {
        let at = text
            .find(key)
            .unwrap_or_else(|| panic!("{}: no `{key}` in:\n{text}", p.key))
            + key.len();
        text[at..]
            .trim_start()
            .split(|c: char| !c.is_ascii_digit())
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{}: no number after `{key}` in:\n{text}", p.key))
    };
    let instructions = number_after("Collected :");
    // `compile`'s summary line: "compiled N of N shaders with `PIPELINE`: K instructions
    // before, ...".
    let summary = format!("compiled {0} of {0} shaders with `", files.len());
    let at = text
        .find(&summary)
        .unwrap_or_else(|| panic!("{}: no `{summary}` in:\n{text}", p.key));
    let start_ir = text[at..]
        .split_once("`: ")
        .and_then(|(_, rest)| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{}: no instruction count in:\n{text}", p.key));
    Measured {
        instructions,
        start_ir,
    }
}

/// The figure `key` of the committed budget.
fn budget_of(budget_file: &Path, text: &str, key: &str) -> u64 {
    let prefix = format!("{key}-instructions ");
    text.lines()
        .find_map(|l| l.strip_prefix(prefix.as_str()))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("{}: no `{prefix}N` line", budget_file.display()))
}

#[test]
fn lowering_allocating_and_encoding_the_subset_stay_within_the_instruction_budget() {
    let Some(corpus) = corpora::corpus("shaderdb-skl") else {
        return;
    };
    if Command::new("valgrind").arg("--version").output().is_err() {
        eprintln!("skipping: valgrind not found");
        return;
    }
    let dir = root().join("crates/perf/budget");
    let subset = std::fs::read_to_string(dir.join("subset.txt")).unwrap();
    let files: Vec<String> = subset
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| corpus.join(l).to_string_lossy().into_owned())
        .collect();
    let measured: Vec<Measured> = PIPELINES.iter().map(|p| measure(p, &files)).collect();
    for (p, m) in PIPELINES.iter().zip(&measured) {
        eprintln!(
            "budget, {}: {} x86 instructions for {} start-IR instructions, {:.0} per instruction",
            p.key,
            m.instructions,
            m.start_ir,
            m.instructions as f64 / m.start_ir as f64
        );
    }
    let budget_file = dir.join("budget.txt");
    if std::env::var_os("EUBATCH_BLESS").is_some() {
        let mut text = String::from(
            "# x86 instructions (callgrind) on crates/perf/budget/subset.txt; crates/cli/tests/budget.rs\n\
             # fails more than 2% over any figure. Rewritten by\n\
             # EUBATCH_BLESS=1 cargo test --release -p eubatch --test budget.\n",
        );
        for (p, m) in PIPELINES.iter().zip(&measured) {
            text += &format!(
                "# {}: eubatch {}\n{0}-instructions {}\n{0}-start-ir-instructions {}\n{0}-per-start-ir-instruction {:.0}\n",
                p.key,
                p.args,
                m.instructions,
                m.start_ir,
                m.instructions as f64 / m.start_ir as f64
            );
        }
        std::fs::write(&budget_file, text).unwrap();
        return;
    }
    let budget_text = std::fs::read_to_string(&budget_file).unwrap();
    for (p, m) in PIPELINES.iter().zip(&measured) {
        let budget = budget_of(&budget_file, &budget_text, p.key);
        let limit = budget as f64 * (1.0 + TOLERANCE);
        assert!(
            m.instructions as f64 <= limit,
            "over the throughput budget of `{}`: {} x86 instructions against {budget} (+{:.1}%, {:.0}% allowed); make it faster, or raise the budget with EUBATCH_BLESS=1 and say why in the commit",
            p.key,
            m.instructions,
            100.0 * (m.instructions as f64 / budget as f64 - 1.0),
            100.0 * TOLERANCE
        );
    }
}
