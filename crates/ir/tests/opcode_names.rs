//! The importer reads every opcode Mesa's printers can print (issue 18, item 4), not only
//! those the corpora happen to hold: each name of Mesa 22.3's and Mesa 25's printer
//! (`brw_instruction_name` and the hardware opcode table, gen7 on; the lists are in
//! `tests/data`, made by `scripts/mesa-opcode-names.sh` from Mesa's sources) is imported in
//! a representative line of that version's dump syntax, and must come back as the opcode of
//! that name. The few names of targets beyond eubatch's (Xe2 and Xe3) are listed with why,
//! and must be refused with an error that names them, never taken for another opcode.

use eubatch_ir::import::{import_mesa_dump, DumpName};
use eubatch_ir::Gen;

/// Names Mesa 25's printer has for hardware eubatch does not target: refused by name.
const BEYOND_TARGETS: &[(&str, &str)] = &[
    (
        "tg4_b_logical",
        "Xe2's gather with bias (gfx20 sampler message)",
    ),
    (
        "tg4_i_logical",
        "Xe2's gather with implicit LOD (gfx20 sampler message)",
    ),
    (
        "tg4_l_logical",
        "Xe2's gather with explicit LOD (gfx20 sampler message)",
    ),
    (
        "send_gather",
        "Xe3's send with a scalar register gather list (gfx30)",
    ),
    (
        "fs_load_live_channels",
        "Xe2's dispatch-mask load for fragment shaders (gfx20)",
    ),
];

fn names(file: &str) -> Vec<String> {
    let path = format!("{}/tests/data/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.trim().to_string())
        .collect()
}

/// A line of `name` as the printer of `mesa25` (or 22.3) prints an instruction with a
/// destination and two sources.
fn line(name: &str, mesa25: bool) -> String {
    match (name, mesa25) {
        ("memory_load" | "memory_store" | "memory_atomic", true) => format!(
            "START B0\n{name}(8) %5:UD load untyped bti:0u addr: %3:UD coord_comps:1u align:4u d32 comps:1u data0: (null):UD\nEND B0\n"
        ),
        // (A start dump's `pln` of VGRF barycentrics is Mesa 22.3's `linterp` until
        // lowering, `import::mesa::plns_as_linterps`: one of the payload's stays `pln`.)
        ("pln", true) => "START B0\npln(8) %3:F, %1:F, g2:F\nEND B0\n".to_string(),
        (_, true) => format!("START B0\n{name}(8) %3:UD, %1:UD, %2:UD\nEND B0\n"),
        (_, false) => format!("{{  3}}    0: {name}(8) vgrf3:UD, vgrf1:UD, vgrf2:UD\n"),
    }
}

fn check(file: &str, mesa25: bool) {
    let dump = DumpName::parse("CS8-GLSL1-00-00-start").unwrap();
    let mut wrong = Vec::new();
    let all = names(file);
    assert!(all.len() > 150, "{file}: only {} names", all.len());
    for name in &all {
        let text = line(name, mesa25);
        let beyond = BEYOND_TARGETS.iter().find(|(n, _)| n == name);
        match (import_mesa_dump(&text, &dump, "x", Gen::Gen9), beyond) {
            (Ok(s), None) => {
                let inst = s.layout.insts().next().unwrap();
                let got = s.insts.opcode[inst].name();
                if got != name {
                    wrong.push(format!("{name}: imported as `{got}`"));
                }
            }
            (Err(e), None) => wrong.push(format!("{name}: {e}\n    {text}")),
            (Ok(_), Some((_, why))) => wrong.push(format!("{name} ({why}) imported")),
            (Err(e), Some(_)) if !e.to_string().contains(name.as_str()) => {
                wrong.push(format!("{name}: refused without naming it: {e}"))
            }
            (Err(_), Some(_)) => {}
        }
    }
    assert!(wrong.is_empty(), "{file}:\n{}", wrong.join("\n"));
}

#[test]
fn every_name_of_mesa_22_3_imports() {
    check("mesa-22.3-opcode-names.txt", false);
}

#[test]
fn every_name_of_mesa_25_imports() {
    check("mesa-25-opcode-names.txt", true);
}
