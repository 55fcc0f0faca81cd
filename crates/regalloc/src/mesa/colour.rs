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
//! Data: bit sets as words, a q total per node, one u128 of ruled-out starts per popped
//! node (its neighbours' registers, O(degree)) instead of Mesa's register-by-register test
//! (same answer: the lowest start from the rotating point that no neighbour rules out).

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
    let s = simplify(g, cl);
    select(g, s, round_robin, regs)
}

/// The stack simplify leaves.
struct Stack {
    nodes: Vec<u32>,
    in_stack: Vec<u32>,
    /// Where the first optimistic push went (`u32::MAX`: none).
    optimistic_start: u32,
}

fn bit(set: &[u32], n: usize) -> bool {
    set[n / WORD] & (1 << (n % WORD)) != 0
}

/// Simplify's state: Mesa's per-node q totals and its per-word bit sets.
struct Simplify<'a> {
    g: &'a Graph,
    cl: &'a Classes,
    q_total: Vec<u32>,
    /// Nodes on the stack.
    in_stack: Vec<u32>,
    /// Nodes pushed or forced: the neighbours a push no longer weighs on.
    gone: Vec<u32>,
    /// Nodes known trivially colourable.
    pq_test: Vec<u32>,
    /// Per word, the lowest q total of its nodes not gone and the node (`u32::MAX`: not
    /// known).
    min_q_total: Vec<u32>,
    min_q_node: Vec<u32>,
    stack: Vec<u32>,
}

impl Simplify<'_> {
    fn class(&self, k: usize) -> usize {
        self.g.class[k] as usize
    }

    /// update_pq_info: mark trivially colourable, or keep the word's minimum when it is
    /// known (ties to the higher node).
    fn update(&mut self, k: usize) {
        let w = k / WORD;
        let q = self.q_total[k];
        if q < self.cl.p(self.class(k)) {
            self.pq_test[w] |= 1 << (k % WORD);
        } else if self.min_q_total[w] != u32::MAX
            && (q < self.min_q_total[w]
                || (q == self.min_q_total[w] && k as u32 > self.min_q_node[w]))
        {
            self.min_q_total[w] = q;
            self.min_q_node[w] = k as u32;
        }
    }

    /// add_node_to_stack: neighbours not pushed nor forced lose this node's q.
    fn push(&mut self, k: usize) {
        let ck = self.class(k);
        let g = self.g;
        g.for_each_neighbour(k as u32, |m| {
            let m = m as usize;
            if !bit(&self.gone, m) {
                self.q_total[m] -= self.cl.q(self.class(m), ck);
                self.update(m);
            }
        });
        self.stack.push(k as u32);
        self.in_stack[k / WORD] |= 1 << (k % WORD);
        self.gone[k / WORD] |= 1 << (k % WORD);
        self.min_q_total[k / WORD] = u32::MAX;
    }
}

fn simplify(g: &Graph, cl: &Classes) -> Stack {
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
        g,
        cl,
        // ra_add_node_adjacency's q totals, over every neighbour.
        q_total: g.q_total.clone(),
        in_stack: vec![0; words],
        gone: vec![0; words],
        pq_test: vec![0; words],
        min_q_total: vec![u32::MAX; words],
        min_q_node: vec![u32::MAX; words],
        stack: Vec::with_capacity(n),
    };
    let mut optimistic_start = u32::MAX;
    let top_high_bit = (n - 1) % WORD;
    let high_bit = |w: usize| {
        if w == words - 1 {
            top_high_bit
        } else {
            WORD - 1
        }
    };
    for w in (0..words).rev() {
        for j in (0..=high_bit(w)).rev() {
            let k = w * WORD + j;
            if g.forced[k] != NO_REG {
                s.gone[w] |= 1 << j;
            }
            s.update(k);
        }
    }
    let mut progress = true;
    while progress {
        let (mut best_q, mut best_node) = (u32::MAX, u32::MAX);
        progress = false;
        for w in (0..words).rev() {
            let high = high_bit(w);
            let mask = u32::MAX >> (WORD - 1 - high);
            let skip = s.gone[w];
            if skip == mask {
                continue;
            }
            let mut pq = s.pq_test[w] & !skip;
            if pq != 0 {
                for j in (0..=high).rev() {
                    if pq & (1 << j) != 0 {
                        s.push(w * WORD + j);
                        // Pushing may make more of this word colourable (the bits
                        // already passed wait for the next pass, as in Mesa).
                        pq = s.pq_test[w] & !skip;
                        progress = true;
                    }
                }
            } else if !progress {
                if s.min_q_total[w] == u32::MAX {
                    for j in (0..=high).rev() {
                        if skip & (1 << j) != 0 {
                            continue;
                        }
                        let k = w * WORD + j;
                        if s.q_total[k] < s.min_q_total[w] {
                            s.min_q_total[w] = s.q_total[k];
                            s.min_q_node[w] = k as u32;
                        }
                    }
                }
                if s.min_q_total[w] < best_q {
                    best_q = s.min_q_total[w];
                    best_node = s.min_q_node[w];
                }
            }
        }
        if !progress && best_q != u32::MAX {
            if optimistic_start == u32::MAX {
                optimistic_start = s.stack.len() as u32;
            }
            s.push(best_node as usize);
            progress = true;
        }
    }
    Stack {
        nodes: s.stack,
        in_stack: s.in_stack,
        optimistic_start,
    }
}

fn select(g: &Graph, mut s: Stack, round_robin: bool, regs: u32) -> Result<Vec<u32>, Failure> {
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
        g.for_each_neighbour(k as u32, |m| {
            let m = m as usize;
            if !bit(&s.in_stack, m) && reg[m] != NO_REG {
                let other = Classes::len(g.class[m] as usize);
                free &= !range_mask((reg[m] + 1).saturating_sub(len), reg[m] + other);
            }
        });
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

    #[test]
    fn simplify_order_is_mesas() {
        // A path 0-1-2 in a file of 2 registers: q totals 1, 2, 1 against p = 2, so 0 and
        // 2 are trivially colourable and 1 is not. The word is scanned from the highest
        // bit: 2 goes, which makes 1 colourable, and 1 is still ahead in the scan, so it
        // goes next, then 0.
        let g = graph(3, &[(0, 1), (1, 2)]);
        let cl = Classes::new(2, 1);
        let s = simplify(&g, &cl);
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
        let s = simplify(&g, &cl);
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
