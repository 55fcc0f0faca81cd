//! `eubatch report --html OUT`: the report as one self-contained page — inline style and
//! inline SVG plots, no script and nothing fetched — so it can be mailed, attached to a
//! merge request or opened offline.
//!
//! Plots: the distribution of per-shader relative changes in instruction count (5% bins,
//! the ends gathering everything beyond ±100%), and register pressure (most registers live
//! at once) of every shader, A against B, with the diagonal where nothing changed.

use std::fmt::Write;

use crate::report::{most_changed, Change, Report, Side};

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

const STYLE: &str = "body{font-family:sans-serif;margin:2em;color:#222}\
table{border-collapse:collapse;margin:1em 0}td,th{padding:.25em .7em;border-bottom:1px solid #ddd;text-align:right}\
td:first-child,th:first-child{text-align:left}.helped{color:#1a7f37}.hurt{color:#b42318}\
.absent{color:#888;font-style:italic}code{background:#f4f4f4;padding:0 .2em}svg{background:#fafafa;border:1px solid #ddd}";

pub fn render(a: &Side, b: &Side, r: &Report, warnings: &[String], top: usize) -> String {
    let mut o = String::new();
    let _ = write!(
        o,
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>eubatch report</title><style>{STYLE}</style></head><body>"
    );
    let _ = write!(o, "<h1>eubatch report</h1>");
    for w in warnings {
        let _ = write!(
            o,
            "<p class=\"hurt\"><b>Compared anyway (--force):</b> {}</p>",
            esc(w)
        );
    }
    let _ = write!(o, "<table><tr><th></th><th>file</th><th>tool</th><th>target</th><th>stage</th><th>options</th><th>shaders</th></tr>");
    for (name, s) in [("A", a), ("B", b)] {
        let h = &s.header;
        let _ = write!(
            o,
            "<tr><td>{name}</td><td>{}</td><td>{} {}</td><td>{}</td><td>{}</td><td><code>{}</code></td><td>{}</td></tr>",
            esc(&s.path),
            esc(&h.tool),
            esc(&h.version),
            esc(&h.target),
            esc(&h.stage),
            esc(&h.options),
            s.shaders.len()
        );
    }
    let _ = write!(
        o,
        "</table><p>{} shaders in both files. Totals are over them, for each statistic where both sides have it; \
         <span class=\"absent\">absent</span> means a side does not have the statistic at all.</p>",
        r.in_both
    );
    let _ = write!(o, "<h2>Totals</h2><table><tr><th>statistic</th><th>A</th><th>B</th><th>change</th><th>helped</th><th>hurt</th><th>unchanged</th></tr>");
    for row in &r.rows {
        let cell = |v: Option<u64>| {
            v.map_or("<span class=\"absent\">absent</span>".to_string(), |v| {
                v.to_string()
            })
        };
        let (change, counts) = match row.change() {
            Some((d, p)) => {
                let class = if d < 0 {
                    "helped"
                } else if d > 0 {
                    "hurt"
                } else {
                    ""
                };
                (
                    format!("<span class=\"{class}\">{d:+} ({p:+.2}%)</span>"),
                    format!(
                        "<td class=\"helped\">{}</td><td class=\"hurt\">{}</td><td>{}</td>",
                        row.helped, row.hurt, row.unchanged
                    ),
                )
            }
            None => ("–".into(), "<td></td><td></td><td></td>".into()),
        };
        let _ = write!(
            o,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{change}</td>{counts}</tr>",
            row.name,
            cell(row.total_a),
            cell(row.total_b)
        );
    }
    o.push_str("</table>");
    if let Some(list) = r.changes.get("instructions") {
        o.push_str("<h2>Per-shader change in instructions</h2>");
        o.push_str(&histogram(list));
        let (helped, hurt) = most_changed(list, top);
        for (title, set, class) in [
            ("Most helped", helped, "helped"),
            ("Most hurt", hurt, "hurt"),
        ] {
            if set.is_empty() {
                continue;
            }
            let _ = write!(o, "<h3>{title}</h3><table><tr><th>shader</th><th>A</th><th>B</th><th>change</th></tr>");
            for c in set {
                let _ = write!(
                    o,
                    "<tr><td>{}</td><td>{}</td><td>{}</td><td class=\"{class}\">{:+.2}%</td></tr>",
                    esc(&c.key),
                    c.a,
                    c.b,
                    c.percent()
                );
            }
            o.push_str("</table>");
        }
    }
    o.push_str("<h2>Register pressure (most registers live at once)</h2>");
    match r.changes.get("max live registers") {
        Some(list) if !list.is_empty() => o.push_str(&scatter(list)),
        _ => o.push_str(
            "<p class=\"absent\">Not compared: a side does not record register pressure.</p>",
        ),
    }
    for (title, keys) in [("Only in A", &r.only_a), ("Only in B", &r.only_b)] {
        if keys.is_empty() {
            continue;
        }
        let _ = write!(o, "<h2>{title}: {} shaders</h2><ul>", keys.len());
        for k in keys.iter().take(top) {
            let _ = write!(o, "<li>{}</li>", esc(k));
        }
        if keys.len() > top {
            let _ = write!(o, "<li>… and {} more</li>", keys.len() - top);
        }
        o.push_str("</ul>");
    }
    o.push_str("</body></html>\n");
    o
}

const W: f64 = 720.0;
const H: f64 = 300.0;
const M: f64 = 40.0;

/// Bars of how many shaders changed by how much, in 5% bins from -100% to +100%.
fn histogram(list: &[Change]) -> String {
    const BINS: usize = 41; // -100..=+100 in steps of 5, the ends open
    let mut counts = [0usize; BINS];
    for c in list {
        let p = c.percent().clamp(-100.0, 100.0);
        counts[((p + 100.0) / 5.0).round() as usize] += 1;
    }
    let max = counts.iter().copied().max().unwrap_or(0).max(1) as f64;
    let bw = (W - 2.0 * M) / BINS as f64;
    let mut s = format!("<svg width=\"{W}\" height=\"{H}\" viewBox=\"0 0 {W} {H}\" xmlns=\"http://www.w3.org/2000/svg\" font-size=\"11\">");
    for (i, &n) in counts.iter().enumerate() {
        let h = (H - 2.0 * M) * n as f64 / max;
        let x = M + i as f64 * bw;
        let pct = i as i64 * 5 - 100;
        let colour = match pct.cmp(&0) {
            std::cmp::Ordering::Less => "#1a7f37",
            std::cmp::Ordering::Greater => "#b42318",
            std::cmp::Ordering::Equal => "#888",
        };
        let _ = write!(
            s,
            "<rect x=\"{x:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{h:.1}\" fill=\"{colour}\"><title>{pct:+}%: {n} shaders</title></rect>",
            H - M - h,
            bw - 1.0
        );
        if pct % 25 == 0 {
            let _ = write!(
                s,
                "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{pct:+}%</text>",
                x + bw / 2.0,
                H - M + 15.0
            );
        }
    }
    let _ = write!(
        s,
        "<text x=\"{M}\" y=\"{:.1}\">{} shaders at most (tallest bar); green: fewer instructions in B, red: more, grey: within ±2.5%</text></svg>",
        M - 15.0,
        max as usize
    );
    s
}

/// One dot per shader: pressure in A across, in B up.
fn scatter(list: &[Change]) -> String {
    let max = list.iter().map(|c| c.a.max(c.b)).max().unwrap_or(1).max(1) as f64;
    let side = 420.0;
    let plot = side - 2.0 * M;
    let pos = |v: u64| v as f64 / max * plot;
    let mut s = format!(
        "<svg width=\"{side}\" height=\"{side}\" viewBox=\"0 0 {side} {side}\" xmlns=\"http://www.w3.org/2000/svg\" font-size=\"11\">\
         <line x1=\"{M}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{M}\" stroke=\"#bbb\"/>",
        side - M,
        side - M
    );
    for c in list {
        let colour = match c.b.cmp(&c.a) {
            std::cmp::Ordering::Less => "#1a7f37",
            std::cmp::Ordering::Greater => "#b42318",
            std::cmp::Ordering::Equal => "#888",
        };
        let _ = write!(
            s,
            "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"2\" fill=\"{colour}\" fill-opacity=\"0.5\"><title>{}: {} → {}</title></circle>",
            M + pos(c.a),
            side - M - pos(c.b),
            esc(&c.key),
            c.a,
            c.b
        );
    }
    let _ = write!(
        s,
        "<text x=\"{M}\" y=\"{:.1}\">A → (0..{max})</text><text x=\"12\" y=\"{M}\" transform=\"rotate(-90 12 {M})\" text-anchor=\"end\">B →</text></svg>",
        side - 12.0
    );
    s
}
