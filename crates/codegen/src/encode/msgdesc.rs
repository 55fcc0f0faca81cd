//! The second line of a send: the shared function's name and what its message descriptor
//! says (`sampler MsgDesc: sample SIMD8 Surface = 1 Sampler = 0 mlen 2 rlen 4`), gen7–9.
//!
//! Source: Mesa 23.0 `brw_disasm.c` (the `is_send` part of `brw_disassemble_inst` and its
//! name tables), `brw_eu.h` (`brw_*_desc_*` bit positions), `brw_inst.h` (URB and render
//! target fields, `MD(x)` = descriptor bit x).

use super::field::Col;
use super::inst::{Desc, Form, Inst};
use super::out::Out;
use super::print::Dialect;
use super::tables::sfid_name;

fn bits(v: u32, hi: u32, lo: u32) -> u32 {
    (v >> lo) & ((1u64 << (hi - lo + 1)) - 1) as u32
}

const SAMPLER_MSG: [&str; 32] = [
    "sample",
    "sample_b",
    "sample_l",
    "sample_c",
    "sample_d",
    "sample_b_c",
    "sample_l_c",
    "ld",
    "gather4",
    "lod",
    "resinfo",
    "sampleinfo",
    "",
    "",
    "",
    "",
    "gather4_c",
    "gather4_po",
    "gather4_po_c",
    "",
    "sample_d_c",
    "",
    "",
    "",
    "sample_lz",
    "sample_c_lz",
    "ld_lz",
    "",
    "ld2dms_w",
    "ld_mcs",
    "ld2dms",
    "ld2dss",
];
const SAMPLER_SIMD: [&str; 6] = [
    "SIMD4x2",
    "SIMD8",
    "SIMD16",
    "SIMD32/64",
    "SIMD8H",
    "SIMD16H",
];
const RC_GFX7: [&str; 14] = [
    "",
    "",
    "",
    "",
    "media block read",
    "typed surface read",
    "typed atomic op",
    "memory fence",
    "",
    "",
    "media block write",
    "",
    "RT write",
    "typed surface write",
];
const RT_SUBTYPE: [&str; 8] = [
    "SIMD16",
    "SIMD16/RepData",
    "SIMD8/DualSrcLow",
    "SIMD8/DualSrcHigh",
    "SIMD8",
    "SIMD8/ImageWrite",
    "",
    "SIMD16/RepData-111",
];
const DC0: [&str; 16] = [
    "DC OWORD block read",
    "DC unaligned OWORD block read",
    "DC OWORD dual block read",
    "DC DWORD scattered read",
    "DC byte scattered read",
    "DC untyped surface read",
    "DC untyped atomic",
    "DC mfence",
    "DC OWORD block write",
    "",
    "DC OWORD dual block write",
    "DC DWORD scatterd write",
    "DC byte scattered write",
    "DC untyped surface write",
    "",
    "",
];
const DC1: [&str; 30] = [
    "",
    "untyped surface read",
    "DC untyped atomic op",
    "DC untyped 4x2 atomic op",
    "DC media block read",
    "DC typed surface read",
    "DC typed atomic",
    "DC typed 4x2 atomic op",
    "",
    "DC untyped surface write",
    "DC media block write",
    "DC atomic counter op",
    "DC 4x2 atomic counter op",
    "DC typed surface write",
    "",
    "",
    "DC A64 scattered read",
    "DC A64 untyped surface read",
    "DC A64 untyped atomic op",
    "",
    "DC A64 oword block read",
    "DC A64 oword block write",
    "",
    "",
    "",
    "DC A64 untyped surface write",
    "DC A64 scattered write",
    "DC untyped atomic float op",
    "",
    "DC A64 untyped atomic float op",
];
const AOP: [&str; 16] = [
    "", "and", "or", "xor", "mov", "inc", "dec", "add", "sub", "revsub", "imax", "imin", "umax",
    "umin", "cmpwr", "predec",
];
const AOP_FLOAT: [&str; 5] = ["", "fmax", "fmin", "fcmpwr", "fadd"];
const OWORDS: [&str; 5] = ["1-low", "1-high", "2", "4", "8"];
const URB_OP: [&str; 10] = [
    "write HWord",
    "write OWord",
    "read HWord",
    "read OWord",
    "atomic mov",
    "atomic inc",
    "atomic add",
    "SIMD8 write",
    "SIMD8 read",
    "fence",
];
const URB_SWIZZLE: [&str; 3] = ["", "interleave", "transpose"];
const GATEWAY: [&str; 7] = [
    "open",
    "close",
    "forward msg",
    "get timestamp",
    "barrier msg",
    "update state",
    "mmio read/write",
];
const PI_MSG: [&str; 4] = [
    "per_message_offset",
    "sample_position",
    "centroid",
    "per_slot_offset",
];

/// `control()` over a table; false (and Mesa's message) for an index it does not name.
fn ctl(o: &mut Out, table: &[&str], id: u32, what: &str, space: &mut bool) -> bool {
    match table.get(id as usize) {
        Some(s) => {
            if !s.is_empty() {
                if *space {
                    o.s(" ");
                }
                o.s(s);
                *space = true;
            }
            true
        }
        None => {
            o.raw(&format!("*** invalid {what} value {id} "));
            false
        }
    }
}

/// Writes the newline and the decode line up to (not including) the options.
pub fn line(o: &mut Out, col: Col, inst: &Inst, dialect: Dialect) {
    let sfid = inst.ctrl.cond_modifier;
    let (desc, ex_desc) = match inst.form {
        Form::Send(s) => match s.desc {
            Desc::Imm(d) => (Some(d), None),
            Desc::Reg(_) => (None, None),
        },
        Form::Split(s) => (
            (s.desc_in_reg == 0).then_some(s.desc),
            (s.ex_desc_in_reg == 0).then_some(s.ex_desc),
        ),
        _ => (None, None),
    };
    o.newline();
    o.pad(16);
    o.raw("            ");
    let mut space = false;
    match sfid_name(sfid) {
        Some(n) => ctl(o, &[n], 0, "SFID", &mut space),
        None => ctl(o, &[], sfid as u32, "SFID", &mut space),
    };
    o.s(" MsgDesc:");
    let Some(d) = desc else {
        o.s(" indirect");
        return;
    };
    let g8 = col.gen8_plus();
    let mut unsupported = false;
    match sfid {
        2 => {
            ctl(
                o,
                &SAMPLER_MSG,
                bits(d, 16, 12),
                "sampler message",
                &mut space,
            );
            let simd = if g8 {
                bits(d, 18, 17) | bits(d, 29, 29) << 2
            } else {
                bits(d, 18, 17)
            };
            ctl(o, &SAMPLER_SIMD, simd, "sampler simd mode", &mut space);
            if g8 && bits(d, 30, 30) != 0 {
                o.s(" HP");
            }
            o.s(&format!(
                " Surface = {} Sampler = {}",
                bits(d, 7, 0),
                bits(d, 11, 8)
            ));
        }
        4 | 9 => {
            let ty = if g8 { bits(d, 18, 14) } else { bits(d, 17, 14) };
            let commit = if dialect == Dialect::Mesa22 {
                ", write_commit 0"
            } else {
                ""
            };
            o.s(&format!(
                " (bti {}, msg_ctrl {}, msg_type {ty}{commit})",
                bits(d, 7, 0),
                bits(d, 13, 8)
            ));
        }
        5 => {
            let ty = bits(d, 17, 14);
            if col == Col::Gen9 {
                let t: [&str; 14] = [
                    "", "", "", "", "", "", "", "", "", "", "", "", "RT write", "RT read",
                ];
                ctl(o, &t, ty, "DP rc message type", &mut space);
            } else {
                ctl(o, &RC_GFX7, ty, "DP rc message type", &mut space);
            }
            if ty == 12 {
                ctl(
                    o,
                    &RT_SUBTYPE,
                    bits(d, 10, 8),
                    "RT message type",
                    &mut space,
                );
                if bits(d, 11, 11) != 0 {
                    o.s(" Hi");
                }
                if bits(d, 12, 12) != 0 {
                    o.s(" LastRT");
                }
            } else {
                o.s(&format!(" MsgCtrl = 0x{}", bits(d, 13, 8)));
            }
            o.s(&format!(" Surface = {}", bits(d, 7, 0)));
        }
        6 => {
            let op = if g8 { bits(d, 3, 0) } else { bits(d, 2, 0) };
            let off = if g8 { bits(d, 14, 4) } else { bits(d, 13, 3) };
            o.s(&format!(" offset {off}"));
            space = true;
            ctl(o, &URB_OP, op, "urb opcode", &mut space);
            let per_slot = if g8 { bits(d, 17, 17) } else { bits(d, 16, 16) };
            if per_slot != 0 {
                o.s(" per-slot");
            }
            if op == 7 || op == 8 {
                if bits(d, 15, 15) != 0 {
                    o.s(" masked");
                }
            } else if op != 9 {
                let sw = if g8 { bits(d, 15, 15) } else { bits(d, 14, 14) };
                ctl(o, &URB_SWIZZLE, sw, "urb swizzle", &mut space);
            }
            if !g8 {
                ctl(
                    o,
                    &["", "complete"],
                    bits(d, 15, 15),
                    "urb complete",
                    &mut space,
                );
            }
        }
        7 => {}
        3 => {
            let f = bits(d, 2, 0) as usize;
            o.s(&format!(
                " ({})",
                GATEWAY.get(f).copied().unwrap_or("(null)")
            ));
        }
        10 => {
            o.s(" (");
            space = false;
            let ty = if g8 { bits(d, 18, 14) } else { bits(d, 17, 14) };
            ctl(o, &DC0, ty, "DP DC0 message type", &mut space);
            o.s(&format!(", bti {}, ", bits(d, 7, 0)));
            let mc = bits(d, 13, 8);
            match ty {
                6 => {
                    ctl(o, &AOP, mc & 0xf, "atomic op", &mut space);
                }
                0 | 8 => o.s(&format!(
                    "owords = {}, aligned = {}",
                    OWORDS.get((mc & 7) as usize).copied().unwrap_or("(null)"),
                    (mc >> 3) & 3
                )),
                _ => o.s(&format!("{mc}")),
            }
            o.s(")");
        }
        12 => {
            o.s(" (");
            space = false;
            let mc = bits(d, 13, 8);
            let ty = if g8 { bits(d, 18, 14) } else { bits(d, 17, 14) };
            ctl(o, &DC1, ty, "DP DC1 message type", &mut space);
            o.s(&format!(", Surface = {}, ", bits(d, 7, 0)));
            match ty {
                2 | 6 | 11 | 3 | 7 | 12 | 0x12 => {
                    if matches!(ty, 2 | 6 | 11) {
                        o.s(&format!("SIMD{},", if mc & 0x10 != 0 { 8 } else { 16 }));
                    }
                    ctl(o, &AOP, mc & 0xf, "atomic op", &mut space);
                }
                1 | 9 | 5 | 13 | 0x19 | 0x11 => {
                    let m = ["4x2", "16", "8"]
                        .get((mc >> 4) as usize)
                        .copied()
                        .unwrap_or("(null)");
                    o.s(&format!("SIMD{m}, Mask = 0x{:x}", mc & 0xf));
                }
                0x1b | 0x1d => {
                    o.s(&format!("SIMD{},", if mc & 0x10 != 0 { 8 } else { 16 }));
                    ctl(o, &AOP_FLOAT, mc & 0xf, "atomic float op", &mut space);
                }
                0x14 | 0x15 => o.s(&format!(
                    "owords = {}, aligned = {}",
                    OWORDS.get((mc & 7) as usize).copied().unwrap_or("(null)"),
                    (mc >> 3) & 3
                )),
                _ => o.s(&format!("0x{mc:x}")),
            }
            o.s(")");
        }
        11 => o.s(&format!(
            " ({}, {}, 0x{:02x})",
            if bits(d, 14, 14) != 0 {
                "linear"
            } else {
                "persp"
            },
            PI_MSG[bits(d, 13, 12) as usize],
            bits(d, 7, 0)
        )),
        _ => unsupported = true,
    }
    if unsupported {
        o.s(&format!("unsupported shared function ID {sfid}"));
    }
    if space {
        o.s(" ");
    }
    if dialect == Dialect::Mesa25 {
        o.s(" ");
    }
    o.s(&format!("mlen {}", bits(d, 28, 25)));
    if let Some(e) = ex_desc {
        o.s(&format!(" ex_mlen {}", bits(e, 9, 6)));
    }
    o.s(&format!(" rlen {}", bits(d, 24, 20)));
}
