//! Inter-route operators, one file per operator (as VROOM's): each
//! `evaluate(p, sol, pair)` prices the best variant of its move around the
//! granular pair (u, v) — v is one of u's nearest jobs (`Pair`) — and returns it when
//! it improves; `apply` makes it (debug builds check the new cost against the
//! evaluated delta and a full recomputation, as PyVRP does).

pub mod cross_exchange;
pub mod pair_relocate;
pub mod relocate;
pub mod swap;
pub mod swap_star;
pub mod two_opt;
pub mod two_opt_star;

use super::arith::saturating_product;
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
    keep_cheaper(best, price_delta(p, sol, routes), routes);
}

/// `best` becomes the move of `routes` when it has a change and `best` is
/// none or dearer.
#[inline(always)]
fn keep_cheaper(best: &mut Option<Move>, delta: Option<FleetCost>, routes: &[NewRoute]) {
    if let Some(delta) = delta {
        if best.as_ref().map_or(true, |b| delta < b.delta) {
            *best = Some(Move::new(delta, routes));
        }
    }
}

/// `offer` for a variant whose change of distance the operator has summed
/// from the arcs it removes and adds (`Run`, `Gap`, `jobs_swapped`, ...:
/// O(1), as PyVRP's operators evaluate a move): `main_bound` is then the
/// gate's (`Gate::main_bound`), so a variant the bound rules out (most of them)
/// is dropped before its new routes are even laid out (`routes` is called
/// only for the others). Every route of the move must keep a job.
#[inline]
pub fn offer_arcs<const N: usize>(
    best: &mut Option<Move>,
    p: &FleetProblem,
    sol: &mut Solution,
    gate: &Gate,
    distance_change: i64,
    routes: impl FnOnce() -> [NewRoute; N],
) {
    if let Some(routes) = unless_ruled_out(p, sol, gate, distance_change, routes) {
        let bound = gate.main_bound(p, sol, &routes, distance_change);
        // (price_bounded tests it too: here it saves the call for the variants it drops)
        if bound.map_or(false, |b| b >= 0) {
            return;
        }
        keep_cheaper(best, price_bounded(p, sol, &routes, bound), &routes);
    }
}

/// `price` for a move whose change of distance the operator has summed
/// from its arcs (see `offer_arcs`).
pub fn price_arcs<const N: usize>(
    p: &FleetProblem,
    sol: &mut Solution,
    gate: &Gate,
    distance_change: i64,
    routes: impl FnOnce() -> [NewRoute; N],
) -> Option<Move> {
    let routes = unless_ruled_out(p, sol, gate, distance_change, routes)?;
    let bound = gate.main_bound(p, sol, &routes, distance_change);
    price_bounded(p, sol, &routes, bound).map(|delta| Move::new(delta, &routes))
}

/// The new routes of a variant, None when the gate rules it out by its
/// change of distance alone (debug builds lay them out anyway, to check the
/// gate against `main_bound`).
#[inline(always)]
fn unless_ruled_out<const N: usize>(
    p: &FleetProblem,
    sol: &Solution,
    gate: &Gate,
    distance_change: i64,
    routes: impl FnOnce() -> [NewRoute; N],
) -> Option<[NewRoute; N]> {
    if gate.rules_out(distance_change) {
        #[cfg(debug_assertions)]
        gate.main_bound(p, sol, &routes(), distance_change);
        #[cfg(not(debug_assertions))]
        let _ = (p, sol, routes);
        return None;
    }
    Some(routes())
}

/// A lower bound of `main_bound` for the moves of a granular pair, as a
/// function of a move's change of distance, where it is linear in it: no
/// costs of the vehicles' own or balance (`priced`), and every route of the
/// move used before and after (an emptied route also drops its vehicle
/// cost: the operators price such moves with `offer` or `price`). Each
/// route's term is then (w_duration + w_distance) × its distance change +
/// w_duration × (its old distance + service − duration + the waits the
/// move keeps), so the sum needs only the total change. Every gated
/// operator (relocate, swap, 2-opt*, cross-exchange, 2-opt) cuts a route
/// only between its pair's first position in it and `MAX_RUN` + 1 past its
/// last (`Gate::new`), so the runs before and after those cuts stay whole,
/// and with them their waits (`Route::waits_before`, `waits_from`): on a
/// day whose stops wait for their windows, most of a route's waiting. Made
/// once per granular pair (`Pair`), read per variant.
#[derive(Clone, Copy, Debug)]
pub struct Gate {
    /// (weight, constant) of the bound; None under the conditions where
    /// `main_bound` has no bound or is not linear.
    linear: Option<(i64, i64)>,
    /// The routes, for the debug check.
    #[cfg(debug_assertions)]
    routes: [usize; 2],
}

impl Gate {
    /// The gate of the moves around u (position pu of route ru) and v
    /// (position pv of route rv; rv = ru: one route).
    pub fn new(
        p: &FleetProblem,
        sol: &Solution,
        (ru, pu): (usize, usize),
        (rv, pv): (usize, usize),
    ) -> Gate {
        Gate {
            linear: Gate::linear(p, sol, (ru, pu), (rv, pv)),
            #[cfg(debug_assertions)]
            routes: [ru, rv],
        }
    }

    fn linear(
        p: &FleetProblem,
        sol: &Solution,
        (ru, pu): (usize, usize),
        (rv, pv): (usize, usize),
    ) -> Option<(i64, i64)> {
        // each route with the first and last position of the pair in it
        let one = [(ru, pu.min(pv), pu.max(pv))];
        let two = [(ru, pu, pu), (rv, pv, pv)];
        let routes: &[(usize, usize, usize)] = if ru == rv { &one } else { &two };
        if p.priced || !bound_known(p, sol, routes.iter().map(|r| r.0)) {
            return None;
        }
        let o = &p.objective;
        let mut constant = 0i64;
        if !p.duration_free() {
            for &(r, first, last) in routes {
                let old = &sol.routes[r];
                let waits = old.eval.duration - old.eval.distance - old.service_total;
                // the operators cut a route from the pair's first position to MAX_RUN + 1 past its last
                let kept = old.waits_before(first) + old.waits_from(last + MAX_RUN + 1);
                constant =
                    constant.saturating_add(saturating_product(o.duration_weight, kept - waits));
            }
        }
        if p.windows_soft() {
            // the warp the move can take away: what is outside the runs it keeps whole
            for &(r, first, last) in routes {
                let old = &sol.routes[r];
                // (each run's cost apart: they may end up in different routes, and the cost of a sum
                // is at least the sum of the costs)
                let kept = p.warp_cost(old.warp_before(first))
                    + p.warp_cost(old.warp_from(last + MAX_RUN + 1));
                constant = constant.saturating_sub(p.warp_cost(old.eval.warp) - kept);
            }
        }
        Some((
            o.duration_weight.saturating_add(o.distance_weight),
            constant,
        ))
    }

    /// The gate's bound says a move whose distance changes by `change`
    /// cannot improve (false where it has no bound).
    #[inline(always)]
    fn rules_out(&self, change: i64) -> bool {
        self.linear_bound(change).map_or(false, |bound| bound >= 0)
    }

    /// The bound where it is linear in the change of distance.
    #[inline(always)]
    fn linear_bound(&self, change: i64) -> Option<i64> {
        let (weight, constant) = self.linear?;
        Some(saturating_product(weight, change).saturating_add(constant))
    }

    /// `main_bound` of a move of these routes whose distance changes by
    /// `change`: the gate's when it has one, else `main_bound` itself.
    #[inline(always)]
    fn main_bound(
        &self,
        p: &FleetProblem,
        sol: &Solution,
        routes: &[NewRoute],
        change: i64,
    ) -> Option<i64> {
        match self.linear_bound(change) {
            Some(bound) => {
                #[cfg(debug_assertions)]
                self.check(p, sol, routes, change, bound);
                Some(bound)
            }
            None => main_bound(p, sol, routes),
        }
    }

    /// Debug builds: the operator's arcs against the pieces' distances, and
    /// the gate's bound against `main_bound`.
    #[cfg(debug_assertions)]
    fn check(
        &self,
        p: &FleetProblem,
        sol: &Solution,
        routes: &[NewRoute],
        change: i64,
        bound: i64,
    ) {
        let mut new_distance = 0;
        for nr in routes {
            assert!(self.routes.contains(&nr.route), "a route outside the gate");
            let v = sol.routes[nr.route].vehicle;
            let (d, count) = sol.distance_of_pieces(p, v, nr.pieces());
            assert!(count > 0, "a gated move that empties a route");
            new_distance += d - sol.routes[nr.route].eval.distance;
        }
        assert_eq!(new_distance, change, "arcs against pieces");
        let laid_out = main_bound(p, sol, routes).expect("a gate bound where main_bound has none");
        // equal without durations; with them main_bound counts the waits of every run the move
        // keeps whole, the gate those outside the pair's positions
        assert!(
            bound <= laid_out,
            "gate above main_bound: {} > {}",
            bound,
            laid_out
        );
        // (soft windows: the gate counts the warp outside the pair's positions, main_bound the
        // warp of every run the move keeps whole)
        if p.duration_free() && !p.windows_soft() {
            assert_eq!(bound, laid_out, "gate against main_bound");
        }
    }
}

/// The place before position k of route r: jobs[k - 1]'s, or the vehicle's
/// start at k = 0.
#[inline(always)]
fn place_before(p: &FleetProblem, sol: &Solution, r: usize, k: usize) -> usize {
    let route = &sol.routes[r];
    if k == 0 {
        p.vehicles[route.vehicle].start
    } else {
        route.loc(k - 1)
    }
}

/// The place at position k of route r: jobs[k]'s, or the vehicle's end at
/// k = len.
#[inline(always)]
fn place_at(p: &FleetProblem, sol: &Solution, r: usize, k: usize) -> usize {
    let route = &sol.routes[r];
    if k == route.len() {
        p.vehicles[route.vehicle].end
    } else {
        route.loc(k)
    }
}

/// A run jobs[from..from + len] of a route in its place: the places
/// around it and the length of the two arcs that hold it there. An
/// operator makes each run once and prices its variants from it (a few
/// matrix reads each: the arcs they add).
#[derive(Clone, Copy, Debug)]
pub struct Run {
    before: usize,
    first: usize,
    last: usize,
    after: usize,
    held: i64,
}

impl Run {
    pub fn new(p: &FleetProblem, sol: &Solution, r: usize, from: usize, len: usize) -> Run {
        let route = &sol.routes[r];
        let (before, after) = (
            place_before(p, sol, r, from),
            place_at(p, sol, r, from + len),
        );
        let (first, last) = (route.loc(from), route.loc(from + len - 1));
        Run {
            before,
            first,
            last,
            after,
            held: p.d(before, first) + p.d(last, after),
        }
    }

    /// The change of distance when the run leaves its place: its route
    /// closes over it.
    pub fn taken_out(&self, p: &FleetProblem) -> i64 {
        p.d(self.before, self.after) - self.held
    }

    /// The change of distance when the run, taken out, goes in order into
    /// `gap` (of another route, or of its own away from it: not next to it).
    #[inline(always)]
    pub fn put_in(&self, p: &FleetProblem, gap: &Gap) -> i64 {
        p.d(gap.before, self.first) + p.d(self.last, gap.after) - gap.arc
    }

    /// The change of distance when this run and `other`, of another route,
    /// change places, each in its order.
    #[inline(always)]
    pub fn exchanged_with(&self, p: &FleetProblem, other: &Run) -> i64 {
        p.d(self.before, other.first)
            + p.d(other.last, self.after)
            + p.d(other.before, self.first)
            + p.d(self.last, other.after)
            - self.held
            - other.held
    }
}

/// The longest run relocate and cross-exchange move (Or-opt's 1–3 jobs).
pub const MAX_RUN: usize = 3;

/// Job u in its place, as the operators of each of its granular pairs read
/// it: its route, its position and its runs of 1–`MAX_RUN` jobs. The descent
/// makes it once per u and keeps it over u's neighbours until a move changes
/// the plan.
#[derive(Clone, Copy, Debug)]
pub struct Anchor {
    pub job: usize,
    pub route: usize,
    pub pos: usize,
    /// runs[len - 1]: jobs[pos..pos + len], None past the route's end.
    runs: [Option<Run>; MAX_RUN],
}

impl Anchor {
    /// None when u is not in a route.
    pub fn new(p: &FleetProblem, sol: &Solution, u: usize) -> Option<Anchor> {
        let (route, pos) = sol.place(u)?;
        let len = sol.routes[route].len();
        let mut runs = [None; MAX_RUN];
        for (i, run) in runs.iter_mut().enumerate() {
            if pos + i < len {
                *run = Some(Run::new(p, sol, route, pos, i + 1));
            }
        }
        Some(Anchor {
            job: u,
            route,
            pos,
            runs,
        })
    }

    /// The run of `len` jobs from u (1 ≤ len ≤ `MAX_RUN`), None past the
    /// route's end.
    #[inline(always)]
    pub fn run(&self, len: usize) -> Option<&Run> {
        self.runs[len - 1].as_ref()
    }
}

/// The granular pair (u, v) every operator evaluates: u's anchor, v's place
/// and the gate of their routes (one route when they share it), made once
/// per pair for all the operators.
#[derive(Clone, Copy, Debug)]
pub struct Pair<'a> {
    pub u: &'a Anchor,
    pub v: usize,
    pub rv: usize,
    pub pv: usize,
    pub gate: Gate,
}

impl<'a> Pair<'a> {
    /// None when v is not in a route.
    pub fn new(p: &FleetProblem, sol: &Solution, u: &'a Anchor, v: usize) -> Option<Pair<'a>> {
        let (rv, pv) = sol.place(v)?;
        Some(Pair {
            u,
            v,
            rv,
            pv,
            gate: Gate::new(p, sol, (u.route, u.pos), (rv, pv)),
        })
    }

    /// (u's route, u's position, v's route, v's position).
    #[inline(always)]
    pub fn places(&self) -> (usize, usize, usize, usize) {
        (self.u.route, self.u.pos, self.rv, self.pv)
    }
}

/// An operator's evaluation of a granular pair (`relocate::evaluate`, ...).
pub type Evaluate = fn(&FleetProblem, &mut Solution, &Pair) -> Option<Move>;

/// `op` on the pair (u, v), its anchor and pair made for it alone (tests and
/// one-off callers; the descent keeps u's anchor over its pairs): None when u
/// or v is not in a route.
pub fn evaluate_pair(
    op: Evaluate,
    p: &FleetProblem,
    sol: &mut Solution,
    u: usize,
    v: usize,
) -> Option<Move> {
    let anchor = Anchor::new(p, sol, u)?;
    let pair = Pair::new(p, sol, &anchor, v)?;
    op(p, sol, &pair)
}

/// The arc between positions t - 1 and t of a route (from its vehicle's
/// start at t = 0, to its end at t = len), where a run can go.
#[derive(Clone, Copy, Debug)]
pub struct Gap {
    before: usize,
    after: usize,
    arc: i64,
}

impl Gap {
    pub fn new(p: &FleetProblem, sol: &Solution, r: usize, t: usize) -> Gap {
        let (before, after) = (place_before(p, sol, r, t), place_at(p, sol, r, t));
        Gap {
            before,
            after,
            arc: p.d(before, after),
        }
    }
}

/// The change of distance when jobs[a] and jobs[b] (a < b) of route r
/// change places.
pub fn jobs_swapped(p: &FleetProblem, sol: &Solution, r: usize, a: usize, b: usize) -> i64 {
    let (before, after) = (place_before(p, sol, r, a), place_at(p, sol, r, b + 1));
    let route = &sol.routes[r];
    let (xa, xb) = (route.loc(a), route.loc(b));
    if b == a + 1 {
        return p.d(before, xb) + p.d(xb, xa) + p.d(xa, after)
            - p.d(before, xa)
            - p.d(xa, xb)
            - p.d(xb, after);
    }
    let (next_a, prev_b) = (route.loc(a + 1), route.loc(b - 1));
    p.d(before, xb) + p.d(xb, next_a) + p.d(prev_b, xa) + p.d(xa, after)
        - p.d(before, xa)
        - p.d(xa, next_a)
        - p.d(prev_b, xb)
        - p.d(xb, after)
}

/// The change of distance when route ru keeps jobs[..=pu] and ends with
/// route rv's jobs[pv..], and rv keeps jobs[..pv] and ends with ru's
/// jobs[pu + 1..] (2-opt*): each route keeps its vehicle's start and end.
pub fn tails_exchanged(
    p: &FleetProblem,
    sol: &Solution,
    ru: usize,
    pu: usize,
    rv: usize,
    pv: usize,
) -> i64 {
    let (u, v) = (&sol.routes[ru], &sol.routes[rv]);
    let (end_u, end_v) = (p.vehicles[u.vehicle].end, p.vehicles[v.vehicle].end);
    let (xu, xv) = (u.loc(pu), v.loc(pv));
    let before_v = place_before(p, sol, rv, pv);
    let last_v = v.loc(v.len() - 1);
    let change = p.d(xu, xv) + p.d(last_v, end_u) - p.d(before_v, xv) - p.d(last_v, end_v);
    if pu + 1 == u.len() {
        return change + p.d(before_v, end_v) - p.d(xu, end_u);
    }
    let (next_u, last_u) = (u.loc(pu + 1), u.loc(u.len() - 1));
    change + p.d(before_v, next_u) + p.d(last_u, end_v) - p.d(xu, next_u) - p.d(last_u, end_u)
}

/// The change of distance when jobs[s..e] (s < e) of route r are reversed in
/// place: two arcs change at the ends, and the run is walked the other way.
pub fn run_reversed(p: &FleetProblem, sol: &Solution, r: usize, s: usize, e: usize) -> i64 {
    let (before, after) = (place_before(p, sol, r, s), place_at(p, sol, r, e));
    let route = &sol.routes[r];
    let (first, last) = (route.loc(s), route.loc(e - 1));
    p.d(before, last) + route.run_distance_reversed(s, e) + p.d(first, after)
        - p.d(before, first)
        - route.run_distance(s, e)
        - p.d(last, after)
}

/// `price`'s cost change alone.
fn price_delta(p: &FleetProblem, sol: &mut Solution, routes: &[NewRoute]) -> Option<FleetCost> {
    let bound = main_bound(p, sol, routes);
    price_bounded(p, sol, routes, bound)
}

/// `price_delta` with `main_bound`'s value (or an equal one) given.
fn price_bounded(
    p: &FleetProblem,
    sol: &mut Solution,
    routes: &[NewRoute],
    bound: Option<i64>,
) -> Option<FleetCost> {
    if bound.map_or(false, |b| b >= 0) {
        return None;
    }
    let mut delta = FleetCost::ZERO;
    // the routes are priced last first: a relocation's is the one that takes
    // the run, the likelier to break a window, so such a move costs one route
    if routes
        .iter()
        .all(|nr| Solution::lateness_apart(p, sol.routes[nr.route].vehicle))
    {
        // soft deadlines: priced without the lateness first (it never goes below 0, so that
        // is a bound), and the lateness (O(route)) only for a move the bound keeps
        for nr in routes.iter().rev() {
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
    } else if let Some(mut affordable) = affordable_warp_cost(p, sol, routes) {
        // soft windows: each route gives up once the warp it has reached costs what the move could gain
        for nr in routes.iter().rev() {
            let v = sol.routes[nr.route].vehicle;
            // (the largest warp whose cost is below `affordable`, or more)
            let max_warp = affordable.saturating_add(1).saturating_mul(100) / p.warp_price() + 1;
            let e = match sol.evaluate_within_warp(p, v, nr.pieces(), max_warp) {
                Some(e) => e,
                None => {
                    #[cfg(debug_assertions)]
                    assert_no_gain(p, sol, routes, "the warp limit dropped an improving move");
                    return None;
                }
            };
            affordable -= p.warp_cost(e.warp);
            delta = delta.plus(e.cost(p)).minus(sol.routes[nr.route].cost(p));
        }
    } else {
        for nr in routes.iter().rev() {
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
/// a route's duration is at least its driving plus its service plus the
/// waits inside the runs it keeps from a route's start or to its end
/// (`Solution::kept_waits`), and the moves keep the jobs of the routes they
/// change: the new durations add up to at least the new driving, the kept
/// waits and the old service (exact when no route waits elsewhere). While
/// the windows are soft, a new route has at least the time warp of the runs
/// it keeps whole (`Solution::kept_warp`), so the bound takes off only the
/// rest of the old route's warp cost.
fn main_bound(p: &FleetProblem, sol: &Solution, routes: &[NewRoute]) -> Option<i64> {
    if !bound_known(p, sol, routes.iter().map(|nr| nr.route)) {
        return None;
    }
    let duration_free = p.duration_free();
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
            let floor = dist.saturating_add(sol.kept_waits(nr.pieces()));
            p.route_main(v, count, floor, dist)
                .saturating_add(saturating_product(
                    p.objective.duration_weight,
                    old.service_total,
                ))
                .saturating_sub(p.route_main(v, old.len(), old.eval.duration, old.eval.distance))
        };
        if p.windows_soft() {
            let credit = p.warp_cost(old.eval.warp) - p.warp_cost(sol.kept_warp(nr.pieces()));
            bound = bound.saturating_sub(credit);
        }
        bound = bound.saturating_add(change);
    }
    Some(bound)
}

/// Debug builds: the move of these routes, priced whole, does not improve
/// (or a route of it is infeasible): what an early stop said of it.
#[cfg(debug_assertions)]
fn assert_no_gain(p: &FleetProblem, sol: &mut Solution, routes: &[NewRoute], what: &str) {
    let mut delta = FleetCost::ZERO;
    for nr in routes {
        let v = sol.routes[nr.route].vehicle;
        match sol.evaluate(p, v, nr.pieces()) {
            Some(e) => delta = delta.plus(e.cost(p)).minus(sol.routes[nr.route].cost(p)),
            None => return,
        }
    }
    assert!(delta >= FleetCost::ZERO, "{}: {:?}", what, delta);
}

/// While the windows are soft and the objective is the distance alone (no
/// weighted duration, no costs of the vehicles' own: `soft_windows::applies`),
/// what the new routes' time warp may cost at most for the move to improve:
/// the old routes' warp cost less the change of distance (None otherwise).
fn affordable_warp_cost(p: &FleetProblem, sol: &Solution, routes: &[NewRoute]) -> Option<i64> {
    if !p.windows_soft() || !p.duration_free() || p.priced {
        return None;
    }
    let mut affordable = 0i64;
    for nr in routes {
        let old = &sol.routes[nr.route];
        let v = old.vehicle;
        let (dist, count) = sol.distance_of_pieces(p, v, nr.pieces());
        affordable = affordable
            .saturating_add(p.warp_cost(old.eval.warp))
            .saturating_add(p.route_main(v, old.len(), 0, old.eval.distance))
            .saturating_sub(p.route_main(v, count, 0, dist));
    }
    Some(affordable)
}

/// Whether `main_bound` has a bound for a move of these routes: the
/// objective weighs no duration, or its distances are the driving times
/// and no vehicle has costs of its own (a duration is then at least the
/// driving plus the service); and no route is late (with soft deadlines a
/// move could then lower the lateness).
#[inline(always)]
fn bound_known(p: &FleetProblem, sol: &Solution, mut routes: impl Iterator<Item = usize>) -> bool {
    (p.duration_free() || (!p.priced && p.distance_is_travel()))
        && !(p.has_deadlines && routes.any(|r| sol.routes[r].eval.lateness > 0))
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
