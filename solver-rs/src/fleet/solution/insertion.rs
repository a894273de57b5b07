//! Insertion of one job (best position, insert) and removal of jobs.

use super::cost::{FleetCost, RouteEval};
use super::schedule::job_segment;
use super::{Solution, NONE};
use crate::fleet::load::LoadSeg;
use crate::fleet::model::{FleetProblem, Role};
use crate::fleet::segment::TwSegment;

impl Solution {
    /// Best feasible insertion of job j into route r: (cost delta, position).
    /// `blink(k)` true skips position k (SISR's blinks).
    pub fn best_insertion(
        &mut self,
        p: &FleetProblem,
        r: usize,
        j: usize,
        mut blink: impl FnMut() -> bool,
    ) -> Option<(FleetCost, usize)> {
        let route = &self.routes[r];
        let v = route.vehicle;
        let job = &p.jobs[j];
        if !p.allows(j, v) || route.len() + 1 > p.vehicles[v].max_stops {
            return None;
        }
        // a shipment's job goes in with its other end (`best_pair_insertion`)
        debug_assert!(p.role[j] == Role::Plain);
        let cap = p.vehicle_capacity(v);
        let dj = p.job_demand(j);
        let lj = if p.profile {
            LoadSeg::job(p, j)
        } else {
            LoadSeg::EMPTY
        };
        if !p.profile {
            for d in 0..p.dims {
                if route.total_load(p, d) + dj[d] > cap[d] {
                    return None;
                }
            }
        }
        let n = route.len();
        let old = route.cost(p);
        let js = job_segment(p, j);
        let veh = &p.vehicles[v];
        let mut best: Option<(FleetCost, usize)> = None;
        let exact = p.breaks_of(v) || p.multi_windows;
        // a bound before the segments' joins where durations are weighed; without them the
        // distance is all the price, and the joins' windows rule most positions out first, for
        // less (Homberger 200: 2.3 % more instructions with the bound first)
        let bound_first = !exact && !p.duration_free();
        if p.windows_soft() {
            debug_assert!(!exact && !p.has_deadlines && !p.profile);
            return best_place_through_warp(p, route, j, blink);
        }
        self.insert_candidates.clear();
        self.late_positions.clear();
        for k in 0..=n {
            if blink() {
                continue;
            }
            if p.profile
                && !route.lfwd[k]
                    .then(&lj, p.dims)
                    .then(&route.lbwd[k], p.dims)
                    .fits(cap)
            {
                continue;
            }
            let before = route.fwd[k];
            // the prefixes only grow: once one ends after j's latest start, so do all the
            // longer ones, and every later position has a time warp
            if before.ends_after(js.latest) {
                for kk in k + 1..=n {
                    blink(); // drawn as if the position were tried: the same plans
                    debug_assert!(route.fwd[kk].then(&js, p).time_warp > 0);
                }
                debug_assert!(before.then(&js, p).time_warp > 0);
                break;
            }
            // and j cannot go before a rest of the route whose latest start comes before j can end
            if js.ends_after(route.bwd_end[k].latest) {
                debug_assert!(!before.then(&js, p).then(&route.bwd_end[k], p).feasible());
                continue;
            }
            let mut known = None;
            if let (true, Some((b, _))) = (bound_first, best) {
                // joining the segments only adds waits to their durations and travels: without
                // them the price is a lower bound, and at or above the best price_insertion
                // would find that the position loses
                let least = least_joined_duration(p, &before, &js, &route.bwd_end[k]);
                let distance = route.distance_with(p, k, job.loc);
                if route.insertion_bound(p, least, distance, old) >= b {
                    #[cfg(debug_assertions)]
                    {
                        let full = before.then(&js, p).then(&route.bwd_end[k], p);
                        if full.feasible() {
                            let exact = route.price_insertion(
                                p,
                                j,
                                k,
                                full.duration,
                                distance,
                                old,
                                None,
                                true,
                            );
                            debug_assert!(exact.cost().map_or(true, |c| c >= b));
                        }
                    }
                    continue;
                }
                known = Some(distance);
            }
            let s = before.then(&js, p);
            // ruled out without the arc to the rest of the route (travel only adds)
            if s.ends_after(route.bwd_end[k].latest) {
                debug_assert!(!s.then(&route.bwd_end[k], p).feasible());
                continue;
            }
            // (segments join associatively: the route's cached tail with its end)
            let full = s.then(&route.bwd_end[k], p);
            if !full.feasible() {
                continue;
            }
            debug_assert!(
                full.duration >= least_joined_duration(p, &before, &js, &route.bwd_end[k])
            );
            let distance = match known {
                Some(d) => d,
                None => route.distance_with(p, k, job.loc),
            };
            if p.driving_limited
                && route.total_with(p, k, job.loc, route.drive_total, FleetProblem::t)
                    > veh.max_driving
            {
                continue;
            }
            if p.distance_limited
                && route.total_with(p, k, job.loc, route.ldist_total, FleetProblem::ld)
                    > veh.max_distance
            {
                continue;
            }
            if exact {
                // priced below, cheapest bound first: the segments' duration is a lower
                // bound of the exact one, and the lateness never goes below 0
                let bound = RouteEval {
                    vehicle: v,
                    count: n + 1,
                    duration: full.duration,
                    distance,
                    lateness: 0,
                    warp: 0,
                };
                self.insert_candidates
                    .push((bound.cost(p).minus(old), k, distance));
                continue;
            }
            if route.offer_insertion(p, j, k, full.duration, distance, old, &mut best, false) {
                self.late_positions.push((k, full.duration, distance));
            }
        }
        // the positions that push jobs late, once the best is known
        let route = &self.routes[r];
        for &(k, duration, distance) in &self.late_positions {
            route.offer_insertion(p, j, k, duration, distance, old, &mut best, true);
        }
        if exact {
            // the exact pass only while the bound can still beat (or, at a lower
            // position, tie) the best: the same choice as pricing every position
            let mut cands = std::mem::take(&mut self.insert_candidates);
            cands.sort_unstable();
            let route = &self.routes[r];
            for &(bound, k, distance) in &cands {
                if best.map_or(false, |b| bound > b.0) {
                    break;
                }
                if let Some((duration, lateness)) =
                    crate::fleet::windows::price_insertion(route, p, j, k)
                {
                    let e = RouteEval {
                        vehicle: v,
                        count: n + 1,
                        duration,
                        distance,
                        lateness,
                        warp: 0,
                    };
                    let delta = e.cost(p).minus(old);
                    debug_assert!(delta >= bound);
                    if best.map_or(true, |b| delta < b.0 || (delta == b.0 && k < b.1)) {
                        best = Some((delta, k));
                    }
                }
            }
            self.insert_candidates = cands;
        }
        best
    }

    /// Insert job j into route r before position k (a feasible insertion).
    pub fn insert(&mut self, p: &FleetProblem, r: usize, j: usize, k: usize) {
        self.journal_save(r);
        let mut jobs = std::mem::take(&mut self.routes[r].jobs);
        jobs.insert(k, j as u32);
        let back = jobs.len() - 1 - k;
        self.set_route_from_taken(p, r, jobs, k, back);
        debug_assert!(self.routes[r].time_feasible || p.windows_soft());
    }

    /// Remove the listed jobs (from whichever routes hold them).
    pub fn remove_jobs(&mut self, p: &FleetProblem, removed: &[u32]) {
        // per route touched: the first and the last position a job left
        let mut touched: Vec<(usize, usize, usize)> = Vec::new();
        for &j in removed {
            let r = self.route_of[j as usize];
            if r != NONE {
                let k = self.pos_of[j as usize] as usize;
                self.route_of[j as usize] = NONE;
                self.pos_of[j as usize] = NONE;
                self.unassigned += 1;
                self.missing += p.miss_weight(j as usize);
                match touched.iter_mut().find(|t| t.0 == r as usize) {
                    Some(t) => {
                        t.1 = t.1.min(k);
                        t.2 = t.2.max(k);
                    }
                    None => touched.push((r as usize, k, k)),
                }
            }
        }
        for (r, first, last) in touched {
            self.journal_save(r);
            let mut jobs = std::mem::take(&mut self.routes[r].jobs);
            let back = jobs.len() - 1 - last;
            jobs.retain(|&j| self.route_of[j as usize] == r as u32);
            self.set_route_from_taken(p, r, jobs, first, back);
            if !self.routes[r].time_feasible && !p.windows_soft() {
                // a shortcut broke a window (no triangle inequality): the whole route goes
                self.set_route(p, r, Vec::new());
            }
        }
    }
}

/// `Solution::best_insertion` while the windows are soft: every position is
/// priced with its time warp (single windows, no breaks, no soft deadlines,
/// no load profile: `fleet::soft_windows::applies`). Joining segments only
/// adds time warp, so the new route has at least the warp of the part before
/// the position and of the part after it: a position whose distance and that
/// warp cannot beat the best is left before its windows are joined.
fn best_place_through_warp(
    p: &FleetProblem,
    route: &super::Route,
    j: usize,
    mut blink: impl FnMut() -> bool,
) -> Option<(FleetCost, usize)> {
    let old = route.cost(p);
    let js = job_segment(p, j);
    let loc = p.jobs[j].loc;
    let mut best: Option<(FleetCost, usize)> = None;
    for k in 0..=route.len() {
        if blink() {
            continue;
        }
        let distance = route.distance_with(p, k, loc);
        let (before, after) = (&route.fwd[k], &route.bwd_end[k]);
        if let Some((b, _)) = best {
            let kept = before.time_warp + after.time_warp;
            if route.insertion_change(p, 0, distance, kept, old) >= b {
                #[cfg(debug_assertions)]
                {
                    let full = before.then(&js, p).then(after, p);
                    let exact =
                        route.insertion_change(p, full.duration, distance, full.time_warp, old);
                    debug_assert!(!full.reachable() || exact >= b, "a skipped place wins");
                }
                continue;
            }
        }
        let full = before.then(&js, p).then(after, p);
        if !full.reachable() {
            continue;
        }
        debug_assert!(full.time_warp >= before.time_warp + after.time_warp);
        let delta = route.insertion_change(p, full.duration, distance, full.time_warp, old);
        if best.map_or(true, |b| (delta, k) < b) {
            best = Some((delta, k));
        }
    }
    best
}

/// The duration of `a` then `b` then `c` without the waits joining them adds
/// (`TwSegment::then`): at most the joined duration.
#[inline(always)]
fn least_joined_duration(p: &FleetProblem, a: &TwSegment, b: &TwSegment, c: &TwSegment) -> i64 {
    a.duration
        .saturating_add(p.t(a.last as usize, b.first as usize))
        .saturating_add(b.duration)
        .saturating_add(p.t(b.last as usize, c.first as usize))
        .saturating_add(c.duration)
}
