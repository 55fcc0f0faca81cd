//! The name tables of Mesa's disassembler used by the printer and the parser alike.
//!
//! Source: Mesa 23.0 `brw_disasm.c` (`conditional_modifier`, `pred_ctrl_align1`,
//! `pred_ctrl_align16`, `vert_stride`, `width`, `horiz_stride`, `chan_sel`, `writemask`,
//! `math_function`, `thread_ctrl`, `dep_ctrl`).

pub const COND_MOD: [&str; 10] = ["", ".z", ".nz", ".g", ".ge", ".l", ".le", ".r", ".o", ".u"];

pub const PRED_ALIGN1: [&str; 14] = [
    "", "", ".anyv", ".allv", ".any2h", ".all2h", ".any4h", ".all4h", ".any8h", ".all8h",
    ".any16h", ".all16h", ".any32h", ".all32h",
];

pub const PRED_ALIGN16: [&str; 8] = ["", "", ".x", ".y", ".z", ".w", ".any4h", ".all4h"];

/// Encoded vertical stride → text (15 is `VxH`; the others are invalid).
pub const fn vstride(code: u8) -> Option<&'static str> {
    match code {
        0 => Some("0"),
        1 => Some("1"),
        2 => Some("2"),
        3 => Some("4"),
        4 => Some("8"),
        5 => Some("16"),
        6 => Some("32"),
        15 => Some("VxH"),
        _ => None,
    }
}

pub const WIDTH: [&str; 5] = ["1", "2", "4", "8", "16"];
pub const HSTRIDE: [&str; 4] = ["0", "1", "2", "4"];
pub const CHAN: [&str; 4] = ["x", "y", "z", "w"];

pub const WRITEMASK: [&str; 16] = [
    ".", ".x", ".y", ".xy", ".z", ".xz", ".yz", ".xyz", ".w", ".xw", ".yw", ".xyw", ".zw", ".xzw",
    ".yzw", "",
];

pub const MATH: [&str; 16] = [
    "",
    "inv",
    "log",
    "exp",
    "sqrt",
    "rsq",
    "sin",
    "cos",
    "sincos",
    "fdiv",
    "pow",
    "intdivmod",
    "intdiv",
    "intmod",
    "invm",
    "rsqrtm",
];

pub const THREAD_CTRL: [&str; 3] = ["", "atomic", "switch"];

pub const EXEC_SIZE: [&str; 6] = ["1", "2", "4", "8", "16", "32"];

/// The shared function's name (`gfx6_sfid`); the asm reader's table, without gen4's `vme`.
pub fn sfid_name(sfid: u8) -> Option<&'static str> {
    crate::asm::SFIDS
        .iter()
        .find(|(n, v)| *v == sfid && *n != "vme")
        .map(|(n, _)| *n)
}

pub fn sfid_by_name(name: &str) -> Option<u8> {
    crate::asm::SFIDS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, v)| *v)
}

/// Position of `s` in `table`, skipping empty names unless `s` is empty.
pub fn index_of(table: &[&str], s: &str) -> Option<usize> {
    table.iter().position(|t| *t == s)
}
