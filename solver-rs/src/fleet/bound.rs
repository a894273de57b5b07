//! A lower bound on the cost of any plan, cheap to compute once per solve:
//! when the best plan found reaches it, no plan is better and the search
//! stops (trivial plans: every stop at one place, a fleet that is full).
//!
//! Every part holds whatever the matrix (no triangle inequality assumed: a
//! stop unreachable from a start may be reached through another, so time
//! never rules a job out here):
//! - unassigned ≥ the jobs no vehicle may take (not allowed, a demand over
//!   its capacity, `max_stops` 0), plus the others beyond the fleet's total
//!   `max_stops`;
//! - lateness ≥ 0;
//! - main: a plan that leaves exactly that many jobs out serves
//!   K = n − unassigned jobs, so it uses at least R routes (the fewest
//!   vehicles whose `max_stops`, and whose capacity in each dimension, cover K
//!   jobs: the K smallest demands), its total service is at least that of
//!   the K shortest services, and each used route travels at least its first
//!   leg (start to the nearest such job) and its last (nearest job to its
//!   end), the R smallest of those counted.
//!
//! Duration is travel + service + waiting, so travel + service bounds it.
//! Vehicle costs (`VehicleCosts`) add the R smallest fixed costs and the
//! smallest per-duration and per-distance rates times those totals; the
//! balance term (>= 0) adds nothing.
//! Sums saturate (unreachable arcs, unlimited capacities).

use super::model::{FleetProblem, VehicleCosts};
use super::solution::FleetCost;

/// The bound, and the fewest routes a plan serving that many jobs uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bound {
    pub cost: FleetCost,
    pub routes: usize,
    /// Jobs some vehicle may take.
    pub takeable: usize,
    /// Of those, the most a plan can serve (the fleet's total `max_stops`).
    pub served: usize,
    /// Some plan may reach `cost`. Not when more takeable jobs than there are
    /// vehicles, plus those a plan may leave out (beyond `served`), have no arc
    /// to another job that the objective may leave unpaid: a plan has at most
    /// one last job per route, every other job it serves pays for the arc to
    /// the next, and `cost` counts no arc between jobs (nor a saturated sum).
    pub reachable: bool,
}

impl Bound {
    /// Could a plan serve as many jobs as one that leaves `unassigned` out on
    /// `routes` routes, on fewer routes? Not when that plan serves all that
    /// can be served on the fewest routes that hold them: the fleet
    /// minimisation has no route to take away.
    pub fn fewer_routes_possible(&self, unassigned: usize, routes: usize) -> bool {
        unassigned as i64 > self.cost.unassigned || routes > self.routes
    }
}

/// The bound.
pub fn lower_bound(p: &FleetProblem) -> Bound {
    let jobs: Vec<usize> = (0..p.n()).filter(|&j| takeable(p, j)).collect();
    let slots = p
        .vehicles
        .iter()
        .fold(0usize, |s, v| s.saturating_add(v.max_stops));
    let assigned = jobs.len().min(slots);
    let unassigned = (p.n() - assigned) as i64;
    if assigned == 0 {
        return Bound {
            cost: FleetCost {
                unassigned,
                lateness: 0,
                main: 0,
            },
            routes: 0,
            takeable: jobs.len(),
            served: 0,
            reachable: true,
        };
    }
    let routes = fewest_routes(p, &jobs, assigned);

    let mut services: Vec<i64> = jobs.iter().map(|&j| p.jobs[j].service).collect();
    services.sort_unstable();
    let service = services[..assigned]
        .iter()
        .fold(0i64, |s, &x| s.saturating_add(x));

    let legs = |m: &dyn Fn(usize, usize) -> i64| -> i64 {
        let mut per_vehicle: Vec<i64> = p
            .vehicles
            .iter()
            .map(|v| {
                let first = jobs.iter().map(|&j| m(v.start, p.jobs[j].loc)).min();
                let last = jobs.iter().map(|&j| m(p.jobs[j].loc, v.end)).min();
                first.unwrap_or(0).saturating_add(last.unwrap_or(0))
            })
            .collect();
        per_vehicle.sort_unstable();
        per_vehicle[..routes]
            .iter()
            .fold(0i64, |s, &x| s.saturating_add(x))
    };
    let travel = legs(&|a, b| p.t(a, b));
    let distance = legs(&|a, b| p.d(a, b));
    let o = &p.objective;
    let main = o
        .vehicle_cost
        .saturating_mul(routes as i64)
        .saturating_add(
            o.duration_weight
                .saturating_mul(travel.saturating_add(service)),
        )
        .saturating_add(o.distance_weight.saturating_mul(distance))
        .saturating_add(if p.priced {
            costs_bound(p, routes, travel.saturating_add(service), distance)
        } else {
            0
        });
    Bound {
        cost: FleetCost {
            unassigned,
            lateness: 0,
            main,
        },
        routes,
        takeable: jobs.len(),
        served: assigned,
        reachable: main < i64::MAX
            && few_jobs_pay_an_arc(p, &jobs, p.vehicles.len() + (jobs.len() - assigned)),
    }
}

/// At most `most` of `jobs` have no arc to another job that may cost nothing
/// (travel and distance 0 where the objective weighs them); a row read each,
/// stopping at its first such arc or at one job too many.
fn few_jobs_pay_an_arc(p: &FleetProblem, jobs: &[usize], most: usize) -> bool {
    let o = &p.objective;
    let (per_duration, per_distance) = if p.priced { lowest_rates(p) } else { (0, 0) };
    let time_weighed = o.duration_weight > 0 || per_duration > 0;
    let distance_weighed = o.distance_weight > 0 || per_distance > 0;
    let free = |a: usize, b: usize| {
        (!time_weighed || p.t(a, b) == 0) && (!distance_weighed || p.d(a, b) == 0)
    };
    let mut paying = 0usize;
    for &j in jobs {
        let a = p.jobs[j].loc;
        if !(0..p.n()).any(|i| i != j && free(a, p.jobs[i].loc)) {
            paying += 1;
            if paying > most {
                return false;
            }
        }
    }
    true
}

/// What any plan of at least `routes` routes, `duration` and `distance` in
/// all pays in vehicle costs at least: the cheapest fixed costs, the lowest rates.
fn costs_bound(p: &FleetProblem, routes: usize, duration: i64, distance: i64) -> i64 {
    let mut fixed: Vec<i64> = p.vehicles.iter().map(|v| v.costs.fixed).collect();
    fixed.sort_unstable();
    let (per_duration, per_distance) = lowest_rates(p);
    fixed[..routes]
        .iter()
        .fold(0i64, |s, &x| s.saturating_add(x))
        .saturating_add(per_duration.saturating_mul(duration))
        .saturating_add(per_distance.saturating_mul(distance))
}

/// The lowest per-duration and per-distance rates of the fleet's vehicles.
fn lowest_rates(p: &FleetProblem) -> (i64, i64) {
    let lowest = |rate: fn(&VehicleCosts) -> i64| p.vehicles.iter().map(|v| rate(&v.costs)).min();
    (
        lowest(|c| c.per_duration).unwrap_or(0),
        lowest(|c| c.per_distance).unwrap_or(0),
    )
}

/// Some vehicle may take job j: allowed, its demand within the capacity, a stop to spare.
fn takeable(p: &FleetProblem, j: usize) -> bool {
    (0..p.vehicles.len()).any(|v| {
        p.allows(j, v)
            && p.vehicles[v].max_stops > 0
            && (0..p.dims).all(|d| {
                let at = j * p.dims + d;
                let most = p.demand[at].max(p.unload[at]).max(p.load[at]);
                most <= p.capacity[v * p.dims + d]
            })
    })
}

/// Fewest vehicles that can hold `k` of `jobs`: by `max_stops`, and in each
/// demand dimension by capacity against the k smallest demands (at least 1).
fn fewest_routes(p: &FleetProblem, jobs: &[usize], k: usize) -> usize {
    let covering = |mut sizes: Vec<i64>, need: i64| -> usize {
        sizes.sort_unstable_by(|a, b| b.cmp(a));
        let mut sum = 0i64;
        for (r, s) in sizes.iter().enumerate() {
            if sum >= need {
                return r;
            }
            sum = sum.saturating_add(*s);
        }
        sizes.len()
    };
    let stops: Vec<i64> = p
        .vehicles
        .iter()
        .map(|v| v.max_stops.min(i64::MAX as usize) as i64)
        .collect();
    let mut r = covering(stops, k as i64).max(1);
    // with shipments or backhauls the load falls and rises again: a vehicle may carry more than its capacity in a day
    let dims = if p.profile { 0 } else { p.dims };
    for d in 0..dims {
        let mut demands: Vec<i64> = jobs.iter().map(|&j| p.demand[j * p.dims + d]).collect();
        demands.sort_unstable();
        let need = demands[..k].iter().fold(0i64, |s, &x| s.saturating_add(x));
        let capacities = (0..p.vehicles.len())
            .map(|v| p.capacity[v * p.dims + d])
            .collect();
        r = r.max(covering(capacities, need));
    }
    r.min(p.vehicles.len())
}

/// The stall count for a fleet that can hold only `served` of the `n` jobs
/// it may take (a full fleet): what the search can still change is a plan
/// of `served` stops, so the count given for `n` shrinks by (served / n)²,
/// as the service's rule (⌈n²/10⌉) grows with n². 0 stays 0 (no stall
/// stop); otherwise at least 1.
pub fn stall_for_served(stall: u64, n: usize, served: usize) -> u64 {
    if stall == 0 || served >= n {
        return stall;
    }
    let (n, served) = (n as u128, served as u128);
    ((stall as u128 * served * served / (n * n)) as u64).max(1)
}

/// The best plan cannot be improved: it reaches the bound.
pub fn reached(best: FleetCost, bound: FleetCost) -> bool {
    best.unassigned <= bound.unassigned
        && best.lateness <= bound.lateness
        && best.main <= bound.main
}
