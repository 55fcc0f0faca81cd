//! Repeated payloads: a VGRF built only by moves, outside control flow, each byte once
//! (the gathered coordinates of a split texture message, say), that copies exactly what an
//! earlier such VGRF copied, from values that never change, is the same value: its readers
//! read the earlier one and its moves go. (Mesa CSEs the LOAD_PAYLOAD that builds such a
//! payload in `opt_cse_local`; here the moves are already lowered, so whole VGRFs are
//! compared.) A VGRF built by one move from a fixed register — the header a URB read
//! copies from g0, one per read after `lower_logical_sends` — counts too: Mesa's
//! `opt_cse` shares the one-source LOAD_PAYLOAD those reads get, while copy propagation
//! cannot put a `g0<0,1,0>` region into a send's payload.
//!
//! Rules that limit it: both VGRFs are defined in pieces ([`crate::analysis::defs::Defs::pieces`]),
//! all by plain moves (no predicate, saturate, conditional modifier or source modifier),
//! at least two of them or one copying a fixed register;
//! their layouts and moves match one for one (destination offset, type, channels, source);
//! every source is an immediate, a push constant, an input, a fixed register of a shader
//! that writes no fixed or indirectly addressed register (the thread payload, unchanged),
//! or a VGRF defined once outside control flow, so equal sources hold equal values
//! wherever they are read; the earlier
//! VGRF's moves all come before the later one's first move.
//!
//! Within one block, at any depth of control flow (Mesa's `opt_cse_local` is block-local
//! too; a tessellation control shader's body is all inside `if (invocation < n)`): two
//! VGRFs not defined in pieces, each written only by such moves in that block, each byte
//! once, with the same layout and moves, the earlier one's moves all before the later
//! one's first; their VGRF sources not written in the block from the earlier one's first
//! move to the later one's last; nothing in the block reading the later VGRF before its
//! last move (a value left from an earlier iteration of a loop, which the earlier VGRF no
//! longer holds there).

use hashbrown::HashMap;

use eubatch_ir::shader::{CondMod, Predicate};
use eubatch_ir::{Inst, Mods, Opcode, Operand, RegFile, Shader, Vgrf};

use crate::analysis::changed::Changed;
use crate::PassCx;

/// One move of a payload, as compared: destination offset and type, execution size,
/// group, NoMask, and the source.
type MoveKey = (u32, eubatch_ir::Type, u8, u8, bool, Operand);

/// The [`MoveKey`] of a move writing `dst` from `src` under `ctl`.
fn move_key(dst: &Operand, ctl: &eubatch_ir::shader::Control, src: Operand) -> MoveKey {
    (
        dst.offset,
        dst.ty,
        ctl.exec_size,
        ctl.group,
        ctl.no_mask(),
        src,
    )
}

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
    // Fixed registers hold the thread payload (g0's URB and thread fields, say), which
    // nothing changes unless an instruction writes a fixed or indirectly addressed
    // register.
    // (Looked at only once a move from a fixed register is found.)
    let fixed_cell = std::cell::OnceCell::new();
    let fixed_constant = || {
        *fixed_cell.get_or_init(|| {
            shader.layout.blocks.iter().all(|b| {
                b.insts.iter().all(|&i| {
                    !matches!(
                        shader.insts.dst[i].file,
                        RegFile::FixedGrf | RegFile::Indirect
                    )
                })
            })
        })
    };
    for v in 0..defs.single.len() {
        let Some(pieces) = defs.pieces(v) else {
            continue;
        };
        let at = keys.len();
        // One move copying a fixed register (a message header from g0, as each URB read
        // of a tessellation evaluation shader has) is a payload too: copy propagation
        // cannot fold it into the send, so only this pass can share it.
        let mut ok = pieces.len() > 1
            || shader
                .srcs(pieces[0])
                .first()
                .is_some_and(|s| s.file == RegFile::FixedGrf);
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
                RegFile::FixedGrf => fixed_constant(),
                RegFile::Vgrf => ssa(src.nr) && src.nr != v as u32,
                _ => false,
            };
            if !plain || !constant {
                ok = false;
                break;
            }
            keys.push(move_key(&dst, &ctl, src));
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
    in_block(shader, &defs, &fixed_constant, &mut renames, &mut removed);
    if renames.is_empty() {
        return Changed::NOTHING;
    }
    crate::rename_sources(shader, &renames);
    for block in shader.layout.blocks.iter_mut() {
        block.insts.retain(|i| !removed.contains(i));
    }
    Changed::INSTRUCTION_IDENTITY | Changed::INSTRUCTION_DATA_FLOW | Changed::BLOCKS
}

/// The same within one block, at any depth of control flow (Mesa's `opt_cse_local` is
/// block-local too): a VGRF not defined in pieces whose every write is a plain move in
/// one block, each byte once, repeating what an earlier such VGRF of the block copied.
/// The later one's readers read the earlier one if the VGRF sources are not written in
/// the block from the earlier VGRF's first move to the later one's last, and nothing in
/// the block reads the later VGRF before its first move (a value from the last iteration
/// of a loop, which the earlier VGRF no longer holds there).
fn in_block(
    shader: &Shader,
    defs: &crate::analysis::defs::Defs,
    fixed_constant: &dyn Fn() -> bool,
    renames: &mut HashMap<Vgrf, Vgrf>,
    removed: &mut hashbrown::HashSet<Inst>,
) {
    const BAD: u32 = u32::MAX;
    let n = shader.vgrfs.len();
    // Per VGRF: 0 before any write, the block of its writes plus one, or BAD.
    let mut state: Vec<u32> = vec![0; n];
    // Every plain move into a VGRF: VGRF, position in its block, instruction.
    let mut moves: Vec<(u32, u32, Inst)> = Vec::new();
    for (b, block) in shader.layout.blocks.iter().enumerate() {
        let tag = b as u32 + 1;
        for (at, &i) in block.insts.iter().enumerate() {
            let dst = shader.insts.dst[i];
            if dst.file != RegFile::Vgrf || dst.nr as usize >= n {
                continue;
            }
            let v = dst.nr as usize;
            if state[v] == BAD {
                continue;
            }
            let ctl = shader.insts.control[i];
            let plain = shader.insts.opcode[i] == Opcode::Mov
                && ctl.predicate == Predicate::None
                && ctl.cmod == CondMod::None
                && !ctl.saturate()
                && dst.stride == 1
                && dst.mods == Mods::NONE
                && shader.srcs(i).len() == 1
                && shader.srcs(i)[0].mods == Mods::NONE;
            if !plain || (state[v] != 0 && state[v] != tag) || defs.pieces(v).is_some() {
                state[v] = BAD;
                continue;
            }
            state[v] = tag;
            moves.push((v as u32, at as u32, i));
        }
    }
    moves.retain(|m| state[m.0 as usize] != BAD);
    if moves.len() < 2 {
        return;
    }
    // (Already in order of position within each VGRF's one block.)
    moves.sort_by_key(|m| m.0);
    // Candidates: block, first and last position, VGRF, its moves' keys in `keys`.
    let mut keys: Vec<MoveKey> = Vec::new();
    let mut found: Vec<(u32, u32, u32, u32, std::ops::Range<usize>)> = Vec::new();
    let mut covered: Vec<bool> = Vec::new();
    for group in moves.chunk_by(|a, b| a.0 == b.0) {
        let v = group[0].0;
        let fixed_one = group.len() == 1 && shader.srcs(group[0].2)[0].file == RegFile::FixedGrf;
        if group.len() < 2 && !fixed_one {
            continue;
        }
        let layout = shader.vgrfs[Vgrf::from_usize(v as usize)];
        covered.clear();
        covered.resize(layout.size() as usize, false);
        let at = keys.len();
        let mut ok = true;
        for &(_, _, m) in group {
            let ctl = shader.insts.control[m];
            let dst = shader.insts.dst[m];
            let src = shader.srcs(m)[0];
            let constant = match src.file {
                RegFile::Imm | RegFile::Uniform | RegFile::Attr => true,
                RegFile::FixedGrf => fixed_constant(),
                RegFile::Vgrf => src.nr != v,
                _ => false,
            };
            let size = eubatch_ir::builder::size_written(&dst, ctl.exec_size as u32);
            let (lo, hi) = (dst.offset as usize, (dst.offset + size) as usize);
            if !constant || hi > covered.len() || covered[lo..hi].iter().any(|&c| c) {
                ok = false;
                break;
            }
            covered[lo..hi].iter_mut().for_each(|c| *c = true);
            keys.push(move_key(&dst, &ctl, src));
        }
        if !ok || !covered.iter().all(|&c| c) {
            keys.truncate(at);
            continue;
        }
        keys[at..].sort_by_key(|k| (k.0, k.3));
        let block = state[v as usize] - 1;
        let first = group.iter().map(|m| m.1).min().unwrap();
        let last = group.iter().map(|m| m.1).max().unwrap();
        found.push((block, first, last, v, at..keys.len()));
    }
    found.sort_by_key(|c| (c.0, c.1));
    let mut kept: Vec<usize> = Vec::new();
    for c in 0..found.len() {
        let (b, first, last, v, ref key) = found[c];
        if c == 0 || found[c - 1].0 != b {
            kept.clear();
        }
        let key = &keys[key.clone()];
        let layout = shader.vgrfs[Vgrf::from_usize(v as usize)];
        let insts = &shader.layout.blocks[eubatch_ir::Block::from_usize(b as usize)].insts;
        let earlier = kept.iter().copied().find(|&e| {
            let (_, efirst, elast, ev, ref ekey) = found[e];
            elast < first
                && shader.vgrfs[Vgrf::from_usize(ev as usize)] == layout
                && &keys[ekey.clone()] == key
                && !insts[efirst as usize..=last as usize].iter().any(|&i| {
                    let d = shader.insts.dst[i];
                    d.file == RegFile::Vgrf
                        && key
                            .iter()
                            .any(|k| k.5.file == RegFile::Vgrf && k.5.nr == d.nr)
                })
        });
        let Some(e) = earlier else {
            kept.push(c);
            continue;
        };
        let read_before = insts[..last as usize].iter().any(|&i| {
            shader
                .srcs(i)
                .iter()
                .any(|s| s.file == RegFile::Vgrf && s.nr == v)
        });
        if read_before {
            kept.push(c);
            continue;
        }
        renames.insert(Vgrf::from_raw(v), Vgrf::from_raw(found[e].3));
        let at = moves.partition_point(|m| m.0 < v);
        removed.extend(moves[at..].iter().take_while(|m| m.0 == v).map(|m| m.2));
    }
}
