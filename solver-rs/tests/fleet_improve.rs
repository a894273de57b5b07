#![deny(unsafe_code)]
//! The fleet search tells its host of each new best plan (`env.on_improve` on
//! WebAssembly; counted per thread natively): once after the construction,
//! again after its descent when that improved it, then at every improvement,
//! the last report being the plan returned.

use route_solver::ffi::{improvements_reported, record_improvements, recorded_improvements};
use route_solver::fleet::deadline::Deadline;
use route_solver::fleet::insertion::{regret_insert, vehicle_classes};
use route_solver::fleet::local_search::LocalSearch;
use route_solver::fleet::model::FleetProblem;
use route_solver::fleet::solomon::Instance;
use route_solver::fleet::solution::Solution;
use route_solver::fleet::{self, FleetParams, FleetSettings};
use route_solver::NativeClock;

fn r101() -> FleetProblem {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../data/solomon");
    let text = std::fs::read_to_string(format!("{}/R101.txt", dir)).expect("data/solomon/R101.txt");
    FleetProblem::new(&Instance::parse(&text).unwrap().fleet_input(false)).expect("valid input")
}

/// With hard windows, and with the annealing's soft windows (whose
/// candidates become the best plan only when on time: on R101's tight
/// windows few are in the first hundreds of iterations, so that run is longer).
#[test]
fn every_new_best_plan_is_reported_and_the_last_is_the_plan_returned() {
    let soft = FleetSettings {
        soft_windows_to_jobs: 100,
        ..FleetSettings::default()
    };
    check_reports(200, FleetSettings::default());
    check_reports(1500, soft);
}

fn check_reports(max_iterations: u64, settings: FleetSettings) {
    let p = r101();
    let before = improvements_reported().0;
    let sol = fleet::solve(
        &p,
        &FleetParams {
            max_iterations,
            settings,
            ..FleetParams::default()
        },
        &NativeClock::new(),
    );
    let (count, assigned, route_s) = improvements_reported();
    let reports = count - before;
    assert!(
        reports >= 2,
        "the construction and at least one improvement: {}",
        reports
    );
    assert!(
        reports <= 2 + sol.progress.iterations,
        "the construction, its descent, at most one per iteration after them: {} in {} iterations",
        reports,
        sol.progress.iterations
    );
    assert_eq!(assigned, p.n() - sol.unassigned.len());
    let served: usize = sol.routes.iter().map(|r| r.len()).sum();
    assert_eq!(assigned, served);
    // the total duration: at least the travel and service, at most the returns (waits included)
    let (mut work, mut returns) = (0, 0);
    for (v, jobs) in sol.routes.iter().enumerate().filter(|(_, r)| !r.is_empty()) {
        let veh = &p.vehicles[v];
        let mut loc = veh.start;
        for &j in jobs {
            let job = &p.jobs[j as usize];
            work += p.t(loc, job.loc) + job.service;
            loc = job.loc;
        }
        work += p.t(loc, veh.end);
        returns += fleet::solution::times_of(&p, v, jobs).1 - veh.shift_start;
    }
    assert!(
        work <= route_s && route_s <= returns,
        "{} <= {} <= {}",
        work,
        route_s,
        returns
    );
}

/// The host hears of the constructed plan before the first descent polishes
/// it (an asynchronous job cancelled meanwhile keeps a plan): the first report
/// is the regret construction's plan, the second the descended one.
#[test]
fn the_constructed_plan_is_reported_before_its_descent() {
    let p = r101();
    let duration = |sol: &Solution| -> i64 { sol.routes.iter().map(|r| r.eval.duration).sum() };
    let mut constructed = Solution::empty(&p);
    regret_insert(
        &p,
        &mut constructed,
        &vehicle_classes(&p),
        &Deadline::none(),
    );
    let mut descended = constructed.clone();
    LocalSearch::new(&p, FleetSettings::default().granular).run(
        &p,
        &mut descended,
        None,
        &Deadline::none(),
    );
    assert!(
        descended.cost(&p) < constructed.cost(&p),
        "R101's descent improves its constructed plan (else this test shows nothing)"
    );

    record_improvements();
    fleet::solve(
        &p,
        &FleetParams {
            max_iterations: 1,
            ..FleetParams::default()
        },
        &NativeClock::new(),
    );
    let reports = recorded_improvements();
    assert!(
        reports.len() >= 2,
        "the construction and its descent: {:?}",
        reports
    );
    assert_eq!(
        reports[0],
        (p.n(), duration(&constructed)),
        "first: the constructed plan"
    );
    assert_eq!(
        reports[1],
        (p.n(), duration(&descended)),
        "second: the descended plan"
    );
}
