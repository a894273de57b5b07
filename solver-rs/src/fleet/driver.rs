//! The driver: regret construction, a descent, then ruin-and-recreate
//! iterations (SISR ruin, greedy insertion with blinks, a descent around the
//! reinserted jobs) under simulated-annealing acceptance; the best solution
//! is returned. Each iteration changes the current solution in place and a
//! rejected one is undone (`Solution::journal_begin` / `journal_undo`): no
//! copy of the whole solution per iteration.
//!
//! Stops at the time limit (checked inside the descent and the insertion
//! too), at the iteration budget, once the best plan reaches the lower bound
//! of `bound.rs` (no plan is better: every stop at one place, a full fleet),
//! or, with `stall_iterations`, when the best plan has not improved for that
//! many iterations (see `FleetParams`).
//!
//! Deterministic for a seed and an iteration budget: every decision is an
//! integer comparison except the annealing threshold, which is computed with
//! IEEE basic operations only (+ − × ÷ and sqrt are correctly rounded on
//! every target; no libm call), so native and WebAssembly builds agree. With
//! an iteration budget the clock is never read for a decision.

use super::bound::{lower_bound, reached, stall_for_served};
use super::deadline::Deadline;
use super::insertion::{greedy_insert, regret_insert, vehicle_classes, ALL_ROUTES};
use super::local_search::LocalSearch;
use super::model::FleetProblem;
use super::reasons::{reason, Reason};
use super::route_polish::{self, POLISH_SHARE_PERCENT};
use super::ruin::{self, RuinSettings};
use super::same_place::input_order_at_same_place;
use super::soft_windows::{applies, on_time, Adjusted, SoftWindows};
use super::solution::{route_violation, FleetCost, Solution};
use crate::progress::Progress;
use crate::rng::Rng;
use crate::search::Clock;

#[derive(Clone, Debug, PartialEq)]
pub struct FleetSettings {
    /// Nearest jobs each job is paired with in the descent.
    pub granular: usize,
    /// On a day of at least this many jobs whose windows differ, rank the
    /// descent's nearest jobs by time-window correlation (`fleet::correlated`)
    /// instead of travel alone (0: every such day, `usize::MAX`: never).
    /// 600: Gehring–Homberger in WebAssembly, one seed, samples of 12 at 600
    /// (20 s) and 800 (30 s) and all 60 at 1000 (60 s): 1.83 against 2.00 %,
    /// 1.66 against 1.73 %, 1.75 against 1.88 % (39 of 60 shorter); smaller
    /// days lost (200 at 10 s 0.67 against 0.48 %, 400 at 12 s 1.89 against
    /// 1.73 %) or tied (Solomon); docs/benchmarks.md, eighth pass.
    pub correlated_from_jobs: usize,
    /// ... and of at most this many (`FleetSettings::correlates`): no larger
    /// day was measured, and the lists of jobs their travel neighbours do not
    /// prove cost O(jobs) each (5,000 jobs, none proven: 1.8 s of native CPU).
    pub correlated_to_jobs: usize,
    pub ruin: RuinSettings,
    /// Insertion positions skipped, per mille (SISR's blinks).
    pub blink_per_mille: u64,
    /// Starting temperature = this × the mean cost of a job's 10 nearest arcs, in tenths.
    pub start_temperature_tenths: i64,
    /// Final temperature = start / this.
    pub cooling_ratio: i64,
    /// The recreate tries the routes of a job's this many nearest assigned
    /// jobs first, every route only when none takes it (`ALL_ROUTES`, 0: every
    /// route at once). 20: on two 6-instance samples of Gehring–Homberger 1000
    /// at 20 s of CPU, 9 of 12 plans shorter than over every route, the
    /// samples' mean gaps 2.78 → 2.67 % and 3.76 → 2.26 % (docs/benchmarks.md).
    pub recreate_near: usize,
    /// Problems of fewer jobs recreate over every route. The near routes lost
    /// on Solomon's 100 customers at 1 s of CPU (0.65–0.72 % against
    /// 0.54–0.63 %, three seeds: a few long routes in R2 and RC2, a job's 20
    /// nearest in one or two of them) and on a Gehring–Homberger 400 sample
    /// at 10 s (2.31 % against 1.45 %); a 600 sample at 12 s was even (2.10
    /// against 2.12 %), 1000 won.
    pub recreate_near_from_jobs: usize,
    /// Run the descent after each recreate.
    pub local_search: bool,
    /// Share of the budget (per cent) spent on fleet minimisation when the
    /// objective has a vehicle cost (or a vehicle a fixed cost).
    pub fleet_share_percent: u64,
    /// With a stall count S, the fleet-minimisation phase gives up after
    /// this × S iterations without taking a route away.
    pub fleet_stall_factor: u64,
    /// On a day whose stops have no window narrower than the shifts, solve
    /// each route of the best plan again with the single-route engine
    /// (`route_polish`).
    pub route_polish: bool,
    /// The annealing of a day of at most this many jobs searches through
    /// late schedules, their time warp priced (`fleet::soft_windows`, where
    /// it applies; 0: never, SOFT_WINDOWS_TO_JOBS, the default).
    pub soft_windows_to_jobs: usize,
    /// ... and prices the warp so that about this share of its candidates
    /// (per cent) are on time after their descent.
    pub soft_windows_on_time_percent: u64,
}

impl FleetSettings {
    /// A day of this many jobs takes the descent's candidates by time-window
    /// correlation (when its windows differ).
    pub fn correlates(&self, jobs: usize) -> bool {
        (self.correlated_from_jobs..=self.correlated_to_jobs).contains(&jobs)
    }
}

impl Default for FleetSettings {
    fn default() -> FleetSettings {
        FleetSettings {
            granular: 10,
            correlated_from_jobs: 600,
            correlated_to_jobs: 1000,
            ruin: RuinSettings::default(),
            blink_per_mille: 10,
            recreate_near: 20,
            recreate_near_from_jobs: 600,
            start_temperature_tenths: 100,
            cooling_ratio: 100,
            local_search: true,
            fleet_share_percent: 50,
            fleet_stall_factor: 1,
            route_polish: true,
            soft_windows_to_jobs: SOFT_WINDOWS_TO_JOBS,
            soft_windows_on_time_percent: 85,
        }
    }
}

/// `FleetSettings::soft_windows_to_jobs` by default: off, not yet shown to
/// win. On Solomon's 56 at 1 s of CPU (native, seeds 1–8) a first version
/// gave 0.355 % against 0.390 % (RC1 0.66 against 0.80 %), but it left R101
/// at its construction for 1,500 iterations; with that mended (the price
/// doubles when no candidate is on time) 0.420 % against 0.415 % (RC1 0.73
/// against 0.83, RC2 0.65 against 0.80, R2 0.56 against 0.39 %); a
/// Gehring–Homberger 200 sample at 10 s was even (docs/benchmarks.md,
/// twenty-first pass).
pub const SOFT_WINDOWS_TO_JOBS: usize = 0;

#[derive(Clone, Debug, PartialEq)]
pub struct FleetParams {
    pub seed: u64,
    /// Used only when max_iterations is 0.
    pub time_limit_ms: f64,
    /// Ruin-and-recreate iterations; 0 = run to the time limit (or
    /// DEFAULT_ITERATIONS when there is none).
    pub max_iterations: u64,
    /// 0 = off. Otherwise an anytime stop: the fleet-minimisation phase ends
    /// after this many iterations without taking a route away, and the
    /// search ends once the best plan has not improved for this many
    /// ruin-and-recreate iterations of the annealing phase. The annealing
    /// then cools over this many iterations (or over the budget when that is
    /// shorter), so that an early stop comes after a cold search, not in
    /// the middle of a hot one. When only some jobs can be served (a full
    /// fleet), the count shrinks with the square of that share
    /// (`bound::stall_for_served`).
    pub stall_iterations: u64,
    pub settings: FleetSettings,
}

pub const DEFAULT_ITERATIONS: u64 = 20_000;

impl FleetParams {
    /// The time limit the search keeps: none with an iteration budget (so
    /// that a run of fixed iterations never reads the clock for a decision).
    pub fn effective_time_limit_ms(&self) -> f64 {
        if self.max_iterations > 0 {
            0.0
        } else {
            self.time_limit_ms
        }
    }
}

impl Default for FleetParams {
    fn default() -> FleetParams {
        FleetParams {
            seed: 1,
            time_limit_ms: 0.0,
            max_iterations: 0,
            stall_iterations: 0,
            settings: FleetSettings::default(),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct FleetSolution {
    /// Job indices in visiting order, one list per vehicle (empty: unused).
    pub routes: Vec<Vec<u32>>,
    pub unassigned: Vec<(u32, Reason)>,
    pub cost: FleetCost,
    /// Ruin-and-recreate iterations (a one-vehicle plan: the single-route
    /// engine's kicks), the one at which the returned solution was found, and
    /// the descent's operator counters.
    pub progress: Progress,
}

/// ln(x) for x in (0, 1], with IEEE basic operations only (identical on every target).
pub fn det_ln(x: f64) -> f64 {
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i64 - 1023;
    let m = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | 0x3ff0_0000_0000_0000); // [1, 2)
                                                                                    // ln m = 2 atanh(z), z = (m - 1) / (m + 1) in [0, 1/3)
    let z = (m - 1.0) / (m + 1.0);
    let z2 = z * z;
    let mut term = z;
    let mut sum = 0.0;
    let mut k = 1.0;
    for _ in 0..20 {
        sum += term / k;
        term *= z2;
        k += 2.0;
    }
    exp as f64 * std::f64::consts::LN_2 + 2.0 * sum
}

/// Temperatures along the run: 1025 steps from t0 to t0 / ratio, geometric
/// (the ratio's 1024th root by ten square roots).
fn temperature_table(t0: f64, ratio: f64) -> Vec<f64> {
    let mut r = 1.0 / ratio;
    for _ in 0..10 {
        r = r.sqrt();
    }
    let mut t = t0;
    let mut out = Vec::with_capacity(1025);
    for _ in 0..=1024 {
        out.push(t);
        t *= r;
    }
    out
}

/// The insertion's vehicle classes (one empty route tried per class) split
/// by the vehicles' own costs: two vehicles alike but for their costs are
/// not interchangeable. Unchanged without costs.
fn cost_classes(p: &FleetProblem, base: Vec<usize>) -> Vec<usize> {
    if !p.priced {
        return base;
    }
    (0..base.len())
        .map(|v| {
            (0..=v)
                .find(|&u| base[u] == base[v] && p.vehicles[u].costs == p.vehicles[v].costs)
                .unwrap_or(v)
        })
        .collect()
}

/// Mean cost (in the objective's main unit) of the reachable arcs from each
/// job to its 10 nearest jobs (an unreachable arc says nothing of a typical
/// move, and its weighted cost would not fit an i64).
fn mean_near_arc(p: &FleetProblem) -> i64 {
    use super::model::UNREACHABLE;
    let o = p.objective;
    // vehicle costs weigh the arcs too: at the fleet's mean rates
    let nv = p.vehicles.len() as i64;
    let mean = |f: fn(&super::model::VehicleCosts) -> i64| {
        p.vehicles
            .iter()
            .map(|v| f(&v.costs))
            .fold(0i64, |s, x| s.saturating_add(x))
            / nv
    };
    let (dw, tw) = if p.priced {
        (
            o.distance_weight.saturating_add(mean(|c| c.per_distance)),
            o.duration_weight.saturating_add(mean(|c| c.per_duration)),
        )
    } else {
        (o.distance_weight, o.duration_weight)
    };
    let mut sum: i64 = 0;
    let mut cnt: i64 = 0;
    for j in 0..p.n() {
        for &k in p.neighbours[j].iter().take(10) {
            let (a, b) = (p.jobs[j].loc, p.jobs[k as usize].loc);
            let (d, t) = (p.d(a, b), p.t(a, b));
            if d >= UNREACHABLE || t >= UNREACHABLE {
                continue;
            }
            sum = sum.saturating_add(dw.saturating_mul(d).saturating_add(tw.saturating_mul(t)));
            cnt += 1;
        }
    }
    if cnt == 0 {
        1
    } else {
        (sum / cnt).max(1)
    }
}

/// The fleet search (`fleet::solve` first sends a single route in disguise
/// to the single-route engine), with the time limit counted from
/// `started_ms` on `clock` (when the host called, before its input was
/// decoded and the problem built).
pub fn solve_since(
    p: &FleetProblem,
    params: &FleetParams,
    clock: &dyn Clock,
    started_ms: f64,
) -> FleetSolution {
    let s = &params.settings;
    let mut rng = Rng::new(params.seed);
    let classes = cost_classes(p, vehicle_classes(p));
    let bound = lower_bound(p);
    let stall = stall_for_served(params.stall_iterations, bound.takeable, bound.served);

    let whole = Deadline::new(clock, started_ms, params.effective_time_limit_ms());
    let polish = s.route_polish && route_polish::polishable(p);
    // the search's part of the time limit: all of it, or what the polish leaves
    let budget = if polish && whole.has_time_limit() {
        whole.until(whole.stop_ms() * (100 - POLISH_SHARE_PERCENT) as f64 / 100.0)
    } else {
        whole.until(whole.stop_ms())
    };
    let near = if p.n() >= s.recreate_near_from_jobs {
        s.recreate_near
    } else {
        ALL_ROUTES
    };
    // a trivial plan (every stop at one place, a full fleet) is often at the bound after one greedy pass in
    // place order (near stops one after the other: the matrix columns it reads stay in cache), at a
    // fraction of the regret construction's cost (n² against n³ insertion evaluations: seconds on 1000
    // stops at one place); its own random stream leaves the search's untouched
    // (skipped when no plan reaches the bound: the regret construction would follow anyway)
    let mut current = Solution::empty(p);
    if bound.reachable {
        let mut all: Vec<u32> = (0..p.n() as u32).collect();
        all.sort_by_key(|&j| p.jobs[j as usize].loc);
        greedy_insert(
            p,
            &mut current,
            &classes,
            &all,
            &mut Rng::new(params.seed),
            0,
            true,
            ALL_ROUTES,
            &budget,
        );
    }
    // the constructed plan is the host's first plan before the descent polishes it (seconds at 10,000
    // stops: a job cancelled meanwhile keeps a plan)
    let mut constructed = None;
    if !bound.reachable || !reached(current.cost(p), bound.cost) {
        current = Solution::empty(p);
        regret_insert(p, &mut current, &classes, &budget);
        announce(&current);
        constructed = Some(current.cost(p));
    }
    // the descent's own lists, built once the host has the constructed plan
    let mut ls = LocalSearch::with_correlation(p, s.granular, s.correlates(p.n()));
    if constructed.is_some() {
        ls.run(p, &mut current, None, &budget);
    }
    let mut current_cost = current.cost(p);
    // jobs no vehicle can serve even alone are never tried again
    let servable: Vec<bool> = (0..p.n())
        .map(|j| {
            let unit = p.unit(j);
            (0..p.vehicles.len()).any(|v| route_violation(p, v, &unit).is_none())
        })
        .collect();

    let mut best = current.clone();
    let mut best_cost = current_cost;
    let mut best_iteration = 0;
    // observed only, as the single-route search's (never a decision)
    let mut best_ms = budget.elapsed_ms();
    if constructed != Some(best_cost) {
        announce(&best);
    }

    let max_iterations = if params.max_iterations > 0 {
        params.max_iterations
    } else if params.time_limit_ms > 0.0 {
        u64::MAX
    } else {
        DEFAULT_ITERATIONS
    };
    // progress through the whole budget in 1/1024ths, None when it is spent
    let progress = |iteration: u64| -> Option<u64> {
        if budget.has_time_limit() {
            if budget.expired() {
                return None;
            }
            Some(((budget.elapsed_ms() / budget.stop_ms()) * 1024.0).clamp(0.0, 1024.0) as u64)
        } else if iteration >= max_iterations {
            None
        } else {
            Some(((iteration as u128 * 1024) / max_iterations as u128) as u64)
        }
    };
    let mut iteration: u64 = 0;
    let mut removed: Vec<u32> = Vec::new();

    // when every vehicle is needed to hold what the fleet can serve, or the plan already serves all it can on
    // the fewest routes that hold them, taking a route away only leaves stops out
    let can_drop = |sol: &Solution| bound.fewer_routes_possible(sol.unassigned, used_routes(sol));
    let fleet_end = if p.vehicles_cost() && bound.routes < p.vehicles.len() && can_drop(&best) {
        1024 * s.fleet_share_percent.min(100) / 100
    } else {
        0
    };
    // where the annealing starts (in 1/1024ths of the budget)
    let mut anneal_from = 0;
    if fleet_end > 0 {
        let mut fleet = FleetMinimisation::new(p);
        // iteration of the last route taken away (or of the phase's start)
        let mut fleet_progress = iteration;
        while let Some(x) = progress(iteration) {
            anneal_from = x.min(fleet_end);
            if x >= fleet_end || reached(best_cost, bound.cost) || !can_drop(&best) {
                break;
            }
            match fleet.step(
                p,
                &classes,
                &mut ls,
                &mut rng,
                &s.ruin,
                s.blink_per_mille,
                near,
                &best,
                &servable,
                &budget,
            ) {
                FleetStep::Searching => {
                    iteration += 1;
                    if stall > 0 && iteration - fleet_progress >= stall * s.fleet_stall_factor {
                        break;
                    }
                }
                FleetStep::Found => {
                    iteration += 1;
                    fleet_progress = iteration;
                    let found = fleet.current.clone();
                    let cost = found.cost(p);
                    if cost < best_cost {
                        best = found;
                        best_cost = cost;
                        best_iteration = iteration;
                        best_ms = budget.elapsed_ms();
                        announce(&best);
                    }
                }
                FleetStep::Done => break,
            }
        }
        current = best.clone();
        current_cost = best_cost;
    }

    let t0 = (mean_near_arc(p) * s.start_temperature_tenths) as f64 / 10.0;
    let temps = temperature_table(t0, s.cooling_ratio.max(1) as f64);
    let anneal_start = iteration;
    let mut soft = if applies(p, s, &current, &servable) {
        Some(SoftWindows::start(p, s))
    } else {
        None
    };
    while let Some(x) = progress(iteration) {
        if reached(best_cost, bound.cost) {
            break;
        }
        if stall > 0 && iteration - best_iteration.max(anneal_start) >= stall {
            break;
        }
        // the annealing spans what is left after the fleet phase
        let mut step = if anneal_from >= 1024 {
            1024
        } else {
            ((x.max(anneal_from) - anneal_from) * 1024 / (1024 - anneal_from)) as usize
        };
        // or, when the stop may come early, cools within the stall window
        if let Some(by_iterations) =
            ((iteration - anneal_start).min(stall) * 1024).checked_div(stall)
        {
            step = step.max(by_iterations as usize);
        }
        iteration += 1;
        // the candidate is `current` changed in place: undone when rejected
        current.journal_begin();
        ruin::choose(p, &current, &s.ruin.at(step, p.n()), &mut rng, &mut removed);
        current.remove_jobs(p, &removed);
        // previously unassigned jobs get another chance too
        let mut order: Vec<u32> = (0..p.n() as u32)
            .filter(|&j| servable[j as usize] && !current.is_assigned(j as usize))
            .collect();
        ruin::sort_for_insertion(p, &mut rng, &mut order);
        greedy_insert(
            p,
            &mut current,
            &classes,
            &order,
            &mut rng,
            s.blink_per_mille,
            true,
            near,
            &budget,
        );
        if s.local_search {
            ls.run(p, &mut current, Some(&order), &budget);
        }
        let candidate_on_time = soft.is_none() || on_time(&current);
        let cost = current.cost(p);
        let accept = if (cost.unassigned, cost.lateness)
            != (current_cost.unassigned, current_cost.lateness)
        {
            (cost.unassigned, cost.lateness) < (current_cost.unassigned, current_cost.lateness)
        } else {
            // accept if new < current - T ln U (U uniform in (0, 1])
            let u = ((rng.next_u64() >> 11) + 1) as f64 / (1u64 << 53) as f64;
            let threshold = -temps[step.min(1024)] * det_ln(u);
            ((cost.main - current_cost.main) as f64) < threshold
        };
        if accept {
            current.journal_commit();
            current_cost = cost;
            if current_cost < best_cost && candidate_on_time {
                best = current.clone();
                best_cost = current_cost;
                best_iteration = iteration;
                best_ms = budget.elapsed_ms();
                announce(&best);
            }
        } else {
            current.journal_undo(p);
            debug_assert_eq!(current.cost(p), current_cost);
        }
        if let Some(sw) = &mut soft {
            match sw.record(p, candidate_on_time) {
                Adjusted::Kept => {}
                Adjusted::Changed => current_cost = current.cost(p),
                Adjusted::Hardened => {
                    soft = None;
                    current = best.clone();
                    current_cost = best_cost;
                }
            }
        }
    }
    if let Some(sw) = &soft {
        sw.stop(p);
    }
    if polish && route_polish::polish(p, &mut best, params.seed, &whole) > 0 {
        best_ms = whole.elapsed_ms();
        announce(&best);
    }
    for v in 0..best.routes.len() {
        let ordered = input_order_at_same_place(p, v, &best.routes[v].jobs);
        if ordered != best.routes[v].jobs {
            best.set_route(p, v, ordered);
        }
    }
    let best_cost = best.cost(p);
    debug_assert!(best.check(p).is_ok());
    let unassigned = (0..p.n())
        .filter(|&j| !best.is_assigned(j))
        .map(|j| (j as u32, reason(p, &best, j)))
        .collect();
    let mut progress = ls.progress;
    progress.iterations = iteration;
    progress.best_iteration = best_iteration;
    progress.best_ms = Some(best_ms);
    FleetSolution {
        routes: best.routes.iter().map(|r| r.jobs.clone()).collect(),
        unassigned,
        cost: best_cost,
        progress,
    }
}

/// Routes with a job.
fn used_routes(sol: &Solution) -> usize {
    sol.routes.iter().filter(|r| !r.is_empty()).count()
}

/// Tells the host of a new best plan (crate::ffi::report_improvement): the jobs it
/// serves and its routes' total duration, O(vehicles).
fn announce(best: &Solution) {
    let route_s = best.routes.iter().map(|r| r.eval.duration).sum();
    crate::ffi::report_improvement(best.route_of.len() - best.unassigned, route_s);
}

/// SISR's fleet minimisation: take a route away (its jobs become
/// unassigned) and ruin-and-recreate without opening routes, accepting a
/// candidate with fewer unassigned jobs or a smaller sum of "absence"
/// counters (how often each unassigned job has been left out) until every
/// job fits again and the plan is no later than before (lateness comes
/// before vehicles in the cost: a plan on fewer routes that is late is not
/// better, so once every job fits a candidate is also accepted when it is
/// less late); then take the next route away.
struct FleetMinimisation {
    current: Solution,
    absences: Vec<u64>,
    started: bool,
    removed: Vec<u32>,
    /// The jobs `current` leaves unassigned before an iteration.
    left_out: Vec<u32>,
    /// Unassigned jobs and lateness of the solution the current route was
    /// taken from: `current` is complete again when it has no more of either.
    target: usize,
    target_lateness: i64,
}

impl FleetMinimisation {
    fn new(p: &FleetProblem) -> FleetMinimisation {
        FleetMinimisation {
            current: Solution::empty(p),
            absences: vec![0; p.n()],
            started: false,
            removed: Vec::new(),
            left_out: Vec::new(),
            target: 0,
            target_lateness: 0,
        }
    }

    /// `current` serves what the solution it started from served, no later.
    fn complete(&self, p: &FleetProblem) -> bool {
        self.current.unassigned <= self.target
            && self.current.cost(p).lateness <= self.target_lateness
    }

    fn absence_sum(&self, sol: &Solution) -> u64 {
        (0..sol.route_of.len())
            .filter(|&j| !sol.is_assigned(j))
            .map(|j| self.absences[j])
            .sum()
    }

    /// Take the route with the fewest jobs (ties: random) out of `current`.
    fn drop_route(&mut self, p: &FleetProblem, rng: &mut Rng) -> bool {
        let from = &self.current;
        let used: Vec<usize> = (0..from.routes.len())
            .filter(|&r| !from.routes[r].is_empty())
            .collect();
        if used.len() <= 1 {
            return false;
        }
        let fewest = used
            .iter()
            .map(|&r| from.routes[r].len())
            .min()
            .unwrap_or(0);
        let ties: Vec<usize> = used
            .into_iter()
            .filter(|&r| from.routes[r].len() == fewest)
            .collect();
        let r = ties[rng.range(0, ties.len() - 1)];
        self.target = from.unassigned;
        self.target_lateness = from.cost(p).lateness;
        self.current.set_route(p, r, Vec::new());
        true
    }

    /// One iteration: Found when `current` is complete with one route fewer
    /// than the solution it started from; Done when no route can be taken away.
    #[allow(clippy::too_many_arguments)]
    fn step(
        &mut self,
        p: &FleetProblem,
        classes: &[usize],
        ls: &mut LocalSearch,
        rng: &mut Rng,
        ruin_settings: &RuinSettings,
        blink: u64,
        near: usize,
        best: &Solution,
        servable: &[bool],
        deadline: &Deadline,
    ) -> FleetStep {
        if !self.started || self.complete(p) {
            if !self.started {
                self.current = best.clone();
            }
            if !self.drop_route(p, rng) {
                return FleetStep::Done;
            }
            self.started = true;
        }
        // the candidate is `current` changed in place: undone when rejected
        let candidate = &mut self.current;
        let was_unassigned = candidate.unassigned;
        let was_lateness = candidate.cost(p).lateness;
        self.left_out.clear();
        self.left_out
            .extend((0..p.n() as u32).filter(|&j| !candidate.is_assigned(j as usize)));
        candidate.journal_begin();
        ruin::choose(p, candidate, ruin_settings, rng, &mut self.removed);
        candidate.remove_jobs(p, &self.removed);
        let mut order: Vec<u32> = (0..p.n() as u32)
            .filter(|&j| servable[j as usize] && !candidate.is_assigned(j as usize))
            .collect();
        ruin::sort_for_insertion(p, rng, &mut order);
        greedy_insert(
            p, candidate, classes, &order, rng, blink, false, near, deadline,
        );
        ls.run(p, candidate, Some(&order), deadline);
        for j in 0..p.n() {
            if !candidate.is_assigned(j) {
                self.absences[j] += 1;
            }
        }
        // the sum over the jobs left out before, with the absences counted now
        let before: u64 = self
            .left_out
            .iter()
            .map(|&j| self.absences[j as usize])
            .sum();
        // every job in, before and after: a plan less late
        let less_late = was_unassigned <= self.target
            && self.current.unassigned <= self.target
            && self.current.cost(p).lateness < was_lateness;
        if self.current.unassigned < was_unassigned
            || self.absence_sum(&self.current) < before
            || less_late
        {
            self.current.journal_commit();
        } else {
            self.current.journal_undo(p);
        }
        if self.complete(p) {
            FleetStep::Found
        } else {
            FleetStep::Searching
        }
    }
}

enum FleetStep {
    Searching,
    Found,
    Done,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fleet::model::{JobInput, Objective, VehicleInput};
    use crate::fleet::FleetInput;

    /// Four jobs 100 s from each other and from the depot, each due (softly) at
    /// `deadline`; two vans, the service's objective (vehicles before time).
    fn four_jobs(deadline: i64) -> FleetProblem {
        four_jobs_due(|_| deadline)
    }

    /// The four jobs, the one at place l due at `due(l)`.
    fn four_jobs_due(due: impl Fn(usize) -> i64) -> FleetProblem {
        let m = 5;
        let travel = (0..m * m)
            .map(|c| if c / m == c % m { 0 } else { 100 })
            .collect();
        let van = VehicleInput {
            start: 0,
            end: Some(0),
            ..VehicleInput::default()
        };
        FleetProblem::new(&FleetInput {
            locations: m,
            travel,
            distance: None,
            vehicles: vec![van.clone(), van],
            jobs: (1..m)
                .map(|location| JobInput {
                    location,
                    deadline: Some(due(location)),
                    ..JobInput::default()
                })
                .collect(),
            objective: Objective::SERVICE,
            limit_distance: None,
            shipments: Vec::new(),
        })
        .expect("valid input")
    }

    /// The fleet minimisation's steps from a plan of two routes of two jobs each, until one is Found (or 40 steps).
    fn steps_until_found(p: &FleetProblem) -> Option<Solution> {
        let mut best = Solution::empty(p);
        best.set_route(p, 0, vec![0, 1]);
        best.set_route(p, 1, vec![2, 3]);
        assert_eq!(best.cost(p).lateness, 0);
        steps_of(p, &mut FleetMinimisation::new(p), &best)
    }

    /// `fleet`'s steps from `best` until one is Found (or 40 steps).
    fn steps_of(
        p: &FleetProblem,
        fleet: &mut FleetMinimisation,
        best: &Solution,
    ) -> Option<Solution> {
        let classes = cost_classes(p, vehicle_classes(p));
        let mut ls = LocalSearch::with_correlation(p, 10, false);
        let mut rng = Rng::new(1);
        let servable = vec![true; p.n()];
        for _ in 0..40 {
            match fleet.step(
                p,
                &classes,
                &mut ls,
                &mut rng,
                &RuinSettings::default(),
                0,
                ALL_ROUTES,
                best,
                &servable,
                &Deadline::none(),
            ) {
                FleetStep::Found => return Some(fleet.current.clone()),
                FleetStep::Searching => {}
                FleetStep::Done => return None,
            }
        }
        None
    }

    #[test]
    fn a_plan_on_fewer_routes_that_is_late_is_not_found() {
        // one van reaches its four jobs at 100, 200, 300 and 400 s: two are late past 250
        assert!(steps_until_found(&four_jobs(250)).is_none());
    }

    #[test]
    fn a_plan_on_fewer_routes_no_later_is_found() {
        let p = four_jobs(1_000);
        let found = steps_until_found(&p).expect("one van serves all four in time");
        assert_eq!(used_routes(&found), 1);
        assert_eq!(found.unassigned, 0);
        assert_eq!(found.cost(&p).lateness, 0);
    }

    #[test]
    fn a_plan_with_every_job_back_in_but_late_is_searched_until_it_is_on_time() {
        // due in turn (150, 250, 350, 450 s): one van is on time only in that order
        let p = four_jobs_due(|location| 100 * location as i64 + 50);
        let mut fleet = FleetMinimisation::new(&p);
        // a route was taken away and its jobs came back in, in the reverse order: 300 s late
        fleet.started = true;
        fleet.current.set_route(&p, 0, vec![3, 2, 1, 0]);
        assert_eq!(fleet.current.cost(&p).lateness, 300);
        assert!(!fleet.complete(&p));
        let best = fleet.current.clone();
        // with every job in before and after, only a less late plan is accepted (no job left out to count)
        let found = steps_of(&p, &mut fleet, &best).expect("a step puts the four in time");
        assert_eq!(found.routes[0].jobs, vec![0, 1, 2, 3]);
        assert_eq!(found.cost(&p).lateness, 0);
        assert_eq!(used_routes(&found), 1);
    }
}
