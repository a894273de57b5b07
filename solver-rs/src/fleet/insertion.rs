//! Insertion heuristics: regret insertion (construction) and SISR's greedy
//! insertion with blinks (the "recreate" of ruin-and-recreate).

use super::deadline::Deadline;
use super::model::{has_bit, set_bit, FleetProblem, Role, Vehicle, VehicleBits, VEHICLE_WORDS};
use super::regret_table::RegretTable;
use super::solution::{FleetCost, Solution};
use crate::rng::Rng;

/// Vehicles that are interchangeable when their routes are empty (same start,
/// end, shift, capacity, maxStops, route limits and breaks): one empty route
/// per class is tried.
pub fn vehicle_classes(p: &FleetProblem) -> Vec<usize> {
    let mut class = vec![0usize; p.vehicles.len()];
    for v in 0..p.vehicles.len() {
        class[v] = v;
        for u in 0..v {
            let (a, b) = (&p.vehicles[u], &p.vehicles[v]);
            if a.start == b.start
                && a.end == b.end
                && a.shift_start == b.shift_start
                && a.shift_end == b.shift_end
                && a.max_stops == b.max_stops
                && a.max_driving == b.max_driving
                && a.max_distance == b.max_distance
                && same_breaks(a, b)
                && p.vehicle_capacity(u) == p.vehicle_capacity(v)
            {
                class[v] = class[u];
                break;
            }
        }
    }
    class
}

/// The same breaks (window and length; their ids in the output may differ).
fn same_breaks(a: &Vehicle, b: &Vehicle) -> bool {
    a.breaks.len() == b.breaks.len()
        && a.breaks
            .iter()
            .zip(&b.breaks)
            .all(|(x, y)| (x.start, x.end, x.duration) == (y.start, y.end, y.duration))
}

/// Routes worth trying for job j: every non-empty route, and (when
/// `open_new`) one empty route per vehicle class among the vehicles allowed for j.
fn candidate_routes(
    p: &FleetProblem,
    sol: &Solution,
    classes: &[usize],
    j: usize,
    open_new: bool,
    out: &mut Vec<usize>,
) {
    out.clear();
    let mut empty_classes: VehicleBits = [0; VEHICLE_WORDS];
    for (r, route) in sol.routes.iter().enumerate() {
        if !p.allows(j, r) {
            continue;
        }
        if route.is_empty() {
            if !open_new || !set_bit(&mut empty_classes, classes[r]) {
                continue;
            }
        }
        out.push(r);
    }
}

/// `near` of the insertions that try every route (`best_over_routes`).
pub const ALL_ROUTES: usize = 0;

/// Routes worth trying first for job j: the routes of its `near` nearest
/// assigned jobs (allowed for j), by index. Never an empty route: the jobs
/// a ruin removes are each other's neighbours, and with an empty route among
/// the first tried they would open routes rather than look further.
fn near_routes(p: &FleetProblem, sol: &Solution, j: usize, near: usize, out: &mut Vec<usize>) {
    out.clear();
    let assigned = p.neighbours[j]
        .iter()
        .map(|&k| k as usize)
        .filter(|&k| sol.is_assigned(k))
        .take(near);
    for k in assigned {
        let r = sol.route_of[k] as usize;
        if p.allows(j, r) {
            out.push(r);
        }
    }
    out.sort_unstable();
    out.dedup();
}

/// Best insertion of j's unit (j, or its whole shipment) into these routes
/// (with blinks when `blink_per_mille` > 0): (cost, route, position, the
/// delivery's position).
fn best_in_routes(
    p: &FleetProblem,
    sol: &mut Solution,
    j: usize,
    rng: &mut Rng,
    blink_per_mille: u64,
    routes: &[usize],
) -> Option<(FleetCost, usize, usize, usize)> {
    let mut best: Option<(FleetCost, usize, usize, usize)> = None;
    for &r in routes {
        let found = if blink_per_mille == 0 {
            sol.best_unit_insertion(p, r, j, || false)
        } else {
            sol.best_unit_insertion(p, r, j, || rng.next_u64() % 1000 < blink_per_mille)
        };
        if let Some((delta, k, k2)) = found {
            if best.map_or(true, |b| delta < b.0) {
                best = Some((delta, r, k, k2));
            }
        }
    }
    best
}

/// Best insertion of j's unit (j, or its whole shipment) over the routes
/// (with blinks when `blink_per_mille` > 0): (cost, route, position, the
/// delivery's position). With `near` > 0 (`ALL_ROUTES`: 0), the routes of
/// j's `near` nearest assigned jobs are tried first, and every route (an
/// empty one too, when `open_new`) only when none of them takes it: far
/// routes rarely hold the best place, and at 1000 stops pricing every place
/// of every route was a third of the search.
#[allow(clippy::too_many_arguments)]
pub fn best_over_routes(
    p: &FleetProblem,
    sol: &mut Solution,
    classes: &[usize],
    j: usize,
    rng: &mut Rng,
    blink_per_mille: u64,
    open_new: bool,
    near: usize,
    routes: &mut Vec<usize>,
) -> Option<(FleetCost, usize, usize, usize)> {
    if near > 0 {
        near_routes(p, sol, j, near, routes);
        let found = best_in_routes(p, sol, j, rng, blink_per_mille, routes);
        if found.is_some() {
            return found;
        }
    }
    candidate_routes(p, sol, classes, j, open_new, routes);
    best_in_routes(p, sol, j, rng, blink_per_mille, routes)
}

/// Insert the jobs in the given order, each at its best place (blinks per
/// mille; `near`: as `best_over_routes`); empty routes are opened only when
/// `open_new`. Stops early (the remaining jobs left unassigned) when the
/// deadline passes.
#[allow(clippy::too_many_arguments)]
pub fn greedy_insert(
    p: &FleetProblem,
    sol: &mut Solution,
    classes: &[usize],
    order: &[u32],
    rng: &mut Rng,
    blink_per_mille: u64,
    open_new: bool,
    near: usize,
    deadline: &Deadline,
) {
    let mut routes = Vec::new();
    for &j in order {
        if deadline.tick() {
            return;
        }
        // a shipment goes in whole, when the first of its two jobs comes up
        if sol.is_assigned(j as usize) {
            continue;
        }
        if let Some((_, r, k, k2)) = best_over_routes(
            p,
            sol,
            classes,
            j as usize,
            rng,
            blink_per_mille,
            open_new,
            near,
            &mut routes,
        ) {
            sol.insert_unit(p, r, j as usize, k, k2);
        }
    }
}

/// Jobs × vehicles up to which the construction keeps the full regret table
/// (every Solomon and 200-customer Gehring–Homberger day, a 500-stop day of
/// 20 vans). Above it the neighbour-list construction's plans are better
/// after the search: 2 % to 3 % less route time at 2 s of CPU on 1000-stop
/// days of 20 to 50 vans, the same vans (docs/benchmarks.md, "Construction
/// on neighbour lists from 10,000 cells"); at 2,500 stops × 100 vans the
/// full table took 13 s natively, 1.5 s on neighbour lists.
pub const FULL_REGRET_CELLS: usize = 10_000;

/// Regret-2 insertion of every unassigned job (higher priorities first): repeatedly insert the job
/// whose best route beats its second best by the most (a job with a single
/// feasible route first), ties by the cheaper insertion then the lower index.
/// Best insertions per (job, route) are cached in a table priced lazily
/// (`regret_table`: after an insertion, the changed route is priced again
/// for the jobs near the inserted one and for those it was best or second
/// best for; its other cells are priced when read). When the deadline passes the
/// remaining jobs are inserted greedily, in the regret order of the cache as
/// it stands (all of them: the construction is the plan returned when nothing
/// else had time to run).
///
/// Above `FULL_REGRET_CELLS` jobs × vehicles the construction prices each
/// job on its near routes only (`regret_near`).
pub fn regret_insert(p: &FleetProblem, sol: &mut Solution, classes: &[usize], deadline: &Deadline) {
    if p.n().saturating_mul(sol.routes.len()) > FULL_REGRET_CELLS {
        return super::regret_near::regret_insert_near(p, sol, classes, deadline);
    }
    // one entry per unit: a plain job, or a shipment by its pickup
    let mut pending: Vec<u32> = (0..p.n() as u32)
        .filter(|&j| !sol.is_assigned(j as usize) && p.role[j as usize] != Role::Delivery)
        .collect();
    let mut table = RegretTable::new(p, sol, &pending);
    while !pending.is_empty() {
        if deadline.expired() {
            // most urgent first: single route, larger regret, cheaper, lower index; unplaceable last
            let mut keyed: Vec<(u32, Option<RegretKey>)> = pending
                .iter()
                .map(|&j| (j, regret_key(sol, classes, &table, j as usize)))
                .collect();
            let prio = |j: &u32| std::cmp::Reverse(p.jobs[*j as usize].priority);
            keyed.sort_by(|(ja, a), (jb, b)| {
                prio(ja).cmp(&prio(jb)).then(match (a, b) {
                    (Some(x), Some(y)) => y
                        .single
                        .cmp(&x.single)
                        .then(y.regret.cmp(&x.regret))
                        .then(x.best.cmp(&y.best))
                        .then(ja.cmp(jb)),
                    (Some(_), None) => std::cmp::Ordering::Less,
                    (None, Some(_)) => std::cmp::Ordering::Greater,
                    (None, None) => ja.cmp(jb),
                })
            });
            let order: Vec<u32> = keyed.into_iter().map(|(j, _)| j).collect();
            let mut rng = Rng::new(0);
            greedy_insert(
                p,
                sol,
                classes,
                &order,
                &mut rng,
                0,
                true,
                ALL_ROUTES,
                &Deadline::none(),
            );
            return;
        }
        // (has no second, regret, -best) maximal; then lowest index
        let mut pick: Option<(usize, RegretKey)> = None; // (idx in pending, key)
        for (idx, &j) in pending.iter().enumerate() {
            let key = match fresh_regret_key(p, sol, classes, &mut table, j as usize) {
                Some(k) => k,
                None => continue,
            };
            let better = match &pick {
                None => true,
                Some((pi, pk)) => {
                    let (a, b) = (
                        p.jobs[j as usize].priority,
                        p.jobs[pending[*pi] as usize].priority,
                    );
                    if a != b {
                        a > b
                    } else if key.single != pk.single {
                        key.single
                    } else if key.regret != pk.regret {
                        key.regret > pk.regret
                    } else {
                        key.best < pk.best
                    }
                }
            };
            if better {
                pick = Some((idx, key));
            }
        }
        let (idx, r) = match pick {
            Some((idx, key)) => (idx, key.route),
            None => break, // nothing fits anywhere
        };
        let j = pending.swap_remove(idx) as usize;
        let (_, k, k2) = table.cell(j, r).expect("picked");
        let opened = sol.routes[r].is_empty();
        sol.insert_unit(p, r, j, k, k2);
        table.inserted(p, sol, r, j, opened, &pending);
    }
}

/// A job's place in the regret order: its best route and cost, the regret
/// (second best minus best; zero when single), and whether only one route fits.
struct RegretKey {
    single: bool,
    regret: FleetCost,
    best: FleetCost,
    route: usize,
    second_route: Option<usize>,
}

/// Job j's regret key with its best and second best cells priced on the
/// routes as they are (see `regret_table`).
fn fresh_regret_key(
    p: &FleetProblem,
    sol: &mut Solution,
    classes: &[usize],
    table: &mut RegretTable,
    j: usize,
) -> Option<RegretKey> {
    loop {
        let key = regret_key(sol, classes, table, j)?;
        match std::iter::once(key.route)
            .chain(key.second_route)
            .find(|&r| table.stale(j, r))
        {
            Some(r) => table.reprice(p, sol, j, r),
            None => {
                table.read_top(j, key.route, key.second_route);
                return Some(key);
            }
        }
    }
}

/// The regret key of job j from the cached best insertions (one empty route
/// per vehicle class); None when no route fits.
fn regret_key(
    sol: &Solution,
    classes: &[usize],
    table: &RegretTable,
    j: usize,
) -> Option<RegretKey> {
    let mut first: Option<(FleetCost, usize)> = None;
    let mut second: Option<(FleetCost, usize)> = None;
    let mut empty_classes: VehicleBits = [0; VEHICLE_WORDS];
    for r in 0..sol.routes.len() {
        let cell = table.cell(j, r);
        if sol.routes[r].is_empty() {
            if has_bit(&empty_classes, classes[r]) {
                continue;
            }
            if cell.is_some() {
                set_bit(&mut empty_classes, classes[r]);
            }
        }
        if let Some((c, _, _)) = cell {
            match first {
                Some((f, _)) if c >= f => {
                    if second.map_or(true, |(s, _)| c < s) {
                        second = Some((c, r));
                    }
                }
                _ => {
                    second = first;
                    first = Some((c, r));
                }
            }
        }
    }
    let (best, route) = first?;
    Some(RegretKey {
        single: second.is_none(),
        regret: second.map_or(FleetCost::ZERO, |(s, _)| s.minus(best)),
        best,
        route,
        second_route: second.map(|(_, r)| r),
    })
}
