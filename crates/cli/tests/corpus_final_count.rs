//! The generator's expansion against Mesa's final instruction counts: `compile --from
//! pre-ra --regalloc mesa --verify --stats` on each of the 8 corpora allocates exactly the
//! IR Mesa allocated, expands it as Mesa's generator does (`eubatch_codegen::generate`)
//! and runs the expanded code in the simulator against the start IR (no shader may
//! differ). For the variants Mesa kept with no spills that eubatch allocates without
//! spills, the final instruction count (`instructions` of the statistics) is compared with
//! Mesa's (stats.txt, `stats --mesa --stage final`): at least as many must be exact as when
//! last raised, and none may be unknown (an opcode not expanded) for Mesa 22.3's corpora.
//!
//! Mesa 25's corpus (`shaderdb-skl-mesa25`) is compared with the Mesa that made it, whose
//! final code has instructions its post-RA passes add, which a pre-RA dump does not show,
//! and `read_arch_reg`, which is not expanded: only its floor is asserted.
//!
//! Skipped with a message when `../shared` is absent (a failure under
//! EUBATCH_REQUIRE_CORPORA). About 55 s on 2 threads for the 8 corpora.

mod common;
#[path = "../../ir/tests/common/mod.rs"]
mod corpora;

use std::collections::HashMap;

use common::{eubatch, mesa_final_stats, number_before};
use eubatch::stats::{read, ShaderStats};

/// (corpus, target, variants compared, of them exact when last raised, unknown allowed).
const CORPORA: [(&str, &str, usize, usize, usize); 8] = [
    ("shaderdb-skl", "skl", 1643, 1643, 0),
    ("shaderdb-bdw", "bdw", 1607, 1607, 0),
    ("shaderdb-hsw", "hsw", 1103, 1103, 0),
    ("piglit-fp64-skl", "skl", 2726, 2726, 0),
    ("piglit-fp64-hsw", "hsw", 1570, 1570, 0),
    ("vulkan-fp16-skl", "skl", 261, 261, 0),
    ("vulkan-fp16-bdw", "bdw", 261, 261, 0),
    ("shaderdb-skl-mesa25", "skl", 1651, 1202, 54),
];

fn by_key(shaders: Vec<ShaderStats>) -> HashMap<String, ShaderStats> {
    shaders.into_iter().map(|s| (s.key.clone(), s)).collect()
}

#[test]
fn final_instruction_counts_match_mesas() {
    let tmp = std::env::temp_dir().join(format!("eubatch-final-count-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let mut table = Vec::new();
    for (name, target, compared_floor, exact_floor, unknown_ceiling) in CORPORA {
        let Some(dir) = corpora::corpus(name) else {
            return;
        };
        let started = std::time::Instant::now();
        let (mesa_csv, ours_csv) = (
            tmp.join(format!("{name}-mesa.csv")),
            tmp.join(format!("{name}.csv")),
        );
        let dir = dir.to_str().unwrap();
        mesa_final_stats(dir, target, &mesa_csv, name);
        let (_, out) = eubatch(&[
            "compile",
            dir,
            "--target",
            target,
            "--regalloc",
            "mesa",
            "--from",
            "pre-ra",
            // Every variant Mesa allocated, whatever Mesa's SIMD32 and compute-width rules
            // say of eubatch's results: what is compared is code, not the choice of variants.
            "--keep-all-simd32",
            "--keep-all-cs-variants",
            "--verify",
            "-j",
            "2",
            "--stats",
            ours_csv.to_str().unwrap(),
        ]);
        let compiled = out
            .lines()
            .find(|l| l.starts_with("compiled "))
            .unwrap_or_else(|| panic!("{name}: no `compiled` line:\n{out}"));
        let errors: Vec<&str> = out.lines().filter(|l| l.starts_with("error:")).collect();
        assert_eq!(
            number_before(compiled, " failures"),
            0,
            "{name} (a difference in the simulator is a failure):\n{}",
            errors.join("\n")
        );
        // Every expanded shader is encoded, and its binary decoded back from the bytes.
        let not_encoded: Vec<&str> = out
            .lines()
            .filter(|l| l.starts_with("not encoded:"))
            .collect();
        assert!(
            unknown_ceiling > 0 || not_encoded.is_empty(),
            "{name}: shaders not encoded:\n{}",
            not_encoded.join("\n")
        );
        let mesa = by_key(read(&mesa_csv).unwrap().1);
        let ours = by_key(read(&ours_csv).unwrap().1);
        let (mut compared, mut exact, mut unknown) = (0, 0, 0);
        // Mesa's cycle model on eubatch's binary of Mesa's allocated IR (no post-RA
        // scheduling yet) against Mesa's figure: exact, and the sums.
        let (mut cycles_exact, mut cycles_ours, mut cycles_mesa) = (0, 0u64, 0u64);
        let mut different = Vec::new();
        for (key, m) in &mesa {
            let Some(e) = ours.get(key) else { continue };
            if m.spills != Some(0) || e.spills != Some(0) {
                continue;
            }
            compared += 1;
            if let (Some(a), Some(b)) = (e.cycles, m.cycles) {
                cycles_exact += (a == b) as usize;
                cycles_ours += a;
                cycles_mesa += b;
            }
            match (e.instructions, m.instructions) {
                (None, _) => unknown += 1,
                (a, b) if a == b => exact += 1,
                (Some(a), Some(b)) => different.push(format!("{key}: {a} (Mesa {b})")),
                _ => unknown += 1,
            }
        }
        different.sort();
        table.push(format!(
            "{name}: {compared} compared, {exact} exact, {} different, {unknown} unknown; cycles {cycles_exact} exact, {cycles_ours} against Mesa's {cycles_mesa} ({:+.2}%) ({:.1} s){}{}",
            different.len(),
            100.0 * (cycles_ours as f64 / cycles_mesa.max(1) as f64 - 1.0),
            started.elapsed().as_secs_f64(),
            if different.is_empty() { "" } else { "; first: " },
            different.first().map_or("", |s| s.as_str())
        ));
        assert!(
            compared >= compared_floor,
            "{name}: {compared} variants compared, fewer than the {compared_floor} when last raised"
        );
        assert!(
            exact >= exact_floor,
            "{name}: {exact} exact final instruction counts, fewer than the {exact_floor} when last raised:\n{}",
            different.join("\n")
        );
        assert!(
            unknown <= unknown_ceiling,
            "{name}: {unknown} final instruction counts not known (an opcode not expanded), more than {unknown_ceiling}:\n{}",
            out.lines()
                .filter(|l| l.starts_with("final instruction count not known"))
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
    let _ = std::fs::remove_dir_all(&tmp);
    eprintln!("{}", table.join("\n"));
}
