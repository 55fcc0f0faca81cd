//! A fixed-size set of small numbers (slots, copies), as 64-bit words.

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BitSet {
    words: Vec<u64>,
}

impl BitSet {
    pub fn new(bits: u32) -> BitSet {
        BitSet {
            words: vec![0; (bits as usize).div_ceil(64)],
        }
    }

    pub fn contains(&self, i: u32) -> bool {
        self.words
            .get(i as usize / 64)
            .is_some_and(|w| w & (1 << (i % 64)) != 0)
    }

    pub fn insert(&mut self, i: u32) {
        if let Some(w) = self.words.get_mut(i as usize / 64) {
            *w |= 1 << (i % 64);
        }
    }

    pub fn remove(&mut self, i: u32) {
        if let Some(w) = self.words.get_mut(i as usize / 64) {
            *w &= !(1 << (i % 64));
        }
    }

    /// The members, in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.words.iter().enumerate().flat_map(|(k, &w)| {
            let mut w = w;
            std::iter::from_fn(move || {
                if w == 0 {
                    return None;
                }
                let b = w.trailing_zeros();
                w &= w - 1;
                Some(k as u32 * 64 + b)
            })
        })
    }

    /// `self |= other`; whether anything was added.
    pub fn union_with(&mut self, other: &BitSet) -> bool {
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
    pub fn add_new(&mut self, other: &BitSet, mut f: impl FnMut(u32)) {
        for (k, (a, &b)) in self.words.iter_mut().zip(&other.words).enumerate() {
            let mut new = b & !*a;
            *a |= b;
            while new != 0 {
                f(k as u32 * 64 + new.trailing_zeros());
                new &= new - 1;
            }
        }
    }

    /// The words that `r` touches, each with the mask of its bits in `r`.
    fn range_words(&self, r: std::ops::Range<u32>) -> impl Iterator<Item = (usize, u64)> {
        let end = r.end.min(self.words.len() as u32 * 64);
        let start = r.start.min(end);
        let (first, last) = (start / 64, end.div_ceil(64));
        (first..last).map(move |k| {
            let lo = start.max(k * 64) - k * 64;
            let hi = end.min(k * 64 + 64) - k * 64;
            let mask = if hi - lo == 64 {
                !0
            } else {
                ((1u64 << (hi - lo)) - 1) << lo
            };
            (k as usize, mask)
        })
    }

    /// Adds every member of `r`.
    pub fn insert_range(&mut self, r: std::ops::Range<u32>) {
        for (k, m) in self.range_words(r) {
            self.words[k] |= m;
        }
    }

    /// Adds every member of `r`, adding to `repeats` those that were members already:
    /// word by word, what a count per member compared with one would give.
    pub fn insert_range_noting_repeats(&mut self, r: std::ops::Range<u32>, repeats: &mut BitSet) {
        for (k, m) in self.range_words(r) {
            repeats.words[k] |= self.words[k] & m;
            self.words[k] |= m;
        }
    }

    /// Calls `f` with the maximal runs of `r` that are not in the set, in order: word by
    /// word, a run at a time.
    pub fn for_each_missing_run(
        &self,
        r: std::ops::Range<u32>,
        mut f: impl FnMut(std::ops::Range<u32>),
    ) {
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
                        f(start..base + at);
                        open = None;
                        missing &= !((1u64 << at) - 1);
                        present &= !((1u64 << at) - 1);
                    }
                }
            }
        }
        if let Some(start) = open {
            f(start..r.end.min(self.words.len() as u32 * 64));
        }
    }

    /// The smallest member at or above `i`.
    pub fn next_member(&self, i: u32) -> Option<u32> {
        let mut k = (i / 64) as usize;
        let mut w = self.words.get(k)? & (!0u64 << (i % 64));
        loop {
            if w != 0 {
                return Some(k as u32 * 64 + w.trailing_zeros());
            }
            k += 1;
            w = *self.words.get(k)?;
        }
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
    pub fn rank(&self, table: &[u32], i: u32) -> u32 {
        let k = (i / 64) as usize;
        match self.words.get(k) {
            Some(w) => table[k] + (w & ((1u64 << (i % 64)) - 1)).count_ones(),
            None => table[self.words.len()],
        }
    }

    /// Removes every member of `r`.
    pub fn remove_range(&mut self, r: std::ops::Range<u32>) {
        for (k, m) in self.range_words(r) {
            self.words[k] &= !m;
        }
    }

    /// Whether some member of `r` is in the set.
    pub fn intersects_range(&self, r: std::ops::Range<u32>) -> bool {
        self.range_words(r).any(|(k, m)| self.words[k] & m != 0)
    }

    /// Whether every member of `r` is in the set (`r` within the set's size).
    pub fn contains_range(&self, r: std::ops::Range<u32>) -> bool {
        self.range_words(r).all(|(k, m)| self.words[k] & m == m)
    }

    /// How many members `r` holds.
    pub fn count_range(&self, r: std::ops::Range<u32>) -> u32 {
        self.range_words(r)
            .map(|(k, m)| (self.words[k] & m).count_ones())
            .sum()
    }

    /// The `width` (at most 64) bits from `pos`, as the low bits of a word.
    fn bits(&self, pos: u32, width: u32) -> u64 {
        let (k, sh) = ((pos / 64) as usize, pos % 64);
        let mut w = self.words.get(k).copied().unwrap_or(0) >> sh;
        if sh != 0 {
            w |= self.words.get(k + 1).copied().unwrap_or(0) << (64 - sh);
        }
        if width < 64 {
            w & ((1u64 << width) - 1)
        } else {
            w
        }
    }

    /// Adds the members `from..from + len` of `other`, moved to start at `to`: word by word.
    pub fn or_shifted(&mut self, to: u32, other: &BitSet, from: u32, len: u32) {
        let mut done = 0;
        while done < len {
            let width = (len - done).min(64);
            let w = other.bits(from + done, width);
            let (k, sh) = (((to + done) / 64) as usize, (to + done) % 64);
            if w != 0 {
                if let Some(x) = self.words.get_mut(k) {
                    *x |= w << sh;
                }
                if sh != 0 && sh + width > 64 {
                    if let Some(x) = self.words.get_mut(k + 1) {
                        *x |= w >> (64 - sh);
                    }
                }
            }
            done += width;
        }
    }

    /// Removes every member.
    pub fn clear(&mut self) {
        self.words.iter_mut().for_each(|w| *w = 0);
    }

    /// `self = other` (same size), reusing the storage.
    pub fn copy_from(&mut self, other: &BitSet) {
        self.words.copy_from_slice(&other.words);
    }

    /// `self &= other`.
    pub fn intersect_with(&mut self, other: &BitSet) {
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            *a &= b;
        }
    }

    /// Every member of `0..bits`.
    pub fn full(bits: u32) -> BitSet {
        let mut s = BitSet::new(bits);
        for i in 0..bits {
            s.insert(i);
        }
        s
    }

    /// `self = gen | (self & !kill)`.
    pub fn transfer(&mut self, gen: &BitSet, kill: &BitSet) {
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
            let mut a = BitSet::new(200);
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
            let mut a = BitSet::new(n);
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

    #[test]
    fn shifted_copies_agree_with_members() {
        let mut src = BitSet::new(300);
        for i in [0, 1, 5, 63, 64, 65, 100, 127, 128, 200, 255, 299] {
            src.insert(i);
        }
        for (to, from, len) in [
            (0, 0, 300),
            (3, 60, 70),
            (70, 1, 128),
            (130, 100, 64),
            (64, 64, 1),
        ] {
            let mut dst = BitSet::new(400);
            dst.or_shifted(to, &src, from, len);
            let want: Vec<u32> = src
                .iter()
                .filter(|&i| i >= from && i < from + len)
                .map(|i| i - from + to)
                .collect();
            assert_eq!(dst.iter().collect::<Vec<_>>(), want, "{to} {from} {len}");
        }
    }
}
