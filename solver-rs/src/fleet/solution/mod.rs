//! A fleet solution: one route per vehicle (possibly empty) and the
//! unassigned jobs. Each route keeps forward/backward time-window segments,
//! distances, loads and allowed-vehicle sets so that any move made of a few
//! pieces of routes is priced in O(pieces) (`evaluate`), plus a forward pass
//! for the lateness when the problem has soft deadlines.
//!
//! - `cost`: `FleetCost` and `RouteEval`
//! - `route`: a route and its caches (`Route::update`)
//! - `schedule`: schedules and segments of job sequences from scratch
//! - `pricing`: `evaluate` a route made of pieces, `materialize` it
//! - `insertion`: best insertion of a job, insert, remove
//! - `check`: invariants against a recomputation (`check`, `route_violation`)
//! - `journal`: undo of an iteration made in place (the routes it changed, saved once)

mod check;
mod cost;
mod insertion;
mod journal;
mod pricing;
mod route;
mod schedule;

pub use check::route_violation;
pub use cost::{FleetCost, RouteEval};
pub use route::Route;
pub use schedule::{
    end_segment, job_segment, lateness_of, route_sum, schedule_of, start_segment, times_of,
};

use crate::fleet::model::FleetProblem;

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
    /// jobs[a..b] of route r, last first (intra-route 2-opt).
    Reversed(usize, usize, usize),
    /// One job.
    Job(u32),
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
    pub(crate) pair_candidates: Vec<crate::fleet::pairs::PairCandidate>,
    insert_candidates: Vec<(FleetCost, usize, i64)>,
    /// Reused by `best_insertion`: positions whose lateness is priced last (k, duration, distance).
    late_positions: Vec<(usize, i64, i64)>,
    pub(crate) pair_passes: crate::fleet::windows::PairPasses,
    /// The routes to put back when the running iteration is undone.
    journal: journal::Journal,
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
            late_positions: Vec::new(),
            pair_passes: Default::default(),
            journal: Default::default(),
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
        self.journal_save(r);
        let (front, back) = same_ends(&self.routes[r].jobs, &jobs);
        for &j in &self.routes[r].jobs {
            if self.route_of[j as usize] == r as u32 {
                self.route_of[j as usize] = NONE;
                self.pos_of[j as usize] = NONE;
                self.unassigned += 1;
                self.missing += p.miss_weight(j as usize);
            }
        }
        self.set_route_from_taken(p, r, jobs, front, back);
    }

    /// set_route for a job list taken out of route r (route_of still points
    /// at r for the jobs that stay; a job marked unassigned is counted back),
    /// whose first `front` and last `back` jobs are the route's before
    /// (`Route::update_keeping`).
    fn set_route_from_taken(
        &mut self,
        p: &FleetProblem,
        r: usize,
        jobs: Vec<u32>,
        front: usize,
        back: usize,
    ) {
        for (k, &j) in jobs.iter().enumerate() {
            if self.route_of[j as usize] == NONE {
                self.unassigned -= 1;
                self.missing -= p.miss_weight(j as usize);
            }
            self.route_of[j as usize] = r as u32;
            self.pos_of[j as usize] = k as u32;
        }
        self.routes[r].jobs = jobs;
        self.routes[r].update_keeping(p, front, back);
    }
}

/// How many jobs `new` shares with `old` at its front, then at its back
/// (the two runs do not overlap in either list).
fn same_ends(old: &[u32], new: &[u32]) -> (usize, usize) {
    let most = old.len().min(new.len());
    let front = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let back = old
        .iter()
        .rev()
        .zip(new.iter().rev())
        .take(most - front)
        .take_while(|(a, b)| a == b)
        .count();
    (front, back)
}
