#![deny(unsafe_code)]
//! The fleet search's last step (`fleet::route_polish`): on a day whose stops
//! have no window narrower than the shifts, each route of the best plan is
//! solved again by the single-route engine and kept when the plan costs less.

mod common;

use route_solver::fleet::route_polish::{polish, polishable};
use route_solver::fleet::single::route_problem;
use route_solver::fleet::solution::Solution;
use route_solver::fleet::{
    self, FleetInput, FleetParams, FleetProblem, FleetSolution, VehicleInput,
};
use route_solver::rng::Rng;
use route_solver::{Deadline, NativeClock};

/// `common::random_day` with `vans` vans of `max_stops` stops each, so that
/// the plan has several long routes.
fn random_day(seed: u64, n: usize, vans: usize, max_stops: usize) -> FleetInput {
    let mut inp = common::random_day(&mut Rng::new(seed), n, 0);
    let van = VehicleInput {
        max_stops: Some(max_stops),
        ..inp.vehicles[0].clone()
    };
    inp.vehicles = vec![van; vans];
    inp
}

/// One ruin-and-recreate iteration: the plan is the construction's after
/// one descent, whose routes the fleet's own moves have not finished.
fn solve(p: &FleetProblem, route_polish: bool) -> FleetSolution {
    let mut params = FleetParams {
        max_iterations: 1,
        ..FleetParams::default()
    };
    params.settings.route_polish = route_polish;
    fleet::solve(p, &params, &NativeClock::new())
}

fn as_solution(p: &FleetProblem, plan: &FleetSolution) -> Solution {
    let mut sol = Solution::empty(p);
    for (v, jobs) in plan.routes.iter().enumerate() {
        sol.set_route(p, v, jobs.clone());
    }
    sol
}

#[test]
fn every_route_of_a_day_without_windows_ends_as_the_single_route_engine_leaves_it() {
    let p = FleetProblem::new(&random_day(7, 150, 3, 60)).unwrap();
    assert!(polishable(&p));
    let plain = solve(&p, false);
    let polished = solve(&p, true);
    assert!(plain.unassigned.is_empty() && polished.unassigned.is_empty());
    // the search alone leaves a route the single-route engine shortens
    let mut sol = as_solution(&p, &plain);
    assert!(polish(&p, &mut sol, 1, &Deadline::none()) > 0);
    assert!(
        polished.cost < plain.cost,
        "{:?} vs {:?}",
        polished.cost,
        plain.cost
    );
    // after the polish, it finds nothing more: every route was polished, and kept
    let mut sol = as_solution(&p, &polished);
    assert!(sol.check(&p).is_ok());
    assert_eq!(polish(&p, &mut sol, 1, &Deadline::none()), 0);
    // the same jobs on the same vans: the polish only reorders a route
    for (a, b) in plain.routes.iter().zip(&polished.routes) {
        let (mut a, mut b) = (a.clone(), b.clone());
        a.sort_unstable();
        b.sort_unstable();
        assert_eq!(a, b);
    }
}

#[test]
fn a_day_with_a_window_narrower_than_the_shift_is_not_polished() {
    let mut inp = random_day(7, 150, 3, 60);
    inp.jobs[10].ready = 600;
    let p = FleetProblem::new(&inp).unwrap();
    assert!(!polishable(&p));
    let (a, b) = (solve(&p, true), solve(&p, false));
    assert_eq!((a.routes, a.cost), (b.routes, b.cost));
}

#[test]
fn a_route_whose_load_depends_on_its_order_is_left_as_it_is() {
    let mut inp = random_day(3, 12, 1, 12);
    inp.vehicles[0].capacity = vec![10];
    for (k, job) in inp.jobs.iter_mut().enumerate() {
        let delivered = (k % 2 == 0) as i64;
        job.demand = vec![delivered];
        job.pickup = vec![1 - delivered];
    }
    let p = FleetProblem::new(&inp).unwrap();
    // 6 delivered and 6 picked up: 12 > 10 on board in some orders, not in others
    let jobs: Vec<u32> = (0..12).collect();
    assert_eq!(route_problem(&p, 0, &jobs).unwrap_err(), "capacity");
    assert!(route_problem(&p, 0, &jobs[..10]).is_ok());
}
