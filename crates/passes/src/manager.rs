//! The pass manager: named passes, pipelines, Mesa's fixed-point loop, and the checks and
//! records around every pass run.
//!
//! A pipeline is a comma-separated list of pass names and loops: `dce,copy_prop` runs each
//! once; `loop(algebraic,copy_prop,dce)` repeats its body until no pass in it makes
//! progress (Mesa's `OPT()` loop in `fs_visitor::optimize`); `opt` is the optimization
//! loop. After every pass the verifier runs when asked (always in tests), the simulator
//! compares the shader before and after when asked (`--verify`), and a hook can dump the
//! IR (`--dump-after`, `--dump-all`).

use std::time::{Duration, Instant};

use eubatch_ir::Shader;

use crate::PassCx;

pub type PassFn = fn(&mut Shader, &mut PassCx) -> bool;

/// Every pass, by name.
pub const PASSES: &[(&str, PassFn)] = &[
    ("algebraic", crate::algebraic::run),
    ("cmod_prop", crate::cmod_prop::run),
    ("coalesce", crate::coalesce::run),
    ("coalesce_simd8", crate::lower::coalesce_simd8::run),
    ("combine_constants", crate::lower::combine_constants::run),
    ("compact", crate::compact::run),
    ("copy_prop", crate::copy_prop::run),
    ("cse", crate::cse::run),
    ("dce", crate::dce::run),
    ("dead_cf", crate::dead_cf::run),
    ("load_cse", crate::load_cse::run),
    ("lower_integer_mul", crate::lower::integer_mul::run),
    ("lower_linterp", crate::lower::linterp::run),
    ("lower_load_payload", crate::lower::load_payload::run),
    ("lower_logical_sends", crate::lower::logical_sends::run),
    ("lower_pack", crate::lower::pack::run),
    ("lower_regioning", crate::lower::regioning::run),
    ("lower_simd_width", crate::lower::simd_width::run),
    ("payload_cse", crate::payload_cse::run),
    ("predicated_break", crate::predicated_break::run),
    ("sat_prop", crate::sat_prop::run),
    ("sel_peephole", crate::sel_peephole::run),
    ("split", crate::split::run),
];

/// The optimization loop.
pub const OPT: &str =
    "split,loop(algebraic,cse,load_cse,sat_prop,copy_prop,cmod_prop,dce,dead_cf,predicated_break,sel_peephole,coalesce),compact";

/// Lowering to hardware form, after the optimization loop and followed by it again (what
/// lowering leaves behind — payload copies, split pieces — is what the loop cleans up).
pub const LOWER: &str = "opt,lower_load_payload,lower_pack,lower_linterp,lower_regioning,lower_simd_width,lower_integer_mul,lower_logical_sends,split,\
     loop(algebraic,cse,payload_cse,load_cse,sat_prop,copy_prop,cmod_prop,dce,dead_cf,predicated_break,sel_peephole,coalesce),\
     combine_constants,compact";

/// A parsed pipeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    Pass(usize),
    Loop(Vec<Step>),
}

/// Parses a pipeline string.
pub fn parse(pipeline: &str) -> Result<Vec<Step>, String> {
    let text = pipeline.replace(' ', "");
    let mut pos = 0;
    let steps = parse_list(text.as_bytes(), &mut pos)?;
    if pos != text.len() {
        return Err(format!(
            "unexpected `{}` in pipeline `{pipeline}`",
            &text[pos..]
        ));
    }
    Ok(steps)
}

fn parse_list(s: &[u8], pos: &mut usize) -> Result<Vec<Step>, String> {
    let mut steps = Vec::new();
    loop {
        let start = *pos;
        while *pos < s.len() && (s[*pos].is_ascii_alphanumeric() || s[*pos] == b'_') {
            *pos += 1;
        }
        let name = std::str::from_utf8(&s[start..*pos]).unwrap();
        if name == "opt" {
            steps.extend(parse(OPT)?);
        } else if name == "lower" {
            steps.extend(parse(LOWER)?);
        } else if name == "loop" && s.get(*pos) == Some(&b'(') {
            *pos += 1;
            let body = parse_list(s, pos)?;
            if s.get(*pos) != Some(&b')') {
                return Err("`loop(` without its `)`".into());
            }
            *pos += 1;
            steps.push(Step::Loop(body));
        } else {
            let k = PASSES.iter().position(|(n, _)| *n == name).ok_or_else(|| {
                let names: Vec<&str> = PASSES.iter().map(|p| p.0).collect();
                format!(
                    "unknown pass `{name}` (passes: {}, loop(...), opt, lower)",
                    names.join(", ")
                )
            })?;
            steps.push(Step::Pass(k));
        }
        if s.get(*pos) == Some(&b',') {
            *pos += 1;
        } else {
            return Ok(steps);
        }
    }
}

/// Runs, progress and time of each pass.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    pub runs: Vec<u64>,
    pub progress: Vec<u64>,
    pub time: Vec<Duration>,
}

impl Stats {
    pub fn new() -> Stats {
        Stats {
            runs: vec![0; PASSES.len()],
            progress: vec![0; PASSES.len()],
            time: vec![Duration::ZERO; PASSES.len()],
        }
    }

    pub fn add(&mut self, other: &Stats) {
        for k in 0..PASSES.len() {
            self.runs[k] += other.runs[k];
            self.progress[k] += other.progress[k];
            self.time[k] += other.time[k];
        }
    }
}

/// What to do around every pass run.
#[derive(Default)]
pub struct Checks<'a> {
    /// Run the verifier after every pass; a violation stops the pipeline.
    pub verify_ir: bool,
    /// Compare the shader before and after every pass that made progress, in the
    /// simulator, on these seeds.
    pub simulate_seeds: Option<std::ops::Range<u64>>,
    /// Called after every pass with its name and the shader.
    pub after_pass: Option<&'a mut dyn FnMut(&str, &Shader)>,
}

/// A pass broke something.
#[derive(Clone, Debug)]
pub struct PassError {
    pub pass: &'static str,
    pub msg: String,
}

impl std::fmt::Display for PassError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "after {}: {}", self.pass, self.msg)
    }
}

/// Runs `steps` on `shader`.
pub fn run(
    shader: &mut Shader,
    steps: &[Step],
    checks: &mut Checks<'_>,
    stats: &mut Stats,
) -> Result<bool, PassError> {
    let mut cx = PassCx::default();
    run_steps(shader, steps, checks, stats, &mut cx)
}

/// Iterations of a loop before it is stopped (a pass pair that undoes each other).
const MAX_LOOP: u32 = 100;

fn run_steps(
    shader: &mut Shader,
    steps: &[Step],
    checks: &mut Checks<'_>,
    stats: &mut Stats,
    cx: &mut PassCx,
) -> Result<bool, PassError> {
    let mut any = false;
    for step in steps {
        match step {
            Step::Pass(k) => any |= run_pass(shader, *k, checks, stats, cx)?,
            Step::Loop(body) => {
                let mut n = 0;
                while run_steps(shader, body, checks, stats, cx)? {
                    any = true;
                    n += 1;
                    if n == MAX_LOOP {
                        break;
                    }
                }
            }
        }
    }
    Ok(any)
}

fn run_pass(
    shader: &mut Shader,
    k: usize,
    checks: &mut Checks<'_>,
    stats: &mut Stats,
    cx: &mut PassCx,
) -> Result<bool, PassError> {
    let (name, f) = PASSES[k];
    let before = checks.simulate_seeds.as_ref().map(|_| shader.clone());
    let t = Instant::now();
    let progress = f(shader, cx);
    if progress {
        cx.invalidate();
    }
    stats.time[k] += t.elapsed();
    stats.runs[k] += 1;
    stats.progress[k] += progress as u64;
    if checks.verify_ir {
        if let Some(e) = eubatch_ir::verify::verify(shader).first() {
            return Err(PassError {
                pass: name,
                msg: format!("the verifier fails: {e}"),
            });
        }
    }
    if progress {
        if let (Some(seeds), Some(before)) = (checks.simulate_seeds.clone(), before) {
            check_equivalent(&before, shader, seeds)
                .map_err(|msg| PassError { pass: name, msg })?;
        }
    }
    if let Some(hook) = checks.after_pass.as_mut() {
        hook(name, shader);
    }
    Ok(progress)
}

/// Both shaders on the seeds: equal outputs, or the first difference. A shader the
/// simulator cannot run before the pass is not compared (it says so in its error).
fn check_equivalent(
    before: &Shader,
    after: &Shader,
    seeds: std::ops::Range<u64>,
) -> Result<(), String> {
    // One set of inputs for both, typed by the input shader's uses.
    let profile = eubatch_sim::profile::Profile::of(before);
    for seed in seeds {
        let Ok(a) = eubatch_sim::run_profiled(before, seed, &profile, STEPS, None) else {
            return Ok(());
        };
        let b = eubatch_sim::run_profiled(after, seed, &profile, STEPS, None)
            .map_err(|e| format!("seed {seed}: the result does not run: {e}"))?;
        if let Some(d) = eubatch_sim::first_difference(&a, &b) {
            return Err(format!("seed {seed}: outputs differ: {d}"));
        }
    }
    Ok(())
}

/// Step limit of the simulator checks.
const STEPS: u64 = 1_000_000;
