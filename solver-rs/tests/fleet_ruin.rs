#![deny(unsafe_code)]
//! The recreate's orders (`ruin::sort_for_insertion`): SISR's four (random,
//! largest demand, farthest, closest: 4/4/2/1) and, when the jobs' windows
//! differ, shortest window and earliest window (2/1). The ruin's size along
//! the annealing (`RuinSettings::at`).

mod common;

use common::{depot_day, random_day};
use route_solver::fleet::model::FleetProblem;
use route_solver::fleet::ruin::{sort_for_insertion, RuinSettings};
use route_solver::fleet::{self, FleetParams, JobInput, VehicleInput};
use route_solver::rng::Rng;
use route_solver::NativeClock;

const DEMAND: [i64; 8] = [5, 3, 8, 1, 7, 2, 6, 4];
const FROM_DEPOT: [i64; 8] = [10, 80, 30, 60, 20, 70, 40, 50];
const READY: [i64; 8] = [100, 0, 300, 500, 200, 700, 600, 400];
const LENGTH: [i64; 8] = [900, 500, 300, 800, 100, 600, 200, 400];

/// Eight jobs on a line whose demand, distance from the depot, window start
/// and window length each order them differently.
fn line(windows: bool) -> FleetProblem {
    let places = 9;
    let x = |i: usize| if i == 0 { 0 } else { FROM_DEPOT[i - 1] };
    let travel = (0..places * places)
        .map(|c| (x(c / places) - x(c % places)).abs())
        .collect();
    let jobs = (0..8)
        .map(|i| JobInput {
            location: i + 1,
            service: 0,
            ready: if windows { READY[i] } else { 0 },
            due: if windows {
                Some(READY[i] + LENGTH[i])
            } else {
                Some(2000)
            },
            demand: vec![DEMAND[i]],
            ..JobInput::default()
        })
        .collect();
    let mut day = depot_day(places, travel, jobs);
    day.vehicles[0].capacity = vec![100];
    FleetProblem::new(&day).expect("valid line")
}

fn order_by(key: impl Fn(usize) -> i64) -> Vec<u32> {
    let mut jobs: Vec<u32> = (0..8).collect();
    jobs.sort_by_key(|&j| key(j as usize));
    jobs
}

/// Share of `draws` orders equal to each keyed order: demand, farthest,
/// closest, shortest window, earliest window.
fn shares(p: &FleetProblem, draws: usize) -> [f64; 5] {
    let keyed = [
        order_by(|j| -DEMAND[j]),
        order_by(|j| -FROM_DEPOT[j]),
        order_by(|j| FROM_DEPOT[j]),
        order_by(|j| LENGTH[j]),
        order_by(|j| READY[j]),
    ];
    let mut counts = [0usize; 5];
    let mut rng = Rng::new(7);
    for _ in 0..draws {
        let mut jobs: Vec<u32> = (0..8).collect();
        sort_for_insertion(p, &mut rng, &mut jobs);
        for (k, order) in keyed.iter().enumerate() {
            if &jobs == order {
                counts[k] += 1;
            }
        }
    }
    counts.map(|c| c as f64 / draws as f64)
}

fn assert_near(what: &str, got: f64, want: f64) {
    assert!(
        (got - want).abs() < 0.03,
        "{}: share {:.3}, expected about {:.3}",
        what,
        got,
        want
    );
}

#[test]
fn different_windows_add_the_window_orders() {
    let p = line(true);
    assert!(p.windows_differ);
    let s = shares(&p, 6000);
    assert_near("largest demand", s[0], 4.0 / 14.0);
    assert_near("farthest", s[1], 2.0 / 14.0);
    assert_near("closest", s[2], 1.0 / 14.0);
    assert_near("shortest window", s[3], 2.0 / 14.0);
    assert_near("earliest window", s[4], 1.0 / 14.0);
}

#[test]
fn the_same_window_everywhere_keeps_sisrs_four_orders() {
    let p = line(false);
    assert!(!p.windows_differ);
    let s = shares(&p, 6000);
    assert_near("largest demand", s[0], 4.0 / 11.0);
    assert_near("farthest", s[1], 2.0 / 11.0);
    assert_near("closest", s[2], 1.0 / 11.0);
    assert_near("shortest window", s[3], 0.0);
    assert_near("earliest window", s[4], 0.0);
}

#[test]
fn the_ruin_shrinks_from_its_start_average_to_its_end_average() {
    let s = RuinSettings::default();
    let average = |step: usize, jobs: usize| s.at(step, jobs).average_removed;
    assert_eq!((s.start_average, s.average_removed), (16, 10));
    assert_eq!(average(0, 1000), 16);
    assert_eq!(average(512, 1000), 13);
    assert_eq!(average(1024, 1000), 10);
    assert_eq!(average(5000, 1000), 10, "past the end: the end's");
    // a quarter of the jobs at most at the start, never fewer than the end
    assert_eq!(average(0, 48), 12);
    assert_eq!(average(0, 20), 10);
    assert_eq!(average(512, 20), 10);
    assert_eq!(s.at(0, 1000).max_string, s.max_string);
}

/// The routes of a random day of `jobs` jobs on four vans of at most
/// ⌈jobs / 3⌉ stops each, after 300 iterations with the ruin starting at
/// `start_average` (the end at the default 10).
fn routes_with_start(jobs: usize, start_average: usize) -> Vec<Vec<u32>> {
    let mut inp = random_day(&mut Rng::new(7), jobs, 0);
    let van = inp.vehicles[0].clone();
    inp.vehicles = vec![
        VehicleInput {
            max_stops: Some((jobs + 2) / 3),
            ..van
        };
        4
    ];
    let p = FleetProblem::new(&inp).expect("valid input");
    let mut params = FleetParams {
        max_iterations: 300,
        ..FleetParams::default()
    };
    params.settings.ruin.start_average = start_average;
    fleet::solve(&p, &params, &NativeClock::new()).routes
}

#[test]
fn the_annealing_ruins_by_the_schedule_from_44_jobs_only() {
    // under 44 jobs the start is capped at the end's 10: the search is the one of 10 throughout
    assert_eq!(routes_with_start(40, 16), routes_with_start(40, 10));
    // from 44 jobs the start of 16 draws other ruins: another search
    assert_ne!(routes_with_start(120, 16), routes_with_start(120, 10));
}
