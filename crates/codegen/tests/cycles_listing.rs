//! Mesa's performance model on a small hand-checked listing: the block markers as Mesa
//! prints them around a loop (the loop head's empty `do` block ends after the next
//! block's first instruction), the loop weight, and the per-block figures.

use eubatch_codegen::asm::read_asm;
use eubatch_codegen::cycles::program_cycles;
use eubatch_ir::Gen;

/// gen9: `mov` 2 cycles; in the loop (weight 10) `add` 2 and `while` 8, so the body block
/// counts 100; then `mov` 2. Total 104.
const LISTING: &str = "\
Native code for unnamed fragment shader GLSL1 (sha1 0000000000000000000000000000000000000000)
SIMD8 shader: 4 instructions. 1 loops. 104 cycles. 0:0 spills:fills, 0 sends, scheduled with mode top-down. Promoted 0 constants. Compacted 64 to 48 bytes (25%)
   START B0 (2 cycles)
01 8b 00 20 07 6f 10 00                         mov(8)          g111<1>F        g16<8,8,1>D                     { align1 1Q compacted };
   END B0 ->B1
   START B2 <-B1 <-B2 (100 cycles)

LABEL0:
40 4b 02 20 f7 6e 10 2a                         add(8)          g110<1>F        g16<8,8,1>F     -g42<8,8,1>F    { align1 1Q compacted };
   END B1 ->B2
27 00 60 00 20 0e 00 20 00 00 00 08 20 f8 ff ff while(8)        JIP:  LABEL0                                    { align1 1Q };
   END B2 ->B2 ->B3
   START B3 <-B2 (2 cycles)
01 8b 00 20 07 6f 10 00                         mov(8)          g111<1>F        g16<8,8,1>D                     { align1 1Q compacted };
   END B3
";

#[test]
fn blocks_follow_mesas_markers() {
    let p = &read_asm(LISTING, "asm.txt", Gen::Gen9).unwrap()[0];
    let blocks: Vec<_> = p
        .blocks
        .iter()
        .map(|b| (b.num, b.cycles, b.first, b.end))
        .collect();
    assert_eq!(
        blocks,
        vec![
            (0, Some(2), 0, 1),
            (1, None, 1, 1),
            (2, Some(100), 1, 3),
            (3, Some(2), 3, 4)
        ]
    );
}

#[test]
fn the_model_reproduces_the_listing() {
    let p = &read_asm(LISTING, "asm.txt", Gen::Gen9).unwrap()[0];
    let e = program_cycles(p, Gen::Gen9).unwrap();
    assert_eq!(e.cycles, p.stats.cycles);
    assert_eq!(e.blocks, vec![2, 0, 100, 2]);
}

#[test]
fn a_reader_of_a_fresh_result_waits() {
    // The loop's `add` reads g111, which the first `mov` wrote 8 cycles (its latency)
    // after issuing at 2: the `add` issues at 10 instead of 2, and those 8 cycles count
    // ten times in the loop block (180 instead of 100).
    let text = LISTING.replace("g16<8,8,1>F     -g42", "g111<8,8,1>F    -g42");
    let p = &read_asm(&text, "asm.txt", Gen::Gen9).unwrap()[0];
    let e = program_cycles(p, Gen::Gen9).unwrap();
    assert_eq!(e.blocks, vec![2, 0, 180, 2]);
    assert_eq!(e.cycles, 184);
}
