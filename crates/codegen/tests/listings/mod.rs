//! The eight corpora's final-code listings as the corpus tests of the listing readers
//! walk them: each corpus's name, generation, and the programs and encoded instructions
//! of its `asm.txt` files (a change in a count is a change in the corpus).

#![allow(dead_code)]

use eubatch_ir::Gen;

pub struct Listings {
    pub corpus: &'static str,
    pub gen: Gen,
    pub programs: u64,
    pub insts: u64,
}

const fn of(corpus: &'static str, gen: Gen, programs: u64, insts: u64) -> Listings {
    Listings {
        corpus,
        gen,
        programs,
        insts,
    }
}

pub const CORPORA: [Listings; 8] = [
    of("shaderdb-skl", Gen::Gen9, 1648, 272_064),
    of("shaderdb-bdw", Gen::Gen8, 1610, 266_378),
    of("shaderdb-hsw", Gen::Gen75, 1613, 314_012),
    of("piglit-fp64-skl", Gen::Gen9, 2726, 85_350),
    of("piglit-fp64-hsw", Gen::Gen75, 2698, 165_692),
    of("vulkan-fp16-skl", Gen::Gen9, 261, 29_176),
    of("vulkan-fp16-bdw", Gen::Gen8, 261, 29_574),
    of("shaderdb-skl-mesa25", Gen::Gen9, 1652, 295_396),
];

/// The entry of `corpus`.
pub fn listings(corpus: &str) -> &'static Listings {
    CORPORA
        .iter()
        .find(|l| l.corpus == corpus)
        .unwrap_or_else(|| panic!("{corpus}: not one of the corpora"))
}

/// Calls `f` with each `asm.txt` of `corpus` (in path order): its name, its text and its
/// programs as the listing reader reads them (a listing it refuses fails the test).
/// `None`, with a message, where the corpora are absent.
pub fn each_listing(
    corpus: &str,
    gen: Gen,
    mut f: impl FnMut(&str, &str, &[eubatch_codegen::asm::AsmProgram]),
) -> Option<()> {
    let dir = super::common::corpus(corpus)?;
    for path in super::common::files_named(&dir, "asm.txt") {
        let text = std::fs::read_to_string(&path).unwrap();
        let name = path.display().to_string();
        let programs = eubatch_codegen::asm::read_asm(&text, &name, gen)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        f(&name, &text, &programs);
    }
    Some(())
}
