//! Load segments (as PyVRP's `LoadSegment`, VROOM's pickup/delivery
//! amounts): the data of a run of visits that lets two runs be joined in
//! O(1) for the load when it varies along a route (shipments, backhaul
//! pickups).
//!
//! The vehicle leaves with every plain job's delivery on board. Along a run,
//! per dimension: `unload` is what its jobs take off of the departure's load,
//! `load` what they put on (a shipment's delivery puts on a negative amount),
//! and `peak` the most on board at any point of the run (before its first
//! visit, between two, after its last), counted from the run's own start
//! with its `unload` still on board. Joining A then B: a point in A carries
//! B's unload on top; a point in B carries A's load:
//! peak = max(A.peak + B.unload, B.peak + A.load). The whole route fits its
//! vehicle when its peak is within the capacity in every dimension.

use super::model::{FleetProblem, MAX_DIMS};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoadSeg {
    pub unload: [i64; MAX_DIMS],
    pub load: [i64; MAX_DIMS],
    pub peak: [i64; MAX_DIMS],
}

impl LoadSeg {
    /// No visit (the identity of `then`).
    pub const EMPTY: LoadSeg = LoadSeg {
        unload: [0; MAX_DIMS],
        load: [0; MAX_DIMS],
        peak: [0; MAX_DIMS],
    };

    /// The visit of job j.
    #[inline(always)]
    pub fn job(p: &FleetProblem, j: usize) -> LoadSeg {
        let mut s = LoadSeg::EMPTY;
        for d in 0..p.dims {
            let (u, l) = (p.unload[j * p.dims + d], p.load[j * p.dims + d]);
            s.unload[d] = u;
            s.load[d] = l;
            s.peak[d] = u.max(l);
        }
        s
    }

    /// This run followed by `next`.
    #[inline(always)]
    pub fn then(&self, next: &LoadSeg, dims: usize) -> LoadSeg {
        let mut s = LoadSeg::EMPTY;
        for d in 0..dims {
            s.unload[d] = self.unload[d] + next.unload[d];
            s.load[d] = self.load[d] + next.load[d];
            s.peak[d] = (self.peak[d] + next.unload[d]).max(next.peak[d] + self.load[d]);
        }
        s
    }

    /// The most on board stays within `capacity` (one value per dimension).
    #[inline(always)]
    pub fn fits(&self, capacity: &[i64]) -> bool {
        capacity.iter().enumerate().all(|(d, &c)| self.peak[d] <= c)
    }
}

/// The load on board after each visit of `jobs` (index k: after k visits;
/// k = 0: at departure), per dimension, by a plain forward count.
pub fn profile_of(p: &FleetProblem, jobs: &[u32]) -> Vec<Vec<i64>> {
    let dims = p.dims;
    let mut on = vec![0i64; dims];
    for &j in jobs {
        for d in 0..dims {
            on[d] += p.unload[j as usize * dims + d];
        }
    }
    let mut out = vec![on.clone()];
    for &j in jobs {
        for d in 0..dims {
            on[d] += p.load[j as usize * dims + d] - p.unload[j as usize * dims + d];
        }
        out.push(on.clone());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fleet::model::{FleetInput, JobInput, Objective, VehicleInput};

    /// Jobs on one point: 0 delivers 3, 1 picks up 2 (backhaul), 2/3 a shipment of 4.
    fn problem() -> FleetProblem {
        FleetProblem::new(&FleetInput {
            locations: 1,
            travel: vec![0],
            distance: None,
            vehicles: vec![VehicleInput {
                capacity: vec![10],
                ..VehicleInput::default()
            }],
            jobs: vec![
                JobInput {
                    demand: vec![3],
                    ..JobInput::default()
                },
                JobInput {
                    pickup: vec![2],
                    ..JobInput::default()
                },
                JobInput {
                    demand: vec![4],
                    ..JobInput::default()
                },
                JobInput {
                    demand: vec![4],
                    ..JobInput::default()
                },
            ],
            objective: Objective::DISTANCE,
            limit_distance: None,
            shipments: vec![(2, 3)],
        })
        .unwrap()
    }

    #[test]
    fn joined_segments_give_the_peak_of_a_forward_count() {
        let p = problem();
        assert!(p.profile && p.has_pairs);
        let orders: [&[u32]; 5] = [
            &[0, 1, 2, 3],
            &[2, 0, 3, 1],
            &[1, 2, 3, 0],
            &[2, 1, 0, 3],
            &[2, 3],
        ];
        for jobs in orders {
            let peak = profile_of(&p, jobs).iter().map(|l| l[0]).max().unwrap();
            // every split into two runs joins to the same peak
            for cut in 0..=jobs.len() {
                let run = |js: &[u32]| {
                    js.iter().fold(LoadSeg::EMPTY, |s, &j| {
                        s.then(&LoadSeg::job(&p, j as usize), 1)
                    })
                };
                let joined = run(&jobs[..cut]).then(&run(&jobs[cut..]), 1);
                assert_eq!(joined.peak[0], peak, "{:?} cut at {}", jobs, cut);
            }
        }
        // 3 on board; 0 unloads them, 1 picks up 2, the shipment adds 4 and drops it
        assert_eq!(
            profile_of(&p, &[0, 1, 2, 3]),
            vec![vec![3], vec![0], vec![2], vec![6], vec![2]]
        );
    }
}
