//! Why a job is unassigned: the reason codes of the plans API.

use super::load::profile_of;
use super::model::{FleetProblem, MAX_DIMS, NO_LIMIT, UNREACHABLE};
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
    // a place in a final route where only a route limit is broken (only a vehicle with a limit can have one:
    // on a day without limits this costs nothing, the search of places being O(n³) per route for a shipment)
    let limit_only = vehicles
        .iter()
        .filter(|&&v| has_route_limit(p, v))
        .any(|&v| {
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

/// The vehicle has a maxDuration, maxDriving or maxDistance.
fn has_route_limit(p: &FleetProblem, v: usize) -> bool {
    let veh = &p.vehicles[v];
    veh.shift_end < veh.given_shift_end || veh.max_driving < NO_LIMIT || veh.max_distance < NO_LIMIT
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
    load_fits_somewhere(p, &profile_of(p, &route.jobs), unit, cap)
}

/// Whether the unit can go somewhere in a route whose load after t visits is `prof[t]` (t = 0: at
/// departure) without exceeding `cap` at any point. A job x put before the route's t-th visit adds its
/// `unload` to every point up to there and its `load` to every point from there on (load::profile_of's
/// forward count), so with the unit's first job a before visit i and its second b before visit k ≥ i the
/// points are: up to i, prof + U_a + U_b; from i to k, prof + L_a + U_b; from k on, prof + L_a + L_b.
/// Prefix and suffix maxima and a running maximum make it O(n²) for a pair, O(n) for one job, no allocation.
fn load_fits_somewhere(p: &FleetProblem, prof: &[Vec<i64>], unit: &[u32], cap: &[i64]) -> bool {
    let dims = p.dims;
    let n = prof.len() - 1;
    let at = |x: u32, v: &[i64], d: usize| v[x as usize * dims + d];
    let (a, b) = (unit[0], unit.get(1).copied());
    let mut prefix = prof.to_vec();
    let mut suffix = prof.to_vec();
    for t in 1..=n {
        for d in 0..dims {
            prefix[t][d] = prefix[t][d].max(prefix[t - 1][d]);
        }
    }
    for t in (0..n).rev() {
        for d in 0..dims {
            suffix[t][d] = suffix[t][d].max(suffix[t + 1][d]);
        }
    }
    let fits = |d: usize, x: i64| x <= cap[d];
    let b = match b {
        Some(b) => b,
        None => {
            return (0..=n).any(|i| {
                (0..dims).all(|d| {
                    fits(d, prefix[i][d] + at(a, &p.unload, d))
                        && fits(d, suffix[i][d] + at(a, &p.load, d))
                })
            })
        }
    };
    let mut between = [0i64; MAX_DIMS];
    (0..=n).any(|i| {
        let before_ok =
            (0..dims).all(|d| fits(d, prefix[i][d] + at(a, &p.unload, d) + at(b, &p.unload, d)));
        if !before_ok {
            return false;
        }
        between[..dims].copy_from_slice(&prof[i][..dims]);
        (i..=n).any(|k| {
            for d in 0..dims {
                between[d] = between[d].max(prof[k][d]);
            }
            (0..dims).all(|d| {
                fits(d, between[d] + at(a, &p.load, d) + at(b, &p.unload, d))
                    && fits(d, suffix[k][d] + at(a, &p.load, d) + at(b, &p.load, d))
            })
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fleet::model::{FleetInput, JobInput, Objective, VehicleInput};
    use crate::rng::Rng;

    /// On one point, two dimensions: 0–3 deliveries, 4–5 backhaul pickups, (6, 7) and (8, 9) shipments.
    fn problem(rng: &mut Rng) -> FleetProblem {
        let mut q = || vec![(rng.next_u64() % 5) as i64, (rng.next_u64() % 4) as i64];
        let mut jobs: Vec<JobInput> = (0..4)
            .map(|_| JobInput {
                demand: q(),
                ..JobInput::default()
            })
            .collect();
        for _ in 0..2 {
            jobs.push(JobInput {
                pickup: q(),
                ..JobInput::default()
            });
        }
        for _ in 0..2 {
            let d = q();
            for _ in 0..2 {
                jobs.push(JobInput {
                    demand: d.clone(),
                    ..JobInput::default()
                });
            }
        }
        FleetProblem::new(&FleetInput {
            locations: 1,
            travel: vec![0],
            distance: None,
            vehicles: vec![VehicleInput {
                capacity: vec![9, 6],
                ..VehicleInput::default()
            }],
            jobs,
            objective: Objective::DISTANCE,
            limit_distance: None,
            shipments: vec![(6, 7), (8, 9)],
        })
        .unwrap()
    }

    /// Every place of the unit, each profile counted forward: what `load_fits_somewhere` must agree with.
    fn brute_force(p: &FleetProblem, jobs: &[u32], unit: &[u32]) -> bool {
        let n = jobs.len();
        let cap = p.vehicle_capacity(0);
        (0..=n).any(|i| {
            (i..=n).any(|k| {
                let with = placed(jobs, unit, i, if unit.len() == 2 { k } else { i });
                profile_of(p, &with)
                    .iter()
                    .all(|l| (0..p.dims).all(|d| l[d] <= cap[d]))
            })
        })
    }

    #[test]
    fn the_load_check_of_a_unit_equals_trying_every_place() {
        let mut rng = Rng::new(7);
        let (mut yes, mut no) = (0, 0);
        for _ in 0..300 {
            let p = problem(&mut rng);
            // a route of some of the units in a random order, a shipment's pickup before its delivery
            let mut units: Vec<Vec<u32>> = vec![
                vec![0],
                vec![1],
                vec![2],
                vec![3],
                vec![4],
                vec![5],
                vec![6, 7],
                vec![8, 9],
            ];
            for i in (1..units.len()).rev() {
                units.swap(i, (rng.next_u64() % (i as u64 + 1)) as usize);
            }
            let out = units.pop().unwrap();
            let mut jobs: Vec<u32> = Vec::new();
            for u in units.iter().take(1 + (rng.next_u64() % 6) as usize) {
                let at = (rng.next_u64() % (jobs.len() as u64 + 1)) as usize;
                jobs.insert(at, u[0]);
                if u.len() == 2 {
                    let at2 = at + 1 + (rng.next_u64() % (jobs.len() - at) as u64) as usize;
                    jobs.insert(at2, u[1]);
                }
            }
            let fast = load_fits_somewhere(&p, &profile_of(&p, &jobs), &out, p.vehicle_capacity(0));
            assert_eq!(
                fast,
                brute_force(&p, &jobs, &out),
                "route {:?}, unit {:?}",
                jobs,
                out
            );
            if fast {
                yes += 1
            } else {
                no += 1
            }
        }
        assert!(
            yes > 30 && no > 30,
            "both answers seen: {} fit, {} not",
            yes,
            no
        );
    }
}
