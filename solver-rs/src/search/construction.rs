//! Initial routes: greedy edge matching and nearest neighbour, and with
//! deadlines also the earliest-deadline order and deadline-ordered cheapest
//! insertion; the cheapest of them starts the search.

use super::neighbours::Neighbours;
use crate::problem::{Cost, Problem, NO_DEADLINE};

const NONE: usize = usize::MAX;

/// Greedy edge matching (the usual best start for Lin–Kernighan): the
/// candidate edges, shortest first (undirected round trips), are taken when
/// both ends still have a free side and no cycle closes; the fixed end ->
/// start link is taken first, so the result reads as a route. Fragments are
/// then chained from the start, each time to the nearest free fragment end.
/// Edges to the virtual end of an open route (length 0) are left out: the
/// last fragment simply ends the route.
pub fn greedy_edges(p: &Problem, neighbours: &Neighbours) -> Vec<usize> {
    let n = p.n;
    let end = p.end();
    let mut edges: Vec<(i64, usize, usize)> = Vec::with_capacity((n + 2) * 10);
    for a in 0..=end {
        for nb in neighbours.of(a) {
            let (x, y) = (a.min(nb.node), a.max(nb.node));
            let to_virtual_end = y == end && !p.has_end;
            let start_to_end = x == 0 && y == end;
            if !(to_virtual_end || start_to_end) {
                edges.push((nb.round_trip, x, y));
            }
        }
    }
    edges.sort_unstable();
    edges.dedup();
    let mut links = vec![[NONE; 2]; n + 2];
    let mut component: Vec<usize> = (0..n + 2).collect();
    fn root(component: &mut [usize], mut x: usize) -> usize {
        while component[x] != x {
            component[x] = component[component[x]];
            x = component[x];
        }
        x
    }
    let link =
        |links: &mut Vec<[usize; 2]>, component: &mut Vec<usize>, a: usize, b: usize| -> bool {
            if links[a][1] != NONE || links[b][1] != NONE {
                return false;
            }
            let (ra, rb) = (root(component, a), root(component, b));
            if ra == rb {
                return false;
            }
            component[ra] = rb;
            let slot_a = if links[a][0] == NONE { 0 } else { 1 };
            let slot_b = if links[b][0] == NONE { 0 } else { 1 };
            links[a][slot_a] = b;
            links[b][slot_b] = a;
            true
        };
    link(&mut links, &mut component, end, 0);
    for &(_, a, b) in edges.iter() {
        link(&mut links, &mut component, a, b);
    }
    let other = |links: &Vec<[usize; 2]>, x: usize, from: usize| -> usize {
        if links[x][0] == from {
            links[x][1]
        } else {
            links[x][0]
        }
    };
    let mut visited = vec![false; n + 2];
    // the fragment hanging from the end (read towards the end at the close)
    let mut tail = Vec::new();
    let (mut prev, mut cur) = (0, end);
    visited[end] = true;
    loop {
        let next = other(&links, cur, prev);
        if next == NONE {
            break;
        }
        tail.push(next);
        visited[next] = true;
        prev = cur;
        cur = next;
    }
    tail.reverse();
    let mut order = Vec::with_capacity(n);
    visited[0] = true;
    let (mut prev, mut cur) = (end, 0);
    let remaining = n - tail.len();
    loop {
        // follow the current fragment
        loop {
            let next = other(&links, cur, prev);
            if next == NONE || visited[next] {
                break;
            }
            visited[next] = true;
            order.push(next);
            prev = cur;
            cur = next;
        }
        if order.len() == remaining {
            break;
        }
        // jump to the nearest free fragment end
        let mut best = (i64::MAX, NONE);
        for x in 1..=n {
            if !visited[x] && links[x][1] == NONE && p.w(cur, x) < best.0 {
                best = (p.w(cur, x), x);
            }
        }
        let x = best.1;
        visited[x] = true;
        order.push(x);
        prev = NONE;
        cur = x;
    }
    order.extend(tail);
    debug_assert_eq!(order.len(), n);
    order
}

/// Nearest-neighbour order (internal stop ids).
pub fn nearest_neighbour(p: &Problem) -> Vec<usize> {
    let n = p.n;
    let mut used = vec![false; n + 2];
    let mut order = Vec::with_capacity(n);
    let mut current = 0;
    for _ in 0..n {
        let mut best = (i64::MAX, 0usize);
        for c in 1..=n {
            if !used[c] && p.w(current, c) < best.0 {
                best = (p.w(current, c), c);
            }
        }
        used[best.1] = true;
        order.push(best.1);
        current = best.1;
    }
    order
}

/// Stops sorted by deadline (earliest first); stops without one keep
/// nearest-neighbour order at the back.
pub fn deadline_order(p: &Problem) -> Vec<usize> {
    let nearest = nearest_neighbour(p);
    let mut with: Vec<usize> = nearest
        .iter()
        .cloned()
        .filter(|&s| p.dl[s] < NO_DEADLINE)
        .collect();
    with.sort_by_key(|&s| (p.dl[s], s));
    let without = nearest.iter().cloned().filter(|&s| p.dl[s] >= NO_DEADLINE);
    with.into_iter().chain(without).collect()
}

/// Insertion in deadline order, each stop at the position minimising the
/// lexicographic cost of the partial route.
pub fn deadline_insertion(p: &Problem) -> Vec<usize> {
    let sequence = deadline_order(p);
    let mut route: Vec<usize> = Vec::with_capacity(p.n);
    let mut candidate: Vec<usize> = Vec::with_capacity(p.n);
    for &s in sequence.iter() {
        let mut best = (Cost::MAX, 0usize);
        for q in 0..=route.len() {
            candidate.clear();
            candidate.extend_from_slice(&route[..q]);
            candidate.push(s);
            candidate.extend_from_slice(&route[q..]);
            let c = partial_cost(p, &candidate, best.0);
            if c < best.0 {
                best = (c, q);
            }
        }
        route.insert(best.1, s);
    }
    route
}

/// Cost of a partial order (start -> stops -> end); Cost::MAX once its
/// lateness exceeds the bound's.
fn partial_cost(p: &Problem, stops: &[usize], bound: Cost) -> Cost {
    let mut t = 0;
    let mut late = 0;
    let mut previous = 0;
    for &x in stops {
        t += p.w(previous, x);
        late += (t - p.dl[x]).max(0);
        if late > bound.lateness {
            return Cost::MAX;
        }
        previous = x;
    }
    t += p.w(previous, p.end());
    Cost {
        lateness: late,
        duration: t,
    }
}

/// The cheapest construction as a full route [0, stops..., n+1].
pub fn initial_route(p: &Problem, neighbours: &Neighbours) -> Vec<usize> {
    let mut starts = vec![greedy_edges(p, neighbours), nearest_neighbour(p)];
    if p.has_deadlines {
        starts.push(deadline_order(p));
        starts.push(deadline_insertion(p));
    }
    let mut best = 0;
    let mut best_cost = p.order_cost(&starts[0]);
    for (i, s) in starts.iter().enumerate().skip(1) {
        let c = p.order_cost(s);
        if c < best_cost {
            best_cost = c;
            best = i;
        }
    }
    let mut route = Vec::with_capacity(p.n + 2);
    route.push(0);
    route.extend_from_slice(&starts[best]);
    route.push(p.end());
    route
}
