//! Registers code in register form touches: the general registers any instruction reads or
//! writes, each counted once. One definition for both sides of a comparison — eubatch's
//! allocated code ([`crate::assign`]) and Mesa's final code (`asm.txt`) — so `compile
//! --regalloc --stats` and `stats --mesa final` count the same thing.
//!
//! What an instruction touches: each fixed-register source over what it reads
//! ([`eubatch_ir::size_read`]: its region for the instruction's channels, a raw send's
//! payloads over their whole length, `mlen` and `ex_mlen` registers), its destination over
//! its region, or a message's over its response (`size_written`). Registers reached only indirectly (`g[a0...]`) are not known
//! statically and not counted.

use eubatch_ir::{Operand, RegFile, Shader};

/// How many distinct general registers `shader`'s instructions read or write.
pub fn registers_touched(shader: &Shader) -> u32 {
    let reg = shader.reg_size();
    let count = shader.target.target().grf_count as usize;
    let mut touched = vec![false; count];
    let mut mark = |first: u32, bytes_from_start: u32| {
        let end = first as usize + bytes_from_start.div_ceil(reg).max(1) as usize;
        for t in touched.iter_mut().take(end.min(count)).skip(first as usize) {
            *t = true;
        }
    };
    let mut operand = |o: &Operand, exec: u32, bytes: Option<u32>| {
        if o.file == RegFile::FixedGrf {
            mark(o.nr, o.offset + bytes.unwrap_or_else(|| o.span(exec)));
        }
    };
    for inst in shader.layout.insts() {
        let exec = shader.insts.control[inst].exec_size as u32;
        let dst = &shader.insts.dst[inst];
        // A message writes its response (`size_written`), if any; anything else its region.
        if shader.send_info(inst).is_none() {
            operand(dst, exec, None);
        } else if shader.insts.size_written[inst] > 0 {
            operand(dst, exec, Some(shader.insts.size_written[inst]));
        }
        // Each source what it reads (a payload its whole length, a descriptor in a register
        // its one dword).
        for (k, s) in shader.srcs(inst).iter().enumerate() {
            let read = eubatch_ir::size_read::size_read(shader, inst, k);
            if read > 0 {
                operand(s, exec, Some(read));
            }
        }
    }
    touched.iter().filter(|t| **t).count() as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_and_payloads() {
        // g2-g3 read by a SIMD16 move into g10-g11; a send reads g20-g22 (mlen 3) and
        // writes g30-g33 (size 128); g4.1 is one dword.
        let s = eubatch_ir::text::parse_shader(
            "shader \"u\" stage FS width 16 target skl
block0:
    mov(16) g10<8,8,1>:F, g2<8,8,1>:F
    add(16) g10<8,8,1>:F, g10<8,8,1>:F, g4.1<0,1,0>:F
    send(8) (mlen: 3) (sfid: 2) (desc: 0x06420001) (size: 128) g30<8,8,1>:F, 0u, 0u, g20<8,8,1>:F
",
        )
        .unwrap();
        assert_eq!(registers_touched(&s), 2 + 2 + 1 + 3 + 4);
    }
}
