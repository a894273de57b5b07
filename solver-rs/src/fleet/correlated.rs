//! The descent's neighbour lists on a day whose windows differ: each job's
//! nearest jobs by Vidal's correlation (the granular neighbourhood of HGS and
//! PyVRP): the travel time from one to the other, plus a fifth of the least
//! wait and the whole least lateness of that order, the smaller of the two
//! orders. A near stop whose window cannot follow nor precede a job's is not
//! worth pairing with it; one a little further that fits is.

use super::model::{nearest_jobs_by, FleetProblem};

/// The wait counts 1 / WAIT_DIVISOR (PyVRP's and HGS's weight 0.2); the
/// lateness counts whole.
pub const WAIT_DIVISOR: i64 = 5;

/// Visiting b right after a: the travel `t`, plus a fifth of the least wait
/// at b (leaving a as late as its window allows) and the least lateness at b
/// (leaving a as early as it allows). Saturating: unreachable stays last.
pub fn proximity(p: &FleetProblem, a: usize, b: usize, t: i64) -> i64 {
    let (ja, jb) = (&p.jobs[a], &p.jobs[b]);
    let latest_there = ja.due.saturating_add(ja.service).saturating_add(t);
    let earliest_there = ja.ready.saturating_add(ja.service).saturating_add(t);
    let wait = jb.ready.saturating_sub(latest_there).max(0);
    let late = earliest_there.saturating_sub(jb.due).max(0);
    t.saturating_add(wait / WAIT_DIVISOR).saturating_add(late)
}

/// Each job's `keep` nearest other jobs by `proximity`, the smaller of the
/// two orders, nearest first (ties by index), as the problem's own lists
/// (`model::nearest_jobs_by`).
pub fn correlated_jobs(p: &FleetProblem, keep: usize) -> Vec<Vec<u32>> {
    nearest_jobs_by(p, keep, |i, j, there, back| {
        proximity(p, i, j, there).min(proximity(p, j, i, back))
    })
}
