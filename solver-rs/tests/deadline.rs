#![deny(unsafe_code)]
//! The one time limit of both engines (`route_solver::deadline`): its
//! reserve, its part of a budget (`until`), the strided check, and that the
//! single-route search (`crate::solve`, optimize's path), a fleet plan sent
//! to it (`fleet::single`) and the fleet search all stop at the same point.

use route_solver::deadline::{Clock, Deadline, RESERVE_MAX_MS, STRIDE};
use route_solver::fleet::single::single_route;
use route_solver::fleet::{self, FleetInput, FleetParams, FleetProblem, JobInput, Objective};
use route_solver::fleet::{FleetSolution, VehicleInput};
use route_solver::rng::Rng;
use route_solver::{Input, Params};
use std::cell::Cell;

/// Reads 0 first, then `at` for ever, counting its reads.
struct Stopped {
    at: f64,
    reads: Cell<u64>,
}

impl Stopped {
    fn new(at: f64) -> Stopped {
        Stopped {
            at,
            reads: Cell::new(0),
        }
    }

    /// Reads `at` from the first read on.
    fn always(at: f64) -> Stopped {
        Stopped {
            at,
            reads: Cell::new(1),
        }
    }
}

impl Clock for Stopped {
    fn now_ms(&self) -> f64 {
        self.reads.set(self.reads.get() + 1);
        if self.reads.get() == 1 {
            0.0
        } else {
            self.at
        }
    }
}

#[test]
fn the_search_stops_at_the_limit_less_its_reserve() {
    for (limit, stop) in [
        (40.0, 39.6),
        (250.0, 247.5),
        (5000.0, 4950.0),
        (60_000.0, 60_000.0 - RESERVE_MAX_MS),
    ] {
        let clock = Stopped::always(0.0);
        let d = Deadline::new(&clock, 0.0, limit);
        assert_eq!(d.stop_ms(), stop);
        let before = Stopped::always(stop - 0.01);
        assert!(!Deadline::new(&before, 0.0, limit).expired());
        let at = Stopped::always(stop);
        assert!(Deadline::new(&at, 0.0, limit).expired(), "limit {limit}");
    }
    // counted from its start
    let clock = Stopped::always(1000.0 + 247.0);
    assert!(!Deadline::new(&clock, 1000.0, 250.0).expired());
    let clock = Stopped::always(1000.0 + 247.5);
    assert!(Deadline::new(&clock, 1000.0, 250.0).expired());
}

#[test]
fn a_part_of_a_budget_keeps_the_start_and_takes_no_second_reserve() {
    let clock = Stopped::always(0.0);
    let whole = Deadline::new(&clock, 100.0, 1000.0);
    let half = whole.until(whole.stop_ms() / 2.0);
    assert_eq!(half.stop_ms(), 495.0);
    for (at, expired) in [(594.9, false), (595.0, true)] {
        let clock = Stopped::always(at);
        let whole = Deadline::new(&clock, 100.0, 1000.0);
        assert_eq!(whole.until(495.0).expired(), expired, "at {at}");
        assert!(!whole.expired());
    }
    // no limit stays none, and never reads the clock
    let clock = Stopped::new(1e12);
    let none = Deadline::new(&clock, 0.0, 0.0);
    let part = none.until(none.stop_ms() / 2.0);
    assert!(!part.has_time_limit());
    assert!((0..4 * STRIDE).all(|_| !part.tick()) && !part.expired());
    assert_eq!(clock.reads.get(), 0);
}

#[test]
fn the_strided_check_reads_the_clock_once_per_stride_and_sticks() {
    let clock = Stopped::always(10.0);
    let d = Deadline::new(&clock, 0.0, 10.0);
    let ticks = (0..).take_while(|_| !d.tick()).count() as u32;
    assert_eq!(ticks, STRIDE - 1, "the first read sees the limit passed");
    assert_eq!(clock.reads.get(), 2);
    assert!(d.tick() && d.expired() && d.tick());
    assert_eq!(clock.reads.get(), 2, "passed: no more reads");
}

/// Random points in a square, Euclidean times plus asymmetric noise, no deadlines.
fn route_matrix(rng: &mut Rng, n: usize) -> Vec<i32> {
    let m = n + 2;
    let pts: Vec<(i64, i64)> = (0..m)
        .map(|_| (rng.range(0, 1000) as i64, rng.range(0, 1000) as i64))
        .collect();
    let mut dur = vec![0i32; m * m];
    for i in 0..m {
        for j in 0..m {
            let (a, b) = (pts[i], pts[j]);
            let e = (((a.0 - b.0).pow(2) + (a.1 - b.1).pow(2)) as f64).sqrt() as i32;
            dur[i * m + j] = e + if i == j { 0 } else { rng.range(0, 30) as i32 };
        }
    }
    dur
}

#[test]
fn the_single_route_search_takes_the_reserve() {
    let n = 40;
    let dur = route_matrix(&mut Rng::new(5), n);
    let (svc, dl) = (vec![0; n], vec![-1; n]);
    let inp = Input {
        size: n + 2,
        durations: &dur,
        service: &svc,
        deadline: &dl,
        has_end: true,
    };
    let params = Params {
        time_limit_ms: 200.0,
        max_iterations: 30,
        stall_iterations: u32::MAX as u64,
        ..Params::default()
    };
    let kicks = |at: f64| {
        route_solver::solve(&inp, &params, &Stopped::new(at))
            .unwrap()
            .progress
            .iterations
    };
    assert_eq!(kicks(197.9), 30, "before 200 - 2 ms: runs to the cap");
    assert_eq!(kicks(198.0), 0, "at 200 - 2 ms: stops");
}

/// One van from location 0 and back, `n` jobs, a shift end of `shift_end`.
fn one_van(n: usize, shift_end: Option<i64>) -> FleetInput {
    let mut rng = Rng::new(9);
    let m = n + 1;
    let pts: Vec<(i64, i64)> = (0..m)
        .map(|_| (rng.range(0, 1000) as i64, rng.range(0, 1000) as i64))
        .collect();
    let travel = (0..m * m)
        .map(|k| {
            let (p, q) = (pts[k / m], pts[k % m]);
            (((p.0 - q.0).pow(2) + (p.1 - q.1).pow(2)) as f64).sqrt() as i64
        })
        .collect();
    FleetInput {
        locations: m,
        travel,
        distance: None,
        vehicles: vec![VehicleInput {
            start: 0,
            end: Some(0),
            shift_end,
            ..VehicleInput::default()
        }],
        jobs: (0..n)
            .map(|j| JobInput {
                location: j + 1,
                service: 60,
                ..JobInput::default()
            })
            .collect(),
        objective: Objective::SERVICE,
        limit_distance: None,
        shipments: Vec::new(),
    }
}

#[test]
fn a_one_van_plan_gets_the_fleet_limit_or_half_of_it_when_a_limit_might_bind() {
    let params = FleetParams {
        time_limit_ms: 1000.0,
        ..FleetParams::default()
    };
    // the fleet's stop: 990 ms after the call; half of it when the shift end might bind
    for (shift_end, stop) in [(None, 990.0), (Some(15_000), 495.0)] {
        let inp = one_van(30, shift_end);
        let p = FleetProblem::new(&inp).unwrap();
        let single = single_route(&p).expect("a single route");
        assert_eq!(single.may_bind, shift_end.is_some());
        let run = |at: f64| -> FleetSolution {
            let clock = Stopped::always(at);
            fleet::solve_since(&p, &params, &clock, 0.0)
        };
        let before = run(stop - 1.0);
        assert!(
            before.progress.iterations > 0,
            "{shift_end:?}: runs before {stop} ms"
        );
        assert_eq!(before.routes.len(), 1);
        assert_eq!(before.cost.unassigned, 0);
        let after = run(stop);
        assert_eq!(
            after.progress.iterations, 0,
            "{shift_end:?}: stops at {stop} ms"
        );
        assert_eq!(after.cost.unassigned, 0);
    }
}
