//! Helpers shared by the crate's integration tests (each test file that
//! needs them declares `mod common;`, and uses some of them).
#![allow(dead_code)]

use route_solver::fleet::{FleetInput, JobInput, Objective, VehicleInput};
use route_solver::rng::Rng;

/// The travel matrix (m × m, row-major) of m random points in a 1000 × 1000
/// square: the Euclidean distance rounded down plus 0–19 of asymmetric noise
/// per arc, 0 on the diagonal. Draws the points first, then the noise row by row.
pub fn square_travel(rng: &mut Rng, m: usize) -> Vec<i64> {
    let pts: Vec<(i64, i64)> = (0..m)
        .map(|_| (rng.range(0, 1000) as i64, rng.range(0, 1000) as i64))
        .collect();
    let mut travel = vec![0i64; m * m];
    for a in 0..m {
        for b in 0..m {
            if a != b {
                let (p, q) = (pts[a], pts[b]);
                let e = (((p.0 - q.0).pow(2) + (p.1 - q.1).pow(2)) as f64).sqrt() as i64;
                travel[a * m + b] = e + rng.range(0, 20) as i64;
            }
        }
    }
    travel
}

/// Jobs at random points of a 1000 × 1000 square (locations 1..), the depot
/// (location 0) in it too (`square_travel`); services 0–120 s; one vehicle
/// from the depot and back, leaving at `shift_start`.
pub fn random_day(rng: &mut Rng, n: usize, shift_start: i64) -> FleetInput {
    let m = n + 1;
    let travel = square_travel(rng, m);
    FleetInput {
        locations: m,
        travel,
        distance: None,
        vehicles: vec![VehicleInput {
            start: 0,
            end: Some(0),
            shift_start,
            ..VehicleInput::default()
        }],
        jobs: (0..n)
            .map(|j| JobInput {
                location: j + 1,
                service: rng.range(0, 120) as i64,
                ..JobInput::default()
            })
            .collect(),
        objective: Objective::SERVICE,
        limit_distance: None,
        shipments: Vec::new(),
    }
}

/// One vehicle from location 0 and back over `travel` (row-major,
/// locations × locations), its shift from 0 to 10,000 s, no capacity; these
/// jobs; the distance objective. Tests set what else they need on the input.
pub fn depot_day(locations: usize, travel: Vec<i64>, jobs: Vec<JobInput>) -> FleetInput {
    FleetInput {
        locations,
        travel,
        distance: None,
        vehicles: vec![VehicleInput {
            start: 0,
            end: Some(0),
            shift_start: 0,
            shift_end: Some(10_000),
            ..VehicleInput::default()
        }],
        jobs,
        objective: Objective::DISTANCE,
        limit_distance: None,
        shipments: Vec::new(),
    }
}

/// A day of these places (`travel` row-major, locations × locations; empty
/// when the test gives the matrices as cells), vehicles and jobs, under the
/// service's objective.
pub fn service_input(
    locations: usize,
    travel: Vec<i64>,
    vehicles: Vec<VehicleInput>,
    jobs: Vec<JobInput>,
) -> FleetInput {
    FleetInput {
        locations,
        travel,
        distance: None,
        vehicles,
        jobs,
        objective: Objective::SERVICE,
        limit_distance: None,
        shipments: Vec::new(),
    }
}
