//! One vehicle's route and its caches (segments, distances, loads, allowed
//! vehicles, schedule), recomputed by `update` after its jobs change.

use super::cost::{FleetCost, RouteEval};
use super::schedule::{end_segment, job_segment, prefix_sums, start_segment};
use crate::fleet::load::LoadSeg;
use crate::fleet::model::{FleetProblem, NO_LIMIT};
use crate::fleet::segment::TwSegment;

#[derive(Clone, Debug)]
pub struct Route {
    pub vehicle: usize,
    pub jobs: Vec<u32>,
    /// locs[k]: the location of jobs[k], beside the jobs so that pricing a
    /// move reads it without a trip through the problem's job table.
    pub(crate) locs: Vec<u32>,
    /// fwd[k]: the start and jobs[0..k].
    pub(crate) fwd: Vec<TwSegment>,
    /// bwd[k]: jobs[k..] (k < len).
    pub(crate) bwd: Vec<TwSegment>,
    /// bwd_end[k]: jobs[k..] then the vehicle's end (k <= len), the tail of
    /// every insertion before k.
    pub(crate) bwd_end: Vec<TwSegment>,
    /// Only when the load varies along routes (`FleetProblem::profile`):
    /// lfwd[k], the load segment of jobs[0..k]; lbwd[k], of jobs[k..] (k <= len).
    pub(crate) lfwd: Vec<LoadSeg>,
    pub(crate) lbwd: Vec<LoadSeg>,
    /// Distance from the start through jobs[k-1].
    pub(super) dfwd: Vec<i64>,
    /// Distance from jobs[k] through the last job.
    pub(super) dbwd: Vec<i64>,
    /// wait_fwd[k], wait_bwd[k]: the waiting inside fwd[k] and bwd[k] (their
    /// duration less travel and service; wait_bwd[len] = 0), only when the
    /// objective weighs durations (empty otherwise). A route that keeps one of
    /// these runs whole waits at least as long: joining runs only adds waits
    /// (`operators::main_bound`, `operators::Gate`).
    pub(super) wait_fwd: Vec<i64>,
    pub(super) wait_bwd: Vec<i64>,
    /// drev[k]: the distance of jobs[0..k] walked backwards, from jobs[k - 1]
    /// to jobs[0] (a reversed run's, `run_distance_reversed`: the matrix may
    /// differ each way).
    pub(super) drev: Vec<i64>,
    /// load[k * dims + d]: demand of jobs[0..k].
    pub(super) load: Vec<i64>,
    /// Row k (p.allowed_words u64 words): the vehicles allowed for every job
    /// of jobs[k..] (k = len: all ones); empty when the problem is unrestricted.
    pub(super) allowed_bwd: Vec<u64>,
    /// Service start of jobs[k] (earliest schedule).
    pub(crate) starts: Vec<i64>,
    /// late_pre[k]: lateness of jobs[0..k].
    pub(crate) late_pre: Vec<i64>,
    /// Only with soft deadlines: slack_bwd[k], the largest push of jobs[k]'s
    /// start that adds no lateness to jobs[k..] (NO_LIMIT at len): each job's
    /// room before its deadline (none once late), the waits on the way
    /// absorbing the push (exact on routes without breaks or several windows).
    pub(super) slack_bwd: Vec<i64>,
    /// Only with soft deadlines or durations weighed: arc_in[k], the travel
    /// time into jobs[k] from the stop before it (the start for k = 0), so
    /// that following a push, or finding the waits, reads no matrix.
    pub(super) arc_in: Vec<i64>,
    /// Only when the vehicle has breaks: brk_next[k], how many of its breaks
    /// are taken by the end of jobs[k-1]'s service (k = 0..=len).
    pub(crate) brk_next: Vec<u32>,
    /// Only when some job has several windows (`FleetProblem::multi_windows`):
    /// latest[k], the latest arrival at jobs[k] after which jobs[k..] can
    /// still all start inside a window (the vehicle's end not included).
    pub(crate) latest: Vec<i64>,
    /// Only when some vehicle has a max_driving (max_distance): the travel
    /// time (limit distance) from the start through jobs[k-1], and the route's total.
    pub(crate) drive_pre: Vec<i64>,
    pub(crate) ldist_pre: Vec<i64>,
    pub(crate) drive_total: i64,
    pub(crate) ldist_total: i64,
    /// The service time of its jobs.
    pub(crate) service_total: i64,
    /// Windows, shift and route limits hold (removing jobs can break them
    /// on a matrix without the triangle inequality).
    pub time_feasible: bool,
    pub eval: RouteEval,
}

impl Route {
    pub fn new(p: &FleetProblem, vehicle: usize) -> Route {
        let mut r = Route {
            vehicle,
            jobs: Vec::new(),
            locs: Vec::new(),
            fwd: Vec::new(),
            bwd: Vec::new(),
            bwd_end: Vec::new(),
            lfwd: Vec::new(),
            lbwd: Vec::new(),
            dfwd: Vec::new(),
            dbwd: Vec::new(),
            wait_fwd: Vec::new(),
            wait_bwd: Vec::new(),
            drev: Vec::new(),
            load: Vec::new(),
            allowed_bwd: Vec::new(),
            starts: Vec::new(),
            late_pre: Vec::new(),
            slack_bwd: Vec::new(),
            arc_in: Vec::new(),
            brk_next: Vec::new(),
            latest: Vec::new(),
            drive_pre: Vec::new(),
            ldist_pre: Vec::new(),
            drive_total: 0,
            ldist_total: 0,
            service_total: 0,
            time_feasible: true,
            eval: RouteEval::default(),
        };
        r.update(p);
        r
    }

    pub fn len(&self) -> usize {
        self.jobs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.jobs.is_empty()
    }

    /// The waiting inside jobs[..k] from the vehicle's start: every route
    /// that keeps that run whole waits at least as long (objectives that
    /// weigh durations only).
    #[inline(always)]
    pub(crate) fn waits_before(&self, k: usize) -> i64 {
        self.wait_fwd[k]
    }

    /// The waiting inside jobs[k..] (0 from the end on), kept likewise.
    #[inline(always)]
    pub(crate) fn waits_from(&self, k: usize) -> i64 {
        self.wait_bwd[k.min(self.len())]
    }

    /// The time warp inside jobs[..k] from the vehicle's start: every route
    /// that keeps that run whole has at least that much (soft windows).
    #[inline(always)]
    pub(crate) fn warp_before(&self, k: usize) -> i64 {
        self.fwd[k.min(self.len())].time_warp
    }

    /// The time warp inside jobs[k..] (0 from the end on), kept likewise.
    #[inline(always)]
    pub(crate) fn warp_from(&self, k: usize) -> i64 {
        if k < self.len() {
            self.bwd[k].time_warp
        } else {
            0
        }
    }

    /// `wait_fwd` and `wait_bwd` from the segments (after `fwd` and `bwd`).
    fn update_waits(&mut self, p: &FleetProblem) {
        self.wait_fwd.clear();
        self.wait_bwd.clear();
        if p.duration_free() {
            return;
        }
        let n = self.jobs.len();
        // a segment joined with a visit lasts the two, the travel between them and the wait
        self.wait_fwd.push(0);
        for k in 0..n {
            let service = p.jobs[self.jobs[k] as usize].service;
            let wait = self.fwd[k + 1].duration - self.fwd[k].duration - self.arc_in[k] - service;
            self.wait_fwd.push(self.wait_fwd[k] + wait);
        }
        self.wait_bwd.resize(n + 1, 0);
        for k in (0..n.saturating_sub(1)).rev() {
            let service = p.jobs[self.jobs[k] as usize].service;
            let wait =
                self.bwd[k].duration - service - self.arc_in[k + 1] - self.bwd[k + 1].duration;
            self.wait_bwd[k] = self.wait_bwd[k + 1] + wait;
        }
    }

    /// Recompute the caches after `jobs` changed (O(len)).
    pub fn update(&mut self, p: &FleetProblem) {
        self.update_keeping(p, 0, 0);
    }

    /// `update` after a change of the middle of the route: jobs[..front]
    /// and its last `back` jobs are the first `front` and the last `back` of
    /// the jobs it had at its last update, in the same order. Their prefix
    /// caches (segments, distances, loads) and suffix caches (segments,
    /// distances, moved to their new positions) are kept instead of joined
    /// again; the schedule and everything else is recomputed. Routes with
    /// breaks or several windows recompute everything.
    pub fn update_keeping(&mut self, p: &FleetProblem, front: usize, back: usize) {
        let n = self.jobs.len();
        let n_old = self.locs.len();
        let with_breaks = p.breaks_of(self.vehicle);
        let (front, back) = if with_breaks || p.multi_windows {
            (0, 0)
        } else {
            (front, back)
        };
        debug_assert!(front + back <= n.min(n_old));
        let dims = p.dims;
        let v = &p.vehicles[self.vehicle];
        self.locs.clear();
        self.locs
            .extend(self.jobs.iter().map(|&j| p.jobs[j as usize].loc as u32));
        let (mut prev, mut clock) = if front == 0 {
            self.fwd.clear();
            self.fwd.push(start_segment(p, self.vehicle));
            self.dfwd.clear();
            self.dfwd.push(0);
            self.drev.clear();
            self.drev.push(0);
            self.load.clear();
            self.late_pre.clear();
            self.late_pre.push(0);
            (v.start, v.shift_start)
        } else {
            self.fwd.truncate(front + 1);
            self.dfwd.truncate(front + 1);
            self.drev.truncate(front + 1);
            self.load.truncate((front + 1) * dims);
            self.late_pre.truncate(front + 1);
            let last = &p.jobs[self.jobs[front - 1] as usize];
            (last.loc, self.starts[front - 1] + last.service)
        };
        self.load.resize((n + 1) * dims, 0);
        self.starts.truncate(front);
        let mut broken = crate::fleet::breaks::Outcome {
            back: 0,
            arrival: 0,
            late: 0,
            ok: true,
        };
        self.brk_next.clear();
        if with_breaks {
            let starts = &mut self.starts;
            let brk_next = &mut self.brk_next;
            brk_next.push(0);
            broken = crate::fleet::breaks::run(
                p,
                self.vehicle,
                self.jobs.iter().map(|&j| j as usize),
                false,
                |_, s, next| {
                    starts.push(s);
                    brk_next.push(next as u32);
                },
                None,
            );
        }
        self.arc_in.truncate(front);
        let keep_arcs = p.has_deadlines || !p.duration_free();
        for k in front..n {
            let j = self.jobs[k] as usize;
            let arc = p.t(prev, p.jobs[j].loc);
            if keep_arcs {
                self.arc_in.push(arc);
            }
            clock = if with_breaks {
                self.starts[k]
            } else {
                p.start_at(j, clock + arc)
            };
            if !with_breaks {
                self.starts.push(clock);
            }
            self.late_pre
                .push(self.late_pre[k] + (clock - p.jobs[j].deadline).max(0));
            clock += p.jobs[j].service;
            let s = self.fwd[k].then(&job_segment(p, j), p);
            self.fwd.push(s);
            self.dfwd.push(self.dfwd[k] + p.d(prev, p.jobs[j].loc));
            let back = if k == 0 { 0 } else { p.d(p.jobs[j].loc, prev) };
            self.drev.push(self.drev[k] + back);
            prev = p.jobs[j].loc;
            for d in 0..dims {
                self.load[(k + 1) * dims + d] = self.load[k * dims + d] + p.demand[j * dims + d];
            }
        }
        self.slack_bwd.clear();
        if p.has_deadlines {
            self.slack_bwd.resize(n + 1, NO_LIMIT);
            for k in (0..n).rev() {
                let job = &p.jobs[self.jobs[k] as usize];
                let room = (job.deadline - self.starts[k]).max(0);
                // a push of jobs[k] reaches jobs[k + 1] less the wait before it
                let onward = if k + 1 < n {
                    let arrival = self.starts[k] + job.service + self.arc_in[k + 1];
                    (self.starts[k + 1] - arrival).saturating_add(self.slack_bwd[k + 1])
                } else {
                    NO_LIMIT
                };
                self.slack_bwd[k] = room.min(onward);
            }
        }
        let end = end_segment(p, self.vehicle);
        if back == 0 {
            self.bwd.clear();
            self.bwd.resize(n, TwSegment::visit(0, 0, 0, 0));
            self.dbwd.clear();
            self.dbwd.resize(n + 1, 0);
            self.bwd_end.clear();
            self.bwd_end.resize(n + 1, end);
        } else {
            let none = TwSegment::visit(0, 0, 0, 0);
            keep_tail(&mut self.bwd, n_old, n, back, none);
            keep_tail(&mut self.dbwd, n_old + 1, n + 1, back + 1, 0);
            keep_tail(&mut self.bwd_end, n_old + 1, n + 1, back + 1, end);
        }
        for k in (0..n - back).rev() {
            let j = self.jobs[k] as usize;
            let js = job_segment(p, j);
            self.bwd[k] = if k + 1 < n {
                js.then(&self.bwd[k + 1], p)
            } else {
                js
            };
            self.dbwd[k] = if k + 1 < n {
                p.d(p.jobs[j].loc, p.jobs[self.jobs[k + 1] as usize].loc) + self.dbwd[k + 1]
            } else {
                0
            };
        }
        self.update_waits(p);
        for k in 0..n - back {
            self.bwd_end[k] = self.bwd[k].then(&end, p);
        }
        if p.profile {
            self.lfwd.clear();
            self.lfwd.push(LoadSeg::EMPTY);
            for k in 0..n {
                let s = self.lfwd[k].then(&LoadSeg::job(p, self.jobs[k] as usize), dims);
                self.lfwd.push(s);
            }
            self.lbwd.clear();
            self.lbwd.resize(n + 1, LoadSeg::EMPTY);
            for k in (0..n).rev() {
                self.lbwd[k] = LoadSeg::job(p, self.jobs[k] as usize).then(&self.lbwd[k + 1], dims);
            }
        }
        self.allowed_bwd.clear();
        if p.restricted() {
            let w = p.allowed_words;
            self.allowed_bwd.resize((n + 1) * w, u64::MAX);
            for k in (0..n).rev() {
                let row = p.allowed_row(self.jobs[k] as usize).expect("restricted");
                let (here, after) = self.allowed_bwd[k * w..(k + 2) * w].split_at_mut(w);
                for i in 0..w {
                    here[i] = after[i] & row[i];
                }
            }
        }
        self.service_total = self.jobs.iter().map(|&j| p.jobs[j as usize].service).sum();
        self.time_feasible = true;
        self.eval = if n == 0 {
            RouteEval::default()
        } else {
            let full = self.fwd[n].then(&end_segment(p, self.vehicle), p);
            let mut duration = full.duration;
            self.time_feasible = full.feasible();
            if p.multi_windows {
                // the segments only bound a schedule with several windows: the exact one
                let (back, feasible) =
                    crate::fleet::windows::route_end(p, self.vehicle, &self.jobs, &self.starts);
                duration = back - v.shift_start;
                self.time_feasible = self.time_feasible && feasible;
            }
            if with_breaks {
                duration = broken.back - v.shift_start;
                self.time_feasible = self.time_feasible && broken.ok;
            }
            RouteEval {
                vehicle: self.vehicle,
                count: n,
                duration,
                distance: self.dfwd[n] + p.d(prev, v.end),
                lateness: self.late_pre[n],
                warp: full.time_warp,
            }
        };
        if p.multi_windows {
            crate::fleet::windows::latest_arrivals(p, &self.jobs, &mut self.latest);
        }
        if p.driving_limited {
            self.drive_total = prefix_sums(
                p,
                self.vehicle,
                &self.jobs,
                &mut self.drive_pre,
                FleetProblem::t,
            );
        }
        if p.distance_limited {
            self.ldist_total = prefix_sums(
                p,
                self.vehicle,
                &self.jobs,
                &mut self.ldist_pre,
                FleetProblem::ld,
            );
        }
        // removing a job can lengthen a route on a matrix without the triangle inequality
        let veh = &p.vehicles[self.vehicle];
        self.time_feasible &=
            self.drive_total <= veh.max_driving && self.ldist_total <= veh.max_distance;
        #[cfg(debug_assertions)]
        if front + back > 0 {
            self.check_kept_caches(p);
        }
    }

    /// The caches `update_keeping` kept are those a whole update computes.
    #[cfg(debug_assertions)]
    fn check_kept_caches(&self, p: &FleetProblem) {
        let mut fresh = self.clone();
        fresh.update(p);
        assert_eq!(fresh.fwd, self.fwd, "fwd");
        assert_eq!(fresh.bwd, self.bwd, "bwd");
        assert_eq!(fresh.bwd_end, self.bwd_end, "bwd_end");
        assert_eq!(fresh.dfwd, self.dfwd, "dfwd");
        assert_eq!(fresh.dbwd, self.dbwd, "dbwd");
        assert_eq!(fresh.drev, self.drev, "drev");
        assert_eq!(fresh.load, self.load, "load");
        assert_eq!(fresh.starts, self.starts, "starts");
        assert_eq!(fresh.late_pre, self.late_pre, "late_pre");
        assert_eq!(fresh.arc_in, self.arc_in, "arc_in");
        assert_eq!(fresh.slack_bwd, self.slack_bwd, "slack_bwd");
        assert_eq!(fresh.wait_fwd, self.wait_fwd, "wait_fwd");
        assert_eq!(fresh.wait_bwd, self.wait_bwd, "wait_bwd");
        assert_eq!(fresh.eval, self.eval, "eval");
        assert_eq!(fresh.time_feasible, self.time_feasible, "time_feasible");
    }

    pub fn cost(&self, p: &FleetProblem) -> FleetCost {
        self.eval.cost(p)
    }

    /// Total demand of the route in dimension d.
    #[inline(always)]
    pub fn total_load(&self, p: &FleetProblem, d: usize) -> i64 {
        self.load[self.jobs.len() * p.dims + d]
    }

    /// The price `price_insertion` starts from: one more job, this duration
    /// and distance, the route's lateness as it is.
    #[inline(always)]
    pub(crate) fn insertion_bound(
        &self,
        p: &FleetProblem,
        duration: i64,
        distance: i64,
        old: FleetCost,
    ) -> FleetCost {
        self.insertion_change(p, duration, distance, 0, old)
    }

    /// The cost change of an insertion that makes the route take `duration`
    /// and `distance` with a time warp of `warp` (soft windows; no soft
    /// deadlines: the lateness stays the route's).
    pub(crate) fn insertion_change(
        &self,
        p: &FleetProblem,
        duration: i64,
        distance: i64,
        warp: i64,
        old: FleetCost,
    ) -> FleetCost {
        RouteEval {
            vehicle: self.vehicle,
            count: self.len() + 1,
            duration,
            distance,
            lateness: self.eval.lateness,
            warp,
        }
        .cost(p)
        .minus(old)
    }

    /// The cost change of inserting job j before position k, the new route
    /// taking `duration` and `distance` (single windows, no breaks: the
    /// segments' duration is exact); `Priced::Loses` when it cannot beat
    /// `best`; `Priced::Later` when `follow` is false and only following the
    /// push along the route (O(route)) would tell. The lateness change is j's
    /// own plus the push it gives the jobs after it: none when the push fits
    /// the suffix's slack, else followed until a start is unchanged (from
    /// there on the schedule is the same). It never goes below 0 (but where
    /// starts move earlier), so it is priced only where the position could
    /// win without it; and a push beyond the slack adds at least 1, so such a
    /// position loses to a best that is less late without following the
    /// push. Routes without breaks only.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(crate) fn price_insertion(
        &self,
        p: &FleetProblem,
        j: usize,
        k: usize,
        duration: i64,
        distance: i64,
        old: FleetCost,
        best: Option<FleetCost>,
        follow: bool,
    ) -> Priced {
        let bound = self.insertion_bound(p, duration, distance, old);
        if best.map_or(false, |b| bound >= b) {
            return Priced::Loses;
        }
        if !p.has_deadlines {
            return Priced::Cost(bound);
        }
        // the change is the delta's lateness: above the best's, the position loses
        let (own, push) = self.own_and_push(p, j, k);
        let change = match self.known_change(p, k, own, push) {
            LatenessChange::Exact(c) => c,
            LatenessChange::AtLeast(c) if best.map_or(false, |b| c > b.lateness) => {
                return Priced::Loses
            }
            LatenessChange::AtLeast(_) if !follow => return Priced::Later,
            _ => own + self.pushed_lateness(p, k, push),
        };
        // the lateness weighs before `main` and does not change it
        Priced::Cost(FleetCost {
            lateness: bound.lateness + change,
            ..bound
        })
    }

    /// Position k offered to an insertion scan whose best is `best` (cost,
    /// position): kept when it beats the best (a tie goes to the lower
    /// position). Without `follow` a position whose price needs the push
    /// followed along the route is left: true then, to offer it again with
    /// `follow` once the scan's best is known (against a best that is on time
    /// it loses without following the push).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(crate) fn offer_insertion(
        &self,
        p: &FleetProblem,
        j: usize,
        k: usize,
        duration: i64,
        distance: i64,
        old: FleetCost,
        best: &mut Option<(FleetCost, usize)>,
        follow: bool,
    ) -> bool {
        let priced =
            self.price_insertion(p, j, k, duration, distance, old, best.map(|b| b.0), follow);
        match priced {
            Priced::Cost(delta) if best.map_or(true, |b| (delta, k) < b) => {
                *best = Some((delta, k));
                false
            }
            Priced::Later => true,
            _ => false,
        }
    }

    /// The lateness change as far as it is known without following the push.
    #[inline(always)]
    fn known_change(&self, p: &FleetProblem, k: usize, own: i64, push: i64) -> LatenessChange {
        if push < 0 {
            // earlier starts (a matrix without the triangle inequality) may cut the lateness
            LatenessChange::Unknown
        } else if push <= self.slack_bwd[k] {
            debug_assert!(push == 0 || self.pushed_lateness(p, k, push) == 0);
            LatenessChange::Exact(own)
        } else {
            // beyond the slack some job gains at least 1
            LatenessChange::AtLeast(own + 1)
        }
    }

    /// Job j inserted before position k: its own lateness, and the push of
    /// jobs[k]'s start (0 at the end of the route).
    #[inline(always)]
    fn own_and_push(&self, p: &FleetProblem, j: usize, k: usize) -> (i64, i64) {
        debug_assert!(!p.breaks_of(self.vehicle) && !p.multi_windows);
        let veh = &p.vehicles[self.vehicle];
        let (loc, dep) = if k == 0 {
            (veh.start, veh.shift_start)
        } else {
            let i = self.jobs[k - 1] as usize;
            (p.jobs[i].loc, self.starts[k - 1] + p.jobs[i].service)
        };
        let job = &p.jobs[j];
        let t = p.start_at(j, dep + p.t(loc, job.loc));
        let own = (t - job.deadline).max(0);
        let push = if k < self.jobs.len() {
            let next = self.jobs[k] as usize;
            p.start_at(next, t + job.service + p.t(job.loc, p.jobs[next].loc)) - self.starts[k]
        } else {
            0
        };
        (own, push)
    }

    /// The lateness jobs[k..] gain when jobs[k]'s start moves by `push`,
    /// followed until a start is unchanged.
    fn pushed_lateness(&self, p: &FleetProblem, k: usize, push: i64) -> i64 {
        let mut change = 0;
        let mut dep = 0;
        for kk in k..self.jobs.len() {
            let i = self.jobs[kk] as usize;
            let next = &p.jobs[i];
            let t = if kk == k {
                self.starts[k] + push
            } else {
                p.start_at(i, dep + self.arc_in[kk])
            };
            if t == self.starts[kk] {
                break;
            }
            change += (t - next.deadline).max(0) - (self.starts[kk] - next.deadline).max(0);
            dep = t + next.service;
        }
        change
    }

    /// The route's distance with a visit to `loc` before position k.
    #[inline(always)]
    pub(crate) fn distance_with(&self, p: &FleetProblem, k: usize, loc: usize) -> i64 {
        self.total_with(p, k, loc, self.eval.distance, FleetProblem::d)
    }

    /// A sum over the route's arcs (`total` of the route as it is, each arc
    /// read by `arc`: distance, travel time, limit distance) with a visit to
    /// `loc` before position k.
    #[inline(always)]
    pub(crate) fn total_with(
        &self,
        p: &FleetProblem,
        k: usize,
        loc: usize,
        total: i64,
        arc: fn(&FleetProblem, usize, usize) -> i64,
    ) -> i64 {
        let veh = &p.vehicles[self.vehicle];
        let n = self.len();
        let prev = if k == 0 { veh.start } else { self.loc(k - 1) };
        let next = if k == n { veh.end } else { self.loc(k) };
        let base = if n == 0 {
            arc(p, veh.start, veh.end)
        } else {
            total
        };
        base + arc(p, prev, loc) + arc(p, loc, next) - arc(p, prev, next)
    }

    /// Location of jobs[k].
    #[inline(always)]
    pub(crate) fn loc(&self, k: usize) -> usize {
        self.locs[k] as usize
    }

    /// The distance along jobs[s..e] (s < e), from jobs[s] to jobs[e - 1].
    #[inline(always)]
    pub(crate) fn run_distance(&self, s: usize, e: usize) -> i64 {
        self.dfwd[e] - self.dfwd[s + 1]
    }

    /// The distance along jobs[s..e] (s < e) walked backwards, from jobs[e - 1]
    /// to jobs[s].
    #[inline(always)]
    pub(crate) fn run_distance_reversed(&self, s: usize, e: usize) -> i64 {
        self.drev[e] - self.drev[s + 1]
    }
}

/// An insertion priced against the best so far (`Route::price_insertion`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Priced {
    Cost(FleetCost),
    /// It cannot beat the best.
    Loses,
    /// Its lateness needs the push followed along the route.
    Later,
}

impl Priced {
    /// The cost change, when it may beat the best (the push followed; the
    /// debug checks of `best_insertion`).
    #[cfg(debug_assertions)]
    pub(crate) fn cost(self) -> Option<FleetCost> {
        match self {
            Priced::Cost(c) => Some(c),
            _ => None,
        }
    }
}

/// A lateness change as far as it is known without following a push.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LatenessChange {
    Exact(i64),
    /// The push goes beyond the slack: at least this.
    AtLeast(i64),
    /// Starts move earlier: not bounded.
    Unknown,
}

/// `v` holds `old_len` entries whose last `tail` become the last of `new_len`
/// entries (the others are left for the caller to fill).
fn keep_tail<T: Copy>(v: &mut Vec<T>, old_len: usize, new_len: usize, tail: usize, fill: T) {
    debug_assert!(v.len() == old_len && tail <= old_len.min(new_len));
    if new_len >= old_len {
        v.resize(new_len, fill);
        v.copy_within(old_len - tail..old_len, new_len - tail);
    } else {
        v.copy_within(old_len - tail..old_len, new_len - tail);
        v.truncate(new_len);
    }
}
