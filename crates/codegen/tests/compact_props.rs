//! Property tests of instruction compaction, after Mesa's `test_eu_compact.cpp` (compact,
//! uncompact, compare; then the same with bits flipped): whenever `compact` gives a word,
//! `uncompact` of it is the native instruction bit for bit (compaction refuses rather than
//! drop a set bit), and every native instruction that `uncompact` produces compacts again,
//! but for the two ways Mesa's tables are not canonical.

use eubatch_codegen::compact::{compact, try_compact, uncompact, Refusal};
use eubatch_ir::Gen;
use proptest::prelude::*;

const GENS: [Gen; 5] = [Gen::Gen7, Gen::Gen75, Gen::Gen8, Gen::Gen9, Gen::Gen11];

fn gen() -> impl Strategy<Value = Gen> {
    (0..GENS.len()).prop_map(|i| GENS[i])
}

/// A compacted word: anything with the compaction bit (29) set.
fn compacted() -> impl Strategy<Value = u64> {
    any::<u64>().prop_map(|w| w | (1 << 29))
}

fn flip(n: [u64; 2], bit: u32) -> [u64; 2] {
    let mut n = n;
    n[(bit / 64) as usize] ^= 1 << (bit % 64);
    n
}

/// `compact` is exact where it succeeds.
fn assert_exact(n: [u64; 2], g: Gen) -> Result<(), TestCaseError> {
    if let Some(c) = compact(n, g) {
        prop_assert_eq!(c & (1 << 29), 1 << 29);
        let back = uncompact(c, g).unwrap();
        prop_assert_eq!(back, n, "{:?}: {:032x} -> {:016x}", g, u128_of(n), c);
    }
    Ok(())
}

fn u128_of(n: [u64; 2]) -> u128 {
    (u128::from(n[1]) << 64) | u128::from(n[0])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]

    /// Every compacted word expands to an instruction that compacts back (to a word that
    /// expands to the same instruction), except: an immediate whose subreg table entry had a
    /// src1 part (the immediate overwrites it, and no entry has the rest alone); an EOT send
    /// (its immediate descriptor sign-extended into bit 127); a three-source opcode on gen7,
    /// which only the two-source layout expands.
    #[test]
    fn uncompacted_words_compact_again(c in compacted(), g in gen()) {
        let n = uncompact(c, g).unwrap();
        prop_assert_eq!(n[0] & (1 << 29), 0);
        match try_compact(n, g) {
            Ok(c2) => prop_assert_eq!(uncompact(c2, g).unwrap(), n),
            Err(Refusal::Subreg | Refusal::Eot | Refusal::ThreeSrcBeforeGen8) => {}
            Err(e) => prop_assert!(false, "{:?}: {:016x} expands to {:032x}, refused: {}", g, c, u128_of(n), e),
        }
    }

    /// Mesa's bit-flip test: flip one or two bits of a compactable instruction; whatever
    /// still compacts must expand to exactly the flipped instruction.
    #[test]
    fn flipped_bits_round_trip_or_refuse(c in compacted(), g in gen(), a in 0u32..128, b in 0u32..128) {
        let n = uncompact(c, g).unwrap();
        if compact(n, g).is_some() {
            assert_exact(flip(n, a), g)?;
            assert_exact(flip(flip(n, a), b), g)?;
        }
    }

    /// Random native bits: rarely compactable, never inexact, never a panic.
    #[test]
    fn random_native_bits(lo in any::<u64>(), hi in any::<u64>(), g in gen()) {
        assert_exact([lo & !(1 << 29), hi], g)?;
        prop_assert_eq!(compact([lo | (1 << 29), hi], g), None);
    }
}

#[test]
fn gen12_refuses_without_panicking() {
    assert_eq!(compact([0x7e, 0], Gen::Gen12), None);
    assert!(uncompact(0x2000_007e, Gen::Gen12).is_err());
}
