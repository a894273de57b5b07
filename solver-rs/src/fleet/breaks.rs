//! Vehicle breaks: the schedule of a route whose vehicle has breaks.
//!
//! A break is taken whole, starting inside its window, while the vehicle
//! stands still: before leaving a stop, on arriving at the next one (while
//! it would wait for that stop's window), or at the route's end. Breaks are
//! taken in window-start order, each at the earliest moment the schedule
//! reaches its window:
//!
//! - before the next leg when the window is open at the departure;
//! - otherwise on arriving at the next stop, when the window opens no later
//!   than the service would start (at the arrival, or at the window's start
//!   while waiting); the service then starts after the break (its earliest
//!   window start from there);
//! - after the last stop: before the last leg when open, else at the end
//!   point, waiting there for the window to open (that wait and the break
//!   count in the route's duration and must fit in the shift).
//!
//! A break whose window closes before the vehicle can stop for it (it opens
//! and closes during one leg) makes the route infeasible, as does a stop
//! pushed past its window or a return past the shift end. A vehicle that
//! serves no job takes no break.
//!
//! The greedy rule makes every time of the schedule a non-decreasing
//! function of the departure, so the segments' schedule without breaks
//! (`segment.rs`) is a lower bound: a move they reject stays rejected, and
//! the moves they accept on a route with breaks are priced here in O(route).

use super::model::{FleetProblem, UNREACHABLE};

/// A break as scheduled: its index in the vehicle's input list, its start,
/// how many of the route's jobs are served before it, and the arrival at
/// what follows it (the next job, or the route's end point): a break that
/// starts before that arrival was taken before the leg.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Taken {
    pub index: usize,
    pub start: i64,
    pub after: usize,
    pub next_arrival: i64,
}

/// The outcome of a pass: the return (arrival at the end, after any break
/// taken there), the lateness (search deadlines), and whether every window,
/// break and the shift end hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub back: i64,
    /// The arrival at the end point, before any break taken there.
    pub arrival: i64,
    pub late: i64,
    pub ok: bool,
}

/// Forward pass of vehicle v through `jobs`. `on_stop(arrival, start, next)`
/// sees every stop (`next`: how many breaks were taken by its service); `taken` receives the breaks. With `early`, it returns as soon
/// as the route is infeasible (then `back` is meaningless).
pub fn run(
    p: &FleetProblem,
    v: usize,
    jobs: impl Iterator<Item = usize>,
    early: bool,
    mut on_stop: impl FnMut(i64, i64, usize),
    mut taken: Option<&mut Vec<Taken>>,
) -> Outcome {
    let veh = &p.vehicles[v];
    let brk = &veh.breaks;
    let mut next = 0usize;
    let mut loc = veh.start;
    let mut dep = veh.shift_start;
    let mut late = 0i64;
    let mut ok = true;
    let mut served = 0usize;
    let mut record = |index: usize, start: i64, after: usize| {
        if let Some(t) = taken.as_deref_mut() {
            t.push(Taken {
                index,
                start,
                after,
                next_arrival: 0,
            });
        }
    };
    // breaks open at the departure: taken before the leg
    macro_rules! before_leg {
        () => {
            while next < brk.len() && brk[next].start <= dep {
                let b = brk[next];
                ok &= dep <= b.end;
                record(b.index, dep, served);
                dep += b.duration;
                next += 1;
            }
        };
    }
    for j in jobs {
        if served > 0 {
            before_leg!();
            if early && !ok {
                return Outcome {
                    back: 0,
                    arrival: 0,
                    late,
                    ok,
                };
            }
        }
        let job = &p.jobs[j];
        let arrival = dep + p.t(loc, job.loc);
        let mut ready = arrival;
        let mut s = p.start_at(j, ready);
        while next < brk.len() && brk[next].start <= s {
            let b = brk[next];
            let at = ready.max(b.start);
            ok &= at <= b.end;
            record(b.index, at, served);
            ready = at + b.duration;
            s = p.start_at(j, ready);
            next += 1;
        }
        ok &= s <= job.due;
        if early && !ok {
            return Outcome {
                back: 0,
                arrival: 0,
                late,
                ok,
            };
        }
        on_stop(arrival, s, next);
        late += (s - job.deadline).max(0);
        dep = s + job.service;
        loc = job.loc;
        served += 1;
    }
    if served == 0 {
        return Outcome {
            back: veh.shift_start,
            arrival: veh.shift_start,
            late: 0,
            ok: true,
        };
    }
    before_leg!();
    let arrival = dep + p.t(loc, veh.end);
    let mut back = arrival;
    while next < brk.len() {
        let b = brk[next];
        let at = back.max(b.start);
        ok &= at <= b.end;
        record(b.index, at, served);
        back = at + b.duration;
        next += 1;
    }
    ok &= back <= veh.shift_end && back - veh.shift_start < UNREACHABLE;
    Outcome {
        back,
        arrival,
        late,
        ok,
    }
}

/// Exact (duration, lateness) of vehicle v's route through `jobs`; None when infeasible.
pub fn price(p: &FleetProblem, v: usize, jobs: impl Iterator<Item = usize>) -> Option<(i64, i64)> {
    let o = run(p, v, jobs, true, |_, _, _| {}, None);
    if o.ok {
        Some((o.back - p.vehicles[v].shift_start, o.late))
    } else {
        None
    }
}

/// The breaks of vehicle v's route through `jobs` (none when it is empty).
pub fn taken(p: &FleetProblem, v: usize, jobs: &[u32]) -> Vec<Taken> {
    let mut out = Vec::new();
    let mut arrivals = Vec::with_capacity(jobs.len());
    let o = run(
        p,
        v,
        jobs.iter().map(|&j| j as usize),
        false,
        |arrival, _, _| arrivals.push(arrival),
        Some(&mut out),
    );
    for t in &mut out {
        t.next_arrival = arrivals.get(t.after).copied().unwrap_or(o.arrival);
    }
    out
}
