//! The iterated local search driver: construction, descent, then kick +
//! descent until the time limit, an iteration cap, or convergence (no new best
//! route for `stall_iterations` kicks) stops it. Without deadlines each
//! descent ends with the improving double bridges (non-sequential moves that
//! the Lin–Kernighan step cannot make), each followed by a descent.

use super::construction::initial_route;
use super::kicks;
use super::local_search::LocalSearch;
use super::operators::{double_bridge, Operator};
use super::route::RouteState;
use super::{Acceptance, Options, Params};
use crate::deadline::{Clock, Deadline};
use crate::problem::{Cost, Problem};
use crate::progress::Progress;
use crate::rng::Rng;

/// A new best route found during the search (the ABI's improvement events).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Improvement {
    /// Milliseconds since the solve started (observed, never used for a decision).
    pub ms: f64,
    /// Kicks made before it (0 = the first descent).
    pub iteration: u64,
    pub cost: Cost,
}

/// Default convergence stop: kicks without a new best route before stopping.
/// Without deadlines (Lin–Kernighan descents, costly kicks): 2 n, at least
/// 400; measured on the service's 200-stop requests (bench:solver-service),
/// the routes are as good on average as with 3 n, and 0.1 % shorter than the
/// previous solver's after its full 250 ms, with a median solve of 75 ms. With deadlines (the
/// deadline-aware descents, ten times cheaper per kick): 50 n + 500, the
/// previous solver's rule; shorter stops lost route duration on
/// bench:deadlines. See docs/solver.md.
pub fn default_stall(p: &Problem) -> u64 {
    let n = p.n as u64;
    if p.has_deadlines {
        50 * n + 500
    } else {
        (2 * n).max(400)
    }
}

/// Full heuristic solve with `params.time_limit_ms` (less the reserve,
/// `crate::deadline`) counted from now. Returns the internal stop order, its
/// cost, what the search did (iterations are kicks) and every new best route
/// in order.
pub fn solve(
    p: &Problem,
    params: &Params,
    clock: &dyn Clock,
) -> (Vec<usize>, Cost, Progress, Vec<Improvement>) {
    let limit = Deadline::new(clock, clock.now_ms(), params.time_limit_ms);
    solve_reporting(p, params, &limit, &mut |_, _| {})
}

/// The search until `limit` (`params.time_limit_ms` is not read: the
/// caller made `limit` from it), calling `on_best` with each new best
/// route (internal nodes, start and end included) and its cost as it is
/// found; it never drives a decision. Report times are counted from the
/// start of `limit`.
pub fn solve_reporting(
    p: &Problem,
    params: &Params,
    limit: &Deadline,
    on_best: &mut dyn FnMut(&[usize], Cost),
) -> (Vec<usize>, Cost, Progress, Vec<Improvement>) {
    let options = &params.options;
    let n = p.n;
    let mut rng = Rng::new(params.seed);
    let mut search = LocalSearch::new(p, options);
    let mut state = RouteState::new(p, &initial_route(p, search.neighbours()));
    search.wake_all();
    search.set_initial_descent(true);
    search.run(&mut state, limit);
    bridge_descent(&mut search, &mut state, limit, options);
    search.set_initial_descent(false);

    let mut improvements = Vec::new();
    let mut best = state.route().to_vec();
    let mut best_cost = state.cost();
    let mut best_ms = limit.elapsed_ms();
    let mut best_iteration = 0;
    improvements.push(Improvement {
        ms: best_ms,
        iteration: 0,
        cost: best_cost,
    });
    on_best(&best, best_cost);
    let mut current = best.clone();
    let mut current_cost = best_cost;
    let stall_limit = if params.stall_iterations > 0 {
        params.stall_iterations
    } else {
        default_stall(p)
    };
    let kick_settings = if p.has_deadlines {
        options.deadline_kick
    } else {
        options.kick
    };
    let mut iteration = 0u64;
    let mut stall = 0u64;
    loop {
        if params.max_iterations > 0 && iteration >= params.max_iterations {
            break;
        }
        if stall >= stall_limit || limit.expired() {
            break;
        }
        let kick = match kicks::choose(&kick_settings, &state, search.neighbours(), &mut rng) {
            Some(k) => k,
            None => break,
        };
        iteration += 1;
        search.progress.counter(Operator::Kick).tried += 1;
        search.wake_segment_ends(&state, kick.as_slice());
        wake_around_cuts(&mut search, &state, kick.as_slice());
        state.apply_unpriced(kick.as_slice());
        search.run(&mut state, limit);
        bridge_descent(&mut search, &mut state, limit, options);

        let cost = state.cost();
        if cost < best_cost {
            best_cost = cost;
            best.clear();
            best.extend_from_slice(state.route());
            stall = 0;
            search.progress.counter(Operator::Kick).improving += 1;
            best_iteration = iteration;
            best_ms = limit.elapsed_ms();
            improvements.push(Improvement {
                ms: best_ms,
                iteration,
                cost,
            });
            on_best(&best, best_cost);
        } else {
            stall += 1;
        }
        let acceptance = if p.has_deadlines {
            options.deadline_acceptance
        } else {
            options.acceptance
        };
        match decide(acceptance, cost, current_cost, stall) {
            Decision::Accept => accept(
                &mut search.progress,
                &state,
                &mut current,
                &mut current_cost,
            ),
            Decision::Reject => state.set_route(&current),
            Decision::RestartFromBest => {
                state.set_route(&best);
                current.clear();
                current.extend_from_slice(&best);
                current_cost = best_cost;
            }
        }
    }
    debug_assert_eq!(p.route_cost(&best), best_cost);
    let mut progress = std::mem::take(&mut search.progress);
    progress.iterations = iteration;
    progress.best_iteration = best_iteration;
    progress.best_ms = Some(best_ms);
    (best[1..=n].to_vec(), best_cost, progress, improvements)
}

enum Decision {
    Accept,
    Reject,
    RestartFromBest,
}

/// What to do with the kicked route of cost `cost`, `stall` kicks after the
/// last new best route.
fn decide(acceptance: Acceptance, cost: Cost, current: Cost, stall: u64) -> Decision {
    match acceptance {
        Acceptance::BetterOrEqual => {
            if cost <= current {
                Decision::Accept
            } else {
                Decision::Reject
            }
        }
        Acceptance::Threshold {
            parts_per_million,
            restart_after,
            after_stall,
        } => {
            if stall > 0 && stall % restart_after == 0 {
                return Decision::RestartFromBest;
            }
            // not worse, or (same lateness, once `after_stall` kicks passed
            // without a new best) at most `parts_per_million` longer
            let within = stall >= after_stall
                && cost.lateness == current.lateness
                && cost.duration
                    <= current.duration + current.duration * parts_per_million / 1_000_000;
            if cost <= current || within {
                Decision::Accept
            } else {
                Decision::Reject
            }
        }
    }
}

fn accept(
    progress: &mut Progress,
    state: &RouteState,
    current: &mut Vec<usize>,
    current_cost: &mut Cost,
) {
    progress.counter(Operator::Kick).applied += 1;
    current.clear();
    current.extend_from_slice(state.route());
    *current_cost = state.cost();
}

/// Also queue the route neighbours just outside each segment of a kick.
fn wake_around_cuts(
    search: &mut LocalSearch,
    state: &RouteState,
    segments: &[super::segment::Segment],
) {
    let n = state.stops();
    for s in segments {
        if s.from > 0 {
            search.wake(state.node_at(s.from - 1));
        }
        if s.to <= n {
            search.wake(state.node_at(s.to + 1));
        }
    }
}

/// After a descent on a problem without deadlines: while an improving double
/// bridge exists (`operators::double_bridge`), make it and descend again.
fn bridge_descent(
    search: &mut LocalSearch,
    state: &mut RouteState,
    limit: &Deadline,
    options: &Options,
) {
    if !options.double_bridge_search || state.problem().has_deadlines || state.cost().lateness > 0 {
        return;
    }
    while !limit.expired() {
        let found = match double_bridge::find(state, search.neighbours()) {
            Some(m) => m,
            None => break,
        };
        search.wake_segment_ends(state, found.segments.as_slice());
        wake_around_cuts(search, state, found.segments.as_slice());
        state.apply(found.segments.as_slice(), found.cost);
        search.run(state, limit);
    }
}
