#![deny(unsafe_code)]
//! One vehicle and no fleet-only rule: `fleet::solve` takes the single-route
//! engine's path (fleet::single): the exact optimum at <= 10 stops, the very
//! answer of `crate::solve` beyond; problems with a rule only the fleet search
//! keeps (a hard window, a capacity that binds, a shift end the single route
//! breaks, two vehicles) still get valid plans from it.

mod common;

use route_solver::fleet::single::{single_route, Basis};
use route_solver::fleet::{
    self, FleetInput, FleetParams, FleetProblem, FleetSolution, JobInput, Objective, VehicleInput,
};
use route_solver::rng::Rng;
use route_solver::{Input, NativeClock, Params};

/// A deadline (absolute) for about a third of the jobs, tight enough that some are late.
fn add_deadlines(rng: &mut Rng, inp: &mut FleetInput, horizon: usize) {
    let start = inp.vehicles[0].shift_start;
    for job in inp.jobs.iter_mut() {
        if rng.range(0, 2) == 0 {
            job.deadline = Some(start + rng.range(0, horizon) as i64);
        }
    }
}

/// (lateness, duration, driving) of the route through `jobs` over the raw
/// input (no waiting: no job here has a ready time), deadlines as given.
fn route_times(inp: &FleetInput, jobs: &[u32]) -> (i64, i64, i64) {
    let m = inp.locations;
    let veh = &inp.vehicles[0];
    let (mut t, mut at, mut late, mut driving) = (veh.shift_start, veh.start, 0, 0);
    for &j in jobs {
        let job = &inp.jobs[j as usize];
        let leg = inp.travel[at * m + job.location];
        t += leg;
        driving += leg;
        if let Some(d) = job.deadline {
            late += (t - d).max(0);
        }
        t += job.service;
        at = job.location;
    }
    if let Some(end) = veh.end {
        let leg = inp.travel[at * m + end];
        t += leg;
        driving += leg;
    }
    (late, t - veh.shift_start, driving)
}

/// The SERVICE objective's (lateness, main) of a route of one vehicle.
fn service_cost(inp: &FleetInput, jobs: &[u32]) -> (i64, i64) {
    let (late, duration, driving) = route_times(inp, jobs);
    let o = Objective::SERVICE;
    (
        late,
        o.vehicle_cost + o.duration_weight * duration + o.distance_weight * driving,
    )
}

/// The brute-force optimum (lateness, main) over every order.
fn brute_force(inp: &FleetInput) -> (i64, i64) {
    fn permute(inp: &FleetInput, order: &mut Vec<u32>, left: &mut Vec<u32>, best: &mut (i64, i64)) {
        if left.is_empty() {
            *best = (*best).min(service_cost(inp, order));
            return;
        }
        for k in 0..left.len() {
            let j = left.remove(k);
            order.push(j);
            permute(inp, order, left, best);
            order.pop();
            left.insert(k, j);
        }
    }
    let mut best = (i64::MAX, i64::MAX);
    let mut left: Vec<u32> = (0..inp.jobs.len() as u32).collect();
    permute(inp, &mut Vec::new(), &mut left, &mut best);
    best
}

fn solve(p: &FleetProblem, max_iterations: u64) -> FleetSolution {
    let params = FleetParams {
        seed: 7,
        max_iterations,
        ..FleetParams::default()
    };
    fleet::solve(p, &params, &NativeClock::new())
}

/// Every job once, the vehicles' rules kept (windows, shift end, capacity), over the raw input.
fn assert_valid(inp: &FleetInput, sol: &FleetSolution) {
    let m = inp.locations;
    let mut seen = vec![false; inp.jobs.len()];
    for (v, route) in sol.routes.iter().enumerate() {
        let veh = &inp.vehicles[v];
        let (mut t, mut at) = (veh.shift_start, veh.start);
        let mut load = vec![0i64; veh.capacity.len()];
        for &j in route {
            assert!(!seen[j as usize], "job {} twice", j);
            seen[j as usize] = true;
            let job = &inp.jobs[j as usize];
            t = (t + inp.travel[at * m + job.location]).max(job.ready);
            assert!(job.due.map_or(true, |d| t <= d), "job {} after its due", j);
            t += job.service;
            at = job.location;
            for (d, q) in job.demand.iter().enumerate() {
                load[d] += q;
            }
        }
        t += veh.end.map_or(0, |e| inp.travel[at * m + e]);
        assert!(
            veh.shift_end.map_or(true, |e| t <= e),
            "vehicle {} back late",
            v
        );
        for (d, &l) in load.iter().enumerate() {
            assert!(l <= veh.capacity[d], "vehicle {} over capacity", v);
        }
    }
    let unassigned: Vec<u32> = sol.unassigned.iter().map(|u| u.0).collect();
    for j in 0..inp.jobs.len() as u32 {
        assert_ne!(seen[j as usize], unassigned.contains(&j), "job {}", j);
    }
}

#[test]
fn a_one_vehicle_fleet_of_7_to_9_jobs_gets_the_brute_force_optimum() {
    let mut rng = Rng::new(29);
    for case in 0..12 {
        let n = 7 + case % 3;
        let mut inp = common::random_day(&mut rng, n, 3600);
        if case % 2 == 0 {
            add_deadlines(&mut rng, &mut inp, 3000);
        }
        if case % 4 == 1 {
            inp.vehicles[0].end = None;
        }
        let p = FleetProblem::new(&inp).unwrap();
        assert!(single_route(&p).is_ok(), "case {}", case);
        // one ruin-and-recreate iteration: the fleet search alone misses some of these optima
        let sol = solve(&p, 1);
        assert_valid(&inp, &sol);
        assert!(sol.unassigned.is_empty());
        let (late, main) = service_cost(&inp, &sol.routes[0]);
        assert_eq!(
            (sol.cost.lateness, sol.cost.main),
            (late, main),
            "case {}",
            case
        );
        assert_eq!((late, main), brute_force(&inp), "case {}", case);
        assert_eq!(
            sol.progress.iterations, 0,
            "the exact solver makes no kicks"
        );
    }
}

#[test]
fn sixty_jobs_with_deadlines_get_the_single_route_answer() {
    let mut rng = Rng::new(2029);
    for (case, open) in [false, true].iter().enumerate() {
        let shift_start = 1800 * case as i64;
        let mut inp = common::random_day(&mut rng, 60, shift_start);
        add_deadlines(&mut rng, &mut inp, 8000);
        if *open {
            inp.vehicles[0].end = None;
        }
        let p = FleetProblem::new(&inp).unwrap();
        assert_eq!(single_route(&p).unwrap().basis, Basis::Travel);
        let sol = solve(&p, 300);
        // the same route through crate::solve: [start, jobs, end?], deadlines after the departure
        let m = inp.locations;
        let nodes: Vec<usize> = (0..m).chain(inp.vehicles[0].end).collect();
        let durations: Vec<i32> = nodes
            .iter()
            .flat_map(|&a| nodes.iter().map(move |&b| (a, b)))
            .map(|(a, b)| inp.travel[a * m + b] as i32)
            .collect();
        let service: Vec<i32> = inp.jobs.iter().map(|j| j.service as i32).collect();
        let deadline: Vec<i32> = inp
            .jobs
            .iter()
            .map(|j| j.deadline.map_or(-1, |d| (d - shift_start) as i32))
            .collect();
        let route = route_solver::solve(
            &Input {
                size: nodes.len(),
                durations: &durations,
                service: &service,
                deadline: &deadline,
                has_end: !*open,
            },
            &Params {
                seed: 7,
                max_iterations: 300,
                ..Params::default()
            },
            &NativeClock::new(),
        )
        .unwrap();
        assert!(route.cost.lateness > 0, "the deadlines bind");
        assert_eq!(sol.routes[0], route.order, "case {}", case);
        // and what the search did: the same kicks, best kick and operator counters
        assert_eq!(sol.progress.iterations, route.progress.iterations);
        assert_eq!(sol.progress.best_iteration, route.progress.best_iteration);
        assert_eq!(
            sol.progress.nonzero().collect::<Vec<_>>(),
            route.progress.nonzero().collect::<Vec<_>>()
        );
        let (late, main) = service_cost(&inp, &sol.routes[0]);
        assert_eq!(sol.cost.lateness, route.cost.lateness);
        assert_eq!((sol.cost.lateness, sol.cost.main), (late, main));
        assert_eq!(
            main,
            (1 << 40) + 1024 * route.cost.duration + route_times(&inp, &sol.routes[0]).2
        );
    }
}

#[test]
fn a_distance_objective_with_its_own_matrix_runs_over_the_distances() {
    let mut rng = Rng::new(5);
    let mut inp = common::random_day(&mut rng, 8, 0);
    let m = inp.locations;
    // distances unrelated to the travel times
    inp.distance = Some(
        (0..m * m)
            .map(|k| {
                if k % (m + 1) == 0 {
                    0
                } else {
                    rng.range(1, 500) as i64
                }
            })
            .collect(),
    );
    inp.objective = Objective::DISTANCE;
    let p = FleetProblem::new(&inp).unwrap();
    assert_eq!(single_route(&p).unwrap().basis, Basis::Distance);
    let sol = solve(&p, 1);
    let dist = inp.distance.as_ref().unwrap();
    let length = |jobs: &[u32]| {
        let nodes: Vec<usize> = std::iter::once(0)
            .chain(jobs.iter().map(|&j| j as usize + 1))
            .chain([0])
            .collect();
        nodes.windows(2).map(|w| dist[w[0] * m + w[1]]).sum::<i64>()
    };
    let mut best = i64::MAX;
    let mut order: Vec<u32> = (0..8).collect();
    // Heap's algorithm over the 8! orders
    let mut c = [0usize; 8];
    best = best.min(length(&order));
    let mut i = 1;
    while i < 8 {
        if c[i] < i {
            order.swap(if i % 2 == 0 { 0 } else { c[i] }, i);
            best = best.min(length(&order));
            c[i] += 1;
            i = 1;
        } else {
            c[i] = 0;
            i += 1;
        }
    }
    assert_eq!(sol.cost.main, length(&sol.routes[0]));
    assert_eq!(sol.cost.main, best);
    // with deadlines, the distances say nothing of lateness: the fleet search
    inp.jobs[0].deadline = Some(100);
    assert_eq!(
        single_route(&FleetProblem::new(&inp).unwrap()).unwrap_err(),
        "objective"
    );
}

#[test]
fn fleet_only_rules_go_to_the_fleet_search_and_give_valid_plans() {
    let mut rng = Rng::new(11);
    let base = common::random_day(&mut rng, 30, 0);
    let mut cases: Vec<(&str, FleetInput)> = Vec::new();
    let mut window = base.clone();
    window.jobs[3].ready = 2000;
    window.jobs[3].due = Some(2600);
    cases.push(("time window", window));
    let mut capacity = base.clone();
    capacity.vehicles[0].capacity = vec![20];
    capacity.jobs.iter_mut().for_each(|j| j.demand = vec![1]);
    cases.push(("capacity", capacity));
    let mut two = base.clone();
    two.vehicles.push(two.vehicles[0].clone());
    cases.push(("vehicles", two));
    let mut allowed = base.clone();
    allowed.jobs[0].allowed = Some(Vec::new());
    cases.push(("maxStops or allowed vehicles", allowed));
    for (why, inp) in cases {
        let p = FleetProblem::new(&inp).unwrap();
        assert_eq!(single_route(&p).unwrap_err(), why);
        let sol = solve(&p, 50);
        assert_valid(&inp, &sol);
        assert!(sol.progress.iterations > 0, "{}: the fleet search ran", why);
    }
    // a capacity that holds every job cannot bind: the single route
    let mut roomy = base.clone();
    roomy.vehicles[0].capacity = vec![30];
    roomy.jobs.iter_mut().for_each(|j| j.demand = vec![1]);
    assert!(single_route(&FleetProblem::new(&roomy).unwrap()).is_ok());
}

/// Job 0 has deadline 10 and is 10 from the depot; going there first costs a
/// long leg (80) to job 1, the other way round is 50 long but 10 late.
fn shift_case(shift_end: i64) -> FleetInput {
    #[rustfmt::skip]
    let travel = vec![
        0, 10, 10,
        30, 0, 80,
        10, 10, 0,
    ];
    FleetInput {
        locations: 3,
        travel,
        distance: None,
        vehicles: vec![VehicleInput {
            start: 0,
            end: Some(0),
            shift_end: Some(shift_end),
            ..VehicleInput::default()
        }],
        jobs: vec![
            JobInput {
                location: 1,
                deadline: Some(10),
                ..JobInput::default()
            },
            JobInput {
                location: 2,
                ..JobInput::default()
            },
        ],
        objective: Objective::SERVICE,
        limit_distance: None,
        shipments: Vec::new(),
    }
}

#[test]
fn a_shift_end_the_single_route_breaks_goes_to_the_fleet_search() {
    // a long shift: the single route's on-time order, 100 long
    let inp = shift_case(1000);
    let sol = solve(&FleetProblem::new(&inp).unwrap(), 50);
    assert_eq!(sol.routes[0], vec![0, 1]);
    assert_eq!((sol.cost.lateness, sol.progress.iterations), (0, 0));
    // a shift of 60: that order is back too late, the fleet search serves both 10 late
    let inp = shift_case(60);
    let p = FleetProblem::new(&inp).unwrap();
    assert!(single_route(&p).unwrap().may_bind);
    let sol = solve(&p, 50);
    assert_valid(&inp, &sol);
    assert_eq!(sol.routes[0], vec![1, 0]);
    assert_eq!(sol.cost.lateness, 10);
    assert!(sol.progress.iterations > 0);
}

#[test]
fn the_single_route_announces_its_plans_and_keeps_the_time_limit() {
    let mut rng = Rng::new(3);
    let inp = common::random_day(&mut rng, 200, 0);
    let p = FleetProblem::new(&inp).unwrap();
    let before = route_solver::ffi::improvements_reported();
    let params = FleetParams {
        time_limit_ms: 300.0,
        ..FleetParams::default()
    };
    let clock = NativeClock::new();
    let sol = fleet::solve(&p, &params, &clock);
    use route_solver::Clock;
    assert!(clock.now_ms() < 400.0, "{} ms", clock.now_ms());
    assert_valid(&inp, &sol);
    let (count, assigned, route_s) = route_solver::ffi::improvements_reported();
    assert!(count > before.0);
    assert_eq!(assigned, 200);
    assert_eq!(route_s, route_times(&inp, &sol.routes[0]).1);
}

/// The figures of docs/benchmarks.md ("One van: the single-route path"): one-van
/// plans of 150–200 stops (TSPLIB tours from node 0, and random days with
/// deadlines) through the fleet search and through the single-route path, at
/// equal time limits, with the service's stall rule. Run with
/// `cargo test --release --test fleet_single -- --ignored --nocapture`.
#[test]
#[ignore]
fn bench_one_van_fleet_search_against_the_single_route() {
    use route_solver::fleet::driver;
    use route_solver::Clock;
    let mut days: Vec<(String, FleetInput)> = Vec::new();
    for name in ["ch150", "kroA200", "d198", "rat195"] {
        let path = format!("{}/../data/tsplib/{}.tsp", env!("CARGO_MANIFEST_DIR"), name);
        let inst = route_solver::tsplib::parse(&std::fs::read_to_string(path).unwrap()).unwrap();
        let m = inst.coords.len();
        let travel = (0..m * m)
            .map(|k| route_solver::tsplib::euc2d(inst.coords[k / m], inst.coords[k % m]) as i64)
            .collect();
        let mut inp = common::random_day(&mut Rng::new(1), m - 1, 0);
        inp.travel = travel;
        inp.jobs.iter_mut().for_each(|j| j.service = 0);
        days.push((name.to_string(), inp));
    }
    for (k, n) in [150usize, 200].iter().enumerate() {
        let mut rng = Rng::new(40 + k as u64);
        let mut inp = common::random_day(&mut rng, *n, 0);
        add_deadlines(&mut rng, &mut inp, 400 * n);
        days.push((format!("deadlines-{}", n), inp));
    }
    println!("| instance | budget | fleet search: lateness, duration | ms | single route: lateness, duration | ms |");
    for (name, inp) in &days {
        let p = FleetProblem::new(inp).unwrap();
        for budget in [1000.0, 2000.0, 5000.0] {
            let params = FleetParams {
                time_limit_ms: budget,
                // the service's rule (serviceStallIterations)
                stall_iterations: ((p.n() * p.n()) as u64 / 10).max(100),
                ..FleetParams::default()
            };
            let clock = NativeClock::new();
            let fleet = driver::solve_since(&p, &params, &clock, 0.0);
            let fleet_ms = clock.now_ms();
            let clock = NativeClock::new();
            let single = fleet::solve_since(&p, &params, &clock, 0.0);
            let single_ms = clock.now_ms();
            assert_eq!(single.progress.iterations == 0, p.n() <= 10);
            let (fl, fd, _) = route_times(inp, &fleet.routes[0]);
            let (sl, sd, _) = route_times(inp, &single.routes[0]);
            println!(
                "| {} | {} s | {}, {} | {:.0} | {}, {} | {:.0} |",
                name,
                budget / 1000.0,
                fl,
                fd,
                fleet_ms,
                sl,
                sd,
                single_ms
            );
        }
    }
}

/// docs/benchmarks.md ("One van", big days): one van through 1000 and 2000
/// random stops, as `bench_one_van_fleet_search_against_the_single_route`.
/// `cargo test --release --test fleet_single big -- --ignored --nocapture`.
#[test]
#[ignore]
fn bench_one_van_big_days() {
    use route_solver::fleet::driver;
    use route_solver::Clock;
    println!("| stops | deadlines | budget | fleet search: lateness, duration | ms | single route: lateness, duration | ms |");
    for (n, deadlines) in [(1000usize, false), (1000, true), (2000, false)] {
        let mut rng = Rng::new(9);
        let mut inp = common::random_day(&mut rng, n, 0);
        if deadlines {
            add_deadlines(&mut rng, &mut inp, 100 * n);
        }
        let p = FleetProblem::new(&inp).unwrap();
        for budget in [2000.0, 10000.0] {
            let params = FleetParams {
                time_limit_ms: budget,
                stall_iterations: (n * n / 10) as u64,
                ..FleetParams::default()
            };
            let clock = NativeClock::new();
            let fleet = driver::solve_since(&p, &params, &clock, 0.0);
            let fleet_ms = clock.now_ms();
            let clock = NativeClock::new();
            let single = fleet::solve_since(&p, &params, &clock, 0.0);
            let single_ms = clock.now_ms();
            let (fl, fd, _) = route_times(&inp, &fleet.routes[0]);
            let (sl, sd, _) = route_times(&inp, &single.routes[0]);
            println!(
                "| {} | {} | {} s | {}, {} | {:.0} | {}, {} | {:.0} |",
                n,
                if deadlines { "half" } else { "none" },
                budget / 1000.0,
                fl,
                fd,
                fleet_ms,
                sl,
                sd,
                single_ms
            );
        }
    }
}
