//! The simulator's check, handed to the pass manager by the tests (the passes crate itself
//! never runs a shader).

use eubatch_ir::Shader;
use eubatch_passes::manager::Check;
use eubatch_sim::Comparison;

/// Compares a pass's input and output on seeds `0..seeds`, with the inputs and pipeline
/// state of `imported` (the shader before the pipeline).
pub fn check(seeds: u64, imported: &Shader) -> impl Fn(&Shader, &Shader) -> Check {
    let profile = eubatch_sim::profile::Profile::of(imported);
    move |before, after| {
        let limit = eubatch_sim::CHECK_STEP_LIMIT;
        match eubatch_sim::compare(before, after, 0..seeds, limit, &profile) {
            Comparison::Equal => Check::Equal,
            Comparison::Unchecked(why) => Check::Unchecked(why),
            Comparison::Differs(m) => Check::Differs(m.to_string()),
        }
    }
}
