#![deny(unsafe_code)]
//! The regret construction's column (`insertion_column`): for every pending
//! job, the same best place in a route as `best_unit_insertion`, on routes
//! with hard windows, soft deadlines (some already late), capacities, a
//! mixed fleet (starts, ends, maxStops) and allowed vehicles.

use route_solver::fleet::deadline::Deadline;
use route_solver::fleet::insertion::{
    best_over_routes, greedy_insert, regret_insert, vehicle_classes, ALL_ROUTES,
};
use route_solver::fleet::insertion_column::{fits, Column};
use route_solver::fleet::model::{FleetProblem, Role, VehicleCosts};
use route_solver::fleet::regret_table::RegretTable;
use route_solver::fleet::solution::Solution;
use route_solver::fleet::{FleetInput, JobInput, Objective, VehicleInput};
use route_solver::rng::Rng;

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
    FleetProblem::new(&FleetInput {
        locations: places,
        travel,
        distance: None,
        vehicles: vehicles_in,
        jobs: jobs_in,
        objective: Objective::SERVICE,
        limit_distance: None,
        shipments: Vec::new(),
    })
    .expect("valid day")
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
        for j in 0..p.n() {
            if !sol.is_assigned(j) {
                let r = (0..sol.routes.len()).find(|&r| {
                    sol.clone()
                        .best_unit_insertion(&p, r, j, || false)
                        .is_some()
                });
                assert_eq!(
                    r, None,
                    "seed {seed}: job {j} left out but fits route {r:?}"
                );
            }
        }
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
