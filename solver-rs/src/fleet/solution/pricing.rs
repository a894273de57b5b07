//! Pricing of a route made of pieces of the current routes, in O(pieces)
//! from the routes' caches (`evaluate`), and its job list (`materialize`).

#[cfg(debug_assertions)]
use super::check::route_violation;
use super::cost::RouteEval;
use super::schedule::end_segment;
#[cfg(debug_assertions)]
use super::schedule::{lateness_of, schedule_of};
use super::{job_segment, Piece, Route, Solution};
use crate::fleet::load::LoadSeg;
use crate::fleet::model::{has_bit, FleetProblem, Role, MAX_DIMS, NO_LIMIT};
use crate::fleet::segment::TwSegment;

impl Solution {
    /// Materialise pieces into a job list.
    pub fn materialize(&self, pieces: &[Piece], out: &mut Vec<u32>) {
        out.clear();
        for pc in pieces {
            match *pc {
                Piece::Prefix(r, k) => out.extend_from_slice(&self.routes[r].jobs[..k]),
                Piece::Suffix(r, k) => out.extend_from_slice(&self.routes[r].jobs[k..]),
                Piece::Range(r, a, b) => out.extend_from_slice(&self.routes[r].jobs[a..b]),
                Piece::Reversed(r, a, b) => out.extend(self.routes[r].jobs[a..b].iter().rev()),
                Piece::Job(j) => out.push(j),
            }
        }
    }

    /// The waiting inside the pieces that keep a run of a route whole from its
    /// start or to its end (`Route::waits_before`, `waits_from`): a floor of the
    /// new route's waiting, since joining runs only adds waits.
    pub fn kept_waits(&self, pieces: &[Piece]) -> i64 {
        self.kept_in_whole_runs(pieces, Route::waits_before, Route::waits_from)
    }

    /// The time warp inside those pieces (`Route::warp_before`, `warp_from`):
    /// a floor of the new route's warp, since joining runs only adds warp.
    pub fn kept_warp(&self, pieces: &[Piece]) -> i64 {
        self.kept_in_whole_runs(pieces, Route::warp_before, Route::warp_from)
    }

    /// The sum over the pieces that keep a run of a route whole from its
    /// start (`before`) or to its end (`from`) of what that run carries.
    fn kept_in_whole_runs(
        &self,
        pieces: &[Piece],
        before: fn(&Route, usize) -> i64,
        from: fn(&Route, usize) -> i64,
    ) -> i64 {
        pieces
            .iter()
            .map(|pc| match *pc {
                Piece::Prefix(r, k) => before(&self.routes[r], k),
                Piece::Suffix(r, k) => from(&self.routes[r], k),
                _ => 0,
            })
            .sum()
    }

    /// Distance and job count of the route of vehicle v made of `pieces`, in
    /// O(pieces) whatever their length (no feasibility check).
    pub fn distance_of_pieces(&self, p: &FleetProblem, v: usize, pieces: &[Piece]) -> (i64, usize) {
        self.pieces_sum(p, v, pieces, FleetProblem::d, |r| &r.dfwd)
    }

    /// The sum of `arc` over the route of vehicle v made of `pieces`, and its
    /// job count, in O(pieces) from the routes' prefix sums of that arc (`pre`:
    /// `pre[k]` is the sum from the start to the k-th job, `pre[0]` = 0).
    fn pieces_sum<A, P>(
        &self,
        p: &FleetProblem,
        v: usize,
        pieces: &[Piece],
        arc: A,
        pre: P,
    ) -> (i64, usize)
    where
        A: Fn(&FleetProblem, usize, usize) -> i64,
        P: Fn(&Route) -> &Vec<i64>,
    {
        let veh = &p.vehicles[v];
        let (mut loc, mut sum, mut count) = (veh.start, 0i64, 0usize);
        for pc in pieces {
            let (r, a, b) = match *pc {
                Piece::Prefix(r, k) => {
                    let route = &self.routes[r];
                    sum = pre(route)[k];
                    if k > 0 {
                        loc = route.loc(k - 1);
                    }
                    count = k;
                    continue;
                }
                Piece::Job(j) => {
                    let l = p.jobs[j as usize].loc;
                    sum += arc(p, loc, l);
                    loc = l;
                    count += 1;
                    continue;
                }
                Piece::Suffix(r, k) => (r, k, self.routes[r].len()),
                Piece::Range(r, a, b) => (r, a, b),
                Piece::Reversed(r, a, b) => {
                    // no prefix sum runs backwards (the arcs may differ each way): walked
                    let route = &self.routes[r];
                    for k in (a..b).rev() {
                        let l = route.loc(k);
                        sum += arc(p, loc, l);
                        loc = l;
                    }
                    count += b.saturating_sub(a);
                    continue;
                }
            };
            if a >= b {
                continue;
            }
            let route = &self.routes[r];
            // jobs[a]..jobs[b-1] along the route: pre[b] - pre[a + 1]
            sum += arc(p, loc, route.loc(a)) + pre(route)[b] - pre(route)[a + 1];
            loc = route.loc(b - 1);
            count += b - a;
        }
        if count == 0 {
            return (0, 0);
        }
        (sum + arc(p, loc, veh.end), count)
    }

    /// The route of vehicle v made of `pieces` keeps its max_driving and max_distance.
    pub(crate) fn within_limits(&self, p: &FleetProblem, v: usize, pieces: &[Piece]) -> bool {
        let veh = &p.vehicles[v];
        (!p.driving_limited
            || veh.max_driving >= NO_LIMIT
            || self
                .pieces_sum(p, v, pieces, FleetProblem::t, |r| &r.drive_pre)
                .0
                <= veh.max_driving)
            && (!p.distance_limited
                || veh.max_distance >= NO_LIMIT
                || self
                    .pieces_sum(p, v, pieces, FleetProblem::ld, |r| &r.ldist_pre)
                    .0
                    <= veh.max_distance)
    }

    /// Every job of the pieces but the prefix (checked when built) may go to
    /// vehicle v: one bit per Suffix and per job of the others. Apart from the
    /// pricing loop, so that an unrestricted problem pays one test per move.
    fn pieces_allowed(&self, p: &FleetProblem, v: usize, pieces: &[Piece]) -> bool {
        if !p.restricted() {
            return true;
        }
        pieces.iter().all(|pc| match *pc {
            Piece::Prefix(..) => true,
            Piece::Suffix(r, k) => {
                let route = &self.routes[r];
                k >= route.len() || has_bit(&route.allowed_bwd[k * p.allowed_words..], v)
            }
            Piece::Range(r, a, b) | Piece::Reversed(r, a, b) => self.routes[r].jobs[a..b]
                .iter()
                .all(|&j| p.allows(j as usize, v)),
            Piece::Job(j) => p.allows(j as usize, v),
        })
    }

    /// Price the route of vehicle v made of `pieces` (the first one must be
    /// a Prefix of route v). None when infeasible (windows, shift, capacity,
    /// maxStops, allowed vehicles; while the windows are soft, a time warp is
    /// priced instead).
    pub fn evaluate(&mut self, p: &FleetProblem, v: usize, pieces: &[Piece]) -> Option<RouteEval> {
        self.evaluate_parts(p, v, pieces, true, allowed_warp(p))
    }

    /// `evaluate` while the windows are soft, None as soon as the route's
    /// time warp passes `max_warp` (the warp only grows as pieces join: a
    /// caller that knows how much warp the move can afford stops early).
    pub fn evaluate_within_warp(
        &mut self,
        p: &FleetProblem,
        v: usize,
        pieces: &[Piece],
        max_warp: i64,
    ) -> Option<RouteEval> {
        debug_assert!(p.windows_soft());
        self.evaluate_parts(p, v, pieces, true, max_warp)
    }

    /// `evaluate` without the soft deadlines' lateness (0 in the answer; for
    /// a vehicle where `lateness_apart` holds): the rest costs O(pieces), the
    /// lateness O(route); a caller that can rule the move out without it
    /// adds `lateness_of_pieces` only when needed.
    pub fn evaluate_untimed(
        &mut self,
        p: &FleetProblem,
        v: usize,
        pieces: &[Piece],
    ) -> Option<RouteEval> {
        self.evaluate_parts(p, v, pieces, false, allowed_warp(p))
    }

    /// Whether vehicle v's lateness comes apart from the rest of its pricing
    /// (soft deadlines, neither breaks nor several windows: `evaluate_untimed`).
    pub fn lateness_apart(p: &FleetProblem, v: usize) -> bool {
        p.has_deadlines && !p.breaks_of(v) && !p.multi_windows
    }

    fn evaluate_parts(
        &mut self,
        p: &FleetProblem,
        v: usize,
        pieces: &[Piece],
        with_lateness: bool,
        max_warp: i64,
    ) -> Option<RouteEval> {
        let dims = p.dims;
        let mut load = [0i64; MAX_DIMS];
        let mut lseg = LoadSeg::EMPTY;
        let mut count = 0usize;
        let mut seg: Option<TwSegment> = None;
        let mut distance = 0i64;
        let mut last_loc = p.vehicles[v].start;
        for pc in pieces {
            match *pc {
                Piece::Prefix(r, k) => {
                    debug_assert!(seg.is_none() && r == v);
                    let route = &self.routes[r];
                    seg = Some(route.fwd[k]);
                    distance = route.dfwd[k];
                    if k > 0 {
                        last_loc = route.loc(k - 1);
                    }
                    if p.profile {
                        lseg = route.lfwd[k];
                    } else {
                        for d in 0..dims {
                            load[d] = route.load[k * dims + d];
                        }
                    }
                    count = k;
                    // the prefix stays on its own vehicle: its jobs were checked when built
                }
                Piece::Suffix(r, k) => {
                    let route = &self.routes[r];
                    let n = route.len();
                    if k >= n {
                        continue;
                    }
                    let first = route.loc(k);
                    distance += p.d(last_loc, first) + route.dbwd[k];
                    last_loc = route.loc(n - 1);
                    seg = Some(seg.expect("prefix first").then(&route.bwd[k], p));
                    if p.profile {
                        lseg = lseg.then(&route.lbwd[k], dims);
                    } else {
                        for d in 0..dims {
                            load[d] += route.load[n * dims + d] - route.load[k * dims + d];
                        }
                    }
                    count += n - k;
                }
                Piece::Range(r, a, b) | Piece::Reversed(r, a, b) => {
                    let route = &self.routes[r];
                    let reversed = matches!(*pc, Piece::Reversed(..));
                    for i in 0..b.saturating_sub(a) {
                        let kk = if reversed { b - 1 - i } else { a + i };
                        let j = route.jobs[kk] as usize;
                        let loc = p.jobs[j].loc;
                        distance += p.d(last_loc, loc);
                        last_loc = loc;
                        seg = Some(seg.expect("prefix first").then(&job_segment(p, j), p));
                        if p.profile {
                            lseg = lseg.then(&LoadSeg::job(p, j), dims);
                        }
                    }
                    if !p.profile {
                        for d in 0..dims {
                            load[d] += route.load[b * dims + d] - route.load[a * dims + d];
                        }
                    }
                    count += b - a;
                }
                Piece::Job(j) => {
                    let j = j as usize;
                    let loc = p.jobs[j].loc;
                    distance += p.d(last_loc, loc);
                    last_loc = loc;
                    seg = Some(seg.expect("prefix first").then(&job_segment(p, j), p));
                    if p.profile {
                        lseg = lseg.then(&LoadSeg::job(p, j), dims);
                    } else {
                        for d in 0..dims {
                            load[d] += p.demand[j * dims + d];
                        }
                    }
                    count += 1;
                }
            }
            if let Some(s) = &seg {
                if s.time_warp > max_warp {
                    return None;
                }
            }
        }
        if count == 0 {
            return Some(RouteEval::default());
        }
        if count > p.vehicles[v].max_stops || !self.pieces_allowed(p, v, pieces) {
            return None;
        }
        let cap = p.vehicle_capacity(v);
        if p.profile {
            if !lseg.fits(cap) {
                return None;
            }
        } else {
            for d in 0..dims {
                if load[d] > cap[d] {
                    return None;
                }
            }
        }
        let full = seg.expect("prefix first").then(&end_segment(p, v), p);
        if full.time_warp > max_warp || !full.reachable() {
            return None;
        }
        if (p.driving_limited || p.distance_limited) && !self.within_limits(p, v, pieces) {
            return None;
        }
        if p.has_pairs && !self.pairs_hold(p, pieces) {
            return None;
        }
        distance += p.d(last_loc, p.vehicles[v].end);
        let mut duration = full.duration;
        let lateness = if p.breaks_of(v) || p.multi_windows {
            // the segments were a bound (they ignore breaks and bridge a job's
            // windows); the exact schedule decides
            let (d, late) = crate::fleet::windows::price_pieces(self, p, v, pieces)?;
            duration = d;
            late
        } else if p.has_deadlines && with_lateness {
            self.lateness_of_pieces(p, v, pieces)
        } else {
            0
        };
        #[cfg(debug_assertions)]
        if with_lateness {
            let mut buf = std::mem::take(&mut self.scratch);
            self.materialize(pieces, &mut buf);
            debug_assert_eq!(lateness, lateness_of(p, v, &buf));
            self.scratch = buf;
        }
        #[cfg(debug_assertions)]
        if p.multi_windows || p.breaks_of(v) {
            let mut buf = std::mem::take(&mut self.scratch);
            self.materialize(pieces, &mut buf);
            debug_assert_eq!(
                duration,
                schedule_of(p, v, &buf).1 - p.vehicles[v].shift_start
            );
            debug_assert!(route_violation(p, v, &buf).is_none());
            self.scratch = buf;
        }
        Some(RouteEval {
            vehicle: v,
            count,
            duration,
            distance,
            lateness,
            warp: full.time_warp,
        })
    }

    /// Every shipment of the route made of `pieces` is whole, pickup first
    /// (O(route length): the jobs are laid out and each delivery must follow
    /// its pickup; as many deliveries as pickups then means none is missing).
    pub(crate) fn pairs_hold(&mut self, p: &FleetProblem, pieces: &[Piece]) -> bool {
        let mut buf = std::mem::take(&mut self.pair_buf);
        self.materialize(pieces, &mut buf);
        let ok = self.pairs_hold_in(p, &buf);
        self.pair_buf = buf;
        ok
    }

    fn pairs_hold_in(&mut self, p: &FleetProblem, jobs: &[u32]) -> bool {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.seen.iter_mut().for_each(|g| *g = 0);
            self.generation = 1;
        }
        let mut open = 0i64;
        for &j in jobs {
            match p.role[j as usize] {
                Role::Plain => {}
                Role::Pickup => {
                    self.seen[j as usize] = self.generation;
                    open += 1;
                }
                Role::Delivery => {
                    if self.seen[p.pair[j as usize] as usize] != self.generation {
                        return false;
                    }
                    open -= 1;
                }
            }
        }
        open == 0
    }

    /// Lateness of the route made of `pieces`: the prefix's from its sums,
    /// single jobs and ranges simulated, a suffix followed only until a start
    /// equals the one it has in its own route (then its suffix sum).
    pub(crate) fn lateness_of_pieces(&self, p: &FleetProblem, v: usize, pieces: &[Piece]) -> i64 {
        let veh = &p.vehicles[v];
        let mut late = 0i64;
        let mut loc = veh.start;
        let mut dep = veh.shift_start;
        let visit = |j: usize, loc: &mut usize, dep: &mut i64, late: &mut i64| -> i64 {
            let job = &p.jobs[j];
            let t = p.start_at(j, *dep + p.t(*loc, job.loc));
            *late += (t - job.deadline).max(0);
            *dep = t + job.service;
            *loc = job.loc;
            t
        };
        for pc in pieces {
            match *pc {
                Piece::Prefix(r, k) => {
                    let route = &self.routes[r];
                    late = route.late_pre[k];
                    if k > 0 {
                        let j = route.jobs[k - 1] as usize;
                        loc = p.jobs[j].loc;
                        dep = route.starts[k - 1] + p.jobs[j].service;
                    }
                }
                Piece::Suffix(r, k) => {
                    let route = &self.routes[r];
                    let n = route.len();
                    for kk in k..n {
                        let t = visit(route.jobs[kk] as usize, &mut loc, &mut dep, &mut late);
                        if t == route.starts[kk] && !p.breaks_of(r) {
                            // the rest runs exactly as in route r
                            late += route.late_pre[n] - route.late_pre[kk + 1];
                            let last = route.jobs[n - 1] as usize;
                            loc = p.jobs[last].loc;
                            dep = route.starts[n - 1] + p.jobs[last].service;
                            break;
                        }
                    }
                }
                Piece::Range(r, a, b) => {
                    for kk in a..b {
                        visit(
                            self.routes[r].jobs[kk] as usize,
                            &mut loc,
                            &mut dep,
                            &mut late,
                        );
                    }
                }
                Piece::Reversed(r, a, b) => {
                    for kk in (a..b).rev() {
                        visit(
                            self.routes[r].jobs[kk] as usize,
                            &mut loc,
                            &mut dep,
                            &mut late,
                        );
                    }
                }
                Piece::Job(j) => {
                    visit(j as usize, &mut loc, &mut dep, &mut late);
                }
            }
        }
        late
    }
}

/// The time warp a priced route may have: none with hard windows, any while they are soft.
#[inline(always)]
fn allowed_warp(p: &FleetProblem) -> i64 {
    if p.windows_soft() {
        i64::MAX
    } else {
        0
    }
}
