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

/// Price new contents for one or two routes; None when one is infeasible,
/// or (gain bound) when it cannot improve: when the objective weighs only
/// vehicles and distance and there are no deadlines, the distance change
/// computed in O(pieces) is the exact change of the cost, so a move that
/// does not shorten the routes is dropped before its feasibility check.
pub fn price(p: &FleetProblem, sol: &mut Solution, routes: &[NewRoute]) -> Option<Move> {
    if p.duration_free() && !p.has_deadlines {
        let mut bound = 0i64;
        for nr in routes {
            let old = &sol.routes[nr.route];
            let (dist, count) = sol.distance_of_pieces(p, old.vehicle, nr.pieces());
            bound += p.route_main(old.vehicle, count, 0, dist)
                - p.route_main(old.vehicle, old.len(), 0, old.eval.distance);
        }
        if bound >= 0 {
            return None;
        }
    }
    let mut delta = FleetCost::ZERO;
    for nr in routes {
        let v = sol.routes[nr.route].vehicle;
        let e = sol.evaluate(p, v, nr.pieces())?;
        delta = delta.plus(e.cost(p)).minus(sol.routes[nr.route].cost(p));
    }
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
    let mut rs = [routes[0]; 2];
    rs[..routes.len()].copy_from_slice(routes);
    Some(Move {
        delta,
        routes: rs,
        count: routes.len(),
    })
}

/// Keep the better (lower delta) of two candidate moves.
pub fn better(a: Option<Move>, b: Option<Move>) -> Option<Move> {
    match (a, b) {
        (Some(x), Some(y)) => Some(if y.delta < x.delta { y } else { x }),
        (x, None) => x,
        (None, y) => y,
    }
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
