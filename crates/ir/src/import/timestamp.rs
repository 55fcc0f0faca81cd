//! The timestamp reads of Mesa's dumps, put back as reads of `tm0`.
//!
//! Both Mesa 22.3's `dump_instruction` and Mesa 25's brw_print.cpp write an architecture
//! register they have no name for as `arfN.S` with only the low nibble of its number, so
//! the timestamp register tm0 (`BRW_ARF_TIMESTAMP`, 0xc0) prints as `arf0.0`, its class
//! lost ([`crate::operand::arf::UNKNOWN`]). Mesa reads tm0 only through `get_timestamp`
//! (Mesa 22.3 brw_fs.cpp `fs_visitor::get_timestamp`, brw_vec4.cpp
//! `vec4_visitor::get_timestamp`; Mesa 25 brw_fs_nir.cpp `get_timestamp`): a NoMask
//! `mov` of the whole register as UD, for `shader_clock`. The other architecture
//! registers of a low nibble 0 that its IR reads are read by other instructions: the
//! channel enables ce0 (`mask0`) by `and`/`fbl`/`lzd` or `read_arch_reg`, the dispatch
//! and vector masks sr0.2 and sr0.3 (`arf0.8`, `arf0.12`) by `add`/`and`. So an `arf0.0`
//! `UD` source of a `mov` is tm0.

use crate::opcode::Opcode;
use crate::operand::{arf, RegFile};
use crate::shader::Shader;
use crate::types::Type;

/// Makes every `mov` of `arf0.0:UD` read tm0 (see the module doc); how many it changed.
pub fn restore(shader: &mut Shader) -> usize {
    let mut changed = 0;
    for inst in shader.insts.opcode.indices() {
        if shader.insts.opcode[inst] != Opcode::Mov {
            continue;
        }
        if let [src] = shader.srcs_mut(inst) {
            if src.file == RegFile::Arf
                && src.nr == arf::UNKNOWN
                && src.offset == 0
                && src.ty == Type::UD
            {
                src.nr = arf::TIMESTAMP;
                changed += 1;
            }
        }
    }
    changed
}

#[cfg(test)]
mod tests {
    use crate::import::{import_mesa_dump, DumpName};
    use crate::operand::arf;
    use crate::target::Gen;

    fn nr_of_first_src(dump: &str, name: &str, inst: usize) -> u32 {
        let s = import_mesa_dump(dump, &DumpName::parse(name).unwrap(), "t", Gen::Gen9).unwrap();
        let i = s.insts.opcode.indices().nth(inst).unwrap();
        s.srcs(i)[0].nr
    }

    /// `shader_clock`'s read, as each version prints it, is of tm0; an `and` of the
    /// dispatch mask `arf0.8` keeps its unknown class.
    #[test]
    fn shader_clock_reads_the_timestamp() {
        let mesa22 = "{  8}    0: mov(4) vgrf6+0.0:UD, arf0.0:UD NoMask group0 \n\
{  8}    1: and(1) vgrf7+0.0:UD, arf0.8:UD, 1u NoMask group0 \n";
        let name = "CS8-GLSL1-00-00-start";
        assert_eq!(nr_of_first_src(mesa22, name, 0), arf::TIMESTAMP);
        assert_eq!(nr_of_first_src(mesa22, name, 1), arf::UNKNOWN);
        let mesa25 = "START B0\nmov(8) %1:D, 0d NoMask \n\
mov(4) v4+0.0:UD, arf0.0<4,4,1>:UD NoMask group0 \nEND B0\n";
        assert_eq!(nr_of_first_src(mesa25, name, 1), arf::TIMESTAMP);
    }
}
