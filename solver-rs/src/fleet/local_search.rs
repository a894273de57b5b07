//! Descent with the inter-route operators on a granular neighbourhood (each
//! job against its `granular` nearest jobs), first improvement, driven by a
//! queue of active jobs (don't-look bits): after a move, the jobs at both
//! ends of the pair become active again. A time-limited run stops in the
//! middle of a descent when its deadline passes (the solution stays valid).

use super::deadline::Deadline;
use super::model::FleetProblem;
use super::operators::{self, cross_exchange, pair_relocate, relocate, swap, two_opt_star, Move};
use super::solution::{FleetCost, Solution};

/// Operator counters: exact evaluations that returned a feasible move, moves applied.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    pub applied: [u64; 5],
}

pub const OPERATOR_NAMES: [&str; 5] = [
    "relocate",
    "swap",
    "2-opt*",
    "cross-exchange",
    "pair-relocate",
];

pub struct LocalSearch {
    active: Vec<bool>,
    queue: std::collections::VecDeque<u32>,
    pub granular: usize,
    pub counters: Counters,
}

impl LocalSearch {
    pub fn new(p: &FleetProblem, granular: usize) -> LocalSearch {
        LocalSearch {
            active: vec![false; p.n()],
            queue: std::collections::VecDeque::new(),
            granular,
            counters: Counters::default(),
        }
    }

    fn activate(&mut self, j: usize) {
        if !self.active[j] {
            self.active[j] = true;
            self.queue.push_back(j as u32);
        }
    }

    /// Descend from `sol`, starting with the given jobs active (all when None),
    /// until no move improves or the deadline passes.
    pub fn run(
        &mut self,
        p: &FleetProblem,
        sol: &mut Solution,
        start: Option<&[u32]>,
        deadline: &Deadline,
    ) {
        match start {
            Some(js) => {
                for &j in js {
                    self.activate(j as usize);
                }
            }
            None => {
                for j in 0..p.n() {
                    self.activate(j);
                }
            }
        }
        while let Some(u) = self.queue.pop_front() {
            let u = u as usize;
            self.active[u] = false;
            if !sol.is_assigned(u) {
                continue;
            }
            let k = self.granular.min(p.neighbours[u].len());
            let mut i = 0;
            while i < k {
                let v = p.neighbours[u][i] as usize;
                i += 1;
                if !sol.is_assigned(v) {
                    continue;
                }
                if deadline.tick() {
                    self.stop();
                    return;
                }
                if let Some((op, m)) = first_improving(p, sol, u, v) {
                    operators::apply(p, sol, &m);
                    self.counters.applied[op] += 1;
                    self.activate(v);
                    for nb in [u, v] {
                        // the route neighbours of both ends changed too
                        let r = sol.route_of[nb] as usize;
                        let pos = sol.pos_of[nb] as usize;
                        let jobs = &sol.routes[r].jobs;
                        let around: Vec<u32> =
                            jobs[pos.saturating_sub(1)..(pos + 2).min(jobs.len())].to_vec();
                        for j in around {
                            self.activate(j as usize);
                        }
                    }
                    if !sol.is_assigned(u) {
                        break;
                    }
                    i = 0; // u's surroundings changed: look at its neighbours again
                }
            }
        }
    }
}

impl LocalSearch {
    /// Forget the pending jobs (the next run starts from its own).
    fn stop(&mut self) {
        for &j in &self.queue {
            self.active[j as usize] = false;
        }
        self.queue.clear();
    }
}

fn first_improving(
    p: &FleetProblem,
    sol: &mut Solution,
    u: usize,
    v: usize,
) -> Option<(usize, Move)> {
    let improving = |m: Option<Move>| m.filter(|m| m.delta < FleetCost::ZERO);
    if let Some(m) = improving(relocate::evaluate(p, sol, u, v)) {
        return Some((0, m));
    }
    if let Some(m) = improving(swap::evaluate(p, sol, u, v)) {
        return Some((1, m));
    }
    if let Some(m) = improving(two_opt_star::evaluate(p, sol, u, v)) {
        return Some((2, m));
    }
    if let Some(m) = improving(cross_exchange::evaluate(p, sol, u, v)) {
        return Some((3, m));
    }
    if p.has_pairs {
        if let Some(m) = improving(pair_relocate::evaluate(p, sol, u, v)) {
            return Some((4, m));
        }
    }
    None
}
