//! Exact schedules when jobs have several time windows.
//!
//! With one window per job a run of visits is summed up by a time-window
//! segment (`segment.rs`) and two runs join in O(1). With several windows the
//! start of service is a step function of the arrival (a vehicle arriving
//! between two windows waits for the next), which no fixed-size segment
//! represents. The segments then use each job's hull [first start, last end]:
//! a relaxation (the hull schedule is never later than the true one), so a
//! move they reject is infeasible; the moves they accept are priced here
//! exactly, by a forward pass that stops early:
//!
//! - every vehicle leaves at its shift start, so the prefix of a route is a
//!   point in time (its cached service starts);
//! - a suffix of a route is rejected in O(1) when the arrival at its first job
//!   is after `latest` (the latest arrival from which all its jobs can still
//!   start inside a window; the start of service is non-decreasing in the
//!   arrival, so every earlier arrival is feasible too);
//! - the pass through a suffix stops at the first job whose start equals its
//!   start in its own route: from there the schedule is that route's.

use super::model::{Break, FleetProblem, NEVER, UNREACHABLE};
use super::solution::{Piece, Route, Solution};

/// The return of vehicle v after `jobs` served at `starts` (the earliest
/// schedule), and whether every start lies inside a window and the return
/// within the shift.
pub fn route_end(p: &FleetProblem, v: usize, jobs: &[u32], starts: &[i64]) -> (i64, bool) {
    let veh = &p.vehicles[v];
    let mut ok = true;
    for (&j, &s) in jobs.iter().zip(starts) {
        ok &= s <= p.jobs[j as usize].due;
    }
    let last = *jobs.last().expect("a route with jobs") as usize;
    let back = starts[jobs.len() - 1] + p.jobs[last].service + p.t(p.jobs[last].loc, veh.end);
    ok &= back <= veh.shift_end && back - veh.shift_start < UNREACHABLE;
    (back, ok)
}

/// latest[k] for a route through `jobs` (see `Route::latest`).
pub fn latest_arrivals(p: &FleetProblem, jobs: &[u32], latest: &mut Vec<i64>) {
    let n = jobs.len();
    latest.clear();
    latest.resize(n, NEVER);
    let mut bound = i64::MAX / 4;
    for k in (0..n).rev() {
        let j = jobs[k] as usize;
        let l = p.latest_start(j, bound);
        latest[k] = l;
        if l == NEVER || k == 0 {
            continue;
        }
        let i = jobs[k - 1] as usize;
        bound = l - p.t(p.jobs[i].loc, p.jobs[j].loc) - p.jobs[i].service;
    }
    // a NEVER leaves every earlier job NEVER as well
    for k in (0..n.saturating_sub(1)).rev() {
        if latest[k + 1] == NEVER {
            latest[k] = NEVER;
        }
    }
}

/// A forward pass: where the vehicle is, when it leaves, the lateness so
/// far, and (vehicles with breaks: `breaks.rs`'s greedy rule, step by step)
/// the next break not taken yet and how many jobs were served.
#[derive(Clone, Copy, Debug)]
struct Pass {
    loc: usize,
    dep: i64,
    late: i64,
    next: usize,
    served: usize,
    breaks: bool,
}

impl Pass {
    /// Leave route r's vehicle start, through its jobs[..k].
    #[inline(always)]
    fn after_prefix(p: &FleetProblem, route: &Route, k: usize) -> Pass {
        let veh = &p.vehicles[route.vehicle];
        let breaks = p.breaks_of(route.vehicle);
        if k == 0 {
            return Pass {
                loc: veh.start,
                dep: veh.shift_start,
                late: 0,
                next: 0,
                served: 0,
                breaks,
            };
        }
        let j = route.jobs[k - 1] as usize;
        Pass {
            loc: p.jobs[j].loc,
            dep: route.starts[k - 1] + p.jobs[j].service,
            late: route.late_pre[k],
            next: if breaks {
                route.brk_next[k] as usize
            } else {
                0
            },
            served: k,
            breaks,
        }
    }

    /// The breaks open at the departure, taken before the next leg (after a first job).
    #[inline(always)]
    fn before_leg(&mut self, brk: &[Break]) -> Option<()> {
        if self.served == 0 {
            return Some(());
        }
        while self.next < brk.len() && brk[self.next].start <= self.dep {
            if self.dep > brk[self.next].end {
                return None;
            }
            self.dep += brk[self.next].duration;
            self.next += 1;
        }
        Some(())
    }

    /// The start of service at job j reached at `arrival`, after the
    /// breaks taken while waiting for it; None when a break is missed.
    #[inline(always)]
    fn start(&mut self, p: &FleetProblem, brk: &[Break], j: usize, arrival: i64) -> Option<i64> {
        let mut s = p.start_at(j, arrival);
        let mut ready = arrival;
        while self.next < brk.len() && brk[self.next].start <= s {
            let b = brk[self.next];
            let at = ready.max(b.start);
            if at > b.end {
                return None;
            }
            ready = at + b.duration;
            s = p.start_at(j, ready);
            self.next += 1;
        }
        Some(s)
    }

    /// Serve job j next (vehicle v); None when no window can be met.
    #[inline(always)]
    fn visit(&mut self, p: &FleetProblem, v: usize, j: usize) -> Option<()> {
        let job = &p.jobs[j];
        let s = if self.breaks {
            let brk = &p.vehicles[v].breaks[..];
            self.before_leg(brk)?;
            self.start(p, brk, j, self.dep + p.t(self.loc, job.loc))?
        } else {
            p.start_at(j, self.dep + p.t(self.loc, job.loc))
        };
        if s > job.due {
            return None;
        }
        self.late += (s - job.deadline).max(0);
        self.dep = s + job.service;
        self.loc = job.loc;
        self.served += 1;
        Some(())
    }

    /// Serve route's jobs[k..] next (vehicle v), stopping where the schedule
    /// meets the route's own (same start, and with breaks the same next break).
    fn suffix(&mut self, p: &FleetProblem, v: usize, route: &Route, k: usize) -> Option<()> {
        let n = route.len();
        let brk = &p.vehicles[v].breaks[..];
        // the route's own break state only means the same when it is this vehicle's
        let own = route.vehicle == v;
        for kk in k..n {
            let j = route.jobs[kk] as usize;
            let job = &p.jobs[j];
            if self.breaks {
                self.before_leg(brk)?;
            }
            let arrival = self.dep + p.t(self.loc, job.loc);
            if p.multi_windows && arrival > route.latest[kk] {
                return None;
            }
            let s = if self.breaks {
                self.start(p, brk, j, arrival)?
            } else {
                p.start_at(j, arrival)
            };
            if s > job.due {
                return None;
            }
            let same = if self.breaks {
                own && self.next == route.brk_next[kk + 1] as usize
            } else {
                !p.breaks_of(route.vehicle)
            };
            if s == route.starts[kk] && same {
                let last = route.jobs[n - 1] as usize;
                self.late += route.late_pre[n] - route.late_pre[kk];
                self.dep = route.starts[n - 1] + p.jobs[last].service;
                self.loc = p.jobs[last].loc;
                self.served += n - kk;
                if self.breaks {
                    self.next = route.brk_next[n] as usize;
                }
                return Some(());
            }
            self.late += (s - job.deadline).max(0);
            self.dep = s + job.service;
            self.loc = job.loc;
            self.served += 1;
        }
        Some(())
    }

    /// Back at vehicle v's end (after the breaks left): (duration,
    /// lateness), None after its shift end or when a break is missed.
    fn finish(&mut self, p: &FleetProblem, v: usize) -> Option<(i64, i64)> {
        let veh = &p.vehicles[v];
        if self.served == 0 {
            return Some((0, 0));
        }
        let back = if self.breaks {
            self.before_leg(&veh.breaks)?;
            let mut back = self.dep + p.t(self.loc, veh.end);
            for b in &veh.breaks[self.next..] {
                let at = back.max(b.start);
                if at > b.end {
                    return None;
                }
                back = at + b.duration;
            }
            back
        } else {
            self.dep + p.t(self.loc, veh.end)
        };
        let duration = back - veh.shift_start;
        if back > veh.shift_end || duration >= UNREACHABLE {
            return None;
        }
        Some((duration, self.late))
    }
}

/// Exact (duration, lateness) of the route of vehicle v made of `pieces`
/// (a Prefix of route v first), None when a window or the shift is missed.
pub fn price_pieces(
    sol: &Solution,
    p: &FleetProblem,
    v: usize,
    pieces: &[Piece],
) -> Option<(i64, i64)> {
    let mut pass = Pass::after_prefix(p, &sol.routes[v], 0);
    for pc in pieces {
        match *pc {
            Piece::Prefix(r, k) => pass = Pass::after_prefix(p, &sol.routes[r], k),
            Piece::Job(j) => pass.visit(p, v, j as usize)?,
            Piece::Range(r, a, b) => {
                for kk in a..b {
                    pass.visit(p, v, sol.routes[r].jobs[kk] as usize)?;
                }
            }
            Piece::Reversed(r, a, b) => {
                for kk in (a..b).rev() {
                    pass.visit(p, v, sol.routes[r].jobs[kk] as usize)?;
                }
            }
            Piece::Suffix(r, k) => pass.suffix(p, v, &sol.routes[r], k)?,
        }
    }
    pass.finish(p, v)
}

/// Exact (duration, lateness) of `route` with job j inserted before position k.
pub fn price_insertion(route: &Route, p: &FleetProblem, j: usize, k: usize) -> Option<(i64, i64)> {
    let v = route.vehicle;
    let mut pass = Pass::after_prefix(p, route, k);
    pass.visit(p, v, j)?;
    pass.suffix(p, v, route, k)?;
    pass.finish(p, route.vehicle)
}

/// The exact prices of the pair insertions into one route (pickup a before
/// position i, delivery b before k >= i), in any order: the pass through
/// "prefix, a, jobs[i..k]" is kept per i and extended as larger k are asked
/// for, so that each price walks only the delivery and the suffix until it
/// meets the route's own schedule; once that run misses a window or a break
/// for some k, every larger k is infeasible too (the same run, longer).
#[derive(Debug, Default)]
pub struct PairPasses {
    /// runs[i]: the passes after a and jobs[i..i + m] (m = 0, 1, ...).
    runs: Vec<Vec<Pass>>,
    /// The run of i missed a window (or a break) at its next job.
    failed: Vec<bool>,
    started: Vec<bool>,
}

/// Scratch space: a cloned solution starts with none.
impl Clone for PairPasses {
    fn clone(&self) -> PairPasses {
        PairPasses::default()
    }
}

impl PairPasses {
    /// Forget the runs (a new route or shipment of `n` jobs).
    pub fn reset(&mut self, n: usize) {
        if self.runs.len() < n + 1 {
            self.runs.resize_with(n + 1, Vec::new);
        }
        self.failed.clear();
        self.failed.resize(n + 1, false);
        self.started.clear();
        self.started.resize(n + 1, false);
    }

    /// Exact (duration, lateness) of `route` (vehicle v's own) with a before i and b before k.
    pub fn price(
        &mut self,
        p: &FleetProblem,
        route: &Route,
        a: usize,
        b: usize,
        i: usize,
        k: usize,
    ) -> Option<(i64, i64)> {
        let v = route.vehicle;
        let run = &mut self.runs[i];
        if !self.started[i] {
            self.started[i] = true;
            run.clear();
            let mut pass = Pass::after_prefix(p, route, i);
            match pass.visit(p, v, a) {
                Some(()) => run.push(pass),
                None => self.failed[i] = true,
            }
        }
        while run.len() <= k - i && !self.failed[i] {
            let mut pass = run[run.len() - 1];
            match pass.visit(p, v, route.jobs[i + run.len() - 1] as usize) {
                Some(()) => run.push(pass),
                None => self.failed[i] = true,
            }
        }
        if run.len() <= k - i {
            return None;
        }
        let mut pass = run[k - i];
        pass.visit(p, v, b)?;
        pass.suffix(p, v, route, k)?;
        pass.finish(p, v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fleet::model::{FleetInput, JobInput, Objective, VehicleInput};
    use crate::fleet::solution::{route_violation, schedule_of};

    /// One vehicle at location 0 leaving at 0; job i at location i + 1, 10 s
    /// apart on a line; windows per job.
    fn line(windows: &[Vec<(i64, i64)>]) -> FleetProblem {
        let m = windows.len() + 1;
        let travel = (0..m * m)
            .map(|x| 10 * ((x / m) as i64 - (x % m) as i64).abs())
            .collect();
        FleetProblem::new(&FleetInput {
            locations: m,
            travel,
            distance: None,
            vehicles: vec![VehicleInput::default()],
            jobs: windows
                .iter()
                .enumerate()
                .map(|(i, w)| JobInput {
                    location: i + 1,
                    service: 5,
                    windows: Some(w.clone()),
                    ..JobInput::default()
                })
                .collect(),
            objective: Objective::SERVICE,
            limit_distance: None,
            shipments: Vec::new(),
        })
        .unwrap()
    }

    #[test]
    fn waits_for_the_next_window_between_two() {
        let p = line(&[vec![(0, 5), (30, 40)], vec![(0, 100)]]);
        assert!(p.multi_windows);
        assert_eq!(p.start_at(0, 10), 30);
        assert_eq!(p.start_at(0, 3), 3);
        assert_eq!(p.start_at(0, 41), 41); // past the last: infeasible
        let (starts, back) = schedule_of(&p, 0, &[0, 1]);
        assert_eq!(starts, vec![30, 45]);
        assert_eq!(back, 50);
        // 1 first: 20, then 0 at 20 + 5 + 10 = 35, inside its second window
        assert_eq!(schedule_of(&p, 0, &[1, 0]).0, vec![20, 35]);
        assert!(route_violation(&p, 0, &[1, 0]).is_none());
        let tight = line(&[vec![(0, 5), (30, 33)], vec![(0, 100)]]);
        assert!(route_violation(&tight, 0, &[1, 0]).is_some());
    }

    #[test]
    fn latest_arrival_uses_the_last_window_that_fits() {
        let p = line(&[vec![(0, 5), (30, 40)], vec![(0, 20), (60, 70)]]);
        let mut latest = Vec::new();
        latest_arrivals(&p, &[0, 1], &mut latest);
        // job 1: latest 70; job 0 must leave by 60 (70 - 10 travel): start <= 55 -> window (30, 40) -> 40
        assert_eq!(latest, vec![40, 70]);
        latest_arrivals(&p, &[1, 0], &mut latest);
        // job 0 last: 40; job 1 must start by 40 - 10 - 5 = 25 -> window (0, 20) -> 20
        assert_eq!(latest, vec![20, 40]);
    }
}
