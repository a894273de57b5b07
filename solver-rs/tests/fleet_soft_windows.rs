#![deny(unsafe_code)]
//! The annealing through late schedules (`fleet::soft_windows`): where it
//! applies, that it changes the search, and that the plan it returns keeps
//! every window.

use route_solver::fleet::deadline::Deadline;
use route_solver::fleet::insertion::{regret_insert, vehicle_classes};
use route_solver::fleet::model::FleetProblem;
use route_solver::fleet::soft_windows::applies;
use route_solver::fleet::solomon::Instance;
use route_solver::fleet::solution::{route_violation, Solution};
use route_solver::fleet::{self, FleetParams, FleetSettings, JobInput, Objective};
use route_solver::NativeClock;

fn solomon(name: &str, objective: Objective) -> FleetProblem {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../data/solomon");
    let text = std::fs::read_to_string(format!("{}/{}.txt", dir, name)).expect("a Solomon file");
    let mut input = Instance::parse(&text).unwrap().fleet_input(false);
    input.objective = objective;
    FleetProblem::new(&input).expect("valid input")
}

fn constructed(p: &FleetProblem) -> Solution {
    let mut sol = Solution::empty(p);
    regret_insert(p, &mut sol, &vehicle_classes(p), &Deadline::none());
    sol
}

#[test]
fn soft_windows_apply_to_a_distance_day_with_windows_alone() {
    let settings = FleetSettings {
        soft_windows_to_jobs: 200,
        ..FleetSettings::default()
    };
    let servable = |p: &FleetProblem| vec![true; p.n()];
    let p = solomon("RC101", Objective::DISTANCE);
    assert!(applies(&p, &settings, &constructed(&p), &servable(&p)));
    // a plan that leaves a job out: the soft search would never be on time with it in
    let empty = Solution::empty(&p);
    assert!(!applies(&p, &settings, &empty, &servable(&p)));
    // a day above the size, and the setting at 0
    let small = FleetSettings {
        soft_windows_to_jobs: p.n() - 1,
        ..settings.clone()
    };
    assert!(!applies(&p, &small, &constructed(&p), &servable(&p)));
    // the service's objective weighs the duration
    let timed = solomon("RC101", Objective::SERVICE);
    assert!(!applies(
        &timed,
        &settings,
        &constructed(&timed),
        &servable(&timed)
    ));
    // soft deadlines
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../data/solomon");
    let text = std::fs::read_to_string(format!("{}/RC101.txt", dir)).unwrap();
    let mut input = Instance::parse(&text).unwrap().fleet_input(false);
    input.objective = Objective::DISTANCE;
    input.jobs[0] = JobInput {
        deadline: Some(input.jobs[0].due.unwrap()),
        ..input.jobs[0].clone()
    };
    let late = FleetProblem::new(&input).unwrap();
    assert!(!applies(
        &late,
        &settings,
        &constructed(&late),
        &servable(&late)
    ));
}

/// On tight-window days the soft search makes other plans than the hard
/// one (it is on), and every plan it returns keeps every window and the
/// capacities (the plain forward check, independent of the segments).
#[test]
fn the_search_through_late_schedules_returns_plans_on_time() {
    let mut differ = 0;
    for name in ["R101", "RC101", "RC105"] {
        let p = solomon(name, Objective::DISTANCE);
        for seed in 1..=2 {
            let run = |to_jobs: usize| {
                fleet::solve(
                    &p,
                    &FleetParams {
                        seed,
                        max_iterations: 300,
                        settings: FleetSettings {
                            soft_windows_to_jobs: to_jobs,
                            ..FleetSettings::default()
                        },
                        ..FleetParams::default()
                    },
                    &NativeClock::new(),
                )
            };
            let (soft, hard) = (run(p.n()), run(0));
            for sol in [&soft, &hard] {
                assert!(sol.unassigned.is_empty(), "{}: every job served", name);
                for (v, jobs) in sol.routes.iter().enumerate() {
                    assert_eq!(route_violation(&p, v, jobs), None, "{} seed {}", name, seed);
                }
            }
            assert_eq!(p.warp_price(), 0, "the windows hard again after the search");
            differ += (soft.routes != hard.routes) as usize;
        }
    }
    assert!(differ >= 4, "the soft search changed {} of 6 plans", differ);
}
