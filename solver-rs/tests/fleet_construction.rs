#![deny(unsafe_code)]
//! The regret construction's column (`insertion_column`): for every pending
//! job, the same best place in a route as `best_unit_insertion`, on routes
//! with hard windows, soft deadlines (some already late), capacities, a
//! mixed fleet (starts, ends, maxStops) and allowed vehicles; and
//! `best_insertion` itself against every position priced from scratch.

mod common;

use route_solver::fleet::deadline::Deadline;
use route_solver::fleet::insertion::{
    best_over_routes, greedy_insert, regret_insert, vehicle_classes, ALL_ROUTES,
};
use route_solver::fleet::insertion_column::{fits, Column};
use route_solver::fleet::model::{FleetProblem, Role, VehicleCosts};
use route_solver::fleet::regret_table::RegretTable;
use route_solver::fleet::solution::Solution;
use route_solver::fleet::{JobInput, VehicleInput};
use route_solver::rng::Rng;

/// The problem of these places, vehicles and jobs, priced by the service's objective.
fn service_day(
    places: usize,
    travel: Vec<i64>,
    vehicles: Vec<VehicleInput>,
    jobs: Vec<JobInput>,
) -> FleetProblem {
    FleetProblem::new(&common::service_input(places, travel, vehicles, jobs)).expect("valid day")
}

fn random_day(seed: u64, jobs: usize, vehicles: usize) -> FleetProblem {
    let mut rng = Rng::new(seed);
    let places = jobs + 2;
    let xy: Vec<(i64, i64)> = (0..places)
        .map(|_| (rng.range(0, 1000) as i64, rng.range(0, 1000) as i64))
        .collect();
    let travel = (0..places * places)
        .map(|c| {
            let (a, b) = (xy[c / places], xy[c % places]);
            // asymmetric: a detour one way
            (a.0 - b.0).abs() + (a.1 - b.1).abs() + if c / places < c % places { 7 } else { 0 }
        })
        .collect();
    let job = |rng: &mut Rng, i: usize| {
        let ready = if rng.range(0, 3) == 0 {
            rng.range(0, 3000) as i64
        } else {
            0
        };
        JobInput {
            location: i + 2,
            service: rng.range(60, 300) as i64,
            ready,
            due: if rng.range(0, 4) == 0 {
                Some(ready + rng.range(600, 5000) as i64)
            } else {
                None
            },
            deadline: if rng.range(0, 3) == 0 {
                Some(rng.range(0, 6000) as i64)
            } else {
                None
            },
            demand: vec![rng.range(1, 9) as i64],
            allowed: if rng.range(0, 6) == 0 {
                Some(vec![0])
            } else {
                None
            },
            windows: None,
            priority: 0,
            pickup: Vec::new(),
        }
    };
    let jobs_in: Vec<JobInput> = (0..jobs).map(|i| job(&mut rng, i)).collect();
    let vehicles_in = (0..vehicles)
        .map(|v| VehicleInput {
            start: v % 2,
            end: if v % 3 == 0 { None } else { Some(v % 2) },
            shift_start: 0,
            shift_end: Some(30_000),
            capacity: vec![40 + 10 * v as i64],
            max_stops: if v == 1 { Some(6) } else { None },
            max_duration: None,
            max_driving: None,
            max_distance: None,
            breaks: Vec::new(),
            costs: VehicleCosts::default(),
        })
        .collect();
    service_day(places, travel, vehicles_in, jobs_in)
}

/// Half the jobs (the even ones) placed by the greedy insertion, the rest pending.
fn half_placed(p: &FleetProblem, seed: u64) -> Solution {
    let mut sol = Solution::empty(p);
    let half: Vec<u32> = (0..p.n() as u32).filter(|j| j % 2 == 0).collect();
    greedy_insert(
        p,
        &mut sol,
        &vehicle_classes(p),
        &half,
        &mut Rng::new(seed),
        0,
        true,
        ALL_ROUTES,
        &Deadline::none(),
    );
    sol
}

#[test]
fn the_column_finds_the_places_best_unit_insertion_finds() {
    let (mut compared, mut late_routes, mut some_fit) = (0, 0, 0);
    for seed in 1..=12u64 {
        let p = random_day(seed, 60, 5);
        let mut sol = half_placed(&p, seed);
        late_routes += sol.routes.iter().filter(|r| r.eval.lateness > 0).count();
        let pending: Vec<u32> = (0..p.n() as u32)
            .filter(|&j| !sol.is_assigned(j as usize) && p.role[j as usize] != Role::Delivery)
            .collect();
        let mut column = Column::default();
        for r in 0..sol.routes.len() {
            assert!(fits(&p, &sol, r));
            let mut got = vec![None; p.n()];
            column.compute(&p, &sol, r, &pending, |j, place| got[j] = Some(place));
            for &j in &pending {
                let want = sol.best_unit_insertion(&p, r, j as usize, || false);
                assert_eq!(
                    got[j as usize],
                    Some(want),
                    "seed {seed}, route {r}, job {j}"
                );
                compared += 1;
                some_fit += want.is_some() as usize;
            }
        }
    }
    // the cases the pricing branches on all came up
    assert!(
        compared > 1000 && some_fit > 300 && some_fit < compared,
        "{compared} {some_fit}"
    );
    assert!(late_routes > 0);
}

/// A day where lateness decides most places: every job has a deadline, the
/// places lie on a small grid (travel ties), all times in whole minutes but
/// some deadlines (a push then makes a job late by exactly 1 s).
fn late_grid_day(seed: u64, jobs: usize, vehicles: usize) -> FleetProblem {
    let mut rng = Rng::new(seed);
    let places = jobs + 1;
    let xy: Vec<(i64, i64)> = (0..places)
        .map(|_| (rng.range(0, 5) as i64, rng.range(0, 5) as i64))
        .collect();
    let travel = (0..places * places)
        .map(|c| {
            let (a, b) = (xy[c / places], xy[c % places]);
            60 * ((a.0 - b.0).abs() + (a.1 - b.1).abs())
        })
        .collect();
    let jobs_in: Vec<JobInput> = (0..jobs)
        .map(|i| JobInput {
            location: i + 1,
            service: 120,
            ready: if rng.range(0, 5) == 0 {
                60 * rng.range(0, 33) as i64
            } else {
                0
            },
            due: None,
            // on the minute or a second before: a push of a minute makes it late by 0, 1 or 60
            deadline: Some((60 * rng.range(0, 67) as i64 - rng.range(0, 2) as i64).max(0)),
            demand: vec![1],
            allowed: None,
            windows: None,
            priority: 0,
            pickup: Vec::new(),
        })
        .collect();
    let vehicles_in = (0..vehicles)
        .map(|_| VehicleInput {
            start: 0,
            end: Some(0),
            shift_start: 0,
            shift_end: None,
            capacity: vec![jobs as i64],
            breaks: Vec::new(),
            ..VehicleInput::default()
        })
        .collect();
    service_day(places, travel, vehicles_in, jobs_in)
}

/// `best_insertion` against every position inserted and its route priced
/// from scratch: the cheapest cost change, the lowest position on a tie. The
/// days have waits before windows, routes already late, and positions whose
/// push makes later jobs late, where the best is on time or late itself (the
/// lateness of those positions is priced last, without following the push
/// when the best is less late).
#[test]
fn best_insertion_is_the_cheapest_position_priced_from_scratch() {
    let (mut compared, mut late_best, mut pushed_late) = (0, 0, 0);
    let days = (1..=12u64).map(|seed| (seed, random_day(seed, 60, 5)));
    let late_days = (1..=12u64).map(|seed| (seed, late_grid_day(seed, 40, 3)));
    for (seed, p) in days.chain(late_days) {
        let mut sol = half_placed(&p, seed);
        let pending: Vec<usize> = (0..p.n()).filter(|&j| !sol.is_assigned(j)).collect();
        for r in 0..sol.routes.len() {
            let route = sol.routes[r].clone();
            let v = route.vehicle;
            let old = route.cost(&p);
            for &j in &pending {
                let mut want: Option<(_, usize)> = None;
                let mut some_late = false;
                let fits = p.allows(j, v)
                    && route.len() < p.vehicles[v].max_stops
                    && (0..p.dims).all(|d| {
                        route
                            .jobs
                            .iter()
                            .map(|&i| p.job_demand(i as usize)[d])
                            .sum::<i64>()
                            + p.job_demand(j)[d]
                            <= p.vehicle_capacity(v)[d]
                    });
                for k in 0..=route.len() {
                    let mut jobs = route.jobs.clone();
                    jobs.insert(k, j as u32);
                    let mut trial = sol.clone();
                    trial.set_route(&p, r, jobs);
                    if !fits || !trial.routes[r].time_feasible {
                        continue;
                    }
                    let delta = trial.routes[r].cost(&p).minus(old);
                    some_late |= delta.lateness > 0;
                    if want.map_or(true, |w| delta < w.0) {
                        want = Some((delta, k));
                    }
                }
                assert_eq!(
                    sol.best_insertion(&p, r, j, || false),
                    want,
                    "seed {seed}, route {r}, job {j}"
                );
                compared += 1;
                if let Some((c, _)) = want {
                    late_best += (c.lateness > 0) as usize;
                    pushed_late += (some_late && c.lateness == 0) as usize;
                }
            }
        }
    }
    assert!(
        compared > 1000 && late_best > 20 && pushed_late > 100,
        "{compared} {late_best} {pushed_late}"
    );
}

/// One van from the depot (location 0) and back; job 0 at location 1 and
/// job 1 at location 2, no service, with these deadlines.
fn two_job_day(travel: Vec<i64>, deadlines: [Option<i64>; 2]) -> FleetProblem {
    let job = |location: usize, deadline: Option<i64>| JobInput {
        location,
        service: 0,
        ready: 0,
        due: None,
        deadline,
        demand: vec![1],
        allowed: None,
        windows: None,
        priority: 0,
        pickup: Vec::new(),
    };
    let van = VehicleInput {
        start: 0,
        end: Some(0),
        shift_start: 0,
        capacity: vec![2],
        ..VehicleInput::default()
    };
    let jobs = vec![job(1, deadlines[0]), job(2, deadlines[1])];
    service_day(3, travel, vec![van], jobs)
}

/// Job 1 before job 0 pushes job 0 a second past its deadline; after it, job
/// 1 starts a second past its own: as late, as long, so the lower position
/// wins (a push beyond the slack adds at least 1 s, not more).
#[test]
fn a_push_that_makes_the_next_job_late_by_a_second_ties_with_being_late_oneself() {
    // the depot and the two places, a minute apart each way
    let travel = vec![0, 60, 60, 60, 0, 60, 60, 60, 0];
    let p = two_job_day(travel, [Some(119), Some(119)]);
    let mut sol = Solution::empty(&p);
    sol.set_route(&p, 0, vec![0]);
    let (delta, k) = sol.best_insertion(&p, 0, 1, || false).expect("fits");
    assert_eq!((delta.lateness, k), (1, 0));
}

/// Without the triangle inequality an insertion can move the next start
/// earlier: job 1 on the way to job 0 is a shortcut that brings job 0 back
/// on time, and that lateness cut is priced, not taken as 0.
#[test]
fn a_shortcut_through_the_inserted_job_cuts_the_next_jobs_lateness() {
    // the depot 100 s from job 0's place, 10 s from job 1's, which is 10 s from job 0's
    let travel = vec![0, 100, 10, 100, 0, 10, 10, 10, 0];
    let p = two_job_day(travel, [Some(50), None]);
    let mut sol = Solution::empty(&p);
    sol.set_route(&p, 0, vec![0]);
    assert_eq!(sol.routes[0].eval.lateness, 50);
    let (delta, k) = sol.best_insertion(&p, 0, 1, || false).expect("fits");
    assert_eq!((delta.lateness, k), (-50, 0));
    let mut after = sol.clone();
    after.set_route(&p, 0, vec![1, 0]);
    assert_eq!(
        after.routes[0].cost(&p).minus(sol.routes[0].cost(&p)),
        delta
    );
}

/// The lazy regret table (`regret_table`): after each insertion, a cell not
/// marked stale holds the route's best place as `best_unit_insertion` prices
/// it now, and the cells of the jobs whose best or second best was the
/// changed route are priced again at once.
#[test]
fn the_regret_table_marks_every_cell_it_did_not_price_again_as_stale() {
    let (mut fresh, mut stale, mut insertions) = (0, 0, 0);
    for seed in 1..=6u64 {
        let p = random_day(seed, 60, 5);
        let mut sol = Solution::empty(&p);
        let mut pending: Vec<u32> = (0..p.n() as u32).collect();
        let mut table = RegretTable::new(&p, &mut sol, &pending);
        while let Some(idx) = (0..pending.len())
            .find(|&i| (0..sol.routes.len()).any(|r| table.cell(pending[i] as usize, r).is_some()))
        {
            let j = pending.swap_remove(idx) as usize;
            let r = (0..sol.routes.len())
                .filter_map(|r| sol.best_unit_insertion(&p, r, j, || false).map(|c| (c, r)))
                .min_by_key(|&((c, _, _), r)| (c, r))
                .map(|(_, r)| r);
            let r = match r {
                Some(r) => r,
                None => continue,
            };
            // two pending jobs read r as their best: priced again on it below
            for &o in pending.iter().take(2) {
                table.read_top(o as usize, r, None);
            }
            let (_, k, k2) = sol.best_unit_insertion(&p, r, j, || false).expect("fits");
            let opened = sol.routes[r].is_empty();
            sol.insert_unit(&p, r, j, k, k2);
            table.inserted(&p, &mut sol, r, j, opened, &pending);
            insertions += 1;
            for &o in pending.iter().take(2) {
                assert!(
                    !table.stale(o as usize, r),
                    "seed {seed}: job {o} not repriced"
                );
            }
            for &o in &pending {
                for q in 0..sol.routes.len() {
                    if table.stale(o as usize, q) {
                        stale += 1;
                        continue;
                    }
                    let want = sol.best_unit_insertion(&p, q, o as usize, || false);
                    assert_eq!(
                        table.cell(o as usize, q),
                        want,
                        "seed {seed}, job {o}, route {q}"
                    );
                    fresh += 1;
                }
            }
        }
    }
    assert!(
        insertions > 200 && fresh > 1000 && stale > 1000,
        "{insertions} {fresh} {stale}"
    );
}

/// The regret construction places every job some route can take, in a plan
/// that passes the checks, on days with late routes, allowed vehicles and a
/// mixed fleet.
#[test]
fn the_regret_construction_gives_a_valid_plan() {
    for seed in 1..=6u64 {
        let p = random_day(seed, 80, 5);
        let classes = vehicle_classes(&p);
        let mut sol = Solution::empty(&p);
        regret_insert(&p, &mut sol, &classes, &Deadline::none());
        sol.check(&p).expect("valid plan");
        assert_left_out_only_where_no_route_takes(&p, &sol, seed);
    }
}

#[test]
fn the_recreate_on_near_routes_places_a_job_whenever_some_route_takes_it() {
    // near = 3: a job is priced on the routes of its 3 nearest assigned jobs first, on every route
    // (an empty one too) when none of them takes it; so it is placed exactly when some route takes it
    let near = 3;
    let (mut near_route, mut every_route) = (0, 0);
    for seed in 1..=12u64 {
        let p = random_day(seed, 60, 5);
        let classes = vehicle_classes(&p);
        let mut sol = half_placed(&p, seed);
        let on = |sol: &mut Solution, j: usize, near: usize| {
            let mut routes = Vec::new();
            best_over_routes(
                &p,
                sol,
                &classes,
                j,
                &mut Rng::new(0),
                0,
                true,
                near,
                &mut routes,
            )
        };
        let pending: Vec<usize> = (0..p.n())
            .filter(|&j| !sol.is_assigned(j) && p.role[j] != Role::Delivery)
            .collect();
        for j in pending {
            let (all, first) = (on(&mut sol, j, ALL_ROUTES), on(&mut sol, j, near));
            assert_eq!(all.is_some(), first.is_some(), "seed {} job {}", seed, j);
            let (all, first) = match (all, first) {
                (Some(all), Some(first)) => (all, first),
                _ => continue,
            };
            assert!(first.0 >= all.0);
            let r = first.1;
            let seen = p.neighbours[j]
                .iter()
                .filter(|&&k| sol.is_assigned(k as usize))
                .take(near)
                .any(|&k| sol.route_of[k as usize] == r as u32);
            if seen {
                near_route += 1;
            } else {
                assert_eq!(
                    first, all,
                    "no near route took it: the best over every route"
                );
                every_route += 1;
            }
        }
    }
    assert!(
        near_route > 0 && every_route > 0,
        "{} {}",
        near_route,
        every_route
    );
}

#[test]
fn a_day_below_the_near_recreates_size_recreates_over_every_route() {
    use route_solver::fleet::{self, FleetParams};
    use route_solver::NativeClock;
    let p = random_day(4, 60, 5);
    let solve = |near: usize| {
        let mut params = FleetParams {
            max_iterations: 300,
            ..FleetParams::default()
        };
        params.settings.recreate_near = near;
        assert!(p.n() < params.settings.recreate_near_from_jobs);
        fleet::solve(&p, &params, &NativeClock::new())
    };
    let (near, every) = (solve(3), solve(ALL_ROUTES));
    assert_eq!(near.routes, every.routes);
    assert_eq!(near.cost, every.cost);
}

/// Above FULL_REGRET_CELLS the construction prices on neighbour lists, and
/// after an insertion prices the changed route alone, for the jobs near the
/// inserted one and those it was best or second best for, in one column.
/// Debug builds check after each insertion (up to 400 jobs) that every
/// waiting job's best two places are exact and that it was priced on every
/// open route of its near jobs (`regret_near`'s `check_best_two`), here on
/// days with soft deadlines (late routes), hard windows and allowed vehicles.
#[test]
fn the_construction_on_neighbour_lists_keeps_its_best_places_exact_on_late_days() {
    use route_solver::fleet::insertion::FULL_REGRET_CELLS;
    let mut late = 0;
    for seed in 1..=3u64 {
        let p = random_day(seed, 300, 40);
        assert!(p.n() * p.vehicles.len() > FULL_REGRET_CELLS);
        let classes = vehicle_classes(&p);
        let mut sol = Solution::empty(&p);
        regret_insert(&p, &mut sol, &classes, &Deadline::none());
        sol.check(&p).expect("valid plan");
        late += sol.routes.iter().filter(|r| r.eval.lateness > 0).count();
        assert_left_out_only_where_no_route_takes(&p, &sol, seed);
    }
    assert!(late > 0, "some routes are late");
}

/// Every job the plan leaves out fits no route of it.
fn assert_left_out_only_where_no_route_takes(p: &FleetProblem, sol: &Solution, seed: u64) {
    for j in 0..p.n() {
        if !sol.is_assigned(j) {
            let r = (0..sol.routes.len())
                .find(|&r| sol.clone().best_unit_insertion(p, r, j, || false).is_some());
            assert_eq!(
                r, None,
                "seed {seed}: job {j} left out but fits route {r:?}"
            );
        }
    }
}
