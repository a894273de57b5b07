//! The regret construction's column: the best insertion of every pending job
//! into one route, positions outside and jobs inside.
//!
//! `Solution::best_insertion` job by job reads the travel matrix at
//! (position, job) and (job, position) for every position of the route: a
//! cache miss each on a big matrix (60 % of the construction's time at 1000
//! stops). Here each position's row is read along the jobs, sorted by
//! location, so consecutive reads share cache lines (a transposed copy of
//! the matrix for the (job, position) reads was measured: no faster). Same
//! arithmetic and the same order of positions for each job: the same best
//! places as `best_unit_insertion`.

use super::model::{FleetProblem, Role};
use super::pairs::Place;
use super::segment::TwSegment;
use super::solution::{job_segment, FleetCost, Solution};

/// Whether route r's column can be computed here: the simple case of
/// `best_insertion` (no breaks, single windows, loads that only add up — so
/// no shipments —, no driving or distance limits).
pub fn fits(p: &FleetProblem, sol: &Solution, r: usize) -> bool {
    !p.breaks_of(sol.routes[r].vehicle)
        && !p.multi_windows
        && !p.profile
        && !p.driving_limited
        && !p.distance_limited
}

/// Scratch of `compute`, kept across calls.
#[derive(Default)]
pub struct Column {
    jobs: Vec<(u32, TwSegment)>,
    best: Vec<Option<(FleetCost, usize)>>,
    /// (job's index in `jobs`, position, duration, distance) to price with the push followed.
    late: Vec<(u32, usize, i64, i64)>,
}

impl Column {
    /// `out(j, place)` for every job of `pending`, with route r's best
    /// insertion of j (None: none fits), as `best_unit_insertion` gives it.
    pub fn compute(
        &mut self,
        p: &FleetProblem,
        sol: &Solution,
        r: usize,
        pending: &[u32],
        mut out: impl FnMut(usize, Option<Place>),
    ) {
        debug_assert!(fits(p, sol, r));
        let route = &sol.routes[r];
        let v = route.vehicle;
        let veh = &p.vehicles[v];
        let n = route.len();
        let cap = p.vehicle_capacity(v);
        self.jobs.clear();
        for &j in pending {
            let ju = j as usize;
            debug_assert!(p.role[ju] == Role::Plain);
            let dj = p.job_demand(ju);
            if !p.allows(ju, v)
                || n + 1 > veh.max_stops
                || (0..p.dims).any(|d| route.total_load(p, d) + dj[d] > cap[d])
            {
                out(ju, None);
                continue;
            }
            self.jobs.push((j, job_segment(p, ju)));
        }
        // along a matrix row
        self.jobs
            .sort_unstable_by_key(|&(j, _)| (p.jobs[j as usize].loc, j));
        self.best.clear();
        self.best.resize(self.jobs.len(), None);
        self.late.clear();
        let old = route.cost(p);
        let base = if n == 0 {
            p.d(veh.start, veh.end)
        } else {
            route.eval.distance
        };
        for k in 0..=n {
            let before = route.fwd[k];
            let after = route.bwd_end[k];
            let prev = if k == 0 { veh.start } else { route.loc(k - 1) };
            let next = if k == n { veh.end } else { route.loc(k) };
            let skipped = p.d(prev, next);
            for (i, &(j, js)) in self.jobs.iter().enumerate() {
                let s = before.then(&js, p);
                // ruled out without the arc to the rest of the route (travel only adds)
                if s.ends_after(after.latest) {
                    debug_assert!(!s.then(&after, p).feasible());
                    continue;
                }
                let full = s.then(&after, p);
                if !full.feasible() {
                    continue;
                }
                let loc = js.first as usize;
                let distance = base + p.d(prev, loc) + p.d(loc, next) - skipped;
                if route.offer_insertion(
                    p,
                    j as usize,
                    k,
                    full.duration,
                    distance,
                    old,
                    &mut self.best[i],
                    false,
                ) {
                    self.late.push((i as u32, k, full.duration, distance));
                }
            }
        }
        // the positions that push jobs late, once each job's best is known (as `best_insertion`)
        for &(i, k, duration, distance) in &self.late {
            let j = self.jobs[i as usize].0 as usize;
            route.offer_insertion(
                p,
                j,
                k,
                duration,
                distance,
                old,
                &mut self.best[i as usize],
                true,
            );
        }
        for (i, &(j, _)) in self.jobs.iter().enumerate() {
            out(j as usize, self.best[i].map(|(c, k)| (c, k, k)));
        }
    }
}
