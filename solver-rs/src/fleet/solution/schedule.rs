//! Schedules of job sequences from scratch (lateness, service starts, the
//! reported times, arc sums) and the time-window segments of a route's ends and jobs.

use crate::fleet::model::FleetProblem;
use crate::fleet::segment::TwSegment;
use crate::schedule::StopTimes;

/// pre[k] = the arcs from vehicle v's start through jobs[k-1] (k = 0..=len);
/// returns the route's total (0 when empty).
pub(super) fn prefix_sums(
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
        return crate::fleet::breaks::run(p, v, it, false, |_, _, _| {}, None).late;
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
        let o = crate::fleet::breaks::run(
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
