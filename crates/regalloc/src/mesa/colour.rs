//! util/register_allocate.c's colouring (Mesa 22.3, `ra_allocate`): simplify, then select.
//!
//! Simplify (`ra_simplify`) pushes every node without a forced register on a stack. A node
//! is trivially colourable when its q total — the sum of `q(own class, neighbour's class)`
//! over neighbours not yet pushed — is below `p` of its class (Runeson/Nyström); those go
//! first, otherwise the node of lowest q total is pushed optimistically (Briggs), and the
//! first optimistic push is remembered. The order is Mesa's exactly, as its word-at-a-time
//! scan makes it: nodes in 32-bit words from the highest word down, in a word from the
//! highest bit down; trivially colourable nodes of a word are pushed in one pass, and when a
//! pass pushes nothing the lowest q total wins, ties to the highest node number.
//!
//! Select (`ra_select`) pops the stack and gives each node the lowest start of its class
//! that overlaps no coloured neighbour, searching from a rotating start (round robin, which
//! `brw_alloc_reg_set` turns on for gen6+): the start moves past each register chosen for
//! the nodes from the one just above the first optimistic push down, and stays while nodes
//! pushed later are coloured (packing them densely makes them more likely to colour). When
//! a node finds no register, colouring fails, the node and those below it in the stack left
//! uncoloured, as [`Failure`] says, for the spill choice.
//!
//! Data: bit sets as words, a q total per node (beside its `p`, class and whether it is
//! gone, so that a push's update of a neighbour reads one place), and a bit per word saying
//! whether it has a trivially colourable node left: a pass visits only those words, in
//! Mesa's order, instead of every word (the others push nothing in Mesa's pass either),
//! and the optimistic choice scans the words' minima only when no word has one. Rows are
//! walked as plain slices. One u128 of ruled-out starts per popped node (its neighbours'
//! registers, O(degree)) instead of Mesa's register-by-register test (same answer: the
//! lowest start from the rotating point that no neighbour rules out). The tests check the
//! order against a word-by-word rendering of Mesa's scan on random graphs.

use super::classes::{range_mask, Classes};
use super::graph::{Graph, NO_REG};

const WORD: usize = 32;

/// Why colouring stopped: the node that found no register, and which nodes are still on
/// the stack (uncoloured, bit per node) — those `ra_get_best_spill_node` passes over.
#[derive(Debug)]
pub struct Failure {
    pub node: u32,
    pub in_stack: Vec<u32>,
    /// Per node: its register so far ([`NO_REG`] for the uncoloured).
    pub reg: Vec<u32>,
}

impl Failure {
    pub fn in_stack(&self, n: u32) -> bool {
        self.in_stack[n as usize / WORD] & (1 << (n as usize % WORD)) != 0
    }
}

/// The register of every node (forced or chosen), or why not.
pub fn colour(g: &Graph, cl: &Classes, round_robin: bool, regs: u32) -> Result<Vec<u32>, Failure> {
    // The rows as plain slices; a graph with removed nodes or added edges not yet compacted
    // (the allocator compacts before colouring) gets its rows made here.
    let owned;
    let (row, adj) = match g.rows() {
        Some(rows) => rows,
        None => {
            owned = g.rows_owned();
            (&owned.0[..], &owned.1[..])
        }
    };
    let s = simplify(g, row, adj, cl);
    select(g, row, adj, s, round_robin, regs)
}

/// The stack simplify leaves.
struct Stack {
    nodes: Vec<u32>,
    in_stack: Vec<u32>,
    /// Where the first optimistic push went (`u32::MAX`: none).
    optimistic_start: u32,
}

/// Simplify's state of one node, side by side so that a neighbour's update reads one
/// place: its q total over neighbours not gone, its class's `p`, its class, and whether it
/// is gone (pushed or forced: the neighbours a push no longer weighs on).
#[derive(Clone, Copy)]
struct NodeState {
    q: u32,
    p: u32,
    class: u32,
    gone: bool,
}

/// Simplify's state of one word of 32 nodes, Mesa's bit sets: the nodes known trivially
/// colourable, the nodes gone, and the lowest q total of the nodes not gone with its node
/// (`u32::MAX`: not known; ties to the higher node).
#[derive(Clone, Copy)]
struct WordState {
    pq: u32,
    gone: u32,
    min_q: u32,
    min_node: u32,
}

/// Simplify's state: Mesa's per-node q totals and per-word bit sets, and which words have
/// a trivially colourable node not gone (bit per word), so that a pass visits only those
/// words instead of every word.
struct Simplify<'a> {
    cl: &'a Classes,
    row: &'a [u32],
    adj: &'a [u32],
    nodes: Vec<NodeState>,
    words: Vec<WordState>,
    pending: Vec<u64>,
    /// Nodes on the stack.
    in_stack: Vec<u32>,
    stack: Vec<u32>,
}

impl Simplify<'_> {
    /// add_node_to_stack: neighbours not gone lose this node's q, and update_pq_info marks
    /// each trivially colourable or keeps its word's minimum when it is known (ties to the
    /// higher node).
    fn push(&mut self, k: usize) {
        let column = self.cl.q_column(self.nodes[k].class as usize);
        for &m in &self.adj[self.row[k] as usize..self.row[k + 1] as usize] {
            let m = m as usize;
            let node = &mut self.nodes[m];
            if node.gone {
                continue;
            }
            node.q -= column[node.class as usize];
            let (q, p) = (node.q, node.p);
            let w = m / WORD;
            let word = &mut self.words[w];
            if q < p {
                word.pq |= 1 << (m % WORD);
                self.pending[w / 64] |= 1 << (w % 64);
            } else if word.min_q != u32::MAX
                && (q < word.min_q || (q == word.min_q && m as u32 > word.min_node))
            {
                word.min_q = q;
                word.min_node = m as u32;
            }
        }
        self.stack.push(k as u32);
        self.in_stack[k / WORD] |= 1 << (k % WORD);
        self.nodes[k].gone = true;
        let word = &mut self.words[k / WORD];
        word.gone |= 1 << (k % WORD);
        word.min_q = u32::MAX;
    }

    /// The highest word below `end` with a trivially colourable node not gone.
    fn highest_pending_below(&self, end: usize) -> Option<usize> {
        let last = end.checked_sub(1)?;
        let mut i = last / 64;
        let mut bits = self.pending[i] & (u64::MAX >> (63 - last % 64));
        loop {
            if bits != 0 {
                return Some(i * 64 + 63 - bits.leading_zeros() as usize);
            }
            i = i.checked_sub(1)?;
            bits = self.pending[i];
        }
    }

    /// Brings word `w`'s bit of [`Simplify::pending`] up to date.
    fn settle(&mut self, w: usize) {
        let word = self.words[w];
        if word.pq & !word.gone != 0 {
            self.pending[w / 64] |= 1 << (w % 64);
        } else {
            self.pending[w / 64] &= !(1 << (w % 64));
        }
    }
}

fn simplify(g: &Graph, row: &[u32], adj: &[u32], cl: &Classes) -> Stack {
    let n = g.len();
    let words = n.div_ceil(WORD);
    if n == 0 {
        return Stack {
            nodes: Vec::new(),
            in_stack: Vec::new(),
            optimistic_start: u32::MAX,
        };
    }
    let mut s = Simplify {
        cl,
        row,
        adj,
        // ra_add_node_adjacency's q totals, over every neighbour; forced nodes are gone
        // from the start.
        nodes: (0..n)
            .map(|k| NodeState {
                q: g.q_total[k],
                p: cl.p(g.class[k] as usize),
                class: g.class[k],
                gone: g.forced[k] != NO_REG,
            })
            .collect(),
        words: vec![
            WordState {
                pq: 0,
                gone: 0,
                min_q: u32::MAX,
                min_node: u32::MAX,
            };
            words
        ],
        pending: vec![0; words.div_ceil(64)],
        in_stack: vec![0; words],
        stack: Vec::with_capacity(n),
    };
    // Mesa's first update_pq_info of every node: the minima are not known yet, so only
    // the trivially colourable are marked (forced ones too, masked by `gone`).
    for (k, node) in s.nodes.iter().enumerate() {
        let word = &mut s.words[k / WORD];
        if node.gone {
            word.gone |= 1 << (k % WORD);
        }
        if node.q < node.p {
            word.pq |= 1 << (k % WORD);
        }
    }
    for w in 0..words {
        s.settle(w);
    }
    let mut optimistic_start = u32::MAX;
    let top_high_bit = (n - 1) % WORD;
    let word_mask = |w: usize| {
        if w == words - 1 {
            u32::MAX >> (WORD - 1 - top_high_bit)
        } else {
            u32::MAX
        }
    };
    loop {
        if s.highest_pending_below(words).is_some() {
            // One of Mesa's passes that makes progress: every word from the top down, the
            // trivially colourable nodes of a word pushed from its highest bit down.
            // Pushing may make more of this word colourable; the bits already passed wait
            // for the next pass, as in Mesa (`skip` is the word's gone set as the pass
            // came to it), and so do words above. A word with none pushes nothing in
            // Mesa's pass either, so only the words with one are visited.
            let mut end = words;
            while let Some(w) = s.highest_pending_below(end) {
                end = w;
                let skip = s.words[w].gone;
                let mut ahead = u32::MAX;
                loop {
                    let pq = s.words[w].pq & !skip & ahead;
                    if pq == 0 {
                        break;
                    }
                    let j = WORD - 1 - pq.leading_zeros() as usize;
                    s.push(w * WORD + j);
                    ahead = (1u32 << j) - 1;
                }
                s.settle(w);
            }
            continue;
        }
        // A pass that pushes nothing: the lowest q total of the nodes not gone (the words'
        // minima, made again where a push made them unknown), ties to the highest node,
        // goes optimistically. No node is trivially colourable here, so every known
        // minimum is exact.
        let (mut best_q, mut best_node) = (u32::MAX, u32::MAX);
        for w in (0..words).rev() {
            let mask = word_mask(w);
            let skip = s.words[w].gone;
            if skip == mask {
                continue;
            }
            if s.words[w].min_q == u32::MAX {
                let (mut min_q, mut min_node) = (u32::MAX, u32::MAX);
                let mut left = mask & !skip;
                while left != 0 {
                    let j = WORD - 1 - left.leading_zeros() as usize;
                    left &= !(1 << j);
                    let k = w * WORD + j;
                    if s.nodes[k].q < min_q {
                        min_q = s.nodes[k].q;
                        min_node = k as u32;
                    }
                }
                s.words[w].min_q = min_q;
                s.words[w].min_node = min_node;
            }
            if s.words[w].min_q < best_q {
                best_q = s.words[w].min_q;
                best_node = s.words[w].min_node;
            }
        }
        if best_q == u32::MAX {
            break;
        }
        if optimistic_start == u32::MAX {
            optimistic_start = s.stack.len() as u32;
        }
        s.push(best_node as usize);
    }
    Stack {
        nodes: s.stack,
        in_stack: s.in_stack,
        optimistic_start,
    }
}

fn select(
    g: &Graph,
    row: &[u32],
    adj: &[u32],
    mut s: Stack,
    round_robin: bool,
    regs: u32,
) -> Result<Vec<u32>, Failure> {
    let mut reg = g.forced.clone();
    let mut start_search = 0u32;
    let file = range_mask(0, regs);
    while let Some(&k) = s.nodes.last() {
        let k = k as usize;
        s.in_stack[k / WORD] &= !(1 << (k % WORD));
        let len = Classes::len(g.class[k] as usize);
        // Starts of the class that no coloured (or forced) neighbour rules out.
        let mut free = if len > regs {
            0
        } else {
            range_mask(0, regs - len + 1)
        };
        // A neighbour still on the stack has no register yet (forced nodes never go on
        // it), so a register is all that says the neighbour rules starts out.
        for &m in &adj[row[k] as usize..row[k + 1] as usize] {
            let r = reg[m as usize];
            if r != NO_REG {
                let other = Classes::len(g.class[m as usize] as usize);
                free &= !range_mask((r + 1).saturating_sub(len), r + other);
            }
        }
        free &= file;
        // The lowest free start at or after the search point, else the lowest one.
        let from = free & !range_mask(0, start_search.min(128));
        let pick = if from != 0 { from } else { free };
        if pick == 0 {
            return Err(Failure {
                node: k as u32,
                in_stack: s.in_stack,
                reg,
            });
        }
        let r = pick.trailing_zeros();
        reg[k] = r;
        s.nodes.pop();
        // stack_count - 1 <= stack_optimistic_start, in Mesa's unsigned arithmetic.
        if round_robin && (s.nodes.len() as u32).wrapping_sub(1) <= s.optimistic_start {
            start_search = r + 1;
        }
    }
    Ok(reg)
}

#[cfg(test)]
mod tests {
    use super::super::graph::Builder;
    use super::*;

    /// A graph of single-register nodes with `edges`.
    fn graph(nodes: usize, edges: &[(u32, u32)]) -> Graph {
        let mut b = Builder::default();
        for _ in 0..nodes {
            b.node(0);
        }
        for &(x, y) in edges {
            b.interfere(x, y);
        }
        let mut g = b.finish();
        g.weigh(&Classes::new(2, 1));
        g
    }

    /// Mesa's scan word by word, as this module did it before the pending words (every
    /// word visited on every pass): the reference the faster simplify must agree with.
    fn reference_simplify(g: &Graph, cl: &Classes) -> (Vec<u32>, u32) {
        let bit = |set: &[u32], n: usize| set[n / WORD] & (1 << (n % WORD)) != 0;
        let n = g.len();
        let words = n.div_ceil(WORD);
        if n == 0 {
            return (Vec::new(), u32::MAX);
        }
        let mut q_total = g.q_total.clone();
        let mut gone = vec![0u32; words];
        let mut pq_test = vec![0u32; words];
        let mut min_q_total = vec![u32::MAX; words];
        let mut min_q_node = vec![u32::MAX; words];
        let mut stack = Vec::new();
        let update = |k: usize,
                      q_total: &[u32],
                      pq_test: &mut [u32],
                      min_q_total: &mut [u32],
                      min_q_node: &mut [u32]| {
            let w = k / WORD;
            let q = q_total[k];
            if q < cl.p(g.class[k] as usize) {
                pq_test[w] |= 1 << (k % WORD);
            } else if min_q_total[w] != u32::MAX
                && (q < min_q_total[w] || (q == min_q_total[w] && k as u32 > min_q_node[w]))
            {
                min_q_total[w] = q;
                min_q_node[w] = k as u32;
            }
        };
        let high_bit = |w: usize| {
            if w == words - 1 {
                (n - 1) % WORD
            } else {
                WORD - 1
            }
        };
        for w in (0..words).rev() {
            for j in (0..=high_bit(w)).rev() {
                let k = w * WORD + j;
                if g.forced[k] != NO_REG {
                    gone[w] |= 1 << j;
                }
                update(k, &q_total, &mut pq_test, &mut min_q_total, &mut min_q_node);
            }
        }
        let mut push = |k: usize,
                        q_total: &mut Vec<u32>,
                        gone: &mut Vec<u32>,
                        pq_test: &mut Vec<u32>,
                        min_q_total: &mut Vec<u32>,
                        min_q_node: &mut Vec<u32>| {
            let ck = g.class[k] as usize;
            g.for_each_neighbour(k as u32, |m| {
                let m = m as usize;
                if !bit(gone, m) {
                    q_total[m] -= cl.q(g.class[m] as usize, ck);
                    update(m, q_total, pq_test, min_q_total, min_q_node);
                }
            });
            stack.push(k as u32);
            gone[k / WORD] |= 1 << (k % WORD);
            min_q_total[k / WORD] = u32::MAX;
        };
        let mut optimistic_start = u32::MAX;
        let mut pushed = 0u32;
        let mut progress = true;
        while progress {
            let (mut best_q, mut best_node) = (u32::MAX, u32::MAX);
            progress = false;
            for w in (0..words).rev() {
                let high = high_bit(w);
                let mask = u32::MAX >> (WORD - 1 - high);
                let skip = gone[w];
                if skip == mask {
                    continue;
                }
                let mut pq = pq_test[w] & !skip;
                if pq != 0 {
                    for j in (0..=high).rev() {
                        if pq & (1 << j) != 0 {
                            push(
                                w * WORD + j,
                                &mut q_total,
                                &mut gone,
                                &mut pq_test,
                                &mut min_q_total,
                                &mut min_q_node,
                            );
                            pushed += 1;
                            pq = pq_test[w] & !skip;
                            progress = true;
                        }
                    }
                } else if !progress {
                    if min_q_total[w] == u32::MAX {
                        for j in (0..=high).rev() {
                            if skip & (1 << j) != 0 {
                                continue;
                            }
                            let k = w * WORD + j;
                            if q_total[k] < min_q_total[w] {
                                min_q_total[w] = q_total[k];
                                min_q_node[w] = k as u32;
                            }
                        }
                    }
                    if min_q_total[w] < best_q {
                        best_q = min_q_total[w];
                        best_node = min_q_node[w];
                    }
                }
            }
            if !progress && best_q != u32::MAX {
                if optimistic_start == u32::MAX {
                    optimistic_start = pushed;
                }
                push(
                    best_node as usize,
                    &mut q_total,
                    &mut gone,
                    &mut pq_test,
                    &mut min_q_total,
                    &mut min_q_node,
                );
                pushed += 1;
                progress = true;
            }
        }
        (stack, optimistic_start)
    }

    /// A random graph: `nodes` nodes of classes `0..classes`, edges from `pairs` (taken
    /// modulo the node count), every `forced_every`-th node forced.
    fn random_graph(
        nodes: usize,
        classes: &[u8],
        pairs: &[(u16, u16)],
        forced_every: usize,
        regs: u32,
        cl: &Classes,
    ) -> Graph {
        let mut b = Builder::default();
        for k in 0..nodes {
            let n = b.node(classes[k % classes.len()] as u32 % cl.count() as u32);
            if forced_every > 0 && k % forced_every == forced_every - 1 {
                b.force(n, k as u32 % regs);
            }
        }
        for &(x, y) in pairs {
            b.interfere(x as u32 % nodes as u32, y as u32 % nodes as u32);
        }
        let mut g = b.finish();
        g.weigh(cl);
        g
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]
        /// The pending-word simplify pushes the same nodes in the same order, with the same
        /// first optimistic push, as the word-by-word scan, on graphs of up to a few words
        /// (dense enough to need optimistic pushes, sparse enough for long trivial runs);
        /// and after removing some nodes and adding others (rows made afresh) too.
        #[test]
        fn simplify_matches_the_word_by_word_scan(
            nodes in 1usize..200,
            classes in proptest::collection::vec(0u8..4, 1..8),
            pairs in proptest::collection::vec((0u16..200, 0u16..200), 0..1500),
            forced_every in 0usize..9,
            regs in 2u32..24,
            removals in proptest::collection::vec(0u16..200, 0..4),
        ) {
            let cl = Classes::new(regs, 4);
            let mut g = random_graph(nodes, &classes, &pairs, forced_every, regs, &cl);
            let (row, adj) = g.rows().unwrap();
            let s = simplify(&g, row, adj, &cl);
            let (want, want_start) = reference_simplify(&g, &cl);
            proptest::prop_assert_eq!(&s.nodes, &want);
            proptest::prop_assert_eq!(s.optimistic_start, want_start);
            // The same graph with nodes removed and one added (not compacted).
            for &r in &removals {
                g.remove(r as u32 % nodes as u32, &cl);
            }
            let t = g.add_node(0);
            for k in (0..nodes as u32).step_by(3) {
                g.add_edge(t, k, &cl);
            }
            proptest::prop_assert!(g.rows().is_none());
            let (row, adj) = g.rows_owned();
            let s = simplify(&g, &row, &adj, &cl);
            let (want, want_start) = reference_simplify(&g, &cl);
            proptest::prop_assert_eq!(&s.nodes, &want);
            proptest::prop_assert_eq!(s.optimistic_start, want_start);
        }
    }

    #[test]
    fn simplify_order_is_mesas() {
        // A path 0-1-2 in a file of 2 registers: q totals 1, 2, 1 against p = 2, so 0 and
        // 2 are trivially colourable and 1 is not. The word is scanned from the highest
        // bit: 2 goes, which makes 1 colourable, and 1 is still ahead in the scan, so it
        // goes next, then 0.
        let g = graph(3, &[(0, 1), (1, 2)]);
        let cl = Classes::new(2, 1);
        let s = simplify(&g, g.rows().unwrap().0, g.rows().unwrap().1, &cl);
        assert_eq!(s.nodes, vec![2, 1, 0]);
        assert_eq!(s.optimistic_start, u32::MAX);
    }

    #[test]
    fn optimistic_push_takes_the_lowest_q_highest_node() {
        // A triangle 0-1-2 plus node 3 joined to 0 and 1, in 2 registers: nothing is
        // trivially colourable at first (q totals 3, 3, 2, 2); the lowest q total is 2,
        // tied between 2 and 3, and the higher node, 3, goes optimistically. Then 2
        // (q 2) still is not; after 3 leaves, 0 and 1 have q 2, 2 has 2: lowest again,
        // highest node 2 goes; then 1 and 0 are trivially colourable.
        let g = graph(4, &[(0, 1), (1, 2), (0, 2), (0, 3), (1, 3)]);
        let cl = Classes::new(2, 1);
        let s = simplify(&g, g.rows().unwrap().0, g.rows().unwrap().1, &cl);
        assert_eq!(s.nodes, vec![3, 2, 1, 0]);
        assert_eq!(s.optimistic_start, 0);
        // A triangle does not colour with 2 registers: select fails at node 2 (popped
        // after 0 and 1 took g0 and g1), leaving 3 on the stack.
        let f = colour(&g, &cl, true, 2).unwrap_err();
        assert_eq!(f.node, 2);
        assert!(f.in_stack(3) && !f.in_stack(0) && !f.in_stack(1) && !f.in_stack(2));
    }

    #[test]
    fn select_rotates_and_respects_forced_and_contiguous_neighbours() {
        // Node 0 forced to g1; node 1 (two registers) and node 2 (one) interfere with it
        // and with each other, in 5 registers. Stack: 2, 1 pushed (both trivially
        // colourable), popped 1 then 2. Node 1 cannot start at g0 or g1 (they would
        // overlap g1): g2-g3. Round robin then searches from g4 for node 2: g4.
        let mut b = Builder::default();
        let f = b.node(0);
        let x = b.node(1);
        let y = b.node(0);
        b.force(f, 1);
        b.interfere(f, x);
        b.interfere(f, y);
        b.interfere(x, y);
        let mut g = b.finish();
        let cl = Classes::new(5, 2);
        g.weigh(&cl);
        assert_eq!(colour(&g, &cl, true, 5).unwrap(), vec![1, 2, 4]);
        // Lowest first without round robin: node 2 takes g0.
        assert_eq!(colour(&g, &cl, false, 5).unwrap(), vec![1, 2, 0]);
    }
}
