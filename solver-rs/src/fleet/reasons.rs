//! Why a job is unassigned: the reason codes of the plans API.

use super::model::{FleetProblem, UNREACHABLE};
use super::solution::{route_violation, Solution};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    /// Its demand (or one more stop) fits no allowed vehicle.
    Capacity = 1,
    /// No allowed vehicle can reach it within its window and its shift.
    Shift = 2,
    /// No vehicle of the fleet is allowed to serve it.
    AllowedVehicles = 3,
    /// No allowed vehicle can travel to it (or back to its end) at all.
    Unreachable = 4,
    /// No allowed vehicle, leaving at its shift start, arrives before the end of its last window.
    TimeWindows = 5,
    /// It fits some allowed vehicle alone but for that vehicle's maxDuration, maxDriving or maxDistance.
    RouteLimit = 6,
    /// It fits a vehicle alone, and the plan gave that vehicle's room to jobs of higher priority.
    Priority = 7,
}

impl Reason {
    pub fn code(self) -> &'static str {
        match self {
            Reason::Capacity => "capacity",
            Reason::Shift => "shift",
            Reason::AllowedVehicles => "allowedVehicles",
            Reason::Unreachable => "unreachable",
            Reason::TimeWindows => "timeWindows",
            Reason::RouteLimit => "routeLimit",
            Reason::Priority => "priority",
        }
    }
}

/// The reason for an unassigned job j, first on its own (which vehicles
/// could serve it in an empty route), then against the final routes: when
/// every allowed vehicle that could serve it alone is full (load or
/// maxStops), capacity; otherwise shift (time windows and shifts). Alone,
/// a job whose last window ends before any allowed vehicle can get there
/// is `TimeWindows`, one that could start but not be back in time `Shift`.
/// A job kept out only by a route limit (alone, or at some place of a final
/// route where nothing else is broken) is `RouteLimit`.
pub fn reason(p: &FleetProblem, sol: &Solution, j: usize) -> Reason {
    let nv = p.vehicles.len();
    let loc = p.jobs[j].loc;
    // narrowed step by step: allowed, reachable, large enough, feasible alone
    let mut vehicles: Vec<usize> = (0..nv).filter(|&v| p.allows(j, v)).collect();
    if vehicles.is_empty() {
        return Reason::AllowedVehicles;
    }
    vehicles.retain(|&v| {
        let veh = &p.vehicles[v];
        p.t(veh.start, loc) < UNREACHABLE && p.t(loc, veh.end) < UNREACHABLE
    });
    if vehicles.is_empty() {
        return Reason::Unreachable;
    }
    let fits = |v: usize, extra_load: &[i64], extra_stops: usize| {
        extra_stops < p.vehicles[v].max_stops
            && (0..p.dims)
                .all(|d| extra_load[d] + p.demand[j * p.dims + d] <= p.capacity[v * p.dims + d])
    };
    let zero = vec![0i64; p.dims];
    vehicles.retain(|&v| fits(v, &zero, 0));
    if vehicles.is_empty() {
        return Reason::Capacity;
    }
    let why: Vec<Option<String>> = vehicles
        .iter()
        .map(|&v| route_violation(p, v, &[j as u32]))
        .collect();
    let alone: Vec<usize> = vehicles
        .iter()
        .zip(&why)
        .filter(|(_, w)| w.is_none())
        .map(|(&v, _)| v)
        .collect();
    if alone.is_empty() && why.iter().flatten().any(|w| w.starts_with("limit")) {
        return Reason::RouteLimit;
    }
    if alone.is_empty() {
        // every window missed even by a vehicle that goes there first: its windows; else its shift
        let job = &p.jobs[j];
        let misses = |v: usize| {
            let veh = &p.vehicles[v];
            p.start_at(j, veh.shift_start + p.t(veh.start, loc)) > job.due
        };
        return if vehicles.iter().all(|&v| misses(v)) {
            Reason::TimeWindows
        } else {
            Reason::Shift
        };
    }
    let vehicles = alone;
    // left out for higher priorities: a vehicle that could serve it alone serves one of them
    let mine = p.jobs[j].priority;
    if p.has_priorities
        && vehicles.iter().any(|&v| {
            sol.routes[v]
                .jobs
                .iter()
                .any(|&o| p.jobs[o as usize].priority > mine)
        })
    {
        return Reason::Priority;
    }
    let all_full = vehicles.iter().all(|&v| {
        let route = &sol.routes[v];
        let load: Vec<i64> = (0..p.dims).map(|d| route.total_load(p, d)).collect();
        !fits(v, &load, route.len())
    });
    if all_full {
        return Reason::Capacity;
    }
    // a place in a final route where only a route limit is broken
    let limit_only = vehicles.iter().any(|&v| {
        let jobs = &sol.routes[v].jobs;
        (0..=jobs.len()).any(|k| {
            let mut with = jobs.clone();
            with.insert(k, j as u32);
            route_violation(p, v, &with).map_or(false, |w| w.starts_with("limit"))
        })
    });
    if limit_only {
        Reason::RouteLimit
    } else {
        Reason::Shift
    }
}
