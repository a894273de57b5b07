#![deny(unsafe_code)]
//! The early stops of the fleet search: the lower bound (`fleet::bound`) is
//! never above the cost of a feasible plan, and a plan that reaches it (every
//! stop at one place; a fleet that is full) ends the search at once.

mod common;

use route_solver::fleet::bound::lower_bound;
use route_solver::fleet::model::FleetProblem;
use route_solver::fleet::{self, FleetInput, FleetParams, JobInput, Objective, VehicleInput};
use route_solver::rng::Rng;
use route_solver::NativeClock;

/// Jobs at the given matrix locations; location 0 is the depot, the matrix
/// is `travel(a, b)`.
fn input(
    m: usize,
    travel: impl Fn(usize, usize) -> i64,
    jobs: Vec<JobInput>,
    vehicles: Vec<VehicleInput>,
) -> FleetInput {
    let mut t = vec![0i64; m * m];
    for a in 0..m {
        for b in 0..m {
            t[a * m + b] = if a == b { 0 } else { travel(a, b) };
        }
    }
    common::service_input(m, t, vehicles, jobs)
}

fn job(location: usize, service: i64) -> JobInput {
    JobInput {
        location,
        service,
        ready: 0,
        due: None,
        deadline: None,
        demand: vec![],
        allowed: None,
        windows: None,
        priority: 0,
        pickup: Vec::new(),
    }
}

fn vehicle(max_stops: Option<usize>) -> VehicleInput {
    VehicleInput {
        start: 0,
        end: Some(0),
        shift_start: 0,
        shift_end: None,
        capacity: vec![],
        max_stops,
        max_duration: None,
        max_driving: None,
        max_distance: None,
        breaks: Vec::new(),
        ..VehicleInput::default()
    }
}

/// `stops` jobs of 2 min spread at random over 20 km × 20 km (travel: the
/// Manhattan distance / 10), the depot at one more random point.
fn spread_out(seed: u64, stops: usize, vehicles: Vec<VehicleInput>) -> FleetInput {
    let mut rng = Rng::new(seed);
    let m = stops + 1;
    let pts: Vec<(i64, i64)> = (0..m)
        .map(|_| (rng.range(0, 20_000) as i64, rng.range(0, 20_000) as i64))
        .collect();
    input(
        m,
        |a, b| ((pts[a].0 - pts[b].0).abs() + (pts[a].1 - pts[b].1).abs()) / 10,
        (1..m).map(|l| job(l, 120)).collect(),
        vehicles,
    )
}

fn solve(inp: &FleetInput, max_iterations: u64) -> fleet::FleetSolution {
    let p = FleetProblem::new(inp).expect("valid input");
    fleet::solve(
        &p,
        &FleetParams {
            max_iterations,
            ..FleetParams::default()
        },
        &NativeClock::new(),
    )
}

#[test]
fn every_stop_at_one_place_ends_the_search_after_the_construction() {
    // 300 stops at location 1, 600 s from the depot; 5 vans without limits
    let inp = input(
        2,
        |_, _| 600,
        (0..300).map(|_| job(1, 60)).collect(),
        (0..5).map(|_| vehicle(None)).collect(),
    );
    let sol = solve(&inp, 20_000);
    assert_eq!(sol.progress.iterations, 0, "no ruin-and-recreate iteration");
    assert!(sol.unassigned.is_empty());
    assert_eq!(sol.routes.iter().filter(|r| !r.is_empty()).count(), 1);
    // one van: 1 vehicle, 600 + 300 × 60 + 600 s
    let p = FleetProblem::new(&inp).unwrap();
    assert_eq!(sol.cost, lower_bound(&p).cost);
    assert_eq!(sol.cost.main, (1 << 40) + 1024 * (1200 + 300 * 60) + 1200);
}

#[test]
fn a_full_fleet_at_one_place_ends_the_search_after_the_construction() {
    // 50 vans of one stop each, 200 stops at one place: 150 cannot fit anywhere
    let inp = input(
        2,
        |_, _| 300,
        (0..200).map(|_| job(1, 30)).collect(),
        (0..50).map(|_| vehicle(Some(1))).collect(),
    );
    let sol = solve(&inp, 20_000);
    assert_eq!(sol.progress.iterations, 0);
    assert_eq!(sol.unassigned.len(), 150);
    assert_eq!(sol.routes.iter().filter(|r| r.len() == 1).count(), 50);
}

#[test]
fn the_bound_is_unreachable_when_more_stops_than_vans_pay_an_arc() {
    let reachable = |inp: &FleetInput| lower_bound(&FleetProblem::new(inp).unwrap()).reachable;
    // every stop at one place: no arc between stops costs anything
    let one_place = input(
        2,
        |_, _| 600,
        (0..300).map(|_| job(1, 60)).collect(),
        (0..5).map(|_| vehicle(None)).collect(),
    );
    assert!(reachable(&one_place));
    // 7 places on a line, 2 vans: at least 5 stops pay for the arc to their next
    let line = |vans: usize| {
        input(
            8,
            |a, b| 100 * (a as i64 - b as i64).abs(),
            (1..8).map(|l| job(l, 10)).collect(),
            (0..vans).map(|_| vehicle(None)).collect(),
        )
    };
    assert!(!reachable(&line(2)));
    // as many vans as places: each stop may be the last of its route
    assert!(reachable(&line(7)));
    // two stops at each place: each has a free arc to its twin
    let twins = input(
        4,
        |a, b| 100 * (a as i64 - b as i64).abs(),
        (1..4).flat_map(|l| [job(l, 10), job(l, 10)]).collect(),
        (0..1).map(|_| vehicle(None)).collect(),
    );
    assert!(reachable(&twins));
    assert!(!reachable(&spread_out(
        1,
        40,
        (0..3).map(|_| vehicle(None)).collect()
    )));
}

#[test]
fn a_plan_above_the_bound_keeps_searching() {
    // stops spread on a line: the bound (first and last legs) is not reached
    let inp = input(
        8,
        |a, b| 100 * (a as i64 - b as i64).abs(),
        (1..8).map(|l| job(l, 10)).collect(),
        (0..2).map(|_| vehicle(None)).collect(),
    );
    let sol = solve(&inp, 300);
    assert_eq!(sol.progress.iterations, 300);
}

/// Random small instances with every feature that tightens the bound
/// (maxStops, capacities, open routes, unreachable arcs, allowed vehicles,
/// windows): the bound is never above the plan the search finds.
#[test]
fn the_bound_is_never_above_a_feasible_plan() {
    let mut rng = Rng::new(5);
    for case in 0..300 {
        let n = rng.range(1, 14);
        let nv = rng.range(1, 4);
        let m = n + 1;
        let same_place = rng.range(0, 3) == 0;
        let pts: Vec<(i64, i64)> = (0..m)
            .map(|_| (rng.range(0, 50) as i64, rng.range(0, 50) as i64))
            .collect();
        let noise: Vec<i64> = (0..m * m).map(|_| rng.range(0, 20) as i64).collect();
        let unreachable: Vec<bool> = (0..m * m).map(|_| rng.range(0, 25) == 0).collect();
        let dims = rng.range(0, 2);
        let jobs: Vec<JobInput> = (0..n)
            .map(|i| {
                let mut j = job(if same_place { 1 } else { i + 1 }, rng.range(0, 30) as i64);
                j.demand = (0..dims).map(|_| rng.range(0, 5) as i64).collect();
                if rng.range(0, 4) == 0 {
                    j.ready = rng.range(0, 200) as i64;
                    j.due = Some(j.ready + rng.range(0, 300) as i64);
                }
                if rng.range(0, 4) == 0 {
                    j.deadline = Some(rng.range(0, 300) as i64);
                }
                if rng.range(0, 5) == 0 {
                    j.allowed = Some(vec![rng.range(0, nv - 1)]);
                }
                j
            })
            .collect();
        let vehicles: Vec<VehicleInput> = (0..nv)
            .map(|_| VehicleInput {
                start: 0,
                end: if rng.range(0, 3) == 0 { None } else { Some(0) },
                shift_start: 0,
                shift_end: if rng.range(0, 3) == 0 {
                    Some(rng.range(100, 1000) as i64)
                } else {
                    None
                },
                capacity: (0..dims).map(|_| rng.range(0, 12) as i64).collect(),
                max_stops: if rng.range(0, 2) == 0 {
                    Some(rng.range(1, 5))
                } else {
                    None
                },
                max_duration: None,
                max_driving: None,
                max_distance: None,
                breaks: Vec::new(),
                ..VehicleInput::default()
            })
            .collect();
        let mut inp = input(
            m,
            |a, b| {
                if unreachable[a * m + b] {
                    -1
                } else {
                    (pts[a].0 - pts[b].0).abs() + (pts[a].1 - pts[b].1).abs() + noise[a * m + b]
                }
            },
            jobs,
            vehicles,
        );
        if case % 2 == 1 {
            inp.objective = Objective::DISTANCE;
        }
        let full = lower_bound(&FleetProblem::new(&inp).expect("valid input"));
        let bound = full.cost;
        let sol = solve(&inp, 200);
        let c = sol.cost;
        assert!(
            full.reachable || !route_solver::fleet::bound::reached(c, bound),
            "case {}: a plan {:?} at a bound {:?} called unreachable",
            case,
            c,
            bound
        );
        let lexicographic =
            (c.unassigned, c.lateness, c.main) >= (bound.unassigned, bound.lateness, bound.main);
        assert!(
            lexicographic && c.unassigned >= bound.unassigned,
            "case {}: plan {:?} below the bound {:?}",
            case,
            c,
            bound
        );
    }
}

/// Measurement (not a check): `cargo test --release --test fleet_stop -- --ignored --nocapture`.
#[test]
#[ignore]
fn measure_a_saturated_fleet() {
    let inp = spread_out(3, 1000, (0..50).map(|_| vehicle(Some(1))).collect());
    let p = FleetProblem::new(&inp).unwrap();
    for &stall in &[0u64, 100_000] {
        let t = std::time::Instant::now();
        let sol = fleet::solve(
            &p,
            &FleetParams {
                time_limit_ms: 5_000.0,
                stall_iterations: stall,
                ..FleetParams::default()
            },
            &NativeClock::new(),
        );
        eprintln!(
            "stall {}: {} iterations, best at {}, {:?}, {} ms",
            stall,
            sol.progress.iterations,
            sol.progress.best_iteration,
            sol.cost,
            t.elapsed().as_millis()
        );
    }
}

#[test]
fn a_full_fleet_stalls_as_a_plan_of_the_stops_it_can_serve() {
    use route_solver::fleet::bound::stall_for_served;
    assert_eq!(stall_for_served(100_000, 1000, 50), 250);
    assert_eq!(stall_for_served(100_000, 1000, 1000), 100_000);
    assert_eq!(stall_for_served(0, 1000, 50), 0);
    assert_eq!(stall_for_served(100, 1000, 1), 1);
    // 400 stops spread out, 20 vans of one stop: the plan serves 20, so a
    // stall count of 16 000 (the service's for 400 stops) becomes 40
    let inp = spread_out(3, 400, (0..20).map(|_| vehicle(Some(1))).collect());
    let p = FleetProblem::new(&inp).unwrap();
    let sol = fleet::solve(
        &p,
        &FleetParams {
            max_iterations: 1_000_000,
            stall_iterations: 16_000,
            ..FleetParams::default()
        },
        &NativeClock::new(),
    );
    assert_eq!(sol.unassigned.len(), 380);
    assert!(
        sol.progress.iterations < 1_000,
        "{} iterations",
        sol.progress.iterations
    );
}

#[test]
fn a_plan_on_the_fewest_routes_that_hold_its_stops_skips_the_fleet_minimisation() {
    // 60 stops, vans of 20 stops: 3 routes at least, and the construction builds 3; taking one away
    // can only leave stops out, so the budget's fleet share goes to the annealing: the same plan
    // whatever that share
    let inp = spread_out(5, 60, (0..5).map(|_| vehicle(Some(20))).collect());
    let p = FleetProblem::new(&inp).unwrap();
    assert_eq!(lower_bound(&p).routes, 3);
    let with_share = |fleet_share_percent: u64| {
        let mut params = FleetParams {
            max_iterations: 300,
            ..FleetParams::default()
        };
        params.settings.fleet_share_percent = fleet_share_percent;
        fleet::solve(&p, &params, &NativeClock::new())
    };
    let (half, none) = (with_share(50), with_share(0));
    assert_eq!(half.routes.iter().filter(|r| !r.is_empty()).count(), 3);
    assert_eq!(half.routes, none.routes);
    assert_eq!(half.cost, none.cost);
}

/// Measurement: the greedy pass the driver tries first, on 1000 stops spread out with 20 vans
/// (`cargo test --release --test fleet_stop -- --ignored --nocapture`).
#[test]
#[ignore]
fn measure_the_greedy_pass() {
    use route_solver::fleet::deadline::Deadline;
    use route_solver::fleet::insertion::{greedy_insert, vehicle_classes, ALL_ROUTES};
    use route_solver::fleet::solution::Solution;
    let inp = spread_out(3, 1000, (0..20).map(|_| vehicle(None)).collect());
    let p = FleetProblem::new(&inp).unwrap();
    let clock = NativeClock::new();
    let t = std::time::Instant::now();
    let mut sol = Solution::empty(&p);
    let all: Vec<u32> = (0..p.n() as u32).collect();
    greedy_insert(
        &p,
        &mut sol,
        &vehicle_classes(&p),
        &all,
        &mut Rng::new(1),
        0,
        true,
        ALL_ROUTES,
        &Deadline::new(&clock, 0.0, 0.0),
    );
    eprintln!("greedy pass: {} µs", t.elapsed().as_micros());
}
