//! A fleet solution: one route per vehicle (possibly empty) and the
//! unassigned jobs. Each route keeps forward/backward time-window segments,
//! distances, loads and allowed-vehicle sets so that any move made of a few
//! pieces of routes is priced in O(pieces) (`evaluate`), plus a forward pass
//! for the lateness when the problem has soft deadlines.

use super::load::LoadSeg;
use super::model::{has_bit, FleetProblem, Role, MAX_DIMS, NO_LIMIT};
use super::segment::TwSegment;
use crate::schedule::StopTimes;

/// Lexicographic cost: unassigned jobs (weighted by their priorities:
/// `FleetProblem::miss_weight`), lateness, then the weighted rest.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FleetCost {
    pub unassigned: i64,
    pub lateness: i64,
    pub main: i64,
}

impl FleetCost {
    pub const MAX: FleetCost = FleetCost {
        unassigned: i64::MAX,
        lateness: i64::MAX,
        main: i64::MAX,
    };

    pub fn plus(self, o: FleetCost) -> FleetCost {
        FleetCost {
            unassigned: self.unassigned + o.unassigned,
            lateness: self.lateness + o.lateness,
            main: self.main + o.main,
        }
    }

    pub fn minus(self, o: FleetCost) -> FleetCost {
        FleetCost {
            unassigned: self.unassigned - o.unassigned,
            lateness: self.lateness - o.lateness,
            main: self.main - o.main,
        }
    }

    pub const ZERO: FleetCost = FleetCost {
        unassigned: 0,
        lateness: 0,
        main: 0,
    };
}

pub const NONE: u32 = u32::MAX;

/// A piece of a new route, in terms of the current routes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Piece {
    /// The vehicle's start and jobs[0..k] of route r (only for route r itself).
    Prefix(usize, usize),
    /// jobs[k..] of route r.
    Suffix(usize, usize),
    /// jobs[a..b] of route r.
    Range(usize, usize, usize),
    /// One job.
    Job(u32),
}

/// Totals of a feasible route.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct RouteEval {
    /// The vehicle driving it (its costs price it; any when `count` is 0).
    pub vehicle: usize,
    pub count: usize,
    pub duration: i64,
    pub distance: i64,
    pub lateness: i64,
}

impl RouteEval {
    pub fn cost(&self, p: &FleetProblem) -> FleetCost {
        FleetCost {
            unassigned: 0,
            lateness: self.lateness,
            main: p.route_main(self.vehicle, self.count, self.duration, self.distance),
        }
    }
}

#[derive(Clone, Debug)]
pub struct Route {
    pub vehicle: usize,
    pub jobs: Vec<u32>,
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
    dfwd: Vec<i64>,
    /// Distance from jobs[k] through the last job.
    dbwd: Vec<i64>,
    /// load[k * dims + d]: demand of jobs[0..k].
    load: Vec<i64>,
    /// Row k (p.allowed_words u64 words): the vehicles allowed for every job
    /// of jobs[k..] (k = len: all ones); empty when the problem is unrestricted.
    allowed_bwd: Vec<u64>,
    /// Service start of jobs[k] (earliest schedule).
    pub(crate) starts: Vec<i64>,
    /// late_pre[k]: lateness of jobs[0..k].
    pub(crate) late_pre: Vec<i64>,
    /// Only with soft deadlines: slack_bwd[k], the least of deadline − start
    /// over jobs[k..] (NO_LIMIT at len): a push of the starts from k on by at
    /// most this much adds no lateness.
    slack_bwd: Vec<i64>,
    /// Only with soft deadlines: arc_in[k], the travel time into jobs[k] from
    /// the stop before it (the start for k = 0), so that following a push
    /// reads no matrix.
    arc_in: Vec<i64>,
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
            fwd: Vec::new(),
            bwd: Vec::new(),
            bwd_end: Vec::new(),
            lfwd: Vec::new(),
            lbwd: Vec::new(),
            dfwd: Vec::new(),
            dbwd: Vec::new(),
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

    /// Recompute the caches after `jobs` changed (O(len)).
    pub fn update(&mut self, p: &FleetProblem) {
        let n = self.jobs.len();
        let dims = p.dims;
        let v = &p.vehicles[self.vehicle];
        self.fwd.clear();
        self.fwd.push(start_segment(p, self.vehicle));
        self.dfwd.clear();
        self.dfwd.push(0);
        self.load.clear();
        self.load.resize((n + 1) * dims, 0);
        let mut prev = v.start;
        self.starts.clear();
        self.late_pre.clear();
        self.late_pre.push(0);
        let mut clock = v.shift_start;
        let with_breaks = p.breaks_of(self.vehicle);
        let mut broken = super::breaks::Outcome {
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
            broken = super::breaks::run(
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
        for k in 0..n {
            let j = self.jobs[k] as usize;
            clock = if with_breaks {
                self.starts[k]
            } else {
                p.start_at(j, clock + p.t(prev, p.jobs[j].loc))
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
            prev = p.jobs[j].loc;
            for d in 0..dims {
                self.load[(k + 1) * dims + d] = self.load[k * dims + d] + p.demand[j * dims + d];
            }
        }
        self.slack_bwd.clear();
        self.arc_in.clear();
        if p.has_deadlines {
            let mut from = v.start;
            for &j in &self.jobs {
                let loc = p.jobs[j as usize].loc;
                self.arc_in.push(p.t(from, loc));
                from = loc;
            }
            self.slack_bwd.resize(n + 1, NO_LIMIT);
            for k in (0..n).rev() {
                let deadline = p.jobs[self.jobs[k] as usize].deadline;
                self.slack_bwd[k] = self.slack_bwd[k + 1].min(deadline - self.starts[k]);
            }
        }
        self.bwd.clear();
        self.bwd.resize(n, TwSegment::visit(0, 0, 0, 0));
        self.dbwd.clear();
        self.dbwd.resize(n + 1, 0);
        for k in (0..n).rev() {
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
        let end = end_segment(p, self.vehicle);
        self.bwd_end.clear();
        self.bwd_end
            .extend(self.bwd.iter().map(|s| s.then(&end, p)));
        self.bwd_end.push(end);
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
                    super::windows::route_end(p, self.vehicle, &self.jobs, &self.starts);
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
            }
        };
        if p.multi_windows {
            super::windows::latest_arrivals(p, &self.jobs, &mut self.latest);
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
    }

    pub fn cost(&self, p: &FleetProblem) -> FleetCost {
        self.eval.cost(p)
    }

    /// Total demand of the route in dimension d.
    #[inline(always)]
    pub fn total_load(&self, p: &FleetProblem, d: usize) -> i64 {
        self.load[self.jobs.len() * p.dims + d]
    }

    /// Change of the total lateness when job j is inserted before position
    /// k: j's own, plus the push it gives the jobs after it (none when the
    /// push fits the suffix's slack), followed until a start is unchanged
    /// (from there on the schedule is the same). Routes without breaks only.
    pub fn lateness_change(&self, p: &FleetProblem, j: usize, k: usize) -> i64 {
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
        let (loc, dep) = (job.loc, t + job.service);
        if k < self.jobs.len() {
            // the push never grows along the route (waiting only absorbs it): within the
            // suffix's slack it makes nobody late
            let next = self.jobs[k] as usize;
            let push = p.start_at(next, dep + p.t(loc, p.jobs[next].loc)) - self.starts[k];
            if push <= self.slack_bwd[k] {
                debug_assert_eq!(self.pushed_lateness(p, k, loc, dep), 0);
                return own;
            }
        }
        own + self.pushed_lateness(p, k, loc, dep)
    }

    /// The lateness jobs[k..] gain when the vehicle leaves `loc` at `dep`
    /// for jobs[k], followed until a start is unchanged.
    fn pushed_lateness(&self, p: &FleetProblem, k: usize, loc: usize, mut dep: i64) -> i64 {
        let mut change = 0;
        for kk in k..self.jobs.len() {
            let i = self.jobs[kk] as usize;
            let next = &p.jobs[i];
            let travel = if kk == k {
                p.t(loc, next.loc)
            } else {
                self.arc_in[kk]
            };
            let t = p.start_at(i, dep + travel);
            if t == self.starts[kk] {
                break;
            }
            change += (t - next.deadline).max(0) - (self.starts[kk] - next.deadline).max(0);
            dep = t + next.service;
        }
        change
    }

    /// Location of jobs[k].
    #[inline(always)]
    pub(crate) fn loc(&self, p: &FleetProblem, k: usize) -> usize {
        p.jobs[self.jobs[k] as usize].loc
    }
}

/// pre[k] = the arcs from vehicle v's start through jobs[k-1] (k = 0..=len);
/// returns the route's total (0 when empty).
fn prefix_sums(
    p: &FleetProblem,
    v: usize,
    jobs: &[u32],
    pre: &mut Vec<i64>,
    arc: fn(&FleetProblem, usize, usize) -> i64,
) -> i64 {
    let veh = &p.vehicles[v];
    pre.clear();
    pre.push(0);
    let mut at = veh.start;
    for &j in jobs {
        let l = p.jobs[j as usize].loc;
        pre.push(pre[pre.len() - 1] + arc(p, at, l));
        at = l;
    }
    if jobs.is_empty() {
        0
    } else {
        pre[jobs.len()] + arc(p, at, veh.end)
    }
}

/// The sum of `arc` over vehicle v's whole route through `jobs` (start and end included; 0 when empty).
pub fn route_sum(
    p: &FleetProblem,
    v: usize,
    jobs: &[u32],
    arc: fn(&FleetProblem, usize, usize) -> i64,
) -> i64 {
    prefix_sums(p, v, jobs, &mut Vec::new(), arc)
}

pub fn start_segment(p: &FleetProblem, v: usize) -> TwSegment {
    let veh = &p.vehicles[v];
    TwSegment::visit(veh.start, 0, veh.shift_start, veh.shift_start)
}

pub fn end_segment(p: &FleetProblem, v: usize) -> TwSegment {
    let veh = &p.vehicles[v];
    TwSegment::visit(veh.end, 0, 0, veh.shift_end)
}

#[inline(always)]
pub fn job_segment(p: &FleetProblem, j: usize) -> TwSegment {
    let job = &p.jobs[j];
    TwSegment::visit(job.loc, job.service, job.ready, job.due)
}

/// Total lateness of a job sequence for vehicle v (earliest schedule).
pub fn lateness_of(p: &FleetProblem, v: usize, jobs: &[u32]) -> i64 {
    if p.breaks_of(v) {
        let it = jobs.iter().map(|&j| j as usize);
        return super::breaks::run(p, v, it, false, |_, _, _| {}, None).late;
    }
    let veh = &p.vehicles[v];
    let mut t = veh.shift_start;
    let mut loc = veh.start;
    let mut late = 0;
    for &j in jobs {
        let job = &p.jobs[j as usize];
        t = p.start_at(j as usize, t + p.t(loc, job.loc));
        if t > job.deadline {
            late += t - job.deadline;
        }
        t += job.service;
        loc = job.loc;
    }
    late
}

/// Service start times of a job sequence for vehicle v, and the return time.
pub fn schedule_of(p: &FleetProblem, v: usize, jobs: &[u32]) -> (Vec<i64>, i64) {
    let (times, back) = times_of(p, v, jobs);
    (times.iter().map(|t| t.start).collect(), back)
}

/// The reported times of vehicle v's route through `jobs`: per stop
/// (lateness against the deadlines as given), and the return (arrival at the
/// end, or the end of the last service when the route is open).
pub fn times_of(p: &FleetProblem, v: usize, jobs: &[u32]) -> (Vec<StopTimes>, i64) {
    if p.breaks_of(v) {
        let mut stops = Vec::with_capacity(jobs.len());
        let mut k = 0;
        let o = super::breaks::run(
            p,
            v,
            jobs.iter().map(|&j| j as usize),
            false,
            |arrival, start, _| {
                let job = &p.jobs[jobs[k] as usize];
                stops.push(StopTimes::visit(
                    arrival,
                    start,
                    job.service,
                    job.given_deadline,
                ));
                k += 1;
            },
            None,
        );
        return (stops, o.back);
    }
    let veh = &p.vehicles[v];
    let mut t = veh.shift_start;
    let mut loc = veh.start;
    let mut stops = Vec::with_capacity(jobs.len());
    for &j in jobs {
        let job = &p.jobs[j as usize];
        let arrival = t + p.t(loc, job.loc);
        let stop = StopTimes::visit(
            arrival,
            p.start_at(j as usize, arrival),
            job.service,
            job.given_deadline,
        );
        t = stop.departure;
        loc = job.loc;
        stops.push(stop);
    }
    (stops, t + p.t(loc, veh.end))
}

#[derive(Clone, Debug)]
pub struct Solution {
    /// routes[v] belongs to vehicle v.
    pub routes: Vec<Route>,
    pub route_of: Vec<u32>,
    pub pos_of: Vec<u32>,
    pub unassigned: usize,
    /// The sum of the unassigned jobs' `miss_weight` (= `unassigned` without priorities).
    pub missing: i64,
    /// For the debug check of the lateness.
    #[cfg_attr(not(debug_assertions), allow(dead_code))]
    scratch: Vec<u32>,
    /// For the shipment check of a priced route (`pairs_hold`): the jobs, and
    /// per job the generation of the last check that saw its pickup.
    pair_buf: Vec<u32>,
    seen: Vec<u32>,
    generation: u32,
    /// Reused by `best_pair_insertion` and `best_insertion`.
    pub(crate) pair_candidates: Vec<super::pairs::PairCandidate>,
    insert_candidates: Vec<(FleetCost, usize, i64)>,
    pub(crate) pair_passes: super::windows::PairPasses,
}

impl Solution {
    /// All routes empty, every job unassigned.
    pub fn empty(p: &FleetProblem) -> Solution {
        Solution {
            routes: (0..p.vehicles.len()).map(|v| Route::new(p, v)).collect(),
            route_of: vec![NONE; p.n()],
            pos_of: vec![NONE; p.n()],
            unassigned: p.n(),
            missing: (0..p.n()).map(|j| p.miss_weight(j)).sum(),
            scratch: Vec::new(),
            pair_buf: Vec::new(),
            seen: if p.has_pairs {
                vec![0; p.n()]
            } else {
                Vec::new()
            },
            generation: 0,
            pair_candidates: Vec::new(),
            insert_candidates: Vec::new(),
            pair_passes: Default::default(),
        }
    }

    pub fn cost(&self, p: &FleetProblem) -> FleetCost {
        let mut c = FleetCost {
            unassigned: self.missing,
            lateness: 0,
            main: 0,
        };
        for r in &self.routes {
            c = c.plus(r.cost(p));
        }
        c
    }

    pub fn is_assigned(&self, j: usize) -> bool {
        self.route_of[j] != NONE
    }

    /// Route and position of job j; None when it is unassigned.
    pub fn place(&self, j: usize) -> Option<(usize, usize)> {
        if self.route_of[j] == NONE {
            None
        } else {
            Some((self.route_of[j] as usize, self.pos_of[j] as usize))
        }
    }

    /// Replace route r's jobs (positions and the unassigned count follow).
    pub fn set_route(&mut self, p: &FleetProblem, r: usize, jobs: Vec<u32>) {
        for &j in &self.routes[r].jobs {
            if self.route_of[j as usize] == r as u32 {
                self.route_of[j as usize] = NONE;
                self.pos_of[j as usize] = NONE;
                self.unassigned += 1;
                self.missing += p.miss_weight(j as usize);
            }
        }
        self.set_route_from_taken(p, r, jobs);
    }

    /// Materialise pieces into a job list.
    pub fn materialize(&self, pieces: &[Piece], out: &mut Vec<u32>) {
        out.clear();
        for pc in pieces {
            match *pc {
                Piece::Prefix(r, k) => out.extend_from_slice(&self.routes[r].jobs[..k]),
                Piece::Suffix(r, k) => out.extend_from_slice(&self.routes[r].jobs[k..]),
                Piece::Range(r, a, b) => out.extend_from_slice(&self.routes[r].jobs[a..b]),
                Piece::Job(j) => out.push(j),
            }
        }
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
                        loc = route.loc(p, k - 1);
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
            };
            if a >= b {
                continue;
            }
            let route = &self.routes[r];
            // jobs[a]..jobs[b-1] along the route: pre[b] - pre[a + 1]
            sum += arc(p, loc, route.loc(p, a)) + pre(route)[b] - pre(route)[a + 1];
            loc = route.loc(p, b - 1);
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
            Piece::Range(r, a, b) => self.routes[r].jobs[a..b]
                .iter()
                .all(|&j| p.allows(j as usize, v)),
            Piece::Job(j) => p.allows(j as usize, v),
        })
    }

    /// Price the route of vehicle v made of `pieces` (the first one must be
    /// a Prefix of route v). None when infeasible (windows, shift, capacity,
    /// maxStops, allowed vehicles).
    pub fn evaluate(&mut self, p: &FleetProblem, v: usize, pieces: &[Piece]) -> Option<RouteEval> {
        self.evaluate_parts(p, v, pieces, true)
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
        self.evaluate_parts(p, v, pieces, false)
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
                        last_loc = route.loc(p, k - 1);
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
                    let first = route.loc(p, k);
                    distance += p.d(last_loc, first) + route.dbwd[k];
                    last_loc = route.loc(p, n - 1);
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
                Piece::Range(r, a, b) => {
                    let route = &self.routes[r];
                    for kk in a..b {
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
                if s.time_warp > 0 {
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
        if !full.feasible() {
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
            let (d, late) = super::windows::price_pieces(self, p, v, pieces)?;
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
                Piece::Job(j) => {
                    visit(j as usize, &mut loc, &mut dep, &mut late);
                }
            }
        }
        late
    }

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
        self.insert_candidates.clear();
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
            let s = before.then(&js, p);
            if s.time_warp > 0 {
                continue;
            }
            // (segments join associatively: the route's cached tail with its end)
            let full = s.then(&route.bwd_end[k], p);
            if !full.feasible() {
                continue;
            }
            let prev = if k == 0 {
                veh.start
            } else {
                route.loc(p, k - 1)
            };
            let next = if k == n { veh.end } else { route.loc(p, k) };
            let base = if n == 0 {
                p.d(veh.start, veh.end)
            } else {
                route.eval.distance
            };
            let distance = base + p.d(prev, job.loc) + p.d(job.loc, next) - p.d(prev, next);
            if p.driving_limited {
                let base = if n == 0 {
                    p.t(veh.start, veh.end)
                } else {
                    route.drive_total
                };
                if base + p.t(prev, job.loc) + p.t(job.loc, next) - p.t(prev, next)
                    > veh.max_driving
                {
                    continue;
                }
            }
            if p.distance_limited {
                let base = if n == 0 {
                    p.ld(veh.start, veh.end)
                } else {
                    route.ldist_total
                };
                if base + p.ld(prev, job.loc) + p.ld(job.loc, next) - p.ld(prev, next)
                    > veh.max_distance
                {
                    continue;
                }
            }
            let (duration, lateness) = if exact {
                // priced below, cheapest bound first: the segments' duration is a lower
                // bound of the exact one, and the lateness never goes below 0
                let bound = RouteEval {
                    vehicle: v,
                    count: n + 1,
                    duration: full.duration,
                    distance,
                    lateness: 0,
                };
                self.insert_candidates
                    .push((bound.cost(p).minus(old), k, distance));
                continue;
            } else if p.has_deadlines {
                // the lateness change (O(route) to follow the push) never goes below 0:
                // priced only when the position could beat the best without it
                let bound = RouteEval {
                    vehicle: v,
                    count: n + 1,
                    duration: full.duration,
                    distance,
                    lateness: route.eval.lateness,
                };
                if best.map_or(false, |b| bound.cost(p).minus(old) >= b.0) {
                    continue;
                }
                (
                    full.duration,
                    route.eval.lateness + route.lateness_change(p, j, k),
                )
            } else {
                (full.duration, 0)
            };
            let new = RouteEval {
                vehicle: v,
                count: n + 1,
                duration,
                distance,
                lateness,
            }
            .cost(p);
            let delta = new.minus(old);
            if best.map_or(true, |b| delta < b.0) {
                best = Some((delta, k));
            }
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
                if let Some((duration, lateness)) = super::windows::price_insertion(route, p, j, k)
                {
                    let e = RouteEval {
                        vehicle: v,
                        count: n + 1,
                        duration,
                        distance,
                        lateness,
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
        let mut jobs = std::mem::take(&mut self.routes[r].jobs);
        jobs.insert(k, j as u32);
        self.set_route_from_taken(p, r, jobs);
        debug_assert!(self.routes[r].time_feasible);
    }

    /// set_route for a job list taken out of route r (route_of still points
    /// at r for the jobs that stay; a job marked unassigned is counted back).
    fn set_route_from_taken(&mut self, p: &FleetProblem, r: usize, jobs: Vec<u32>) {
        for (k, &j) in jobs.iter().enumerate() {
            if self.route_of[j as usize] == NONE {
                self.unassigned -= 1;
                self.missing -= p.miss_weight(j as usize);
            }
            self.route_of[j as usize] = r as u32;
            self.pos_of[j as usize] = k as u32;
        }
        self.routes[r].jobs = jobs;
        self.routes[r].update(p);
    }

    /// Remove the listed jobs (from whichever routes hold them).
    pub fn remove_jobs(&mut self, p: &FleetProblem, removed: &[u32]) {
        let mut touched: Vec<usize> = Vec::new();
        for &j in removed {
            let r = self.route_of[j as usize];
            if r != NONE {
                self.route_of[j as usize] = NONE;
                self.pos_of[j as usize] = NONE;
                self.unassigned += 1;
                self.missing += p.miss_weight(j as usize);
                if !touched.contains(&(r as usize)) {
                    touched.push(r as usize);
                }
            }
        }
        for r in touched {
            let mut jobs = std::mem::take(&mut self.routes[r].jobs);
            jobs.retain(|&j| self.route_of[j as usize] == r as u32);
            self.set_route_from_taken(p, r, jobs);
            if !self.routes[r].time_feasible {
                // a shortcut broke a window (no triangle inequality): the whole route goes
                self.set_route(p, r, Vec::new());
            }
        }
    }

    /// Check every invariant and that the cached costs equal a recomputation
    /// (debug builds call it after every applied move).
    pub fn check(&self, p: &FleetProblem) -> Result<(), String> {
        let mut seen = vec![false; p.n()];
        let mut unassigned = p.n();
        for (r, route) in self.routes.iter().enumerate() {
            if route.vehicle != r {
                return Err(format!("route {} has vehicle {}", r, route.vehicle));
            }
            for (k, &j) in route.jobs.iter().enumerate() {
                let j = j as usize;
                if seen[j] {
                    return Err(format!("job {} twice", j));
                }
                seen[j] = true;
                unassigned -= 1;
                if self.route_of[j] != r as u32 || self.pos_of[j] != k as u32 {
                    return Err(format!("job {} position cache", j));
                }
            }
            let mut fresh = Route::new(p, r);
            fresh.jobs = route.jobs.clone();
            fresh.update(p);
            if fresh.eval != route.eval {
                return Err(format!(
                    "route {} eval {:?} != {:?}",
                    r, route.eval, fresh.eval
                ));
            }
            if !route.time_feasible {
                return Err(format!("route {} breaks a window", r));
            }
            if let Some(why) = route_violation(p, r, &route.jobs) {
                return Err(format!("route {}: {}", r, why));
            }
        }
        for j in 0..p.n() {
            if !seen[j] && self.route_of[j] != NONE {
                return Err(format!("job {} marked assigned", j));
            }
            if let Some(o) = p.partner(j) {
                if self.route_of[j] != self.route_of[o] {
                    return Err(format!("shipment {}-{} split", j, o));
                }
            }
        }
        let missing: i64 = (0..p.n())
            .filter(|&j| !seen[j])
            .map(|j| p.miss_weight(j))
            .sum();
        if missing != self.missing {
            return Err(format!("missing {} != {}", self.missing, missing));
        }
        if unassigned != self.unassigned {
            return Err(format!("unassigned {} != {}", self.unassigned, unassigned));
        }
        Ok(())
    }
}

/// Why a job sequence is not a feasible route for vehicle v (plain forward
/// simulation, independent of the segment code), or None.
pub fn route_violation(p: &FleetProblem, v: usize, jobs: &[u32]) -> Option<String> {
    if jobs.is_empty() {
        return None;
    }
    let veh = &p.vehicles[v];
    if jobs.len() > veh.max_stops {
        return Some("maxStops".into());
    }
    for &j in jobs {
        if !p.allows(j as usize, v) {
            return Some(format!("job {} not allowed", j));
        }
    }
    if p.has_pairs {
        for (k, &j) in jobs.iter().enumerate() {
            if let Some(o) = p.partner(j as usize) {
                match jobs.iter().position(|&x| x as usize == o) {
                    None => return Some(format!("shipment of job {} split", j)),
                    Some(ko) if (p.role[j as usize] == Role::Pickup) != (k < ko) => {
                        return Some(format!("shipment of job {}: delivery before pickup", j))
                    }
                    _ => {}
                }
            }
        }
    }
    // the load on board at departure and after every visit, counted forward
    let cap = p.vehicle_capacity(v);
    let on_board = super::load::profile_of(p, jobs);
    if on_board.iter().any(|l| (0..p.dims).any(|d| l[d] > cap[d])) {
        return Some("capacity".into());
    }
    let (starts, ret) = schedule_of(p, v, jobs);
    for (k, &j) in jobs.iter().enumerate() {
        if starts[k] > p.jobs[j as usize].due {
            return Some(format!("job {} starts after due", j));
        }
    }
    if ret > veh.given_shift_end || ret - veh.shift_start >= super::model::UNREACHABLE {
        return Some("shift end / unreachable".into());
    }
    if p.breaks_of(v) {
        let it = jobs.iter().map(|&j| j as usize);
        let o = super::breaks::run(p, v, it, false, |_, _, _| {}, None);
        if !o.ok && ret <= veh.shift_end {
            return Some("break".into());
        }
    }
    // the route limits last: a violation starting with "limit" breaks nothing else
    if ret > veh.shift_end {
        return Some("limit: maxDuration".into());
    }
    if route_sum(p, v, jobs, FleetProblem::t) > veh.max_driving {
        return Some("limit: maxDriving".into());
    }
    if route_sum(p, v, jobs, FleetProblem::ld) > veh.max_distance {
        return Some("limit: maxDistance".into());
    }
    None
}
