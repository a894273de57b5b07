#![deny(unsafe_code)]
//! Each inter-route operator on its own, as PyVRP tests each operator: on
//! small seeded random instances of several kinds (hard windows and
//! capacities, with waits in the objective or not, soft deadlines, a mixed fleet with different starts and ends,
//! several windows per job, breaks, shipments, soft windows whose time warp is priced), every (u, v) pair of a random
//! plan is evaluated; when `evaluate` returns a move, applying it must change
//! the cost by exactly the evaluated delta, the plan must pass `check`, and a
//! fresh plan built from the route lists must cost the same as the
//! incrementally updated one. The assertions are explicit: `cargo test
//! --release` runs without the debug checks inside `operators::apply`.

use route_solver::fleet::model::{BreakInput, FleetProblem, VehicleCosts};
use route_solver::fleet::operators::{
    apply, cross_exchange, evaluate_pair, jobs_swapped, pair_relocate, relocate, run_reversed,
    swap, tails_exchanged, two_opt, two_opt_star, Evaluate, Gap, Run,
};
use route_solver::fleet::solution::{Piece, Solution};
use route_solver::fleet::{FleetInput, JobInput, Objective, VehicleInput};
use route_solver::rng::Rng;

/// What a random instance has.
#[derive(Clone, Copy, Debug)]
struct Kind {
    name: &'static str,
    /// Hard windows on about half of the jobs, capacities that bind.
    windows: bool,
    deadlines: bool,
    /// Vehicles with different starts, ends (one open), shifts, capacities and costs.
    mixed: bool,
    /// 1–3 windows on some jobs.
    several_windows: bool,
    breaks: bool,
    /// Pickup-and-delivery pairs (half of the jobs).
    shipments: bool,
    /// The windows soft, a random price per unit of time warp (`fleet::soft_windows`):
    /// the random plans and the moves break windows.
    soft_windows: bool,
    objective: Objective,
}

const BASE: Kind = Kind {
    name: "windows",
    windows: true,
    deadlines: false,
    mixed: false,
    several_windows: false,
    breaks: false,
    shipments: false,
    soft_windows: false,
    objective: Objective::DISTANCE,
};

const KINDS: [Kind; 8] = [
    BASE,
    Kind {
        name: "deadlines",
        deadlines: true,
        objective: Objective::SERVICE,
        ..BASE
    },
    Kind {
        name: "mixed fleet",
        mixed: true,
        deadlines: true,
        objective: Objective::SERVICE,
        ..BASE
    },
    Kind {
        name: "several windows",
        several_windows: true,
        ..BASE
    },
    Kind {
        name: "breaks",
        breaks: true,
        mixed: true,
        objective: Objective::SERVICE,
        ..BASE
    },
    Kind {
        name: "shipments",
        shipments: true,
        deadlines: true,
        ..BASE
    },
    Kind {
        // stops wait for their windows and the waits cost: the gate counts the waits a move keeps
        name: "waits",
        objective: Objective::SERVICE,
        ..BASE
    },
    Kind {
        name: "soft windows",
        soft_windows: true,
        ..BASE
    },
];

/// Points in a 100 × 100 square (locations 0 and 1 are depots, jobs from 2),
/// travel times Euclidean plus asymmetric noise, two demand dimensions.
fn random_input(rng: &mut Rng, n: usize, nv: usize, k: &Kind) -> FleetInput {
    let m = n + 2;
    let pts: Vec<(i64, i64)> = (0..m)
        .map(|_| (rng.range(0, 100) as i64, rng.range(0, 100) as i64))
        .collect();
    let mut travel = vec![0i64; m * m];
    for a in 0..m {
        for b in 0..m {
            if a != b {
                let (p, q) = (pts[a], pts[b]);
                let e = (((p.0 - q.0).pow(2) + (p.1 - q.1).pow(2)) as f64).sqrt() as i64;
                travel[a * m + b] = e + rng.range(0, 8) as i64;
            }
        }
    }
    let vehicles = (0..nv)
        .map(|v| {
            let mut veh = VehicleInput {
                start: 0,
                end: Some(0),
                shift_end: Some(1500),
                capacity: vec![rng.range(12, 30) as i64, rng.range(3, 6) as i64],
                ..VehicleInput::default()
            };
            if k.mixed {
                veh.start = v % 2;
                veh.end = match v % 3 {
                    0 => Some(0),
                    1 => Some(1),
                    _ => None,
                };
                veh.shift_start = rng.range(0, 60) as i64;
                veh.shift_end = Some(900 + rng.range(0, 600) as i64);
                veh.max_stops = if rng.range(0, 2) == 0 {
                    Some(rng.range(3, n))
                } else {
                    None
                };
                veh.costs = VehicleCosts {
                    fixed: rng.range(0, 300) as i64,
                    per_duration: rng.range(0, 3) as i64,
                    per_distance: rng.range(0, 3) as i64,
                };
            }
            if k.breaks {
                let s = rng.range(50, 300) as i64;
                veh.breaks = vec![BreakInput {
                    start: s,
                    end: s + rng.range(0, 150) as i64,
                    duration: rng.range(10, 40) as i64,
                }];
                if rng.range(0, 1) == 0 {
                    let s2 = s + 300 + rng.range(0, 100) as i64;
                    veh.breaks.push(BreakInput {
                        start: s2,
                        end: s2 + 100,
                        duration: 15,
                    });
                }
            }
            veh
        })
        .collect();
    let mut jobs: Vec<JobInput> = Vec::with_capacity(n);
    let mut shipments = Vec::new();
    let first_pair = if k.shipments { n / 2 } else { n };
    for j in 0..n {
        let windowed = k.windows && rng.range(0, 1) == 0;
        let ready = if windowed {
            rng.range(0, 400) as i64
        } else {
            0
        };
        let delivery = j >= first_pair && (j - first_pair) % 2 == 1;
        let demand = if delivery {
            // the delivery unloads what its pickup loaded
            jobs[j - 1].demand.clone()
        } else {
            vec![rng.range(0, 8) as i64, rng.range(0, 1) as i64]
        };
        jobs.push(JobInput {
            location: j + 2,
            service: rng.range(0, 20) as i64,
            ready,
            due: if windowed {
                // tighter windows where they are soft: more plans break them
                let width = if k.soft_windows { (10, 80) } else { (60, 300) };
                Some(ready + rng.range(width.0, width.1) as i64)
            } else {
                None
            },
            deadline: if k.deadlines && rng.range(0, 2) == 0 {
                Some(rng.range(0, 400) as i64)
            } else {
                None
            },
            demand,
            windows: if k.several_windows && rng.range(0, 2) == 0 {
                let mut t = rng.range(0, 150) as i64;
                Some(
                    (0..rng.range(1, 3))
                        .map(|_| {
                            let s = t;
                            t += rng.range(20, 120) as i64;
                            let w = (s, t);
                            t += rng.range(30, 150) as i64;
                            w
                        })
                        .collect(),
                )
            } else {
                None
            },
            // backhauls: the load varies along routes (`FleetProblem::profile`)
            pickup: if k.mixed && j < first_pair && rng.range(0, 3) == 0 {
                vec![rng.range(1, 5) as i64, 0]
            } else {
                Vec::new()
            },
            ..JobInput::default()
        });
        if delivery {
            shipments.push((j - 1, j));
        }
    }
    FleetInput {
        locations: m,
        travel,
        distance: None,
        vehicles,
        jobs,
        objective: k.objective,
        limit_distance: None,
        shipments,
    }
}

/// A random plan: the jobs (whole shipments) in random order, each at its
/// best place in the first route of a random order that takes it.
fn random_plan(p: &FleetProblem, rng: &mut Rng) -> Solution {
    let mut sol = Solution::empty(p);
    let mut order: Vec<usize> = (0..p.n()).collect();
    shuffle(rng, &mut order);
    let mut routes: Vec<usize> = (0..p.vehicles.len()).collect();
    for j in order {
        if sol.is_assigned(j) {
            continue;
        }
        shuffle(rng, &mut routes);
        for &r in &routes {
            if let Some((_, k, k2)) = sol.best_unit_insertion(p, r, j, || false) {
                sol.insert_unit(p, r, j, k, k2);
                break;
            }
        }
    }
    sol.check(p).expect("a valid random plan");
    sol
}

fn shuffle<T>(rng: &mut Rng, xs: &mut [T]) {
    for i in (1..xs.len()).rev() {
        xs.swap(i, rng.range(0, i));
    }
}

/// The plan rebuilt from its route lists alone (no cache carried over).
fn fresh(p: &FleetProblem, sol: &Solution) -> Solution {
    let mut out = Solution::empty(p);
    for (r, route) in sol.routes.iter().enumerate() {
        out.set_route(p, r, route.jobs.clone());
    }
    out
}

/// Moves checked per kind.
struct Tally {
    moves: Vec<usize>,
    improving: usize,
    /// Moves checked on a plan with a late route (soft windows).
    late: usize,
}

/// Evaluate `op` on every (u, v) pair of random plans of every kind; check
/// each returned move on a copy, and make every 5th one on the plan itself
/// so that later pairs are priced on routes changed by moves.
fn exercise(name: &str, op: Evaluate, kinds: &[Kind], seed: u64) -> Tally {
    let mut rng = Rng::new(seed);
    let mut tally = Tally {
        moves: vec![0; kinds.len()],
        improving: 0,
        late: 0,
    };
    for (ki, kind) in kinds.iter().enumerate() {
        for case in 0..8 {
            let n = rng.range(10, 18) & !1;
            let nv = rng.range(3, 5);
            let inp = random_input(&mut rng, n, nv, kind);
            let p = FleetProblem::new(&inp).expect("a valid instance");
            if kind.soft_windows {
                p.set_warp_price(rng.range(5, 200) as i64);
            }
            let mut sol = random_plan(&p, &mut rng);
            let mut made = 0;
            for u in 0..p.n() {
                for v in 0..p.n() {
                    if u == v {
                        continue;
                    }
                    let m = match evaluate_pair(op, &p, &mut sol, u, v) {
                        Some(m) => m,
                        None => continue,
                    };
                    let before = sol.cost(&p);
                    let mut after = sol.clone();
                    apply(&p, &mut after, &m);
                    let what = format!(
                        "{} on {} (case {}, u {}, v {}, {:?})",
                        name, kind.name, case, u, v, m
                    );
                    assert_eq!(
                        after.cost(&p),
                        before.plus(m.delta),
                        "{}: the applied change differs from the evaluated delta",
                        what
                    );
                    if let Err(e) = after.check(&p) {
                        panic!("{}: invalid after the move: {}", what, e);
                    }
                    assert_eq!(
                        fresh(&p, &after).cost(&p),
                        after.cost(&p),
                        "{}: the incremental cost differs from a recomputation",
                        what
                    );
                    tally.moves[ki] += 1;
                    if sol.routes.iter().any(|r| r.eval.warp > 0) {
                        tally.late += 1;
                    }
                    if m.delta < route_solver::fleet::FleetCost::ZERO {
                        tally.improving += 1;
                    }
                    made += 1;
                    if made % 5 == 0 {
                        sol = after;
                    }
                }
            }
        }
    }
    tally
}

fn assert_tally(name: &str, kinds: &[Kind], t: &Tally, least: usize) {
    println!(
        "{}: moves per kind {:?}, improving {}, on a late plan {}",
        name, t.moves, t.improving, t.late
    );
    for (k, &n) in kinds.iter().zip(&t.moves) {
        assert!(
            n >= least,
            "{} on {}: only {} moves checked",
            name,
            k.name,
            n
        );
    }
    assert!(t.improving > 0, "{}: no improving move checked", name);
    if kinds.iter().any(|k| k.soft_windows) {
        assert!(t.late > 0, "{}: no move checked on a late plan", name);
    }
}

#[test]
fn relocate_evaluates_what_apply_makes() {
    let t = exercise("relocate", relocate::evaluate, &KINDS, 101);
    assert_tally("relocate", &KINDS, &t, 50);
}

#[test]
fn swap_evaluates_what_apply_makes() {
    let t = exercise("swap", swap::evaluate, &KINDS, 202);
    assert_tally("swap", &KINDS, &t, 50);
}

#[test]
fn two_opt_star_evaluates_what_apply_makes() {
    let t = exercise("2-opt*", two_opt_star::evaluate, &KINDS, 303);
    assert_tally("2-opt*", &KINDS, &t, 20);
}

#[test]
fn two_opt_evaluates_what_apply_makes() {
    // a reversal rarely keeps tight windows: fewer moves on the windowed kinds
    let t = exercise("2-opt", two_opt::evaluate, &KINDS, 606);
    assert_tally("2-opt", &KINDS, &t, 5);
}

#[test]
fn cross_exchange_evaluates_what_apply_makes() {
    let t = exercise("cross-exchange", cross_exchange::evaluate, &KINDS, 404);
    assert_tally("cross-exchange", &KINDS, &t, 20);
}

#[test]
fn pair_relocate_evaluates_what_apply_makes() {
    // shipments on every kind: the operator moves nothing else
    // (soft windows apply to days without shipments alone: `soft_windows::applies`)
    let kinds: Vec<Kind> = KINDS
        .iter()
        .filter(|k| !k.soft_windows)
        .map(|k| Kind {
            shipments: true,
            ..*k
        })
        .collect();
    let t = exercise("pair-relocate", pair_relocate::evaluate, &kinds, 505);
    assert_tally("pair-relocate", &kinds, &t, 10);
}

/// The change of the routes' total distance when each route r of `new`
/// becomes its pieces, priced from the routes' prefix sums.
fn pieces_change(p: &FleetProblem, sol: &Solution, new: &[(usize, Vec<Piece>)]) -> i64 {
    new.iter()
        .map(|(r, pieces)| {
            let route = &sol.routes[*r];
            sol.distance_of_pieces(p, route.vehicle, pieces).0 - route.eval.distance
        })
        .sum()
}

/// An operator's arc sum against the same move priced by its pieces.
fn assert_arcs(
    p: &FleetProblem,
    sol: &Solution,
    arcs: i64,
    new: &[(usize, Vec<Piece>)],
    what: &str,
) {
    assert_eq!(arcs, pieces_change(p, sol, new), "{}: {:?}", what, new);
}

/// Every run of 1–3 jobs of route ru, as (start, length).
fn runs(sol: &Solution, ru: usize) -> Vec<(usize, usize)> {
    let n = sol.routes[ru].len();
    (0..n)
        .flat_map(|pu| (1..=3.min(n - pu)).map(move |len| (pu, len)))
        .collect()
}

/// Each run taken out and put into every gap of every route (its own away
/// from it), as relocate moves it; a route it would empty is left out (such
/// moves are priced by their pieces). Returns the positions checked.
fn check_runs_moved(p: &FleetProblem, sol: &Solution) -> usize {
    let mut checked = 0;
    let nr = sol.routes.len();
    for ru in 0..nr {
        for (pu, len) in runs(sol, ru) {
            let moved = Piece::Range(ru, pu, pu + len);
            let run = Run::new(p, sol, ru, pu, len);
            for rv in 0..nr {
                for t in 0..=sol.routes[rv].len() {
                    let new = if ru != rv {
                        if len == sol.routes[ru].len() {
                            continue;
                        }
                        vec![
                            (ru, vec![Piece::Prefix(ru, pu), Piece::Suffix(ru, pu + len)]),
                            (rv, vec![Piece::Prefix(rv, t), moved, Piece::Suffix(rv, t)]),
                        ]
                    } else if t >= pu && t <= pu + len {
                        continue;
                    } else if t > pu {
                        let between = Piece::Range(ru, pu + len, t);
                        vec![(
                            ru,
                            vec![Piece::Prefix(ru, pu), between, moved, Piece::Suffix(ru, t)],
                        )]
                    } else {
                        let between = Piece::Range(ru, t, pu);
                        vec![(
                            ru,
                            vec![
                                Piece::Prefix(ru, t),
                                moved,
                                between,
                                Piece::Suffix(ru, pu + len),
                            ],
                        )]
                    };
                    let arcs = run.taken_out(p) + run.put_in(p, &Gap::new(p, sol, rv, t));
                    assert_arcs(p, sol, arcs, &new, "a run moved");
                    checked += 1;
                }
            }
        }
    }
    checked
}

/// Every pair of runs of two routes exchanged, as cross-exchange does.
fn check_runs_exchanged(p: &FleetProblem, sol: &Solution) -> usize {
    let mut checked = 0;
    let nr = sol.routes.len();
    for ru in 0..nr {
        for rv in (0..nr).filter(|&rv| rv != ru) {
            for (pu, a) in runs(sol, ru) {
                for (pv, b) in runs(sol, rv) {
                    let new = vec![
                        (
                            ru,
                            vec![
                                Piece::Prefix(ru, pu),
                                Piece::Range(rv, pv, pv + b),
                                Piece::Suffix(ru, pu + a),
                            ],
                        ),
                        (
                            rv,
                            vec![
                                Piece::Prefix(rv, pv),
                                Piece::Range(ru, pu, pu + a),
                                Piece::Suffix(rv, pv + b),
                            ],
                        ),
                    ];
                    let arcs =
                        Run::new(p, sol, ru, pu, a).exchanged_with(p, &Run::new(p, sol, rv, pv, b));
                    assert_arcs(p, sol, arcs, &new, "runs exchanged");
                    checked += 1;
                }
            }
        }
    }
    checked
}

/// Every pair of tails of two routes exchanged (2-opt*), but where v's
/// route would empty.
fn check_tails_exchanged(p: &FleetProblem, sol: &Solution) -> usize {
    let mut checked = 0;
    let nr = sol.routes.len();
    for ru in 0..nr {
        for rv in (0..nr).filter(|&rv| rv != ru) {
            for pu in 0..sol.routes[ru].len() {
                for pv in 0..sol.routes[rv].len() {
                    if pv == 0 && pu + 1 == sol.routes[ru].len() {
                        continue;
                    }
                    let new = vec![
                        (ru, vec![Piece::Prefix(ru, pu + 1), Piece::Suffix(rv, pv)]),
                        (rv, vec![Piece::Prefix(rv, pv), Piece::Suffix(ru, pu + 1)]),
                    ];
                    assert_arcs(
                        p,
                        sol,
                        tails_exchanged(p, sol, ru, pu, rv, pv),
                        &new,
                        "tails exchanged",
                    );
                    checked += 1;
                }
            }
        }
    }
    checked
}

/// Every two jobs of a route swapped, and every run of a route reversed:
/// (swaps, reversals) checked.
fn check_within_routes(p: &FleetProblem, sol: &Solution) -> (usize, usize) {
    let (mut swaps, mut reversals) = (0, 0);
    for r in 0..sol.routes.len() {
        let jobs = &sol.routes[r].jobs;
        for a in 0..jobs.len() {
            for b in a + 1..jobs.len() {
                let new = vec![(
                    r,
                    vec![
                        Piece::Prefix(r, a),
                        Piece::Job(jobs[b]),
                        Piece::Range(r, a + 1, b),
                        Piece::Job(jobs[a]),
                        Piece::Suffix(r, b + 1),
                    ],
                )];
                assert_arcs(p, sol, jobs_swapped(p, sol, r, a, b), &new, "jobs swapped");
                swaps += 1;
            }
            for e in a + 1..=jobs.len() {
                let new = vec![(
                    r,
                    vec![
                        Piece::Prefix(r, a),
                        Piece::Reversed(r, a, e),
                        Piece::Suffix(r, e),
                    ],
                )];
                assert_arcs(
                    p,
                    sol,
                    run_reversed(p, sol, r, a, e),
                    &new,
                    "a run reversed",
                );
                reversals += 1;
            }
        }
    }
    (swaps, reversals)
}

/// The operators' O(1) distance changes (the arcs a move removes and adds)
/// against the same moves' pieces priced from the routes' prefix sums, at
/// every position of every pair of routes of random plans: a mixed fleet
/// (different starts and ends, an open route) on asymmetric travel times.
/// A change that overstates the distance would make the operators drop an
/// improving move unseen; `evaluates_what_apply_makes` only sees the moves
/// they return.
#[test]
fn the_arcs_a_move_changes_price_its_distance() {
    let mut rng = Rng::new(909);
    let kinds = [
        BASE,
        Kind {
            name: "mixed fleet",
            mixed: true,
            ..BASE
        },
    ];
    let mut checked = [0usize; 5];
    for kind in &kinds {
        for _ in 0..6 {
            let n = rng.range(12, 20) & !1;
            let inp = random_input(&mut rng, n, 3, kind);
            let p = FleetProblem::new(&inp).expect("a valid instance");
            let sol = random_plan(&p, &mut rng);
            checked[0] += check_runs_moved(&p, &sol);
            checked[1] += check_runs_exchanged(&p, &sol);
            checked[2] += check_tails_exchanged(&p, &sol);
            let (swaps, reversals) = check_within_routes(&p, &sol);
            checked[3] += swaps;
            checked[4] += reversals;
        }
    }
    println!(
        "checked (moved, exchanged, tails, swapped, reversed): {:?}",
        checked
    );
    assert!(
        checked.iter().all(|&c| c >= 100),
        "too few positions: {:?}",
        checked
    );
}
