//! Why a job is unassigned: the reason codes of the plans API.

use super::load::profile_of;
use super::model::{FleetProblem, UNREACHABLE};
use super::solution::{route_violation, Route, Solution};

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
    // a shipment's two jobs are placed together: the reasons are the pair's
    let unit = p.unit(j);
    let nv = p.vehicles.len();
    // narrowed step by step: allowed, reachable, large enough, feasible alone
    let mut vehicles: Vec<usize> = (0..nv)
        .filter(|&v| unit.iter().all(|&x| p.allows(x as usize, v)))
        .collect();
    if vehicles.is_empty() {
        return Reason::AllowedVehicles;
    }
    vehicles.retain(|&v| {
        let veh = &p.vehicles[v];
        unit.iter().all(|&x| {
            let loc = p.jobs[x as usize].loc;
            p.t(veh.start, loc) < UNREACHABLE && p.t(loc, veh.end) < UNREACHABLE
        })
    });
    if vehicles.is_empty() {
        return Reason::Unreachable;
    }
    // the most the unit has on board when it rides alone
    let alone_load: Vec<i64> = (0..p.dims)
        .map(|d| profile_of(p, &unit).iter().map(|l| l[d]).max().unwrap_or(0))
        .collect();
    vehicles.retain(|&v| {
        unit.len() <= p.vehicles[v].max_stops
            && (0..p.dims).all(|d| alone_load[d] <= p.capacity[v * p.dims + d])
    });
    if vehicles.is_empty() {
        return Reason::Capacity;
    }
    let why: Vec<Option<String>> = vehicles
        .iter()
        .map(|&v| route_violation(p, v, &unit))
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
        let misses = |v: usize| {
            let veh = &p.vehicles[v];
            unit.iter().any(|&x| {
                let job = &p.jobs[x as usize];
                p.start_at(x as usize, veh.shift_start + p.t(veh.start, job.loc)) > job.due
            })
        };
        return if vehicles.iter().all(|&v| misses(v)) {
            Reason::TimeWindows
        } else {
            Reason::Shift
        };
    }
    let vehicles = alone;
    // left out for higher priorities: a vehicle that could serve it alone serves one of them
    let mine = unit
        .iter()
        .map(|&x| p.jobs[x as usize].priority)
        .max()
        .unwrap_or(0);
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
    if vehicles.iter().all(|&v| !room(p, &sol.routes[v], &unit)) {
        return Reason::Capacity;
    }
    // a place in a final route where only a route limit is broken
    let limit_only = vehicles.iter().any(|&v| {
        let jobs = &sol.routes[v].jobs;
        placements(jobs.len(), unit.len())
            .into_iter()
            .any(|(i, k)| {
                let with = placed(jobs, &unit, i, k);
                route_violation(p, v, &with).map_or(false, |w| w.starts_with("limit"))
            })
    });
    if limit_only {
        Reason::RouteLimit
    } else {
        Reason::Shift
    }
}

/// The unit's positions (first job before i, second before k >= i) worth
/// trying in a route of n jobs: every one, or for a shipment in a long route
/// (n > 60, O(n²) checks of O(n) each) the two jobs side by side.
fn placements(n: usize, unit_len: usize) -> Vec<(usize, usize)> {
    if unit_len == 1 || n > 60 {
        (0..=n).map(|k| (k, k)).collect()
    } else {
        (0..=n).flat_map(|i| (i..=n).map(move |k| (i, k))).collect()
    }
}

/// `jobs` with the unit placed at (i, k).
fn placed(jobs: &[u32], unit: &[u32], i: usize, k: usize) -> Vec<u32> {
    let mut with = jobs.to_vec();
    if unit.len() == 2 {
        with.insert(k, unit[1]);
    }
    with.insert(i, unit[0]);
    with
}

/// The route has a stop to spare for the unit and a place where its load fits.
fn room(p: &FleetProblem, route: &Route, unit: &[u32]) -> bool {
    let v = route.vehicle;
    if route.len() + unit.len() > p.vehicles[v].max_stops {
        return false;
    }
    let cap = p.vehicle_capacity(v);
    if !p.profile {
        let j = unit[0] as usize;
        return (0..p.dims).all(|d| route.total_load(p, d) + p.demand[j * p.dims + d] <= cap[d]);
    }
    placements(route.len(), unit.len())
        .into_iter()
        .any(|(i, k)| {
            let with = placed(&route.jobs, unit, i, k);
            profile_of(p, &with)
                .iter()
                .all(|l| (0..p.dims).all(|d| l[d] <= cap[d]))
        })
}
