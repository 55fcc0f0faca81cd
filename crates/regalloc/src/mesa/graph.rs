//! The interference graph util/register_allocate.c colours, as flat arrays: per node its
//! class and forced register (`ra_set_node_reg`), and the adjacency in compressed rows
//! (each edge once per direction, as Mesa's adjacency bit matrix keeps an edge once; a row
//! in the order its edges were added, as nothing depends on the order: every use of a row
//! is a sum, a union or a test for one node).
//!
//! Edges come from [`Builder::interfere`] (pairs Mesa adds per instruction or per payload
//! register) and [`Builder::interfere_intervals`], Mesa's live-range test
//! (`setup_live_interference`: two values interfere unless one ends at or before the
//! other starts, `end <= start`, so a value may take the register of a source its defining
//! instruction reads last) done as a sweep over intervals sorted by start: n·log n plus the
//! edges, never all pairs. Each edge is listed once (the sweep's pairs are unique, those to
//! payload and other forced nodes are by construction, and the rest are checked against the
//! sweep's ranges and among themselves: see [`Builder`]), and the rows
//! are built at the end by one count of the degrees and one scatter, with no
//! deduplication pass over the rows; the builder keeps its lists
//! for the next graph, so a rebuild (another scheduling mode, the rebuild once spilling
//! begins) allocates no edge list again.
//!
//! Q totals are kept per node ([`Graph::weigh`], [`Graph::remove`]), for simplify's start
//! and the spill choice.
//!
//! A spilled node loses its edges ([`Graph::remove`], Mesa's `ra_reset_node_interference`)
//! but stays a node: the rows are kept and edges to removed nodes skipped, so the graph is
//! built once per layout, not once per spill. What spilling adds (Mesa's temporaries, see
//! [`super::temps`]) comes as nodes and edges appended to the built graph
//! ([`Graph::add_node`], [`Graph::add_edge`]): the added edges are linked lists in flat
//! arrays (a head per node, a next per edge, the two directions of an edge side by side),
//! so adding allocates nothing per node. An edge added to a node already removed stays
//! (Mesa adds a later temporary's interference to a spilled node too).

use super::classes::Classes;

/// A node with no forced register.
pub const NO_REG: u32 = u32::MAX;

pub struct Graph {
    /// Per node: its class ([`super::classes::Classes`]).
    pub class: Vec<u32>,
    /// Per node: the register it is forced to, or [`NO_REG`].
    pub forced: Vec<u32>,
    /// Node `n`'s neighbours are `adj[row[n]..row[n + 1]]`.
    row: Vec<u32>,
    adj: Vec<u32>,
    /// Per node: whether its edges are gone.
    removed: Vec<bool>,
    /// Per node: the sum of `q(own class, neighbour's class)` over its neighbours (Mesa's
    /// `q_total`), once [`Graph::weigh`] has computed it; kept as nodes and edges change.
    pub q_total: Vec<u32>,
    /// Added edges: per node the first ([`NONE`]: none), per edge the next of its node,
    /// where it goes, and whether it was removed. Edge `e` and `e ^ 1` are one edge's two
    /// directions.
    head: Vec<u32>,
    next: Vec<u32>,
    to: Vec<u32>,
    dead: Vec<bool>,
    /// Whether a node was removed or an edge added since the rows were last made
    /// ([`Builder::finish`], [`Graph::compact`]): until then the rows are the whole graph
    /// and [`Graph::rows`] hands them out.
    dirty: bool,
}

/// No added edge.
const NONE: u32 = u32::MAX;

/// The added edges of one node, alive ones only.
struct Added<'a> {
    g: &'a Graph,
    e: u32,
}

impl Iterator for Added<'_> {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        while self.e != NONE {
            let e = self.e as usize;
            self.e = self.g.next[e];
            if !self.g.dead[e] {
                return Some(self.g.to[e]);
            }
        }
        None
    }
}

impl Graph {
    pub fn len(&self) -> usize {
        self.class.len()
    }

    pub fn is_empty(&self) -> bool {
        self.class.is_empty()
    }

    /// The nodes `n` interferes with.
    pub fn neighbours(&self, n: u32) -> impl Iterator<Item = u32> + '_ {
        let row = if self.removed[n as usize] {
            &[][..]
        } else {
            &self.adj[self.row[n as usize] as usize..self.row[n as usize + 1] as usize]
        };
        let added = Added {
            g: self,
            e: self.head[n as usize],
        };
        row.iter()
            .copied()
            .filter(|&m| !self.removed[m as usize])
            .chain(added)
    }

    /// The adjacency as compressed rows (node `n`'s neighbours `adj[row[n]..row[n + 1]]`),
    /// when they are the whole graph (no node removed, no edge added since they
    /// were made); the colouring's inner loops walk them as plain slices.
    pub fn rows(&self) -> Option<(&[u32], &[u32])> {
        (!self.dirty).then_some((&self.row[..], &self.adj[..]))
    }

    /// The same rows as [`Graph::rows`] for a graph in any state, made afresh (what
    /// [`Graph::compact`] would make) when nodes were removed or edges added.
    pub fn rows_owned(&self) -> (Vec<u32>, Vec<u32>) {
        let n = self.len();
        let mut row = Vec::with_capacity(n + 1);
        let mut adj = Vec::with_capacity(self.adj.len() + self.to.len() / 2);
        for k in 0..n as u32 {
            row.push(adj.len() as u32);
            self.for_each_neighbour(k, |m| adj.push(m));
        }
        row.push(adj.len() as u32);
        (row, adj)
    }

    /// Calls `f` with each node `n` interferes with: [`Graph::neighbours`] as two plain
    /// loops, for the colouring's inner loops.
    #[inline]
    pub fn for_each_neighbour(&self, n: u32, mut f: impl FnMut(u32)) {
        let n = n as usize;
        if !self.removed[n] {
            for &m in &self.adj[self.row[n] as usize..self.row[n + 1] as usize] {
                if !self.removed[m as usize] {
                    f(m);
                }
            }
        }
        let mut e = self.head[n];
        while e != NONE {
            if !self.dead[e as usize] {
                f(self.to[e as usize]);
            }
            e = self.next[e as usize];
        }
    }

    /// Folds the added edges into the rows and drops the removed ones, so the colouring
    /// walks contiguous rows again (linked lists scatter over memory, and removed edges stay
    /// in them): one pass over the edges. The neighbours do not change.
    pub fn compact(&mut self) {
        if !self.dirty {
            // Nothing removed or added: the rows already are the graph.
            return;
        }
        let (row, adj) = self.rows_owned();
        self.row = row;
        self.adj = adj;
        self.removed.iter_mut().for_each(|r| *r = false);
        self.head.iter_mut().for_each(|h| *h = NONE);
        self.next.clear();
        self.to.clear();
        self.dead.clear();
        self.dirty = false;
    }

    /// A new node of `class` with no edges (its q total 0).
    pub fn add_node(&mut self, class: u32) -> u32 {
        let n = self.class.len() as u32;
        self.class.push(class);
        self.forced.push(NO_REG);
        let end = *self.row.last().unwrap_or(&0);
        self.row.push(end);
        self.removed.push(false);
        self.q_total.push(0);
        self.head.push(NONE);
        n
    }

    /// Makes `a` and `b` interfere, if they are distinct and do not already (Mesa's
    /// `ra_add_node_interference`); their q totals grow.
    pub fn add_edge(&mut self, a: u32, b: u32, cl: &Classes) {
        if a == b || self.neighbours(a).any(|m| m == b) {
            return;
        }
        self.dirty = true;
        for (x, y) in [(a, b), (b, a)] {
            self.to.push(y);
            self.next.push(self.head[x as usize]);
            self.dead.push(false);
            self.head[x as usize] = self.to.len() as u32 - 1;
            self.q_total[x as usize] += cl.q(
                self.class[x as usize] as usize,
                self.class[y as usize] as usize,
            );
        }
    }

    /// Computes every node's q total over its neighbours.
    pub fn weigh(&mut self, cl: &Classes) {
        let mut q_total = std::mem::take(&mut self.q_total);
        q_total.clear();
        if let Some((row, adj)) = self.rows() {
            // The usual case (weighed right after building): plain rows, no filter.
            let class = &self.class;
            q_total.extend(class.iter().zip(row.windows(2)).map(|(&c, r)| {
                let q = cl.q_row(c as usize);
                adj[r[0] as usize..r[1] as usize]
                    .iter()
                    .map(|&m| q[class[m as usize] as usize])
                    .sum::<u32>()
            }));
        } else {
            for n in 0..self.len() as u32 {
                let c = self.class[n as usize] as usize;
                let mut sum = 0;
                self.for_each_neighbour(n, |m| sum += cl.q(c, self.class[m as usize] as usize));
                q_total.push(sum);
            }
        }
        self.q_total = q_total;
    }

    /// Takes every edge of `n` away (its neighbours' q totals lose it, as
    /// `ra_node_remove_adjacency` does); `n` stays a node of its class.
    pub fn remove(&mut self, n: u32, cl: &Classes) {
        let c = self.class[n as usize] as usize;
        let (lo, hi) = (
            self.row[n as usize] as usize,
            self.row[n as usize + 1] as usize,
        );
        for k in lo..hi {
            let m = self.adj[k] as usize;
            if !self.removed[m] && !self.removed[n as usize] {
                self.q_total[m] -= cl.q(self.class[m] as usize, c);
            }
        }
        let mut e = self.head[n as usize];
        while e != NONE {
            if !self.dead[e as usize] {
                let m = self.to[e as usize] as usize;
                self.dead[e as usize] = true;
                self.dead[e as usize ^ 1] = true;
                self.q_total[m] -= cl.q(self.class[m] as usize, c);
            }
            e = self.next[e as usize];
        }
        self.removed[n as usize] = true;
        self.q_total[n as usize] = 0;
        self.dirty = true;
    }
}

/// Collects nodes and edges, then makes the [`Graph`]; kept from one graph to the next, its
/// lists keep their storage.
///
/// The edges come unique, so the rows need no deduplication pass over every entry: the
/// sweep of [`Builder::interfere_intervals`] lists each overlapping pair once,
/// [`Builder::interfere_new`]'s pairs are unique by the caller's construction, and an
/// [`Builder::interfere`] pair is dropped when the sweep lists it (both nodes in it,
/// ranges overlapping: known from the ranges kept per node), its repeats in
/// [`Builder::finish`] (such pairs are few: [`Constraints::apart`]'s).
///
/// [`Constraints::apart`]: crate::constraints::Constraints::apart
#[derive(Default)]
pub struct Builder {
    class: Vec<u32>,
    forced: Vec<u32>,
    /// The edges known to be unique: the sweep's and [`Builder::interfere_new`]'s, each once
    /// (either direction).
    edges: Vec<(u32, u32)>,
    /// [`Builder::interfere`]'s edges not the sweep's, as `low << 32 | high` node numbers,
    /// repeats possible.
    extra: Vec<u64>,
    /// Per node: its live range in the sweep, or [`NO_RANGE`] (not in it).
    range: Vec<(u32, u32)>,
    /// [`Builder::finish`]'s scratch: per node where the next entry of its row goes.
    fill: Vec<u32>,
    /// [`Builder::interfere_intervals`]'s scratch: the order by start, the ranges open.
    order: Vec<u32>,
    active: Vec<(u32, u32, u32)>,
    /// The rows of the last graph handed back ([`Builder::recycle`]), for the next one's:
    /// a large shader's rows are megabytes, allocated afresh (and zeroed by the system)
    /// for every graph otherwise.
    spare_row: Vec<u32>,
    spare_adj: Vec<u32>,
}

/// A node outside the sweep: a range that overlaps none (it ends at 0, before any start).
const NO_RANGE: (u32, u32) = (u32::MAX, 0);

/// Mesa's live-range test: `a` and `b` interfere unless one ends at or before the other
/// starts.
fn overlap(a: (u32, u32), b: (u32, u32)) -> bool {
    !(a.1 <= b.0 || b.1 <= a.0)
}

impl Builder {
    /// Forgets the nodes and edges (the storage stays) and makes room for `nodes` nodes and
    /// `edges` edges, for the next graph: growing the edge list by doubling copied it a
    /// dozen times on a large shader.
    pub fn reset(&mut self, nodes: usize, edges: usize) {
        self.class.clear();
        self.forced.clear();
        self.edges.clear();
        self.extra.clear();
        self.range.clear();
        self.class.reserve(nodes);
        self.forced.reserve(nodes);
        self.range.reserve(nodes);
        self.edges.reserve(edges);
    }

    pub fn node(&mut self, class: u32) -> u32 {
        self.class.push(class);
        self.forced.push(NO_REG);
        self.range.push(NO_RANGE);
        self.class.len() as u32 - 1
    }

    pub fn force(&mut self, n: u32, reg: u32) {
        self.forced[n as usize] = reg;
    }

    pub fn forced(&self, n: u32) -> u32 {
        self.forced[n as usize]
    }

    /// Makes `a` and `b` interfere (nothing if `a == b`; a pair given again, or one the
    /// sweep gives, is one edge).
    pub fn interfere(&mut self, a: u32, b: u32) {
        if a == b || overlap(self.range[a as usize], self.range[b as usize]) {
            // (Overlapping ranges: the sweep's edge.)
            return;
        }
        let (lo, hi) = (a.min(b) as u64, a.max(b) as u64);
        self.extra.push(lo << 32 | hi);
    }

    /// Makes `a` and `b` interfere, a pair the caller knows is listed no other way (by the
    /// sweep, [`Builder::interfere`] or another call): it goes straight to the rows, with
    /// no check. The graph's edges to payload, MRF-hack, header, g127 and reserved-register
    /// nodes, one per pair by construction, are most of those not from the sweep.
    pub fn interfere_new(&mut self, a: u32, b: u32) {
        debug_assert!(a != b && !overlap(self.range[a as usize], self.range[b as usize]));
        self.edges.push((a, b));
    }

    /// Edges between the `nodes` whose live ranges (`(start, end)` per node, same order)
    /// overlap by Mesa's test: `a` and `b` interfere unless `a.end <= b.start` or
    /// `b.end <= a.start`. Called once per graph, with distinct nodes, before any
    /// [`Builder::interfere`] (which knows the sweep's pairs by the ranges kept here).
    pub fn interfere_intervals(&mut self, nodes: &[u32], live: &[(u32, u32)]) {
        debug_assert!(self.extra.is_empty() && self.edges.is_empty());
        for (&n, &r) in nodes.iter().zip(live) {
            debug_assert_eq!(self.range[n as usize], NO_RANGE);
            self.range[n as usize] = r;
        }
        let order = &mut self.order;
        order.clear();
        order.extend(0..nodes.len() as u32);
        order.sort_unstable_by_key(|&k| (live[k as usize].0, k));
        // Ranges that started and have not ended, (start, end, node) each: only they can
        // meet later ones.
        let active = &mut self.active;
        active.clear();
        let edges = &mut self.edges;
        for &k in order.iter() {
            let (start, end) = live[k as usize];
            let nk = nodes[k as usize];
            // One walk over the open ranges: a range ending at or before this start meets
            // no later range either and goes; one that stays started at or before `start`
            // and ends after it, so they overlap unless this range ends at or before its
            // start.
            active.retain(|&(s, e, n)| {
                if e <= start {
                    return false;
                }
                if s < end {
                    edges.push((nk, n));
                }
                true
            });
            if end > start {
                active.push((start, end, nk));
            }
        }
    }

    /// Takes back the storage of a graph it built and that is done with, for the next one.
    pub fn recycle(&mut self, g: Graph) {
        self.spare_row = g.row;
        self.spare_adj = g.adj;
    }

    /// Moves the [`Builder::interfere`] edges to the others, their repeats dropped (sorted,
    /// so that repeats are side by side: they are few).
    fn dedup_extra(&mut self) {
        self.extra.sort_unstable();
        self.extra.dedup();
        let pairs = self.extra.iter().map(|&e| ((e >> 32) as u32, e as u32));
        self.edges.extend(pairs);
        self.extra.clear();
    }

    /// The graph of the nodes and edges added (q totals 0 until [`Graph::weigh`]); the
    /// builder is left empty for the next one.
    pub fn finish(&mut self) -> Graph {
        let n = self.class.len();
        self.dedup_extra();
        // One count of the degrees (each edge is listed once and goes in both directions),
        // one scatter of the edges into the rows, in the order they were added: the edges
        // are unique (see [`Builder`]), so the rows are sets as they are. Nothing reads the
        // rows in an order that matters (simplify's updates, select's masks, the q totals
        // and the spill choice are the same in any order, temps' tests are membership
        // tests), so they are not sorted.
        let mut row = std::mem::take(&mut self.spare_row);
        row.clear();
        row.resize(n + 1, 0);
        for &(a, b) in &self.edges {
            row[a as usize + 1] += 1;
            row[b as usize + 1] += 1;
        }
        for k in 0..n {
            row[k + 1] += row[k];
        }
        let total = row[n] as usize;
        let fill = &mut self.fill;
        fill.clear();
        fill.extend_from_slice(&row[..n]);
        let mut adj = std::mem::take(&mut self.spare_adj);
        adj.clear();
        adj.resize(total, 0);
        for &(a, b) in &self.edges {
            adj[fill[a as usize] as usize] = b;
            fill[a as usize] += 1;
            adj[fill[b as usize] as usize] = a;
            fill[b as usize] += 1;
        }
        self.edges.clear();
        self.extra.clear();
        self.range.clear();
        Graph {
            removed: vec![false; n],
            q_total: vec![0; n],
            head: vec![NONE; n],
            next: Vec::new(),
            to: Vec::new(),
            dead: Vec::new(),
            dirty: false,
            class: std::mem::take(&mut self.class),
            forced: std::mem::take(&mut self.forced),
            row,
            adj,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// All-pairs reference for Mesa's live-range test.
    fn overlap(a: (u32, u32), b: (u32, u32)) -> bool {
        !(a.1 <= b.0 || b.1 <= a.0)
    }

    #[test]
    fn sweep_matches_all_pairs_and_rows_are_sets() {
        // Ranges touching at an end do not interfere (a value may take the register of
        // a source its defining instruction reads last); one-point ranges meet only
        // ranges strictly around them.
        let live = [
            (0, 4),
            (4, 6),
            (2, 3),
            (3, 3),
            (1, 8),
            (5, 5),
            (6, 9),
            (0, 0),
        ];
        let mut b = Builder::default();
        let nodes: Vec<u32> = live.iter().map(|_| b.node(0)).collect();
        b.interfere_intervals(&nodes, &live);
        // A duplicate of an interval edge, and a self edge, are dropped.
        b.interfere(0, 2);
        b.interfere(3, 3);
        let g = b.finish();
        let mut g = g;
        // (Rows are in no particular order: compared as sets.)
        let row = |g: &Graph, n: u32| {
            let mut r = g.neighbours(n).collect::<Vec<u32>>();
            r.sort_unstable();
            r
        };
        for x in 0..live.len() {
            let want: Vec<u32> = (0..live.len() as u32)
                .filter(|&y| y as usize != x && overlap(live[x], live[y as usize]))
                .collect();
            assert_eq!(row(&g, x as u32), want, "node {x}");
        }
        assert!(!row(&g, 0).contains(&1));
        assert_eq!(row(&g, 3), vec![0, 4]);
        // Q totals (one class of one register: q = 1) are degrees; removing node 0 takes
        // its edges from both ends and its weight from its neighbours.
        let cl = Classes::new(16, 1);
        g.weigh(&cl);
        assert_eq!(g.q_total[3], 2);
        g.remove(0, &cl);
        assert!(row(&g, 0).is_empty());
        assert_eq!(row(&g, 3), vec![4]);
        assert_eq!(g.q_total[3], 1);
        assert_eq!(g.q_total[0], 0);
        // An added node and edges: to the removed node 0 (it stays), to 3 (once however
        // often it is added), and 3-4 already there.
        let t = g.add_node(0);
        g.add_edge(t, 0, &cl);
        g.add_edge(t, 3, &cl);
        g.add_edge(3, t, &cl);
        g.add_edge(3, 4, &cl);
        assert_eq!(row(&g, t), vec![0, 3]);
        assert_eq!(row(&g, 0), vec![t]);
        assert_eq!(row(&g, 3), vec![4, t]);
        assert_eq!((g.q_total[t as usize], g.q_total[3]), (2, 2));
        // Removing 3 takes its added edge too.
        g.remove(3, &cl);
        assert_eq!(row(&g, t), vec![0]);
        assert_eq!(g.q_total[t as usize], 1);
        // Compacting keeps every node's neighbours; removing after it still works.
        let before: Vec<Vec<u32>> = (0..g.len() as u32).map(|n| row(&g, n)).collect();
        g.compact();
        let after: Vec<Vec<u32>> = (0..g.len() as u32).map(|n| row(&g, n)).collect();
        assert_eq!(before, after);
        g.remove(t, &cl);
        assert!(row(&g, 0).is_empty());
        assert_eq!(g.q_total[0], 0);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]
        /// Rows hold each neighbour once, whatever repeats and self pairs were added (and
        /// with pairs given as unique), whichever builder storage a previous graph left, and
        /// the sweep's edges are the all-pairs overlaps.
        #[test]
        fn rows_are_the_neighbour_sets(
            nodes in 1usize..80,
            pairs in proptest::collection::vec((0u16..80, 0u16..80), 0..400),
            live in proptest::collection::vec((0u32..40, 0u32..12), 0..80),
            before in 0usize..30,
        ) {
            use std::collections::BTreeSet;
            let mut b = Builder::default();
            // A graph built first, so the second reuses the storage.
            for _ in 0..before {
                b.node(0);
            }
            for k in 1..before as u32 {
                b.interfere(k - 1, k);
            }
            b.finish();
            for _ in 0..nodes {
                b.node(0);
            }
            let live: Vec<(u32, u32)> =
                live.iter().take(nodes).map(|&(s, len)| (s, s + len)).collect();
            let ids: Vec<u32> = (0..live.len() as u32).collect();
            b.interfere_intervals(&ids, &live);
            let mut want = vec![BTreeSet::new(); nodes];
            for (x, &lx) in live.iter().enumerate() {
                for (y, &ly) in live.iter().enumerate() {
                    if x != y && overlap(lx, ly) {
                        want[x].insert(y as u32);
                    }
                }
            }
            for &(x, y) in &pairs {
                let (x, y) = (x as u32 % nodes as u32, y as u32 % nodes as u32);
                b.interfere(x, y);
                if x != y {
                    want[x as usize].insert(y);
                    want[y as usize].insert(x);
                }
            }
            // Two nodes outside the sweep, as the payload and forced nodes are, with edges
            // unique by construction.
            let (e0, e1) = (b.node(0), b.node(0));
            want.resize(nodes + 2, BTreeSet::new());
            let unique = (0..nodes as u32)
                .step_by(2)
                .map(|y| (e0, y))
                .chain([(e1, e0)])
                .chain((1..nodes as u32).step_by(3).map(|y| (y, e1)));
            for (x, y) in unique {
                b.interfere_new(x, y);
                want[x as usize].insert(y);
                want[y as usize].insert(x);
            }
            let g = b.finish();
            proptest::prop_assert_eq!(g.len(), nodes + 2);
            for (n, want) in want.iter().enumerate() {
                let got: Vec<u32> = g.neighbours(n as u32).collect();
                let set: BTreeSet<u32> = got.iter().copied().collect();
                proptest::prop_assert_eq!(got.len(), set.len(), "node {} has a repeat", n);
                proptest::prop_assert_eq!(&set, want);
            }
        }
    }
}
