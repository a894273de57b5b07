#![deny(unsafe_code)]
//! Breaks, several windows per job, shipments and deadlines together (a real
//! delivery day): the fast pricing (segments as a bound, then a forward pass
//! from the cached prefix state that stops where the schedule meets the
//! route's own) equals the from-scratch one. Every operator's evaluated delta
//! is the applied change (`Solution::check` recomputes each route with
//! `breaks::run`), and each best insertion equals a brute force over every
//! position priced from scratch (`route_violation`, a fresh `Route`).

use route_solver::fleet::model::Role;
use route_solver::fleet::model::{BreakInput, FleetProblem};
use route_solver::fleet::operators::{
    apply, cross_exchange, evaluate_pair, pair_relocate, relocate, swap, two_opt_star, Evaluate,
};
use route_solver::fleet::solution::{route_violation, Route, Solution};
use route_solver::fleet::VehicleInput;
use route_solver::fleet::{self, FleetCost, FleetInput, FleetParams, JobInput, Objective};
use route_solver::rng::Rng;
use route_solver::NativeClock;

/// `plain` jobs then `pairs` shipments on points of a square; most jobs have
/// two windows, some a deadline; each vehicle one or two breaks.
fn random_input(rng: &mut Rng, plain: usize, pairs: usize, nv: usize) -> FleetInput {
    let n = plain + 2 * pairs;
    let m = n + 1;
    let pts: Vec<(i64, i64)> = (0..m)
        .map(|_| (rng.range(0, 100) as i64, rng.range(0, 100) as i64))
        .collect();
    let mut travel = vec![0i64; m * m];
    for a in 0..m {
        for b in 0..m {
            let (p, q) = (pts[a], pts[b]);
            travel[a * m + b] = (((p.0 - q.0).pow(2) + (p.1 - q.1).pow(2)) as f64).sqrt() as i64;
        }
    }
    let vehicles = (0..nv)
        .map(|_| {
            let breaks = (0..rng.range(1, 2))
                .map(|_| {
                    let start = rng.range(0, 500) as i64;
                    BreakInput {
                        start,
                        end: start + rng.range(20, 200) as i64,
                        duration: rng.range(10, 60) as i64,
                    }
                })
                .collect();
            VehicleInput {
                start: 0,
                end: Some(0),
                shift_end: Some(rng.range(700, 1400) as i64),
                capacity: vec![rng.range(8, 20) as i64],
                breaks,
                ..VehicleInput::default()
            }
        })
        .collect();
    let mut jobs: Vec<JobInput> = Vec::with_capacity(n);
    let mut shipments = Vec::new();
    for j in 0..n {
        let in_pair = j >= plain;
        let demand = if in_pair && (j - plain) % 2 == 1 {
            jobs.last().map_or(vec![0], |p| p.demand.clone())
        } else {
            vec![rng.range(0, 6) as i64]
        };
        let windows = if rng.range(0, 4) > 0 {
            let s = rng.range(0, 300) as i64;
            let gap = rng.range(60, 250) as i64;
            Some(vec![
                (s, s + rng.range(30, 120) as i64),
                (s + gap + 120, s + gap + 400),
            ])
        } else {
            None
        };
        jobs.push(JobInput {
            location: j + 1,
            service: rng.range(0, 20) as i64,
            deadline: if rng.range(0, 4) == 0 {
                Some(rng.range(100, 500) as i64)
            } else {
                None
            },
            demand,
            windows,
            ..JobInput::default()
        });
        if in_pair && (j - plain) % 2 == 1 {
            shipments.push((j - 1, j));
        }
    }
    FleetInput {
        locations: m,
        travel,
        distance: None,
        vehicles,
        jobs,
        objective: if rng.range(0, 1) == 0 {
            Objective::SERVICE
        } else {
            Objective::DISTANCE
        },
        limit_distance: None,
        shipments,
    }
}

fn solution_of(p: &FleetProblem, seed: u64, iterations: u64) -> Solution {
    let params = FleetParams {
        seed,
        max_iterations: iterations,
        ..FleetParams::default()
    };
    let plan = fleet::solve(p, &params, &NativeClock::new());
    let mut sol = Solution::empty(p);
    for (r, jobs) in plan.routes.iter().enumerate() {
        sol.set_route(p, r, jobs.clone());
    }
    sol.check(p).expect("a valid plan");
    sol
}

/// The cost of vehicle v's route through `jobs` from scratch; None when infeasible.
fn scratch_cost(p: &FleetProblem, v: usize, jobs: &[u32]) -> Option<FleetCost> {
    if route_violation(p, v, jobs).is_some() {
        return None;
    }
    let mut r = Route::new(p, v);
    r.jobs = jobs.to_vec();
    r.update(p);
    assert!(r.time_feasible, "route_violation and the route cache agree");
    Some(r.cost(p))
}

/// The best insertion of job j's unit into route r over every position, priced from scratch.
fn brute_best(sol: &Solution, p: &FleetProblem, r: usize, j: usize) -> Option<FleetCost> {
    let jobs = &sol.routes[r].jobs;
    let old = sol.routes[r].cost(p);
    let n = jobs.len();
    let mut best: Option<FleetCost> = None;
    let mut consider = |list: Vec<u32>| {
        if let Some(c) = scratch_cost(p, r, &list) {
            let d = c.minus(old);
            if best.map_or(true, |b| d < b) {
                best = Some(d);
            }
        }
    };
    match p.partner(j) {
        None => {
            for k in 0..=n {
                let mut list = jobs.clone();
                list.insert(k, j as u32);
                consider(list);
            }
        }
        Some(o) => {
            let (a, b) = if p.role[j] == Role::Pickup {
                (j, o)
            } else {
                (o, j)
            };
            for i in 0..=n {
                for k in i..=n {
                    let mut list = jobs.clone();
                    list.insert(k, b as u32);
                    list.insert(i, a as u32);
                    consider(list);
                }
            }
        }
    }
    best
}

const OPS: [Evaluate; 5] = [
    relocate::evaluate,
    swap::evaluate,
    two_opt_star::evaluate,
    cross_exchange::evaluate,
    pair_relocate::evaluate,
];

#[test]
fn breaks_several_windows_and_shipments_price_exactly() {
    let mut rng = Rng::new(2026);
    let (mut moves, mut insertions, mut rejected) = ([0usize; 5], 0usize, 0usize);
    for case in 0..14u64 {
        let inp = random_input(&mut rng, 7, 5, 3);
        let p = FleetProblem::new(&inp).unwrap();
        assert!(p.multi_windows && p.has_pairs && p.breaks_of(0));
        let mut sol = solution_of(&p, case, 2);
        let before = sol.cost(&p);
        for u in 0..p.n() {
            for v in 0..p.n() {
                if u == v {
                    continue;
                }
                for (i, op) in OPS.iter().enumerate() {
                    if let Some(m) = evaluate_pair(*op, &p, &mut sol, u, v) {
                        let mut after = sol.clone();
                        apply(&p, &mut after, &m);
                        assert_eq!(after.cost(&p), before.plus(m.delta), "operator {}", i);
                        after.check(&p).expect("a valid plan after the move");
                        moves[i] += 1;
                    }
                }
            }
        }
        // a third of the units out, then each priced back into every route
        let mut out: Vec<u32> = Vec::new();
        for j in (0..p.n()).filter(|&j| j % 3 == case as usize % 3) {
            out.extend(p.unit(j));
        }
        sol.remove_jobs(&p, &out);
        let before = sol.cost(&p);
        for j in 0..p.n() {
            if sol.is_assigned(j) || p.role[j] == Role::Delivery {
                continue;
            }
            for r in 0..p.vehicles.len() {
                let found = sol.best_unit_insertion(&p, r, j, || false);
                assert_eq!(
                    found.map(|f| f.0),
                    brute_best(&sol, &p, r, j),
                    "case {} job {} route {}",
                    case,
                    j,
                    r
                );
                match found {
                    Some((delta, k, k2)) => {
                        let mut after = sol.clone();
                        after.insert_unit(&p, r, j, k, k2);
                        let left = FleetCost {
                            unassigned: p.unit(j).len() as i64,
                            ..FleetCost::ZERO
                        };
                        assert_eq!(after.cost(&p), before.plus(delta).minus(left));
                        after.check(&p).expect("a valid plan after the insertion");
                        insertions += 1;
                    }
                    None => rejected += 1,
                }
            }
        }
    }
    assert!(
        moves.iter().all(|&m| m > 0),
        "each operator moved: {:?}",
        moves
    );
    assert!(
        insertions >= 20 && rejected >= 5,
        "{} {}",
        insertions,
        rejected
    );
}
