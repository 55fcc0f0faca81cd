//! A set that a walk fills and empties many times over (once per block): emptied at the
//! cost of what was put in since it was last emptied, not of its size. A backward walk
//! over a block of a large shader touches a few dozen of its tens of thousands of slots;
//! clearing the whole set before every block cost more than the walks themselves on
//! dolphin's ubershaders (issue 15: blocks × slots, quadratic in shader size).

use std::ops::{Deref, Range};

use super::bitset::{BitSet, Member};

/// A [`BitSet`] that remembers the ranges added to it. Read it as a `BitSet` (it derefs to
/// one); change it only through its own methods, which keep the record.
pub struct ScratchSet<T: Member> {
    set: BitSet<T>,
    /// The ranges added since the last [`ScratchSet::clear`]: every member is in one. Not
    /// kept (`logging` false) for a set of few words, or once there are more ranges than
    /// a quarter of the words: emptying every word then costs less.
    added: Vec<Range<T>>,
    logging: bool,
}

/// Sets of fewer words than this are emptied whole.
const LOG_FROM_WORDS: usize = 64;

impl<T: Member> ScratchSet<T> {
    /// An empty set of room for `0..bits`.
    pub fn new(bits: u32) -> ScratchSet<T> {
        let set = BitSet::new(bits);
        ScratchSet {
            logging: set.words() >= LOG_FROM_WORDS,
            set,
            added: Vec::new(),
        }
    }

    #[inline]
    pub fn insert_range(&mut self, r: Range<T>) {
        self.note(r.clone());
        self.set.insert_range(r);
    }

    #[inline]
    fn note(&mut self, r: Range<T>) {
        if self.logging && r.start.bit() < r.end.bit() {
            if self.added.len() * 4 >= self.set.words() {
                self.logging = false;
                self.added.clear();
            } else {
                self.added.push(r);
            }
        }
    }

    #[inline]
    pub fn insert(&mut self, i: T) {
        self.insert_range(i..T::from_bit(i.bit() + 1));
    }

    #[inline]
    pub fn remove_range(&mut self, r: Range<T>) {
        self.set.remove_range(r);
    }

    #[inline]
    pub fn remove(&mut self, i: T) {
        self.set.remove(i);
    }

    /// Removes every member: the ranges added since the last time, or every word.
    pub fn clear(&mut self) {
        if self.logging {
            for r in self.added.iter() {
                self.set.remove_range(r.clone());
            }
        } else {
            self.set.clear();
        }
        self.added.clear();
        self.logging = self.set.words() >= LOG_FROM_WORDS;
    }
}

impl<T: Member> Deref for ScratchSet<T> {
    type Target = BitSet<T>;
    fn deref(&self) -> &BitSet<T> {
        &self.set
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::access::Slot;

    #[test]
    fn clearing_empties_it_whichever_way() {
        for n in [1usize, 3, 40, 100] {
            // (Room for every range: the last starts at 99 * 97.)
            let mut s: ScratchSet<Slot> = ScratchSet::new(16384);
            for k in 0..n as u32 {
                s.insert_range(Slot::new(k * 97)..Slot::new(k * 97 + 70));
                s.insert(Slot::new(4000 - k));
            }
            s.remove_range(Slot::new(0)..Slot::new(10));
            assert!(s.iter().next().is_some());
            s.clear();
            assert_eq!(s.iter().next(), None, "{n} ranges added");
        }
    }
}
