//! Operands as Mesa prints them: registers, destinations, Align1/Align16 sources,
//! immediates with their value comments, three-source Align16 operands.
//!
//! Source: Mesa 23.0 `brw_disasm.c` (`reg`, `dest`, `dest_3src`, `src_da1`, `src_ia1`,
//! `src_da16`, `src_swizzle`, `src*_3src`, `imm`, `control`).

use super::field::Col;
use super::inst::{Ctrl, Reg, Src, Src3, Three};
use super::opcode;
use super::out::{fmt_g, vf_to_f32, Out};
use super::tables::*;
use super::types::RegType;

pub fn control(o: &mut Out, table: &[&str], id: u8, what: &str) {
    match table.get(id as usize) {
        Some(s) => o.s(s),
        None => o.raw(&format!("*** invalid {what} value {id} ")),
    }
}

/// `reg()`; false for `ip`/`tdr`, after which Mesa prints nothing more of the operand.
pub fn reg(o: &mut Out, file: u8, nr: u8) -> bool {
    if file == 0 {
        let n = nr & 0x0f;
        match nr & 0xf0 {
            0x00 => o.s("null"),
            0x10 => o.s(&format!("a{n}")),
            0x20 => o.s(&format!("acc{n}")),
            0x30 => o.s(&format!("f{n}")),
            0x40 => o.s(&format!("mask{n}")),
            0x50 => o.s(&format!("ms{n}")),
            0x60 => o.s(&format!("msd{n}")),
            0x70 => o.s(&format!("sr{n}")),
            0x80 => o.s(&format!("cr{n}")),
            0x90 => o.s(&format!("n{n}")),
            0xa0 => {
                o.s("ip");
                return false;
            }
            0xb0 => {
                o.s("tdr0");
                return false;
            }
            0xc0 => o.s(&format!("tm{n}")),
            _ => o.s(&format!("ARF{nr}")),
        }
    } else {
        let nr = if file == 2 { nr & 0x7f } else { nr };
        o.s(["A", "g", "m", "imm"][file as usize & 3]);
        o.s(&format!("{nr}"));
    }
    true
}

pub fn reg_type(col: Col, file: u8, ty: u8) -> Option<RegType> {
    if file == 3 {
        RegType::from_imm(col, ty)
    } else {
        RegType::from_reg(col, ty)
    }
}

pub fn letters(t: Option<RegType>) -> &'static str {
    t.map_or("INVALID", |t| t.letters())
}

pub fn size(t: Option<RegType>) -> u32 {
    t.map_or(1, |t| t.size())
}

/// Sign-extends the 10-bit address immediate.
pub fn ia_imm(v: u16) -> i32 {
    ((v as i32) << 22) >> 22
}

pub fn dest(o: &mut Out, col: Col, c: &Ctrl, d: &Reg) {
    let t = reg_type(col, d.file, d.ty);
    let a16 = c.access_mode == 1;
    if d.address_mode == 1 {
        if a16 {
            o.s("Indirect align16 address mode not supported");
            return;
        }
        o.s("g[a0");
        if d.ia_subnr != 0 {
            o.s(&format!(".{}", d.ia_subnr as u32 / size(t)));
        }
        if d.ia_imm != 0 {
            o.s(&format!(" {}", ia_imm(d.ia_imm)));
        }
        o.s("]<");
        control(o, &HSTRIDE, d.hstride, "horiz stride");
        o.s(">");
        o.s(letters(t));
        return;
    }
    if !reg(o, d.file, d.nr) {
        return;
    }
    if a16 {
        if d.subnr != 0 {
            o.s(&format!(".{}", 16 / size(t)));
        }
        o.s("<1>");
        o.s(WRITEMASK[d.writemask as usize & 15]);
    } else {
        if d.subnr != 0 {
            o.s(&format!(".{}", d.subnr as u32 / size(t)));
        }
        o.s("<");
        control(o, &HSTRIDE, d.hstride, "horiz stride");
        o.s(">");
    }
    o.s(letters(t));
}

pub fn modifiers(o: &mut Out, col: Col, op: u8, r: &Reg) {
    if r.negate == 1 {
        o.s(if col.gen8_plus() && opcode::is_logic(op) {
            "~"
        } else {
            "-"
        });
    }
    if r.abs == 1 {
        o.s("(abs)");
    }
}

pub fn region1(o: &mut Out, v: u8, w: u8, h: u8) {
    o.s("<");
    match vstride(v) {
        Some(s) => o.s(s),
        None => o.raw(&format!("*** invalid vert stride value {v} ")),
    }
    o.s(",");
    control(o, &WIDTH, w, "width");
    o.s(",");
    control(o, &HSTRIDE, h, "horiz_stride");
    o.s(">");
}

pub fn swizzle(o: &mut Out, s: [u8; 4]) {
    if s[0] == s[1] && s[0] == s[2] && s[0] == s[3] {
        o.s(".");
        o.s(CHAN[s[0] as usize & 3]);
    } else if s != [0, 1, 2, 3] {
        o.s(".");
        for c in s {
            o.s(CHAN[c as usize & 3]);
        }
    }
}

pub fn source(o: &mut Out, col: Col, c: &Ctrl, s: &Src) {
    let r = match s {
        Src::Imm { ty, bits, .. } => return imm(o, col, c.opcode, *ty, *bits),
        Src::Reg(r) => r,
    };
    let t = reg_type(col, r.file, r.ty);
    if c.access_mode == 1 {
        if r.address_mode == 1 {
            o.s("Indirect align16 address mode not supported");
            return;
        }
        modifiers(o, col, c.opcode, r);
        if !reg(o, r.file, r.nr) {
            return;
        }
        if r.subnr != 0 {
            o.s(&format!(".{}", 16 / size(t)));
        }
        o.s("<");
        match vstride(r.vstride) {
            Some(v) => o.s(v),
            None => o.raw(&format!("*** invalid vert stride value {} ", r.vstride)),
        }
        o.s(">");
        swizzle(o, r.swizzle);
        o.s(letters(t));
        return;
    }
    modifiers(o, col, c.opcode, r);
    if r.address_mode == 1 {
        o.s("g[a0");
        if r.ia_subnr != 0 {
            o.s(&format!(".{}", r.ia_subnr));
        }
        if r.ia_imm != 0 {
            o.s(&format!(" {}", ia_imm(r.ia_imm)));
        }
        o.s("]");
    } else {
        if !reg(o, r.file, r.nr) {
            return;
        }
        if r.subnr != 0 {
            o.s(&format!(".{}", r.subnr as u32 / size(t)));
        }
    }
    region1(o, r.vstride, r.width, r.hstride);
    o.s(letters(t));
}

pub fn imm(o: &mut Out, col: Col, op: u8, ty: u8, bits: u64) {
    let lo = bits as u32;
    match RegType::from_imm(col, ty) {
        Some(RegType::UQ) => o.s(&format!("0x{bits:016x}UQ")),
        Some(RegType::Q) => o.s(&format!("0x{bits:016x}Q")),
        Some(RegType::UD) => o.s(&format!("0x{lo:08x}UD")),
        Some(RegType::D) => o.s(&format!("{}D", lo as i32)),
        Some(RegType::UW) => o.s(&format!("0x{:04x}UW", lo as u16)),
        Some(RegType::W) => o.s(&format!("{}W", lo as u16 as i16)),
        Some(RegType::UV) => o.s(&format!("0x{lo:08x}UV")),
        Some(RegType::V) => o.s(&format!("0x{lo:08x}V")),
        Some(RegType::VF) => {
            o.s(&format!("0x{lo:x}VF"));
            o.pad(48);
            let e: Vec<String> = (0..4)
                .map(|i| fmt_g(vf_to_f32((lo >> (8 * i)) as u8) as f64))
                .collect();
            o.s(&format!(
                "/* [{}F, {}F, {}F, {}F]VF */",
                e[0], e[1], e[2], e[3]
            ));
        }
        Some(RegType::F) if op == 10 && col == Col::Gen75 => {
            o.s(&format!("0x{bits:x}F"));
            o.pad(48);
            o.s(&format!("/* {}F */", fmt_g(f64::from_bits(bits))));
        }
        Some(RegType::F) => {
            o.s(&format!("0x{lo:x}F"));
            o.pad(48);
            o.s(&format!(" /* {}F */", fmt_g(f32::from_bits(lo) as f64)));
        }
        Some(RegType::DF) => {
            o.s(&format!("0x{bits:016x}DF"));
            o.pad(48);
            o.s(&format!("/* {}DF */", fmt_g(f64::from_bits(bits))));
        }
        Some(RegType::HF) => o.s("Half Float IMM"),
        _ => o.raw(&format!("*** invalid immediate type {ty} ")),
    }
}

pub fn three(o: &mut Out, col: Col, t: &Three) {
    let dt = RegType::from_3src(col, t.dst_ty);
    o.pad(16);
    reg(o, 1, t.dst_nr);
    let sub = t.dst_subnr as u32 * 4 / size(dt);
    if sub != 0 {
        o.s(&format!(".{sub}"));
    }
    o.s("<1>");
    o.s(WRITEMASK[t.writemask as usize & 15]);
    o.s(letters(dt));
    let st = RegType::from_3src(col, t.src_ty);
    for (i, s) in t.srcs.iter().enumerate() {
        o.pad(32 + 16 * i);
        src3(o, s, st);
    }
}

pub fn src3(o: &mut Out, s: &Src3, t: Option<RegType>) {
    let scalar = s.rep_ctrl == 1;
    let sub = s.subnr as u32 * 4 / size(t);
    if s.negate == 1 {
        o.s("-");
    }
    if s.abs == 1 {
        o.s("(abs)");
    }
    reg(o, 1, s.nr);
    if sub != 0 || scalar {
        o.s(&format!(".{sub}"));
    }
    if scalar {
        region1(o, 0, 0, 0);
    } else {
        region1(o, 3, 2, 1);
        let z = s.swizzle;
        swizzle(o, [z & 3, (z >> 2) & 3, (z >> 4) & 3, (z >> 6) & 3]);
    }
    o.s(letters(t));
}
