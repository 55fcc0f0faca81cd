//! Hardware opcodes of gen7–9: number, Mesa's name, sources and destinations as the
//! disassembler counts them.
//!
//! Source: Mesa 23.0 `brw_eu.c` `opcode_descs` (rows valid for gen7–gen9).

use super::field::{Col, COLS};

/// (hardware number, name, sources, destinations, first column, last column).
const OPCODES: &[(u8, &str, u8, u8, Col, Col)] = &[
    (1, "mov", 1, 1, Col::Gen7, Col::Gen9),
    (2, "sel", 2, 1, Col::Gen7, Col::Gen9),
    (3, "movi", 2, 1, Col::Gen7, Col::Gen9),
    (4, "not", 1, 1, Col::Gen7, Col::Gen9),
    (5, "and", 2, 1, Col::Gen7, Col::Gen9),
    (6, "or", 2, 1, Col::Gen7, Col::Gen9),
    (7, "xor", 2, 1, Col::Gen7, Col::Gen9),
    (8, "shr", 2, 1, Col::Gen7, Col::Gen9),
    (9, "shl", 2, 1, Col::Gen7, Col::Gen9),
    (10, "dim", 1, 1, Col::Gen75, Col::Gen75),
    (10, "smov", 0, 0, Col::Gen8, Col::Gen9),
    (12, "asr", 2, 1, Col::Gen7, Col::Gen9),
    (16, "cmp", 2, 1, Col::Gen7, Col::Gen9),
    (17, "cmpn", 2, 1, Col::Gen7, Col::Gen9),
    (18, "csel", 3, 1, Col::Gen8, Col::Gen9),
    (19, "f32to16", 1, 1, Col::Gen7, Col::Gen75),
    (20, "f16to32", 1, 1, Col::Gen7, Col::Gen75),
    (23, "bfrev", 1, 1, Col::Gen7, Col::Gen9),
    (24, "bfe", 3, 1, Col::Gen7, Col::Gen9),
    (25, "bfi1", 2, 1, Col::Gen7, Col::Gen9),
    (26, "bfi2", 3, 1, Col::Gen7, Col::Gen9),
    (32, "jmpi", 0, 0, Col::Gen7, Col::Gen9),
    (33, "brd", 0, 0, Col::Gen7, Col::Gen9),
    (34, "if", 0, 0, Col::Gen7, Col::Gen9),
    (35, "brc", 0, 0, Col::Gen7, Col::Gen9),
    (36, "else", 0, 0, Col::Gen7, Col::Gen9),
    (37, "endif", 0, 0, Col::Gen7, Col::Gen9),
    (39, "while", 0, 0, Col::Gen7, Col::Gen9),
    (40, "break", 0, 0, Col::Gen7, Col::Gen9),
    (41, "cont", 0, 0, Col::Gen7, Col::Gen9),
    (42, "halt", 0, 0, Col::Gen7, Col::Gen9),
    (43, "calla", 0, 0, Col::Gen75, Col::Gen9),
    (44, "call", 0, 0, Col::Gen7, Col::Gen9),
    (45, "ret", 0, 0, Col::Gen7, Col::Gen9),
    (46, "goto", 0, 0, Col::Gen8, Col::Gen9),
    (48, "wait", 0, 1, Col::Gen7, Col::Gen9),
    (49, "send", 1, 1, Col::Gen7, Col::Gen9),
    (50, "sendc", 1, 1, Col::Gen7, Col::Gen9),
    (51, "sends", 2, 1, Col::Gen9, Col::Gen9),
    (52, "sendsc", 2, 1, Col::Gen9, Col::Gen9),
    (56, "math", 2, 1, Col::Gen7, Col::Gen9),
    (64, "add", 2, 1, Col::Gen7, Col::Gen9),
    (65, "mul", 2, 1, Col::Gen7, Col::Gen9),
    (66, "avg", 2, 1, Col::Gen7, Col::Gen9),
    (67, "frc", 1, 1, Col::Gen7, Col::Gen9),
    (68, "rndu", 1, 1, Col::Gen7, Col::Gen9),
    (69, "rndd", 1, 1, Col::Gen7, Col::Gen9),
    (70, "rnde", 1, 1, Col::Gen7, Col::Gen9),
    (71, "rndz", 1, 1, Col::Gen7, Col::Gen9),
    (72, "mac", 2, 1, Col::Gen7, Col::Gen9),
    (73, "mach", 2, 1, Col::Gen7, Col::Gen9),
    (74, "lzd", 1, 1, Col::Gen7, Col::Gen9),
    (75, "fbh", 1, 1, Col::Gen7, Col::Gen9),
    (76, "fbl", 1, 1, Col::Gen7, Col::Gen9),
    (77, "cbit", 1, 1, Col::Gen7, Col::Gen9),
    (78, "addc", 2, 1, Col::Gen7, Col::Gen9),
    (79, "subb", 2, 1, Col::Gen7, Col::Gen9),
    (80, "sad2", 2, 1, Col::Gen7, Col::Gen9),
    (81, "sada2", 2, 1, Col::Gen7, Col::Gen9),
    (84, "dp4", 2, 1, Col::Gen7, Col::Gen9),
    (85, "dph", 2, 1, Col::Gen7, Col::Gen9),
    (86, "dp3", 2, 1, Col::Gen7, Col::Gen9),
    (87, "dp2", 2, 1, Col::Gen7, Col::Gen9),
    (89, "line", 2, 1, Col::Gen7, Col::Gen9),
    (90, "pln", 2, 1, Col::Gen7, Col::Gen9),
    (91, "mad", 3, 1, Col::Gen7, Col::Gen9),
    (92, "lrp", 3, 1, Col::Gen7, Col::Gen9),
    (93, "madm", 3, 1, Col::Gen8, Col::Gen9),
    (126, "nop", 0, 0, Col::Gen7, Col::Gen9),
];

/// An opcode's description on a generation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpDesc {
    pub hw: u8,
    pub name: &'static str,
    pub nsrc: u8,
    pub ndst: u8,
}

const fn valid(first: Col, last: Col, col: Col) -> bool {
    (first as u8) <= (col as u8) && (col as u8) <= (last as u8)
}

/// No row of [`OPCODES`] (in [`BY_HW`]).
const NO_ROW: u8 = u8::MAX;

/// Per column and 7-bit hardware number, the row of [`OPCODES`] that describes it, built
/// from the table at compile time: the encoder, decoder and binary reader look an opcode
/// up several times an instruction, and the scan of the table was a tenth of their cost.
static BY_HW: [[u8; 128]; COLS] = {
    let mut t = [[NO_ROW; 128]; COLS];
    let cols = [Col::Gen7, Col::Gen75, Col::Gen8, Col::Gen9];
    let mut c = 0;
    while c < COLS {
        // Backwards, so that the first valid row of a number wins, as a scan finds it.
        let mut r = OPCODES.len();
        while r > 0 {
            r -= 1;
            let o = OPCODES[r];
            if o.0 < 128 && valid(o.4, o.5, cols[c]) {
                t[c][o.0 as usize] = r as u8;
            }
        }
        c += 1;
    }
    t
};

pub fn by_hw(col: Col, hw: u8) -> Option<OpDesc> {
    let r = *BY_HW[col as usize].get(hw as usize)?;
    let o = OPCODES.get(r as usize)?;
    Some(OpDesc {
        hw: o.0,
        name: o.1,
        nsrc: o.2,
        ndst: o.3,
    })
}

pub fn by_name(col: Col, name: &str) -> Option<OpDesc> {
    OPCODES
        .iter()
        .find(|o| o.1 == name && valid(o.4, o.5, col))
        .map(|o| OpDesc {
            hw: o.0,
            name: o.1,
            nsrc: o.2,
            ndst: o.3,
        })
}

pub const SEND: u8 = 49;
pub const SENDC: u8 = 50;
pub const SENDS: u8 = 51;
pub const SENDSC: u8 = 52;
pub const MATH: u8 = 56;
pub const IF: u8 = 34;
pub const ELSE: u8 = 36;
pub const ENDIF: u8 = 37;
pub const WHILE: u8 = 39;
pub const BREAK: u8 = 40;
pub const CONT: u8 = 41;
pub const HALT: u8 = 42;
pub const NOP: u8 = 126;
pub const SEL: u8 = 2;
pub const CSEL: u8 = 18;
pub const WAIT: u8 = 48;

pub fn is_send(hw: u8) -> bool {
    matches!(hw, SEND | SENDC | SENDS | SENDSC)
}
pub fn is_split_send(hw: u8) -> bool {
    matches!(hw, SENDS | SENDSC)
}
/// `brw_has_jip` (gen6+).
pub fn has_jip(hw: u8) -> bool {
    matches!(hw, IF | ELSE | ENDIF | WHILE | BREAK | CONT | HALT)
}
/// `brw_has_uip`: if (gen7+), else (gen8+), break, cont, halt.
pub fn has_uip(col: Col, hw: u8) -> bool {
    matches!(hw, IF | BREAK | CONT | HALT) || (hw == ELSE && col.gen8_plus())
}
/// `has_branch_ctrl`: gen8+ if and else use bit 28 as branch control.
pub fn has_branch_ctrl(col: Col, hw: u8) -> bool {
    col.gen8_plus() && matches!(hw, IF | ELSE)
}
/// and/not/or/xor: gen8+ prints their negate as `~`.
pub fn is_logic(hw: u8) -> bool {
    matches!(hw, 4..=7)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table look-up finds what a scan of the rows finds, for every number.
    #[test]
    fn by_hw_is_the_scan_of_the_rows() {
        for col in [Col::Gen7, Col::Gen75, Col::Gen8, Col::Gen9] {
            for hw in 0..=255u8 {
                let scan = OPCODES
                    .iter()
                    .find(|o| o.0 == hw && valid(o.4, o.5, col))
                    .map(|o| (o.0, o.1, o.2, o.3));
                let d = by_hw(col, hw).map(|d| (d.hw, d.name, d.nsrc, d.ndst));
                assert_eq!(d, scan, "{col:?} {hw}");
            }
        }
    }
}
