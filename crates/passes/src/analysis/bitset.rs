//! A fixed-size set of small numbers, as 64-bit words, typed by what it holds: a
//! `BitSet<Slot>` of slots ([`super::access::Slot`]) cannot be filled with the dense
//! numbers of liveness's global slots or of copy propagation's copies, each a [`Member`]
//! type of its own ([`crate::dense_index!`]).

use std::marker::PhantomData;
use std::ops::Range;

/// What a [`BitSet`] holds: a dense number.
pub trait Member: Copy + Eq + std::fmt::Debug {
    fn from_bit(bit: u32) -> Self;
    fn bit(self) -> u32;
}

/// Defines a dense `u32` number type that sets hold: ordered, `± u32` moves it along,
/// `a - b` is the distance between two; `new` and `get` convert from and to the number.
#[macro_export]
macro_rules! dense_index {
    ($(#[$meta:meta])* $vis:vis struct $name:ident;) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[repr(transparent)]
        $vis struct $name(u32);

        #[allow(dead_code)] // Not every number type uses every conversion.
        impl $name {
            #[inline]
            pub const fn new(n: u32) -> Self {
                $name(n)
            }

            #[inline]
            pub const fn get(self) -> u32 {
                self.0
            }

            /// The members of `r`, in increasing order.
            #[inline]
            pub fn each(r: ::std::ops::Range<$name>) -> impl Iterator<Item = $name> {
                (r.start.0..r.end.0).map($name)
            }
        }

        impl $crate::analysis::bitset::Member for $name {
            #[inline]
            fn from_bit(bit: u32) -> Self {
                $name(bit)
            }

            #[inline]
            fn bit(self) -> u32 {
                self.0
            }
        }

        impl ::index_vec::Idx for $name {
            #[inline]
            fn from_usize(i: usize) -> Self {
                debug_assert!(i <= u32::MAX as usize, "{i} out of range");
                $name(i as u32)
            }

            #[inline]
            fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl ::std::ops::Add<u32> for $name {
            type Output = $name;
            #[inline]
            fn add(self, n: u32) -> $name {
                $name(self.0 + n)
            }
        }

        impl ::std::ops::Sub<u32> for $name {
            type Output = $name;
            #[inline]
            fn sub(self, n: u32) -> $name {
                debug_assert!(n <= self.0, "{self:?} - {n}");
                $name(self.0 - n)
            }
        }

        impl ::std::ops::Sub for $name {
            type Output = u32;
            #[inline]
            fn sub(self, other: $name) -> u32 {
                debug_assert!(other.0 <= self.0, "{other:?} after {self:?}");
                self.0 - other.0
            }
        }
    };
}

/// Plain numbers, for the tests of the set itself.
#[cfg(test)]
impl Member for u32 {
    fn from_bit(bit: u32) -> Self {
        bit
    }
    fn bit(self) -> u32 {
        self
    }
}

fn raw<T: Member>(r: &Range<T>) -> Range<u32> {
    r.start.bit()..r.end.bit()
}

/// When `r` is not empty and within one word (most runs of slots are): that word and the
/// mask of `r`'s bits in it, for the range operations to do without walking words.
#[inline]
fn one_word<T: Member>(r: &Range<T>) -> Option<(usize, u64)> {
    let (s, e) = (r.start.bit(), r.end.bit());
    (s < e && s / 64 == (e - 1) / 64)
        .then(|| ((s / 64) as usize, (!0u64 >> (64 - (e - s))) << (s % 64)))
}

pub struct BitSet<T: Member> {
    words: Vec<u64>,
    of: PhantomData<T>,
}

impl<T: Member> Clone for BitSet<T> {
    fn clone(&self) -> Self {
        BitSet {
            words: self.words.clone(),
            of: PhantomData,
        }
    }
}

impl<T: Member> PartialEq for BitSet<T> {
    fn eq(&self, other: &Self) -> bool {
        self.words == other.words
    }
}

impl<T: Member> Eq for BitSet<T> {}

impl<T: Member> std::fmt::Debug for BitSet<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

impl<T: Member> BitSet<T> {
    /// An empty set of room for `0..bits`.
    pub fn new(bits: u32) -> BitSet<T> {
        BitSet {
            words: vec![0; (bits as usize).div_ceil(64)],
            of: PhantomData,
        }
    }

    /// How many members it has room for (a multiple of 64).
    fn room(&self) -> u32 {
        self.words.len() as u32 * 64
    }

    pub fn contains(&self, i: T) -> bool {
        let i = i.bit();
        self.words
            .get(i as usize / 64)
            .is_some_and(|w| w & (1 << (i % 64)) != 0)
    }

    pub fn insert(&mut self, i: T) {
        let i = i.bit();
        debug_assert!(i < self.room(), "{i} inserted in a set of {}", self.room());
        if let Some(w) = self.words.get_mut(i as usize / 64) {
            *w |= 1 << (i % 64);
        }
    }

    pub fn remove(&mut self, i: T) {
        let i = i.bit();
        if let Some(w) = self.words.get_mut(i as usize / 64) {
            *w &= !(1 << (i % 64));
        }
    }

    /// The members, in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = T> + '_ {
        self.words.iter().enumerate().flat_map(|(k, &w)| {
            let mut w = w;
            std::iter::from_fn(move || {
                if w == 0 {
                    return None;
                }
                let b = w.trailing_zeros();
                w &= w - 1;
                Some(T::from_bit(k as u32 * 64 + b))
            })
        })
    }

    /// Of the members of `within`, keeps only those in `keep`: `self &= keep | !within`.
    pub fn keep_members_of(&mut self, keep: &BitSet<T>, within: &BitSet<T>) {
        for ((a, k), w) in self.words.iter_mut().zip(&keep.words).zip(&within.words) {
            *a &= k | !w;
        }
    }

    /// `self |= other`; whether anything was added.
    pub fn union_with(&mut self, other: &BitSet<T>) -> bool {
        let mut changed = false;
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            let n = *a | b;
            changed |= n != *a;
            *a = n;
        }
        changed
    }

    /// Calls `f` with each member of `other` not in `self`, in increasing order, and adds
    /// them: word by word, so that walking many sets that share most members costs what
    /// they add, not what they hold.
    pub fn add_new(&mut self, other: &BitSet<T>, mut f: impl FnMut(T)) {
        for (k, (a, &b)) in self.words.iter_mut().zip(&other.words).enumerate() {
            let mut new = b & !*a;
            *a |= b;
            while new != 0 {
                f(T::from_bit(k as u32 * 64 + new.trailing_zeros()));
                new &= new - 1;
            }
        }
    }

    /// The words that `r` touches, each with the mask of its bits in `r`.
    fn range_words(&self, r: Range<T>) -> impl Iterator<Item = (usize, u64)> {
        let r = raw(&r);
        debug_assert!(
            r.end <= self.room() || r.is_empty(),
            "{r:?} in a set of {}",
            self.room()
        );
        let end = r.end.min(self.room());
        let start = r.start.min(end);
        let (first, last) = (start / 64, end.div_ceil(64));
        // The bits from `start` on in the first word, those below `end` in the last (all of
        // it when `end` is a word's end): two masks made once, not a shift per word.
        let (from, below) = (!0u64 << (start % 64), !0u64 >> ((64 - end % 64) % 64));
        (first..last).map(move |k| {
            let mut mask = !0u64;
            if k == first {
                mask &= from;
            }
            if k + 1 == last {
                mask &= below;
            }
            (k as usize, mask)
        })
    }

    /// Adds every member of `r`.
    pub fn insert_range(&mut self, r: Range<T>) {
        if let Some((k, m)) = one_word(&r) {
            if let Some(w) = self.words.get_mut(k) {
                *w |= m;
            }
            return;
        }
        for (k, m) in self.range_words(r) {
            self.words[k] |= m;
        }
    }

    /// Adds every member of `r`, adding to `repeats` those that were members already:
    /// word by word, what a count per member compared with one would give.
    pub fn insert_range_noting_repeats(&mut self, r: Range<T>, repeats: &mut BitSet<T>) {
        if let Some((k, m)) = one_word(&r) {
            if let (Some(w), Some(rw)) = (self.words.get_mut(k), repeats.words.get_mut(k)) {
                *rw |= *w & m;
                *w |= m;
            }
            return;
        }
        for (k, m) in self.range_words(r) {
            repeats.words[k] |= self.words[k] & m;
            self.words[k] |= m;
        }
    }

    /// Calls `f` with the maximal runs of `r` that are not in the set, in order: word by
    /// word, a run at a time.
    pub fn for_each_missing_run(&self, r: Range<T>, mut f: impl FnMut(Range<T>)) {
        let run = |a: u32, b: u32| T::from_bit(a)..T::from_bit(b);
        if let Some((k, m)) = one_word(&r) {
            // Within one word: the missing bits' runs, found by their ends.
            let Some(&w) = self.words.get(k) else { return };
            let (mut missing, base) = (m & !w, k as u32 * 64);
            while missing != 0 {
                let at = missing.trailing_zeros();
                let len = (missing >> at).trailing_ones();
                f(run(base + at, base + at + len));
                missing &= !((!0u64 >> (64 - len)) << at);
            }
            return;
        }
        let mut open: Option<u32> = None;
        for (k, m) in self.range_words(r.clone()) {
            // The bits of the word in `r` that are missing, scanned as alternating runs.
            let mut missing = m & !self.words[k];
            let mut present = m & self.words[k];
            let base = k as u32 * 64;
            loop {
                match open {
                    None => {
                        if missing == 0 {
                            break;
                        }
                        let at = missing.trailing_zeros();
                        open = Some(base + at);
                        present &= !((1u64 << at) - 1);
                        missing &= !((1u64 << at) - 1);
                    }
                    Some(start) => {
                        if present == 0 {
                            break;
                        }
                        let at = present.trailing_zeros();
                        f(run(start, base + at));
                        open = None;
                        missing &= !((1u64 << at) - 1);
                        present &= !((1u64 << at) - 1);
                    }
                }
            }
        }
        if let Some(start) = open {
            f(run(start, r.end.bit().min(self.room())));
        }
    }

    /// The smallest member at or above `i`.
    pub fn next_member(&self, i: T) -> Option<T> {
        let i = i.bit();
        let mut k = (i / 64) as usize;
        let mut w = self.words.get(k)? & (!0u64 << (i % 64));
        loop {
            if w != 0 {
                return Some(T::from_bit(k as u32 * 64 + w.trailing_zeros()));
            }
            k += 1;
            w = *self.words.get(k)?;
        }
    }

    /// The smallest number at or above `i` that is not a member (the set's room when
    /// every number from `i` on is one).
    pub fn next_missing(&self, i: T) -> T {
        let i = i.bit();
        let mut k = (i / 64) as usize;
        let Some(&w) = self.words.get(k) else {
            return T::from_bit(i);
        };
        let mut w = !w & (!0u64 << (i % 64));
        loop {
            if w != 0 {
                return T::from_bit(k as u32 * 64 + w.trailing_zeros());
            }
            k += 1;
            match self.words.get(k) {
                Some(&x) => w = !x,
                None => return T::from_bit(self.room()),
            }
        }
    }

    /// Words of storage (64 members each).
    pub fn words(&self) -> usize {
        self.words.len()
    }

    /// How many members there are.
    pub fn len(&self) -> u32 {
        self.words.iter().map(|w| w.count_ones()).sum()
    }

    /// Per word, how many members come before it: with [`BitSet::rank`], the number of
    /// members below any position in constant time.
    pub fn rank_table(&self) -> Vec<u32> {
        let mut t = Vec::with_capacity(self.words.len() + 1);
        let mut n = 0;
        for w in &self.words {
            t.push(n);
            n += w.count_ones();
        }
        t.push(n);
        t
    }

    /// How many members are below `i` (`table` from [`BitSet::rank_table`] of this set).
    pub fn rank(&self, table: &[u32], i: T) -> u32 {
        let i = i.bit();
        let k = (i / 64) as usize;
        match self.words.get(k) {
            Some(w) => table[k] + (w & ((1u64 << (i % 64)) - 1)).count_ones(),
            None => table[self.words.len()],
        }
    }

    /// Removes every member of `r`.
    pub fn remove_range(&mut self, r: Range<T>) {
        if let Some((k, m)) = one_word(&r) {
            if let Some(w) = self.words.get_mut(k) {
                *w &= !m;
            }
            return;
        }
        for (k, m) in self.range_words(r) {
            self.words[k] &= !m;
        }
    }

    /// Whether some member of `r` is in the set.
    pub fn intersects_range(&self, r: Range<T>) -> bool {
        if let Some((k, m)) = one_word(&r) {
            return self.words.get(k).is_some_and(|w| w & m != 0);
        }
        self.range_words(r).any(|(k, m)| self.words[k] & m != 0)
    }

    /// Whether some member of `r` is in the set and not in `except` (of the same size).
    pub fn intersects_range_excluding(&self, r: Range<T>, except: &BitSet<T>) -> bool {
        let word = |k: usize| {
            self.words.get(k).copied().unwrap_or(0) & !except.words.get(k).copied().unwrap_or(0)
        };
        if let Some((k, m)) = one_word(&r) {
            return word(k) & m != 0;
        }
        self.range_words(r).any(|(k, m)| word(k) & m != 0)
    }

    /// Whether every member of `r` is in the set (`r` within the set's size).
    pub fn contains_range(&self, r: Range<T>) -> bool {
        if let Some((k, m)) = one_word(&r) {
            return self.words.get(k).is_none_or(|w| w & m == m);
        }
        self.range_words(r).all(|(k, m)| self.words[k] & m == m)
    }

    /// How many members `r` holds.
    pub fn count_range(&self, r: Range<T>) -> u32 {
        self.range_words(r)
            .map(|(k, m)| (self.words[k] & m).count_ones())
            .sum()
    }

    /// The 64 bits from `start` on (bit k of the result: whether `start + k` is a member;
    /// none past the set's room): a run of members read a word at a time.
    pub fn bits_from(&self, start: u32) -> u64 {
        let (k, sh) = ((start / 64) as usize, start % 64);
        let lo = self.words.get(k).copied().unwrap_or(0) >> sh;
        let hi = match sh {
            0 => 0,
            _ => self.words.get(k + 1).copied().unwrap_or(0) << (64 - sh),
        };
        lo | hi
    }

    /// Whether members `a..a + len` of `self` are, in order, members `b..b + len` of
    /// `other`: compared a word at a time.
    pub fn same_run(&self, a: T, other: &BitSet<T>, b: T, len: u32) -> bool {
        let (a, b) = (a.bit(), b.bit());
        let mut k = 0;
        while k < len {
            let n = (len - k).min(64);
            let mask = !0u64 >> (64 - n);
            if (self.bits_from(a + k) ^ other.bits_from(b + k)) & mask != 0 {
                return false;
            }
            k += n;
        }
        true
    }

    /// Makes it an empty set of room for `0..bits`, keeping its storage (what
    /// [`BitSet::new`] gives, without allocating when it had the room).
    pub fn reset(&mut self, bits: u32) {
        self.words.clear();
        self.words.resize((bits as usize).div_ceil(64), 0);
    }

    /// Removes every member.
    pub fn clear(&mut self) {
        self.words.iter_mut().for_each(|w| *w = 0);
    }

    /// `self = other` (same size), reusing the storage.
    pub fn copy_from(&mut self, other: &BitSet<T>) {
        self.words.copy_from_slice(&other.words);
    }

    /// `self &= other`.
    pub fn intersect_with(&mut self, other: &BitSet<T>) {
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            *a &= b;
        }
    }

    /// Every member of `0..bits`.
    pub fn full(bits: u32) -> BitSet<T> {
        let mut s = BitSet::new(bits);
        s.insert_range(T::from_bit(0)..T::from_bit(bits));
        s
    }

    /// `self = gen | (self & !kill)`.
    pub fn transfer(&mut self, gen: &BitSet<T>, kill: &BitSet<T>) {
        for ((a, g), k) in self.words.iter_mut().zip(&gen.words).zip(&kill.words) {
            *a = g | (*a & !k);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_agree_with_members() {
        for (lo, hi) in [
            (0, 0),
            (0, 1),
            (3, 64),
            (60, 70),
            (64, 128),
            (1, 190),
            (127, 129),
        ] {
            let mut a: BitSet<u32> = BitSet::new(200);
            a.insert_range(lo..hi);
            let members: Vec<u32> = a.iter().collect();
            assert_eq!(members, (lo..hi).collect::<Vec<_>>(), "{lo}..{hi}");
            assert!(a.contains_range(lo..hi));
            assert_eq!(a.intersects_range(lo..hi), lo < hi);
            assert!(!a.intersects_range(hi..200));
            a.remove_range(lo + (hi - lo) / 2..hi);
            let left: Vec<u32> = a.iter().collect();
            assert_eq!(left, (lo..lo + (hi - lo) / 2).collect::<Vec<_>>());
            assert_eq!(a.contains_range(lo..hi), hi - lo < 1);
            assert_eq!(a.count_range(0..200), (hi - lo) / 2);
        }
    }

    /// Missing runs and ranks against the member-by-member model, on sets of every kind
    /// of word boundary (a fixed pseudo-random pattern).
    #[test]
    fn missing_runs_and_ranks_agree_with_members() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for round in 0..40 {
            let n = 1 + (round * 37) % 300;
            let mut a: BitSet<u32> = BitSet::new(n);
            for i in 0..n {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                if x % (1 + round as u64 % 4) == 0 {
                    a.insert(i);
                }
            }
            assert_eq!(a.len(), a.iter().count() as u32);
            for i in 0..=n {
                assert_eq!(
                    a.next_member(i),
                    a.iter().find(|&j| j >= i),
                    "next member from {i}"
                );
            }
            let table = a.rank_table();
            for i in 0..=n {
                assert_eq!(
                    a.rank(&table, i),
                    (0..i).filter(|&j| a.contains(j)).count() as u32
                );
            }
            let (lo, hi) = ((x % n as u64) as u32, n - (x >> 32) as u32 % (n / 2 + 1));
            let lo = lo.min(hi);
            let mut got = Vec::new();
            a.for_each_missing_run(lo..hi, |r| {
                assert!(!r.is_empty(), "empty run in {lo}..{hi}");
                if let Some(&(_, e)) = got.last() {
                    assert!(e < r.start, "runs {e} and {r:?} not maximal");
                }
                got.push((r.start, r.end));
            });
            let flat: Vec<u32> = got.iter().flat_map(|&(s, e)| s..e).collect();
            let want: Vec<u32> = (lo..hi).filter(|&j| !a.contains(j)).collect();
            assert_eq!(flat, want, "missing runs of {lo}..{hi} in a set of {n}");
        }
    }
}
