//! The instruction word's field layout as data: each field's bit range per generation, and
//! [`NativeInst`], the 128-bit native instruction with get/set through the table.
//!
//! Source: Mesa 23.0 `src/intel/compiler/brw_inst.h`, the `F`, `F8`, `FF`, `FC` and `FI`
//! macros (and `brw_inst_set_send_desc`, `brw_inst_set_send_ex_desc`,
//! `brw_inst_set_sends_ex_desc`, `brw_inst_set_jip`/`uip` for the fields written by hand
//! there). A field is a list of pieces `(high, low)`, most significant first, so the
//! discontiguous fields of gen9's send extended descriptor (and gen12's descriptors) are
//! data too. A new generation is a new column ([`Col`]); an empty list means the field does
//! not exist on that generation.

use eubatch_ir::Gen;

/// A column of the table: the generations whose layouts differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Col {
    Gen7 = 0,
    Gen75 = 1,
    Gen8 = 2,
    Gen9 = 3,
}

/// Number of columns in [`TABLE`].
pub const COLS: usize = 4;

impl Col {
    /// The column of a generation, `None` where the table has none yet (gen11, gen12).
    pub fn of(gen: Gen) -> Option<Col> {
        match gen {
            Gen::Gen7 => Some(Col::Gen7),
            Gen::Gen75 => Some(Col::Gen75),
            Gen::Gen8 => Some(Col::Gen8),
            Gen::Gen9 => Some(Col::Gen9),
            _ => None,
        }
    }
    /// The column numbered `i` (`Col::Gen9 as u8` → `Col::Gen9`), for walks whose column
    /// is a constant ([`super::walk::Fixed`]).
    pub const fn from_index(i: u8) -> Col {
        match i {
            0 => Col::Gen7,
            1 => Col::Gen75,
            2 => Col::Gen8,
            _ => Col::Gen9,
        }
    }
    pub fn gen8_plus(self) -> bool {
        matches!(self, Col::Gen8 | Col::Gen9)
    }
}

type Pieces = &'static [(u8, u8)];

macro_rules! fields {
    ($($name:ident: $g7:expr, $g8:expr, $g9:expr;)*) => {
        /// A field of the native instruction word (names follow `brw_inst.h`).
        #[allow(non_camel_case_types)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Field { $($name),* }
        /// Per field: its name and its pieces for gen7, gen7.5, gen8, gen9 (gen7.5 shares
        /// gen7's layout in every field the corpora use).
        pub const TABLE: &[(Field, &str, [Pieces; COLS])] = &[
            $((Field::$name, stringify!($name), [$g7, $g7, $g8, $g9])),*
        ];
    };
}

const NONE: Pieces = &[];

fields! {
    // Common to all forms (brw_inst.h "F(hw_opcode ...)" onwards).
    hw_opcode: &[(6, 0)], &[(6, 0)], &[(6, 0)];
    access_mode: &[(8, 8)], &[(8, 8)], &[(8, 8)];
    mask_control: &[(9, 9)], &[(34, 34)], &[(34, 34)];
    no_dd_clear: &[(10, 10)], &[(9, 9)], &[(9, 9)];
    no_dd_check: &[(11, 11)], &[(10, 10)], &[(10, 10)];
    qtr_control: &[(13, 12)], &[(13, 12)], &[(13, 12)];
    thread_control: &[(15, 14)], &[(15, 14)], &[(15, 14)];
    pred_control: &[(19, 16)], &[(19, 16)], &[(19, 16)];
    pred_inv: &[(20, 20)], &[(20, 20)], &[(20, 20)];
    exec_size: &[(23, 21)], &[(23, 21)], &[(23, 21)];
    // Also math_function and the send's SFID.
    cond_modifier: &[(27, 24)], &[(27, 24)], &[(27, 24)];
    // Also branch_control (gen8+ if/else).
    acc_wr_control: &[(28, 28)], &[(28, 28)], &[(28, 28)];
    cmpt_control: &[(29, 29)], &[(29, 29)], &[(29, 29)];
    debug_control: &[(30, 30)], &[(30, 30)], &[(30, 30)];
    saturate: &[(31, 31)], &[(31, 31)], &[(31, 31)];
    nib_control: &[(47, 47)], &[(11, 11)], &[(11, 11)];
    flag_reg_nr: &[(90, 90)], &[(33, 33)], &[(33, 33)];
    flag_subreg_nr: &[(89, 89)], &[(32, 32)], &[(32, 32)];
    // Destination (two-source form).
    dst_reg_file: &[(33, 32)], &[(36, 35)], &[(36, 35)];
    dst_reg_hw_type: &[(36, 34)], &[(40, 37)], &[(40, 37)];
    da16_writemask: &[(51, 48)], &[(51, 48)], &[(51, 48)];
    dst_da1_subreg_nr: &[(52, 48)], &[(52, 48)], &[(52, 48)];
    dst_da16_subreg_nr: &[(52, 52)], &[(52, 52)], &[(52, 52)];
    dst_da_reg_nr: &[(60, 53)], &[(60, 53)], &[(60, 53)];
    dst_ia_subreg_nr: &[(60, 58)], &[(60, 57)], &[(60, 57)];
    dst_ia1_addr_imm: &[(57, 48)], &[(47, 47), (56, 48)], &[(47, 47), (56, 48)];
    dst_hstride: &[(62, 61)], &[(62, 61)], &[(62, 61)];
    dst_address_mode: &[(63, 63)], &[(63, 63)], &[(63, 63)];
    // Source 0.
    src0_reg_file: &[(38, 37)], &[(42, 41)], &[(42, 41)];
    src0_reg_hw_type: &[(41, 39)], &[(46, 43)], &[(46, 43)];
    src0_da16_swiz_x: &[(65, 64)], &[(65, 64)], &[(65, 64)];
    src0_da16_swiz_y: &[(67, 66)], &[(67, 66)], &[(67, 66)];
    src0_da1_subreg_nr: &[(68, 64)], &[(68, 64)], &[(68, 64)];
    src0_da16_subreg_nr: &[(68, 68)], &[(68, 68)], &[(68, 68)];
    src0_da_reg_nr: &[(76, 69)], &[(76, 69)], &[(76, 69)];
    src0_ia_subreg_nr: &[(76, 74)], &[(76, 73)], &[(76, 73)];
    src0_ia1_addr_imm: &[(73, 64)], &[(95, 95), (72, 64)], &[(95, 95), (72, 64)];
    src0_abs: &[(77, 77)], &[(77, 77)], &[(77, 77)];
    src0_negate: &[(78, 78)], &[(78, 78)], &[(78, 78)];
    src0_address_mode: &[(79, 79)], &[(79, 79)], &[(79, 79)];
    src0_hstride: &[(81, 80)], &[(81, 80)], &[(81, 80)];
    src0_da16_swiz_z: &[(81, 80)], &[(81, 80)], &[(81, 80)];
    src0_width: &[(84, 82)], &[(84, 82)], &[(84, 82)];
    src0_da16_swiz_w: &[(83, 82)], &[(83, 82)], &[(83, 82)];
    src0_vstride: &[(88, 85)], &[(88, 85)], &[(88, 85)];
    // Source 1.
    src1_reg_file: &[(43, 42)], &[(90, 89)], &[(90, 89)];
    src1_reg_hw_type: &[(46, 44)], &[(94, 91)], &[(94, 91)];
    src1_da16_swiz_x: &[(97, 96)], &[(97, 96)], &[(97, 96)];
    src1_da16_swiz_y: &[(99, 98)], &[(99, 98)], &[(99, 98)];
    src1_da1_subreg_nr: &[(100, 96)], &[(100, 96)], &[(100, 96)];
    src1_da16_subreg_nr: &[(100, 100)], &[(100, 100)], &[(100, 100)];
    src1_da_reg_nr: &[(108, 101)], &[(108, 101)], &[(108, 101)];
    src1_ia_subreg_nr: &[(108, 106)], &[(108, 105)], &[(108, 105)];
    src1_ia1_addr_imm: &[(105, 96)], &[(121, 121), (104, 96)], &[(121, 121), (104, 96)];
    src1_abs: &[(109, 109)], &[(109, 109)], &[(109, 109)];
    src1_negate: &[(110, 110)], &[(110, 110)], &[(110, 110)];
    src1_address_mode: &[(111, 111)], &[(111, 111)], &[(111, 111)];
    src1_hstride: &[(113, 112)], &[(113, 112)], &[(113, 112)];
    src1_da16_swiz_z: &[(113, 112)], &[(113, 112)], &[(113, 112)];
    src1_width: &[(116, 114)], &[(116, 114)], &[(116, 114)];
    src1_da16_swiz_w: &[(115, 114)], &[(115, 114)], &[(115, 114)];
    src1_vstride: &[(120, 117)], &[(120, 117)], &[(120, 117)];
    // Immediates (brw_inst_imm_ud / imm_uq).
    imm32: &[(127, 96)], &[(127, 96)], &[(127, 96)];
    imm64: &[(127, 64)], &[(127, 64)], &[(127, 64)];
    // Jumps (brw_inst_set_jip / set_uip): gen7 8-byte units, 16 bits; gen8+ bytes, 32 bits.
    jip: &[(111, 96)], &[(127, 96)], &[(127, 96)];
    uip: &[(127, 112)], &[(95, 64)], &[(95, 64)];
    // Sends (brw_inst_set_send_desc, brw_inst_set_send_ex_desc, "SEND instructions").
    send_desc: &[(124, 96)], &[(124, 96)], &[(126, 96)];
    send_ex_desc_hi: NONE, NONE, &[(94, 91), (88, 85), (83, 80), (67, 64)];
    sends_ex_desc_hi: NONE, NONE, &[(95, 80)];
    sends_ex_desc_lo: NONE, NONE, &[(67, 64)];
    send_ex_desc_ia_subreg_nr: NONE, NONE, &[(82, 80)];
    send_sel_reg32_desc: NONE, NONE, &[(77, 77)];
    send_sel_reg32_ex_desc: NONE, NONE, &[(61, 61)];
    send_src1_reg_nr: NONE, NONE, &[(51, 44)];
    send_src1_reg_file: NONE, NONE, &[(36, 36)];
    send_dst_reg_file: NONE, NONE, &[(35, 35)];
    eot: &[(127, 127)], &[(127, 127)], &[(127, 127)];
    // Three-source Align16 (brw_inst.h "Three-source instructions").
    src3_flag_reg_nr: &[(34, 34)], &[(33, 33)], &[(33, 33)];
    src3_flag_subreg_nr: &[(33, 33)], &[(32, 32)], &[(32, 32)];
    src3_mask_control: &[(9, 9)], &[(34, 34)], &[(34, 34)];
    src3_nib_ctrl: &[(47, 47)], &[(11, 11)], &[(11, 11)];
    src3_a16_src2_type: NONE, &[(35, 35)], &[(35, 35)];
    src3_a16_src1_type: NONE, &[(36, 36)], &[(36, 36)];
    src3_src0_abs: &[(36, 36)], &[(37, 37)], &[(37, 37)];
    src3_src0_negate: &[(37, 37)], &[(38, 38)], &[(38, 38)];
    src3_src1_abs: &[(38, 38)], &[(39, 39)], &[(39, 39)];
    src3_src1_negate: &[(39, 39)], &[(40, 40)], &[(40, 40)];
    src3_src2_abs: &[(40, 40)], &[(41, 41)], &[(41, 41)];
    src3_src2_negate: &[(41, 41)], &[(42, 42)], &[(42, 42)];
    src3_a16_src_hw_type: &[(43, 42)], &[(45, 43)], &[(45, 43)];
    src3_a16_dst_hw_type: &[(45, 44)], &[(48, 46)], &[(48, 46)];
    src3_a16_dst_writemask: &[(52, 49)], &[(52, 49)], &[(52, 49)];
    src3_a16_dst_subreg_nr: &[(55, 53)], &[(55, 53)], &[(55, 53)];
    src3_dst_reg_nr: &[(63, 56)], &[(63, 56)], &[(63, 56)];
    src3_src0_rep_ctrl: &[(64, 64)], &[(64, 64)], &[(64, 64)];
    src3_src0_swizzle: &[(72, 65)], &[(72, 65)], &[(72, 65)];
    src3_src0_subreg_nr: &[(75, 73)], &[(75, 73)], &[(75, 73)];
    src3_src0_reg_nr: &[(83, 76)], &[(83, 76)], &[(83, 76)];
    src3_src1_rep_ctrl: &[(85, 85)], &[(85, 85)], &[(85, 85)];
    src3_src1_swizzle: &[(93, 86)], &[(93, 86)], &[(93, 86)];
    src3_src1_subreg_nr: &[(96, 94)], &[(96, 94)], &[(96, 94)];
    src3_src1_reg_nr: &[(104, 97)], &[(104, 97)], &[(104, 97)];
    src3_src2_rep_ctrl: &[(106, 106)], &[(106, 106)], &[(106, 106)];
    src3_src2_swizzle: &[(114, 107)], &[(114, 107)], &[(114, 107)];
    src3_src2_subreg_nr: &[(117, 115)], &[(117, 115)], &[(117, 115)];
    src3_src2_reg_nr: &[(125, 118)], &[(125, 118)], &[(125, 118)];
}

impl Field {
    /// The field's pieces on a generation (empty: absent there).
    pub fn pieces(self, col: Col) -> Pieces {
        TABLE[self as usize].2[col as usize]
    }
    pub fn name(self) -> &'static str {
        TABLE[self as usize].1
    }
    /// Width in bits on a generation.
    pub fn width(self, col: Col) -> u32 {
        self.pieces(col)
            .iter()
            .map(|&(h, l)| (h - l) as u32 + 1)
            .sum()
    }
}

/// Where one field lies on one column, worked out once from its pieces in [`TABLE`] (not a
/// second statement of the layout): the encoder and decoder move some forty fields an
/// instruction, and walking the pieces, summing the width and joining the two words for
/// each was most of their cost. A field of one piece inside one 64-bit word (all but a
/// few) is a shift and a mask of that word; an absent field is one with an empty mask.
#[derive(Clone, Copy, Debug)]
struct Layout {
    /// The field's bits, unshifted (`2^width - 1`).
    mask: u64,
    /// The word (0 or 1) and the shift within it of its lowest bit.
    word: u8,
    shift: u8,
    /// Several pieces, or one across the two words: through [`slow_get`]/[`slow_set`].
    slow: bool,
}

const fn layout(p: Pieces) -> Layout {
    match p {
        [] => Layout {
            mask: 0,
            word: 0,
            shift: 0,
            slow: false,
        },
        &[(hi, lo)] if hi / 64 == lo / 64 => {
            let n = (hi - lo) as u32 + 1;
            Layout {
                mask: if n == 64 { u64::MAX } else { (1 << n) - 1 },
                word: lo / 64,
                shift: lo % 64,
                slow: false,
            }
        }
        _ => Layout {
            mask: 0,
            word: 0,
            shift: 0,
            slow: true,
        },
    }
}

/// [`layout`] of every field on every column, in [`TABLE`]'s order.
static LAYOUT: [[Layout; COLS]; TABLE.len()] = {
    let mut t = [[layout(NONE); COLS]; TABLE.len()];
    let mut f = 0;
    while f < TABLE.len() {
        let mut c = 0;
        while c < COLS {
            t[f][c] = layout(TABLE[f].2[c]);
            c += 1;
        }
        f += 1;
    }
    t
};

/// The instruction as one 128-bit number: a piece may straddle the two words, and a
/// shift of the whole is a few machine instructions where a loop over bits was one per bit.
fn wide(words: &[u64; 2]) -> u128 {
    (words[1] as u128) << 64 | words[0] as u128
}

/// The mask of a piece's bits (`hi` ≥ `lo`, at most 64 of them) in place.
fn mask(hi: u8, lo: u8) -> u128 {
    let n = (hi - lo) as u32 + 1;
    ((1u128 << n) - 1) << lo
}

fn bits(words: &[u64; 2], hi: u8, lo: u8) -> u64 {
    ((wide(words) & mask(hi, lo)) >> lo) as u64
}

fn set_bits(words: &mut [u64; 2], hi: u8, lo: u8, value: u64) {
    let m = mask(hi, lo);
    let w = (wide(words) & !m) | ((value as u128) << lo & m);
    *words = [w as u64, (w >> 64) as u64];
}

/// A field of several pieces (or one across the words): the pieces concatenated, most
/// significant first. Out of line, to keep the common case small where it is inlined.
#[inline(never)]
fn slow_get(words: &[u64; 2], pieces: Pieces) -> u64 {
    let mut v = 0u64;
    for &(hi, lo) in pieces {
        v = (v << (hi - lo + 1)) | bits(words, hi, lo);
    }
    v
}

#[inline(never)]
fn slow_set(words: &mut [u64; 2], pieces: Pieces, value: u64) {
    let mut shift: u32 = pieces.iter().map(|&(h, l)| (h - l) as u32 + 1).sum();
    for &(hi, lo) in pieces {
        let n = (hi - lo) as u32 + 1;
        shift -= n;
        let part = if shift >= 64 { 0 } else { value >> shift };
        set_bits(words, hi, lo, part);
    }
}

/// A native (uncompacted) instruction: two little-endian 64-bit words, as Mesa's `brw_inst`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct NativeInst(pub [u64; 2]);

impl NativeInst {
    /// From Mesa's hex dump: 16 bytes, little-endian.
    pub fn from_bytes(b: &[u8; 16]) -> NativeInst {
        let lo = u64::from_le_bytes(b[0..8].try_into().unwrap());
        let hi = u64::from_le_bytes(b[8..16].try_into().unwrap());
        NativeInst([lo, hi])
    }
    pub fn to_bytes(self) -> [u8; 16] {
        let mut b = [0u8; 16];
        b[0..8].copy_from_slice(&self.0[0].to_le_bytes());
        b[8..16].copy_from_slice(&self.0[1].to_le_bytes());
        b
    }
    /// Whether `field` exists on the column.
    pub fn has(field: Field, col: Col) -> bool {
        !field.pieces(col).is_empty()
    }
    /// The field's value (pieces concatenated, most significant first); 0 where absent.
    #[inline]
    pub fn get(&self, field: Field, col: Col) -> u64 {
        let l = LAYOUT[field as usize][col as usize];
        if l.slow {
            return slow_get(&self.0, field.pieces(col));
        }
        (self.0[(l.word & 1) as usize] >> l.shift) & l.mask
    }
    /// Sets the field (bits above its width are dropped; absent fields are ignored).
    #[inline]
    pub fn set(&mut self, field: Field, col: Col, value: u64) {
        let l = LAYOUT[field as usize][col as usize];
        if l.slow {
            return slow_set(&mut self.0, field.pieces(col), value);
        }
        let w = &mut self.0[(l.word & 1) as usize];
        *w = (*w & !(l.mask << l.shift)) | (value & l.mask) << l.shift;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_are_numbered_in_order() {
        for c in [Col::Gen7, Col::Gen75, Col::Gen8, Col::Gen9] {
            assert_eq!(Col::from_index(c as u8), c);
        }
    }

    #[test]
    fn the_table_is_in_enum_order() {
        for (i, (f, _, _)) in TABLE.iter().enumerate() {
            assert_eq!(*f as usize, i, "{}", f.name());
        }
    }

    /// A piece across the two words, and pieces of 1 and 64 bits, against a bit-by-bit
    /// reference.
    #[test]
    fn pieces_read_and_write_only_their_bits() {
        let reference = |w: &[u64; 2], hi: u8, lo: u8| -> u64 {
            (lo..=hi)
                .rev()
                .fold(0, |v, b| v << 1 | (w[b as usize / 64] >> (b % 64)) & 1)
        };
        let start = [0x0123_4567_89ab_cdefu64, 0xfedc_ba98_7654_3210];
        for (hi, lo) in [
            (70u8, 60u8),
            (64, 64),
            (63, 63),
            (127, 64),
            (63, 0),
            (100, 37),
        ] {
            assert_eq!(bits(&start, hi, lo), reference(&start, hi, lo), "{hi}:{lo}");
            let mut w = start;
            set_bits(&mut w, hi, lo, u64::MAX);
            assert_eq!(bits(&w, hi, lo), reference(&w, hi, lo));
            let n = (hi - lo) as u32 + 1;
            assert_eq!(bits(&w, hi, lo), u64::MAX >> (64 - n), "{hi}:{lo}");
            set_bits(&mut w, hi, lo, bits(&start, hi, lo));
            assert_eq!(w, start, "{hi}:{lo}: other bits changed");
        }
    }

    /// The precomputed layout moves the same bits as the pieces walked one by one, for
    /// every field on every column.
    #[test]
    fn the_layout_agrees_with_the_pieces() {
        let cols = [Col::Gen7, Col::Gen75, Col::Gen8, Col::Gen9];
        let starts = [
            [0u64; 2],
            [u64::MAX; 2],
            [0x0123_4567_89ab_cdef, 0xfedc_ba98_7654_3210],
        ];
        for &(f, _, _) in TABLE {
            for col in cols {
                let p = f.pieces(col);
                for start in starts {
                    let n = NativeInst(start);
                    assert_eq!(n.get(f, col), slow_get(&start, p), "{}", f.name());
                    for v in [0, u64::MAX, 0x5555_5555_5555_5555, 0xabcd] {
                        let mut a = n;
                        a.set(f, col, v);
                        let mut b = start;
                        slow_set(&mut b, p, v);
                        assert_eq!(a.0, b, "{} {col:?} {v:#x}", f.name());
                    }
                }
            }
        }
    }

    #[test]
    fn pieces_concatenate_most_significant_first() {
        let mut n = NativeInst::default();
        n.set(Field::send_ex_desc_hi, Col::Gen9, 0xabcd);
        assert_eq!(n.get(Field::send_ex_desc_hi, Col::Gen9), 0xabcd);
        assert_eq!(n.get(Field::src1_reg_hw_type, Col::Gen9), 0xa);
        assert_eq!(n.get(Field::src0_da1_subreg_nr, Col::Gen9) & 0xf, 0xd);
        n.set(Field::imm64, Col::Gen9, u64::MAX);
        assert_eq!(n.0[1], u64::MAX);
    }
}
