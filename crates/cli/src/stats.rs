//! Statistics files: one record per compiled shader variant in shader-db's terms, keyed by
//! the test's directory, stage, program and SIMD width, written by `eubatch compile
//! --stats` and `eubatch stats --mesa`, read by `eubatch report`.
//!
//! Two formats, chosen by the file's extension: JSON lines (`.json`, `.jsonl`: a header
//! object, then one object per shader) or CSV (`.csv`: a `#` header line, a column row,
//! one row per shader). The header records what makes two files comparable — the tool and
//! its version, the target, the stage the numbers come from and the options that change
//! results — and nothing that depends on the machine (no thread count, no time), so the
//! same inputs give the same file. A statistic a side does not have is absent (`null`, an
//! empty cell), not zero.

use std::path::Path;

use serde::{Deserialize, Serialize};

/// What a statistics file is about.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    /// `eubatch` or `mesa`.
    pub tool: String,
    pub version: String,
    pub target: String,
    /// Where the numbers come from: `opt` (eubatch stopped after the optimization loop),
    /// `pre-ra` (Mesa's pre_register_allocate dumps), `final` (Mesa's stats.txt).
    pub stage: String,
    /// Options that change the numbers (the pipeline).
    pub options: String,
    /// Shaders left out of the file because a pass of the pipeline does not handle them,
    /// by reason (absent when none was).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub left_out: Vec<LeftOut>,
}

/// Shaders a statistics file leaves out, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeftOut {
    pub shaders: u64,
    pub reason: String,
}

/// One shader variant's statistics.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShaderStats {
    /// `DIR/STAGE[WIDTH]-PROGRAM`, DIR relative to the corpus root.
    pub key: String,
    pub stage: String,
    /// Dispatch width; absent for vec4 (SIMD4x2) code.
    pub simd: Option<u8>,
    pub instructions: Option<u64>,
    pub sends: Option<u64>,
    pub loops: Option<u64>,
    pub cycles: Option<u64>,
    pub spills: Option<u64>,
    pub fills: Option<u64>,
    pub max_live_registers: Option<u64>,
    /// General registers the code in register form reads or writes, each counted once
    /// (`eubatch_regalloc::usage`): after `--regalloc`, or Mesa's final code. Absent from
    /// files written before register allocation (and from their JSON lines).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registers: Option<u64>,
}

/// How to read one statistic of a shader.
pub type Getter = fn(&ShaderStats) -> Option<u64>;

/// The statistics' names and how to read each, in report order.
pub const STATS: [(&str, Getter); 8] = [
    ("instructions", |s| s.instructions),
    ("sends", |s| s.sends),
    ("loops", |s| s.loops),
    ("cycles", |s| s.cycles),
    ("spills", |s| s.spills),
    ("fills", |s| s.fills),
    ("max live registers", |s| s.max_live_registers),
    ("registers", |s| s.registers),
];

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Line {
    Header(Header),
    Shader(ShaderStats),
}

fn is_csv(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "csv")
}

const COLUMNS: &str =
    "key,stage,simd,instructions,sends,loops,cycles,spills,fills,max_live_registers,registers";
/// The columns of files written before `registers` was one (read as they are).
const COLUMNS_BEFORE_REGISTERS: &str =
    "key,stage,simd,instructions,sends,loops,cycles,spills,fills,max_live_registers";

/// Writes `shaders` (sorted by key) under `header`.
pub fn write(path: &Path, header: &Header, shaders: &[ShaderStats]) -> std::io::Result<()> {
    let mut out = String::new();
    if is_csv(path) {
        out.push_str(&format!(
            "# tool={} version={} target={} stage={} options={}\n{COLUMNS}\n",
            header.tool, header.version, header.target, header.stage, header.options
        ));
        // Comment lines between the header and the column row: `# left out: N shaders: why`.
        for l in &header.left_out {
            out.insert_str(
                out.len() - COLUMNS.len() - 1,
                &format!(
                    "# left out: {} shaders: {}\n",
                    l.shaders,
                    l.reason.replace('\n', " ")
                ),
            );
        }
        let opt = |v: Option<u64>| v.map_or(String::new(), |v| v.to_string());
        // Keys are paths; one with a comma or a line break would shift the columns.
        if let Some(s) = shaders.iter().find(|s| s.key.contains([',', '\n', '\r'])) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!(
                    "shader `{}` has a comma in its name: write JSON lines (.json) instead of CSV",
                    s.key
                ),
            ));
        }
        for s in shaders {
            out.push_str(&format!(
                "{},{},{},{},{},{},{},{},{},{},{}\n",
                s.key,
                s.stage,
                s.simd.map_or(String::new(), |w| w.to_string()),
                opt(s.instructions),
                opt(s.sends),
                opt(s.loops),
                opt(s.cycles),
                opt(s.spills),
                opt(s.fills),
                opt(s.max_live_registers),
                opt(s.registers)
            ));
        }
    } else {
        out.push_str(&serde_json::to_string(&Line::Header(header.clone())).unwrap());
        out.push('\n');
        for s in shaders {
            out.push_str(&serde_json::to_string(&Line::Shader(s.clone())).unwrap());
            out.push('\n');
        }
    }
    std::fs::write(path, out)
}

/// Reads a statistics file; errors name the file and line.
pub fn read(path: &Path) -> Result<(Header, Vec<ShaderStats>), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let err = |line: usize, msg: String| format!("{}:{}: {msg}", path.display(), line + 1);
    let mut lines = text.lines().enumerate();
    let mut shaders = Vec::new();
    if is_csv(path) {
        let (_, first) = lines
            .next()
            .ok_or_else(|| err(0, "empty statistics file".into()))?;
        let mut h = Header {
            tool: String::new(),
            version: String::new(),
            target: String::new(),
            stage: String::new(),
            options: String::new(),
            left_out: Vec::new(),
        };
        let rest = first
            .strip_prefix("# ")
            .ok_or_else(|| err(0, "expected the `# tool=...` header line".into()))?;
        for kv in rest.split(' ') {
            match kv.split_once('=') {
                Some(("tool", v)) => h.tool = v.into(),
                Some(("version", v)) => h.version = v.into(),
                Some(("target", v)) => h.target = v.into(),
                Some(("stage", v)) => h.stage = v.into(),
                Some(("options", v)) => h.options = v.into(),
                _ => {}
            }
        }
        let mut next = lines.next();
        while let Some((i, l)) = next.filter(|(_, l)| l.starts_with("# left out: ")) {
            let bad = || err(i, "expected `# left out: N shaders: REASON`".into());
            let (n, reason) = l["# left out: ".len()..]
                .split_once(" shaders: ")
                .ok_or_else(bad)?;
            h.left_out.push(LeftOut {
                shaders: n.parse().map_err(|_| bad())?,
                reason: reason.into(),
            });
            next = lines.next();
        }
        let columns = match next {
            Some((_, c)) if c == COLUMNS => 11,
            Some((_, c)) if c == COLUMNS_BEFORE_REGISTERS => 10,
            Some((i, _)) => return Err(err(i, format!("expected the column row `{COLUMNS}`"))),
            None => return Err(err(1, "missing the column row (truncated file?)".into())),
        };
        for (i, l) in lines {
            let f: Vec<&str> = l.split(',').collect();
            if f.len() != columns {
                return Err(err(
                    i,
                    format!(
                        "expected {columns} columns, found {} (truncated file?)",
                        f.len()
                    ),
                ));
            }
            let num = |k: usize| -> Result<Option<u64>, String> {
                if f[k].is_empty() {
                    Ok(None)
                } else {
                    f[k].parse()
                        .map(Some)
                        .map_err(|_| err(i, format!("`{}` is not a count", f[k])))
                }
            };
            shaders.push(ShaderStats {
                key: f[0].into(),
                stage: f[1].into(),
                simd: match f[2] {
                    "" => None,
                    w => Some(
                        w.parse()
                            .map_err(|_| err(i, format!("`{w}` is not a SIMD width")))?,
                    ),
                },
                instructions: num(3)?,
                sends: num(4)?,
                loops: num(5)?,
                cycles: num(6)?,
                spills: num(7)?,
                fills: num(8)?,
                max_live_registers: num(9)?,
                registers: if columns > 10 { num(10)? } else { None },
            });
        }
        return Ok((h, shaders));
    }
    let mut header = None;
    for (i, l) in lines {
        match serde_json::from_str::<Line>(l)
            .map_err(|e| err(i, format!("{e} (truncated file?)")))?
        {
            Line::Header(h) if header.is_none() && i == 0 => header = Some(h),
            Line::Header(_) => return Err(err(i, "a second header".into())),
            Line::Shader(s) => shaders.push(s),
        }
    }
    let header = header.ok_or_else(|| err(0, "expected the header object first".into()))?;
    Ok((header, shaders))
}

/// The key of a dump at `path` under `root`: its directory relative to the root and its
/// stage, width and program (`shaders/dolphin/efb2tex/FS8-GLSL1`).
pub fn key(root: &Path, path: &Path, name: &eubatch_ir::import::DumpName) -> String {
    let dir = path
        .parent()
        .and_then(|d| d.strip_prefix(root).ok())
        .map(|d| d.to_string_lossy().into_owned())
        .unwrap_or_default();
    let width = name.width.map_or(String::new(), |w| w.to_string());
    let leaf = format!("{}{width}-{}", name.stage.abbrev(), name.program);
    if dir.is_empty() {
        leaf
    } else {
        format!("{dir}/{leaf}")
    }
}

/// The target a file's numbers are for: the one given, or the one every shader had.
pub fn target_name(
    given: Option<eubatch_ir::Gen>,
    seen: &std::collections::BTreeSet<&str>,
) -> String {
    match given {
        Some(g) => g.name().to_string(),
        None if seen.len() == 1 => seen.iter().next().unwrap().to_string(),
        None => format!(
            "mixed({})",
            seen.iter().copied().collect::<Vec<_>>().join("+")
        ),
    }
}
