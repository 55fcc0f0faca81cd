//! The pass manager: named passes, pipelines, Mesa's fixed-point loop, and the checks and
//! records around every pass run.
//!
//! A pipeline is a comma-separated list of pass names and loops: `dce,copy_prop` runs each
//! once; `loop(algebraic,copy_prop,dce)` repeats its body until no pass in it makes
//! progress (Mesa's `OPT()` loop in `fs_visitor::optimize`); `opt` is the optimization
//! loop. After every pass the verifier runs when asked (always in tests), an equivalence
//! check the caller hands in (the simulator, with `--verify` and in tests) compares the
//! shader before and after, and a hook can dump the IR (`--dump-after`, `--dump-all`).

use std::time::{Duration, Instant};

use eubatch_ir::{Backend, Gen, Shader, Stage};

use crate::analysis::changed::{Changed, Snapshot};
use crate::PassCx;

/// A pass: it changes the shader in place and returns what it changed
/// ([`Changed::NOTHING`]: no progress), which decides the analyses kept.
pub type PassFn = fn(&mut Shader, &mut PassCx) -> Changed;

/// What a pass handles: the code its analyses and rewrites understand. Each pass file
/// declares its `SCOPE`; before running anything, [`run`] refuses a shader that a pass of
/// the pipeline does not handle, naming the pass and why ([`ErrorKind::Refused`]).
#[derive(Clone, Copy, Debug)]
pub struct Scope {
    /// Back ends whose code the pass understands.
    pub backends: &'static [Backend],
    /// Whether it understands Align16 swizzles and writemasks in scalar code.
    pub swizzles: bool,
    /// The targets it handles, first and last.
    pub targets: (Gen, Gen),
    /// The stages it handles.
    pub stages: &'static [Stage],
    /// What the pass assumes of the code, said when it refuses a shader.
    pub assumes: &'static str,
}

/// Every stage.
pub const ALL_STAGES: &[Stage] = &Stage::ALL;

impl Scope {
    /// The scalar back end's code, on every target and stage: the scope of a pass that
    /// reads operands as Align1 regions.
    pub const SCALAR: Scope = Scope {
        backends: &[Backend::Scalar],
        swizzles: false,
        targets: (Gen::Gen7, Gen::Gen12),
        stages: ALL_STAGES,
        assumes: "it reads operands as Align1 regions (offset, stride, type), without swizzles, writemasks or SIMD4x2 channels",
    };

    /// Every back end, target and stage: a pass that reads no operand regions, or whose
    /// analyses take what they cannot read whole ([`crate::analysis::access::opaque`]).
    pub const ANY: Scope = Scope {
        backends: &[Backend::Scalar, Backend::Vec4],
        swizzles: true,
        targets: (Gen::Gen7, Gen::Gen12),
        stages: ALL_STAGES,
        assumes: "",
    };

    /// Why this scope leaves `shader` out, if it does. `swizzle` is the shader's first
    /// Align16 swizzle or writemask, looked for at most once across a pipeline's scopes.
    fn refuses(&self, shader: &Shader, swizzle: &mut FirstSwizzle) -> Option<String> {
        if !self.backends.contains(&shader.backend) {
            let what = match shader.backend {
                Backend::Scalar => "scalar (Align1) shaders",
                Backend::Vec4 => "vec4 (Align16) shaders",
            };
            return Some(format!("does not handle {what}: {}", self.assumes));
        }
        if shader.target < self.targets.0 || shader.target > self.targets.1 {
            return Some(format!(
                "does not handle {} (gen{}): {}",
                shader.target.name(),
                shader.target.verx10() as f32 / 10.0,
                self.assumes
            ));
        }
        if !self.stages.contains(&shader.stage) {
            return Some(format!(
                "does not handle {} shaders: {}",
                shader.stage.mesa_name(),
                self.assumes
            ));
        }
        if !self.swizzles && shader.backend == Backend::Scalar {
            if let Some(inst) = *swizzle.get_or_insert_with(|| {
                shader
                    .layout
                    .insts()
                    .find(|&i| shader.has_swizzle_or_writemask(i))
            }) {
                return Some(format!(
                    "does not handle Align16 swizzles or writemasks (instruction {}): {}",
                    inst.index(),
                    self.assumes
                ));
            }
        }
        None
    }
}

/// The first instruction of a shader with an Align16 swizzle or writemask, once looked for.
type FirstSwizzle = Option<Option<eubatch_ir::Inst>>;

/// A pass: its name, what it does, and what it handles.
#[derive(Clone, Copy, Debug)]
pub struct Pass {
    pub name: &'static str,
    pub run: PassFn,
    pub scope: Scope,
}

macro_rules! passes {
    ($($name:literal => $module:path),* $(,)?) => {
        &[$(Pass { name: $name, run: { use $module as m; m::run }, scope: { use $module as m; m::SCOPE } }),*]
    };
}

/// Every pass, by name.
pub const PASSES: &[Pass] = passes![
    "algebraic" => crate::algebraic,
    "cmod_prop" => crate::cmod_prop,
    "coalesce" => crate::coalesce,
    "coalesce_simd8" => crate::lower::coalesce_simd8,
    "combine_constants" => crate::lower::combine_constants,
    "compact" => crate::compact,
    "copy_prop" => crate::copy_prop,
    "cse" => crate::cse,
    "dce" => crate::dce,
    "dead_cf" => crate::dead_cf,
    "fixup_3src_null_dest" => crate::lower::three_src_null_dest,
    "load_cse" => crate::load_cse,
    "lower_df_swizzles" => crate::lower::df_swizzles,
    "lower_df_swizzles_ap" => crate::lower::df_swizzles::ap,
    "lower_df_swizzles_b" => crate::lower::df_swizzles::b,
    "lower_df_swizzles_cm" => crate::lower::df_swizzles::cm,
    "lower_df_swizzles_dm" => crate::lower::df_swizzles::dm,
    "lower_df_swizzles_e" => crate::lower::df_swizzles::e,
    "lower_df_swizzles_mesa" => crate::lower::df_swizzles::mesa,
    "lower_integer_mul" => crate::lower::integer_mul,
    "lower_linterp" => crate::lower::linterp,
    "lower_load_payload" => crate::lower::load_payload,
    "lower_logical_sends" => crate::lower::logical_sends,
    "lower_pack" => crate::lower::pack,
    "lower_regioning" => crate::lower::regioning,
    "lower_scalar_fp64_mad" => crate::lower::scalar_fp64_mad,
    "lower_simd_width" => crate::lower::simd_width,
    "lower_subgroup_ops" => crate::lower::subgroup_ops,
    "lower_wide_immediates" => crate::lower::wide_immediates,
    "payload_cse" => crate::payload_cse,
    "predicated_break" => crate::predicated_break,
    "sat_prop" => crate::sat_prop,
    "schedule_lifo" => crate::schedule::lifo,
    "schedule_non_lifo" => crate::schedule::non_lifo,
    "schedule_top_down" => crate::schedule::top_down,
    "sel_peephole" => crate::sel_peephole,
    "split" => crate::split,
    "tex_response" => crate::tex_response,
    "vec4_dead_channels" => crate::vec4_dead_channels,
    "zero_samples" => crate::lower::zero_samples,
];

/// The index of the pass named `name`.
pub fn pass_index(name: &str) -> Option<usize> {
    PASSES.iter().position(|p| p.name == name)
}

/// The optimization loop.
pub const OPT: &str =
    "split,loop(algebraic,cse,load_cse,sat_prop,copy_prop,cmod_prop,dce,dead_cf,predicated_break,sel_peephole,coalesce),compact";

/// Lowering to hardware form, after the optimization loop and followed by it again (what
/// lowering leaves behind — payload copies, split pieces — is what the loop cleans up).
pub const LOWER: &str = "opt,tex_response,lower_load_payload,lower_pack,lower_subgroup_ops,lower_wide_immediates,lower_linterp,lower_regioning,lower_simd_width,lower_scalar_fp64_mad,lower_integer_mul,lower_logical_sends,split,\
     loop(algebraic,cse,payload_cse,load_cse,sat_prop,copy_prop,cmod_prop,zero_samples,dce,dead_cf,predicated_break,sel_peephole,coalesce),\
     combine_constants,fixup_3src_null_dest,compact";

/// vec4 (Align16, SIMD4x2) code's optimization loop, modelled on Mesa 22.3's
/// `vec4_visitor::run()` (brw_vec4.cpp), whose loop is `opt_predicated_break,
/// opt_reduce_swizzle, dead_code_eliminate, dead_control_flow_eliminate,
/// opt_copy_propagation, opt_cmod_propagation, opt_cse, opt_algebraic,
/// opt_register_coalesce, eliminate_find_live_channel`. Of those, eubatch has here only the
/// passes that are sound on Align16 code: the ones that read no operand region
/// (`predicated_break`, `dead_cf`: control flow and predicates only), `dce`, whose slot
/// analysis takes every vec4 access whole ([`crate::analysis::access::opaque`]), and
/// vec4's own `vec4_dead_channels` (Mesa's per-component `dead_code_eliminate`). The
/// scalar copy propagation, CSE, algebraic, cmod propagation and coalescing read operands as
/// Align1 regions and would miscompile swizzles and writemasks; vec4 versions of them are
/// still to come (issue 19). Mesa's start dump is taken after `split_virtual_grfs`, so
/// there is no `split` here.
pub const OPT_VEC4: &str = "loop(predicated_break,vec4_dead_channels,dce,dead_cf),compact";

/// vec4 code's lowering before register allocation, after its optimization loop and
/// followed by it again, in Mesa 22.3's order (`vec4_visitor::run()`): what Mesa does after
/// its loop is `opt_vector_float` (not in eubatch yet), `lower_simd_width` and
/// `lower_64bit_mad_to_mul_add` (DF only: no corpus shader has a DF `mad` or needs a
/// narrower width outside DF swizzles, which eubatch's DF pass splits itself),
/// `scalarize_df` (here `lower_df_swizzles`, seed 000's splitting, at its default level
/// `all`), `setup_payload` (fixed registers for push constants and attributes: done by
/// register allocation in eubatch, as for scalar code) and `fixup_3src_null_dest`. vec4's
/// messages (URB writes, pull constants, sampler) are already sends in the start IR, as
/// the vec4 visitor emits them; the generator, not a pass, makes their payload moves.
pub const LOWER_VEC4: &str =
    "opt,lower_df_swizzles,loop(predicated_break,vec4_dead_channels,dce,dead_cf),compact";

/// What a pipeline name stands for on a back end: `opt` and `lower` are each back end's
/// own, because the scalar passes read Align1 regions and vec4 code needs its own passes
/// and lowering. This is the one place the choice is made: a parsed `opt` or `lower` keeps
/// both ([`Step::ByBackend`]) and every run, refusal and pass list takes the shader's.
pub fn named_pipeline(name: &str, backend: Backend) -> Option<&'static str> {
    match (name, backend) {
        ("opt", Backend::Scalar) => Some(OPT),
        ("lower", Backend::Scalar) => Some(LOWER),
        ("opt", Backend::Vec4) => Some(OPT_VEC4),
        ("lower", Backend::Vec4) => Some(LOWER_VEC4),
        _ => None,
    }
}

/// A parsed pipeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    Pass(usize),
    Loop(Vec<Step>),
    /// A named pipeline (`opt`, `lower`): the steps for scalar code, then for vec4 code
    /// ([`named_pipeline`]); a shader runs those of its back end.
    ByBackend(Box<[Vec<Step>; 2]>),
}

impl Step {
    /// The steps a [`Step::ByBackend`] runs for `backend`.
    fn for_backend(alternatives: &[Vec<Step>; 2], backend: Backend) -> &[Step] {
        match backend {
            Backend::Scalar => &alternatives[0],
            Backend::Vec4 => &alternatives[1],
        }
    }
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
        if let (Some(scalar), Some(vec4)) = (
            named_pipeline(name, Backend::Scalar),
            named_pipeline(name, Backend::Vec4),
        ) {
            steps.push(Step::ByBackend(Box::new([parse(scalar)?, parse(vec4)?])));
        } else if name == "loop" && s.get(*pos) == Some(&b'(') {
            *pos += 1;
            let body = parse_list(s, pos)?;
            if s.get(*pos) != Some(&b')') {
                return Err("`loop(` without its `)`".into());
            }
            *pos += 1;
            steps.push(Step::Loop(body));
        } else {
            let k = pass_index(name).ok_or_else(|| {
                let names: Vec<&str> = PASSES.iter().map(|p| p.name).collect();
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

/// Runs, progress, time and simulator checks of each pass.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    pub runs: Vec<u64>,
    pub progress: Vec<u64>,
    pub time: Vec<Duration>,
    /// Runs that made progress and were compared in the simulator with their input.
    pub checked: Vec<u64>,
    /// Runs that made progress and could not be compared (the simulator cannot run the
    /// input), and why, summed over passes.
    pub unchecked: Vec<u64>,
    pub unchecked_reasons: std::collections::BTreeMap<String, u64>,
}

impl Stats {
    pub fn new() -> Stats {
        Stats {
            runs: vec![0; PASSES.len()],
            progress: vec![0; PASSES.len()],
            time: vec![Duration::ZERO; PASSES.len()],
            checked: vec![0; PASSES.len()],
            unchecked: vec![0; PASSES.len()],
            unchecked_reasons: Default::default(),
        }
    }

    pub fn add(&mut self, other: &Stats) {
        for k in 0..PASSES.len() {
            self.runs[k] += other.runs[k];
            self.progress[k] += other.progress[k];
            self.time[k] += other.time[k];
            self.checked[k] += other.checked[k];
            self.unchecked[k] += other.unchecked[k];
        }
        for (r, n) in &other.unchecked_reasons {
            *self.unchecked_reasons.entry(r.clone()).or_default() += n;
        }
    }
}

/// Compares a pass's input and output.
pub type Equivalence<'a> = &'a dyn Fn(&Shader, &Shader) -> Check;

/// What to do around every pass run.
#[derive(Default)]
pub struct Checks<'a> {
    /// Run the verifier after every pass; a violation stops the pipeline.
    pub verify_ir: bool,
    /// Compare the shader before and after every pass that made progress: the simulator,
    /// handed in by the driver or the test (this crate does not run shaders).
    pub equivalence: Option<Equivalence<'a>>,
    /// Called after every pass with its name and the shader.
    pub after_pass: Option<&'a mut dyn FnMut(&str, &Shader)>,
}

/// Why a pipeline stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// A pass of the pipeline does not handle the shader (its [`Scope`]): nothing ran.
    Refused,
    /// A pass broke something: the verifier or the simulator found it.
    Failed,
}

/// A pass refused the shader or broke something.
#[derive(Clone, Debug)]
pub struct PassError {
    pub pass: &'static str,
    pub kind: ErrorKind,
    pub msg: String,
}

impl std::fmt::Display for PassError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.kind {
            ErrorKind::Refused => write!(f, "not compiled: `{}` {}", self.pass, self.msg),
            ErrorKind::Failed => write!(f, "after {}: {}", self.pass, self.msg),
        }
    }
}

/// The passes `steps` runs on `backend`'s code, each once, in order.
pub fn passes_of(steps: &[Step], backend: Backend, out: &mut Vec<usize>) {
    for step in steps {
        match step {
            Step::Pass(k) if !out.contains(k) => out.push(*k),
            Step::Pass(_) => {}
            Step::Loop(body) => passes_of(body, backend, out),
            Step::ByBackend(alt) => passes_of(Step::for_backend(alt, backend), backend, out),
        }
    }
}

/// Why `steps` would not run on `shader`: the first pass of the pipeline whose scope
/// leaves it out.
pub fn refusal(shader: &Shader, steps: &[Step]) -> Option<PassError> {
    let mut passes = Vec::new();
    passes_of(steps, shader.backend, &mut passes);
    let mut swizzle = FirstSwizzle::default();
    passes.into_iter().find_map(|k| {
        PASSES[k]
            .scope
            .refuses(shader, &mut swizzle)
            .map(|msg| PassError {
                pass: PASSES[k].name,
                kind: ErrorKind::Refused,
                msg,
            })
    })
}

/// Runs `steps` on `shader`, or refuses it whole (nothing runs) when a pass of the
/// pipeline does not handle it.
pub fn run(
    shader: &mut Shader,
    steps: &[Step],
    checks: &mut Checks<'_>,
    stats: &mut Stats,
) -> Result<bool, PassError> {
    run_with(shader, steps, checks, stats, &mut PassCx::default())
}

/// [`run`], with the analyses in `cx`: what the passes last computed stays there for the
/// caller (register pressure of the result, say, from the table the last pass left).
pub fn run_with(
    shader: &mut Shader,
    steps: &[Step],
    checks: &mut Checks<'_>,
    stats: &mut Stats,
    cx: &mut PassCx,
) -> Result<bool, PassError> {
    if let Some(e) = refusal(shader, steps) {
        return Err(e);
    }
    // Where the thread's inputs sit is a fact of the input, not of what the passes leave
    // (they drop reads of push constants and payload registers).
    shader.freeze_inputs();
    let mut idle = vec![None; PASSES.len()];
    run_steps(shader, steps, checks, stats, cx, &mut idle)
}

/// Per pass, the version of the shader ([`PassCx::version`]) it last ran on without
/// changing it. A pass is a function of the shader: run again on the same version it would
/// find nothing again, so it is not run (the last round of a loop mostly meets passes
/// whose input has not changed since they last looked at it).
type Idle = Vec<Option<u64>>;

/// Iterations of a loop before it is stopped (a pass pair that undoes each other).
const MAX_LOOP: u32 = 100;

fn run_steps(
    shader: &mut Shader,
    steps: &[Step],
    checks: &mut Checks<'_>,
    stats: &mut Stats,
    cx: &mut PassCx,
    idle: &mut Idle,
) -> Result<bool, PassError> {
    let mut any = false;
    for step in steps {
        match step {
            Step::Pass(k) if idle[*k] == Some(cx.version) => {
                if let Some(hook) = checks.after_pass.as_mut() {
                    hook(PASSES[*k].name, shader);
                }
            }
            Step::Pass(k) => {
                let progress = run_pass(shader, *k, checks, stats, cx)?;
                idle[*k] = (!progress).then_some(cx.version);
                any |= progress;
            }
            Step::ByBackend(alt) => {
                let steps = Step::for_backend(alt, shader.backend);
                any |= run_steps(shader, steps, checks, stats, cx, idle)?;
            }
            Step::Loop(body) => {
                let mut n = 0;
                while run_steps(shader, body, checks, stats, cx, idle)? {
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
    let Pass { name, run: f, .. } = PASSES[k];
    let failed = |msg| PassError {
        pass: name,
        kind: ErrorKind::Failed,
        msg,
    };
    let before = checks.equivalence.map(|_| shader.clone());
    let snapshot = checks.verify_ir.then(|| Snapshot::of(shader));
    let t = Instant::now();
    let changed = f(shader, cx);
    let progress = !changed.is_empty();
    cx.invalidate(changed);
    stats.time[k] += t.elapsed();
    stats.runs[k] += 1;
    stats.progress[k] += progress as u64;
    if let Some(snapshot) = snapshot {
        changed
            .check_claim(&snapshot, shader)
            .map_err(|e| failed(format!("what it reports changed is wrong: {e}")))?;
        if let Some(e) = eubatch_ir::verify::verify(shader).first() {
            return Err(failed(format!("the verifier fails: {e}")));
        }
    }
    if progress {
        if let (Some(equivalence), Some(before)) = (checks.equivalence, before) {
            match equivalence(&before, shader) {
                Check::Equal => stats.checked[k] += 1,
                Check::Unchecked(why) => {
                    stats.unchecked[k] += 1;
                    *stats.unchecked_reasons.entry(why).or_default() += 1;
                }
                Check::Differs(msg) => return Err(failed(msg)),
            }
        }
    }
    if let Some(hook) = checks.after_pass.as_mut() {
        hook(name, shader);
    }
    Ok(progress)
}

/// What comparing a pass's input and output found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Check {
    /// Equal outputs.
    Equal,
    /// Nothing could be compared (the simulator cannot run the input), and why: counted
    /// apart, never as checked.
    Unchecked(String),
    /// The first difference.
    Differs(String),
}
