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
