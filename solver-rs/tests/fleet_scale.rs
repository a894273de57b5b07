#![deny(unsafe_code)]
//! The fleet solver's sizes: matrices of up to MAX_LOCATIONS places kept as
//! the given i32 cells (never copied), the NEIGHBOURS_KEPT nearest jobs per
//! job, and the regret construction on neighbour lists above
//! FULL_REGRET_CELLS jobs × vehicles.

mod common;

use route_solver::fleet::deadline::Deadline;
use route_solver::fleet::insertion::{regret_insert, vehicle_classes, FULL_REGRET_CELLS};
use route_solver::fleet::matrix::{Cells, Matrices};
use route_solver::fleet::model::{
    FleetError, FleetProblem, VehicleCosts, MAX_LOCATIONS, NEIGHBOURS_KEPT, UNREACHABLE,
};
use route_solver::fleet::solution::Solution;
use route_solver::fleet::{self, FleetInput, FleetParams, JobInput, VehicleInput};
use route_solver::NativeClock;

fn job(location: usize) -> JobInput {
    JobInput {
        location,
        service: 60,
        ready: 0,
        due: None,
        deadline: None,
        demand: vec![1],
        allowed: None,
        windows: None,
        priority: 0,
        pickup: Vec::new(),
    }
}

fn vehicle(capacity: i64) -> VehicleInput {
    VehicleInput {
        start: 0,
        end: Some(0),
        shift_start: 0,
        shift_end: None,
        capacity: vec![capacity],
        max_stops: None,
        max_duration: None,
        max_driving: None,
        max_distance: None,
        breaks: Vec::new(),
        costs: VehicleCosts::NONE,
    }
}

/// Places on a line 10 s apart (place 0 the depot), as i32 cells.
fn line(m: usize) -> Vec<i32> {
    let mut t = vec![0i32; m * m];
    for a in 0..m {
        for b in 0..m {
            t[a * m + b] = 10 * (a as i32 - b as i32).abs();
        }
    }
    t
}

/// The problem's input without its matrices (given as cells).
fn bare(m: usize, jobs: Vec<JobInput>, vehicles: Vec<VehicleInput>) -> FleetInput {
    common::service_input(m, Vec::new(), vehicles, jobs)
}

#[test]
fn a_problem_of_9000_places_builds_over_its_cells_and_solves() {
    let m = 9000;
    let cells = line(m);
    let at = cells.as_ptr();
    let jobs = (1..m).step_by(45).map(job).collect::<Vec<_>>();
    let inp = bare(m, jobs, vec![vehicle(100); 3]);
    let mats = Matrices {
        travel: Cells::owned(m, cells),
        distance: None,
        limit_distance: None,
    };
    let p = FleetProblem::with_matrices(&inp, mats).expect("9000 places fit");
    assert_eq!(p.travel_cells().as_ptr(), at, "the given cells, not a copy");
    assert_eq!(p.t(1, 8999), 89_980);
    assert_eq!(p.t(5, m), 0, "the virtual place");
    let params = FleetParams {
        max_iterations: 20,
        ..FleetParams::default()
    };
    let sol = fleet::solve(&p, &params, &NativeClock::new());
    assert!(sol.unassigned.is_empty());
}

#[test]
fn above_max_locations_is_a_bad_matrix() {
    let inp = FleetInput {
        travel: Vec::new(),
        ..bare(MAX_LOCATIONS + 1, vec![job(1)], vec![vehicle(1)])
    };
    assert_eq!(FleetProblem::new(&inp).err(), Some(FleetError::BadMatrix));
    assert!(
        MAX_LOCATIONS >= 10_000 + 2 * 500,
        "10,000 stops and a start and an end for 500 vehicles"
    );
}

#[test]
fn unreachable_and_values_beyond_i32() {
    let mut t = vec![0i64, -1, 5, 0];
    let inp = |t: Vec<i64>| FleetInput {
        travel: t,
        ..bare(2, vec![job(1)], vec![vehicle(1)])
    };
    let p = FleetProblem::new(&inp(t.clone())).unwrap();
    assert_eq!((p.t(0, 1), p.t(1, 0)), (UNREACHABLE, 5));
    // the sums of a route stay in i64: an unreachable leg plus another never wraps
    assert!(p.t(0, 1) + p.t(1, 0) > UNREACHABLE);
    t[2] = i32::MAX as i64 + 1;
    assert_eq!(
        FleetProblem::new(&inp(t.clone())).err(),
        Some(FleetError::BadMatrix)
    );
    t[2] = -2;
    assert_eq!(
        FleetProblem::new(&inp(t)).err(),
        Some(FleetError::NegativeValue)
    );
}

#[test]
fn neighbour_lists_keep_the_nearest_jobs() {
    // 150 jobs at places 1..=150 on a line: job j is at place j + 1
    let m = 151;
    let inp = FleetInput {
        travel: line(m).into_iter().map(i64::from).collect(),
        ..bare(m, (1..m).map(job).collect(), vec![vehicle(1000)])
    };
    let p = FleetProblem::new(&inp).unwrap();
    for j in 0..p.n() {
        let list = &p.neighbours[j];
        assert_eq!(list.len(), NEIGHBOURS_KEPT);
        let far = |k: u32| (k as i64 - j as i64).abs();
        assert!(
            list.windows(2)
                .all(|w| (far(w[0]), w[0]) < (far(w[1]), w[1])),
            "nearest first, ties by index"
        );
        let last = far(*list.last().unwrap());
        let kept_or_farther = (0..p.n() as u32).filter(|&k| k as usize != j && !list.contains(&k));
        assert!(
            kept_or_farther.into_iter().all(|k| far(k) >= last),
            "no job left out is nearer"
        );
    }
    // up to NEIGHBOURS_KEPT + 1 jobs: every other job
    let m = NEIGHBOURS_KEPT + 2;
    let inp = FleetInput {
        travel: line(m).into_iter().map(i64::from).collect(),
        ..bare(m, (1..m).map(job).collect(), vec![vehicle(1000)])
    };
    let p = FleetProblem::new(&inp).unwrap();
    assert!(p.neighbours.iter().all(|l| l.len() == NEIGHBOURS_KEPT));
}

#[test]
fn the_construction_on_neighbour_lists_places_every_job_feasibly() {
    // 2100 jobs × 50 vans of 60 is above FULL_REGRET_CELLS: the neighbour-list construction
    let m = 2101;
    let nv = 50;
    assert!((m - 1) * nv > FULL_REGRET_CELLS);
    let used = routes_built_on_a_line(m, (1..m).collect(), nv, 60);
    assert_eq!(used, 35, "2100 jobs in vans of 60: 35 full routes");
}

/// The routes the construction opens for jobs at these places of a line of
/// m places (`line`), on nv vans of this capacity; every job placed.
fn routes_built_on_a_line(m: usize, places: Vec<usize>, nv: usize, capacity: i64) -> usize {
    let inp = bare(
        m,
        places.into_iter().map(job).collect(),
        vec![vehicle(capacity); nv],
    );
    let mats = Matrices {
        travel: Cells::owned(m, line(m)),
        distance: None,
        limit_distance: None,
    };
    let p = FleetProblem::with_matrices(&inp, mats).unwrap();
    let mut sol = Solution::empty(&p);
    regret_insert(&p, &mut sol, &vehicle_classes(&p), &Deadline::none());
    sol.check(&p).expect("a consistent solution");
    assert_eq!(sol.unassigned, 0);
    sol.routes.iter().filter(|r| !r.is_empty()).count()
}

#[test]
fn the_construction_on_neighbour_lists_fills_open_routes_before_opening_one() {
    // two groups of 30 jobs, 10 km apart on a line: each job's nearest jobs are all in its own
    // group, so the second group's jobs see no open route among their near jobs' routes; one van
    // takes all 60, and the service objective counts vans first
    let m = 1031;
    let nv = 200;
    let places: Vec<usize> = (1..=30).chain(1001..=1030).collect();
    assert!(places.len() * nv > FULL_REGRET_CELLS);
    let used = routes_built_on_a_line(m, places, nv, 100);
    assert_eq!(used, 1, "the first group's route takes the second group");
}

#[test]
fn the_construction_on_neighbour_lists_keeps_its_best_places_exact() {
    // 400 customers × 100 vehicles is above FULL_REGRET_CELLS; debug builds check after each
    // insertion that every waiting job's best two places are exact (regret_near's check_best_two)
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../data/homberger");
    for name in ["R2_4_1", "RC1_4_1"] {
        let text =
            std::fs::read_to_string(format!("{}/{}.txt", dir, name)).expect("data/homberger");
        let inp = route_solver::fleet::solomon::Instance::parse(&text)
            .unwrap()
            .fleet_input(false);
        let p = FleetProblem::new(&inp).unwrap();
        assert!(p.n() * p.vehicles.len() > FULL_REGRET_CELLS);
        let mut sol = Solution::empty(&p);
        regret_insert(&p, &mut sol, &vehicle_classes(&p), &Deadline::none());
        sol.check(&p).expect("a consistent solution");
        assert_eq!(sol.unassigned, 0, "{}", name);
    }
}
