//! vec4 URB reads whose offsets the importer left unknown because Mesa's post-RA vec4
//! scheduler may have exchanged them ([`ambiguous_vec4_reads`]), matched to the final
//! code's sends. First by data flow: the reads of a run that the computation tells apart
//! (the final code against the pre-allocation dump, [`vec4_urb_read_candidates`]) become
//! runs of their own ([`reordered_runs`]), most of them of one offset. Then in the
//! simulator: every assignment of the remaining runs' offsets to their reads is run
//! against Mesa's final code, and the match is taken only where exactly one agrees. The
//! right assignment must agree if Mesa's code and the simulator are right, so a single
//! agreeing one is it; this proves the match only as far as Mesa's code is right (a Mesa
//! bug that exchanged two reads' offsets would be taken for the match).

use std::path::Path;

use eubatch_ir::import::listing::{
    ambiguous_vec4_reads, apply_urb_offsets, offset_assignments, split_runs_by_data_flow,
    AmbiguousReads, ListedProgram, ListingFilter,
};
use eubatch_ir::import::{vec4_urb_read_candidates, DumpName};
use eubatch_ir::{Inst, Shader};
use eubatch_sim::crosscheck::Verdict;
use eubatch_sim::{run_hardware, HardwareInputs};

/// Step limit per run: far above what corpus shaders need.
pub const STEPS: u64 = 1_000_000;

/// Most assignments tried per shader.
pub const ASSIGNMENTS: usize = 5040;

/// The only assignment of `runs`' offsets under which `start` agrees with `final_code` on
/// `seeds`; otherwise the verdict the pair gets: not modelled (too many assignments, more
/// than one agreeing, or a run the simulator cannot do) or, where none agrees, the first
/// assignment's difference.
pub fn unique_assignment(
    start: &Shader,
    final_code: &Shader,
    runs: &[AmbiguousReads],
    seeds: u64,
) -> Result<Vec<(Inst, u16)>, Verdict> {
    let reads: usize = runs.iter().map(|r| r.reads.len()).sum();
    let Some(all) = offset_assignments(runs, ASSIGNMENTS) else {
        return Err(Verdict::NotModelled(format!(
            "start IR: vec4 URB reads reordered by Mesa's scheduler ({reads} in {} runs): \
             more than {ASSIGNMENTS} assignments of their offsets",
            runs.len()
        )));
    };
    // The final code's outputs once per seed, as `crosscheck` would have them.
    let mut finals = Vec::new();
    for seed in 0..seeds {
        let hw = HardwareInputs::of(start, seed)
            .map_err(|e| Verdict::NotModelled(format!("layout: {e}")))?;
        let o = run_hardware(final_code, seed, &hw, STEPS, None)
            .map_err(|e| Verdict::NotModelled(format!("final code: {}", e.msg)))?;
        finals.push((seed, hw, o));
    }
    let mut agreeing = None;
    let mut first_difference = None;
    for a in all.iter() {
        let mut s = start.clone();
        apply_urb_offsets(&mut s, a);
        let mut differs = None;
        for (seed, hw, want) in &finals {
            let got = run_hardware(&s, *seed, hw, STEPS, None)
                .map_err(|e| Verdict::NotModelled(format!("start IR: {}", e.msg)))?;
            if let Some(what) = eubatch_sim::first_difference(&got, want) {
                differs = Some((*seed, what));
                break;
            }
        }
        match differs {
            None if agreeing.is_some() => {
                return Err(Verdict::NotModelled(
                    "start IR: vec4 URB reads reordered by Mesa's scheduler: more than one \
                     assignment of their offsets agrees with the final code, not told apart"
                        .into(),
                ))
            }
            None => agreeing = Some(a),
            Some((seed, what)) => {
                first_difference.get_or_insert(Verdict::Differ {
                    seed,
                    what: format!(
                        "under each of the {} assignments of reordered URB reads' offsets; \
                         the first: {what}",
                        all.len()
                    ),
                });
            }
        }
    }
    match (agreeing, first_difference) {
        (Some(a), _) => Ok(a.clone()),
        (None, Some(d)) => Err(d),
        // `offset_assignments` gives at least one assignment (the empty one for no runs).
        (None, None) => Err(Verdict::NotModelled(
            "start IR: vec4 URB reads reordered by Mesa's scheduler: no assignment of their \
             offsets to try"
                .into(),
        )),
    }
}

/// Seeds the match is made on (the cross-check's default).
const SEEDS: u64 = 4;

/// The runs of `shader`'s vec4 URB reads Mesa's scheduler may have reordered
/// ([`ambiguous_vec4_reads`]), each split where data flow between the final code and the
/// pre-allocation dump tells its reads apart ([`split_runs_by_data_flow`]): for the vec4
/// start dump at `path` (named `name`), against listed program `p` of `asm_text`.
pub fn reordered_runs(
    path: &Path,
    name: &DumpName,
    asm_text: &str,
    p: &ListedProgram,
    shader: &Shader,
) -> Vec<AmbiguousReads> {
    let runs = ambiguous_vec4_reads(shader, &p.urb);
    if runs.is_empty() {
        return runs;
    }
    match vec4_urb_read_candidates(path, asm_text, name, shader.target) {
        Some(c) => split_runs_by_data_flow(shader, &p.urb, runs, &c),
        None => runs,
    }
}

/// For a vec4 start dump at `path` with reordered URB reads: their offsets by
/// [`unique_assignment`] against the program's final code in the `asm.txt` beside it.
/// Whether they were given; where not, they stay unknown (and the simulator says so,
/// naming the reads). An `asm.txt` that cannot be read or taken apart leaves them unknown
/// the same way: one that does not parse the importer has reported (naming the line); one
/// that cannot be read is known to the simulator only by the offsets it leaves unknown.
/// `listings` holds the listing once read (the importer's, for the dumps of one directory).
pub fn from_final_code(
    path: &Path,
    shader: &mut Shader,
    listings: &mut eubatch_ir::import::Listings,
) -> bool {
    let vec4_read_unknown = shader.backend == eubatch_ir::Backend::Vec4
        && shader.layout.insts().any(|i| {
            shader.insts.opcode[i] == eubatch_ir::Opcode::UrbRead
                && shader.send_info(i).and_then(|x| x.urb_offset).is_none()
        });
    if !vec4_read_unknown {
        return false;
    }
    let Some(name) = path
        .file_name()
        .and_then(|n| DumpName::parse(&n.to_string_lossy()))
    else {
        return false;
    };
    let asm = path.with_file_name("asm.txt");
    if !listings.read(&asm) {
        return false;
    }
    // Only this program is taken apart, once: its URB messages and its code.
    let filter = ListingFilter {
        program: Some((name.stage, &name.program)),
        wide_immediates: false,
    };
    let (text, listed) = listings.programs(filter);
    let Ok(listed) = listed else {
        return false;
    };
    let Some(p) = listed
        .iter()
        .find(|p| p.stage == name.stage && p.program == name.program && p.width.is_none())
    else {
        return false;
    };
    let runs = reordered_runs(path, &name, text, p, shader);
    if runs.is_empty() {
        return false;
    }
    let Ok(programs) = eubatch_codegen::asm::read_asm(text, &asm.to_string_lossy(), shader.target)
    else {
        return false;
    };
    let Some(fin) = programs
        .iter()
        .find(|q| q.stage == name.stage && q.program == name.program && q.vec4)
    else {
        return false;
    };
    match unique_assignment(shader, &fin.shader, &runs, SEEDS) {
        Ok(a) => {
            apply_urb_offsets(shader, &a);
            true
        }
        Err(_) => false,
    }
}
