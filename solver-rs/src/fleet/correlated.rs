//! The descent's neighbour lists on a day whose windows differ: each job's
//! nearest jobs by Vidal's correlation (the granular neighbourhood of HGS and
//! PyVRP): the travel time from one to the other, plus a fifth of the least
//! wait and the whole least lateness of that order, the smaller of the two
//! orders. A near stop whose window cannot follow nor precede a job's is not
//! worth pairing with it; one a little further that fits is.

use super::model::{nearest_jobs_by, FleetProblem, UNREACHABLE};
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
/// (`model::nearest_jobs_by`). A job's list comes from its kept travel
/// neighbours (`FleetProblem::neighbours`, by round trip) when they prove it:
/// a job beyond them has a round trip at least the last one's, so each way
/// at least half of that less the largest difference between the two ways
/// of an arc (`asymmetry`), and a proximity is never below its travel; a
/// list whose last proximity is below that bound is the job's list. Jobs
/// whose lists are not proven read every job. The same lists as reading
/// every pair, in O(n · NEIGHBOURS_KEPT) for the proven ones instead of
/// O(n²) (the asymmetry comes with the travel neighbours' reads).
pub fn correlated_jobs(p: &FleetProblem, keep: usize) -> Vec<Vec<u32>> {
    let key = |i: usize, j: usize, there: i64, back: i64| {
        proximity(p, i, j, there).min(proximity(p, j, i, back))
    };
    let asymmetry = p.asymmetry;
    #[cfg(debug_assertions)]
    debug_assert_eq!(asymmetry, every_asymmetry(p));
    if asymmetry >= UNREACHABLE / 2 {
        // an arc unreachable one way only proves nothing: every pair by blocks of rows
        return nearest_jobs_by(p, keep, key);
    }
    let travel = |i: usize, j: usize| p.t(p.jobs[i].loc, p.jobs[j].loc);
    let mut keyed: Vec<(i64, u32)> = Vec::new();
    (0..p.n())
        .map(|i| {
            let near = &p.neighbours[i];
            keyed.clear();
            keyed.extend(near.iter().map(|&j| {
                let j = j as usize;
                (key(i, j, travel(i, j), travel(j, i)), j as u32)
            }));
            smallest(&mut keyed, keep);
            let every_job = near.len() + 1 == p.n();
            let proven = every_job
                || match (keyed.last(), near.last()) {
                    (Some(&(last, _)), Some(&far)) if keyed.len() == keep => {
                        let round_trip = travel(i, far as usize) + travel(far as usize, i);
                        last.saturating_mul(2) < round_trip - asymmetry
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

/// The largest difference between the two ways of an arc between two jobs,
/// read pair by pair (`FleetProblem::asymmetry`'s check).
#[cfg(debug_assertions)]
fn every_asymmetry(p: &FleetProblem) -> i64 {
    let mut most = 0;
    for i in 0..p.n() {
        let a = p.jobs[i].loc;
        for j in 0..i {
            let b = p.jobs[j].loc;
            most = most.max((p.t(a, b) - p.t(b, a)).abs());
        }
    }
    most
}
