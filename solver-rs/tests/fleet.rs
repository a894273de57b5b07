#![deny(unsafe_code)]
//! Properties of the fleet solver: every job served once or reported
//! unassigned, capacities and windows respected (checked by an independent
//! simulation over the matrix), the reported cost equals a recomputation,
//! brute-force optimality on small instances, determinism, reason codes,
//! time-window segment joins, the Solomon parser and checker, vehicle breaks.

mod common;

use common::depot_day;
use route_solver::fleet::model::{FleetProblem, MAX_VEHICLES};
use route_solver::fleet::segment::TwSegment;
use route_solver::fleet::solomon::{customer_routes, Instance};
use route_solver::fleet::{
    self, FleetCost, FleetError, FleetInput, FleetParams, FleetSolution, JobInput, Objective,
    Reason, VehicleInput,
};
use route_solver::rng::Rng;
use route_solver::search::Clock;
use route_solver::NativeClock;
use std::cell::Cell;

struct Options {
    deadlines: bool,
    /// 1–3 windows on some jobs (the others keep [ready, due])
    windows: bool,
    allowed: bool,
    max_stops: bool,
    open: bool,
    unreachable: bool,
}

const ALL: Options = Options {
    deadlines: true,
    windows: false,
    allowed: true,
    max_stops: true,
    open: true,
    unreachable: true,
};

/// Random instance: points in a square with asymmetric noise; two demand
/// dimensions; windows, shifts, and the optional features.
fn random_input(
    rng: &mut Rng,
    n: usize,
    nv: usize,
    o: &Options,
    objective: Objective,
) -> FleetInput {
    let m = n + 2; // 0, 1: depots; 2..: jobs
    let pts: Vec<(i64, i64)> = (0..m)
        .map(|_| (rng.range(0, 100) as i64, rng.range(0, 100) as i64))
        .collect();
    let mut travel = vec![0i64; m * m];
    for a in 0..m {
        for b in 0..m {
            if a != b {
                let (p, q) = (pts[a], pts[b]);
                let e = (((p.0 - q.0).pow(2) + (p.1 - q.1).pow(2)) as f64).sqrt() as i64;
                travel[a * m + b] = e + rng.range(0, 10) as i64;
                if o.unreachable && a >= 2 && b >= 2 && rng.range(0, 30) == 0 {
                    travel[a * m + b] = -1;
                }
            }
        }
    }
    let vehicles = (0..nv)
        .map(|v| VehicleInput {
            start: v % 2,
            end: if o.open && v == 1 { None } else { Some(0) },
            shift_start: rng.range(0, 30) as i64,
            shift_end: if rng.range(0, 2) == 0 {
                Some(400 + rng.range(0, 400) as i64)
            } else {
                None
            },
            capacity: vec![rng.range(15, 40) as i64, rng.range(3, 8) as i64],
            max_stops: if o.max_stops && rng.range(0, 2) == 0 {
                Some(rng.range(1, n))
            } else {
                None
            },
            max_duration: None,
            max_driving: None,
            max_distance: None,
            breaks: Vec::new(),
            ..VehicleInput::default()
        })
        .collect();
    let jobs = (0..n)
        .map(|j| {
            let windowed = rng.range(0, 2) == 0;
            let ready = if windowed {
                rng.range(0, 300) as i64
            } else {
                0
            };
            JobInput {
                location: j + 2,
                service: rng.range(0, 20) as i64,
                ready,
                due: if windowed {
                    Some(ready + rng.range(20, 200) as i64)
                } else {
                    None
                },
                deadline: if o.deadlines && rng.range(0, 3) == 0 {
                    Some(rng.range(0, 300) as i64)
                } else {
                    None
                },
                demand: vec![rng.range(0, 10) as i64, rng.range(0, 2) as i64],
                allowed: if o.allowed && rng.range(0, 4) == 0 {
                    Some((0..nv).filter(|_| rng.range(0, 1) == 0).collect())
                } else {
                    None
                },
                windows: if o.windows && (!windowed || rng.range(0, 4) == 0) {
                    Some(random_windows(rng))
                } else {
                    None
                },
                priority: 0,
                pickup: Vec::new(),
            }
        })
        .collect();
    FleetInput {
        locations: m,
        travel,
        distance: None,
        vehicles,
        jobs,
        objective,
        limit_distance: None,
        shipments: Vec::new(),
    }
}

/// 1–3 disjoint windows in time order within the first 600 units.
fn random_windows(rng: &mut Rng) -> Vec<(i64, i64)> {
    let mut t = rng.range(0, 150) as i64;
    (0..rng.range(1, 4))
        .map(|_| {
            let w = (t, t + rng.range(0, 80) as i64);
            t = w.1 + 1 + rng.range(0, 150) as i64;
            w
        })
        .collect()
}

/// Start of service for an arrival at `t` (None: every window missed), read
/// from the raw input: the windows (each cut to [ready, due]) or [ready, due].
fn start_of_service(job: &JobInput, t: i64) -> Option<i64> {
    let due = job.due.unwrap_or(i64::MAX);
    let list = job
        .windows
        .clone()
        .unwrap_or_else(|| vec![(job.ready, due)]);
    list.iter()
        .map(|&(s, e)| (s.max(job.ready), e.min(due)))
        .filter(|&(s, e)| s <= e && t <= e)
        .map(|(s, _)| t.max(s))
        .next()
}

/// Leaving job j out: its priority first, then one job (priority × (jobs + 1) + 1).
fn miss_weight(inp: &FleetInput, j: usize) -> i64 {
    inp.jobs[j].priority * (inp.jobs.len() as i64 + 1) + 1
}

/// Independent simulation of one vehicle's route over the raw input:
/// (feasible, lateness, duration, distance).
fn simulate(inp: &FleetInput, v: usize, jobs: &[u32]) -> (bool, i64, i64, i64) {
    let m = inp.locations;
    let veh = &inp.vehicles[v];
    let tt = |a: usize, b: usize| -> Option<i64> {
        let x = inp.travel[a * m + b];
        if x < 0 {
            None
        } else {
            Some(x)
        }
    };
    let mut ok = jobs.len() <= veh.max_stops.unwrap_or(usize::MAX);
    let mut t = veh.shift_start;
    let mut at = veh.start;
    let mut late = 0;
    let mut dist = 0;
    let mut load = [0i64; 2];
    // breaks still to take, latest window start last (popped from the end)
    let mut todo = veh.breaks.clone();
    todo.sort_by_key(|b| std::cmp::Reverse((b.start, b.end)));
    // from `t` on, take every break whose window opens by `by` (None: by the
    // time reached, the vehicle standing still); false when one closed before
    let take = |todo: &mut Vec<fleet::model::BreakInput>, t: &mut i64, by: Option<i64>| -> bool {
        let mut fine = true;
        while todo.last().map_or(false, |b| b.start <= by.unwrap_or(*t)) {
            let b = todo.pop().unwrap();
            let at = (*t).max(b.start);
            fine &= at <= b.end;
            *t = at + b.duration;
        }
        fine
    };
    for (k, &j) in jobs.iter().enumerate() {
        let job = &inp.jobs[j as usize];
        if let Some(list) = &job.allowed {
            ok &= list.contains(&v);
        }
        if k > 0 {
            ok &= take(&mut todo, &mut t, None);
        }
        match tt(at, job.location) {
            Some(x) => {
                t += x;
                dist += x;
            }
            None => ok = false,
        }
        loop {
            match start_of_service(job, t) {
                Some(s) if todo.last().map_or(false, |b| b.start <= s) => {
                    // a break whose window opens before the service: taken first
                    let b = todo.pop().unwrap();
                    let at = t.max(b.start);
                    ok &= at <= b.end;
                    t = at + b.duration;
                }
                Some(s) => {
                    t = s;
                    break;
                }
                None => {
                    ok = false;
                    break;
                }
            }
        }
        if let Some(dl) = job.deadline {
            late += (t - dl).max(0);
        }
        t += job.service;
        at = job.location;
        for (d, l) in load.iter_mut().enumerate() {
            *l += job.demand.get(d).copied().unwrap_or(0);
        }
    }
    if !jobs.is_empty() {
        ok &= take(&mut todo, &mut t, None);
    }
    if let Some(e) = veh.end {
        match tt(at, e) {
            Some(x) => {
                t += x;
                dist += x;
            }
            None => ok = false,
        }
    }
    if !jobs.is_empty() {
        // the rest at the end point, waiting for their windows
        ok &= take(&mut todo, &mut t, Some(i64::MAX));
    }
    ok &= t <= veh.shift_end.unwrap_or(i64::MAX);
    ok &= t - veh.shift_start <= veh.max_duration.unwrap_or(i64::MAX);
    ok &= dist <= veh.max_driving.unwrap_or(i64::MAX);
    if let Some(limit) = veh.max_distance {
        // over the limit's own matrix (the travel times when none is given)
        let ld = inp.limit_distance.as_ref().unwrap_or(&inp.travel);
        let mut at = veh.start;
        let mut sum = 0;
        for &j in jobs {
            let l = inp.jobs[j as usize].location;
            sum += ld[at * m + l];
            at = l;
        }
        sum += veh.end.map_or(0, |e| ld[at * m + e]);
        ok &= sum <= limit;
    }
    for (d, l) in load.iter().enumerate() {
        ok &= *l <= veh.capacity.get(d).copied().unwrap_or(0);
    }
    (ok, late, t - veh.shift_start, dist)
}

/// Cost of a set of routes over the raw input, or None if a route is infeasible.
fn independent_cost(inp: &FleetInput, routes: &[Vec<u32>]) -> Option<FleetCost> {
    let o = inp.objective;
    let mut c = FleetCost::ZERO;
    let mut served = vec![false; inp.jobs.len()];
    for (v, r) in routes.iter().enumerate() {
        if r.is_empty() {
            continue;
        }
        let (ok, late, dur, dist) = simulate(inp, v, r);
        if !ok {
            return None;
        }
        r.iter().for_each(|&j| served[j as usize] = true);
        c.lateness += late;
        c.main += o.vehicle_cost + o.duration_weight * dur + o.distance_weight * dist;
    }
    c.unassigned = (0..inp.jobs.len())
        .filter(|&j| !served[j])
        .map(|j| miss_weight(inp, j))
        .sum();
    Some(c)
}

/// Solve with the default parameters but the seed and an iteration budget
/// (so the result does not depend on the clock).
fn solve_seeded(inp: &FleetInput, seed: u64, max_iterations: u64) -> fleet::FleetSolution {
    let p = FleetProblem::new(inp).expect("valid input");
    let params = FleetParams {
        seed,
        max_iterations,
        ..FleetParams::default()
    };
    fleet::solve(&p, &params, &NativeClock::new())
}

/// `solve_seeded` with the default seed.
fn solve_input(inp: &FleetInput, max_iterations: u64) -> fleet::FleetSolution {
    solve_seeded(inp, FleetParams::default().seed, max_iterations)
}

fn check_solution(inp: &FleetInput, sol: &fleet::FleetSolution) {
    let mut count = vec![0usize; inp.jobs.len()];
    for r in &sol.routes {
        for &j in r {
            count[j as usize] += 1;
        }
    }
    for &(j, _) in &sol.unassigned {
        count[j as usize] += 1;
    }
    assert!(
        count.iter().all(|&c| c == 1),
        "every job exactly once, routed or unassigned: {:?}",
        count
    );
    assert_eq!(sol.routes.len(), inp.vehicles.len());
    let c = independent_cost(inp, &sol.routes)
        .expect("every route feasible (capacity, windows, shifts, maxStops, allowed)");
    assert_eq!(
        c, sol.cost,
        "reported cost equals the independent recomputation"
    );
}

#[test]
fn random_instances_are_feasible_complete_and_priced_right() {
    let mut rng = Rng::new(7);
    for case in 0..40 {
        let n = rng.range(1, 30);
        let nv = rng.range(1, 5);
        let objective = if case % 2 == 0 {
            Objective::SERVICE
        } else {
            Objective::DISTANCE
        };
        let inp = random_input(&mut rng, n, nv, &ALL, objective);
        let sol = solve_seeded(&inp, case, 150);
        check_solution(&inp, &sol);
    }
}

#[test]
fn schedules_follow_the_matrix() {
    let mut rng = Rng::new(11);
    let inp = random_input(&mut rng, 25, 3, &ALL, Objective::SERVICE);
    let p = FleetProblem::new(&inp).unwrap();
    let sol = solve_input(&inp, 100);
    let m = inp.locations;
    for (v, r) in sol.routes.iter().enumerate() {
        let (starts, ret) = route_solver::fleet::solution::schedule_of(&p, v, r);
        let veh = &inp.vehicles[v];
        let mut t = veh.shift_start;
        let mut at = veh.start;
        for (k, &j) in r.iter().enumerate() {
            let job = &inp.jobs[j as usize];
            let arrive = t + inp.travel[at * m + job.location];
            assert!(starts[k] >= arrive, "service starts after the arrival");
            assert!(
                starts[k] >= job.ready,
                "service starts at or after notBefore"
            );
            assert!(
                starts[k] == arrive.max(job.ready),
                "no idle time beyond waiting for the window"
            );
            t = starts[k] + job.service;
            at = job.location;
        }
        let back = t + veh.end.map_or(0, |e| inp.travel[at * m + e]);
        assert_eq!(ret, back);
    }
}

/// Best cost over all assignments of jobs to 2 vehicles (or unassigned) and
/// all orders (n ≤ 8): best route per (vehicle, subset) by enumerating every
/// sequence, then the best split.
fn brute_force(inp: &FleetInput) -> FleetCost {
    let n = inp.jobs.len();
    let o = inp.objective;
    let full = 1usize << n;
    let mut best_route: Vec<Vec<Option<(i64, i64)>>> = vec![vec![None; full]; 2];
    for (v, table) in best_route.iter_mut().enumerate() {
        table[0] = Some((0, 0));
        let mut seq: Vec<u32> = Vec::new();
        fn rec(
            inp: &FleetInput,
            v: usize,
            o: Objective,
            seq: &mut Vec<u32>,
            mask: usize,
            table: &mut Vec<Option<(i64, i64)>>,
        ) {
            let n = inp.jobs.len();
            for j in 0..n {
                if mask & (1 << j) != 0 {
                    continue;
                }
                seq.push(j as u32);
                let (ok, late, dur, dist) = simulate(inp, v, seq);
                if ok {
                    let c = (
                        late,
                        o.vehicle_cost + o.duration_weight * dur + o.distance_weight * dist,
                    );
                    let m2 = mask | (1 << j);
                    if table[m2].map_or(true, |b| c < b) {
                        table[m2] = Some(c);
                    }
                }
                // no pruning: on a matrix without the triangle inequality an
                // infeasible return can become feasible through one more stop
                rec(inp, v, o, seq, mask | (1 << j), table);
                seq.pop();
            }
        }
        rec(inp, v, o, &mut seq, 0, table);
    }
    let mut best = FleetCost::MAX;
    for s0 in 0..full {
        let c0 = match best_route[0][s0] {
            Some(c) => c,
            None => continue,
        };
        let rest = (full - 1) & !s0;
        let mut s1 = rest;
        loop {
            if let Some(c1) = best_route[1][s1] {
                let c = FleetCost {
                    unassigned: (0..n)
                        .filter(|&j| (s0 | s1) & (1 << j) == 0)
                        .map(|j| miss_weight(inp, j))
                        .sum(),
                    lateness: c0.0 + c1.0,
                    main: c0.1 + c1.1,
                };
                if c < best {
                    best = c;
                }
            }
            if s1 == 0 {
                break;
            }
            s1 = (s1 - 1) & rest;
        }
    }
    best
}

#[test]
fn small_instances_match_brute_force() {
    let mut rng = Rng::new(2024);
    let mut compared = 0;
    let mut two_routes = 0;
    for case in 0..30u64 {
        let n = rng.range(3, 8);
        let o = Options {
            deadlines: case % 3 == 0,
            windows: false,
            allowed: case % 2 == 0,
            max_stops: case % 4 == 1,
            open: case % 5 == 2,
            unreachable: false,
        };
        let objective = if case % 2 == 0 {
            Objective::SERVICE
        } else {
            Objective::DISTANCE
        };
        let mut inp = random_input(&mut rng, n, 2, &o, objective);
        // keep the return to the depot open-ended enough for routes to exist
        for v in &mut inp.vehicles {
            v.shift_end = v.shift_end.map(|e| e + 300);
        }
        let expected = brute_force(&inp);
        let sol = solve_seeded(&inp, case, 300);
        check_solution(&inp, &sol);
        assert_eq!(
            sol.cost, expected,
            "case {}: heuristic vs brute force",
            case
        );
        if (expected.unassigned as usize) < n {
            compared += 1;
        }
        if expected.unassigned == 0 && sol.routes.iter().all(|r| !r.is_empty()) {
            two_routes += 1;
        }
    }
    assert!(compared >= 25, "most cases serve some jobs: {}", compared);
    assert!(
        two_routes >= 3,
        "some cases use both vehicles: {}",
        two_routes
    );
}

/// A clock that jumps around: with an iteration budget it must not matter.
struct WildClock(Cell<u64>);

impl Clock for WildClock {
    fn now_ms(&self) -> f64 {
        let x = self
            .0
            .get()
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0.set(x);
        (x >> 40) as f64
    }
}

/// The solution without the time its best plan was found at (observed on
/// the clock, never a decision: it differs from clock to clock).
fn clockless(mut s: FleetSolution) -> FleetSolution {
    assert!(s.progress.best_ms.is_some());
    s.progress.best_ms = None;
    s
}

#[test]
fn deterministic_for_a_seed_and_iteration_budget() {
    let mut rng = Rng::new(5);
    let inp = random_input(&mut rng, 40, 4, &ALL, Objective::SERVICE);
    let p = FleetProblem::new(&inp).unwrap();
    let params = FleetParams {
        seed: 3,
        max_iterations: 200,
        time_limit_ms: 1.0, // ignored with an iteration budget
        ..FleetParams::default()
    };
    let a = clockless(fleet::solve(&p, &params, &NativeClock::new()));
    let b = clockless(fleet::solve(&p, &params, &WildClock(Cell::new(1))));
    assert_eq!(a, b);
    assert_eq!(a.progress.iterations, 200);
    let c = fleet::solve(
        &p,
        &FleetParams {
            seed: 4,
            ..params.clone()
        },
        &NativeClock::new(),
    );
    check_solution(&inp, &c);
}

/// A clock that advances by `step` ms at each read, counting its reads.
struct SteppingClock {
    now: Cell<f64>,
    step: f64,
    reads: Cell<u64>,
}

impl SteppingClock {
    fn new(step: f64) -> SteppingClock {
        SteppingClock {
            now: Cell::new(0.0),
            step,
            reads: Cell::new(0),
        }
    }
}

impl Clock for SteppingClock {
    fn now_ms(&self) -> f64 {
        self.reads.set(self.reads.get() + 1);
        self.now.set(self.now.get() + self.step);
        self.now.get()
    }
}

#[test]
fn the_deadline_reads_the_clock_every_stride_calls_and_never_without_a_limit() {
    use route_solver::fleet::deadline::{Deadline, STRIDE};
    let clock = SteppingClock::new(1.0);
    let d = Deadline::new(&clock, 0.0, 1_000_000.0);
    for _ in 0..10 * STRIDE {
        assert!(!d.tick());
    }
    assert_eq!(clock.reads.get(), 10, "one read per STRIDE ticks");
    let late = SteppingClock::new(1.0);
    let d = Deadline::new(&late, 0.0, 5.0);
    let ticks = (0..).take_while(|_| !d.tick()).count() as u32;
    assert_eq!(ticks, 5 * STRIDE - 1, "expired at the fifth read");
    assert!(d.tick() && d.expired(), "stays expired");
    let reads = late.reads.get();
    assert!(d.tick() && d.expired());
    assert_eq!(
        late.reads.get(),
        reads,
        "an expired deadline reads the clock no more"
    );
    let none = Deadline::none();
    assert!((0..10 * STRIDE).all(|_| !none.tick()) && !none.expired());
    let unlimited = SteppingClock::new(1e9);
    let d = Deadline::new(&unlimited, 0.0, 0.0);
    assert!((0..10 * STRIDE).all(|_| !d.tick()) && !d.expired());
    assert_eq!(
        unlimited.reads.get(),
        0,
        "no limit: the clock is never read"
    );
}

#[test]
fn an_expired_budget_stops_the_descent_but_returns_a_complete_plan() {
    let mut rng = Rng::new(8);
    let inp = random_input(&mut rng, 150, 6, &ALL, Objective::SERVICE);
    let p = FleetProblem::new(&inp).unwrap();
    // without a limit the construction is followed by a descent that applies moves
    let free = fleet::solve(
        &p,
        &FleetParams {
            max_iterations: 1,
            ..FleetParams::default()
        },
        &NativeClock::new(),
    );
    assert!(free.progress.nonzero().any(|(_, c)| c.applied > 0));
    // 1 ms per clock read, 40 ms: the limit passes during the construction
    let clock = SteppingClock::new(1.0);
    let params = FleetParams {
        time_limit_ms: 40.0,
        ..FleetParams::default()
    };
    let sol = fleet::solve_since(&p, &params, &clock, 0.0);
    assert_eq!(sol.progress.iterations, 0);
    assert!(
        sol.progress.nonzero().all(|(_, c)| c.applied == 0),
        "the descent stops at its first check"
    );
    // the construction still completes the plan (every job routed or given a reason)
    check_solution(&inp, &sol);
}

#[test]
fn the_stall_stop_ends_the_search_after_that_many_iterations_without_improvement() {
    let mut rng = Rng::new(11);
    let inp = random_input(&mut rng, 30, 3, &ALL, Objective::DISTANCE);
    let p = FleetProblem::new(&inp).unwrap();
    let stalled = |stall: u64, max_iterations: u64, clock: &dyn Clock| {
        fleet::solve(
            &p,
            &FleetParams {
                seed: 2,
                max_iterations,
                time_limit_ms: 600_000.0,
                stall_iterations: stall,
                ..FleetParams::default()
            },
            clock,
        )
    };
    // the count, shrunk when maxStops leave jobs out (fleet::bound::stall_for_served)
    let b = fleet::bound::lower_bound(&p);
    let count = fleet::bound::stall_for_served(40, b.takeable, b.served);
    // no vehicle cost, so no fleet phase: the annealing starts at iteration 0
    let a = stalled(40, 1_000_000, &NativeClock::new());
    assert_eq!(a.progress.iterations, a.progress.best_iteration + count);
    check_solution(&inp, &a);
    // deterministic at a fixed iteration budget, whatever the clock says
    assert_eq!(
        clockless(a.clone()),
        clockless(stalled(40, 1_000_000, &WildClock(Cell::new(9))))
    );
    // with a time limit only (10 minutes), the stop comes just as early
    let timed = fleet::solve(
        &p,
        &FleetParams {
            seed: 2,
            time_limit_ms: 600_000.0,
            stall_iterations: 40,
            ..FleetParams::default()
        },
        &NativeClock::new(),
    );
    assert_eq!(
        timed.progress.iterations,
        timed.progress.best_iteration + count
    );
    // an iteration budget below the stall still ends the run
    let short = stalled(1_000, 25, &NativeClock::new());
    assert_eq!(short.progress.iterations, 25);
    // with a vehicle cost the fleet phase comes first and ends when it stalls too
    let svc = FleetInput {
        objective: Objective::SERVICE,
        ..inp.clone()
    };
    let q = FleetProblem::new(&svc).unwrap();
    let s = fleet::solve(
        &q,
        &FleetParams {
            seed: 2,
            max_iterations: 1_000_000,
            stall_iterations: 40,
            ..FleetParams::default()
        },
        &NativeClock::new(),
    );
    assert!(s.progress.iterations >= s.progress.best_iteration + count);
    assert!(s.progress.iterations < 1_000_000);
    check_solution(&svc, &s);
}

fn one_vehicle_input() -> FleetInput {
    // locations: 0 depot, 1..=4 jobs; 10 s between any two points
    let m = 5;
    let mut travel = vec![10i64; m * m];
    for i in 0..m {
        travel[i * m + i] = 0;
    }
    let jobs = (1..=4)
        .map(|l| JobInput {
            location: l,
            demand: vec![1],
            ..JobInput::default()
        })
        .collect();
    let mut inp = depot_day(m, travel, jobs);
    inp.vehicles[0].shift_end = Some(100);
    inp.vehicles[0].capacity = vec![10];
    inp.objective = Objective::SERVICE;
    inp
}

#[test]
fn unassigned_jobs_carry_their_reason() {
    let mut inp = one_vehicle_input();
    inp.jobs[0].demand = vec![11]; // more than any capacity
    inp.jobs[1].allowed = Some(vec![]); // no vehicle
    inp.jobs[2].ready = 200; // after the shift
    inp.jobs[2].due = Some(300);
    for l in 0..5 {
        inp.travel[l * 5 + 4] = if l == 4 { 0 } else { -1 }; // job 3 cannot be reached
    }
    let sol = solve_input(&inp, 20);
    let reasons: Vec<(u32, Reason)> = sol.unassigned.clone();
    assert_eq!(
        reasons,
        vec![
            (0, Reason::Capacity),
            (1, Reason::AllowedVehicles),
            (2, Reason::Shift),
            (3, Reason::Unreachable)
        ]
    );
    assert_eq!(Reason::AllowedVehicles.code(), "allowedVehicles");
    check_solution(&inp, &sol);
}

#[test]
fn capacity_left_over_jobs_are_reported_as_capacity() {
    let mut inp = one_vehicle_input();
    inp.vehicles[0].capacity = vec![2];
    let sol = solve_input(&inp, 20);
    assert_eq!(sol.unassigned.len(), 2);
    assert!(sol.unassigned.iter().all(|&(_, r)| r == Reason::Capacity));
    let mut inp = one_vehicle_input();
    inp.vehicles[0].max_stops = Some(3);
    let sol = solve_input(&inp, 20);
    assert_eq!(sol.unassigned.len(), 1);
    assert_eq!(sol.unassigned[0].1, Reason::Capacity);
    let mut inp = one_vehicle_input();
    inp.vehicles[0].shift_end = Some(30); // room for two stops only
    let sol = solve_input(&inp, 20);
    assert_eq!(sol.unassigned.len(), 2);
    assert!(sol.unassigned.iter().all(|&(_, r)| r == Reason::Shift));
}

#[test]
fn fewer_vehicles_before_shorter_duration() {
    // two far-apart pairs: one vehicle doing both is longer than two, but the objective takes one
    let m = 5;
    let pos = [0i64, 100, 101, -100, -101];
    let mut travel = vec![0i64; m * m];
    for a in 0..m {
        for b in 0..m {
            travel[a * m + b] = (pos[a] - pos[b]).abs();
        }
    }
    let mut inp = one_vehicle_input();
    inp.travel = travel;
    inp.vehicles = vec![inp.vehicles[0].clone(); 2];
    inp.vehicles[0].shift_end = None;
    inp.vehicles[1].shift_end = None;
    let sol = solve_input(&inp, 50);
    assert_eq!(sol.routes.iter().filter(|r| !r.is_empty()).count(), 1);
    inp.objective = Objective::DISTANCE;
    let sol = solve_input(&inp, 50);
    check_solution(&inp, &sol);
    assert_eq!(
        sol.cost.main, 404,
        "distance only: same total either way, 4 × 101"
    );
}

#[test]
fn invalid_input_is_rejected() {
    let good = one_vehicle_input();
    let mut bad = good.clone();
    bad.vehicles.clear();
    assert_eq!(FleetProblem::new(&bad).err(), Some(FleetError::NoVehicles));
    let mut bad = good.clone();
    bad.vehicles = vec![good.vehicles[0].clone(); MAX_VEHICLES + 1];
    assert_eq!(
        FleetProblem::new(&bad).err(),
        Some(FleetError::TooManyVehicles)
    );
    let mut bad = good.clone();
    bad.travel.pop();
    assert_eq!(FleetProblem::new(&bad).err(), Some(FleetError::BadMatrix));
    let mut bad = good.clone();
    bad.travel[1] = -2;
    assert_eq!(
        FleetProblem::new(&bad).err(),
        Some(FleetError::NegativeValue)
    );
    let mut bad = good.clone();
    bad.jobs[0].location = 5;
    assert_eq!(FleetProblem::new(&bad).err(), Some(FleetError::BadLocation));
    let mut bad = good.clone();
    bad.jobs[0].demand = vec![-1];
    assert_eq!(
        FleetProblem::new(&bad).err(),
        Some(FleetError::NegativeQuantity)
    );
    let mut bad = good.clone();
    bad.jobs[0].ready = 50;
    bad.jobs[0].due = Some(40);
    assert_eq!(FleetProblem::new(&bad).err(), Some(FleetError::BadWindow));
    let mut bad = good.clone();
    bad.jobs[0].allowed = Some(vec![1]);
    assert_eq!(
        FleetProblem::new(&bad).err(),
        Some(FleetError::BadVehicleIndex)
    );
    let mut bad = good.clone();
    bad.jobs.clear();
    assert_eq!(FleetProblem::new(&bad).err(), Some(FleetError::NoJobs));
    let mut bad = good;
    bad.vehicles[0].capacity = vec![1; 9];
    assert_eq!(
        FleetProblem::new(&bad).err(),
        Some(FleetError::TooManyDimensions)
    );
}

#[test]
fn the_fleet_limit_is_at_least_1000_vehicles() {
    assert!(MAX_VEHICLES >= 1000);
    let mut inp = one_vehicle_input();
    inp.vehicles = vec![inp.vehicles[0].clone(); MAX_VEHICLES];
    inp.jobs[0].allowed = Some(vec![MAX_VEHICLES - 1]);
    let sol = solve_input(&inp, 5);
    check_solution(&inp, &sol);
    assert!(sol.routes[MAX_VEHICLES - 1].contains(&0));
    inp.vehicles.push(inp.vehicles[0].clone());
    assert_eq!(
        FleetProblem::new(&inp).err(),
        Some(FleetError::TooManyVehicles)
    );
}

#[test]
fn allowed_vehicles_past_64_are_kept_in_a_large_fleet() {
    let nv = 300;
    let mut rng = Rng::new(64);
    for case in 0..4u64 {
        let mut inp = random_input(&mut rng, 40, nv, &ALL, Objective::SERVICE);
        inp.vehicles.iter_mut().for_each(|v| v.shift_end = None);
        for (k, job) in inp.jobs.iter_mut().enumerate() {
            job.allowed = match k % 4 {
                // one vehicle past 64 only, another word of the bitset each time
                0 => Some(vec![64 + (k * 37) % (nv - 64)]),
                // two vehicles past 64, in different words
                1 => Some(vec![65 + k, 200 + k]),
                // all but the first 64
                2 => Some((64..nv).collect()),
                _ => None,
            };
        }
        let sol = solve_seeded(&inp, case, 200);
        check_solution(&inp, &sol);
        for (v, route) in sol.routes.iter().enumerate() {
            for &j in route {
                if let Some(list) = &inp.jobs[j as usize].allowed {
                    assert!(list.contains(&v), "job {} on vehicle {}", j, v);
                }
            }
        }
        let routed = |j: usize| sol.routes.iter().position(|r| r.contains(&(j as u32)));
        let mut on_their_vehicle = 0;
        for k in (0..inp.jobs.len()).step_by(4) {
            if let Some(v) = routed(k) {
                assert_eq!(
                    v,
                    64 + (k * 37) % (nv - 64),
                    "job {} on its only vehicle",
                    k
                );
                on_their_vehicle += 1;
            }
        }
        assert!(on_their_vehicle >= 5, "{} of 10 routed", on_their_vehicle);
    }
}

#[test]
fn the_flat_allowed_bitsets_name_any_vehicle_of_the_fleet() {
    use route_solver::fleet::flat;
    let nv = 100;
    let words = route_solver::abi::allowed_words(nv);
    assert_eq!(words, 4);
    let vehicles: Vec<f64> = (0..nv).flat_map(|_| [0.0, 0.0, 0.0, -1.0, -1.0]).collect();
    let jobs = [1.0, 0.0, 0.0, -1.0, route_solver::abi::NO_DEADLINE as f64].repeat(2);
    let travel = [0, 5, 5, 0];
    let mut allowed = vec![0u32; 2 * words];
    allowed[3] = 1 << 3; // job 0: vehicle 99
    allowed[words] = 1; // job 1: vehicles 0 and 70
    allowed[words + 2] = 1 << 6;
    let flat_input = |allowed: &[u32]| {
        flat::decode(&flat::FlatInput {
            locations: 2,
            travel: &travel,
            distance: None,
            vehicles: &vehicles,
            jobs: &jobs,
            dims: 0,
            capacity: &[],
            demand: &[],
            allowed: Some(allowed),
            objective: [0.0, 1.0, 0.0],
            extra: None,
        })
    };
    let inp = flat_input(&allowed).expect("valid");
    assert_eq!(inp.jobs[0].allowed, Some(vec![99]));
    assert_eq!(inp.jobs[1].allowed, Some(vec![0, 70]));
    allowed[3] = 1 << 4; // vehicle 100: past the fleet
    assert_eq!(
        flat_input(&allowed).err(),
        Some(flat::STATUS_BAD_VEHICLE_INDEX)
    );
    assert_eq!(
        flat_input(&allowed[..2 * words - 1]).err(),
        Some(flat::STATUS_BAD_MATRIX)
    );
}

#[test]
fn segment_joins_equal_a_forward_simulation() {
    let mut rng = Rng::new(99);
    for _ in 0..200 {
        let n = rng.range(1, 12);
        let mut inp = random_input(&mut rng, n, 1, &ALL, Objective::SERVICE);
        inp.travel.iter_mut().for_each(|x| *x = (*x).max(0));
        inp.vehicles[0].max_stops = None;
        inp.vehicles[0].capacity = vec![1000, 1000];
        inp.jobs.iter_mut().for_each(|j| j.allowed = None);
        let p = FleetProblem::new(&inp).unwrap();
        let order: Vec<u32> = (0..n as u32).collect();
        // join in a random tree shape: left part + right part
        let cut = rng.range(0, n);
        let mut left = route_solver::fleet::solution::start_segment(&p, 0);
        for &j in &order[..cut] {
            left = left.then(
                &route_solver::fleet::solution::job_segment(&p, j as usize),
                &p,
            );
        }
        let mut right: Option<TwSegment> = None;
        for &j in order[cut..].iter().rev() {
            let s = route_solver::fleet::solution::job_segment(&p, j as usize);
            right = Some(match right {
                None => s,
                Some(r) => s.then(&r, &p),
            });
        }
        let mut full = left;
        if let Some(r) = right {
            full = full.then(&r, &p);
        }
        full = full.then(&route_solver::fleet::solution::end_segment(&p, 0), &p);
        let (ok, _, duration, _) = simulate(&inp, 0, &order);
        assert_eq!(full.feasible(), ok);
        if ok {
            assert_eq!(full.duration, duration);
        }
    }
}

#[test]
fn solomon_parser_and_checker() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../data/solomon");
    let text = std::fs::read_to_string(format!("{}/C101.txt", dir)).expect("data/solomon/C101.txt");
    let inst = Instance::parse(&text).unwrap();
    assert_eq!(
        (
            inst.name.as_str(),
            inst.vehicles,
            inst.capacity,
            inst.nodes.len()
        ),
        ("C101", 25, 200, 101)
    );
    assert!(
        inst.check(&[vec![1, 2]]).is_err(),
        "a solution missing customers is refused"
    );
    let sol = solve_input(&inst.fleet_input(false), 30);
    assert!(sol.unassigned.is_empty());
    let routes = customer_routes(&sol.routes);
    let (total, truncated) = inst.check(&routes).expect("feasible in doubles");
    assert!(
        truncated <= total && total < 2.0 * 827.3,
        "{} {}",
        total,
        truncated
    );
    let scaled = sol.cost.main as f64 / route_solver::fleet::solomon::SCALE;
    assert!(
        (scaled - total).abs() < 0.01,
        "scaled objective {} vs double total {}",
        scaled,
        total
    );
    let all: Vec<u32> = routes.iter().flatten().copied().collect();
    assert!(
        inst.check(&[all]).unwrap_err().contains("load"),
        "one route for everything breaks the capacity"
    );
    let mut late = routes.clone();
    late[0].reverse();
    assert!(
        inst.check(&late).unwrap_err().contains("served at"),
        "a reversed route breaks a window"
    );
}

const WINDOWS: Options = Options {
    deadlines: true,
    windows: true,
    allowed: true,
    max_stops: true,
    open: true,
    unreachable: false,
};

#[test]
fn several_windows_small_instances_match_brute_force() {
    let mut rng = Rng::new(4242);
    let mut multi = 0;
    let mut served = 0;
    for case in 0..40u64 {
        let n = rng.range(3, 7);
        let objective = if case % 2 == 0 {
            Objective::SERVICE
        } else {
            Objective::DISTANCE
        };
        let mut inp = random_input(&mut rng, n, 2, &WINDOWS, objective);
        for v in &mut inp.vehicles {
            v.shift_end = v.shift_end.map(|e| e + 300);
        }
        if FleetProblem::new(&inp).unwrap().multi_windows {
            multi += 1;
        }
        let expected = brute_force(&inp);
        let sol = solve_seeded(&inp, case, 300);
        check_solution(&inp, &sol);
        assert_eq!(
            sol.cost, expected,
            "case {}: heuristic vs brute force",
            case
        );
        served += n - expected.unassigned as usize;
    }
    assert!(
        multi >= 30,
        "most cases have jobs with several windows: {}",
        multi
    );
    assert!(served >= 80, "most jobs are served: {}", served);
}

#[test]
fn several_windows_random_instances_are_feasible_and_priced_right() {
    let mut rng = Rng::new(99);
    for case in 0..30 {
        let n = rng.range(5, 40);
        let nv = rng.range(1, 5);
        let objective = if case % 2 == 0 {
            Objective::SERVICE
        } else {
            Objective::DISTANCE
        };
        let inp = random_input(&mut rng, n, nv, &WINDOWS, objective);
        let sol = solve_seeded(&inp, case, 150);
        check_solution(&inp, &sol);
    }
}

/// Every move an operator offers, applied to a copy: the new cost is the
/// old one plus the evaluated delta, a recomputation agrees, and every route
/// passes the independent simulation (release builds too: debug builds
/// assert the same inside `apply`).
#[test]
fn several_windows_every_operator_prices_its_moves_exactly() {
    use route_solver::fleet::operators::{
        apply, cross_exchange, evaluate_pair, relocate, swap, two_opt_star, Evaluate,
    };
    use route_solver::fleet::solution::Solution;
    let mut rng = Rng::new(31);
    let mut moves = 0;
    let mut insertions = 0;
    for case in 0..12u64 {
        let inp = random_input(
            &mut rng,
            14,
            3,
            &WINDOWS,
            if case % 2 == 0 {
                Objective::SERVICE
            } else {
                Objective::DISTANCE
            },
        );
        let p = FleetProblem::new(&inp).unwrap();
        // a plan from a few iterations, then every operator on every pair
        let plan = solve_seeded(&inp, case, 3);
        let mut sol = Solution::empty(&p);
        for (r, jobs) in plan.routes.iter().enumerate() {
            sol.set_route(&p, r, jobs.clone());
        }
        let before = sol.cost(&p);
        for u in 0..p.n() {
            for v in 0..p.n() {
                if u == v {
                    continue;
                }
                let ops: [Evaluate; 4] = [
                    relocate::evaluate,
                    swap::evaluate,
                    two_opt_star::evaluate,
                    cross_exchange::evaluate,
                ];
                for op in ops.iter() {
                    if let Some(m) = evaluate_pair(*op, &p, &mut sol, u, v) {
                        let mut after = sol.clone();
                        apply(&p, &mut after, &m);
                        assert_eq!(after.cost(&p), before.plus(m.delta));
                        after.check(&p).expect("a valid plan after the move");
                        let routes: Vec<Vec<u32>> =
                            after.routes.iter().map(|r| r.jobs.clone()).collect();
                        let c = independent_cost(&inp, &routes).expect("feasible after the move");
                        assert_eq!(
                            (c.lateness, c.main),
                            (after.cost(&p).lateness, after.cost(&p).main)
                        );
                        moves += 1;
                    }
                }
            }
        }
        // take every third job out, then insert each back: the priced delta is the change
        let out: Vec<u32> = (0..p.n() as u32)
            .filter(|&j| j % 3 == case as u32 % 3 && sol.is_assigned(j as usize))
            .collect();
        sol.remove_jobs(&p, &out);
        let before = sol.cost(&p);
        for j in 0..p.n() {
            if sol.is_assigned(j) {
                continue;
            }
            for r in 0..p.vehicles.len() {
                if let Some((delta, k)) = sol.best_insertion(&p, r, j, || false) {
                    let mut after = sol.clone();
                    after.insert(&p, r, j, k);
                    // the delta is the route's; the job leaves the unassigned
                    let one = FleetCost {
                        unassigned: 1,
                        ..FleetCost::ZERO
                    };
                    assert_eq!(after.cost(&p), before.plus(delta).minus(one));
                    after.check(&p).expect("a valid plan after the insertion");
                    insertions += 1;
                }
            }
        }
    }
    assert!(moves >= 50, "operators found moves: {}", moves);
    assert!(insertions >= 5, "insertions priced: {}", insertions);
}

#[test]
fn a_job_whose_windows_no_vehicle_reaches_is_unassigned_for_its_windows() {
    let mut inp = one_vehicle_input();
    let far = inp.jobs.len() - 1;
    // every window ends before the vehicle can get there
    let first = inp.vehicles[0].shift_start;
    inp.jobs[far].windows = Some(vec![(0, first), (first + 1, first + 1)]);
    inp.jobs[far].ready = 0;
    inp.jobs[far].due = None;
    let sol = solve_input(&inp, 50);
    check_solution(&inp, &sol);
    assert!(
        sol.unassigned.contains(&(far as u32, Reason::TimeWindows)),
        "{:?}",
        sol.unassigned
    );
    // an empty list: never served, same reason
    inp.jobs[far].windows = Some(vec![]);
    let sol = solve_input(&inp, 50);
    assert!(sol.unassigned.contains(&(far as u32, Reason::TimeWindows)));
    // a reachable second window: served there
    inp.jobs[far].windows = Some(vec![(0, first), (first + 1, 1_000_000)]);
    let sol = solve_input(&inp, 50);
    check_solution(&inp, &sol);
    assert!(sol.unassigned.iter().all(|&(j, _)| j as usize != far));
}

#[test]
fn windows_out_of_order_or_overlapping_are_rejected() {
    let mut inp = one_vehicle_input();
    for bad in [
        vec![(10, 5)],
        vec![(10, 20), (20, 30)],
        vec![(30, 40), (0, 10)],
        vec![(-1, 5)],
    ] {
        inp.jobs[0].windows = Some(bad.clone());
        assert_eq!(
            FleetProblem::new(&inp).err(),
            Some(FleetError::BadWindow),
            "{:?}",
            bad
        );
    }
    inp.jobs[0].windows = Some(vec![(0, 10); 17]);
    assert_eq!(FleetProblem::new(&inp).err(), Some(FleetError::BadWindow));
}

/// Random route limits on `inp`'s vehicles (each limit on about half of
/// them), and a distance matrix of their own for max distance half of the time.
fn with_limits(rng: &mut Rng, inp: &mut FleetInput) {
    let m = inp.locations;
    if rng.range(0, 2) == 0 {
        inp.limit_distance = Some(
            (0..m * m)
                .map(|x| {
                    if x / m == x % m {
                        0
                    } else {
                        rng.range(5, 120) as i64
                    }
                })
                .collect(),
        );
    }
    for v in &mut inp.vehicles {
        if rng.range(0, 2) == 0 {
            v.max_duration = Some(rng.range(60, 500) as i64);
        }
        if rng.range(0, 2) == 0 {
            v.max_driving = Some(rng.range(40, 300) as i64);
        }
        if rng.range(0, 2) == 0 {
            v.max_distance = Some(rng.range(40, 300) as i64);
        }
    }
}

#[test]
fn route_limits_small_instances_match_brute_force() {
    let mut rng = Rng::new(777);
    let mut limited = 0;
    let mut served = 0;
    for case in 0..40u64 {
        let n = rng.range(3, 7);
        let objective = if case % 2 == 0 {
            Objective::SERVICE
        } else {
            Objective::DISTANCE
        };
        let o = Options {
            windows: case % 3 == 0,
            ..WINDOWS
        };
        let mut inp = random_input(&mut rng, n, 2, &o, objective);
        for v in &mut inp.vehicles {
            v.shift_end = v.shift_end.map(|e| e + 300);
        }
        with_limits(&mut rng, &mut inp);
        let expected = brute_force(&inp);
        let sol = solve_seeded(&inp, case, 1000);
        check_solution(&inp, &sol);
        assert_eq!(
            sol.cost, expected,
            "case {}: heuristic vs brute force",
            case
        );
        // the limits bind: without them the optimum serves more or costs less
        let mut free = inp.clone();
        for v in &mut free.vehicles {
            v.max_duration = None;
            v.max_driving = None;
            v.max_distance = None;
        }
        if brute_force(&free) != expected {
            limited += 1;
        }
        served += n - expected.unassigned as usize;
    }
    assert!(
        limited >= 15,
        "the limits change the optimum in many cases: {}",
        limited
    );
    assert!(served >= 60, "most jobs are served: {}", served);
}

#[test]
fn route_limits_every_operator_prices_its_moves_exactly() {
    use route_solver::fleet::operators::{
        apply, cross_exchange, evaluate_pair, relocate, swap, two_opt_star, Evaluate,
    };
    use route_solver::fleet::solution::Solution;
    let mut rng = Rng::new(313);
    let mut moves = 0;
    for case in 0..12u64 {
        let mut inp = random_input(&mut rng, 14, 3, &WINDOWS, Objective::SERVICE);
        with_limits(&mut rng, &mut inp);
        // limits loose enough for routes to exist
        for v in &mut inp.vehicles {
            v.max_driving = v.max_driving.map(|x| x + 200);
            v.max_distance = v.max_distance.map(|x| x + 200);
            v.max_duration = v.max_duration.map(|x| x + 300);
        }
        let p = FleetProblem::new(&inp).unwrap();
        let plan = solve_seeded(&inp, case, 3);
        check_solution(&inp, &plan);
        let mut sol = Solution::empty(&p);
        for (r, jobs) in plan.routes.iter().enumerate() {
            sol.set_route(&p, r, jobs.clone());
        }
        let before = sol.cost(&p);
        for u in 0..p.n() {
            for v in 0..p.n() {
                if u == v {
                    continue;
                }
                let ops: [Evaluate; 4] = [
                    relocate::evaluate,
                    swap::evaluate,
                    two_opt_star::evaluate,
                    cross_exchange::evaluate,
                ];
                for op in ops.iter() {
                    if let Some(m) = evaluate_pair(*op, &p, &mut sol, u, v) {
                        let mut after = sol.clone();
                        apply(&p, &mut after, &m);
                        assert_eq!(after.cost(&p), before.plus(m.delta));
                        after.check(&p).expect("a valid plan after the move");
                        let routes: Vec<Vec<u32>> =
                            after.routes.iter().map(|r| r.jobs.clone()).collect();
                        independent_cost(&inp, &routes).expect("limits kept after the move");
                        moves += 1;
                    }
                }
            }
        }
    }
    assert!(moves >= 30, "operators found moves: {}", moves);
}

#[test]
fn a_job_only_a_route_limit_keeps_out_is_unassigned_for_route_limit() {
    let mut inp = one_vehicle_input();
    // 10 s to any job and 10 s back: 20 s of driving at least
    inp.vehicles[0].max_driving = Some(15);
    let sol = solve_input(&inp, 50);
    check_solution(&inp, &sol);
    assert!(
        sol.unassigned.iter().all(|&(_, r)| r == Reason::RouteLimit),
        "{:?}",
        sol.unassigned
    );
    inp.vehicles[0].max_driving = None;
    inp.vehicles[0].max_duration = Some(19);
    let sol = solve_input(&inp, 50);
    assert!(
        sol.unassigned.iter().all(|&(_, r)| r == Reason::RouteLimit) && sol.unassigned.len() == 4
    );
    inp.vehicles[0].max_duration = None;
    inp.vehicles[0].max_distance = Some(30); // two jobs: 10 + 10 + 10
    let sol = solve_input(&inp, 50);
    check_solution(&inp, &sol);
    assert_eq!(sol.routes[0].len(), 2);
}

#[test]
fn priorities_small_instances_match_brute_force() {
    let mut rng = Rng::new(9090);
    let mut differs = 0;
    for case in 0..40u64 {
        let n = rng.range(4, 7);
        let objective = if case % 2 == 0 {
            Objective::SERVICE
        } else {
            Objective::DISTANCE
        };
        // no deadlines: the test is about which jobs are kept
        let o = Options {
            deadlines: false,
            ..WINDOWS
        };
        let mut inp = random_input(&mut rng, n, 2, &o, objective);
        // tight capacities: not every job fits
        for v in &mut inp.vehicles {
            v.capacity = vec![rng.range(5, 15) as i64, 8];
            v.shift_end = v.shift_end.map(|e| e + 300);
        }
        for j in &mut inp.jobs {
            j.demand = vec![rng.range(2, 9) as i64, 0];
            j.priority = rng.range(0, 101) as i64;
        }
        let expected = brute_force(&inp);
        let sol = solve_seeded(&inp, case, 500);
        check_solution(&inp, &sol);
        assert_eq!(
            sol.cost, expected,
            "case {}: heuristic vs brute force",
            case
        );
        // the priorities matter: the best count alone would pick other jobs
        let mut flat = inp.clone();
        flat.jobs.iter_mut().for_each(|j| j.priority = 0);
        let by_count = brute_force(&flat);
        if by_count.unassigned != sol.unassigned.len() as i64 {
            differs += 1;
        }
    }
    assert!(
        differs >= 3,
        "priorities change how many jobs are kept in some cases: {}",
        differs
    );
}

#[test]
fn a_job_left_out_for_higher_priorities_says_so() {
    let mut inp = one_vehicle_input();
    inp.vehicles[0].capacity = vec![2];
    // four jobs of demand 1: two fit; the two of priority 50 are kept
    for (k, j) in inp.jobs.iter_mut().enumerate() {
        j.priority = if k % 2 == 0 { 50 } else { 0 };
    }
    let sol = solve_input(&inp, 50);
    check_solution(&inp, &sol);
    assert_eq!(
        sol.routes[0].iter().map(|&j| j % 2).collect::<Vec<_>>(),
        vec![0, 0]
    );
    assert!(
        sol.unassigned
            .iter()
            .all(|&(j, r)| j % 2 == 1 && r == Reason::Priority),
        "{:?}",
        sol.unassigned
    );
    // without priorities the same plan size, and the reason is capacity
    inp.jobs.iter_mut().for_each(|j| j.priority = 0);
    let sol = solve_input(&inp, 50);
    assert!(sol.unassigned.iter().all(|&(_, r)| r == Reason::Capacity));
}

/// 0–2 breaks on each vehicle: windows in the first 400 s (some shorter
/// than a leg, so that a break can be missed), 5–60 s long.
fn with_breaks(rng: &mut Rng, inp: &mut FleetInput) {
    for v in &mut inp.vehicles {
        for _ in 0..rng.range(0, 3) {
            let start = rng.range(0, 400) as i64;
            v.breaks.push(fleet::model::BreakInput {
                start,
                end: start + rng.range(0, 150) as i64,
                duration: rng.range(5, 60) as i64,
            });
        }
    }
}

/// An independent check of the breaks the solver reports for a route: each
/// starts inside its window, none overlaps a service, a leg or another break.
fn breaks_hold(inp: &FleetInput, p: &FleetProblem, v: usize, jobs: &[u32]) {
    use route_solver::fleet::breaks::taken;
    use route_solver::fleet::solution::times_of;
    let veh = &inp.vehicles[v];
    let list = taken(p, v, jobs);
    assert_eq!(
        list.len(),
        if jobs.is_empty() { 0 } else { veh.breaks.len() }
    );
    let (stops, _) = times_of(p, v, jobs);
    let m = inp.locations;
    for t in &list {
        let b = veh.breaks[t.index];
        assert!(b.start <= t.start && t.start <= b.end, "inside its window");
        let end = t.start + b.duration;
        // after the previous stop's service and before the next one's
        if t.after > 0 {
            assert!(t.start >= stops[t.after - 1].departure);
        } else {
            assert!(t.start >= veh.shift_start);
        }
        if t.after < jobs.len() {
            let next = &stops[t.after];
            assert!(end <= next.start, "over before the next service");
            // either before the leg (the leg still fits) or after arriving
            let leg = {
                let from = if t.after == 0 {
                    veh.start
                } else {
                    inp.jobs[jobs[t.after - 1] as usize].location
                };
                inp.travel[from * m + inp.jobs[jobs[t.after] as usize].location]
            };
            assert!(t.start >= next.arrival || end + leg <= next.arrival);
        }
        for o in &list {
            if o.index != t.index {
                let oe = o.start + veh.breaks[o.index].duration;
                assert!(oe <= t.start || end <= o.start, "breaks overlap");
            }
        }
    }
}

const BREAKS: Options = Options {
    deadlines: true,
    windows: true,
    allowed: true,
    max_stops: true,
    open: true,
    unreachable: false,
};

#[test]
fn breaks_small_instances_match_brute_force() {
    let mut rng = Rng::new(2611);
    let mut binding = 0;
    let mut served = 0;
    for case in 0..40u64 {
        let n = rng.range(3, 7);
        let objective = if case % 2 == 0 {
            Objective::SERVICE
        } else {
            Objective::DISTANCE
        };
        let o = Options {
            windows: case % 3 == 0,
            ..BREAKS
        };
        let mut inp = random_input(&mut rng, n, 2, &o, objective);
        for v in &mut inp.vehicles {
            v.shift_end = v.shift_end.map(|e| e + 300);
        }
        with_breaks(&mut rng, &mut inp);
        let expected = brute_force(&inp);
        let sol = solve_seeded(&inp, case, 1000);
        check_solution(&inp, &sol);
        assert_eq!(
            sol.cost, expected,
            "case {}: heuristic vs brute force",
            case
        );
        let mut free = inp.clone();
        free.vehicles.iter_mut().for_each(|v| v.breaks.clear());
        if brute_force(&free) != expected {
            binding += 1;
        }
        served += n - expected.unassigned as usize;
    }
    assert!(binding >= 15, "the breaks change the optimum: {}", binding);
    assert!(served >= 60, "most jobs are served: {}", served);
}

#[test]
fn breaks_are_never_broken_on_random_instances() {
    let mut rng = Rng::new(2612);
    let mut taken = 0;
    for case in 0..30u64 {
        let n = rng.range(5, 40);
        let nv = rng.range(1, 5);
        let mut inp = random_input(&mut rng, n, nv, &BREAKS, Objective::SERVICE);
        with_breaks(&mut rng, &mut inp);
        let p = FleetProblem::new(&inp).unwrap();
        let sol = solve_seeded(&inp, case, 150);
        check_solution(&inp, &sol);
        for (v, r) in sol.routes.iter().enumerate() {
            breaks_hold(&inp, &p, v, r);
            if !r.is_empty() {
                taken += inp.vehicles[v].breaks.len();
            }
        }
    }
    assert!(taken >= 30, "routes took breaks: {}", taken);
}

#[test]
fn breaks_every_operator_prices_its_moves_exactly() {
    use route_solver::fleet::operators::{
        apply, cross_exchange, evaluate_pair, relocate, swap, two_opt_star, Evaluate,
    };
    use route_solver::fleet::solution::Solution;
    let mut rng = Rng::new(2613);
    let (mut moves, mut insertions) = (0, 0);
    for case in 0..12u64 {
        let mut inp = random_input(&mut rng, 14, 3, &BREAKS, Objective::SERVICE);
        with_breaks(&mut rng, &mut inp);
        let p = FleetProblem::new(&inp).unwrap();
        let plan = solve_seeded(&inp, case, 3);
        check_solution(&inp, &plan);
        let mut sol = Solution::empty(&p);
        for (r, jobs) in plan.routes.iter().enumerate() {
            sol.set_route(&p, r, jobs.clone());
        }
        let before = sol.cost(&p);
        for u in 0..p.n() {
            for v in 0..p.n() {
                if u == v {
                    continue;
                }
                let ops: [Evaluate; 4] = [
                    relocate::evaluate,
                    swap::evaluate,
                    two_opt_star::evaluate,
                    cross_exchange::evaluate,
                ];
                for op in ops.iter() {
                    if let Some(m) = evaluate_pair(*op, &p, &mut sol, u, v) {
                        let mut after = sol.clone();
                        apply(&p, &mut after, &m);
                        assert_eq!(after.cost(&p), before.plus(m.delta));
                        after.check(&p).expect("a valid plan after the move");
                        let routes: Vec<Vec<u32>> =
                            after.routes.iter().map(|r| r.jobs.clone()).collect();
                        let c =
                            independent_cost(&inp, &routes).expect("breaks kept after the move");
                        assert_eq!(
                            (c.lateness, c.main),
                            (after.cost(&p).lateness, after.cost(&p).main)
                        );
                        moves += 1;
                    }
                }
            }
        }
        let out: Vec<u32> = (0..p.n() as u32)
            .filter(|&j| j % 3 == case as u32 % 3 && sol.is_assigned(j as usize))
            .collect();
        sol.remove_jobs(&p, &out);
        let before = sol.cost(&p);
        for j in 0..p.n() {
            if sol.is_assigned(j) {
                continue;
            }
            for r in 0..p.vehicles.len() {
                if let Some((delta, k)) = sol.best_insertion(&p, r, j, || false) {
                    let mut after = sol.clone();
                    after.insert(&p, r, j, k);
                    let one = FleetCost {
                        unassigned: 1,
                        ..FleetCost::ZERO
                    };
                    assert_eq!(after.cost(&p), before.plus(delta).minus(one));
                    after.check(&p).expect("a valid plan after the insertion");
                    insertions += 1;
                }
            }
        }
    }
    assert!(moves >= 30, "operators found moves: {}", moves);
    assert!(insertions >= 5, "insertions priced: {}", insertions);
}

#[test]
fn a_break_is_taken_while_waiting_and_before_a_leg() {
    // one vehicle at 0 from time 0; job 0 at 1 (10 s away) ready at 100, job 1 at 2 (10 s further)
    let mut inp = one_vehicle_input();
    inp.locations = 3;
    inp.travel = (0..9)
        .map(|x| 10 * ((x / 3) as i64 - (x % 3) as i64).abs())
        .collect();
    inp.distance = None;
    inp.jobs = vec![
        JobInput {
            location: 1,
            service: 5,
            ready: 100,
            ..JobInput::default()
        },
        JobInput {
            location: 2,
            service: 5,
            ..JobInput::default()
        },
    ];
    inp.vehicles = vec![VehicleInput {
        breaks: vec![
            fleet::model::BreakInput {
                start: 50,
                end: 60,
                duration: 30,
            },
            fleet::model::BreakInput {
                start: 0,
                end: 200,
                duration: 20,
            },
        ],
        ..VehicleInput::default()
    }];
    let p = FleetProblem::new(&inp).unwrap();
    let list = fleet::breaks::taken(&p, 0, &[0, 1]);
    // the [0, 200] break on arriving at 10, then [50, 60] at 50 while waiting; service at 100
    assert_eq!(
        list.iter()
            .map(|t| (t.index, t.start, t.after))
            .collect::<Vec<_>>(),
        vec![(1, 10, 0), (0, 50, 0)]
    );
    assert_eq!(
        fleet::solution::schedule_of(&p, 0, &[0, 1]).0,
        vec![100, 115]
    );
    // a window that closes during a leg cannot be met
    inp.vehicles[0].breaks = vec![fleet::model::BreakInput {
        start: 2,
        end: 5,
        duration: 1,
    }];
    let p = FleetProblem::new(&inp).unwrap();
    assert!(fleet::breaks::price(&p, 0, [0usize, 1].into_iter()).is_none());
    // unused: no break
    assert!(fleet::breaks::taken(&p, 0, &[]).is_empty());
}

/// Vans alike but for a route limit or their breaks are not interchangeable when empty: the recreate tries one
/// empty route per class (`insertion::vehicle_classes`), and a job that only the van without the break (or the
/// limit) can serve must find that van.
#[test]
fn vans_that_differ_in_breaks_or_limits_are_apart_in_the_empty_route_classes() {
    let mut inp = one_vehicle_input();
    inp.jobs.truncate(1);
    inp.jobs[0].due = Some(50);
    inp.vehicles[0].shift_end = Some(5000);
    let plain = inp.vehicles[0].clone();
    let mut with_break = plain.clone();
    // taken on arriving at the job (t = 10), ending at 1010: its window (due 50) is missed
    with_break.breaks = vec![fleet::model::BreakInput {
        start: 0,
        end: 100,
        duration: 1000,
    }];
    let mut short = plain.clone();
    short.max_driving = Some(5);
    let mut far = plain.clone();
    far.max_distance = Some(5);
    for first in [with_break, short, far] {
        inp.vehicles = vec![first, plain.clone(), plain.clone()];
        let p = FleetProblem::new(&inp).unwrap();
        assert_eq!(fleet::insertion::vehicle_classes(&p), vec![0, 1, 1]);
        let sol = solve_input(&inp, 20);
        assert!(sol.unassigned.is_empty(), "{:?}", sol.unassigned);
        assert_eq!(sol.routes[0], Vec::<u32>::new());
        check_solution(&inp, &sol);
    }
}
