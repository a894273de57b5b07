//! The fleet search's last step on days whose stops have no window narrower
//! than the shifts (`polishable`): each route of the best plan is solved
//! again by the single-route engine (`crate::solve_problem`: exact at <= 10
//! stops, else the Lin–Kernighan / Or-opt search), over the same jobs, and
//! the new order is kept when the plan then costs less. The single route's
//! optimum is the fleet's best order of a route's jobs under the conditions
//! `single::route_problem` checks (the argument of `single.rs`, route by
//! route); the route is checked against the hard limits
//! (`solution::route_violation`) and priced by the fleet's own cost, so a
//! route is never made worse.
//!
//! With a time limit the search leaves `POLISH_SHARE_PERCENT` of it to this
//! step, and each route gets what is left in proportion to its jobs. Without
//! one, each route runs to the single-route engine's own convergence stop,
//! so a run of fixed iterations stays deterministic.
//!
//! Measured (docs/benchmarks.md, "Fleet routes through the single-route
//! engine"): on routes of about 100 stops the plans are 0.1–0.3 % shorter
//! after it; on routes of 60 stops the fleet's own moves leave almost
//! nothing to find (under 0.1 %).

use super::deadline::Deadline;
use super::model::FleetProblem;
use super::single::route_problem;
use super::solution::{route_violation, Solution};
use crate::problem::Problem;
use crate::search::Params;

/// Share of a time budget (per cent) the search leaves to the polish on a
/// day that has one.
pub const POLISH_SHARE_PERCENT: u64 = 5;

/// Routes of fewer jobs are left as they are (every order of 3 jobs is one
/// relocate away).
pub const POLISH_MIN_JOBS: usize = 4;

/// No stop has a window narrower than any shift, and no shipment, break or
/// job of several windows: every route may be polished (capacity is checked
/// route by route).
pub fn polishable(p: &FleetProblem) -> bool {
    if p.has_pairs || p.has_breaks || p.multi_windows || p.jobs.is_empty() {
        return false;
    }
    let latest_ready = p.jobs.iter().map(|j| j.ready).max().unwrap_or(0);
    let earliest_due = p.jobs.iter().map(|j| j.due).min().unwrap_or(0);
    p.vehicles
        .iter()
        .all(|veh| latest_ready <= veh.shift_start && earliest_due >= veh.shift_end)
}

/// Solve each route of `sol` again with the single-route engine and keep
/// each new order that lowers the plan's cost; the number of routes changed.
/// Never inlined: the search loop of `driver::solve_since` keeps the code it
/// had without this step (WebAssembly, 300 iterations of a 1000-stop day
/// with windows: 11.39 G instructions against 11.40 G without the step,
/// 11.45 G with it inlined; callgrind).
#[inline(never)]
pub fn polish(p: &FleetProblem, sol: &mut Solution, seed: u64, limit: &Deadline) -> usize {
    let mut changed = 0;
    let mut jobs_left: usize = sol
        .routes
        .iter()
        .map(|r| r.jobs.len())
        .filter(|&n| n >= POLISH_MIN_JOBS)
        .sum();
    for v in 0..sol.routes.len() {
        let jobs = sol.routes[v].jobs.clone();
        if jobs.len() < POLISH_MIN_JOBS {
            continue;
        }
        if limit.expired() {
            break;
        }
        let route_limit = if limit.has_time_limit() {
            let now = limit.elapsed_ms();
            let share = jobs.len() as f64 / jobs_left as f64;
            limit.until(now + (limit.stop_ms() - now) * share)
        } else {
            Deadline::none()
        };
        jobs_left -= jobs.len();
        if let Some(order) = solve_route(p, v, &jobs, seed, &route_limit) {
            // the plan's cost is its routes' plus what it leaves out: only route v changes
            let before = sol.routes[v].cost(p);
            sol.set_route(p, v, order);
            if sol.routes[v].cost(p) < before {
                changed += 1;
            } else {
                sol.set_route(p, v, jobs);
            }
        }
    }
    changed
}

/// The single-route engine's order of vehicle v's `jobs`, when the route is
/// one it can solve and its answer keeps the hard limits.
fn solve_route(
    p: &FleetProblem,
    v: usize,
    jobs: &[u32],
    seed: u64,
    limit: &Deadline,
) -> Option<Vec<u32>> {
    let single = route_problem(p, v, jobs).ok()?;
    let problem = Problem::new(&single.input()).ok()?;
    // the problem holds its own (i64) matrices
    drop(single);
    let search = Params {
        seed,
        // not read: `limit` is
        time_limit_ms: 0.0,
        max_iterations: 0,
        // the engine's own convergence stop
        stall_iterations: 0,
        options: Default::default(),
    };
    let (order, _, _, _) = crate::solve_problem(&problem, &search, limit, &mut |_, _| {});
    let order: Vec<u32> = order.iter().map(|&s| jobs[s - 1]).collect();
    if route_violation(p, v, &order).is_some() {
        return None;
    }
    Some(order)
}
