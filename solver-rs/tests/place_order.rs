#![deny(unsafe_code)]
//! The places of a fleet problem renumbered along the jobs' neighbour lists
//! (`fleet::place_order`): near jobs get near numbers whatever the caller's
//! numbering, every location index is renamed with the matrices, and the plan
//! is the same.

use route_solver::fleet::model::FleetProblem;
use route_solver::fleet::{self, FleetInput, FleetParams, JobInput, Objective, VehicleInput};
use route_solver::rng::Rng;
use route_solver::NativeClock;

/// Points on a plane, place 0 and 1 the depots.
fn points(m: usize) -> Vec<(i64, i64)> {
    let mut rng = Rng::new(7);
    (0..m)
        .map(|_| (rng.range(0, 10_000) as i64, rng.range(0, 10_000) as i64))
        .collect()
}

/// A day on these points under a numbering of the places (`number[point]`):
/// two vans from different depots (one route open), a distance matrix of its
/// own, a time window on every fifth job; job k is at point k + 2 whatever its
/// place's number.
fn day(pts: &[(i64, i64)], number: &[usize]) -> FleetInput {
    let m = pts.len();
    let mut travel = vec![0i64; m * m];
    let mut distance = vec![0i64; m * m];
    for a in 0..m {
        for b in 0..m {
            let (dx, dy) = ((pts[a].0 - pts[b].0) as f64, (pts[a].1 - pts[b].1) as f64);
            let metres = (dx * dx + dy * dy).sqrt();
            travel[number[a] * m + number[b]] = (metres / 8.0).round() as i64;
            distance[number[a] * m + number[b]] = metres.round() as i64 + 3 * (a != b) as i64;
        }
    }
    let jobs = (2..m)
        .map(|point| JobInput {
            location: number[point],
            service: 120,
            demand: vec![1],
            ready: if point % 5 == 0 { 3600 } else { 0 },
            due: if point % 5 == 0 { Some(9000) } else { None },
            ..JobInput::default()
        })
        .collect();
    let van = |start: usize, end: Option<usize>| VehicleInput {
        start,
        end,
        capacity: vec![40],
        ..VehicleInput::default()
    };
    FleetInput {
        locations: m,
        travel,
        distance: Some(distance),
        vehicles: vec![van(number[0], Some(number[0])), van(number[1], None)],
        jobs,
        objective: Objective::SERVICE,
        limit_distance: None,
        shipments: Vec::new(),
    }
}

fn shuffled(m: usize) -> Vec<usize> {
    let mut number: Vec<usize> = (0..m).collect();
    let mut rng = Rng::new(11);
    for i in (1..m).rev() {
        number.swap(i, rng.range(0, i));
    }
    number
}

/// Mean |number of job j's place − number of its nearest job's place|.
fn mean_gap_to_nearest(p: &FleetProblem) -> f64 {
    let gaps: Vec<f64> = (0..p.n())
        .map(|j| {
            let k = p.neighbours[j][0] as usize;
            (p.jobs[j].loc as f64 - p.jobs[k].loc as f64).abs()
        })
        .collect();
    gaps.iter().sum::<f64>() / gaps.len() as f64
}

#[test]
fn near_jobs_get_near_numbers_and_every_cell_moves_with_its_places() {
    let m = 400;
    let pts = points(m);
    let number = shuffled(m);
    let inp = day(&pts, &number);
    let p = FleetProblem::new(&inp).unwrap();
    let given_gap: f64 = (0..p.n())
        .map(|j| {
            let k = p.neighbours[j][0] as usize;
            (inp.jobs[j].location as f64 - inp.jobs[k].location as f64).abs()
        })
        .sum::<f64>()
        / p.n() as f64;
    assert!(
        given_gap > 60.0,
        "the caller's numbering is random: {}",
        given_gap
    );
    assert!(
        mean_gap_to_nearest(&p) < 15.0,
        "renumbered: {}",
        mean_gap_to_nearest(&p)
    );
    // depots first, the open route's end still the virtual place
    assert_eq!((p.vehicles[0].start, p.vehicles[0].end), (0, 0));
    assert_eq!((p.vehicles[1].start, p.vehicles[1].end), (1, m));
    let given_loc = |k: usize| match k {
        0 => number[0],
        1 => number[1],
        _ => inp.jobs[k - 2].location,
    };
    let our_loc = |k: usize| match k {
        0 | 1 => p.vehicles[k].start,
        _ => p.jobs[k - 2].loc,
    };
    for a in 0..m {
        for b in 0..m {
            let (ga, gb) = (given_loc(a), given_loc(b));
            let (oa, ob) = (our_loc(a), our_loc(b));
            assert_eq!(p.t(oa, ob), inp.travel[ga * m + gb]);
            assert_eq!(p.d(oa, ob), inp.distance.as_ref().unwrap()[ga * m + gb]);
        }
    }
}

#[test]
fn the_plan_is_the_same_however_the_caller_numbers_the_places() {
    let m = 300;
    let pts = points(m);
    let identity: Vec<usize> = (0..m).collect();
    let params = FleetParams {
        max_iterations: 300,
        seed: 5,
        ..FleetParams::default()
    };
    let solve = |number: &[usize]| {
        let p = FleetProblem::new(&day(&pts, number)).unwrap();
        fleet::solve(&p, &params, &NativeClock::new())
    };
    let (a, b) = (solve(&identity), solve(&shuffled(m)));
    assert!(a.routes.iter().all(|r| !r.is_empty()), "both vans used");
    assert_eq!(a.routes, b.routes);
    assert_eq!(a.cost, b.cost);
    assert_eq!(a.unassigned, b.unassigned);
}
