//! Printing eubatch's text format. Every field of the IR is printed, so that parsing the
//! output gives the same IR back (see `docs/ir-format.md`).

use std::fmt::Write;

use super::imm::format_imm;
use super::TEXT_REG_BYTES;
use crate::entities::Inst;
use crate::operand::{arf, Operand, RegFile, Region};
use crate::shader::{Backend, Predicate, Shader};

/// The whole shader in eubatch's format.
pub fn print_shader(shader: &Shader) -> String {
    let mut out = String::with_capacity(64 * shader.num_insts() + 32 * shader.vgrfs.len() + 128);
    let backend = match shader.backend {
        Backend::Scalar => "scalar",
        Backend::Vec4 => "vec4",
    };
    let _ = writeln!(
        out,
        "shader \"{}\" stage {} width {} target {} backend {}",
        escape(&shader.name),
        shader.stage.abbrev(),
        shader.dispatch_width,
        shader.target.name(),
        backend
    );
    for (v, layout) in shader.vgrfs.iter_enumerated() {
        let _ = writeln!(out, "vgrf{} {}", v.index(), layout);
    }
    for (b, block) in shader.layout.blocks.iter_enumerated() {
        let _ = writeln!(out, "block{}:", b.index());
        for &inst in &block.insts {
            out.push_str("    ");
            write_inst(shader, inst, &mut out);
            out.push('\n');
        }
    }
    out
}

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// One instruction, Mesa-style, plus eubatch's `(key: value)` attributes where the IR holds
/// something Mesa's printer leaves out.
pub fn write_inst(shader: &Shader, inst: Inst, out: &mut String) {
    let op = shader.insts.opcode[inst];
    let ctl = shader.insts.control[inst];
    let align16 = shader.backend == Backend::Vec4 || ctl.align16();
    if ctl.predicate != Predicate::None {
        let _ = write!(
            out,
            "({}f{}.{}{}) ",
            if ctl.pred_invert() { '-' } else { '+' },
            ctl.flag_subreg / 2,
            ctl.flag_subreg % 2,
            ctl.predicate.suffix()
        );
    }
    out.push_str(op.name());
    if ctl.saturate() {
        out.push_str(".sat");
    }
    let mut flag_printed = ctl.predicate != Predicate::None;
    if ctl.cmod != crate::shader::CondMod::None {
        out.push('.');
        out.push_str(ctl.cmod.name());
        let implicit = matches!(
            op,
            crate::opcode::Opcode::Sel
                | crate::opcode::Opcode::Csel
                | crate::opcode::Opcode::If
                | crate::opcode::Opcode::While
        );
        if !flag_printed && (!implicit || ctl.flag_subreg != 0) {
            let _ = write!(out, ".f{}.{}", ctl.flag_subreg / 2, ctl.flag_subreg % 2);
            flag_printed = true;
        }
    }
    let _ = write!(out, "({}) ", ctl.exec_size);
    if let Some(s) = shader.send_info(inst) {
        if s.mlen != 0 {
            let _ = write!(out, "(mlen: {}) ", s.mlen);
        }
        if s.ex_mlen != 0 {
            let _ = write!(out, "(ex_mlen: {}) ", s.ex_mlen);
        }
        if s.header_size != 0 {
            let _ = write!(out, "(header: {}) ", s.header_size);
        }
        if s.sfid != 0 {
            let _ = write!(out, "(sfid: {}) ", s.sfid);
        }
        if s.desc != 0 {
            let _ = write!(out, "(desc: 0x{:08x}) ", s.desc);
        }
        if s.ex_desc != 0 {
            let _ = write!(out, "(ex_desc: 0x{:08x}) ", s.ex_desc);
        }
        if let Some(o) = s.urb_offset {
            let _ = write!(out, "(urb_offset: {o}) ");
        }
        if let Some(h) = s.header_bits {
            let _ = write!(out, "(header_bits: 0x{h:x}) ");
        }
    }
    if ctl.eot() {
        out.push_str("(EOT) ");
    }
    if ctl.align16() && shader.backend != Backend::Vec4 {
        out.push_str("(align16) ");
    }
    let sw = shader.insts.size_written[inst];
    if sw != shader.default_size_written(inst) {
        let _ = write!(out, "(size: {sw}) ");
    }
    if !flag_printed && ctl.flag_subreg != 0 {
        let _ = write!(out, "(flag: {}) ", ctl.flag_subreg);
    }
    write_operand(&shader.insts.dst[inst], true, align16, out);
    for src in shader.srcs(inst) {
        out.push_str(", ");
        write_operand(src, false, align16, out);
    }
    if ctl.no_mask() {
        out.push_str(" NoMask");
    }
    if ctl.group != 0 || ctl.exec_size != shader.dispatch_width {
        let _ = write!(out, " group{}", ctl.group);
    }
    if ctl.flags & crate::shader::Control::NO_MASK_PARAMS != 0 {
        out.push_str(" NoMaskParams");
    }
}

/// One operand in eubatch's spelling.
pub fn write_operand(op: &Operand, is_dst: bool, align16: bool, out: &mut String) {
    if op.file == RegFile::Imm {
        format_imm(op, out);
        return;
    }
    if op.mods.negate() {
        out.push('-');
    }
    if op.mods.abs() {
        out.push('|');
    }
    match op.file {
        RegFile::Bad => out.push_str("(null)"),
        RegFile::Vgrf => {
            let _ = write!(out, "vgrf{}", op.nr);
        }
        RegFile::FixedGrf => {
            let _ = write!(out, "g{}", op.nr);
        }
        RegFile::Mrf => {
            let _ = write!(out, "m{}", op.nr);
        }
        RegFile::Uniform => {
            let _ = write!(out, "u{}", op.nr);
        }
        RegFile::Attr => {
            let _ = write!(out, "attr{}", op.nr);
        }
        RegFile::Arf => write_arf(op, out),
        RegFile::VAddr => {
            let _ = write!(out, "va{}.{}", op.nr, op.offset);
        }
        RegFile::Indirect => {
            let imm = op.offset as i32;
            let _ = match imm {
                0 => write!(out, "g[a0.{}]", op.nr),
                i if i > 0 => write!(out, "g[a0.{}+{i}]", op.nr),
                i => write!(out, "g[a0.{}{i}]", op.nr),
            };
        }
        RegFile::Imm => unreachable!(),
    }
    match op.file {
        RegFile::FixedGrf => {
            // Sub-register as the printers write it: in units of the type (scalar) or in
            // bytes (vec4), when it is one; a raw byte offset (`+R.B`) otherwise.
            // Both in the text's 32-byte registers, whatever the target (`TEXT_REG_BYTES`).
            let unit = if align16 { 1 } else { op.ty.size() };
            if op.offset.is_multiple_of(unit) && op.offset < TEXT_REG_BYTES {
                if op.offset != 0 {
                    let _ = write!(out, ".{}", op.offset / unit);
                }
            } else {
                let (r, b) = (op.offset / TEXT_REG_BYTES, op.offset % TEXT_REG_BYTES);
                let _ = write!(out, "+{r}.{b}");
            }
        }
        RegFile::Arf | RegFile::Bad | RegFile::VAddr | RegFile::Indirect => {}
        _ => {
            if op.offset != 0 {
                let unit = if op.file == RegFile::Uniform {
                    if align16 {
                        16
                    } else {
                        4
                    }
                } else {
                    TEXT_REG_BYTES
                };
                let _ = write!(out, "+{}.{}", op.offset / unit, op.offset % unit);
            }
        }
    }
    if align16 && op.file != RegFile::Bad {
        if is_dst {
            if op.region.swizzle & 0xf != Region::WRITEMASK_XYZW {
                out.push('.');
                for (i, ch) in ['x', 'y', 'z', 'w'].iter().enumerate() {
                    if op.region.swizzle & (1 << i) != 0 {
                        out.push(*ch);
                    }
                }
            }
        } else {
            out.push('.');
            for i in 0..4 {
                out.push(['x', 'y', 'z', 'w'][((op.region.swizzle >> (2 * i)) & 3) as usize]);
            }
        }
    }
    if op.mods.abs() {
        out.push('|');
    }
    match op.file {
        RegFile::Indirect if op.region.vstride == Region::VXH => {
            let r = op.region;
            let _ = write!(out, "<VxH,{},{}>", r.width, r.hstride);
        }
        RegFile::FixedGrf | RegFile::Arf | RegFile::Indirect => {
            let r = op.region;
            let _ = write!(out, "<{},{},{}>", r.vstride, r.width, r.hstride);
        }
        _ => {
            if op.stride != 1 {
                let _ = write!(out, "<{}>", op.stride);
            }
        }
    }
    out.push(':');
    out.push_str(op.ty.letters());
}

fn write_arf(op: &Operand, out: &mut String) {
    let class = op.nr & 0xf0;
    let n = op.nr & 0xf;
    let sub = op.offset;
    let _ = match class {
        arf::NULL if sub == 0 => write!(out, "null"),
        arf::NULL => write!(out, "null.{sub}"),
        arf::ADDRESS => write!(out, "a{n}.{sub}"),
        arf::ACCUMULATOR => write!(out, "acc{n}.{sub}"),
        arf::FLAG => write!(out, "f{n}.{sub}"),
        arf::IP => write!(out, "ip.{sub}"),
        arf::UNKNOWN => write!(out, "arf{n}.{sub}"),
        _ => {
            let name = arf::NAMED
                .iter()
                .find(|(c, _)| *c == class)
                .map(|(_, n)| *n)
                .unwrap_or("arf");
            write!(out, "{name}{n}.{sub}")
        }
    };
}
