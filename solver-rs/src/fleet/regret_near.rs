//! Regret-2 construction on neighbour lists, for problems too big for the
//! full table of `insertion::regret_insert` (every job against every route,
//! one column recomputed per insertion, every job's regret rescanned per
//! pick: 13 s at 2,500 stops × 100 vans natively, minutes at 5,000).
//!
//! A job is priced only on its candidate routes: the routes of its
//! `CANDIDATE_NEIGHBOURS` nearest jobs (of both jobs of a shipment) and, per
//! vehicle class, one empty route it may take. Its best and second best form
//! its regret key (higher priority, a single candidate, larger regret,
//! cheaper, lower index first; a job best placed on a new route comes after
//! every job that fits an open route: its near jobs may not be placed yet),
//! kept in a heap (`KeyedHeap`: one entry per job, its key changed in
//! place). A job about to open a route is priced on every open route first
//! (`insertion::best_over_routes`), and goes to the cheapest that takes it
//! for less than the new route (its near jobs may all be unplaced, or in
//! routes that are full, while a route it cannot see has room: on a random
//! day of 1000 stops and 50 vans, 20 routes with this rule, 28 without,
//! 19 with the full table).
//!
//! After an insertion into route r only r changed, so only r is priced
//! again, for: the near jobs of the inserted one (r may now be a candidate
//! of theirs: it holds a near job; their other candidate routes are the
//! same) and the jobs whose best or second best was r. They are priced
//! together, in one column along the matrix rows (`insertion_column`: the
//! same places as one job at a time). Each job keeps its place in every
//! candidate route. Should one of a job's new best two have been priced
//! before its route last changed, the job is priced again on every candidate
//! route, so the best two are always exact (checked after each insertion in
//! debug builds, with every open candidate route priced); the places ranked
//! below them may be stale. When r was an empty route, its near jobs are
//! priced again on every candidate route (the class's next empty route is
//! theirs now), and a job that priced r moves to the next empty route of the
//! class at the same cost without a new pricing when that route costs the
//! same. The job popped is thus always placed where its cached place says,
//! or in the open route that pricing finds.
//! Jobs no candidate route takes are inserted last over every route (as
//! `greedy_insert`), so a far job still finds a route when one exists.
//!
//! O(n · k) pricings (k candidate routes, each O(route length)) instead of
//! O(n² · routes).

use super::deadline::Deadline;
use super::insertion::{best_over_routes, greedy_insert, ALL_ROUTES};
use super::insertion_column::{fits, Column};
use super::keyed_heap::KeyedHeap;
use super::model::{FleetProblem, Role};
use super::pairs::Place;
use super::solution::{FleetCost, Solution};
use crate::rng::Rng;
use std::cmp::Reverse;

/// Near jobs whose routes a job is priced on.
pub const CANDIDATE_NEIGHBOURS: usize = 24;

/// A job's cached pricing over its candidate routes.
#[derive(Clone, Copy, Debug)]
struct Priced {
    best: FleetCost,
    route: usize,
    k: usize,
    k2: usize,
    /// The second best (None: a single candidate route).
    second: Option<(FleetCost, usize)>,
    /// The best is an empty route.
    opens: bool,
}

type HeapKey = (i64, bool, FleetCost, Reverse<FleetCost>, Reverse<u32>);

const NO_KEY: HeapKey = (
    0,
    false,
    FleetCost::ZERO,
    Reverse(FleetCost::ZERO),
    Reverse(0),
);

fn heap_key(p: &FleetProblem, j: usize, c: &Priced) -> HeapKey {
    // a job best placed on a new route waits until no job fits an open route: its near jobs may
    // not be placed yet, and routes it cannot see may open near it
    let (single, regret) = match c.second {
        _ if c.opens => (false, FleetCost::ZERO),
        None => (true, FleetCost::ZERO),
        Some((s, _)) => (false, s.minus(c.best)),
    };
    (
        p.jobs[j].priority,
        single,
        regret,
        Reverse(c.best),
        Reverse(j as u32),
    )
}

struct State {
    /// Per vehicle class: its empty routes, the next one last.
    empty: Vec<Vec<usize>>,
    class: Vec<usize>,
    /// Per route: jobs whose cached best or second best is that route (stale entries checked on use).
    dependents: Vec<Vec<u32>>,
    /// Per job: the jobs that have it among their CANDIDATE_NEIGHBOURS nearest.
    near_of: Vec<Vec<u32>>,
    priced: Vec<Option<Priced>>,
    /// Per job: its candidate routes' places as last priced, in pricing
    /// order, each with the route's insertion count then (`inserted`).
    places: Vec<Vec<Candidate>>,
    /// Per route: insertions made into it (a place priced before is stale).
    inserted: Vec<u32>,
    pending: Vec<bool>,
    /// The waiting jobs that some candidate route takes, by their key.
    heap: KeyedHeap<HeapKey>,
    /// Scratch: candidate routes, and a per-route stamp to collect them once.
    routes: Vec<usize>,
    /// Scratch of `refresh_on`.
    column: Column,
    batch: Vec<(u32, Option<Place>)>,
    stamp: Vec<u32>,
    round: u32,
}

/// Up to this many jobs, debug builds check every waiting job's best two
/// places, and that it was priced on every open candidate route, after each
/// insertion (`State::check_best_two`).
#[cfg(debug_assertions)]
const DEBUG_CHECK_JOBS: usize = 400;

/// A job's place in one of its candidate routes (None: the route cannot take it).
#[derive(Clone, Copy, Debug)]
struct Candidate {
    route: usize,
    place: Option<Place>,
    /// The route's insertion count when priced.
    inserted: u32,
}

impl State {
    /// Price job j (a unit: j or its shipment's pickup) on its candidate routes.
    fn price(&mut self, p: &FleetProblem, sol: &mut Solution, j: usize) -> Option<Priced> {
        self.round = self.round.wrapping_add(1);
        if self.round == 0 {
            self.stamp.iter_mut().for_each(|s| *s = 0);
            self.round = 1;
        }
        self.routes.clear();
        let ends = [Some(j), p.partner(j)];
        for &e in ends.iter().flatten() {
            for &o in p.neighbours[e].iter().take(CANDIDATE_NEIGHBOURS) {
                let r = sol.route_of[o as usize];
                if r != super::solution::NONE
                    && self.stamp[r as usize] != self.round
                    && p.allows(j, r as usize)
                {
                    self.stamp[r as usize] = self.round;
                    self.routes.push(r as usize);
                }
            }
        }
        for list in &self.empty {
            if let Some(&r) = list.iter().rev().find(|&&r| p.allows(j, r)) {
                self.routes.push(r);
            }
        }
        let mut places = std::mem::take(&mut self.places[j]);
        places.clear();
        for &r in &self.routes {
            places.push(Candidate {
                route: r,
                place: sol.best_unit_insertion(p, r, j, || false),
                inserted: self.inserted[r],
            });
        }
        self.places[j] = places;
        self.best_two(sol, j)
    }

    /// Job j's place in route r as priced again (r changed; j's other
    /// candidate routes did not), then its best two. Falls back to a whole
    /// pricing when one of the best two was priced before its route last
    /// changed (it was neither of j's best two then, so j was not told).
    fn priced_again(
        &mut self,
        p: &FleetProblem,
        sol: &mut Solution,
        j: usize,
        r: usize,
        place: Option<Place>,
    ) -> Option<Priced> {
        let fresh = Candidate {
            route: r,
            place,
            inserted: self.inserted[r],
        };
        match self.places[j].iter_mut().find(|c| c.route == r) {
            Some(c) => *c = fresh,
            None => self.places[j].push(fresh),
        }
        let priced = self.best_two(sol, j);
        let fresh = |route: usize| {
            self.places[j]
                .iter()
                .all(|c| c.route != route || c.inserted == self.inserted[route])
        };
        match priced {
            Some(c) if !fresh(c.route) || c.second.map_or(false, |(_, r2)| !fresh(r2)) => {
                self.price(p, sol, j)
            }
            _ => priced,
        }
    }

    /// Every waiting job's cached best and second best are its places in
    /// those routes as they are now (a stale place may only stand for a
    /// route that is neither).
    #[cfg(debug_assertions)]
    fn check_best_two(&self, p: &FleetProblem, sol: &mut Solution) {
        for j in 0..p.n() {
            // every open candidate route (its near jobs', of either end) has been priced
            if self.pending[j] {
                for &e in [Some(j), p.partner(j)].iter().flatten() {
                    for &o in p.neighbours[e].iter().take(CANDIDATE_NEIGHBOURS) {
                        let r = sol.route_of[o as usize];
                        assert!(
                            r == super::solution::NONE
                                || !p.allows(j, r as usize)
                                || self.places[j].iter().any(|c| c.route == r as usize),
                            "job {}: its candidate route {} was never priced",
                            j,
                            r
                        );
                    }
                }
            }
            let c = match self.priced[j] {
                Some(c) if self.pending[j] => c,
                _ => continue,
            };
            assert_eq!(
                sol.best_unit_insertion(p, c.route, j, || false),
                Some((c.best, c.k, c.k2)),
                "job {}: its best place in route {} is stale",
                j,
                c.route
            );
            if let Some((c2, r2)) = c.second {
                assert_eq!(
                    sol.best_unit_insertion(p, r2, j, || false).map(|x| x.0),
                    Some(c2),
                    "job {}: its second best place, in route {}, is stale",
                    j,
                    r2
                );
            }
        }
    }

    /// Job j's best and second best over its candidate places.
    fn best_two(&self, sol: &Solution, j: usize) -> Option<Priced> {
        let mut first: Option<Priced> = None;
        let mut second: Option<(FleetCost, usize)> = None;
        for cand in &self.places[j] {
            let r = cand.route;
            if let Some((c, k, k2)) = cand.place {
                match first {
                    Some(f) if c >= f.best => {
                        if second.map_or(true, |s| c < s.0) {
                            second = Some((c, r));
                        }
                    }
                    _ => {
                        if let Some(f) = first {
                            second = Some((f.best, f.route));
                        }
                        first = Some(Priced {
                            best: c,
                            route: r,
                            k,
                            k2,
                            second: None,
                            opens: sol.routes[r].is_empty(),
                        });
                    }
                }
            }
        }
        first.map(|f| Priced { second, ..f })
    }

    /// Price job j again and queue it (unqueued when no candidate route takes it).
    fn refresh(&mut self, p: &FleetProblem, sol: &mut Solution, j: usize) {
        let priced = self.price(p, sol, j);
        self.store(p, j, priced);
    }

    /// `refresh` after a change of route r alone, for each of `jobs` (waiting,
    /// allowed on r). Their places in r are priced together, along the
    /// matrix rows (`Column`) when the route's case fits it: the same places
    /// as `best_unit_insertion` one job at a time, for fewer cache misses.
    fn refresh_on(&mut self, p: &FleetProblem, sol: &mut Solution, r: usize, jobs: &[u32]) {
        let mut places = std::mem::take(&mut self.batch);
        places.clear();
        if fits(p, sol, r) {
            self.column
                .compute(p, sol, r, jobs, |o, place| places.push((o as u32, place)));
        } else {
            places.extend(
                jobs.iter()
                    .map(|&o| (o, sol.best_unit_insertion(p, r, o as usize, || false))),
            );
        }
        for &(o, place) in &places {
            let priced = self.priced_again(p, sol, o as usize, r, place);
            self.store(p, o as usize, priced);
        }
        self.batch = places;
    }

    fn store(&mut self, p: &FleetProblem, j: usize, priced: Option<Priced>) {
        self.priced[j] = priced;
        match priced {
            Some(c) => {
                self.dependents[c.route].push(j as u32);
                if let Some((_, r2)) = c.second {
                    self.dependents[r2].push(j as u32);
                }
                self.heap.set(j, heap_key(p, j, &c));
            }
            None => self.heap.remove(j),
        }
    }
}

/// The job a unit is queued by: a shipment's pickup for its delivery, else the job.
fn unit_of(p: &FleetProblem, j: u32) -> u32 {
    match (p.role[j as usize], p.partner(j as usize)) {
        (Role::Delivery, Some(pk)) => pk as u32,
        _ => j,
    }
}

/// The jobs that have each job among their `k` nearest.
fn near_of(p: &FleetProblem, k: usize) -> Vec<Vec<u32>> {
    let mut out = vec![Vec::new(); p.n()];
    for j in 0..p.n() {
        for &o in p.neighbours[j].iter().take(k) {
            out[o as usize].push(j as u32);
        }
    }
    out
}

/// Regret-2 insertion of every unassigned job on neighbour lists (see the
/// module). When the deadline passes, the jobs left are inserted greedily in
/// the order of the heap as it stands (all of them, as `regret_insert`).
pub fn regret_insert_near(
    p: &FleetProblem,
    sol: &mut Solution,
    classes: &[usize],
    deadline: &Deadline,
) {
    let nv = sol.routes.len();
    let mut empty: Vec<Vec<usize>> = vec![Vec::new(); nv];
    for r in (0..nv).rev() {
        if sol.routes[r].is_empty() {
            empty[classes[r]].push(r);
        }
    }
    empty.retain(|l| !l.is_empty());
    let mut class = vec![0usize; nv];
    for (c, list) in empty.iter().enumerate() {
        for &r in list {
            class[r] = c;
        }
    }
    let mut s = State {
        empty,
        class,
        dependents: vec![Vec::new(); nv],
        near_of: near_of(p, CANDIDATE_NEIGHBOURS),
        priced: vec![None; p.n()],
        places: vec![Vec::new(); p.n()],
        inserted: vec![0; nv],
        pending: vec![false; p.n()],
        heap: KeyedHeap::new(p.n(), NO_KEY),
        routes: Vec::new(),
        stamp: vec![0; nv],
        round: 0,
        column: Column::default(),
        batch: Vec::new(),
    };
    for j in 0..p.n() {
        if !sol.is_assigned(j) && p.role[j] != Role::Delivery {
            s.pending[j] = true;
            s.refresh(p, sol, j);
        }
    }
    let mut touched: Vec<u32> = Vec::new();
    let mut on_r: Vec<u32> = Vec::new();
    while let Some((j, key)) = s.heap.pop() {
        if deadline.expired() {
            s.heap.set(j, key);
            break;
        }
        let mut c = s.priced[j].expect("queued jobs are priced");
        if c.opens {
            // about to open a route: an open route out of its near jobs' sight may take it for less
            let open = best_over_routes(
                p,
                sol,
                classes,
                j,
                &mut Rng::new(0),
                0,
                false,
                ALL_ROUTES,
                &mut s.routes,
            );
            if let Some((cost, route, k, k2)) = open.filter(|o| o.0 < c.best) {
                c = Priced {
                    best: cost,
                    route,
                    k,
                    k2,
                    second: None,
                    opens: false,
                };
            }
        }
        let r = c.route;
        let was_empty = sol.routes[r].is_empty();
        sol.insert_unit(p, r, j, c.k, c.k2);
        s.inserted[r] += 1;
        s.pending[j] = false;
        if was_empty {
            let list = &mut s.empty[s.class[r]];
            list.retain(|&x| x != r);
        }
        // the jobs to price again: near the inserted unit (on all their candidate routes: r may be
        // a new one), and those whose best or second was r (on r alone, the one that changed)
        touched.clear();
        on_r.clear();
        for &e in [Some(j), p.partner(j)].iter().flatten() {
            touched.extend(s.near_of[e].iter().map(|&o| unit_of(p, o)));
        }
        let deps = std::mem::take(&mut s.dependents[r]);
        for o in deps {
            let ou = o as usize;
            if !s.pending[ou] {
                continue;
            }
            let oc = match s.priced[ou] {
                Some(c) => c,
                None => continue,
            };
            let uses = oc.route == r || oc.second.map_or(false, |x| x.1 == r);
            if !uses {
                continue;
            }
            if was_empty {
                if !moved_to_next_empty(p, sol, &mut s, ou, oc, r) {
                    touched.push(o);
                }
                continue;
            }
            on_r.push(o);
        }
        touched.retain(|&o| s.pending[o as usize]);
        if was_empty {
            // the class's next empty route is now their candidate: priced on every candidate again
            touched.sort_unstable();
            touched.dedup();
            for &o in &touched {
                s.refresh(p, sol, o as usize);
            }
        } else {
            // only r changed, and only r may be new among their candidate routes (it holds j now)
            touched.retain(|&o| p.allows(o as usize, r));
            touched.extend_from_slice(&on_r); // waiting: checked as they were collected
            touched.sort_unstable();
            touched.dedup();
            s.refresh_on(p, sol, r, &touched);
        }
        #[cfg(debug_assertions)]
        if p.n() <= DEBUG_CHECK_JOBS {
            s.check_best_two(p, sol);
        }
    }
    // the heap's order first (cut by the deadline), then every job no candidate route took
    let mut order: Vec<u32> = Vec::new();
    while let Some((j, _)) = s.heap.pop() {
        s.pending[j] = false;
        order.push(j as u32);
    }
    order.extend((0..p.n() as u32).filter(|&j| s.pending[j as usize]));
    greedy_insert(
        p,
        sol,
        classes,
        &order,
        &mut Rng::new(0),
        0,
        true,
        ALL_ROUTES,
        &Deadline::none(),
    );
}

/// Job o priced the empty route r (best or second), which just opened: when
/// the next empty route of r's class takes o at the same cost, point the
/// cache there (no pricing; the key does not change). False: price o again.
fn moved_to_next_empty(
    p: &FleetProblem,
    sol: &mut Solution,
    s: &mut State,
    o: usize,
    oc: Priced,
    r: usize,
) -> bool {
    let next = match s.empty[s.class[r]].iter().rev().find(|&&x| p.allows(o, x)) {
        Some(&x) => x,
        None => return false,
    };
    let same = sol.best_unit_insertion(p, next, o, || false);
    let mut moved = oc;
    if oc.route == r {
        match same {
            Some((c, k, k2)) if c == oc.best => {
                moved.route = next;
                moved.k = k;
                moved.k2 = k2;
            }
            _ => return false,
        }
    }
    if let Some((c2, r2)) = oc.second {
        if r2 == r {
            match same {
                Some((c, _, _)) if c == c2 => moved.second = Some((c2, next)),
                _ => return false,
            }
        }
    }
    // same key: the queued entry stays valid; only the routes it names move
    for cand in s.places[o].iter_mut().filter(|c| c.route == r) {
        *cand = Candidate {
            route: next,
            place: same,
            inserted: s.inserted[next],
        };
    }
    s.priced[o] = Some(moved);
    s.dependents[next].push(o as u32);
    true
}
