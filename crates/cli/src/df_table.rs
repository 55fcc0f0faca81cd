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

/// Counts of one stage's shaders.
#[derive(Default)]
struct StageCounts {
    shaders: usize,
    start: (u64, u64),
    levels: [(u64, u64); Level::ALL.len()],
    mesa_pre_ra: (u64, u64),
}

impl StageCounts {
    fn merge(&mut self, o: &StageCounts) {
        self.shaders += o.shaders;
        self.start.add(o.start);
        for (a, b) in self.levels.iter_mut().zip(&o.levels) {
            a.add(*b);
        }
        self.mesa_pre_ra.add(o.mesa_pre_ra);
    }
}

trait Add2 {
    fn add(&mut self, o: (u64, u64));
}

impl Add2 for (u64, u64) {
    fn add(&mut self, o: (u64, u64)) {
        self.0 += o.0;
        self.1 += o.1;
    }
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
    // Per stage (VS, GS, ...): start, each level, Mesa's pre-RA; (all, DF) each.
    let mut by_stage: BTreeMap<&'static str, StageCounts> = BTreeMap::new();
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
        let st = by_stage.entry(shader.stage.abbrev()).or_default();
        st.shaders += 1;
        st.start.add(counts(&shader));
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
            st.levels[k].add(c);
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
                    st.mesa_pre_ra.add(counts(&s));
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
    let mut total = StageCounts::default();
    for c in by_stage.values() {
        total.merge(c);
    }
    println!(
        "  no DF register source (immediates): {no_source}; total {df_total} of {} instructions",
        total.start.0
    );
    println!("instructions after lower_df_swizzles alone, by level (all / DF Align16):");
    let mut columns: Vec<(&str, &StageCounts)> = by_stage.iter().map(|(k, v)| (*k, v)).collect();
    columns.push(("total", &total));
    let header: String = columns
        .iter()
        .map(|(name, c)| format!(" {:>21}", format!("{name} ({})", c.shaders)))
        .collect();
    println!("  {:<12}{header}", "level");
    let row = |name: &str, f: &dyn Fn(&StageCounts) -> (u64, u64)| {
        let cells: String = columns
            .iter()
            .map(|(_, c)| {
                let (a, d) = f(c);
                format!(" {:>21}", format!("{a} / {d}"))
            })
            .collect();
        println!("  {name:<12}{cells}");
    };
    row("start", &|c| c.start);
    for (k, level) in Level::ALL.into_iter().enumerate() {
        row(level.name(), &|c| c.levels[k]);
    }
    row("Mesa pre-RA", &|c| c.mesa_pre_ra);
    println!(
        "  (mesa: Mesa 22.3's scalarize_df rule on the same start IR; Mesa pre-RA: its\n   pre_register_allocate dumps, after its whole optimizer and lowering)"
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
