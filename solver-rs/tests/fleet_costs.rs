#![deny(unsafe_code)]
//! Vehicle costs and the balance term (fleet::model::VehicleCosts, Balance):
//! the cheaper vehicle is chosen, fixed costs save vehicles, balance evens the
//! routes, the solver's cost equals an independent recomputation and the
//! brute-force optimum of tiny instances, the flat sections decode, and a
//! problem without them prices exactly as before.

use route_solver::abi::extra;
use route_solver::fleet::flat;
use route_solver::fleet::model::{Balance, FleetProblem, VehicleCosts};
use route_solver::fleet::{
    self, FleetCost, FleetError, FleetInput, FleetParams, JobInput, Objective, VehicleInput,
};
use route_solver::rng::Rng;
use route_solver::NativeClock;

/// Jobs at random points of a 100 × 100 square (locations 1..), the depot
/// (location 0) in the middle; asymmetric noise on the travel times; each
/// job has a demand of 1 and may have a window.
fn random_input(rng: &mut Rng, n: usize, nv: usize, objective: Objective) -> FleetInput {
    let m = n + 1;
    let mut pts = vec![(50i64, 50i64)];
    pts.extend((0..n).map(|_| (rng.range(0, 100) as i64, rng.range(0, 100) as i64)));
    let mut travel = vec![0i64; m * m];
    for a in 0..m {
        for b in 0..m {
            if a != b {
                let (p, q) = (pts[a], pts[b]);
                let e = (((p.0 - q.0).pow(2) + (p.1 - q.1).pow(2)) as f64).sqrt() as i64;
                travel[a * m + b] = e + rng.range(0, 10) as i64;
            }
        }
    }
    let vehicles = (0..nv)
        .map(|_| VehicleInput {
            start: 0,
            end: Some(0),
            capacity: vec![rng.range(2, n + 1) as i64],
            costs: VehicleCosts {
                fixed: rng.range(0, 400) as i64,
                per_duration: rng.range(0, 6) as i64,
                per_distance: rng.range(0, 6) as i64,
            },
            ..VehicleInput::default()
        })
        .collect();
    let jobs = (0..n)
        .map(|j| {
            let ready = rng.range(0, 200) as i64;
            let windowed = rng.range(0, 3) == 0;
            JobInput {
                location: j + 1,
                service: rng.range(0, 30) as i64,
                ready: if windowed { ready } else { 0 },
                due: if windowed {
                    Some(ready + rng.range(50, 300) as i64)
                } else {
                    None
                },
                demand: vec![1],
                ..JobInput::default()
            }
        })
        .collect();
    FleetInput {
        locations: m,
        travel,
        distance: None,
        vehicles,
        jobs,
        objective,
        limit_distance: None,
        shipments: Vec::new(),
    }
}

/// Vehicle v's route through `jobs` over the raw input: (duration, distance), None when infeasible.
fn simulate(inp: &FleetInput, v: usize, jobs: &[u32]) -> Option<(i64, i64)> {
    let m = inp.locations;
    let veh = &inp.vehicles[v];
    if jobs.len() as i64 > veh.capacity.first().copied().unwrap_or(i64::MAX) {
        return None;
    }
    let (mut t, mut at, mut dist) = (veh.shift_start, veh.start, 0);
    for &j in jobs {
        let job = &inp.jobs[j as usize];
        t += inp.travel[at * m + job.location];
        dist += inp.travel[at * m + job.location];
        t = t.max(job.ready);
        if t > job.due.unwrap_or(i64::MAX) {
            return None;
        }
        t += job.service;
        at = job.location;
    }
    if let Some(end) = veh.end {
        t += inp.travel[at * m + end];
        dist += inp.travel[at * m + end];
    }
    if t > veh.shift_end.unwrap_or(i64::MAX) {
        return None;
    }
    Some((t - veh.shift_start, dist))
}

/// The documented main cost of vehicle v's used route, written out.
fn route_main(inp: &FleetInput, v: usize, count: usize, duration: i64, distance: i64) -> i64 {
    let (o, c, b) = (inp.objective, inp.vehicles[v].costs, inp.objective.balance);
    let s = count as i64;
    o.vehicle_cost
        + o.duration_weight * duration
        + o.distance_weight * distance
        + c.fixed
        + c.per_duration * duration
        + c.per_distance * distance
        + b.stops * s * s
        + b.duration * duration * duration / b.duration_scale
}

fn independent_cost(inp: &FleetInput, routes: &[Vec<u32>]) -> FleetCost {
    let mut c = FleetCost::ZERO;
    let mut served = 0;
    for (v, r) in routes.iter().enumerate() {
        if !r.is_empty() {
            let (dur, dist) = simulate(inp, v, r).expect("a feasible route");
            c.main += route_main(inp, v, r.len(), dur, dist);
            served += r.len();
        }
    }
    c.unassigned = (inp.jobs.len() - served) as i64;
    c
}

/// Best cost over every split of the jobs between 2 vehicles (or
/// unassigned) and every order of each route.
fn brute_force(inp: &FleetInput) -> FleetCost {
    let n = inp.jobs.len();
    let full = 1usize << n;
    let mut best_route = vec![vec![None::<i64>; full]; 2];
    fn rec(inp: &FleetInput, v: usize, seq: &mut Vec<u32>, mask: usize, table: &mut [Option<i64>]) {
        for j in 0..inp.jobs.len() {
            if mask & (1 << j) != 0 {
                continue;
            }
            seq.push(j as u32);
            if let Some((dur, dist)) = simulate(inp, v, seq) {
                let c = route_main(inp, v, seq.len(), dur, dist);
                let m2 = mask | (1 << j);
                if table[m2].map_or(true, |b| c < b) {
                    table[m2] = Some(c);
                }
            }
            rec(inp, v, seq, mask | (1 << j), table);
            seq.pop();
        }
    }
    for (v, table) in best_route.iter_mut().enumerate() {
        table[0] = Some(0);
        rec(inp, v, &mut Vec::new(), 0, table);
    }
    let mut best = FleetCost::MAX;
    for s0 in 0..full {
        let c0 = match best_route[0][s0] {
            Some(c) => c,
            None => continue,
        };
        for s1 in 0..full {
            if s0 & s1 != 0 {
                continue;
            }
            if let Some(c1) = best_route[1][s1] {
                let c = FleetCost {
                    unassigned: (n - (s0 | s1).count_ones() as usize) as i64,
                    lateness: 0,
                    main: c0 + c1,
                };
                best = best.min(c);
            }
        }
    }
    best
}

fn solve(inp: &FleetInput, seed: u64, iterations: u64) -> fleet::FleetSolution {
    let p = FleetProblem::new(inp).expect("valid input");
    let params = FleetParams {
        seed,
        max_iterations: iterations,
        ..FleetParams::default()
    };
    fleet::solve(&p, &params, &NativeClock::new())
}

const MONEY: Objective = Objective {
    vehicle_cost: 0,
    duration_weight: 1,
    distance_weight: 0,
    balance: Balance::NONE,
};

#[test]
fn tiny_instances_match_brute_force_under_costs_and_balance() {
    let mut rng = Rng::new(26);
    let mut two_routes = 0;
    for case in 0..36u64 {
        let n = rng.range(3, 7);
        let objective = match case % 3 {
            0 => MONEY,
            1 => Objective {
                balance: Balance {
                    stops: 30 * 1024,
                    duration: 0,
                    duration_scale: 1,
                },
                ..Objective::SERVICE
            },
            _ => Objective {
                balance: Balance {
                    stops: rng.range(0, 40) as i64,
                    duration: rng.range(1, 5) as i64,
                    duration_scale: 2 * rng.range(50, 400) as i64,
                },
                ..MONEY
            },
        };
        let mut inp = random_input(&mut rng, n, 2, objective);
        if case % 3 == 1 {
            // the service's objective with balance: no vehicle costs
            inp.vehicles
                .iter_mut()
                .for_each(|v| v.costs = VehicleCosts::NONE);
        }
        let expected = brute_force(&inp);
        let sol = solve(&inp, case, 400);
        assert_eq!(
            sol.cost,
            independent_cost(&inp, &sol.routes),
            "case {}: recomputed",
            case
        );
        assert_eq!(
            sol.cost, expected,
            "case {}: heuristic vs brute force",
            case
        );
        if sol.routes.iter().all(|r| !r.is_empty()) {
            two_routes += 1;
        }
    }
    assert!(
        two_routes >= 5,
        "some cases use both vehicles: {}",
        two_routes
    );
}

#[test]
fn larger_instances_price_right() {
    let mut rng = Rng::new(9);
    for case in 0..12u64 {
        let n = rng.range(10, 40);
        let mut objective = if case % 2 == 0 {
            MONEY
        } else {
            Objective::SERVICE
        };
        objective.balance = Balance {
            stops: (case % 3) as i64 * 50,
            duration: (case % 4) as i64,
            duration_scale: 3600,
        };
        let inp = random_input(&mut rng, n, 4, objective);
        let sol = solve(&inp, case, 300);
        assert_eq!(
            sol.cost,
            independent_cost(&inp, &sol.routes),
            "case {}",
            case
        );
    }
}

/// Four jobs around the depot, two identical vehicles but for their costs.
fn two_vans(costs: [VehicleCosts; 2]) -> FleetInput {
    let mut rng = Rng::new(3);
    let mut inp = random_input(&mut rng, 4, 2, MONEY);
    for (v, c) in costs.iter().enumerate() {
        inp.vehicles[v].capacity = vec![10];
        inp.vehicles[v].costs = *c;
    }
    inp.jobs.iter_mut().for_each(|j| {
        j.ready = 0;
        j.due = None;
    });
    inp
}

#[test]
fn the_cheaper_vehicle_is_preferred() {
    let hourly = |per_duration| VehicleCosts {
        fixed: 100,
        per_duration,
        per_distance: 0,
    };
    let sol = solve(&two_vans([hourly(9), hourly(2)]), 1, 200);
    assert!(
        sol.routes[0].is_empty() && sol.routes[1].len() == 4,
        "{:?}",
        sol.routes
    );
    let sol = solve(&two_vans([hourly(2), hourly(9)]), 1, 200);
    assert!(
        sol.routes[1].is_empty() && sol.routes[0].len() == 4,
        "{:?}",
        sol.routes
    );
}

#[test]
fn a_fixed_cost_saves_vehicles() {
    // two vans at opposite corners, open routes: each serves its corner's jobs when vans are free
    let travel_of = |a: (i64, i64), b: (i64, i64)| (a.0 - b.0).abs() + (a.1 - b.1).abs();
    let pts = [(0, 0), (100, 100), (5, 0), (0, 5), (95, 100), (100, 95)];
    let m = pts.len();
    let travel = (0..m * m)
        .map(|k| travel_of(pts[k / m], pts[k % m]))
        .collect();
    let van = |start: usize, fixed: i64| VehicleInput {
        start,
        end: None,
        costs: VehicleCosts {
            fixed,
            per_duration: 0,
            per_distance: 1,
        },
        ..VehicleInput::default()
    };
    let jobs = (2..m)
        .map(|location| JobInput {
            location,
            ..JobInput::default()
        })
        .collect();
    let mut inp = FleetInput {
        locations: m,
        travel,
        distance: None,
        vehicles: vec![van(0, 0), van(1, 0)],
        jobs,
        objective: Objective {
            duration_weight: 0,
            ..MONEY
        },
        limit_distance: None,
        shipments: Vec::new(),
    };
    let used = |sol: &fleet::FleetSolution| sol.routes.iter().filter(|r| !r.is_empty()).count();
    assert_eq!(used(&solve(&inp, 1, 300)), 2);
    // a fixed cost above the detour (about 200 + 200) makes one van do both corners
    inp.vehicles = vec![van(0, 1000), van(1, 1000)];
    let sol = solve(&inp, 1, 300);
    assert_eq!(used(&sol), 1);
    assert_eq!(sol.cost.main, independent_cost(&inp, &sol.routes).main);
}

/// Eight jobs at one place 100 away, service 60 each, two vans of capacity
/// 6 under the service's objective: both vans go, and every split (6/2,
/// 5/3, 4/4) has the same total duration.
fn eight_at_one_place(balance: Balance) -> FleetInput {
    let travel = vec![0, 100, 100, 0];
    let van = VehicleInput {
        end: Some(0),
        capacity: vec![6],
        ..VehicleInput::default()
    };
    let job = JobInput {
        location: 1,
        service: 60,
        demand: vec![1],
        ..JobInput::default()
    };
    FleetInput {
        locations: 2,
        travel,
        distance: None,
        vehicles: vec![van.clone(), van.clone(), van],
        jobs: vec![job; 8],
        objective: Objective {
            balance,
            ..Objective::SERVICE
        },
        limit_distance: None,
        shipments: Vec::new(),
    }
}

#[test]
fn balance_evens_a_symmetric_day_without_adding_vehicles() {
    let sizes = |sol: &fleet::FleetSolution| {
        let mut s: Vec<usize> = sol
            .routes
            .iter()
            .map(|r| r.len())
            .filter(|&l| l > 0)
            .collect();
        s.sort_unstable();
        s
    };
    let plain = solve(&eight_at_one_place(Balance::NONE), 1, 200);
    assert_ne!(
        sizes(&plain),
        vec![4, 4],
        "ties: the plain objective need not even them"
    );
    let stops = Balance {
        stops: 30 * 1024,
        duration: 0,
        duration_scale: 1,
    };
    let duration = Balance {
        stops: 0,
        duration: 1024,
        duration_scale: 2 * 8 * 3600,
    };
    for b in [stops, duration] {
        let sol = solve(&eight_at_one_place(b), 1, 200);
        assert_eq!(sizes(&sol), vec![4, 4], "{:?}", b);
        assert_eq!(sol.cost.unassigned, 0);
    }
}

#[test]
fn the_flat_sections_carry_costs_and_balance() {
    let vehicles = [0.0, 0.0, 0.0, -1.0, -1.0].repeat(2);
    let jobs = [1.0, 0.0, 0.0, -1.0, route_solver::abi::NO_DEADLINE as f64];
    let travel = [0, 5, 5, 0];
    let decode = |extra: &[f64]| {
        flat::decode(&flat::FlatInput {
            locations: 2,
            travel: &travel,
            distance: None,
            vehicles: &vehicles,
            jobs: &jobs,
            dims: 0,
            capacity: &[],
            demand: &[],
            allowed: None,
            objective: [0.0, 1.0, 0.0],
            extra: Some(extra),
        })
    };
    let (vc, b) = (extra::VEHICLE_COSTS as f64, extra::BALANCE as f64);
    let inp = decode(&[
        vc, 6.0, 7.0, 8.0, 9.0, 0.0, 0.0, 0.0, b, 3.0, 30.0, 2.0, 100.0,
    ])
    .unwrap();
    assert_eq!(
        inp.vehicles[0].costs,
        VehicleCosts {
            fixed: 7,
            per_duration: 8,
            per_distance: 9
        }
    );
    assert_eq!(inp.vehicles[1].costs, VehicleCosts::NONE);
    assert_eq!(
        inp.objective.balance,
        Balance {
            stops: 30,
            duration: 2,
            duration_scale: 100
        }
    );
    // without the sections: no costs, no balance (what every earlier caller gets)
    let plain = decode(&[]).unwrap();
    assert!(plain.vehicles.iter().all(|v| v.costs == VehicleCosts::NONE));
    assert_eq!(plain.objective.balance, Balance::NONE);
    assert!(!FleetProblem::new(&plain).unwrap().priced);
    // a cut section, and values the model refuses
    assert_eq!(
        decode(&[vc, 3.0, 1.0, 2.0, 3.0]).err(),
        Some(flat::STATUS_BAD_EXTRA)
    );
    assert_eq!(
        decode(&[b, 2.0, 1.0, 1.0]).err(),
        Some(flat::STATUS_BAD_EXTRA)
    );
    let negative = decode(&[vc, 6.0, -1.0, 0.0, 0.0, 0.0, 0.0, 0.0]).unwrap();
    assert_eq!(
        FleetProblem::new(&negative).err(),
        Some(FleetError::BadObjective)
    );
    let no_scale = decode(&[b, 3.0, 0.0, 1.0, 0.0]).unwrap();
    assert_eq!(
        FleetProblem::new(&no_scale).err(),
        Some(FleetError::BadObjective)
    );
}

#[test]
fn the_construction_opens_the_cheaper_of_two_vans_alike_but_for_their_costs() {
    // the insertion tries one empty route per class of interchangeable vehicles: costs split the class
    for (fixed, used) in [([900, 100], 1), ([100, 900], 0)] {
        let mut inp = two_vans([VehicleCosts::NONE; 2]);
        for v in 0..2 {
            inp.vehicles[v].costs.fixed = fixed[v];
        }
        let sol = solve(&inp, 1, 1);
        assert_eq!(sol.routes[used].len(), 4, "{:?}", sol.routes);
    }
}
