//! A fleet problem that is a single route in disguise, solved by the
//! single-route engine (`crate::solve_problem`: exact at <= 10 stops, else
//! the Lin–Kernighan / Or-opt iterated local search), as POST
//! /api/v1/optimize solves it; every other problem goes to the fleet search
//! (`driver::solve_since`). `fleet::solve` and `fleet::solve_since` are this
//! file's.
//!
//! **When the two objectives order plans alike.** The fleet compares
//! (priority-weighted unassigned jobs, total lateness, `main`); the single
//! route (total lateness, duration), duration counted from the departure with
//! every service included. Take one vehicle (`single_route` checks each
//! condition below):
//! - every job can go to it: no allowed-vehicle list leaving it out, no
//!   shipment, no break, no job with several windows, no more jobs than its
//!   maxStops, and a capacity that cannot bind (per dimension, the total
//!   delivered plus the total picked up is within it: the load on board
//!   never exceeds that sum). Then a route through every job that keeps the
//!   time rules assigns all, so priorities (which weigh only jobs left out)
//!   cannot matter;
//! - no job's hard window is narrower than the shift: ready <= the departure
//!   (the shift start) and due >= the latest return (`Vehicle::shift_end`,
//!   maxDuration included). Arrivals are never before the departure, so no
//!   route waits, and a route back in time starts every service by its
//!   return, so by its due. Starts of service are then the arrivals, each
//!   stop's lateness is the same number in both models (a deadline counts
//!   from the departure here; one before the departure, which the fleet
//!   counts from time 0, adds the same constant to every route), and a
//!   route's duration is driving + all services, as the single route's;
//! - `main` is then a non-decreasing function of the route's duration and
//!   distance (the vehicle cost once, duration and distance weights, the
//!   vehicle's own costs, the balance terms at a fixed job count: all
//!   weights are non-negative, d² grows with d). Over the travel times (`Basis::Travel`),
//!   when the distance carries no weight or the objective's distances equal
//!   the travel times on every arc a route can use, `main` is non-decreasing
//!   in the driving time, which orders routes as the duration does (the
//!   services are a constant): the single route's optimum is the fleet's.
//!   With a distance matrix of its own, a `main` free of duration
//!   (`FleetProblem::duration_free`) and no deadlines (VROOM's objective),
//!   the single route runs over the distances instead (`Basis::Distance`,
//!   no services).
//!
//! **Hard limits after the fact.** The shift end (with maxDuration),
//! maxDriving and maxDistance restrict which routes are allowed without
//! pricing any: the optimum over all routes, if it keeps them, is the optimum
//! over the allowed ones. So they are checked on the answer
//! (`solution::route_violation`, the fleet's own check): when it breaks one,
//! the fleet search solves the problem instead. When such a limit might
//! bind (it is below a bound on any route's length), the single route gets
//! half of a time budget, and the fleet search the rest if it must.
//!
//! The single route's (n + 2)² matrix is built from the fleet's cells (read
//! in place, possibly the host's buffer), only at the places it visits; an
//! arc that is unreachable, a service or a deadline beyond i32, or a side
//! beyond `problem::MAX_SIZE` leave the problem to the fleet search.

use super::deadline::Deadline;
use super::driver::{self, FleetParams, FleetSolution};
use super::model::{FleetProblem, NO_LIMIT, UNREACHABLE};
use super::same_place::input_order_at_same_place;
use super::solution::{route_violation, times_of, Solution};
use crate::problem::{Input, Problem, MAX_SIZE};
use crate::search::{Clock, Params};

/// The matrix the single route is built over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Basis {
    /// The travel times, with the services and the deadlines.
    Travel,
    /// The objective's distances (no deadlines, `main` free of duration).
    Distance,
}

/// The single-route problem of a fleet problem (external numbering:
/// [the vehicle's start, job 0 .. job n-1, its end?]).
#[derive(Clone, Debug)]
pub struct SingleRoute {
    pub basis: Basis,
    pub size: usize,
    pub durations: Vec<i32>,
    pub service: Vec<i32>,
    /// Seconds after the departure, -1 = none.
    pub deadline: Vec<i32>,
    pub has_end: bool,
    /// The shift end, maxDriving or maxDistance might bind: the answer is
    /// checked against them (it always is), with half a time budget.
    pub may_bind: bool,
}

impl SingleRoute {
    pub fn input(&self) -> Input<'_> {
        Input {
            size: self.size,
            durations: &self.durations,
            service: &self.service,
            deadline: &self.deadline,
            has_end: self.has_end,
        }
    }
}

/// `solve_since` from now.
pub fn solve(p: &FleetProblem, params: &FleetParams, clock: &dyn Clock) -> FleetSolution {
    solve_since(p, params, clock, clock.now_ms())
}

/// The single-route engine's plan when `p` is a single route in disguise and
/// its answer keeps the hard limits; otherwise the fleet search's
/// (`driver::solve_since`, with the time limit still counted from `started_ms`).
pub fn solve_since(
    p: &FleetProblem,
    params: &FleetParams,
    clock: &dyn Clock,
    started_ms: f64,
) -> FleetSolution {
    if let Ok(single) = single_route(p) {
        if let Some(sol) = solve_single(p, single, params, clock, started_ms) {
            return sol;
        }
    }
    driver::solve_since(p, params, clock, started_ms)
}

/// The single-route problem of `p`, or why it is not one (a short name of
/// the first condition that fails; see the module's comment).
pub fn single_route(p: &FleetProblem) -> Result<SingleRoute, &'static str> {
    if p.vehicles.len() != 1 {
        return Err("vehicles");
    }
    let n = p.n();
    if n > p.vehicles[0].max_stops || (0..n).any(|j| !p.allows(j, 0)) {
        return Err("maxStops or allowed vehicles");
    }
    let jobs: Vec<u32> = (0..n as u32).collect();
    route_problem(p, 0, &jobs)
}

/// The single-route problem of vehicle v's route through `jobs` (any order),
/// or why the single route's optimum might not be the fleet's best order of
/// those jobs: a shipment, a break or a job of several windows in the
/// problem; a load that depends on the order; a window narrower than the
/// vehicle's shift; an objective the single route cannot follow (the
/// module's comment). Jobs the vehicle may not take or too many for its
/// `maxStops` are the caller's to rule out.
pub fn route_problem(
    p: &FleetProblem,
    v: usize,
    jobs: &[u32],
) -> Result<SingleRoute, &'static str> {
    let veh = &p.vehicles[v];
    let n = jobs.len();
    let has_end = veh.end < p.nloc - 1;
    let size = n + 1 + has_end as usize;
    if size > MAX_SIZE {
        return Err("size");
    }
    if p.has_pairs || p.has_breaks || p.multi_windows {
        return Err("shipments, breaks or several windows");
    }
    for d in 0..p.dims {
        let carried = jobs.iter().fold(0i64, |s, &j| {
            let j = j as usize;
            s.saturating_add(p.unload[j * p.dims + d])
                .saturating_add(p.load[j * p.dims + d])
        });
        if carried > p.capacity[v * p.dims + d] {
            return Err("capacity");
        }
    }
    let job = |j: u32| &p.jobs[j as usize];
    if jobs
        .iter()
        .any(|&j| job(j).ready > veh.shift_start || job(j).due < veh.shift_end)
    {
        return Err("time window");
    }
    let locs = places(p, v, jobs, has_end);
    let o = &p.objective;
    let costs = &veh.costs;
    let distance_weighed = o.distance_weight > 0 || costs.per_distance > 0;
    let mut basis = Basis::Travel;
    let mut durations = cells(&locs, has_end, |a, b| p.t(a, b))?;
    if distance_weighed && !same_arcs(p, &locs, has_end) {
        if p.has_deadlines || !p.duration_free() {
            return Err("objective");
        }
        basis = Basis::Distance;
        durations = cells(&locs, has_end, |a, b| p.d(a, b))?;
    }
    // a bound on any route's driving: each job's longest way in, the longest way to the end
    let mut longest = 0i64;
    for k in 0..n {
        let way_in = (0..=n)
            .filter(|&i| i != k + 1)
            .map(|i| cell(&durations, size, i, k + 1));
        longest = longest.saturating_add(way_in.max().unwrap_or(0));
    }
    let to_end = (1..=n).map(|i| cell(&durations, size, i, size - 1));
    longest = longest.saturating_add(if has_end {
        to_end.max().unwrap_or(0)
    } else {
        0
    });
    let (service, deadline) = match basis {
        Basis::Distance => (vec![0; n], vec![-1; n]),
        Basis::Travel => {
            let service: Vec<i32> = jobs
                .iter()
                .map(|&j| i32::try_from(job(j).service).unwrap_or(-1))
                .collect();
            if service.iter().any(|&s| s < 0) {
                return Err("service");
            }
            longest = service
                .iter()
                .fold(longest, |s, &x| s.saturating_add(x as i64));
            let mut deadline = Vec::with_capacity(n);
            for &j in jobs {
                let j = job(j);
                // counted from the departure; one already past counts from it (a constant)
                let relative = (j.deadline - veh.shift_start).max(0);
                deadline.push(if j.deadline >= NO_LIMIT || relative >= longest {
                    -1
                } else {
                    i32::try_from(relative).map_err(|_| "deadline")?
                });
            }
            (service, deadline)
        }
    };
    // the travel times bound the shift and maxDriving; maxDistance is never proven slack
    let driving = if basis == Basis::Travel {
        Some(longest)
    } else {
        None
    };
    let slack = |limit: i64| limit >= NO_LIMIT || driving.map_or(false, |d| d <= limit);
    let may_bind = !slack(veh.shift_end.saturating_sub(veh.shift_start))
        || !slack(veh.max_driving)
        || veh.max_distance < NO_LIMIT;
    Ok(SingleRoute {
        basis,
        size,
        durations,
        service,
        deadline,
        has_end,
        may_bind,
    })
}

#[inline(always)]
fn cell(durations: &[i32], size: usize, a: usize, b: usize) -> i64 {
    durations[a * size + b] as i64
}

/// The places of the single route's nodes: vehicle v's start, the jobs', its end (when real).
fn places(p: &FleetProblem, v: usize, jobs: &[u32], has_end: bool) -> Vec<usize> {
    let veh = &p.vehicles[v];
    std::iter::once(veh.start)
        .chain(jobs.iter().map(|&j| p.jobs[j as usize].loc))
        .chain(if has_end { Some(veh.end) } else { None })
        .collect()
}

/// The single route's matrix over `value` between its places (`Err` when an
/// arc is unreachable; the end's row, never left, is 0).
fn cells(
    locs: &[usize],
    has_end: bool,
    value: impl Fn(usize, usize) -> i64,
) -> Result<Vec<i32>, &'static str> {
    let size = locs.len();
    let mut out = vec![0i32; size * size];
    for (a, &la) in locs.iter().enumerate() {
        if has_end && a == size - 1 {
            break;
        }
        for (b, &lb) in locs.iter().enumerate() {
            if a == b {
                continue;
            }
            let x = value(la, lb);
            if x >= UNREACHABLE || x > i32::MAX as i64 {
                return Err("unreachable");
            }
            out[a * size + b] = x as i32;
        }
    }
    Ok(out)
}

/// The objective's distances equal the travel times on every arc a route can use.
fn same_arcs(p: &FleetProblem, locs: &[usize], has_end: bool) -> bool {
    let last_from = if has_end { locs.len() - 1 } else { locs.len() };
    (0..last_from)
        .all(|a| (1..locs.len()).all(|b| a == b || p.d(locs[a], locs[b]) == p.t(locs[a], locs[b])))
}

/// The fleet's plan of the single route's answer, or None when it breaks a
/// hard limit (or, which the conditions rule out, is not a valid plan).
fn solve_single(
    p: &FleetProblem,
    single: SingleRoute,
    params: &FleetParams,
    clock: &dyn Clock,
    started_ms: f64,
) -> Option<FleetSolution> {
    let problem = Problem::new(&single.input()).ok()?;
    let may_bind = single.may_bind;
    // the problem holds its own (i64) matrices
    drop(single);
    // the fleet's time limit (its reserve included), half of it when a hard limit might bind
    let fleet_limit = Deadline::new(clock, started_ms, params.effective_time_limit_ms());
    let limit = if may_bind {
        fleet_limit.until(fleet_limit.stop_ms() / 2.0)
    } else {
        fleet_limit
    };
    let search = Params {
        seed: params.seed,
        // not read: `limit` is
        time_limit_ms: 0.0,
        max_iterations: params.max_iterations,
        // the search's own convergence stop, as optimize's (the fleet's counts ruin-and-recreate iterations)
        stall_iterations: 0,
        options: Default::default(),
    };
    let jobs_of = |order: &[usize]| -> Vec<u32> { order.iter().map(|&s| (s - 1) as u32).collect() };
    let mut announce = |route: &[usize], _| {
        let jobs = jobs_of(&route[1..route.len() - 1]);
        announce_if_valid(p, &jobs);
    };
    let (order, _, progress, _) = crate::solve_problem(&problem, &search, &limit, &mut announce);
    drop(problem);
    let exact = order.len() <= crate::exact::EXACT_MAX_STOPS;
    let jobs = input_order_at_same_place(p, 0, &jobs_of(&order));
    if route_violation(p, 0, &jobs).is_some() {
        return None;
    }
    if exact {
        announce_if_valid(p, &jobs);
    }
    let mut plan = Solution::empty(p);
    plan.set_route(p, 0, jobs.clone());
    debug_assert!(plan.check(p).is_ok());
    let cost = plan.cost(p);
    if cost.unassigned != 0 {
        return None;
    }
    Some(FleetSolution {
        routes: vec![jobs],
        unassigned: Vec::new(),
        cost,
        progress,
    })
}

/// Tells the host of a plan serving every job (as the fleet search does at
/// each new best: `crate::ffi::report_improvement`) when it keeps every rule.
fn announce_if_valid(p: &FleetProblem, jobs: &[u32]) {
    if route_violation(p, 0, jobs).is_none() {
        let (_, back) = times_of(p, 0, jobs);
        crate::ffi::report_improvement(jobs.len(), back - p.vehicles[0].shift_start);
    }
}
