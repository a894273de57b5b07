#![deny(unsafe_code)]
//! Shipments (pickup-and-delivery pairs) and backhaul pickups: every
//! operator's evaluated delta equals the applied change, the insertions
//! price exactly, plans keep precedence, same vehicle, the load at every
//! point of a route and the windows (checked by an independent simulation
//! over the raw input), pairs are never half-assigned, and tiny instances
//! match a brute force.

use route_solver::fleet::model::FleetProblem;
use route_solver::fleet::operators::{
    apply, cross_exchange, evaluate_pair, pair_relocate, relocate, swap, two_opt_star, Evaluate,
};
use route_solver::fleet::solution::Solution;
use route_solver::fleet::{
    self, FleetCost, FleetError, FleetInput, FleetParams, JobInput, Objective, Reason, VehicleInput,
};
use route_solver::rng::Rng;
use route_solver::NativeClock;

struct Options {
    deadlines: bool,
    windows: bool,
    backhauls: bool,
}

const PLAIN: Options = Options {
    deadlines: false,
    windows: false,
    backhauls: true,
};

/// Random instance: `plain` jobs then `pairs` shipments (pickup, delivery
/// side by side in the job list), points in a square, one demand dimension.
fn random_input(
    rng: &mut Rng,
    plain: usize,
    pairs: usize,
    nv: usize,
    o: &Options,
    objective: Objective,
) -> FleetInput {
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
        .map(|_| VehicleInput {
            start: 0,
            end: Some(0),
            shift_end: Some(rng.range(500, 1200) as i64),
            capacity: vec![rng.range(8, 20) as i64],
            ..VehicleInput::default()
        })
        .collect();
    let mut jobs = Vec::with_capacity(n);
    let mut shipments = Vec::new();
    for j in 0..n {
        let windowed = rng.range(0, 2) == 0;
        let ready = if windowed {
            rng.range(0, 400) as i64
        } else {
            0
        };
        let in_pair = j >= plain;
        let demand = if in_pair && (j - plain) % 2 == 1 {
            // the delivery carries its pickup's amount
            jobs.last().map_or(vec![0], |p: &JobInput| p.demand.clone())
        } else {
            vec![rng.range(0, 8) as i64]
        };
        jobs.push(JobInput {
            location: j + 1,
            service: rng.range(0, 20) as i64,
            ready,
            due: if windowed {
                Some(ready + rng.range(60, 300) as i64)
            } else {
                None
            },
            deadline: if o.deadlines && rng.range(0, 3) == 0 {
                Some(rng.range(0, 400) as i64)
            } else {
                None
            },
            demand,
            windows: if o.windows && rng.range(0, 3) == 0 {
                let s = rng.range(0, 200) as i64;
                Some(vec![(s, s + 60), (s + 150, s + 400)])
            } else {
                None
            },
            pickup: if o.backhauls && !in_pair && rng.range(0, 3) == 0 {
                vec![rng.range(1, 6) as i64]
            } else {
                Vec::new()
            },
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
        objective,
        limit_distance: None,
        shipments,
    }
}

fn start_of_service(job: &JobInput, t: i64) -> Option<i64> {
    let due = job.due.unwrap_or(i64::MAX);
    let list = job.windows.clone().unwrap_or(vec![(job.ready, due)]);
    list.iter()
        .filter(|w| w.0.max(job.ready) <= w.1.min(due))
        .find(|w| t <= w.1.min(due))
        .map(|w| t.max(w.0.max(job.ready)))
}

/// Independent simulation of one route over the raw input: (feasible,
/// lateness, duration, distance). The load: every plain delivery on board at
/// departure, each job unloads its demand (a plain job), loads its backhaul
/// pickup, a shipment's pickup loads and its delivery unloads; the load is
/// checked after every visit; both ends of a pair on the route, pickup first.
fn simulate(inp: &FleetInput, v: usize, jobs: &[u32]) -> (bool, i64, i64, i64) {
    let m = inp.locations;
    let veh = &inp.vehicles[v];
    let cap = veh.capacity[0];
    let role = |j: usize| {
        inp.shipments.iter().find_map(|&(a, b)| {
            if a == j {
                Some((true, b))
            } else if b == j {
                Some((false, a))
            } else {
                None
            }
        })
    };
    let mut ok = true;
    let mut load: i64 = jobs
        .iter()
        .filter(|&&j| role(j as usize).is_none())
        .map(|&j| inp.jobs[j as usize].demand[0])
        .sum();
    ok &= load <= cap;
    let (mut t, mut at, mut late, mut dist) = (veh.shift_start, veh.start, 0, 0);
    for (k, &j) in jobs.iter().enumerate() {
        let job = &inp.jobs[j as usize];
        let x = inp.travel[at * m + job.location];
        t += x;
        dist += x;
        match start_of_service(job, t) {
            Some(s) => t = s,
            None => ok = false,
        }
        if let Some(dl) = job.deadline {
            late += (t - dl).max(0);
        }
        t += job.service;
        at = job.location;
        match role(j as usize) {
            None => load += job.pickup.first().copied().unwrap_or(0) - job.demand[0],
            Some((pickup, other)) => {
                let pos = jobs.iter().position(|&x| x as usize == other);
                ok &= pos.map_or(false, |p| (p > k) == pickup);
                load += if pickup {
                    job.demand[0]
                } else {
                    -job.demand[0]
                };
            }
        }
        ok &= load <= cap && load >= 0;
    }
    if let Some(e) = veh.end {
        let x = inp.travel[at * m + e];
        t += x;
        dist += x;
    }
    ok &= t <= veh.shift_end.unwrap_or(i64::MAX);
    (ok, late, t - veh.shift_start, dist)
}

fn independent_cost(inp: &FleetInput, routes: &[Vec<u32>]) -> Option<FleetCost> {
    let o = inp.objective;
    let mut c = FleetCost::ZERO;
    let mut served = vec![false; inp.jobs.len()];
    for (v, r) in routes.iter().enumerate() {
        if r.is_empty() {
            continue;
        }
        let (ok, late, dur, dist) = simulate(inp, v, r);
        if !ok {
            return None;
        }
        r.iter().for_each(|&j| served[j as usize] = true);
        c.lateness += late;
        c.main += o.vehicle_cost + o.duration_weight * dur + o.distance_weight * dist;
    }
    c.unassigned = served.iter().filter(|&&s| !s).count() as i64;
    Some(c)
}

fn solve_seeded(inp: &FleetInput, seed: u64, max_iterations: u64) -> fleet::FleetSolution {
    let p = FleetProblem::new(inp).expect("valid input");
    let params = FleetParams {
        seed,
        max_iterations,
        ..FleetParams::default()
    };
    fleet::solve(&p, &params, &NativeClock::new())
}

fn check_plan(inp: &FleetInput, plan: &fleet::FleetSolution) {
    let mut count = vec![0usize; inp.jobs.len()];
    for r in &plan.routes {
        r.iter().for_each(|&j| count[j as usize] += 1);
    }
    let unassigned: Vec<u32> = plan.unassigned.iter().map(|u| u.0).collect();
    unassigned.iter().for_each(|&j| count[j as usize] += 1);
    assert!(count.iter().all(|&c| c == 1), "every job once: {:?}", count);
    for &(a, b) in &inp.shipments {
        assert_eq!(
            unassigned.contains(&(a as u32)),
            unassigned.contains(&(b as u32)),
            "pair {}-{} half-assigned",
            a,
            b
        );
        let ra = plan.routes.iter().position(|r| r.contains(&(a as u32)));
        let rb = plan.routes.iter().position(|r| r.contains(&(b as u32)));
        assert_eq!(ra, rb, "same vehicle");
    }
    let c = independent_cost(inp, &plan.routes).expect("every route feasible");
    assert_eq!(c, plan.cost, "the reported cost equals the recomputation");
}

/// A solution with `plan`'s routes.
fn solution_of(p: &FleetProblem, plan: &fleet::FleetSolution) -> Solution {
    let mut sol = Solution::empty(p);
    for (r, jobs) in plan.routes.iter().enumerate() {
        sol.set_route(p, r, jobs.clone());
    }
    sol
}

const OPS: [Evaluate; 5] = [
    relocate::evaluate,
    swap::evaluate,
    two_opt_star::evaluate,
    cross_exchange::evaluate,
    pair_relocate::evaluate,
];

fn every_operator_prices_exactly(o: &Options, seed: u64) -> [usize; 5] {
    let mut rng = Rng::new(seed);
    let mut moves = [0usize; 5];
    for case in 0..10u64 {
        let objective = if case % 2 == 0 {
            Objective::SERVICE
        } else {
            Objective::DISTANCE
        };
        let inp = random_input(&mut rng, 6, 5, 3, o, objective);
        let p = FleetProblem::new(&inp).unwrap();
        let plan = solve_seeded(&inp, case, 2);
        let mut sol = solution_of(&p, &plan);
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
                        let routes: Vec<Vec<u32>> =
                            after.routes.iter().map(|r| r.jobs.clone()).collect();
                        let c = independent_cost(&inp, &routes).expect("feasible after the move");
                        assert_eq!(
                            (c.lateness, c.main),
                            (after.cost(&p).lateness, after.cost(&p).main)
                        );
                        moves[i] += 1;
                    }
                }
            }
        }
        // every unit out, then priced back in everywhere: the delta is the change
        let out: Vec<u32> = (0..p.n() as u32)
            .filter(|&j| j % 4 == case as u32 % 4)
            .collect();
        let mut whole = out.clone();
        for &j in &out {
            whole.extend(p.unit(j as usize));
        }
        sol.remove_jobs(&p, &whole);
        let before = sol.cost(&p);
        for j in 0..p.n() {
            if sol.is_assigned(j) {
                continue;
            }
            for r in 0..p.vehicles.len() {
                if let Some((delta, k, k2)) = sol.best_unit_insertion(&p, r, j, || false) {
                    let mut after = sol.clone();
                    after.insert_unit(&p, r, j, k, k2);
                    let left = FleetCost {
                        unassigned: p.unit(j).len() as i64,
                        ..FleetCost::ZERO
                    };
                    assert_eq!(after.cost(&p), before.plus(delta).minus(left));
                    after.check(&p).expect("a valid plan after the insertion");
                    let routes: Vec<Vec<u32>> =
                        after.routes.iter().map(|r| r.jobs.clone()).collect();
                    independent_cost(&inp, &routes).expect("feasible after the insertion");
                }
            }
        }
    }
    moves
}

#[test]
fn every_operator_prices_its_moves_exactly_with_shipments() {
    let moves = every_operator_prices_exactly(&PLAIN, 5);
    assert!(
        moves.iter().all(|&m| m > 0),
        "each operator moved: {:?}",
        moves
    );
}

#[test]
fn every_operator_prices_exactly_with_deadlines_and_several_windows() {
    let o = Options {
        deadlines: true,
        windows: true,
        backhauls: true,
    };
    let moves = every_operator_prices_exactly(&o, 9);
    assert!(moves[4] > 0, "pair relocate moved: {:?}", moves);
}

#[test]
fn random_plans_keep_precedence_same_vehicle_load_and_windows() {
    let mut rng = Rng::new(11);
    for case in 0..30u64 {
        let o = Options {
            deadlines: case % 3 == 0,
            windows: case % 4 == 1,
            backhauls: case % 2 == 0,
        };
        let objective = if case % 2 == 0 {
            Objective::SERVICE
        } else {
            Objective::DISTANCE
        };
        let nv = 1 + (case % 4) as usize;
        let inp = random_input(&mut rng, 8, 8, nv, &o, objective);
        let plan = solve_seeded(&inp, case, 150);
        check_plan(&inp, &plan);
    }
}

/// The best plan by enumeration: every ordered subset of jobs per vehicle (2 vehicles).
fn brute_force(inp: &FleetInput) -> FleetCost {
    let n = inp.jobs.len();
    let o = inp.objective;
    let full = 1usize << n;
    let mut tables: Vec<Vec<Option<(i64, i64)>>> = vec![vec![None; full]; inp.vehicles.len()];
    for (v, table) in tables.iter_mut().enumerate() {
        table[0] = Some((0, 0));
        fn rec(
            inp: &FleetInput,
            v: usize,
            o: Objective,
            seq: &mut Vec<u32>,
            mask: usize,
            table: &mut Vec<Option<(i64, i64)>>,
        ) {
            for j in 0..inp.jobs.len() {
                if mask & (1 << j) != 0 {
                    continue;
                }
                seq.push(j as u32);
                let (ok, late, dur, dist) = simulate(inp, v, seq);
                let m2 = mask | (1 << j);
                if ok {
                    let c = (
                        late,
                        o.vehicle_cost + o.duration_weight * dur + o.distance_weight * dist,
                    );
                    if table[m2].map_or(true, |b| c < b) {
                        table[m2] = Some(c);
                    }
                }
                rec(inp, v, o, seq, m2, table);
                seq.pop();
            }
        }
        rec(inp, v, o, &mut Vec::new(), 0, table);
    }
    let mut best = FleetCost::MAX;
    for s0 in 0..full {
        let c0 = match tables[0][s0] {
            Some(c) => c,
            None => continue,
        };
        let rest = (full - 1) & !s0;
        let mut s1 = rest;
        loop {
            let c1 = if tables.len() > 1 {
                tables[1][s1]
            } else if s1 == 0 {
                Some((0, 0))
            } else {
                None
            };
            if let Some(c1) = c1 {
                let c = FleetCost {
                    unassigned: (n - (s0 | s1).count_ones() as usize) as i64,
                    lateness: c0.0 + c1.0,
                    main: c0.1 + c1.1,
                };
                best = best.min(c);
            }
            if s1 == 0 {
                break;
            }
            s1 = (s1 - 1) & rest;
        }
    }
    best
}

#[test]
fn tiny_instances_with_two_pairs_match_brute_force() {
    let mut rng = Rng::new(17);
    let mut cases = 0;
    for case in 0..40u64 {
        let o = Options {
            deadlines: case % 3 == 0,
            windows: case % 5 == 2,
            backhauls: true,
        };
        let objective = if case % 2 == 0 {
            Objective::SERVICE
        } else {
            Objective::DISTANCE
        };
        let inp = random_input(&mut rng, 2, 2, 1 + (case % 2) as usize, &o, objective);
        let plan = solve_seeded(&inp, case, 300);
        check_plan(&inp, &plan);
        assert_eq!(plan.cost, brute_force(&inp), "case {}", case);
        cases += 1;
    }
    assert_eq!(cases, 40);
}

#[test]
fn a_pair_too_large_for_every_vehicle_is_unassigned_whole_for_capacity() {
    let mut rng = Rng::new(2);
    let mut inp = random_input(&mut rng, 3, 2, 2, &PLAIN, Objective::SERVICE);
    let (a, b) = inp.shipments[0];
    inp.jobs[a].demand = vec![100];
    inp.jobs[b].demand = vec![100];
    let plan = solve_seeded(&inp, 1, 50);
    check_plan(&inp, &plan);
    let reasons: Vec<(u32, Reason)> = plan
        .unassigned
        .iter()
        .filter(|u| u.0 as usize == a || u.0 as usize == b)
        .copied()
        .collect();
    assert_eq!(
        reasons,
        vec![(a as u32, Reason::Capacity), (b as u32, Reason::Capacity)]
    );
}

#[test]
fn a_load_that_fits_only_between_stops_is_served() {
    // capacity 10: two deliveries of 6 and 4 leave full; a shipment of 10 fits only once they are unloaded
    let inp = FleetInput {
        locations: 5,
        travel: (0..25)
            .map(|x| if x / 5 == x % 5 { 0 } else { 10 })
            .collect(),
        distance: None,
        vehicles: vec![VehicleInput {
            capacity: vec![10],
            end: Some(0),
            ..VehicleInput::default()
        }],
        jobs: [(1, 6), (2, 4), (3, 10), (4, 10)]
            .iter()
            .map(|&(location, q)| JobInput {
                location,
                demand: vec![q],
                ..JobInput::default()
            })
            .collect(),
        objective: Objective::DISTANCE,
        limit_distance: None,
        shipments: vec![(2, 3)],
    };
    let plan = solve_seeded(&inp, 1, 20);
    check_plan(&inp, &plan);
    assert!(plan.unassigned.is_empty());
    let route = &plan.routes[0];
    let at = |j: u32| route.iter().position(|&x| x == j).unwrap();
    assert!(at(0) < at(2) && at(1) < at(2) && at(2) < at(3));
}

#[test]
fn bad_shipments_are_rejected() {
    let mut rng = Rng::new(4);
    let base = random_input(&mut rng, 3, 2, 1, &PLAIN, Objective::SERVICE);
    let bad = |f: &dyn Fn(&mut FleetInput)| {
        let mut inp = base.clone();
        f(&mut inp);
        FleetProblem::new(&inp).err()
    };
    assert_eq!(bad(&|_| {}), None);
    assert_eq!(
        bad(&|i| i.shipments.push((0, 99))),
        Some(FleetError::BadShipment)
    );
    assert_eq!(
        bad(&|i| i.shipments.push((0, 0))),
        Some(FleetError::BadShipment)
    );
    assert_eq!(
        bad(&|i| i.shipments.push((0, 3))),
        Some(FleetError::BadShipment)
    );
    assert_eq!(
        bad(&|i| i.jobs[3].demand = vec![99]),
        Some(FleetError::BadShipment)
    );
    assert_eq!(
        bad(&|i| i.jobs[3].pickup = vec![1]),
        Some(FleetError::BadShipment)
    );
}
