//! The descent's neighbour lists on a day whose windows differ: each job's
//! nearest jobs by Vidal's correlation (the granular neighbourhood of HGS and
//! PyVRP): the travel time from one to the other, plus a fifth of the least
//! wait and the whole least lateness of that order, the smaller of the two
//! orders. A near stop whose window cannot follow nor precede a job's is not
//! worth pairing with it; one a little further that fits is.

use super::model::{nearest_jobs_by, FleetProblem};
use crate::nearest::smallest;

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
/// (`model::nearest_jobs_by`). When the travel between jobs is the same both
/// ways, a job's list comes from its kept travel neighbours
/// (`FleetProblem::neighbours`) if they prove it: a proximity is never below
/// the travel, and a job beyond the kept ones is at least as far as the last
/// of them, so it cannot enter a list whose last proximity is below that
/// travel. Jobs whose lists are not proven read every job. The same lists as
/// reading every pair, in O(n · NEIGHBOURS_KEPT) for the proven ones instead
/// of O(n²).
pub fn correlated_jobs(p: &FleetProblem, keep: usize) -> Vec<Vec<u32>> {
    let key = |i: usize, j: usize, there: i64, back: i64| {
        proximity(p, i, j, there).min(proximity(p, j, i, back))
    };
    if !symmetric_between_jobs(p) {
        return nearest_jobs_by(p, keep, key);
    }
    let travel = |i: usize, j: usize| p.t(p.jobs[i].loc, p.jobs[j].loc);
    let mut keyed: Vec<(i64, u32)> = Vec::new();
    (0..p.n())
        .map(|i| {
            let near = &p.neighbours[i];
            keyed.clear();
            keyed.extend(near.iter().map(|&j| {
                let t = travel(i, j as usize);
                (key(i, j as usize, t, t), j)
            }));
            smallest(&mut keyed, keep);
            let every_job = near.len() + 1 == p.n();
            let proven = every_job
                || match (keyed.last(), near.last()) {
                    (Some(&(last, _)), Some(&far)) if keyed.len() == keep => {
                        last < travel(i, far as usize)
                    }
                    _ => false,
                };
            if !proven {
                keyed.clear();
                keyed.extend((0..p.n()).filter(|&j| j != i).map(|j| {
                    let (there, back) = (travel(i, j), travel(j, i));
                    (key(i, j, there, back), j as u32)
                }));
                smallest(&mut keyed, keep);
            }
            keyed.iter().map(|&(_, j)| j).collect()
        })
        .collect()
}

/// The travel between any two jobs is the same both ways.
fn symmetric_between_jobs(p: &FleetProblem) -> bool {
    (0..p.n()).all(|i| {
        let a = p.jobs[i].loc;
        (0..i).all(|j| {
            let b = p.jobs[j].loc;
            p.t(a, b) == p.t(b, a)
        })
    })
}
