//! Across blocks without the dataflow: a VGRF defined once, wholly, outside control flow
//! by a copy of a value that never changes (an immediate, a push constant, an input or
//! another such VGRF) holds that value wherever it is read.

use eubatch_ir::{Inst, RegFile, Shader};

use crate::analysis::access_table::AccessTable;

use super::copies::*;
use super::sources::*;

/// Across blocks: a VGRF with a single whole definition outside control flow that copies
/// an immediate, a push constant, an input (none of which is ever written) or another such
/// VGRF — or one defined in such pieces, each a copy (the channel groups of a split copy)
/// — holds that value wherever it is read, in any block (Mesa's global copy propagation does this with
/// its dataflow; here the definitions analysis gives it directly).
pub(super) fn propagate_global(
    shader: &mut Shader,
    table: &AccessTable,
    defs: &crate::analysis::defs::Defs,
) -> bool {
    let ssa = |v: usize| defs.is_ssa(v);
    // By VGRF number: the copies each VGRF holds, if any.
    let mut global: Vec<Option<Vec<Copy>>> = Vec::new();
    global.resize_with(defs.single.len(), || None);
    let mut any = false;
    for v in 0..defs.single.len() {
        let writers: &[Inst] = match (&defs.single[v], defs.pieces(v)) {
            (Some(def), _) => std::slice::from_ref(def),
            (None, Some(pieces)) => pieces,
            _ => continue,
        };
        // Every piece a copy of something that keeps its value to the end.
        let copies: Option<Vec<Copy>> = writers
            .iter()
            .map(|&w| {
                let c = copy_of(shader, table, w)?;
                let never_changes = match c.src.file {
                    RegFile::Imm | RegFile::Uniform | RegFile::Attr => true,
                    // A VGRF that is itself defined once, outside control flow: the copy
                    // read its only value, which it keeps to the end.
                    RegFile::Vgrf => ssa(c.src.nr as usize),
                    _ => false,
                };
                never_changes.then_some(c)
            })
            .collect();
        if let Some(copies) = copies {
            global[v] = Some(copies);
            any = true;
        }
    }
    if !any {
        return false;
    }
    let held = |v: u32| global.get(v as usize).and_then(|c| c.as_ref());
    let mut progress = false;
    let insts: Vec<Inst> = shader.layout.order();
    for inst in insts {
        // Only a VGRF source that holds such copies can change: an instruction without one
        // is passed over without a look at each source's copies.
        if shader.insts.opcode[inst].alu_arity().is_some()
            && shader
                .srcs(inst)
                .iter()
                .any(|s| s.file == RegFile::Vgrf && held(s.nr).is_some())
        {
            progress |= rewrite_sources(
                shader,
                inst,
                |v| held(v).into_iter().flatten(),
                |_| std::iter::empty(),
            );
        }
    }
    progress
}
