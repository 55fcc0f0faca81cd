//! Items (available expressions, copies) each registered with runs of slots, found again by
//! a write to any slot of those runs: the lists a block-local pass keeps of what a write
//! ends. A run is kept once per register-sized bucket of slots it touches, not once per
//! slot, so a SIMD16 float operand costs two entries where a per-slot list paid sixteen
//! pushes and sixteen drains (issue 15: those lists were a tenth of CSE).
//!
//! All in flat arrays reused for a pass run: a head per bucket and one pool of linked
//! nodes; an item found is unlinked from that bucket's list (its nodes in other buckets
//! stay, and the caller forgets the item itself).

/// Slots per bucket: one 32-byte register of 4-byte slots.
use crate::analysis::access::SlotRange;

const BUCKET: u32 = 8;
const NIL: u32 = u32::MAX;

pub struct RangeLists {
    head: Vec<u32>,
    /// Per node: the next node of its bucket's list, its item and its run of slots.
    next: Vec<u32>,
    item: Vec<u32>,
    run: Vec<(u32, u32)>,
    /// Buckets whose list is not empty, to empty them all without walking every bucket.
    touched: Vec<u32>,
}

impl RangeLists {
    /// Lists for slots `0..slots`.
    pub fn new(slots: u32) -> RangeLists {
        RangeLists {
            head: vec![NIL; Self::bucket_count(slots)],
            next: Vec::new(),
            item: Vec::new(),
            run: Vec::new(),
            touched: Vec::new(),
        }
    }

    /// The buckets a non-empty run of slots touches: what any index of runs by bucket
    /// (coalescing's write index too) files the run under.
    /// (A half-open range: an inclusive one costs a test more per step.)
    pub fn buckets(r: &SlotRange) -> std::ops::Range<u32> {
        r.start.get() / BUCKET..(r.end.get() - 1) / BUCKET + 1
    }

    /// How many buckets slots `0..slots` fall in.
    pub fn bucket_count(slots: u32) -> usize {
        slots.div_ceil(BUCKET) as usize
    }

    /// Room for `nodes` entries in all ([`super::slot_lists::SlotLists::reserve`]).
    pub fn reserve(&mut self, nodes: usize) {
        self.next.reserve(nodes);
        self.item.reserve(nodes);
        self.run.reserve(nodes);
    }

    /// Registers `item` with the slots `r`.
    pub fn push(&mut self, r: SlotRange, item: u32) {
        if r.is_empty() {
            return;
        }
        for b in Self::buckets(&r) {
            let h = &mut self.head[b as usize];
            if *h == NIL {
                self.touched.push(b);
            }
            self.next.push(*h);
            self.item.push(item);
            self.run.push((r.start.get(), r.end.get()));
            *h = self.item.len() as u32 - 1;
        }
    }

    /// Calls `f` with every item registered with a slot of `r` (an item may come more than
    /// once), and unlinks what it found from the buckets of `r`.
    pub fn take_overlapping(&mut self, r: SlotRange, mut f: impl FnMut(u32)) {
        if r.is_empty() {
            return;
        }
        let (start, end) = (r.start.get(), r.end.get());
        for b in Self::buckets(&r) {
            let mut prev = NIL;
            let mut n = self.head[b as usize];
            while n != NIL {
                let next = self.next[n as usize];
                let (lo, hi) = self.run[n as usize];
                if lo < end && start < hi {
                    f(self.item[n as usize]);
                    if prev == NIL {
                        self.head[b as usize] = next;
                    } else {
                        self.next[prev as usize] = next;
                    }
                } else {
                    prev = n;
                }
                n = next;
            }
        }
    }

    /// Calls `f` with every item registered with a slot of `r` (an item may come more than
    /// once), leaving the lists as they are.
    pub fn for_each_overlapping(&self, r: SlotRange, mut f: impl FnMut(u32)) {
        if r.is_empty() {
            return;
        }
        let (start, end) = (r.start.get(), r.end.get());
        for b in Self::buckets(&r) {
            let mut n = self.head[b as usize];
            while n != NIL {
                let (lo, hi) = self.run[n as usize];
                if lo < end && start < hi {
                    f(self.item[n as usize]);
                }
                n = self.next[n as usize];
            }
        }
    }

    /// Empties every list.
    pub fn clear(&mut self) {
        for b in self.touched.drain(..) {
            self.head[b as usize] = NIL;
        }
        self.next.clear();
        self.item.clear();
        self.run.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::access::Slot;

    fn r(a: u32, b: u32) -> SlotRange {
        Slot::new(a)..Slot::new(b)
    }

    /// Against the obvious model: every item whose runs meet a written run is found.
    #[test]
    fn finds_exactly_the_overlapping_items() {
        let mut l = RangeLists::new(64);
        l.push(r(0, 16), 0);
        l.push(r(14, 15), 1);
        l.push(r(30, 33), 2);
        l.push(r(3, 3), 3);
        let mut got = Vec::new();
        l.take_overlapping(r(15, 31), |i| got.push(i));
        got.sort();
        got.dedup();
        assert_eq!(got, vec![0, 2]);
        // Found items are unlinked from the buckets written.
        l.take_overlapping(r(15, 31), |i| panic!("{i} found twice"));
        let mut got = Vec::new();
        l.for_each_overlapping(r(0, 15), |i| got.push(i));
        got.sort();
        assert_eq!(got, vec![0, 1]);
        got.clear();
        l.take_overlapping(r(14, 15), |i| got.push(i));
        assert_eq!(got, vec![1]);
        l.clear();
        l.take_overlapping(r(0, 64), |i| panic!("{i} after clear"));
    }
}
