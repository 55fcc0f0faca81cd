//! The Mesa cross-check: a logical shader (Mesa's start IR) and Mesa's final code for it
//! must compute the same outputs on the same inputs. Both run on one register file at
//! thread start ([`HardwareInputs`]): the final code reads it directly, the logical shader
//! through the push-constant and attribute layout ([`crate::layout`]). Every disagreement
//! is a simulator bug, a layout rule that is wrong, or a hardware behaviour to model.

use eubatch_ir::Shader;

use crate::{first_difference, run_hardware, HardwareInputs};

/// What one cross-check found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Same outputs on every seed.
    Agree,
    /// Different outputs: the seed and the first difference.
    Differ { seed: u64, what: String },
    /// One of the two could not be simulated (something not modelled yet): which and why.
    NotModelled(String),
}

/// Runs `start` and `final_code` on `seeds` and compares their outputs.
pub fn crosscheck(
    start: &Shader,
    final_code: &Shader,
    seeds: impl IntoIterator<Item = u64>,
    step_limit: u64,
) -> Verdict {
    // The simulator reads a logical URB message without its global offset at offset 0,
    // which the final code need not; and where the importer took one of several
    // candidates for what the dumps leave out, the comparison would test the guess.
    if eubatch_ir::import::listing::needs_urb_offsets(start) {
        return Verdict::NotModelled(
            "start IR: a URB message whose global offset is not known".into(),
        );
    }
    if let Some(why) = &start.unproven {
        return Verdict::NotModelled(format!("start IR: not proven from the final code: {why}"));
    }
    for seed in seeds {
        let hw = match HardwareInputs::of(start, seed) {
            Ok(hw) => hw,
            Err(e) => return Verdict::NotModelled(format!("layout: {e}")),
        };
        let a = match run_hardware(start, seed, &hw, step_limit, None) {
            Ok(o) => o,
            Err(e) => return Verdict::NotModelled(format!("start IR: {}", e.msg)),
        };
        let b = match run_hardware(final_code, seed, &hw, step_limit, None) {
            Ok(o) => o,
            Err(e) => return Verdict::NotModelled(format!("final code: {}", e.msg)),
        };
        if let Some(what) = first_difference(&a, &b) {
            return Verdict::Differ { seed, what };
        }
    }
    Verdict::Agree
}
