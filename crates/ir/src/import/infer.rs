//! Inferring VGRF layouts and `size_written` from how a Mesa dump uses its registers.
//!
//! Mesa never prints VGRF sizes, but its printer writes `+R.B` on a VGRF operand exactly
//! when the access has an offset or does not cover the whole register
//! (`fs_visitor::dump_instruction`). So:
//! * an ALU access printed without `+R.B` gives the VGRF's exact size (its footprint);
//! * every access gives a lower bound (`offset + footprint`), rounded up to whole registers
//!   (the target's [`Target::reg_size`](crate::target::Target::reg_size) bytes), the unit
//!   Mesa allocates in.
//!
//! The component pitch is the smallest register multiple such that every access lies
//! inside one component or spans whole components. Where every access inside a one-register
//! component is a 16-bit (or 8-bit) access to its low half, the component is half a register
//! of data and half of padding (16 and 16 bytes): SIMD8 half-float values (seed 003).
//!
//! What is inferred is a lower bound: bytes no instruction touches are not known to exist.

use crate::opcode::Opcode;
use crate::operand::{Operand, RegFile};
use crate::vgrf::VgrfLayout;

/// What one instruction tells about its VGRFs.
pub struct InstUse<'a> {
    pub opcode: Opcode,
    pub exec_size: u32,
    pub dst: &'a Operand,
    pub srcs: &'a [Operand],
    /// Bit 0: destination printed with `+R.B`; bit i+1: source i.
    pub offset_shown: u64,
    pub mlen: u8,
    pub ex_mlen: u8,
}

#[derive(Copy, Clone, Debug)]
struct Access {
    offset: u32,
    /// Bytes from the first to the last byte touched, when known.
    len: Option<u32>,
    elem: u32,
    /// A write by a plain (non-message) instruction.
    alu_write: bool,
    write: bool,
}

/// The byte length of source `i` when the opcode fixes it, `None` when only the message
/// knows it.
fn src_len(u: &InstUse<'_>, i: usize, reg_size: u32) -> Option<u32> {
    let src = &u.srcs[i];
    if u.opcode == Opcode::Send || u.opcode == Opcode::Sends {
        // SHADER_OPCODE_SEND: sources 2 and 3 are the payloads (fs_inst::size_read).
        return match i {
            2 if u.mlen != 0 => Some(u.mlen as u32 * reg_size),
            3 if u.ex_mlen != 0 => Some(u.ex_mlen as u32 * reg_size),
            _ => None,
        };
    }
    if u.opcode.is_message() {
        return None;
    }
    Some(src.footprint(u.exec_size))
}

/// Layouts for `count` VGRFs and `size_written` for every instruction, from the uses, on a
/// target whose registers are `reg_size` bytes.
pub fn infer(count: usize, uses: &[InstUse<'_>], reg_size: u32) -> (Vec<VgrfLayout>, Vec<u32>) {
    // The accesses of all VGRFs in one array, in the order met, then grouped by VGRF:
    // one allocation for the whole shader instead of one per VGRF.
    let mut exact = vec![0u32; count];
    // About one destination and two sources per instruction: grown once or not at all.
    let mut met: Vec<(u32, Access)> = Vec::with_capacity(3 * uses.len());
    for u in uses {
        // What the opcode says, asked once per instruction rather than per operand.
        let free = u.opcode.has_free_size_written();
        let message = u.opcode.is_message();
        let dst = u.dst;
        if dst.file == RegFile::Vgrf {
            let e = &mut exact[dst.nr as usize];
            let shown = u.offset_shown & 1 != 0;
            let len = if free {
                let len = message_dst_len(u);
                if let (Some(l), false) = (len, shown) {
                    *e = (*e).max(l);
                }
                len
            } else {
                if !shown {
                    *e = (*e).max(dst.footprint(u.exec_size));
                }
                Some(dst.span(u.exec_size))
            };
            met.push((
                dst.nr,
                Access {
                    offset: dst.offset,
                    len,
                    elem: dst.ty.size(),
                    alu_write: !free,
                    write: true,
                },
            ));
        }
        for (i, src) in u.srcs.iter().enumerate() {
            if src.file != RegFile::Vgrf {
                continue;
            }
            let e = &mut exact[src.nr as usize];
            let shown = u.offset_shown & (1 << (i + 1)) != 0;
            let len = src_len(u, i, reg_size);
            if let (Some(l), false, false) = (len, shown, free) {
                *e = (*e).max(l);
            }
            let len = if message {
                len
            } else {
                Some(src.span(u.exec_size))
            };
            met.push((
                src.nr,
                Access {
                    offset: src.offset,
                    len,
                    elem: src.ty.size(),
                    alu_write: false,
                    write: false,
                },
            ));
        }
    }
    let (starts, accesses) = group_by_vgrf(count, &met);
    let mut scratch = Scratch::default();
    let layouts: Vec<VgrfLayout> = (0..count)
        .map(|v| {
            let of_v = &accesses[starts[v]..starts[v + 1]];
            layout_of(exact[v], of_v, &mut scratch, reg_size)
        })
        .collect();
    let sizes = size_written(uses, &layouts);
    (layouts, sizes)
}

/// The accesses grouped by VGRF (a counting sort, keeping the order met within each):
/// those of VGRF `v` are `accesses[starts[v]..starts[v + 1]]`.
fn group_by_vgrf(count: usize, met: &[(u32, Access)]) -> (Vec<usize>, Vec<Access>) {
    let mut starts = vec![0usize; count + 1];
    for &(nr, _) in met {
        starts[nr as usize + 1] += 1;
    }
    for v in 0..count {
        starts[v + 1] += starts[v];
    }
    let mut next = starts.clone();
    let mut accesses = vec![
        Access {
            offset: 0,
            len: None,
            elem: 0,
            alu_write: false,
            write: false,
        };
        met.len()
    ];
    for &(nr, a) in met {
        let slot = &mut next[nr as usize];
        accesses[*slot] = a;
        *slot += 1;
    }
    (starts, accesses)
}

/// Buffers [`layout_of`] reuses from one VGRF to the next.
#[derive(Default)]
struct Scratch {
    writes: Vec<u32>,
    pitches: Vec<u32>,
}

/// Bytes a message or payload builder writes, where Mesa's code fixes it.
fn message_dst_len(u: &InstUse<'_>) -> Option<u32> {
    match u.opcode {
        Opcode::LoadPayload => Some(load_payload_len(u)),
        op => crate::message::response_bytes(op, u.srcs, u.exec_size),
    }
}

fn load_payload_len(u: &InstUse<'_>) -> u32 {
    u.srcs
        .iter()
        .map(|s| {
            let f = s.footprint(u.exec_size);
            if s.is_bad() {
                u.exec_size * 4
            } else if f <= s.ty.size() {
                // A scalar (immediate, `<0>` region) fills a part of its type per channel
                // (fs_builder::LOAD_PAYLOAD: `exec_size * type_sz` per source).
                u.exec_size * s.ty.size()
            } else {
                f
            }
        })
        .sum()
}

fn round_up(v: u32, to: u32) -> u32 {
    v.div_ceil(to) * to
}

/// The layout of a VGRF from its accesses and the exact size some of them show, in whole
/// registers of `reg` bytes.
fn layout_of(exact: u32, accesses: &[Access], scratch: &mut Scratch, reg: u32) -> VgrfLayout {
    let extent = accesses
        .iter()
        .map(|a| a.offset + a.len.unwrap_or(1))
        .max()
        .unwrap_or(reg);
    let size = exact.max(round_up(extent, reg)).max(reg);
    if accesses
        .iter()
        .all(|a| a.offset == 0 && a.len == Some(size))
    {
        // Every access covers the whole VGRF (most VGRFs): every candidate pitch is the
        // size, and such accesses are neither in the low half of a component nor padded.
        return VgrfLayout {
            components: 1,
            data: size as u16,
            padding: 0,
        };
    }
    let known = || {
        accesses
            .iter()
            .filter_map(|a| a.len.map(|l| (a.offset, l.max(1))))
    };
    let valid =
        |p: u32| known().all(|(o, l)| o / p == (o + l - 1) / p || (o % p == 0 && l % p == 0));
    // The component is what one plain instruction writes: prefer the widest such write
    // that splits the register into components every access respects; else the
    // narrowest valid pitch; else the whole register.
    let writes = &mut scratch.writes;
    writes.clear();
    writes.extend(
        accesses
            .iter()
            .filter(|a| a.alu_write)
            .filter_map(|a| a.len.map(|l| round_up(l.max(1), reg)))
            .filter(|p| size.is_multiple_of(*p)),
    );
    // Each pitch is tried once (many accesses have the same length), and the candidate
    // pitches of the other accesses are gathered only when no write's pitch is valid.
    writes.sort_unstable_by(|a, b| b.cmp(a));
    writes.dedup();
    let pitches = &mut scratch.pitches;
    let pitch = writes
        .iter()
        .copied()
        .find(|&p| valid(p))
        .or_else(|| {
            pitches.clear();
            pitches.extend(
                known()
                    .map(|(_, l)| round_up(l, reg))
                    .filter(|p| size.is_multiple_of(*p)),
            );
            pitches.push(size);
            pitches.sort_unstable();
            pitches.dedup();
            pitches.iter().copied().find(|&p| valid(p))
        })
        .unwrap_or(size);
    let components = (size / pitch) as u16;
    // SIMD8 16-bit values: every plain write is 16-bit and stays in the low half of its
    // component; every read does too, or is a whole-component read by a message.
    let half = pitch / 2;
    let low = |a: &Access, l: u32| a.elem <= 2 && (a.offset % pitch) + l.max(1) <= half;
    let whole =
        |a: &Access, l: u32| a.offset.is_multiple_of(pitch) && l > 0 && l.is_multiple_of(pitch);
    let padded = pitch == reg
        && accesses.iter().any(|a| a.alu_write)
        && accesses.iter().all(|a| match a.len {
            Some(l) if a.alu_write => low(a, l),
            Some(l) if a.write => whole(a, l),
            Some(l) => low(a, l) || (whole(a, l) && !a.alu_write),
            None => a.offset % pitch < half,
        });
    if padded {
        VgrfLayout {
            components,
            data: half as u16,
            padding: half as u16,
        }
    } else {
        VgrfLayout {
            components,
            data: pitch as u16,
            padding: 0,
        }
    }
}

fn size_written(uses: &[InstUse<'_>], layouts: &[VgrfLayout]) -> Vec<u32> {
    // Where each VGRF is written, to bound writes of unknown size by the next write:
    // (VGRF, offset) pairs, sorted, in one array; made when a write first needs it (few
    // shaders have such writes). Each pair is one integer, VGRF above offset, so that
    // sorting compares integers rather than tuples.
    let write_starts: std::cell::OnceCell<Vec<u64>> = std::cell::OnceCell::new();
    let starts = || {
        write_starts.get_or_init(|| {
            let mut w: Vec<u64> = uses
                .iter()
                .filter(|u| u.dst.file == RegFile::Vgrf)
                .map(|u| write_key(u.dst.nr, u.dst.offset))
                .collect();
            w.sort_unstable();
            w.dedup();
            w
        })
    };
    uses.iter()
        .map(|u| {
            let dst = u.dst;
            if dst.is_bad() {
                return 0;
            }
            let default = dst.footprint(u.exec_size);
            if dst.file != RegFile::Vgrf || !u.opcode.has_free_size_written() {
                return default;
            }
            let size = layouts[dst.nr as usize].size();
            let room = size.saturating_sub(dst.offset);
            if u.offset_shown & 1 == 0 {
                return room;
            }
            let want = if let Some(l) = message_dst_len(u) {
                l
            } else {
                // The first write of the VGRF that starts after this one.
                let write_starts = starts();
                let i = write_starts.partition_point(|&w| w <= write_key(dst.nr, dst.offset));
                let next = write_starts
                    .get(i)
                    .filter(|&&w| (w >> 32) as u32 == dst.nr)
                    .map_or(size, |&w| w as u32);
                (next - dst.offset).max(default)
            };
            want.min(room)
        })
        .collect()
}

/// A write's (VGRF, offset) as one integer, ordered as the pair is.
fn write_key(nr: u32, offset: u32) -> u64 {
    (u64::from(nr) << 32) | u64::from(offset)
}
