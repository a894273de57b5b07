//! Shipments (pickup-and-delivery pairs) in the insertion heuristics: a pair
//! is priced and inserted as one unit, the pickup before position i and the
//! delivery before position k ≥ i of the route as it stands.
//!
//! For each i the run "prefix, pickup, jobs[i..k]" is extended one job at a
//! time as k grows, so that each candidate joins O(1) segments (time windows
//! and load) with the route's cached suffix: O(n²) per route. The extension
//! stops as soon as the run breaks a window or the capacity (a longer run only
//! adds visits, with the shipment still on board). When the price needs more
//! than the segments give (lateness, several windows, route limits) a
//! candidate that passes them is priced exactly by `Solution::evaluate`.

use super::load::LoadSeg;
use super::model::{FleetProblem, Role};
use super::solution::{job_segment, FleetCost, Piece, RouteEval, Solution};
use super::windows::PairPasses;

/// Best place of a unit in a route: cost change, position, and the
/// delivery's position for a shipment (= position for a plain job).
pub type Place = (FleetCost, usize, usize);

/// Which positions a pair insertion may use: pickup before i in [i_lo,
/// i_hi], delivery before k in [k_lo, k_hi] (clamped to the route).
#[derive(Clone, Copy, Debug)]
pub struct PairWindow {
    pub i_lo: usize,
    pub i_hi: usize,
    pub k_lo: usize,
    pub k_hi: usize,
}

impl PairWindow {
    pub const ALL: PairWindow = PairWindow {
        i_lo: 0,
        i_hi: usize::MAX,
        k_lo: 0,
        k_hi: usize::MAX,
    };
}

/// The pieces of route r with pickup a before position i and delivery b before k (k >= i).
pub fn pair_pieces(r: usize, a: usize, b: usize, i: usize, k: usize) -> ([Piece; 5], usize) {
    if i == k {
        (
            [
                Piece::Prefix(r, i),
                Piece::Job(a as u32),
                Piece::Job(b as u32),
                Piece::Suffix(r, i),
                Piece::Job(0),
            ],
            4,
        )
    } else {
        (
            [
                Piece::Prefix(r, i),
                Piece::Job(a as u32),
                Piece::Range(r, i, k),
                Piece::Job(b as u32),
                Piece::Suffix(r, k),
            ],
            5,
        )
    }
}

/// A pair insertion that the segments accept: pickup before i, delivery
/// before k, its route priced by the segments (exact distance and count;
/// with breaks, several windows or deadlines a lower bound of the duration
/// and lateness) and the lower bound of the cost change.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PairCandidate {
    i: usize,
    k: usize,
    bound: FleetCost,
    eval: RouteEval,
}

impl Solution {
    /// The exact price of a candidate of `best_pair_insertion` into vehicle
    /// v's route: what the segments did not settle (route limits, breaks,
    /// several windows, lateness) by a forward pass from the pickup that
    /// stops where the schedule meets the route's own. The rest of
    /// `evaluate`'s checks hold by construction (the candidate's capacity,
    /// windows and vehicle were checked, and a shipment inserted whole,
    /// pickup first, into a route whose shipments hold keeps them whole).
    fn price_pair(
        &self,
        p: &FleetProblem,
        v: usize,
        a: usize,
        b: usize,
        c: &PairCandidate,
        passes: &mut PairPasses,
    ) -> Option<RouteEval> {
        let (pieces, len) = pair_pieces(v, a, b, c.i, c.k);
        let pieces = &pieces[..len];
        if (p.driving_limited || p.distance_limited) && !self.within_limits(p, v, pieces) {
            return None;
        }
        let mut e = c.eval;
        if p.breaks_of(v) || p.multi_windows {
            let (duration, lateness) = passes.price(p, &self.routes[v], a, b, c.i, c.k)?;
            e.duration = duration;
            e.lateness = lateness;
        } else if p.has_deadlines {
            e.lateness = self.lateness_of_pieces(p, v, pieces);
        }
        Some(e)
    }

    /// Best insertion of job j's unit (j alone, or its whole shipment) into route r.
    pub fn best_unit_insertion(
        &mut self,
        p: &FleetProblem,
        r: usize,
        j: usize,
        blink: impl FnMut() -> bool,
    ) -> Option<Place> {
        match p.partner(j) {
            None => self.best_insertion(p, r, j, blink).map(|(c, k)| (c, k, k)),
            Some(o) => {
                let (a, b) = if p.role[j] == Role::Pickup {
                    (j, o)
                } else {
                    (o, j)
                };
                self.best_pair_insertion(p, r, a, b, PairWindow::ALL, blink)
            }
        }
    }

    /// Insert job j's unit at a place found by `best_unit_insertion`.
    pub fn insert_unit(&mut self, p: &FleetProblem, r: usize, j: usize, k: usize, k2: usize) {
        match p.partner(j) {
            None => self.insert(p, r, j, k),
            Some(o) => {
                let (a, b) = if p.role[j] == Role::Pickup {
                    (j, o)
                } else {
                    (o, j)
                };
                let mut jobs = self.routes[r].jobs.clone();
                jobs.insert(k2, b as u32);
                jobs.insert(k, a as u32);
                self.set_route(p, r, jobs);
                debug_assert!(self.routes[r].time_feasible);
            }
        }
    }

    /// Best insertion of the shipment (pickup a, delivery b) into route r
    /// within `w`: (cost change, i, k). `blink()` true skips a pickup position.
    pub fn best_pair_insertion(
        &mut self,
        p: &FleetProblem,
        r: usize,
        a: usize,
        b: usize,
        w: PairWindow,
        mut blink: impl FnMut() -> bool,
    ) -> Option<Place> {
        let v = self.routes[r].vehicle;
        let n = self.routes[r].len();
        if !p.allows(a, v) || !p.allows(b, v) || n + 2 > p.vehicles[v].max_stops {
            return None;
        }
        let dims = p.dims;
        let cap = p.vehicle_capacity(v);
        let veh = &p.vehicles[v];
        let (ja, jb) = (job_segment(p, a), job_segment(p, b));
        let (la, lb) = (LoadSeg::job(p, a), LoadSeg::job(p, b));
        let (loc_a, loc_b) = (p.jobs[a].loc, p.jobs[b].loc);
        let exact = p.has_deadlines
            || p.multi_windows
            || p.driving_limited
            || p.distance_limited
            || p.breaks_of(v);
        let old = self.routes[r].cost(p);
        let base = if n == 0 {
            p.d(veh.start, veh.end)
        } else {
            self.routes[r].eval.distance
        };
        let mut best: Option<Place> = None;
        // feasible for the segments: with `exact`, the cost is a lower bound (the segments'
        // duration never exceeds the exact one, and the lateness is counted as 0: on a matrix
        // without the triangle inequality an insertion can lower the route's lateness)
        let mut candidates = std::mem::take(&mut self.pair_candidates);
        candidates.clear();
        for i in w.i_lo..=w.i_hi.min(n) {
            if blink() {
                continue;
            }
            let route = &self.routes[r];
            let mut s = route.fwd[i].then(&ja, p);
            if s.time_warp > 0 {
                continue;
            }
            let mut ls = route.lfwd[i].then(&la, dims);
            if !ls.fits(cap) {
                continue;
            }
            let prev_i = if i == 0 { veh.start } else { route.loc(i - 1) };
            for k in i..=w.k_hi.min(n) {
                if k > i {
                    let j = route.jobs[k - 1] as usize;
                    s = s.then(&job_segment(p, j), p);
                    ls = ls.then(&LoadSeg::job(p, j), dims);
                    if s.time_warp > 0 || !ls.fits(cap) {
                        break;
                    }
                }
                if k < w.k_lo {
                    continue;
                }
                let full = s.then(&jb, p).then(&route.bwd_end[k], p);
                if !full.feasible() || !ls.then(&lb, dims).then(&route.lbwd[k], dims).fits(cap) {
                    continue;
                }
                let next_k = if k == n { veh.end } else { route.loc(k) };
                let distance = if k == i {
                    base + p.d(prev_i, loc_a) + p.d(loc_a, loc_b) + p.d(loc_b, next_k)
                        - p.d(prev_i, next_k)
                } else {
                    let (first, last) = (route.loc(i), route.loc(k - 1));
                    base + p.d(prev_i, loc_a) + p.d(loc_a, first) - p.d(prev_i, first)
                        + p.d(last, loc_b)
                        + p.d(loc_b, next_k)
                        - p.d(last, next_k)
                };
                let e = RouteEval {
                    vehicle: route.vehicle,
                    count: n + 2,
                    duration: full.duration,
                    distance,
                    lateness: 0,
                    warp: 0,
                };
                candidates.push(PairCandidate {
                    i,
                    k,
                    bound: e.cost(p).minus(old),
                    eval: e,
                });
            }
        }
        if exact {
            // exact prices in (i, k) order, skipping the candidates whose bound cannot beat the best;
            // the best is the least (delta, bound, i, k): the choice of pricing them cheapest bound first
            let mut passes = std::mem::take(&mut self.pair_passes);
            passes.reset(n);
            let mut best_bound = FleetCost::MAX;
            for c in &candidates {
                if best.map_or(false, |b| c.bound >= b.0) {
                    continue;
                }
                if let Some(e) = self.price_pair(p, v, a, b, c, &mut passes) {
                    let delta = e.cost(p).minus(old);
                    debug_assert!(delta >= c.bound);
                    #[cfg(debug_assertions)]
                    {
                        let (pieces, len) = pair_pieces(r, a, b, c.i, c.k);
                        let full = self.evaluate(p, v, &pieces[..len]);
                        debug_assert_eq!(full, Some(e));
                    }
                    if best.map_or(true, |bst| {
                        delta < bst.0 || (delta == bst.0 && c.bound < best_bound)
                    }) {
                        best = Some((delta, c.i, c.k));
                        best_bound = c.bound;
                    }
                } else {
                    #[cfg(debug_assertions)]
                    {
                        let (pieces, len) = pair_pieces(r, a, b, c.i, c.k);
                        debug_assert_eq!(self.evaluate(p, v, &pieces[..len]), None);
                    }
                }
            }
            self.pair_passes = passes;
        } else {
            for c in &candidates {
                #[cfg(debug_assertions)]
                {
                    let (pieces, len) = pair_pieces(r, a, b, c.i, c.k);
                    let e = self
                        .evaluate(p, v, &pieces[..len])
                        .map(|e| e.cost(p).minus(old));
                    debug_assert_eq!(e, Some(c.bound));
                }
                if best.map_or(true, |bst| c.bound < bst.0) {
                    best = Some((c.bound, c.i, c.k));
                }
            }
        }
        self.pair_candidates = candidates;
        best
    }
}
