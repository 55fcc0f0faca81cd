//! Per slot (or per VGRF), a list of small numbers (the available copies or expressions a write to the
//! slot ends), in flat arrays: a head per slot and one pool of linked nodes, reused for
//! the whole pass run. A vector per slot allocated on each slot's first entry, in every
//! run, was a tenth of the compile (issue 15).

const NIL: u32 = u32::MAX;

pub struct SlotLists {
    head: Vec<u32>,
    /// Per node: the next node of its list, and its item.
    next: Vec<u32>,
    item: Vec<u32>,
    /// Slots whose list is not empty, to empty them all without walking every slot.
    touched: Vec<u32>,
}

impl SlotLists {
    pub fn new(slots: u32) -> SlotLists {
        SlotLists {
            head: vec![NIL; slots as usize],
            next: Vec::new(),
            item: Vec::new(),
            touched: Vec::new(),
        }
    }

    /// Room for `nodes` entries in all (a pass that knows how many it may push grows the
    /// pool once, not by doubling from nothing on every run).
    pub fn reserve(&mut self, nodes: usize) {
        self.next.reserve(nodes);
        self.item.reserve(nodes);
    }

    /// Adds `item` to the list of `slot`.
    pub fn push(&mut self, slot: u32, item: u32) {
        let h = &mut self.head[slot as usize];
        if *h == NIL {
            self.touched.push(slot);
        }
        self.next.push(*h);
        self.item.push(item);
        *h = self.item.len() as u32 - 1;
    }

    /// The items of the list of `slot`, newest first.
    pub fn iter(&self, slot: u32) -> impl Iterator<Item = u32> + '_ {
        let mut n = self.head.get(slot as usize).copied().unwrap_or(NIL);
        std::iter::from_fn(move || {
            (n != NIL).then(|| {
                let item = self.item[n as usize];
                n = self.next[n as usize];
                item
            })
        })
    }

    /// Calls `f` with every item of the list of `slot` and empties it.
    pub fn drain(&mut self, slot: u32, mut f: impl FnMut(u32)) {
        let mut n = std::mem::replace(&mut self.head[slot as usize], NIL);
        while n != NIL {
            f(self.item[n as usize]);
            n = self.next[n as usize];
        }
    }

    /// Empties every list.
    pub fn clear(&mut self) {
        for s in self.touched.drain(..) {
            self.head[s as usize] = NIL;
        }
        self.next.clear();
        self.item.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_drain_and_clear() {
        let mut l = SlotLists::new(4);
        l.push(1, 10);
        l.push(1, 11);
        l.push(3, 12);
        assert_eq!(l.iter(1).collect::<Vec<_>>(), vec![11, 10]);
        let mut got = Vec::new();
        l.drain(1, |i| got.push(i));
        got.sort();
        assert_eq!(got, vec![10, 11]);
        l.drain(1, |_| panic!("drained twice"));
        l.clear();
        l.drain(3, |_| panic!("cleared"));
        l.push(3, 13);
        l.drain(3, |i| assert_eq!(i, 13));
    }
}
