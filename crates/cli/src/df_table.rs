//! `eubatch df-swizzles DIR`: the DF swizzle lowering's table (issue 19's closing note).
//! For every vec4 start dump under the paths (Mesa's `VS-`/`GS-` dumps without a width, or
//! `.eu` vec4 shaders):
//! - how many DF Align16 instructions there are, by splitting class (seed 000; an
//!   instruction's class is its worst DF source's, [`instruction_class`]);
//! - the instruction count of the start IR after `lower_df_swizzles` at each level (E
//!   only, then D-, C-, B, A+; all of seed 000's; Mesa 22.3's `scalarize_df` rule), all
//!   instructions and DF ones, with no other pass: the lowering's own effect;
//! - the same variants' Mesa `pre_register_allocate` dumps (after Mesa's whole optimizer
//!   and lowering, so a reference, not a like-for-like count: the `mesa` level is that);
//! - how many shaders the full lowering makes longer or shorter than the `mesa` level.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use eubatch_ir::import::{discover, load_file, InputKind};
use eubatch_ir::{Backend, Gen, Shader};
use eubatch_passes::lower::df_swizzles::{instruction_class, is_df_align16, lower, Level};

/// (all instructions, DF Align16 instructions) of a shader.
fn counts(s: &Shader) -> (u64, u64) {
    let mut df = 0;
    for i in s.layout.insts() {
        if is_df_align16(s, i) {
            df += 1;
        }
    }
    (s.num_insts() as u64, df)
}

pub fn run(paths: &[PathBuf], target: Option<Gen>) -> ExitCode {
    let files = match discover(paths, |k| match k {
        InputKind::Mesa(d) => d.is_start() && d.width.is_none(),
        InputKind::Eubatch => true,
    }) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut classes: BTreeMap<&'static str, u64> = BTreeMap::new();
    let mut no_source = 0u64;
    let mut per_level = [(0u64, 0u64); Level::ALL.len()];
    let mut start = (0u64, 0u64);
    let mut mesa_pre_ra = (0u64, 0u64);
    let (mut with_pre_ra, mut shaders, mut errors) = (0usize, 0usize, 0usize);
    let (mut longer, mut shorter) = (0usize, 0usize);
    let all = Level::ALL
        .iter()
        .position(|&l| l == Level::All)
        .unwrap_or(0);
    let mesa = Level::ALL
        .iter()
        .position(|&l| l == Level::Mesa)
        .unwrap_or(0);
    for path in &files {
        let shader = match load_file(path, &path.to_string_lossy(), target) {
            Ok(s) if s.backend == Backend::Vec4 => s,
            Ok(_) => continue,
            Err(e) => {
                eprintln!("error: {e}");
                errors += 1;
                continue;
            }
        };
        shaders += 1;
        let c = counts(&shader);
        start.0 += c.0;
        start.1 += c.1;
        for i in shader.layout.insts() {
            if !is_df_align16(&shader, i) {
                continue;
            }
            match instruction_class(&shader, i) {
                Some(c) => *classes.entry(c.group()).or_default() += 1,
                None => no_source += 1,
            }
        }
        let mut lowered = [0u64; Level::ALL.len()];
        for (k, level) in Level::ALL.into_iter().enumerate() {
            let mut s = shader.clone();
            lower(&mut s, level);
            let c = counts(&s);
            per_level[k].0 += c.0;
            per_level[k].1 += c.1;
            lowered[k] = c.0;
        }
        if lowered[all] > lowered[mesa] {
            longer += 1;
        } else if lowered[all] < lowered[mesa] {
            shorter += 1;
        }
        let pre_ra = path.file_name().and_then(|n| n.to_str()).and_then(|n| {
            let n = n.strip_suffix("00-00-start")?;
            Some(path.with_file_name(format!("{n}90-90-pre_register_allocate")))
        });
        if let Some(p) = pre_ra.filter(|p| p.exists()) {
            match load_file(&p, &p.to_string_lossy(), target) {
                Ok(s) => {
                    let c = counts(&s);
                    mesa_pre_ra.0 += c.0;
                    mesa_pre_ra.1 += c.1;
                    with_pre_ra += 1;
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    errors += 1;
                }
            }
        }
    }
    let df_total: u64 = classes.values().sum::<u64>() + no_source;
    println!("vec4 shaders: {shaders} ({with_pre_ra} with Mesa's pre_register_allocate dump)");
    println!("DF Align16 instructions of the start IR by splitting class (worst DF source):");
    for g in ["A+", "A-", "B", "C+", "C-", "D+", "D-", "E"] {
        let n = classes.get(g).copied().unwrap_or(0);
        println!(
            "  {g:<3} {n:>8}  {:>5.1}%",
            100.0 * n as f64 / df_total.max(1) as f64
        );
    }
    println!(
        "  no DF register source (immediates): {no_source}; total {df_total} of {} instructions",
        start.0
    );
    println!("instructions after lower_df_swizzles alone, by level (all / DF Align16):");
    println!("  {:<6} {:>9} {:>9}", "start", start.0, start.1);
    for (k, level) in Level::ALL.into_iter().enumerate() {
        println!(
            "  {:<6} {:>9} {:>9}",
            level.name(),
            per_level[k].0,
            per_level[k].1
        );
    }
    println!(
        "Mesa pre_register_allocate (its optimizer and lowering): {} / {}",
        mesa_pre_ra.0, mesa_pre_ra.1
    );
    println!(
        "shaders where level `all` gives more instructions than `mesa`: {longer}, fewer: {shorter}"
    );
    if errors > 0 {
        eprintln!("{errors} files could not be read");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
