//! SISR's ruin (Christiaens & Vanden Berghe 2020): remove strings of
//! consecutive jobs from routes near a random seed job; with probability 1/2
//! a string keeps a run of jobs in its middle (the split string).

use super::model::{has_bit, set_bit, FleetProblem, VehicleBits, VEHICLE_WORDS};
use super::solution::{Solution, NONE};
use crate::rng::Rng;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RuinSettings {
    /// Average number of removed jobs (c̄): what `choose` removes, and the
    /// annealing's average at its end.
    pub average_removed: usize,
    /// The annealing's average at its start: it goes linearly from this to
    /// `average_removed` as the annealing cools (`at`). 16 → 10 against 10
    /// throughout (docs/benchmarks.md, sixteenth pass): Solomon at 1 s of
    /// CPU, 12 seeds, 0.421 against 0.452 %; the 1000-stop service day at
    /// 1.5 s, 8 seeds, 0.43 % shorter, even at 7.5 s.
    pub start_average: usize,
    /// Longest string (L_max).
    pub max_string: usize,
}

impl Default for RuinSettings {
    fn default() -> RuinSettings {
        RuinSettings {
            average_removed: 10,
            start_average: 16,
            max_string: 10,
        }
    }
}

impl RuinSettings {
    /// The settings at `step` of the annealing's 1024 on a problem of `jobs`
    /// jobs: `average_removed` from `start_average` at 0 to its own value at
    /// 1024. The start removes at most a quarter of the jobs (never fewer
    /// than the end): a small problem's ruins are the same throughout.
    pub fn at(&self, step: usize, jobs: usize) -> RuinSettings {
        let to = self.average_removed as i64;
        let from = (self.start_average.min(jobs / 4) as i64).max(to);
        let step = step.min(1024) as i64;
        RuinSettings {
            average_removed: (from + (to - from) * step / 1024) as usize,
            ..*self
        }
    }
}

/// Choose the jobs to remove (not yet removed from `sol`).
pub fn choose(
    p: &FleetProblem,
    sol: &Solution,
    s: &RuinSettings,
    rng: &mut Rng,
    out: &mut Vec<u32>,
) {
    out.clear();
    let assigned = p.n() - sol.unassigned;
    let used = sol.routes.iter().filter(|r| !r.is_empty()).count();
    if assigned == 0 || used == 0 {
        return;
    }
    let avg_route = (assigned + used - 1) / used;
    let ls_max = s.max_string.min(avg_route).max(1);
    let ks_max = ((4 * s.average_removed) / (1 + ls_max))
        .saturating_sub(1)
        .max(1);
    let ks = rng.range(1, ks_max);
    let seed = loop {
        let j = rng.range(0, p.n() - 1);
        if sol.is_assigned(j) {
            break j;
        }
    };
    let mut ruined: VehicleBits = [0; VEHICLE_WORDS];
    let mut count = 0;
    let near = std::iter::once(seed as u32).chain(p.neighbours[seed].iter().copied());
    for c in near {
        if count >= ks {
            break;
        }
        let r = sol.route_of[c as usize];
        if r == NONE || has_bit(&ruined, r as usize) || out.contains(&c) {
            continue;
        }
        set_bit(&mut ruined, r as usize);
        count += 1;
        let route = &sol.routes[r as usize];
        let len = route.len();
        let lmax = len.min(ls_max);
        let l = rng.range(1, lmax);
        let pos = sol.pos_of[c as usize] as usize;
        if rng.next_u64() & 1 == 0 || l == len {
            // a string of l jobs containing c
            let lo = (pos + 1).saturating_sub(l);
            let hi = pos.min(len - l);
            let start = rng.range(lo, hi);
            out.extend_from_slice(&route.jobs[start..start + l]);
        } else {
            // split string: l + m jobs containing c, m consecutive of them kept
            let mut m = 1;
            while l + m < len && rng.next_u64() % 2 == 0 {
                m += 1;
            }
            let total = l + m;
            let lo = (pos + 1).saturating_sub(total);
            let hi = pos.min(len - total);
            let start = rng.range(lo, hi);
            let keep = rng.range(start, start + l);
            for k in start..start + total {
                if k < keep || k >= keep + m {
                    out.push(route.jobs[k]);
                }
            }
        }
    }
    if p.has_pairs {
        // a shipment leaves whole
        for i in 0..out.len() {
            if let Some(o) = p.partner(out[i] as usize) {
                if !out.contains(&(o as u32)) {
                    out.push(o as u32);
                }
            }
        }
    }
}

/// Order the removed jobs for reinsertion (SISR: random 4, largest demand 4,
/// farthest from the first vehicle's start 2, closest 1; when the jobs'
/// windows differ, also shortest window 2 and earliest window 1: measured on
/// Solomon, docs/benchmarks.md "Window orders in the recreate").
pub fn sort_for_insertion(p: &FleetProblem, rng: &mut Rng, jobs: &mut [u32]) {
    // random shuffle first (ties of the keyed sorts keep it)
    for i in (1..jobs.len()).rev() {
        let k = rng.range(0, i);
        jobs.swap(i, k);
    }
    let depot = p.vehicles[0].start;
    let last = if p.windows_differ { 13 } else { 10 };
    match rng.range(0, last) {
        0..=3 => {}
        4..=7 => {
            jobs.sort_by_key(|&j| std::cmp::Reverse(p.job_demand(j as usize).iter().sum::<i64>()))
        }
        8..=9 => jobs.sort_by_key(|&j| std::cmp::Reverse(p.d(depot, p.jobs[j as usize].loc))),
        10 => jobs.sort_by_key(|&j| p.d(depot, p.jobs[j as usize].loc)),
        11..=12 => jobs.sort_by_key(|&j| {
            let job = &p.jobs[j as usize];
            job.due.saturating_sub(job.ready)
        }),
        _ => jobs.sort_by_key(|&j| p.jobs[j as usize].ready),
    }
}
