//! eubatch's reference simulator: a functional model of one Intel EU thread.
//!
//! This first part runs scalar (Align1) eubatch IR at the VGRF level: registers with their
//! layouts, fixed GRFs holding a seeded thread payload, push constants and inputs drawn from
//! the seed, the ALU opcodes ([`alu`]), type conversions ([`value`]), predication, NoMask,
//! channel groups, conditional modifiers and flags, and structured control flow with
//! per-channel masks ([`run`]), sampler messages ([`sampler`]), pull constants, pixel
//! coordinates and interpolation; vec4 (SIMD4x2 Align16) code with [`vec4`]'s operand
//! rules and messages. Framebuffer and URB writes are recorded as outputs; other
//! messages and the thread-payload opcodes (`pixel_x`, `linterp`, ...) end a run
//! with an error naming them until they are modelled.

pub mod crosscheck;
pub mod hw_message;
pub mod inputs;
pub mod layout;
pub mod memory;
pub mod pixel_interp;
pub mod profile;
pub mod run;
pub mod sampler;
pub mod state;
pub mod urb;
pub mod vec4;

/// The value and ALU definitions, shared with constant folding.
pub use eubatch_semantics::{alu, value};

use eubatch_ir::{Inst, Shader};

/// Why a run could not complete.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimError {
    pub inst: Option<Inst>,
    pub msg: String,
}

impl SimError {
    pub fn msg(m: impl Into<String>) -> SimError {
        SimError {
            inst: None,
            msg: m.into(),
        }
    }
    pub fn at(inst: Inst, m: impl Into<String>) -> SimError {
        SimError {
            inst: Some(inst),
            msg: m.into(),
        }
    }
    pub fn with_inst(mut self, inst: Inst) -> SimError {
        self.inst.get_or_insert(inst);
        self
    }
}

impl std::fmt::Display for SimError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.inst {
            Some(i) => write!(f, "{i}: {}", self.msg),
            None => f.write_str(&self.msg),
        }
    }
}

impl std::error::Error for SimError {}

/// One observable effect: a message's data for one channel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    pub message: String,
    pub channel: u32,
    /// Raw bits of each component written.
    pub values: Vec<u64>,
    /// Bit k: component k came from bytes never written (its value is whatever the
    /// registers held, so any other value matches it).
    pub undefined: u64,
}

/// Everything a run produced, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outputs {
    pub records: Vec<Record>,
    /// Channels alive at the end (not discarded by `halt`).
    pub final_mask: u32,
    /// Reads of VGRF bytes nothing had written.
    pub poison_reads: u64,
    /// Instructions executed (control flow included).
    pub steps: u64,
}

impl Outputs {
    /// The canonical text form, one line per record.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        for r in &self.records {
            let vals: Vec<String> = r
                .values
                .iter()
                .enumerate()
                .map(|(k, v)| {
                    if r.undefined & (1 << k.min(63)) != 0 {
                        "undef".to_string()
                    } else {
                        format!("0x{v:08x}")
                    }
                })
                .collect();
            s.push_str(&format!(
                "{} ch{}: {}\n",
                r.message,
                r.channel,
                vals.join(" ")
            ));
        }
        s.push_str(&format!("final mask 0x{:08x}\n", self.final_mask));
        if self.poison_reads != 0 {
            s.push_str(&format!("poison reads {}\n", self.poison_reads));
        }
        s
    }
}

pub use run::{run, run_hardware, run_limited, run_limited_vec4, run_profiled, STEP_LIMIT};
pub use state::HardwareInputs;

/// Where two shaders' outputs first differ.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    pub seed: u64,
    pub what: String,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "seed {}: {}", self.seed, self.what)
    }
}

/// What comparing a shader before and after a transformation found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Comparison {
    /// Equal outputs on every seed.
    Equal,
    /// The simulator cannot run the shader before the transformation: nothing was compared,
    /// and this says why (the error without the instruction it names, so that the reasons
    /// of many shaders group). Never to be counted as checked.
    Unchecked(String),
    /// The transformed shader does not run, or computes something else.
    Differs(Mismatch),
}

/// Step limit of the checks around every pass: far above what the corpora's shaders need,
/// low enough that a runaway loop stops quickly.
pub const CHECK_STEP_LIMIT: u64 = 1_000_000;

/// Runs both shaders on every seed, on the inputs and pipeline state of `profile` (made
/// from the shader as imported, [`profile::Profile::of`]: a pass's input may already be
/// lowered, and its render target writes are decoded with the logical shader's outputs),
/// and compares their outputs.
pub fn compare(
    before: &Shader,
    after: &Shader,
    seeds: impl IntoIterator<Item = u64>,
    step_limit: u64,
    profile: &crate::profile::Profile,
) -> Comparison {
    for seed in seeds {
        let a = match run_profiled(before, seed, profile, step_limit, None) {
            Ok(a) => a,
            Err(e) => return Comparison::Unchecked(reason(&e)),
        };
        let what = match run_profiled(after, seed, profile, step_limit, None) {
            Ok(b) => match first_difference(&a, &b) {
                Some(d) => format!("outputs differ: {d}"),
                None => continue,
            },
            Err(e) => format!("the result does not run: {e}"),
        };
        return Comparison::Differs(Mismatch { seed, what });
    }
    Comparison::Equal
}

/// Why a run could not complete, to count: the message without the instruction, at most
/// 90 characters.
pub fn reason(e: &SimError) -> String {
    e.msg.chars().take(90).collect()
}

/// Runs both shaders on every seed and reports the first difference in their outputs.
pub fn equivalent(
    before: &Shader,
    after: &Shader,
    seeds: impl IntoIterator<Item = u64>,
) -> Result<(), Mismatch> {
    // One set of inputs for both: typed by the original's uses.
    let profile = crate::profile::Profile::of(before);
    for seed in seeds {
        let a = run_profiled(before, seed, &profile, STEP_LIMIT, None).map_err(|e| Mismatch {
            seed,
            what: format!("{}: {e}", before.name),
        })?;
        let b = run_profiled(after, seed, &profile, STEP_LIMIT, None).map_err(|e| Mismatch {
            seed,
            what: format!("{}: {e}", after.name),
        })?;
        if let Some(what) = first_difference(&a, &b) {
            return Err(Mismatch { seed, what });
        }
    }
    Ok(())
}

/// A 32-bit float NaN. Outputs compare NaNs as equal whatever their payloads: IEEE 754
/// leaves payload propagation open and Mesa's optimizations change it (a `mul` and `add`
/// fused into `mad`, operands swapped), which is no miscompile.
fn is_nan32(bits: u64) -> bool {
    let b = bits as u32;
    b & 0x7f80_0000 == 0x7f80_0000 && b & 0x007f_ffff != 0
}

/// The first difference between two runs' outputs, if any.
pub fn first_difference(a: &Outputs, b: &Outputs) -> Option<String> {
    if a.records.len() != b.records.len() {
        return Some(format!(
            "{} records against {}",
            a.records.len(),
            b.records.len()
        ));
    }
    for (x, y) in a.records.iter().zip(&b.records) {
        let same_values = x.values.len() == y.values.len()
            && x.values
                .iter()
                .zip(&y.values)
                .enumerate()
                .all(|(k, (u, v))| {
                    // What the first run (the reference) left undefined may be anything
                    // in the second; the second may not leave undefined what the first
                    // defined.
                    let undef = x.undefined & (1 << k.min(63)) != 0;
                    undef || u == v || (is_nan32(*u) && is_nan32(*v))
                });
        if x.message != y.message || x.channel != y.channel || !same_values {
            return Some(format!(
                "{} channel {}: {:x?} against {} channel {}: {:x?}",
                x.message, x.channel, x.values, y.message, y.channel, y.values
            ));
        }
    }
    if a.final_mask != b.final_mask {
        return Some(format!(
            "final mask {:#x} against {:#x}",
            a.final_mask, b.final_mask
        ));
    }
    None
}
