//! Inter-route operators, one file per operator (as VROOM's): each
//! `evaluate(p, sol, u, v)` prices the best variant of its move around the
//! granular pair (u, v) — v is one of u's nearest jobs — and returns it when
//! it improves; `apply` makes it (debug builds check the new cost against the
//! evaluated delta and a full recomputation, as PyVRP does).

pub mod cross_exchange;
pub mod pair_relocate;
pub mod relocate;
pub mod swap;
pub mod swap_star;
pub mod two_opt;
pub mod two_opt_star;

use super::model::FleetProblem;
use super::solution::{FleetCost, Piece, Solution};

pub const MAX_PIECES: usize = 5;

/// The new content of one route.
#[derive(Clone, Copy, Debug)]
pub struct NewRoute {
    pub route: usize,
    pub pieces: [Piece; MAX_PIECES],
    pub len: usize,
}

impl NewRoute {
    pub fn new(route: usize, pieces: &[Piece]) -> NewRoute {
        let mut a = [Piece::Job(0); MAX_PIECES];
        a[..pieces.len()].copy_from_slice(pieces);
        NewRoute {
            route,
            pieces: a,
            len: pieces.len(),
        }
    }

    pub fn pieces(&self) -> &[Piece] {
        &self.pieces[..self.len]
    }
}

/// A priced move: one or two new routes and the cost change.
#[derive(Clone, Copy, Debug)]
pub struct Move {
    pub delta: FleetCost,
    pub routes: [NewRoute; 2],
    pub count: usize,
}

impl Move {
    pub fn new(delta: FleetCost, routes: &[NewRoute]) -> Move {
        let mut rs = [routes[0]; 2];
        rs[..routes.len()].copy_from_slice(routes);
        Move {
            delta,
            routes: rs,
            count: routes.len(),
        }
    }
}

/// Price new contents for one or two routes; None when one is infeasible,
/// or (gain bounds) when it cannot improve: with soft deadlines, when the
/// move without its lateness does not improve; before that, in O(pieces)
/// (`main_bound`), when the routes are on time and a lower bound of the
/// change of the weighted rest is not negative.
pub fn price(p: &FleetProblem, sol: &mut Solution, routes: &[NewRoute]) -> Option<Move> {
    price_delta(p, sol, routes).map(|delta| Move::new(delta, routes))
}

/// Keep in `best` the cheaper of it and these new contents (an operator's
/// variants): the move is built only when it is the cheaper, so a variant
/// the bound or a better one rules out costs no copy of its pieces.
pub fn offer(best: &mut Option<Move>, p: &FleetProblem, sol: &mut Solution, routes: &[NewRoute]) {
    if let Some(delta) = price_delta(p, sol, routes) {
        if best.as_ref().map_or(true, |b| delta < b.delta) {
            *best = Some(Move::new(delta, routes));
        }
    }
}

/// `price`'s cost change alone.
fn price_delta(p: &FleetProblem, sol: &mut Solution, routes: &[NewRoute]) -> Option<FleetCost> {
    let bound = main_bound(p, sol, routes);
    if bound.map_or(false, |b| b >= 0) {
        return None;
    }
    let mut delta = FleetCost::ZERO;
    if routes
        .iter()
        .all(|nr| Solution::lateness_apart(p, sol.routes[nr.route].vehicle))
    {
        // soft deadlines: priced without the lateness first (it never goes below 0, so that
        // is a bound), and the lateness (O(route)) only for a move the bound keeps
        for nr in routes {
            let v = sol.routes[nr.route].vehicle;
            let e = sol.evaluate_untimed(p, v, nr.pieces())?;
            delta = delta.plus(e.cost(p)).minus(sol.routes[nr.route].cost(p));
        }
        if delta >= FleetCost::ZERO {
            return None;
        }
        for nr in routes {
            let v = sol.routes[nr.route].vehicle;
            delta.lateness += sol.lateness_of_pieces(p, v, nr.pieces());
        }
    } else {
        for nr in routes {
            let v = sol.routes[nr.route].vehicle;
            let e = sol.evaluate(p, v, nr.pieces())?;
            delta = delta.plus(e.cost(p)).minus(sol.routes[nr.route].cost(p));
        }
    }
    debug_assert!(
        bound.map_or(true, |b| delta.main >= b),
        "main_bound above the change"
    );
    #[cfg(debug_assertions)]
    if p.duration_free() && !p.has_deadlines {
        for nr in routes {
            let v = sol.routes[nr.route].vehicle;
            let e = sol.evaluate(p, v, nr.pieces()).expect("evaluated above");
            assert_eq!(
                sol.distance_of_pieces(p, v, nr.pieces()),
                (e.distance, e.count)
            );
        }
    }
    Some(delta)
}

/// A lower bound of the move's change of `main`, in O(pieces), when the
/// routes it changes are on time (the lateness can then only grow, so a
/// move whose bound is not negative cannot improve); None where no bound is
/// known (costs or balance, a distance matrix of its own with durations
/// weighed, late routes).
///
/// Without duration in the objective the distance change is exact. With it,
/// a route's duration is at least its driving plus its service, and the
/// moves keep the jobs of the routes they change: the new durations add up
/// to at least the new driving plus the old service (exact when no route
/// waits).
fn main_bound(p: &FleetProblem, sol: &Solution, routes: &[NewRoute]) -> Option<i64> {
    let duration_free = p.duration_free();
    if !(duration_free || (!p.priced && p.distance_is_travel())) {
        return None;
    }
    if p.has_deadlines
        && routes
            .iter()
            .any(|nr| sol.routes[nr.route].eval.lateness > 0)
    {
        return None;
    }
    let mut bound = 0i64;
    for nr in routes {
        let old = &sol.routes[nr.route];
        let v = old.vehicle;
        let (dist, count) = sol.distance_of_pieces(p, v, nr.pieces());
        let change = if duration_free {
            p.route_main(v, count, 0, dist).saturating_sub(p.route_main(
                v,
                old.len(),
                0,
                old.eval.distance,
            ))
        } else {
            // the distances are the driving times
            p.route_main(v, count, dist, dist)
                .saturating_add(
                    p.objective
                        .duration_weight
                        .saturating_mul(old.service_total),
                )
                .saturating_sub(p.route_main(v, old.len(), old.eval.duration, old.eval.distance))
        };
        bound = bound.saturating_add(change);
    }
    Some(bound)
}

/// Make the move.
pub fn apply(p: &FleetProblem, sol: &mut Solution, m: &Move) {
    #[cfg(debug_assertions)]
    let before = sol.cost(p);
    let mut lists: Vec<(usize, Vec<u32>)> = Vec::with_capacity(2);
    for nr in &m.routes[..m.count] {
        let mut jobs = Vec::new();
        sol.materialize(nr.pieces(), &mut jobs);
        lists.push((nr.route, jobs));
    }
    // clear first so that a job moving between the two routes is never seen twice
    for (r, _) in &lists {
        sol.set_route(p, *r, Vec::new());
    }
    for (r, jobs) in lists {
        sol.set_route(p, r, jobs);
    }
    #[cfg(debug_assertions)]
    {
        let after = sol.cost(p);
        assert_eq!(
            after,
            before.plus(m.delta),
            "applied cost differs from the evaluated delta"
        );
        if let Err(e) = sol.check(p) {
            panic!("after a move: {}", e);
        }
    }
}
