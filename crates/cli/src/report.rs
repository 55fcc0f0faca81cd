//! `eubatch report A B`: what changed from statistics file A to B, shader by shader, in
//! the terms of shader-db's `report.py`: totals with absolute and relative change, how many
//! shaders each statistic helped (B smaller) and hurt (B larger); over the affected shaders
//! (those a statistic changed in) their totals and the mean and median relative change; the
//! same totals per shader stage; the most changed shaders; and the shaders only one side
//! has, by stage and width (the variants one compiler keeps and the other drops).
//!
//! Totals and helped/hurt counts are taken over the shaders both files have, and for each
//! statistic only over the shaders where both sides have it; a statistic one side does not
//! have at all is shown as absent, never as zero. Files about different targets, different
//! eubatch versions or incomparable stages (before register allocation against final code)
//! are refused unless `--force`, and then the difference is printed above the tables.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::stats::{Header, ShaderStats, STATS};

pub struct Options {
    /// Compare files that do not describe comparable things.
    pub force: bool,
    /// Write a self-contained HTML page here too.
    pub html: Option<PathBuf>,
    /// How many shaders to list as most changed, each way.
    pub top: usize,
}

/// One side of the comparison.
pub struct Side {
    pub path: String,
    pub header: Header,
    pub shaders: Vec<ShaderStats>,
}

/// One statistic's row.
#[derive(Debug, PartialEq, Eq)]
pub struct Row {
    pub name: &'static str,
    /// Summed over the shaders where both sides have the statistic; `None` when a side
    /// has it for no shader at all.
    pub total_a: Option<u64>,
    pub total_b: Option<u64>,
    pub helped: usize,
    pub hurt: usize,
    pub unchanged: usize,
}

impl Row {
    pub fn change(&self) -> Option<(i64, f64)> {
        let (a, b) = (self.total_a?, self.total_b?);
        let d = b as i64 - a as i64;
        Some((
            d,
            if a == 0 {
                0.0
            } else {
                100.0 * d as f64 / a as f64
            },
        ))
    }
}

/// One shader's values of a statistic on both sides.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    pub key: String,
    pub a: u64,
    pub b: u64,
}

impl Change {
    /// Relative change in percent; from 0 to anything counts as +100%.
    pub fn percent(&self) -> f64 {
        if self.a == 0 {
            if self.b == 0 {
                0.0
            } else {
                100.0
            }
        } else {
            100.0 * (self.b as f64 - self.a as f64) / self.a as f64
        }
    }
}

pub struct Report {
    pub rows: Vec<Row>,
    /// The same rows per shader stage (`FS`, `VS`, ...), over the shaders both sides have.
    pub stages: Vec<(String, Vec<Row>)>,
    /// Shaders only one side has, by stage and SIMD width (`FS SIMD16`, `VS vec4`): the
    /// variants one compiler keeps and the other drops.
    pub only_a_kinds: BTreeMap<String, usize>,
    pub only_b_kinds: BTreeMap<String, usize>,
    /// Per-shader values of every statistic both sides have, by statistic name.
    pub changes: BTreeMap<&'static str, Vec<Change>>,
    pub only_a: Vec<String>,
    pub only_b: Vec<String>,
    pub in_both: usize,
}

/// Why A and B should not be compared, if they should not.
pub fn incompatibilities(a: &Header, b: &Header) -> Vec<String> {
    let mut why = Vec::new();
    if a.target != b.target {
        why.push(format!(
            "different targets: A is for {}, B for {}",
            a.target, b.target
        ));
    }
    if a.tool == b.tool && a.version != b.version {
        why.push(format!(
            "different {} versions: A is {}, B is {}",
            a.tool, a.version, b.version
        ));
    }
    // After register allocation: Mesa's final code, and eubatch's code in register form
    // (`compile --regalloc`, from start dumps or Mesa's pre-RA dumps), which is before
    // scheduling and the generator's expansion: its spills, fills and registers compare
    // with Mesa's final code, its instruction count only roughly.
    let before_ra = |s: &str| !matches!(s, "final" | "ra" | "mesa-pre-ra+ra");
    if before_ra(&a.stage) != before_ra(&b.stage) {
        why.push(format!(
            "different stages: A counts `{}`, B counts `{}` (code before register allocation is compared with code before it, code after it with code after it)",
            a.stage, b.stage
        ));
    }
    why
}

/// Compares A with B.
pub fn compare(a: &[ShaderStats], b: &[ShaderStats]) -> Report {
    let index_b: BTreeMap<&str, &ShaderStats> = b.iter().map(|s| (s.key.as_str(), s)).collect();
    let keys_a: std::collections::BTreeSet<&str> = a.iter().map(|s| s.key.as_str()).collect();
    let mut pairs = Vec::new();
    let mut only_a = Vec::new();
    for s in a {
        match index_b.get(s.key.as_str()) {
            Some(t) => pairs.push((s, *t)),
            None => only_a.push(s.key.clone()),
        }
    }
    let only_b: Vec<String> = b
        .iter()
        .filter(|s| !keys_a.contains(s.key.as_str()))
        .map(|s| s.key.clone())
        .collect();
    let (rows, changes) = rows_of(a, b, &pairs);
    let mut stage_names: Vec<&str> = pairs.iter().map(|(s, _)| s.stage.as_str()).collect();
    stage_names.sort_unstable();
    stage_names.dedup();
    let stages = if stage_names.len() > 1 {
        stage_names
            .into_iter()
            .map(|st| {
                let sub: Vec<_> = pairs
                    .iter()
                    .filter(|(s, _)| s.stage == st)
                    .copied()
                    .collect();
                (st.to_string(), rows_of(a, b, &sub).0)
            })
            .collect()
    } else {
        Vec::new()
    };
    let kinds = |keys: &[String], side: &[ShaderStats]| {
        let by_key: BTreeMap<&str, &ShaderStats> =
            side.iter().map(|s| (s.key.as_str(), s)).collect();
        let mut m = BTreeMap::new();
        for k in keys {
            if let Some(s) = by_key.get(k.as_str()) {
                *m.entry(kind(s)).or_default() += 1;
            }
        }
        m
    };
    Report {
        only_a_kinds: kinds(&only_a, a),
        only_b_kinds: kinds(&only_b, b),
        rows,
        stages,
        changes,
        only_a,
        only_b,
        in_both: pairs.len(),
    }
}

/// `FS SIMD16`, `VS vec4`: a variant's stage and width.
fn kind(s: &ShaderStats) -> String {
    match s.simd {
        Some(w) => format!("{} SIMD{w}", s.stage),
        None => format!("{} vec4", s.stage),
    }
}

/// Every statistic's row over `pairs`, and the per-shader values of those both sides have
/// (`a` and `b`: whether a side has a statistic at all).
fn rows_of(
    a: &[ShaderStats],
    b: &[ShaderStats],
    pairs: &[(&ShaderStats, &ShaderStats)],
) -> (Vec<Row>, BTreeMap<&'static str, Vec<Change>>) {
    let mut rows = Vec::new();
    let mut changes = BTreeMap::new();
    for (name, get) in STATS {
        let has_a = a.iter().any(|s| get(s).is_some());
        let has_b = b.iter().any(|s| get(s).is_some());
        let mut row = Row {
            name,
            total_a: None,
            total_b: None,
            helped: 0,
            hurt: 0,
            unchanged: 0,
        };
        if has_a && has_b {
            let (mut ta, mut tb) = (0, 0);
            let mut list = Vec::new();
            for (s, t) in pairs {
                if let (Some(x), Some(y)) = (get(s), get(t)) {
                    ta += x;
                    tb += y;
                    match y.cmp(&x) {
                        std::cmp::Ordering::Less => row.helped += 1,
                        std::cmp::Ordering::Greater => row.hurt += 1,
                        std::cmp::Ordering::Equal => row.unchanged += 1,
                    }
                    list.push(Change {
                        key: s.key.clone(),
                        a: x,
                        b: y,
                    });
                }
            }
            row.total_a = Some(ta);
            row.total_b = Some(tb);
            changes.insert(name, list);
        } else {
            // Whatever a side does have is still its total: absent is only the side without.
            let total = |v: &[ShaderStats], has: bool| has.then(|| v.iter().filter_map(get).sum());
            row.total_a = total(a, has_a);
            row.total_b = total(b, has_b);
        }
        rows.push(row);
    }
    (rows, changes)
}

/// A statistic over the shaders it changed in (shader-db's "in affected programs"): how
/// many, their totals on each side, and the mean and median of their relative changes.
#[derive(Clone, Debug, PartialEq)]
pub struct Affected {
    pub shaders: usize,
    pub total_a: u64,
    pub total_b: u64,
    pub mean_percent: f64,
    pub median_percent: f64,
}

/// [`Affected`] of one statistic's per-shader values; `None` when no shader changed.
pub fn affected(list: &[Change]) -> Option<Affected> {
    let moved: Vec<&Change> = list.iter().filter(|c| c.a != c.b).collect();
    if moved.is_empty() {
        return None;
    }
    let mut p: Vec<f64> = moved.iter().map(|c| c.percent()).collect();
    p.sort_by(f64::total_cmp);
    let n = p.len();
    let median = if n % 2 == 1 {
        p[n / 2]
    } else {
        (p[n / 2 - 1] + p[n / 2]) / 2.0
    };
    Some(Affected {
        shaders: n,
        total_a: moved.iter().map(|c| c.a).sum(),
        total_b: moved.iter().map(|c| c.b).sum(),
        mean_percent: p.iter().sum::<f64>() / n as f64,
        median_percent: median,
    })
}

/// The `n` most helped and most hurt shaders of a statistic, by relative change (then
/// absolute change, then key, so ties come out the same every time).
pub fn most_changed(list: &[Change], n: usize) -> (Vec<&Change>, Vec<&Change>) {
    let mut moved: Vec<&Change> = list.iter().filter(|c| c.a != c.b).collect();
    moved.sort_by(|x, y| {
        x.percent()
            .total_cmp(&y.percent())
            .then((x.b as i64 - x.a as i64).cmp(&(y.b as i64 - y.a as i64)))
            .then(x.key.cmp(&y.key))
    });
    let helped = moved
        .iter()
        .take_while(|c| c.b < c.a)
        .take(n)
        .copied()
        .collect();
    let hurt = moved
        .iter()
        .rev()
        .take_while(|c| c.b > c.a)
        .take(n)
        .copied()
        .collect();
    (helped, hurt)
}

fn describe(h: &Header) -> String {
    let mut s = format!(
        "{} {}, target {}, stage {}",
        h.tool, h.version, h.target, h.stage
    );
    if !h.options.is_empty() {
        s.push_str(&format!(", options `{}`", h.options));
    }
    s
}

fn cell(v: Option<u64>) -> String {
    v.map_or("absent".into(), |v| v.to_string())
}

/// The statistics the per-stage breakdown shows.
const BY_STAGE: [&str; 4] = ["instructions", "cycles", "spills", "fills"];

/// The statistics whose most helped and most hurt shaders the report lists.
const MOST_CHANGED: [&str; 5] = ["instructions", "cycles", "spills", "fills", "registers"];

/// The report as text.
pub fn render_text(a: &Side, b: &Side, r: &Report, warnings: &[String], top: usize) -> String {
    let mut o = String::new();
    for w in warnings {
        o.push_str(&format!("warning: compared anyway (--force): {w}\n"));
    }
    o.push_str(&format!(
        "A: {} ({} shaders): {}\n",
        a.path,
        a.shaders.len(),
        describe(&a.header)
    ));
    o.push_str(&format!(
        "B: {} ({} shaders): {}\n",
        b.path,
        b.shaders.len(),
        describe(&b.header)
    ));
    for (name, side) in [("A", a), ("B", b)] {
        for l in &side.header.left_out {
            o.push_str(&format!(
                "{name} left out {} shaders its pipeline does not handle: {}\n",
                l.shaders, l.reason
            ));
        }
    }
    o.push_str(&format!(
        "{} shaders in both; totals below are over them, for each statistic where both sides have it\n\n",
        r.in_both
    ));
    o.push_str(&format!(
        "{:20} {:>12} {:>12} {:>22} {:>8} {:>8} {:>10}\n",
        "statistic", "A", "B", "change", "helped", "hurt", "unchanged"
    ));
    for row in &r.rows {
        let change = match row.change() {
            Some((d, p)) => format!("{d:+} ({p:+.2}%)"),
            None => "-".into(),
        };
        let counts = if row.total_a.is_some() && row.total_b.is_some() {
            format!("{:>8} {:>8} {:>10}", row.helped, row.hurt, row.unchanged)
        } else {
            format!("{:>28}", "")
        };
        o.push_str(&format!(
            "{:20} {:>12} {:>12} {:>22} {counts}\n",
            row.name,
            cell(row.total_a),
            cell(row.total_b),
            change
        ));
    }
    let affected_rows: Vec<(&str, Affected)> = r
        .rows
        .iter()
        .filter_map(|row| Some((row.name, affected(r.changes.get(row.name)?)?)))
        .collect();
    if !affected_rows.is_empty() {
        o.push_str(&format!(
            "\nin affected shaders (those the statistic changed in):\n{:20} {:>8} {:>12} {:>12} {:>10} {:>10} {:>10}\n",
            "statistic", "shaders", "A", "B", "change", "mean", "median"
        ));
        for (name, a) in &affected_rows {
            let total = 100.0 * (a.total_b as f64 - a.total_a as f64) / (a.total_a.max(1) as f64);
            o.push_str(&format!(
                "{:20} {:>8} {:>12} {:>12} {:>+9.2}% {:>+9.2}% {:>+9.2}%\n",
                name, a.shaders, a.total_a, a.total_b, total, a.mean_percent, a.median_percent
            ));
        }
    }
    for (stage, rows) in &r.stages {
        o.push_str(&format!("\n{stage}:\n"));
        for row in rows.iter().filter(|row| BY_STAGE.contains(&row.name)) {
            let (Some(ta), Some(tb)) = (row.total_a, row.total_b) else {
                continue;
            };
            let change = row
                .change()
                .map_or("-".into(), |(d, p)| format!("{d:+} ({p:+.2}%)"));
            o.push_str(&format!(
                "  {:18} {:>12} {:>12} {:>22} {:>8} {:>8} {:>10}\n",
                row.name, ta, tb, change, row.helped, row.hurt, row.unchanged
            ));
        }
    }
    // The statistics users compare shader by shader (instructions and cycles for passes;
    // spills, fills and registers for allocators), each where some shader moved.
    for stat in MOST_CHANGED {
        let Some(list) = r.changes.get(stat) else {
            continue;
        };
        let (helped, hurt) = most_changed(list, top);
        for (title, set) in [("most helped", helped), ("most hurt", hurt)] {
            if set.is_empty() {
                continue;
            }
            o.push_str(&format!("\n{title} ({stat}):\n"));
            for c in set {
                o.push_str(&format!(
                    "  {:>7} -> {:>7} ({:+.2}%)  {}\n",
                    c.a,
                    c.b,
                    c.percent(),
                    c.key
                ));
            }
        }
    }
    for (title, keys, kinds) in [
        ("only in A", &r.only_a, &r.only_a_kinds),
        ("only in B", &r.only_b, &r.only_b_kinds),
    ] {
        if keys.is_empty() {
            continue;
        }
        let by_kind: Vec<String> = kinds.iter().map(|(k, n)| format!("{n} {k}")).collect();
        o.push_str(&format!(
            "\n{title}: {} shaders ({})\n",
            keys.len(),
            by_kind.join(", ")
        ));
        for k in keys.iter().take(top) {
            o.push_str(&format!("  {k}\n"));
        }
        if keys.len() > top {
            o.push_str(&format!("  ... and {} more\n", keys.len() - top));
        }
    }
    o
}

fn load(path: &Path) -> Result<Side, String> {
    let (header, shaders) = crate::stats::read(path)?;
    let mut seen = std::collections::HashSet::new();
    if let Some(dup) = shaders.iter().find(|s| !seen.insert(s.key.as_str())) {
        return Err(format!(
            "{}: shader `{}` appears twice",
            path.display(),
            dup.key
        ));
    }
    Ok(Side {
        path: path.display().to_string(),
        header,
        shaders,
    })
}

pub fn run(a: &Path, b: &Path, opts: &Options) -> ExitCode {
    let (a, b) = match (load(a), load(b)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let why = incompatibilities(&a.header, &b.header);
    if !why.is_empty() && !opts.force {
        for w in &why {
            eprintln!("error: not comparable: {w}");
        }
        eprintln!("(--force compares them anyway)");
        return ExitCode::FAILURE;
    }
    let report = compare(&a.shaders, &b.shaders);
    print!("{}", render_text(&a, &b, &report, &why, opts.top));
    if let Some(out) = &opts.html {
        let page = crate::report_html::render(&a, &b, &report, &why, opts.top);
        if let Err(e) = std::fs::write(out, page) {
            eprintln!("error: {}: {e}", out.display());
            return ExitCode::FAILURE;
        }
        println!("\nHTML report written to {}", out.display());
    }
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(a: u64, b: u64) -> Change {
        Change {
            key: format!("{a}-{b}"),
            a,
            b,
        }
    }

    #[test]
    fn affected_shaders_are_those_that_changed_with_mean_and_median() {
        let list = [change(10, 10), change(10, 5), change(10, 20), change(4, 5)];
        let a = affected(&list).unwrap();
        assert_eq!((a.shaders, a.total_a, a.total_b), (3, 24, 30));
        // -50%, +100%, +25%.
        assert!((a.mean_percent - 25.0).abs() < 1e-9);
        assert!((a.median_percent - 25.0).abs() < 1e-9);
        assert_eq!(affected(&[change(3, 3)]), None);
        let even = affected(&[change(10, 5), change(10, 20)]).unwrap();
        assert!((even.median_percent - 25.0).abs() < 1e-9);
    }
}
