//! Invariant checks: a solution against a recomputation, a job sequence
//! against a plain forward simulation.

use super::schedule::{route_sum, schedule_of};
use super::{Route, Solution, NONE};
use crate::fleet::model::{FleetProblem, Role};

impl Solution {
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
            if p.windows_soft() {
                let warp = time_warp_of(p, r, &route.jobs);
                if warp != route.eval.warp {
                    return Err(format!(
                        "route {} time warp {} != {}",
                        r, route.eval.warp, warp
                    ));
                }
                if warp > 0 {
                    // a late route is priced, not ruled out: all else must hold
                    if let Some(why) = violation(p, r, &route.jobs, false) {
                        return Err(format!("route {}: {}", r, why));
                    }
                    continue;
                }
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
    violation(p, v, jobs, true)
}

/// The time warp of vehicle v's route through `jobs` (single windows, no
/// breaks), by a plain forward simulation: a start after a job's due time
/// (or a return after the shift's end) counts the difference and goes back
/// to it, as Vidal's and PyVRP's time warp.
fn time_warp_of(p: &FleetProblem, v: usize, jobs: &[u32]) -> i64 {
    if jobs.is_empty() {
        return 0;
    }
    let veh = &p.vehicles[v];
    let (mut t, mut loc, mut warp) = (veh.shift_start, veh.start, 0i64);
    for &j in jobs {
        let job = &p.jobs[j as usize];
        t = (t + p.t(loc, job.loc)).max(job.ready);
        if t > job.due {
            warp += t - job.due;
            t = job.due;
        }
        t += job.service;
        loc = job.loc;
    }
    (t + p.t(loc, veh.end) - veh.shift_end).max(0) + warp
}

/// `route_violation`; with `windows` false, late starts and a late return
/// are not violations (soft windows: their time warp is priced).
fn violation(p: &FleetProblem, v: usize, jobs: &[u32], windows: bool) -> Option<String> {
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
    let on_board = crate::fleet::load::profile_of(p, jobs);
    if on_board.iter().any(|l| (0..p.dims).any(|d| l[d] > cap[d])) {
        return Some("capacity".into());
    }
    if !windows {
        // (soft windows apply only without breaks and route limits: `soft_windows::applies`)
        return None;
    }
    let (starts, ret) = schedule_of(p, v, jobs);
    for (k, &j) in jobs.iter().enumerate() {
        if starts[k] > p.jobs[j as usize].due {
            return Some(format!("job {} starts after due", j));
        }
    }
    if ret > veh.given_shift_end || ret - veh.shift_start >= crate::fleet::model::UNREACHABLE {
        return Some("shift end / unreachable".into());
    }
    if p.breaks_of(v) {
        let it = jobs.iter().map(|&j| j as usize);
        let o = crate::fleet::breaks::run(p, v, it, false, |_, _, _| {}, None);
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
