//! `eubatch stats --mesa DIR`: the statistics Mesa itself reports for a corpus, in the same
//! file format and with the same keys as `eubatch compile --stats`, so that `report` can
//! put the two side by side.
//!
//! Two stages, never mixed in one file:
//! - `pre-ra`: every compiled variant's `*-pre_register_allocate` dump — instructions,
//!   sends (messages, logical or lowered), loops (`do`), and the most registers live at
//!   once from the dump's last line (Mesa 22.3's printer; Mesa 25 has no such line, so the
//!   statistic is absent there). No cycles, spills or fills: those exist only after
//!   scheduling and allocation.
//! - `final`: the variants Mesa kept, from `stats.txt` (shader-db's `run` output:
//!   instructions, loops, cycles, spills, fills, sends). `stats.txt` names a shader by stage
//!   and width only; its program (`GLSL1`) comes from the `Native code for ... shader NAME`
//!   headers of `asm.txt` beside it, which list the same programs in the same order.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use eubatch_ir::import::{discover, load_text, DumpName, InputKind};
use eubatch_ir::{Gen, Opcode};

use crate::stats::{Header, ShaderStats};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum MesaStage {
    /// The `*-pre_register_allocate` dumps of every compiled variant.
    PreRa,
    /// `stats.txt`: the final code of the variants Mesa kept.
    Final,
}

impl MesaStage {
    pub fn name(self) -> &'static str {
        match self {
            MesaStage::PreRa => "pre-ra",
            MesaStage::Final => "final",
        }
    }
}

pub struct Options {
    pub target: Option<Gen>,
    pub stage: MesaStage,
    pub jobs: usize,
    pub out: PathBuf,
}

pub fn run(root: &Path, opts: &Options) -> ExitCode {
    let result = match opts.stage {
        MesaStage::PreRa => pre_ra(root, opts),
        MesaStage::Final => final_stats(root, opts.target),
    };
    let (mut shaders, targets) = match result {
        Ok(r) => r,
        Err(errors) => {
            for e in &errors {
                eprintln!("error: {e}");
            }
            return ExitCode::FAILURE;
        }
    };
    shaders.sort_by(|a, b| a.key.cmp(&b.key));
    let header = Header {
        tool: "mesa".into(),
        version: mesa_version(root),
        target: crate::stats::target_name(opts.target, &targets),
        stage: opts.stage.name().into(),
        options: String::new(),
        left_out: Vec::new(),
    };
    if let Err(e) = crate::stats::write(&opts.out, &header, &shaders) {
        eprintln!("error: {}: {e}", opts.out.display());
        return ExitCode::FAILURE;
    }
    let total: u64 = shaders.iter().filter_map(|s| s.instructions).sum();
    println!(
        "{} {} statistics of {} shaders ({total} instructions) written to {}",
        header.target,
        header.stage,
        shaders.len(),
        opts.out.display()
    );
    ExitCode::SUCCESS
}

/// Which Mesa made the corpus: 25.0.7 for the `-mesa25` corpus, 22.3.6 for the others (the
/// corpora's README).
fn mesa_version(root: &Path) -> String {
    let path = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    if path.to_string_lossy().contains("mesa25") {
        "25.0.7".into()
    } else {
        "22.3.6".into()
    }
}

type Collected = (Vec<ShaderStats>, std::collections::BTreeSet<&'static str>);

fn pre_ra(root: &Path, opts: &Options) -> Result<Collected, Vec<String>> {
    let files = discover(
        &[root.to_path_buf()],
        |k| matches!(k, InputKind::Mesa(d) if d.is_pre_register_allocate()),
    )
    .map_err(|e| vec![e.to_string()])?;
    if files.is_empty() {
        return Err(vec![format!(
            "{}: no `*-pre_register_allocate` dumps found",
            root.display()
        )]);
    }
    let bar = crate::parallel::progress(files.len(), "reading");
    let (results, _) = crate::parallel::map_with(
        &files,
        opts.jobs,
        crate::parallel::file_size,
        || (),
        |_, path| dump_stats(root, path, opts.target),
        &bar,
    );
    let mut shaders = Vec::new();
    let mut targets = std::collections::BTreeSet::new();
    let mut errors = Vec::new();
    for r in results {
        match r {
            Ok((s, t)) => {
                shaders.push(s);
                targets.insert(t);
            }
            Err(e) => errors.push(e),
        }
    }
    if errors.is_empty() {
        Ok((shaders, targets))
    } else {
        Err(errors)
    }
}

fn dump_stats(
    root: &Path,
    path: &Path,
    target: Option<Gen>,
) -> Result<(ShaderStats, &'static str), String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    let name = path.to_string_lossy();
    let shader = load_text(path, &text, &name, target).map_err(|e| e.to_string())?;
    let dump = path
        .file_name()
        .and_then(|f| DumpName::parse(&f.to_string_lossy()))
        .expect("discover only returns Mesa dumps here");
    let count = |f: &dyn Fn(Opcode) -> bool| -> u64 {
        shader
            .layout
            .insts()
            .filter(|&i| f(shader.insts.opcode[i]))
            .count() as u64
    };
    // `Maximum N registers live at once.`: the last line of a 22.3 scalar dump.
    let max_live = text.lines().rev().find_map(|l| {
        l.trim()
            .strip_prefix("Maximum ")?
            .strip_suffix(" registers live at once.")?
            .trim()
            .parse()
            .ok()
    });
    let stats = ShaderStats {
        key: crate::stats::key(root, path, &dump),
        stage: dump.stage.abbrev().into(),
        simd: dump.width,
        instructions: Some(shader.num_insts() as u64),
        sends: Some(count(&|o| o.is_message())),
        loops: Some(count(&|o| o == Opcode::Do)),
        cycles: None,
        spills: None,
        fills: None,
        max_live_registers: max_live,
        registers: None,
    };
    Ok((stats, shader.target.name()))
}

fn final_stats(root: &Path, target: Option<Gen>) -> Result<Collected, Vec<String>> {
    let mut files = Vec::new();
    find_named(root, "stats.txt", &mut files).map_err(|e| vec![e])?;
    files.sort();
    if files.is_empty() {
        return Err(vec![format!(
            "{}: no stats.txt files found",
            root.display()
        )]);
    }
    let mut shaders = Vec::new();
    let mut errors = Vec::new();
    // The final code's target, for reading asm.txt (registers used): --target or the
    // corpus name.
    let target = target.or_else(|| eubatch_ir::import::guess_target(root));
    for f in &files {
        match stats_file(root, f, target) {
            Ok(s) => shaders.extend(s),
            Err(e) => errors.push(e),
        }
    }
    // The target is not in stats.txt: it comes from --target or the corpus name.
    let targets = eubatch_ir::import::guess_target(root)
        .map(|g| g.name())
        .into_iter()
        .collect();
    if errors.is_empty() {
        Ok((shaders, targets))
    } else {
        Err(errors)
    }
}

fn find_named(dir: &Path, name: &str, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let rd = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: cannot read directory: {e}", dir.display()))?;
    for entry in rd {
        let entry = entry.map_err(|e| format!("{}: {e}", dir.display()))?;
        let path = entry.path();
        if entry
            .file_type()
            .map_err(|e| format!("{}: {e}", path.display()))?
            .is_dir()
        {
            find_named(&path, name, out)?;
        } else if entry.file_name() == name {
            out.push(path);
        }
    }
    Ok(())
}

/// One line of `stats.txt`: `source.shader_test - FS SIMD16 shader: 36 inst, 0 loops, 934
/// cycles, 0:0 spills:fills, 2 sends, ...` (`VS vec4 shader:` for vec4 code).
struct FinalLine {
    stage: String,
    simd: Option<u8>,
    inst: u64,
    loops: u64,
    cycles: u64,
    spills: u64,
    fills: u64,
    sends: u64,
}

fn parse_line(line: &str) -> Result<Option<FinalLine>, String> {
    let line = line.trim();
    if line.is_empty() || line.starts_with("Thread ") || line.starts_with("rc=") {
        return Ok(None);
    }
    let bad = || {
        "expected `FILE - STAGE SIMDn shader: N inst, N loops, N cycles, S:F spills:fills, N sends, ...`, \
         `Thread ...` or `rc=N`"
            .to_string()
    };
    let (_, rest) = line.split_once(" - ").ok_or_else(bad)?;
    let (head, body) = rest.split_once(" shader: ").ok_or_else(bad)?;
    let (stage, width) = head.split_once(' ').ok_or_else(bad)?;
    let simd = match width {
        "vec4" => None,
        w => Some(
            w.strip_prefix("SIMD")
                .and_then(|n| n.parse().ok())
                .ok_or_else(|| format!("`{w}` is not SIMDn or vec4"))?,
        ),
    };
    let mut fields = body.split(", ");
    let mut num = |suffix: &str| -> Result<String, String> {
        let f = fields.next().ok_or_else(bad)?;
        f.strip_suffix(suffix)
            .map(str::to_string)
            .ok_or_else(|| format!("expected `N{suffix}`, found `{f}`"))
    };
    let parse = |s: &str| {
        s.parse::<u64>()
            .map_err(|_| format!("`{s}` is not a count"))
    };
    let inst = parse(&num(" inst")?)?;
    let loops = parse(&num(" loops")?)?;
    let cycles = parse(&num(" cycles")?)?;
    let sf = num(" spills:fills")?;
    let (spills, fills) = sf
        .split_once(':')
        .ok_or_else(|| format!("`{sf}` is not S:F"))?;
    let (spills, fills) = (parse(spills)?, parse(fills)?);
    let sends = parse(
        num(" sends")
            .map(|s| s.trim_end_matches('.').to_string())?
            .as_str(),
    )?;
    Ok(Some(FinalLine {
        stage: stage.to_string(),
        simd,
        inst,
        loops,
        cycles,
        spills,
        fills,
        sends,
    }))
}

/// The programs of `asm.txt`, in order: `Native code for unnamed fragment shader GLSL1 (...)`.
fn asm_programs(path: &Path) -> Option<Vec<(String, String)>> {
    let text = std::fs::read_to_string(path).ok()?;
    Some(
        text.lines()
            .filter_map(|l| {
                let (stage, program) = eubatch_ir::import::listing::program_header(l)?.ok()?;
                Some((stage.abbrev().to_string(), program))
            })
            .collect(),
    )
}

fn stats_file(root: &Path, path: &Path, target: Option<Gen>) -> Result<Vec<ShaderStats>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    let dir = path.parent().unwrap_or(Path::new(""));
    let programs = asm_programs(&dir.join("asm.txt"));
    // Registers the final code touches, per program of asm.txt in order (none where the
    // listing cannot be read: the statistic is then absent, not guessed).
    let registers: Vec<u64> = target
        .and_then(|t| {
            let asm = dir.join("asm.txt");
            let text = std::fs::read_to_string(&asm).ok()?;
            eubatch_codegen::asm::read_asm(&text, &asm.to_string_lossy(), t).ok()
        })
        .map(|ps| {
            ps.iter()
                .map(|p| eubatch_regalloc::usage::registers_touched(&p.shader) as u64)
                .collect()
        })
        .unwrap_or_default();
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let at = |msg: String| format!("{}:{}: {msg}", path.display(), i + 1);
        let Some(l) = parse_line(line).map_err(at)? else {
            continue;
        };
        let k = out.len();
        let program = match programs.as_ref().and_then(|p| p.get(k)) {
            Some((stage, program)) if *stage == l.stage => program.clone(),
            Some((stage, _)) => {
                return Err(at(format!(
                    "shader {} is {} here but {stage} in asm.txt: the two files do not list the same programs",
                    k + 1,
                    l.stage
                )))
            }
            None => program_from_dumps(dir, &l).ok_or_else(|| {
                at(format!(
                    "cannot tell which program this {} shader is: no asm.txt header and not exactly one dump of it",
                    l.stage
                ))
            })?,
        };
        let width = l.simd.map_or(String::new(), |w| w.to_string());
        let leaf = format!("{}{width}-{program}", l.stage);
        let rel = dir.strip_prefix(root).unwrap_or(dir).to_string_lossy();
        out.push(ShaderStats {
            key: if rel.is_empty() {
                leaf
            } else {
                format!("{rel}/{leaf}")
            },
            stage: l.stage,
            simd: l.simd,
            instructions: Some(l.inst),
            sends: Some(l.sends),
            loops: Some(l.loops),
            cycles: Some(l.cycles),
            spills: Some(l.spills),
            fills: Some(l.fills),
            max_live_registers: None,
            registers: registers.get(k).copied(),
        });
    }
    Ok(out)
}

/// The program of the only start dump in `dir` with this stage and width.
fn program_from_dumps(dir: &Path, l: &FinalLine) -> Option<String> {
    let mut found: Vec<String> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| DumpName::parse(&e.ok()?.file_name().to_string_lossy()))
        .filter(|d| d.is_start() && d.stage.abbrev() == l.stage && d.width == l.simd)
        .map(|d| d.program)
        .collect();
    found.dedup();
    (found.len() == 1).then(|| found.remove(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_lines() {
        let l = parse_line(
            "source.shader_test - FS SIMD16 shader: 36 inst, 1 loops, 934 cycles, 2:3 spills:fills, 4 sends, scheduled with mode top-down, Promoted 0 constants, compacted 576 to 400 bytes.",
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            (l.stage.as_str(), l.simd, l.inst, l.loops, l.cycles),
            ("FS", Some(16), 36, 1, 934)
        );
        assert_eq!((l.spills, l.fills, l.sends), (2, 3, 4));
        let v = parse_line("source.shader_test - VS vec4 shader: 5 inst, 0 loops, 10 cycles, 0:0 spills:fills, 1 sends, compacted 1 to 1 bytes.")
            .unwrap()
            .unwrap();
        assert_eq!(v.simd, None);
        assert!(parse_line("rc=0").unwrap().is_none());
        assert!(parse_line("Thread 0 took 1.50 seconds").unwrap().is_none());
        let e = parse_line("source.shader_test - FS SIMD16 shader: 36 inst, 1 loops")
            .err()
            .unwrap();
        assert!(e.contains("cycles"), "{e}");
        assert!(parse_line("garbage").is_err());
    }
}
