//! The sub-registers of the fixed-register scalars of Mesa 22.3's pre-RA dumps
//! ([`fixed_scalars`]), from the variant's start dump, its final code's reads by opcode,
//! or its final code's dataflow.

use eubatch_codegen::asm::AsmProgram;
use eubatch_ir::{Control, Inst, Opcode, RegFile, Shader};

use super::sends::{is_send, signature};
use super::{fail, reason, NotRecovered};

/// Is `o` a fixed-register scalar as Mesa 22.3's printer writes it: `gN<0>`, sub-register
/// not shown.
fn fixed_scalar(o: &eubatch_ir::Operand) -> bool {
    o.file == RegFile::FixedGrf && o.region.vstride == 0 && o.region.hstride == 0
}

/// Puts back the sub-registers of the fixed-register scalars of `pre_ra` (a Mesa 22.3
/// pre-RA dump as imported) where the variant's start dump `start` (its input layout
/// frozen) leaves one choice; how many sources it changed.
///
/// Mesa 22.3's `fs_visitor::dump_instruction` prints a FIXED_GRF source as `gN<hstride>`
/// without its sub-register, so `g24<0>:F` stands for any of the push constants in g24
/// (brw_fs.cpp `assign_curb_setup`), and `g15<0>` for either plane of an interpolated
/// input that shares g15 (`assign_urb_setup`: two components a register on gen6+). (Mesa
/// 25's printer writes the sub-register.) Mesa's optimizer only moves the reads the start
/// dump has (`u`, `attr` and payload operands, placed by [`eubatch_ir::thread_inputs`]), so
/// what a pre-RA `gN<0>` reads is one of the start dump's reads inside gN:
/// - one distinct place read in gN: that is the sub-register;
/// - the start dump reads nothing in gN but a fixed `gN<0>` itself, unplaced in the same
///   way (a payload dword such as a compute shader's `g0<0>`): both are read as `gN.0`,
///   the same input on both sides;
/// - several places: the variant's final code (`listing`, the same stage, program and
///   width: fixed registers are where they were before allocation) decides when its
///   instructions of the same opcode reading gN as a scalar, of the same type in the same
///   source, all read one of those places, the same one (`add(16) g3<1>D g23<8,8,1>D
///   g16.6<0,1,0>D` for `add(16) vgrf1:D, vgrf16:D, g16<0>:D`);
/// - or its dataflow: scheduling and allocation keep what each instruction does and which
///   instructions of its block feed it and read it, so the dump's instructions and the
///   final code's are coloured together by their dataflow inside blocks ([`colours`]);
///   at the deepest round of colouring where the dump has as many instructions of the
///   reader's colour as the final code, those of the final code must all read the source
///   at one place of gN, inside a dword the start dump reads
///   ([`subregisters_by_dataflow`]: `add(16) vgrf2:D, vgrf32:D, g16<0>:D` and
///   `add(16) vgrf3:D, vgrf33:D, g16<0>:D`, the x and y of a compute shader's base
///   workgroup, told apart by the instructions the sums go on to). Two rules that
///   disagree decide nothing;
/// - or, for the plane of an interpolation (`pln`, `linterp`), the order of the
///   interpolations: Mesa's optimizer neither moves nor makes them, so the dump's are
///   the start dump's in order, less those it removed ([`planes_by_order`]: two
///   `linterp(8) vgrf199:F, g2:F, g11<0>:F` in a row, where the start dump interpolates
///   `attr4` then `attr5`, both in g11, are g11.0 then g11.4);
/// - a read narrower than a dword (`mul(8) vgrf69:D, vgrf14:D, g4<0>:UW`, the high word
///   of a 32x16 multiply: `assign_curb_setup` keeps `offset % 4`) may be anywhere in the
///   dword the start dump reads: only the dataflow rule places it, even where the start
///   dump reads one place in gN;
/// - otherwise which one is read is not known, and the shader cannot be run
///   ([`reason::SUBREGISTER`]).
pub fn fixed_scalars(
    pre_ra: &mut Shader,
    start: &Shader,
    listing: &[AsmProgram],
    program: &str,
) -> Result<usize, NotRecovered> {
    let insts: Vec<Inst> = pre_ra.layout.insts().collect();
    let any = insts
        .iter()
        .any(|&i| pre_ra.srcs(i).iter().any(fixed_scalar));
    if !any {
        return Ok(0);
    }
    let Some(layout) = start.inputs.clone() else {
        return Err(fail(
            reason::SUBREGISTER,
            "the start dump's input layout is not known".into(),
        ));
    };
    let reg = layout.reg_size as u64;
    // Register -> the bytes inside it where the start dump's reads begin.
    let mut places = std::collections::BTreeMap::<u32, std::collections::BTreeSet<u32>>::new();
    for i in start.layout.insts() {
        for o in start.srcs(i) {
            let byte = match o.file {
                RegFile::Uniform => layout.uniform_byte(o.nr, o.offset),
                RegFile::Attr => layout.attr_byte(o.nr, o.offset),
                RegFile::FixedGrf => o.nr as u64 * reg + o.offset as u64,
                _ => continue,
            };
            places
                .entry((byte / reg) as u32)
                .or_default()
                .insert((byte % reg) as u32);
        }
    }
    let final_code = super::own_code(listing, pre_ra, program).map(|p| &p.shader);
    // (opcode, source, register, type) -> the bytes the final code reads there as scalars.
    let mut final_reads = std::collections::HashMap::<
        (Opcode, usize, u32, eubatch_ir::Type),
        std::collections::BTreeSet<u32>,
    >::new();
    if let Some(f) = final_code {
        for i in f.layout.insts() {
            for (k, o) in f.srcs(i).iter().enumerate() {
                if o.file == RegFile::FixedGrf && o.region.vstride == 0 && o.region.width <= 1 {
                    final_reads
                        .entry((f.insts.opcode[i], k, o.nr, o.ty))
                        .or_default()
                        .insert(o.offset);
                }
            }
        }
    }
    // The interpolation rule: the planes of the dump's `pln`s and `linterp`s in program
    // order against the start dump's `linterp`s.
    let by_order = planes_by_order(pre_ra, start, &layout);
    let mut changed = 0;
    // The dataflow rule, computed when first needed, on the dump as imported.
    let mut by_dataflow: Option<std::collections::HashMap<(Inst, usize), u32>> = None;
    for i in insts {
        for k in 0..pre_ra.srcs(i).len() {
            let o = pre_ra.srcs(i)[k];
            if !fixed_scalar(&o) || o.offset != 0 {
                continue;
            }
            let mut at: Option<Vec<u32>> = places.get(&o.nr).map(|p| p.iter().copied().collect());
            // A read narrower than a dword may be inside one the start dump reads (the
            // high word of a 32x16 multiply's uniform: `offset % 4` in
            // `assign_curb_setup`), which no rule by places alone sees.
            let narrow = o.ty.size() < 4;
            if let Some(subs) = at.clone().filter(|s| s.len() > 1 || narrow) {
                let mut found = std::collections::BTreeSet::new();
                // The final code's reads by opcode, when every one of them is at a place
                // (a read elsewhere, inside a dword, may be this instruction's).
                if let Some(read) = final_reads.get(&(pre_ra.insts.opcode[i], k, o.nr, o.ty)) {
                    if subs.len() > 1 && read.iter().all(|r| subs.contains(r)) && read.len() == 1 {
                        found.extend(read.iter().copied());
                    }
                }
                let by_flow = by_dataflow.get_or_insert_with(|| {
                    final_code
                        .map(|f| subregisters_by_dataflow(pre_ra, f))
                        .unwrap_or_default()
                });
                // The dataflow's, inside a dword the start dump reads.
                if let Some(&sub) = by_flow
                    .get(&(i, k))
                    .filter(|&&s| subs.contains(&(s - s % 4)))
                {
                    found.insert(sub);
                }
                if let Some(&sub) = by_order.get(&(i, k)) {
                    found.insert(sub);
                }
                if subs.len() == 1 && !narrow {
                    found.extend(subs.iter().copied());
                }
                match found.len() {
                    1 => at = Some(found.into_iter().collect()),
                    // A narrow read where nothing tells which part of the one dword the
                    // start dump reads there: any of them.
                    0 if subs.len() == 1 => {
                        let size = o.ty.size().max(1) as usize;
                        at = Some((subs[0]..subs[0] + 4).step_by(size).collect());
                    }
                    // Rules that disagree, or none: not known.
                    _ => {
                        at = Some(
                            subs.iter()
                                .copied()
                                .chain(found)
                                .collect::<std::collections::BTreeSet<_>>()
                                .into_iter()
                                .collect(),
                        )
                    }
                }
            }
            match at.as_deref() {
                Some([0]) => {}
                Some([sub]) => {
                    pre_ra.srcs_mut(i)[k].offset = *sub;
                    changed += 1;
                }
                None | Some([]) => {
                    return Err(fail(
                        reason::SUBREGISTER,
                        format!(
                            "ip {}: g{}<0>, where the start dump reads nothing",
                            i.index(),
                            o.nr
                        ),
                    ))
                }
                Some(subs) => {
                    return Err(fail(
                        reason::SUBREGISTER,
                        format!(
                            "ip {}: g{}<0>, where the start dump reads {} places (bytes {:?})",
                            i.index(),
                            o.nr,
                            subs.len(),
                            subs
                        ),
                    ))
                }
            }
        }
    }
    Ok(changed)
}

/// Puts back the sub-registers of the fixed-register scalars of `pre_ra` (a Mesa 22.3
/// pre-RA dump of a variant Mesa dropped, with no final code of its own) from `wider`,
/// the pre-RA dump of the variant Mesa kept at the next width, its sub-registers put
/// back by [`fixed_scalars`] from its final code; how many sources it changed.
///
/// Both variants are compiled from the same NIR by the same passes, which keep the
/// order of instructions; the widths differ where `lower_simd_width` replaces an
/// instruction by pieces in place (a scalar source is the same in every piece), and in
/// where the payload ends: push constants and inputs start at the layout's
/// `curb_start` at each width, in the same order (`assign_curb_setup` and
/// `assign_urb_setup` depend on the uniforms and inputs only). So when the two dumps'
/// instructions reading fixed-register scalars, less the later pieces, are the same
/// sequence (opcode, and per such source its index, type and register relative to
/// `curb_start`), each such source of `pre_ra` reads where its counterpart in `wider`
/// does. Otherwise, or where `pre_ra`'s start dump (`start`) reads nothing at that
/// place, nothing is changed ([`reason::SUBREGISTER`]).
pub fn fixed_scalars_from_wider(
    pre_ra: &mut Shader,
    start: &Shader,
    wider: &Shader,
) -> Result<usize, NotRecovered> {
    let not = |detail: String| Err(fail(reason::SUBREGISTER, detail));
    let (Some(layout), Some(wide_layout)) = (start.inputs.clone(), wider.inputs.clone()) else {
        return not("the input layouts are not known".into());
    };
    // Instruction -> its key, and the fixed-register scalar sources' offsets; and how
    // many instructions before it (in program order) could not come between two pieces.
    type Reads = Vec<(Inst, Vec<u64>, Vec<(usize, u32)>, usize)>;
    let reads = |s: &Shader, curb: u32| -> Reads {
        let mut out: Reads = Vec::new();
        let mut blockers = 0;
        for i in s.layout.insts() {
            let srcs = s.srcs(i);
            let fixed: Vec<usize> = (0..srcs.len())
                .filter(|&k| fixed_scalar(&srcs[k]))
                .collect();
            if fixed.is_empty() {
                // Between pieces, `lower_simd_width` puts only the unzipping `mov`s of
                // the next piece's sources.
                if s.insts.opcode[i] != Opcode::Mov {
                    blockers += 1;
                }
                continue;
            }
            let mut key = vec![s.insts.opcode[i] as u64];
            for &k in &fixed {
                let o = srcs[k];
                let reg = if o.nr >= curb {
                    (1 << 20) + (o.nr - curb) as u64
                } else {
                    o.nr as u64
                };
                key.extend([k as u64, o.ty as u64, reg]);
            }
            let offsets = fixed.iter().map(|&k| (k, srcs[k].offset)).collect();
            out.push((i, key, offsets, blockers));
            blockers += 1;
        }
        out
    };
    // Pieces: an instruction with the key of the one before it, for the next channels
    // (its group where the other's end), with nothing but `mov`s between them.
    let collapse = |s: &Shader, r: Reads| -> Vec<(Reads, Vec<u64>)> {
        let mut out: Vec<(Reads, Vec<u64>)> = Vec::new();
        for (i, key, offs, before) in r {
            let c = s.insts.control[i];
            let next_piece = |p: &(Inst, Vec<u64>, Vec<(usize, u32)>, usize)| {
                let pc = s.insts.control[p.0];
                c.group != 0
                    && c.group == pc.group + pc.exec_size
                    && c.exec_size == pc.exec_size
                    && before == p.3 + 1
            };
            match out.last_mut() {
                Some((pieces, k)) if *k == key && next_piece(pieces.last().unwrap()) => {
                    pieces.push((i, key, offs, before))
                }
                _ => out.push((vec![(i, key.clone(), offs, before)], key)),
            }
        }
        out
    };
    let narrow = collapse(pre_ra, reads(pre_ra, layout.curb_start));
    let wide = collapse(wider, reads(wider, wide_layout.curb_start));
    if narrow.len() != wide.len() || narrow.iter().zip(&wide).any(|(a, b)| a.1 != b.1) {
        return not(format!(
            "no final code, and the SIMD{} variant's reads of fixed-register scalars are not the same sequence",
            wider.dispatch_width
        ));
    }
    // Where the start dump reads, by register: a copied place must be one of them.
    let reg = layout.reg_size as u64;
    let mut places = std::collections::HashSet::<u64>::new();
    for i in start.layout.insts() {
        for o in start.srcs(i) {
            let byte = match o.file {
                RegFile::Uniform => layout.uniform_byte(o.nr, o.offset),
                RegFile::Attr => layout.attr_byte(o.nr, o.offset),
                RegFile::FixedGrf => o.nr as u64 * reg + o.offset as u64,
                _ => continue,
            };
            places.insert(byte - byte % 4);
        }
    }
    let mut set = Vec::new();
    for ((pieces, _), (wide_pieces, _)) in narrow.iter().zip(&wide) {
        let offs = &wide_pieces[0].2;
        if wide_pieces.iter().any(|p| p.2 != *offs) {
            return not(format!(
                "no final code, and the pieces of ip {} of the SIMD{} variant read different places",
                wide_pieces[0].0.index(),
                wider.dispatch_width
            ));
        }
        for (i, ..) in pieces {
            for &(k, sub) in offs {
                let o = pre_ra.srcs(*i)[k];
                let byte = o.nr as u64 * reg + sub as u64;
                if !places.contains(&(byte - byte % 4)) {
                    return not(format!(
                        "ip {}: g{}<0> read at byte {sub} as in the SIMD{} variant, where the start dump reads nothing",
                        i.index(),
                        o.nr,
                        wider.dispatch_width
                    ));
                }
                set.push((*i, k, sub));
            }
        }
    }
    let mut changed = 0;
    for (i, k, sub) in set {
        if pre_ra.srcs(i)[k].offset != sub {
            pre_ra.srcs_mut(i)[k].offset = sub;
            changed += 1;
        }
    }
    Ok(changed)
}

/// The plane an interpolation reads: `pln`'s first source, `linterp`'s second.
fn plane_source(op: Opcode) -> Option<usize> {
    match op {
        Opcode::Pln => Some(0),
        Opcode::Linterp => Some(1),
        _ => None,
    }
}

/// The sub-registers of the interpolation planes of the pre-RA dump `pre` read as
/// fixed-register scalars, from the order of the start dump's interpolations
/// (`linterp` of an `attr`, placed by `layout`): (instruction, source) -> byte offset.
///
/// Mesa creates a fragment shader's interpolations from NIR (`linterp` of
/// `interp_reg(location, channel)`, brw_fs_nir.cpp) and no pass between the start dump
/// and the pre-RA dump moves one or makes a new one: dead code elimination and CSE
/// remove some (CSE keeps the first), `lower_simd_width` replaces one by its halves in
/// place, in channel order, and `assign_urb_setup` gives its plane a fixed register. So
/// the dump's interpolations are an order-keeping image of the start dump's: each comes
/// from one of the start dump's, reading its place, over channels inside its channels;
/// the one each comes from is not before the one the previous came from, and is the same
/// one only for a later half. Every such matching is found (forwards and backwards over
/// the two sequences); where all place a plane at one byte of its register, that is its
/// sub-register. Nothing is decided where no matching exists.
fn planes_by_order(
    pre: &Shader,
    start: &Shader,
    layout: &eubatch_ir::thread_inputs::InputLayout,
) -> std::collections::HashMap<(Inst, usize), u32> {
    let mut out = std::collections::HashMap::new();
    if pre.stage != eubatch_ir::Stage::Fs {
        return out;
    }
    let reg = layout.reg_size as u64;
    // The start dump's interpolations: (first channel, channels, register, byte in it).
    let origins: Vec<(u32, u32, u32, u32)> = start
        .layout
        .insts()
        .filter(|&i| start.insts.opcode[i] == Opcode::Linterp)
        .filter_map(|i| {
            let o = start.srcs(i).get(1)?;
            (o.file == RegFile::Attr).then(|| {
                let byte = layout.attr_byte(o.nr, o.offset);
                let c = start.insts.control[i];
                (
                    c.group as u32,
                    c.exec_size as u32,
                    (byte / reg) as u32,
                    (byte % reg) as u32,
                )
            })
        })
        .collect();
    // The dump's: (instruction, source, first channel, channels, register).
    let reads: Vec<(Inst, usize, u32, u32, u32)> = pre
        .layout
        .insts()
        .filter_map(|i| {
            let k = plane_source(pre.insts.opcode[i])?;
            let o = pre.srcs(i).get(k)?;
            let c = pre.insts.control[i];
            fixed_scalar(o).then_some((i, k, c.group as u32, c.exec_size as u32, o.nr))
        })
        .collect();
    let (n, m) = (reads.len(), origins.len());
    if n == 0 || m == 0 {
        return out;
    }
    let fits = |r: usize, s: usize| {
        let (_, _, g, e, nr) = reads[r];
        let (sg, se, snr, _) = origins[s];
        nr == snr && g >= sg && g + e <= sg + se
    };
    // May read r come from the same interpolation as read r - 1 (a later half)?
    let later_half = |r: usize| {
        let (_, _, g, _, _) = reads[r];
        let (_, _, pg, pe, _) = reads[r - 1];
        g >= pg + pe
    };
    // Forwards: ahead[r][s], reads ..=r matched with read r from origin s.
    let mut ahead: Vec<Vec<bool>> = Vec::with_capacity(n);
    for r in 0..n {
        let prev = r.checked_sub(1).map(|p| &ahead[p]);
        // Some earlier origin took read r - 1 (before s), or s itself did.
        let mut before = r == 0;
        let row: Vec<bool> = (0..m)
            .map(|s| {
                let took = prev.is_some_and(|p| p[s]);
                let fit = fits(r, s) && (before || took && later_half(r));
                before |= took;
                fit
            })
            .collect();
        ahead.push(row);
    }
    // Backwards: behind[r][s], reads r.. matched with read r from origin s.
    let mut behind: Vec<Vec<bool>> = Vec::with_capacity(n);
    for r in (0..n).rev() {
        let next = behind.last().filter(|_| r + 1 < n);
        let mut after = r == n - 1;
        let mut row = vec![false; m];
        for (s, cell) in row.iter_mut().enumerate().rev() {
            let took = next.is_some_and(|p: &Vec<bool>| p[s]);
            *cell = fits(r, s) && (after || took && later_half(r + 1));
            after |= took;
        }
        behind.push(row);
    }
    behind.reverse();
    for (r, &(i, k, ..)) in reads.iter().enumerate() {
        let subs: std::collections::BTreeSet<u32> = (0..m)
            .filter(|&s| ahead[r][s] && behind[r][s])
            .map(|s| origins[s].3)
            .collect();
        if let [sub] = subs.into_iter().collect::<Vec<_>>()[..] {
            out.insert((i, k), sub);
        }
    }
    out
}

/// The sources an instruction reads data through, as (slot, operand, bytes read): a
/// send's payloads (slots 0 and 1, `mlen` and `ex_mlen` registers; its descriptor
/// sources, `0u` in the dump and part of the instruction in the final code, are left
/// out), every other source by its index.
fn data_sources(s: &Shader, i: Inst) -> Vec<(u8, eubatch_ir::Operand, u32)> {
    let srcs = s.srcs(i);
    if is_send(s.insts.opcode[i]) {
        let info = s.send_info(i).copied().unwrap_or_default();
        let reg = s.reg_size();
        let (p1, p2) = eubatch_ir::message::send_payloads(srcs);
        return [(p1, info.mlen), (p2, info.ex_mlen)]
            .into_iter()
            .enumerate()
            .filter_map(|(k, (p, len))| {
                p.filter(|_| len > 0)
                    .map(|p| (k as u8, *p, len as u32 * reg))
            })
            .collect();
    }
    (0..srcs.len())
        .map(|k| (k as u8, srcs[k], eubatch_ir::size_read::size_read(s, i, k)))
        .collect()
}

/// A pre-RA `pixel_x`/`pixel_y` of a whole pixel (second source the immediate 0): the
/// `mov` of the subspan X or Y words the generator emits for it (brw_fs_generator.cpp
/// FS_OPCODE_PIXEL_X/Y: `brw_MOV(p, dst, stride(src[0], 8, 4, 1))`, `src[0].subnr` 0
/// for X and 4 words for Y), as its one source read.
fn pixel_mov(s: &Shader, i: Inst) -> Option<eubatch_ir::Operand> {
    let op = s.insts.opcode[i];
    let words = match op {
        Opcode::PixelX => 0,
        Opcode::PixelY => 4,
        _ => return None,
    };
    let &[src, zero] = s.srcs(i) else {
        return None;
    };
    (zero.file == RegFile::Imm && zero.imm_bits() == 0).then(|| eubatch_ir::Operand {
        offset: src.offset + words * 2,
        region: eubatch_ir::Region::new(8, 4, 1),
        ..src
    })
}

/// The byte address of a register operand in one space for both forms: a VGRF's bytes
/// (pre-RA) above every fixed register's.
fn address(s: &Shader, o: &eubatch_ir::Operand) -> Option<u64> {
    match o.file {
        RegFile::Vgrf => Some((1 << 40) | (o.nr as u64) << 20 | o.offset as u64),
        RegFile::FixedGrf => Some(o.nr as u64 * s.reg_size() as u64 + o.offset as u64),
        _ => None,
    }
}

/// A data source's slot, and the writes that reach it: (where the write begins relative
/// to the read, node).
type Reaching = (u8, Vec<(i64, usize)>);

/// One program's instructions as a dataflow graph inside basic blocks: each node's local
/// label, and for each data source the instructions of its block whose writes reach it.
struct Flow {
    insts: Vec<Inst>,
    label: Vec<Vec<u64>>,
    /// Per data source: its slot, and each reaching write's node with where it begins
    /// relative to the read (a VGRF is allocated contiguously: this survives allocation).
    defs: Vec<Vec<Reaching>>,
}

/// The dataflow graph of `s`; `allocated`: `s` is final code, where a register below
/// `fixed_end` (the first register the pre-RA dump does not read as a fixed register)
/// and written nowhere before the read in program order is read as the dump's fixed
/// register, every other register as a value.
fn flow(s: &Shader, allocated: bool, fixed_end: u32) -> Flow {
    use std::hash::{Hash, Hasher};
    let mut f = Flow {
        insts: Vec::new(),
        label: Vec::new(),
        defs: Vec::new(),
    };
    // The fixed registers written so far in program order (a register of the final code
    // read before any write is the thread's payload or push constants).
    let mut written = std::collections::HashSet::<u32>::new();
    for b in s.layout.blocks.iter() {
        // (first byte, end, node) of each write of the block so far, in order.
        let mut writes: Vec<(u64, u64, usize)> = Vec::new();
        for &i in &b.insts {
            let node = f.insts.len();
            let op = s.insts.opcode[i];
            // Mesa's generator emits nothing for an undef (brw_fs_generator.cpp
            // SHADER_OPCODE_UNDEF): no node, and no write.
            if op == Opcode::Undef {
                continue;
            }
            let ctl = s.insts.control[i];
            let dst = s.insts.dst[i];
            // The generator's `mov` of a pixel centre (see [`pixel_mov`]).
            let pixel = if allocated { None } else { pixel_mov(s, i) };
            let mut label = vec![
                if is_send(op) {
                    Opcode::Send as u64
                } else if pixel.is_some() {
                    Opcode::Mov as u64
                } else {
                    op as u64
                },
                ctl.exec_size as u64,
                ctl.group as u64,
                (ctl.flags & (Control::SATURATE | Control::PRED_INVERT | Control::EOT)) as u64,
            ];
            let mut h = std::collections::hash_map::DefaultHasher::new();
            // A send's types are the disassembler's (`g53<1>UW`, payload `UD`), not Mesa's.
            let send = is_send(op);
            let dst_ty = (!send).then_some(dst.ty);
            (
                ctl.predicate,
                ctl.cmod,
                dst_ty,
                dst.file == RegFile::Vgrf || dst.file == RegFile::FixedGrf,
            )
                .hash(&mut h);
            label.push(h.finish());
            if is_send(op) {
                let sig = signature(s, i);
                label.extend([sig.mlen as u64, sig.ex_mlen as u64]);
            }
            let mut defs = Vec::new();
            let sources = match pixel {
                Some(src) => vec![(0, src, eubatch_ir::size_read::size_read(s, i, 0))],
                None => data_sources(s, i),
            };
            for (k, o, size) in sources {
                let mut h = std::collections::hash_map::DefaultHasher::new();
                (k, (!send).then_some(o.ty), o.mods.0).hash(&mut h);
                let mut reaching = Vec::new();
                if let Some(lo) = address(s, &o).filter(|_| size > 0) {
                    let mut covered = vec![false; size as usize];
                    for &(wlo, whi, w) in writes.iter().rev() {
                        let (a, z) = (wlo.max(lo), whi.min(lo + size as u64));
                        if a >= z {
                            continue;
                        }
                        let new = (a..z).any(|x| !covered[(x - lo) as usize]);
                        if new {
                            (a..z).for_each(|x| covered[(x - lo) as usize] = true);
                            reaching.push((wlo as i64 - lo as i64, w));
                        }
                        if covered.iter().all(|&c| c) {
                            break;
                        }
                    }
                }
                let fixed = match o.file {
                    RegFile::FixedGrf => {
                        !allocated
                            || (reaching.is_empty() && o.nr < fixed_end && !written.contains(&o.nr))
                    }
                    RegFile::Vgrf => false,
                    _ => {
                        (o.file as u8, o.nr, o.offset, o.imm_bits()).hash(&mut h);
                        false
                    }
                };
                if fixed {
                    // The register, and the sub-register unless read as a scalar (which
                    // Mesa 22.3's printer drops).
                    let scalar = o.region.vstride == 0 && o.region.hstride == 0
                        || allocated && o.region.vstride == 0 && o.region.width <= 1;
                    (1u8, o.nr, if scalar { u32::MAX } else { o.offset }).hash(&mut h);
                } else if matches!(o.file, RegFile::Vgrf | RegFile::FixedGrf) {
                    (2u8, reaching.is_empty()).hash(&mut h);
                }
                label.push(h.finish());
                reaching.sort_unstable();
                defs.push((k, reaching));
            }
            if let Some(lo) = address(s, &dst) {
                let size = s.insts.size_written[i] as u64;
                if size > 0 {
                    writes.push((lo, lo + size, node));
                    if dst.file == RegFile::FixedGrf {
                        let reg = s.reg_size() as u64;
                        written.extend((lo / reg..(lo + size).div_ceil(reg)).map(|r| r as u32));
                    }
                }
            }
            f.insts.push(i);
            f.label.push(label);
            f.defs.push(defs);
        }
    }
    f
}

/// Colours the instructions of the pre-RA dump `pre` and its final code `fin` together
/// by dataflow (Weisfeiler-Lehman refinement over the graphs of [`flow`], both
/// directions), until no colour splits: two instructions share a colour only if nothing
/// in their blocks' dataflow around them tells them apart. Register allocation and
/// scheduling keep an instruction's operations and its dataflow inside its block, so an
/// instruction of the dump and its counterpart in the final code share a colour when
/// nothing around them was changed after allocation.
fn colours(pre: &Flow, fin: &Flow) -> Vec<(Vec<u32>, Vec<u32>)> {
    let n = pre.insts.len();
    let graphs = [pre, fin];
    // Uses, from the defs.
    let mut uses: Vec<Vec<(u8, i64, usize)>> = vec![Vec::new(); n + fin.insts.len()];
    for (g, base) in [(pre, 0), (fin, n)] {
        for (u, defs) in g.defs.iter().enumerate() {
            for (k, ds) in defs {
                for &(at, d) in ds {
                    uses[base + d].push((*k, at, base + u));
                }
            }
        }
    }
    let mut intern = std::collections::HashMap::<Vec<u64>, u32>::new();
    let mut colour: Vec<u32> = graphs
        .iter()
        .flat_map(|g| g.label.iter())
        .map(|l| {
            let next = intern.len() as u32;
            *intern.entry(l.clone()).or_insert(next)
        })
        .collect();
    let mut distinct = intern.len();
    let mut rounds = vec![(colour[..n].to_vec(), colour[n..].to_vec())];
    // A relative byte offset as 21 bits (reads and writes are a few registers long).
    let place = |at: i64| (at.clamp(-(1 << 20), (1 << 20) - 1) + (1 << 20)) as u64;
    for _ in 0..64 {
        intern.clear();
        let mut next_colour = Vec::with_capacity(colour.len());
        for (g, base) in [(pre, 0), (fin, n)] {
            for (u, defs) in g.defs.iter().enumerate() {
                let mut sig = vec![colour[base + u] as u64];
                for (k, ds) in defs {
                    let mut cs: Vec<u64> = ds
                        .iter()
                        .map(|&(at, d)| place(at) << 32 | colour[base + d] as u64)
                        .collect();
                    cs.sort_unstable();
                    sig.push(u64::MAX - *k as u64);
                    sig.extend(cs);
                }
                let mut us: Vec<u64> = uses[base + u]
                    .iter()
                    .map(|&(k, at, v)| (k as u64) << 56 | place(at) << 32 | colour[v] as u64)
                    .collect();
                us.sort_unstable();
                sig.push(u64::MAX - 100);
                sig.extend(us);
                let next = intern.len() as u32;
                next_colour.push(*intern.entry(sig).or_insert(next));
            }
        }
        colour = next_colour;
        if intern.len() == distinct {
            break;
        }
        distinct = intern.len();
        rounds.push((colour[..n].to_vec(), colour[n..].to_vec()));
    }
    rounds
}

/// The sub-registers the final code `fin` shows for the fixed-register scalars of `pre`
/// (a Mesa 22.3 pre-RA dump of the same variant): (instruction, source) -> byte offset,
/// where the dump's instructions of the source's colour ([`colours`]) are as many as the
/// final code's, and these all read the source as a scalar of the same register and type
/// at one offset.
fn subregisters_by_dataflow(
    pre: &Shader,
    fin: &Shader,
) -> std::collections::HashMap<(Inst, usize), u32> {
    let fixed_end = pre
        .layout
        .insts()
        .flat_map(|i| {
            pre.srcs(i)
                .iter()
                .filter(|o| o.file == RegFile::FixedGrf)
                .map(|o| o.nr + 1)
                .collect::<Vec<_>>()
        })
        .max()
        .unwrap_or(0);
    let p = flow(pre, false, fixed_end);
    let f = flow(fin, true, fixed_end);
    let rounds = colours(&p, &f);
    // Per round: colour -> (the dump's instructions of it, the final code's).
    let classes: Vec<std::collections::HashMap<u32, (usize, Vec<usize>)>> = rounds
        .iter()
        .map(|(pc, fc)| {
            let mut count = std::collections::HashMap::<u32, (usize, Vec<usize>)>::new();
            for &c in pc {
                count.entry(c).or_default().0 += 1;
            }
            for (j, &c) in fc.iter().enumerate() {
                count.entry(c).or_default().1.push(j);
            }
            count
        })
        .collect();
    let mut out = std::collections::HashMap::new();
    for (u, &i) in p.insts.iter().enumerate() {
        for (k, o) in pre.srcs(i).iter().enumerate() {
            if !fixed_scalar(o) || is_send(pre.insts.opcode[i]) {
                continue;
            }
            // The deepest round where the instruction's class has as many instructions
            // in the dump as in the final code: deeper, something within that distance
            // differs between the two (a virtual opcode the generator expands).
            let Some(finals) = (0..rounds.len()).rev().find_map(|r| {
                let (same, finals) = &classes[r][&rounds[r].0[u]];
                (*same == finals.len() && !finals.is_empty()).then_some(finals)
            }) else {
                continue;
            };
            let offsets: std::collections::BTreeSet<Option<u32>> = finals
                .iter()
                .map(|&j| {
                    let r = fin.srcs(f.insts[j]).get(k)?;
                    (r.file == RegFile::FixedGrf
                        && r.nr == o.nr
                        && r.ty == o.ty
                        && r.region.vstride == 0
                        && r.region.width <= 1)
                        .then_some(r.offset)
                })
                .collect();
            if let [Some(sub)] = offsets.into_iter().collect::<Vec<_>>()[..] {
                out.insert((i, k), sub);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use eubatch_ir::import::{import_mesa_dump, DumpName};
    use eubatch_ir::Gen;

    /// Two reads of the push-constant register g1 (`u0` and `u1`, bytes 0 and 4) by adds
    /// of the same shape: the final code's adds read both places, so the opcode rule says
    /// nothing; the dataflow does (the first sum is shifted, the second is not).
    #[test]
    fn sub_registers_from_the_final_code_dataflow() {
        let start_text = "\
{  1}    0: mov(8) vgrf0:D, 1d 
{  2}    1: add(8) vgrf1:D, vgrf0:D, u0<0>:D 
{  3}    2: add(8) vgrf2:D, vgrf0:D, u1<0>:D 
{  3}    3: shl(8) vgrf3:D, vgrf1:D, 2u 
{  2}    4: add(8) vgrf4:D, vgrf3:D, vgrf2:D 
Maximum 3 registers live at once.
";
        let pre_text = "\
{  1}    0: mov(8) vgrf0:D, 1d 
{  2}    1: add(8) vgrf1:D, vgrf0:D, g1<0>:D 
{  3}    2: add(8) vgrf2:D, vgrf0:D, g1<0>:D 
{  3}    3: shl(8) vgrf3:D, vgrf1:D, 2u 
{  2}    4: add(8) vgrf4:D, vgrf3:D, vgrf2:D 
Maximum 3 registers live at once.
";
        let asm = "\
Native code for unnamed compute shader (null) (sha1 0)
SIMD8 shader: 5 instructions. 0 loops. 10 cycles. 0:0 spills:fills, 0 sends, scheduled with mode top-down. Promoted 0 constants. Compacted 80 to 80 bytes (0%)
   START B0 (10 cycles)
01 00 60 00 28 0e 40 21 01 00 00 00 00 00 00 00 mov(8)          g10<1>D         1D                              { align1 1Q };
40 00 60 00 28 0a 80 21 40 01 8d 0a 24 00 00 00 add(8)          g12<1>D         g10<8,8,1>D     g1.1<0,1,0>D    { align1 1Q };
40 00 60 00 28 0a 60 21 40 01 8d 0a 20 00 00 00 add(8)          g11<1>D         g10<8,8,1>D     g1<0,1,0>D      { align1 1Q };
09 00 60 00 28 0a a0 21 60 01 8d 06 02 00 00 00 shl(8)          g13<1>D         g11<8,8,1>D     0x00000002UD    { align1 1Q };
40 00 60 00 28 0a c0 21 a0 01 8d 0a 80 01 8d 00 add(8)          g14<1>D         g13<8,8,1>D     g12<8,8,1>D     { align1 1Q };
   END B0
";
        let name = DumpName::parse("CS8-(null)-00-00-start").unwrap();
        let mut start = import_mesa_dump(start_text, &name, "test", Gen::Gen9).unwrap();
        start.freeze_inputs();
        let name = DumpName::parse("CS8-(null)-90-90-pre_register_allocate").unwrap();
        let mut pre = import_mesa_dump(pre_text, &name, "test", Gen::Gen9).unwrap();
        pre.inputs = start.inputs.clone();
        let listing = eubatch_codegen::asm::read_asm(asm, "asm.txt", Gen::Gen9).unwrap();
        // Without the final code: two places, not known.
        let e = fixed_scalars(&mut pre.clone(), &start, &[], "(null)").unwrap_err();
        assert_eq!(e.reason, reason::SUBREGISTER, "{e}");
        assert_eq!(fixed_scalars(&mut pre, &start, &listing, "(null)"), Ok(1));
        let sub = |k: usize| pre.srcs(Inst::from_usize(k))[1].offset;
        assert_eq!((sub(1), sub(2)), (0, 4));
    }

    /// Two interpolations of g5 (attr2 at byte 0, attr3 at byte 16): in the start dump's
    /// order, with no final code. One of them removed, either could be left: not known.
    #[test]
    fn interpolation_planes_by_order() {
        let start_text = "\
{  2}    0: mov(8) vgrf0:F, g2:F 
{  2}    1: mov(8) vgrf0+1.0:F, g3:F 
{  3}    2: linterp(8) vgrf1:F, vgrf0:F, attr2<0>:F 
{  4}    3: linterp(8) vgrf2:F, vgrf0:F, attr3<0>:F 
{  3}    4: add(8) vgrf3:F, vgrf2:F, -vgrf1:F 
Maximum 4 registers live at once.
";
        let pre_text = "\
{  1}    0: linterp(8) vgrf1:F, g2:F, g5<0>:F 
{  2}    1: linterp(8) vgrf2:F, g2:F, g5<0>:F 
{  2}    2: add(8) vgrf3:F, vgrf2:F, -vgrf1:F 
Maximum 2 registers live at once.
";
        let name = DumpName::parse("FS8-GLSL1-00-00-start").unwrap();
        let mut start = import_mesa_dump(start_text, &name, "test", Gen::Gen9).unwrap();
        start.freeze_inputs();
        let name = DumpName::parse("FS8-GLSL1-90-90-pre_register_allocate").unwrap();
        let mut pre = import_mesa_dump(pre_text, &name, "test", Gen::Gen9).unwrap();
        pre.inputs = start.inputs.clone();
        let mut one = import_mesa_dump(
            &pre_text.replace(
                "{  1}    0: linterp(8) vgrf1:F, g2:F, g5<0>:F \n",
                "{  1}    0: mov(8) vgrf1:F, 1f \n",
            ),
            &name,
            "test",
            Gen::Gen9,
        )
        .unwrap();
        one.inputs = start.inputs.clone();
        assert_eq!(fixed_scalars(&mut pre, &start, &[], "GLSL1"), Ok(1));
        let sub = |s: &Shader, k: usize| s.srcs(Inst::from_usize(k))[1].offset;
        assert_eq!((sub(&pre, 0), sub(&pre, 1)), (0, 16));
        // Only the second left: attr2 or attr3.
        let e = fixed_scalars(&mut one, &start, &[], "GLSL1").unwrap_err();
        assert_eq!(e.reason, reason::SUBREGISTER, "{e}");
    }

    /// A SIMD8 compute variant without final code reads g1 (push constants u6 and u7,
    /// bytes 24 and 28) where the kept SIMD16 variant's dump, its sub-registers known,
    /// does: its first add split in two pieces (group0, group8) is one instruction here.
    /// A SIMD16 dump with another sequence of reads decides nothing.
    #[test]
    fn sub_registers_from_the_wider_variant() {
        let start_text = "\
{  1}    0: mov(W) vgrf0:D, 1d 
{  2}    1: add(W) vgrf1:D, vgrf0:D, u6<0>:D 
{  2}    2: add(W) vgrf2:D, vgrf1:D, u7<0>:D 
Maximum 2 registers live at once.
";
        let pre8 = "\
{  1}    0: mov(8) vgrf0:D, 1d 
{  2}    1: add(8) vgrf1:D, vgrf0:D, g1<0>:D 
{  2}    2: add(8) vgrf2:D, vgrf1:D, g1<0>:D 
Maximum 2 registers live at once.
";
        let pre16 = "\
{  1}    0: mov(16) vgrf0:D, 1d 
{  2}    1: add(8) vgrf1+0.0:D, vgrf0+0.0:D, g1<0>:D group0 
{  2}    2: add(8) vgrf1+1.0:D, vgrf0+1.0:D, g1<0>:D group8 
{  2}    3: add(16) vgrf2:D, vgrf1:D, g1<0>:D 
Maximum 2 registers live at once.
";
        let load = |text: &str, file: &str, start: Option<&Shader>| {
            let name = DumpName::parse(file).unwrap();
            let mut s = import_mesa_dump(text, &name, "test", Gen::Gen9).unwrap();
            match start {
                Some(st) => s.inputs = st.inputs.clone(),
                None => s.freeze_inputs(),
            }
            s
        };
        let start8 = load(
            &start_text.replace("(W)", "(8)"),
            "CS8-(null)-00-00-start",
            None,
        );
        let start16 = load(
            &start_text.replace("(W)", "(16)"),
            "CS16-(null)-00-00-start",
            None,
        );
        let mut wide = load(
            pre16,
            "CS16-(null)-90-90-pre_register_allocate",
            Some(&start16),
        );
        for (k, sub) in [(1, 24), (2, 24), (3, 28)] {
            wide.srcs_mut(Inst::from_usize(k))[1].offset = sub;
        }
        let mut pre = load(
            pre8,
            "CS8-(null)-90-90-pre_register_allocate",
            Some(&start8),
        );
        let e = fixed_scalars(&mut pre.clone(), &start8, &[], "(null)").unwrap_err();
        assert_eq!(e.reason, reason::SUBREGISTER, "{e}");
        assert_eq!(fixed_scalars_from_wider(&mut pre, &start8, &wide), Ok(2));
        let sub = |k: usize| pre.srcs(Inst::from_usize(k))[1].offset;
        assert_eq!((sub(1), sub(2)), (24, 28));
        // The pieces not next to each other (a mov between reads the push constants):
        // three reads against two, nothing decided.
        let other = pre16.replace(
            "{  2}    2: add(8) vgrf1+1.0:D, vgrf0+1.0:D, g1<0>:D group8 \n",
            "{  2}    2: add(8) vgrf1+1.0:D, vgrf0+1.0:D, g1<0>:D group8 \n{  2}    3: mul(16) vgrf3:D, vgrf0:D, g1<0>:D \n",
        );
        let wide = load(
            &other,
            "CS16-(null)-90-90-pre_register_allocate",
            Some(&start16),
        );
        let mut pre = load(
            pre8,
            "CS8-(null)-90-90-pre_register_allocate",
            Some(&start8),
        );
        let e = fixed_scalars_from_wider(&mut pre, &start8, &wide).unwrap_err();
        assert_eq!(e.reason, reason::SUBREGISTER, "{e}");
    }

    /// Pixel centres times two push constants (g2.0, g2.1): only the dataflow tells the
    /// products apart, through the generator's `mov`s of the subspan X and Y words that
    /// the dump's `pixel_x` and `pixel_y` are (Y at word 4 of the same register).
    #[test]
    fn pixel_centres_are_the_generators_movs() {
        let start_text = "\
{  1}    0: add(16) vgrf2:UW, g1<0>:UW, 11001010V NoMask group0 
{  2}    1: pixel_x(8) vgrf0:F, vgrf2:UW, 0u 
{  3}    2: pixel_y(8) vgrf1:F, vgrf2:UW, 0u 
{  3}    3: mul(8) vgrf3:F, vgrf0:F, u0<0>:F 
{  3}    4: mul(8) vgrf4:F, vgrf1:F, u1<0>:F 
{  2}    5: add(8) vgrf5:F, vgrf3:F, -vgrf4:F 
Maximum 3 registers live at once.
";
        let pre_text = start_text
            .replace("u0<0>:F", "g2<0>:F")
            .replace("u1<0>:F", "g2<0>:F");
        let asm = "\
Native code for unnamed fragment shader GLSL1 (sha1 0)
SIMD8 shader: 6 instructions. 0 loops. 10 cycles. 0:0 spills:fills, 0 sends, scheduled with mode top-down. Promoted 0 constants. Compacted 96 to 96 bytes (0%)
   START B0 (10 cycles)
40 00 80 00 4c 32 80 22 28 00 28 00 10 10 00 11 add(16)         g20<1>UW        g1.4<1,4,0>UW   0x11001010V     { align1 WE_all 1H };
01 00 60 00 e8 12 60 20 80 02 69 00 00 00 00 00 mov(8)          g3<1>F          g20<8,4,1>UW                    { align1 1Q };
01 00 60 00 e8 12 80 20 88 02 69 00 00 00 00 00 mov(8)          g4<1>F          g20.4<8,4,1>UW                  { align1 1Q };
41 00 60 00 e8 3a a0 20 80 00 8d 3a 44 00 00 00 mul(8)          g5<1>F          g4<8,8,1>F      g2.1<0,1,0>F    { align1 1Q };
41 00 60 00 e8 3a c0 20 60 00 8d 3a 40 00 00 00 mul(8)          g6<1>F          g3<8,8,1>F      g2<0,1,0>F      { align1 1Q };
40 00 60 00 e8 3a e0 20 c0 00 8d 3a a0 40 8d 00 add(8)          g7<1>F          g6<8,8,1>F      -g5<8,8,1>F     { align1 1Q };
   END B0
";
        let name = DumpName::parse("FS8-GLSL1-00-00-start").unwrap();
        let mut start = import_mesa_dump(start_text, &name, "test", Gen::Gen9).unwrap();
        start.freeze_inputs();
        let name = DumpName::parse("FS8-GLSL1-90-90-pre_register_allocate").unwrap();
        let mut pre = import_mesa_dump(&pre_text, &name, "test", Gen::Gen9).unwrap();
        pre.inputs = start.inputs.clone();
        let listing = eubatch_codegen::asm::read_asm(asm, "asm.txt", Gen::Gen9).unwrap();
        assert_eq!(fixed_scalars(&mut pre, &start, &listing, "GLSL1"), Ok(1));
        let sub = |k: usize| pre.srcs(Inst::from_usize(k))[1].offset;
        assert_eq!((sub(3), sub(4)), (0, 4));
    }
}
