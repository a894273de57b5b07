//! Initial routes: nearest neighbour, and with deadlines also the
//! earliest-deadline order and deadline-ordered cheapest insertion; the
//! cheapest of them starts the search.

use crate::problem::{Cost, Problem, NO_DEADLINE};

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
pub fn initial_route(p: &Problem) -> Vec<usize> {
    let mut starts = vec![nearest_neighbour(p)];
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
