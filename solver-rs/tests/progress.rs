#![deny(unsafe_code)]
//! Both engines report what they did in one type (`route_solver::Progress`):
//! the fleet descent counts its operators (tried, improving, applied), and a
//! one-vehicle plan, solved by the single-route engine, reports that
//! engine's iterations and counters.

use route_solver::fleet::local_search::OPERATORS as FLEET_OPERATORS;
use route_solver::fleet::solomon::Instance;
use route_solver::fleet::{self, FleetInput, FleetParams, FleetProblem, JobInput, VehicleInput};
use route_solver::rng::Rng;
use route_solver::search::operators::OPERATORS as ROUTE_OPERATORS;
use route_solver::{Clock, NativeClock, Operator, Progress};

/// Every counter's tried ≥ improving ≥ applied (the kicks: improving and
/// applied, kicked routes accepted, even worse ones, each ≤ tried), and only
/// `own` operators counted.
fn check_counters(progress: &Progress, own: &[Operator], why: &str) {
    for (op, c) in progress.nonzero() {
        assert!(
            own.contains(&op),
            "{}: {:?} counted by the other engine",
            why,
            op
        );
        let ordered = if op == Operator::Kick {
            c.tried >= c.improving && c.tried >= c.applied
        } else {
            c.tried >= c.improving && c.improving >= c.applied
        };
        assert!(ordered, "{}: {} {:?}", why, op.name(), c);
    }
}

#[test]
fn the_fleet_descent_counts_its_operators() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../data/solomon");
    let text = std::fs::read_to_string(format!("{}/R101.txt", dir)).expect("data/solomon/R101.txt");
    let p = FleetProblem::new(&Instance::parse(&text).unwrap().fleet_input(false)).unwrap();
    let sol = fleet::solve(
        &p,
        &FleetParams {
            max_iterations: 30,
            ..FleetParams::default()
        },
        &NativeClock::new(),
    );
    let progress = &sol.progress;
    assert_eq!(progress.iterations, 30);
    assert!(progress.best_iteration <= 30);
    check_counters(progress, &FLEET_OPERATORS, "R101");
    let relocate = progress.get(Operator::Relocate);
    assert!(relocate.applied > 0, "relocate {:?}", relocate);
    // every operator of the descent ran (no shipments: pair-relocate does not; SWAP* is off)
    for op in [
        Operator::Relocate,
        Operator::FleetSwap,
        Operator::TwoOptStar,
        Operator::CrossExchange,
        Operator::FleetTwoOpt,
    ] {
        assert!(progress.get(op).tried > 0, "{} never tried", op.name());
    }
    // first improvement: each improving evaluation of a pair is applied at once
    for op in FLEET_OPERATORS {
        let c = progress.get(op);
        assert_eq!(c.improving, c.applied, "{}", op.name());
    }
    let line = progress.operators_line();
    assert!(line.starts_with("relocate "), "{}", line);
}

#[test]
fn the_fleet_search_reports_when_it_found_its_plan() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../data/solomon");
    let text =
        std::fs::read_to_string(format!("{}/RC101.txt", dir)).expect("data/solomon/RC101.txt");
    let p = FleetProblem::new(&Instance::parse(&text).unwrap().fleet_input(false)).unwrap();
    let clock = NativeClock::new();
    let sol = fleet::solve(
        &p,
        &FleetParams {
            time_limit_ms: 300.0,
            ..FleetParams::default()
        },
        &clock,
    );
    let elapsed = clock.now_ms();
    let best_ms = sol
        .progress
        .best_ms
        .expect("the fleet search observes best_ms");
    assert!(
        best_ms > 0.0 && best_ms <= elapsed,
        "best at {} ms, the call took {} ms",
        best_ms,
        elapsed
    );
    // RC101 at 300 ms: the search improves on its construction
    assert!(sol.progress.best_iteration > 0);
}

/// One vehicle, jobs at random points, nothing the single route cannot
/// express: `fleet::solve` hands it to the single-route engine.
fn one_vehicle(rng: &mut Rng, n: usize) -> FleetInput {
    let m = n + 1;
    let pts: Vec<(i64, i64)> = (0..m)
        .map(|_| (rng.range(0, 1000) as i64, rng.range(0, 1000) as i64))
        .collect();
    let mut travel = vec![0i64; m * m];
    for a in 0..m {
        for b in 0..m {
            let (p, q) = (pts[a], pts[b]);
            travel[a * m + b] = (((p.0 - q.0).pow(2) + (p.1 - q.1).pow(2)) as f64).sqrt() as i64;
        }
    }
    FleetInput {
        locations: m,
        travel,
        distance: None,
        vehicles: vec![VehicleInput {
            start: 0,
            end: Some(0),
            ..VehicleInput::default()
        }],
        jobs: (0..n)
            .map(|j| JobInput {
                location: j + 1,
                service: 60,
                ..JobInput::default()
            })
            .collect(),
        objective: fleet::Objective::SERVICE,
        limit_distance: None,
        shipments: Vec::new(),
    }
}

#[test]
fn a_one_vehicle_plan_reports_the_single_route_search() {
    let mut rng = Rng::new(29);
    let p = FleetProblem::new(&one_vehicle(&mut rng, 60)).unwrap();
    assert!(fleet::single::single_route(&p).is_ok());
    let sol = fleet::solve(
        &p,
        &FleetParams {
            max_iterations: 200,
            ..FleetParams::default()
        },
        &NativeClock::new(),
    );
    let progress = &sol.progress;
    assert_eq!(progress.iterations, 200, "the single-route engine's kicks");
    assert!(progress.best_iteration <= progress.iterations);
    assert!(progress.best_ms.is_some());
    check_counters(progress, &ROUTE_OPERATORS, "one vehicle");
    assert_eq!(progress.get(Operator::Kick).tried, 200);
    let (lk, two_opt) = (
        progress.get(Operator::LinKernighan),
        progress.get(Operator::TwoOpt),
    );
    assert!(
        lk.applied > 0 || two_opt.applied > 0,
        "Lin–Kernighan {:?}, 2-opt {:?}",
        lk,
        two_opt
    );
}
