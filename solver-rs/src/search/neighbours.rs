//! Candidate lists: for each node, the few nodes a good route is likely to
//! put next to it.
//!
//! Two rules:
//! - nearest: the nearest other stops (by the shorter of the two directed
//!   edges), plus the start and the end;
//! - alpha-nearness (Helsgaun, LKH): rank j for i by alpha(i, j) = c(i, j) -
//!   beta(i, j), where beta is the longest edge on the path from i to j in a
//!   minimum spanning tree of the undirected weights c = `round_trip`. Edges
//!   of the spanning tree have alpha 0, so the links between clusters that a
//!   tour needs are candidates even where they are not among the nearest
//!   (clustered instances: the nearest of every stop are all in its cluster).
//!
//! Each entry carries the key min(d(i, j), d(j, i)) (a lower bound on either
//! directed edge, half the round trip on symmetric matrices), used by the
//! operators' gain bounds. Lists are ordered by the rule (so not always by key).

use crate::problem::Problem;

/// Candidates kept per stop (plus the start and the end points for the nearest rule).
pub const NEIGHBOURS: usize = 10;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CandidateRule {
    Nearest,
    AlphaNearness,
}

/// One candidate of a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Neighbour {
    pub node: usize,
    /// min(d(a, node), d(node, a)): a lower bound on either directed edge.
    pub key: i64,
    /// `Problem::round_trip(a, node)`.
    pub round_trip: i64,
}

pub struct Neighbours {
    /// CSR layout: the candidates of node x are entries[offsets[x]..offsets[x + 1]].
    offsets: Vec<usize>,
    entries: Vec<Neighbour>,
    /// Lists sorted by key (nearest first): a key bound may stop the scan.
    sorted_by_key: bool,
}

/// The key of a candidate pair.
fn key(p: &Problem, a: usize, c: usize) -> i64 {
    key_of(a, c, p.d(a, c), p.d(c, a), p.end())
}

/// The key of (a, c) from its two directed edges: the one a route can use
/// (out of the start, into the end), else the shorter.
#[inline(always)]
fn key_of(a: usize, c: usize, there: i64, back: i64, end: usize) -> i64 {
    if a == 0 {
        there
    } else if a == end || c == 0 {
        back
    } else if c == end {
        there
    } else {
        there.min(back)
    }
}

impl Neighbours {
    pub fn build(p: &Problem, count: usize, rule: CandidateRule) -> Neighbours {
        match rule {
            CandidateRule::Nearest => Self::nearest(p, count),
            CandidateRule::AlphaNearness => Self::alpha_nearness(p, count),
        }
    }

    /// For a stop: the `count` nearest other stops, the start and the end
    /// (for an open route the end is virtual and at distance 0 from every
    /// stop, so "make this stop the last" is always a candidate). For the
    /// start: the nearest stops from it; for a real end: the nearest stops to
    /// it; the virtual end has none (all stops are equally near).
    fn nearest(p: &Problem, count: usize) -> Neighbours {
        let n = p.n;
        let end = p.end();
        let k = count.min(n.saturating_sub(1));
        let mut lists = Vec::with_capacity(n + 2);
        let candidate = |a: usize, c: usize| {
            if a == 0 || a == end {
                (1..=n).contains(&c) && (a == 0 || p.has_end)
            } else {
                c != a
            }
        };
        crate::nearest::select(
            n + 2,
            k + 1,
            |a, c| p.d(a, c),
            |a, c, there, back| key_of(a, c, there, back, end),
            candidate,
            |_, list| lists.push(list.iter().map(|&(key, c)| (key, c as usize)).collect()),
        );
        Self::from_lists(p, lists, true)
    }

    /// The `count` alpha-nearest nodes of each node over the stops, the start
    /// and a real end (the virtual end of an open route is at distance 0 from
    /// everything: it would make the spanning tree a star, so it is left out
    /// of the tree and added as a candidate of every stop).
    fn alpha_nearness(p: &Problem, count: usize) -> Neighbours {
        let n = p.n;
        let end = p.end();
        let nodes: Vec<usize> = (0..=n)
            .chain(if p.has_end { Some(end) } else { None })
            .collect();
        let m = nodes.len();
        let k = count.min(m.saturating_sub(1));
        // Prim's algorithm over the complete graph (O(m^2)); `order` lists the
        // tree nodes parents first.
        const NONE: usize = usize::MAX;
        let mut parent = vec![NONE; m];
        let mut in_tree = vec![false; m];
        let mut best = vec![i64::MAX; m];
        let mut order = Vec::with_capacity(m);
        best[0] = 0;
        for _ in 0..m {
            let mut u = NONE;
            for v in 0..m {
                if !in_tree[v] && (u == NONE || best[v] < best[u]) {
                    u = v;
                }
            }
            in_tree[u] = true;
            order.push(u);
            for v in 0..m {
                if !in_tree[v] {
                    let c = p.round_trip(nodes[u], nodes[v]);
                    if c < best[v] {
                        best[v] = c;
                        parent[v] = u;
                    }
                }
            }
        }
        let tree_edge = |v: usize| p.round_trip(nodes[v], nodes[parent[v]]);
        let mut lists = vec![Vec::new(); n + 2];
        let mut beta = vec![0i64; m];
        let mut mark = vec![NONE; m];
        let mut row: Vec<(i64, i64, usize)> = Vec::with_capacity(m);
        for i in 0..m {
            // beta along the path from i to the root, then top-down for the rest
            mark[i] = i;
            beta[i] = i64::MIN;
            let mut u = i;
            while parent[u] != NONE {
                let v = parent[u];
                beta[v] = beta[u].max(tree_edge(u));
                mark[v] = i;
                u = v;
            }
            for &j in order.iter() {
                if mark[j] != i {
                    beta[j] = beta[parent[j]].max(tree_edge(j));
                }
            }
            row.clear();
            for j in 0..m {
                if j != i {
                    let c = p.round_trip(nodes[i], nodes[j]);
                    row.push((c - beta[j], c, nodes[j]));
                }
            }
            if row.len() > k {
                row.select_nth_unstable(k);
                row.truncate(k + 1);
            }
            row.sort_unstable();
            row.truncate(k);
            let a = nodes[i];
            let mut list: Vec<(i64, usize)> =
                row.iter().map(|&(_, _, c)| (key(p, a, c), c)).collect();
            if !p.has_end && a != 0 {
                list.push((0, end));
            }
            lists[a] = list;
        }
        Self::from_lists(p, lists, false)
    }

    fn from_lists(p: &Problem, lists: Vec<Vec<(i64, usize)>>, sorted_by_key: bool) -> Neighbours {
        let mut offsets = Vec::with_capacity(lists.len() + 1);
        let mut entries = Vec::new();
        for (a, list) in lists.into_iter().enumerate() {
            offsets.push(entries.len());
            entries.extend(list.into_iter().map(|(key, node)| Neighbour {
                node,
                key,
                round_trip: p.round_trip(a, node),
            }));
        }
        offsets.push(entries.len());
        Neighbours {
            offsets,
            entries,
            sorted_by_key,
        }
    }

    /// Candidates of `node`.
    #[inline(always)]
    pub fn of(&self, node: usize) -> &[Neighbour] {
        &self.entries[self.offsets[node]..self.offsets[node + 1]]
    }

    /// Lists are sorted by key, so a scan may stop at the first key that fails a bound.
    #[inline(always)]
    pub fn sorted_by_key(&self) -> bool {
        self.sorted_by_key
    }
}
