//! Repeated payloads: a VGRF built only by moves, outside control flow, each byte once
//! (the gathered coordinates of a split texture message, say), that copies exactly what an
//! earlier such VGRF copied, from values that never change, is the same value: its readers
//! read the earlier one and its moves go. (Mesa CSEs the LOAD_PAYLOAD that builds such a
//! payload in `opt_cse_local`; here the moves are already lowered, so whole VGRFs are
//! compared.)
//!
//! Rules that limit it: both VGRFs are defined in pieces ([`crate::analysis::defs::Defs::pieces`]),
//! all by plain moves (no predicate, saturate, conditional modifier or source modifier);
//! their layouts and moves match one for one (destination offset, type, channels, source);
//! every source is an immediate, a push constant, an input, or a VGRF defined once outside
//! control flow, so equal sources hold equal values wherever they are read; the earlier
//! VGRF's moves all come before the later one's first move.

use hashbrown::HashMap;

use eubatch_ir::shader::{CondMod, Predicate};
use eubatch_ir::{Inst, Mods, Opcode, Operand, RegFile, Shader, Vgrf};

use crate::analysis::changed::Changed;
use crate::PassCx;

/// One move of a payload, as compared: destination offset and type, execution size,
/// group, NoMask, and the source.
type MoveKey = (u32, eubatch_ir::Type, u8, u8, bool, Operand);

/// Scalar code: operands read as Align1 regions.
pub const SCOPE: crate::manager::Scope = crate::manager::Scope::SCALAR;

pub fn run(shader: &mut Shader, cx: &mut PassCx) -> Changed {
    let defs = cx.defs(shader);
    let ssa = |v: u32| defs.is_ssa(v as usize);
    let points = cx.points(shader);
    let position = |i: &Inst| points.of(*i).expect("a piece is in the layout").get() as usize;
    // Each candidate VGRF's key and the positions of its first and last move. The keys
    // of all candidates are in one array (`keys`), each candidate naming its stretch, and
    // the table of keys seen borrows them: no array per candidate VGRF or per look-up.
    let mut keys: Vec<MoveKey> = Vec::new();
    let mut seen: HashMap<(eubatch_ir::VgrfLayout, &[MoveKey]), (u32, usize)> = HashMap::new();
    let mut renames: HashMap<Vgrf, Vgrf> = HashMap::new();
    let mut removed = hashbrown::HashSet::new();
    // First and last position, VGRF, and where its key is in `keys`.
    let mut candidates: Vec<(usize, usize, u32, std::ops::Range<usize>)> = Vec::new();
    for v in 0..defs.single.len() {
        let Some(pieces) = defs.pieces(v) else {
            continue;
        };
        let at = keys.len();
        let mut ok = pieces.len() > 1;
        for &m in pieces {
            let ctl = shader.insts.control[m];
            let dst = shader.insts.dst[m];
            let src = shader.srcs(m).first().copied();
            let plain = shader.insts.opcode[m] == Opcode::Mov
                && ctl.predicate == Predicate::None
                && ctl.cmod == CondMod::None
                && !ctl.saturate()
                && dst.stride == 1;
            let Some(src) = src.filter(|s| s.mods == Mods::NONE) else {
                ok = false;
                break;
            };
            let constant = match src.file {
                RegFile::Imm | RegFile::Uniform | RegFile::Attr => true,
                RegFile::Vgrf => ssa(src.nr) && src.nr != v as u32,
                _ => false,
            };
            if !plain || !constant {
                ok = false;
                break;
            }
            keys.push((
                dst.offset,
                dst.ty,
                ctl.exec_size,
                ctl.group,
                ctl.no_mask(),
                src,
            ));
        }
        if !ok {
            keys.truncate(at);
            continue;
        }
        keys[at..].sort_by_key(|k| (k.0, k.3));
        let first = pieces.iter().map(position).min().unwrap();
        let last = pieces.iter().map(position).max().unwrap();
        candidates.push((first, last, v as u32, at..keys.len()));
    }
    candidates.sort_by_key(|c| c.0);
    for (first, last, v, key) in candidates {
        let layout = shader.vgrfs[Vgrf::from_usize(v as usize)];
        let key = &keys[key];
        match seen.get(&(layout, key)) {
            Some(&(earlier, earlier_last)) if earlier_last < first => {
                renames.insert(Vgrf::from_raw(v), Vgrf::from_raw(earlier));
                if let Some(p) = defs.pieces(v as usize) {
                    removed.extend(p.iter().copied());
                }
            }
            Some(_) => {}
            None => {
                seen.insert((layout, key), (v, last));
            }
        }
    }
    if renames.is_empty() {
        return Changed::NOTHING;
    }
    crate::rename_sources(shader, &renames);
    for block in shader.layout.blocks.iter_mut() {
        block.insts.retain(|i| !removed.contains(i));
    }
    Changed::INSTRUCTION_IDENTITY | Changed::INSTRUCTION_DATA_FLOW | Changed::BLOCKS
}
