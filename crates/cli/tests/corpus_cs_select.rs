//! Mesa's compute-shader SIMD choice (`brw_compile_cs`, `brw_simd_select`; the driver's
//! `simd_select`) against what Mesa 22.3 kept: on each corpus with compute shaders,
//! `compile --regalloc mesa,linear,subreg --stats` keeps exactly one variant of each
//! compute shader with each allocator, and that variant's width is the one in Mesa's
//! stats.txt (`stats --mesa --stage final`) for at least as many shaders as when last
//! raised. Mesa kept SIMD16 of 259 of the 261 ncnn kernels and SIMD8 of two, whose SIMD16
//! would spill; eubatch's allocations of its own IR decide the same.
//!
//! Skipped with a message when `../shared` is absent (a failure under
//! EUBATCH_REQUIRE_CORPORA). About 10 s on 2 threads.

mod common;
#[path = "../../ir/tests/common/mod.rs"]
mod corpora;

use std::collections::{BTreeMap, BTreeSet};

use common::{eubatch, mesa_final_stats};
use eubatch::stats::read;

/// (corpus, target, compute shaders, shaders whose kept width is Mesa's when last raised,
/// per allocator in [`ALLOCATORS`]' order).
const CORPORA: [(&str, &str, usize, [usize; 3]); 2] = [
    ("vulkan-fp16-skl", "skl", 261, [261, 261, 261]),
    ("vulkan-fp16-bdw", "bdw", 261, [261, 261, 261]),
];

const ALLOCATORS: [&str; 3] = ["mesa", "linear", "subreg"];

/// Per compute shader (its directory), the widths of the variants in a statistics file.
fn kept_widths(path: &std::path::Path) -> BTreeMap<String, BTreeSet<u8>> {
    let mut kept = BTreeMap::<String, BTreeSet<u8>>::new();
    for s in read(path).unwrap().1 {
        if s.stage != "CS" {
            continue;
        }
        let dir = s.key.rsplit_once('/').map_or("", |(d, _)| d).to_string();
        kept.entry(dir).or_default().extend(s.simd);
    }
    kept
}

#[test]
fn one_compute_variant_is_kept_as_mesa_keeps_it() {
    let tmp = std::env::temp_dir().join(format!("eubatch-cs-select-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let mut table = Vec::new();
    for (name, target, shaders, floors) in CORPORA {
        let Some(dir) = corpora::corpus(name) else {
            return;
        };
        let dir = dir.to_str().unwrap();
        let mesa_json = tmp.join(format!("{name}-mesa.json"));
        mesa_final_stats(dir, target, &mesa_json, name);
        let ours = tmp.join(format!("{name}.json"));
        let (ok, out) = eubatch(&[
            "compile",
            dir,
            "--target",
            target,
            "--regalloc",
            &ALLOCATORS.join(","),
            "-j",
            "2",
            "--stats",
            ours.to_str().unwrap(),
        ]);
        assert!(ok, "{name}:\n{out}");
        let mesa = kept_widths(&mesa_json);
        assert_eq!(mesa.len(), shaders, "{name}: Mesa's stats.txt");
        for (allocator, floor) in ALLOCATORS.iter().zip(floors) {
            let file = eubatch::compile::stats_file_of(&ours, allocator);
            let kept = kept_widths(&file);
            let not_one: Vec<_> = kept.iter().filter(|(_, w)| w.len() != 1).collect();
            assert!(
                kept.len() == shaders && not_one.is_empty(),
                "{name}, {allocator}: {} shaders kept, not one variant each: {not_one:?}",
                kept.len()
            );
            let differ: Vec<String> = mesa
                .iter()
                .filter(|(dir, w)| kept.get(*dir) != Some(*w))
                .map(|(dir, w)| format!("{dir}: Mesa {w:?}, eubatch {:?}", kept.get(dir)))
                .collect();
            let agree = shaders - differ.len();
            table.push(format!(
                "{name}, {allocator}: {} compute variants kept (Mesa {}), {agree} of {shaders} the width Mesa kept{}{}",
                kept.values().map(|w| w.len()).sum::<usize>(),
                mesa.values().map(|w| w.len()).sum::<usize>(),
                if differ.is_empty() { "" } else { "; differ: " },
                differ.join("; ")
            ));
            assert!(
                agree >= floor,
                "{name}, {allocator}: {agree} agree (floor {floor}): {}",
                differ.join("; ")
            );
        }
    }
    eprintln!("{}", table.join("\n"));
    let _ = std::fs::remove_dir_all(&tmp);
}
