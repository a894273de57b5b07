//! Descent with the inter-route operators on a granular neighbourhood (each
//! job against its `granular` nearest jobs; optionally by time-window
//! correlation, `fleet::correlated`), first improvement, driven by a
//! queue of active jobs in the loop both engines share (`crate::descent`,
//! don't-look bits): after a move, the jobs at both ends of the pair
//! become active again. Once it has converged, a SWAP*
//! pass (`operators::swap_star`) over pairs of routes (see `SwapStarMode`);
//! when it improves, the descent resumes around what moved. A time-limited
//! run stops in the middle of a descent or of a pass when its deadline
//! passes (the solution stays valid).

use super::correlated::correlated_jobs;
use super::deadline::Deadline;
use super::model::FleetProblem;
use super::operators::swap_star::SwapStar;
use super::operators::{
    self, cross_exchange, pair_relocate, relocate, swap, two_opt, two_opt_star, Anchor, Move, Pair,
};
use super::solution::{FleetCost, Piece, Solution};
use crate::descent::{descend, Around, Descent};
use crate::dont_look::DontLookQueue;
use crate::progress::{Operator, Progress};

/// The operators this descent counts (`LocalSearch::progress`). tried: the
/// operator's evaluations of a pair of jobs (each prices every variant of its
/// move around the pair; SWAP*: of a pair of routes); improving: those that
/// returned an improving move; applied: moves applied.
pub const OPERATORS: [Operator; 7] = [
    Operator::Relocate,
    Operator::FleetSwap,
    Operator::TwoOptStar,
    Operator::CrossExchange,
    Operator::PairRelocate,
    Operator::SwapStar,
    Operator::FleetTwoOpt,
];

/// Which route pairs a converged descent hands to SWAP*. Two routes are a
/// pair when a job of one has a job of the other among its `star_links`
/// nearest jobs (the head of the descent's neighbour lists). Vidal's SWAP*
/// pairs routes whose polar sectors around the depot overlap; here there are
/// no coordinates, only matrices, and vehicles may start from different
/// places, so there is no centre to measure angles from: the neighbour lists
/// are the matrix's own notion of two routes serving the same area.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SwapStarMode {
    Off,
    /// The pairs with a route changed since the last pass (at the start of a
    /// run: the routes of its start jobs, every route when it has none).
    Touched,
}

/// The defaults of `LocalSearch::new`, measured in docs/benchmarks.md
/// ("SWAP*"): SWAP* is off. Over every pair of routes with a changed route,
/// linked by the 20 nearest jobs and all their jobs exchanged, it cost 40 %
/// of the iterations at 1 s on Solomon and lost; linked by the 5 nearest and
/// only the jobs with one of their 5 nearest in the other route (the
/// constants below), it cost 4–9 % and was within the noise on Solomon at
/// 1 s, but behind on the Gehring–Homberger 200-customer sample at 30 s.
pub const SWAP_STAR_DEFAULT: SwapStarMode = SwapStarMode::Off;
pub const STAR_LINKS: usize = 5;
pub const STAR_NEAR: usize = 5;

pub struct LocalSearch {
    /// Each job's candidates, nearest first: `correlated::correlated_jobs`
    /// when asked for and the day's windows differ, else None (the
    /// problem's own lists).
    correlated: Option<Vec<Vec<u32>>>,
    queue: DontLookQueue,
    pub granular: usize,
    /// The operator counters, over every run (the driver fills in the rest).
    pub progress: Progress,
    pub swap_star: SwapStarMode,
    /// Two routes are a SWAP* pair when a job of one has a job of the other
    /// among its `star_links` nearest.
    pub star_links: usize,
    /// Only the jobs with a job of the other route among their `star_near`
    /// nearest are exchanged (0: all, Vidal's).
    pub star_near: usize,
    star: SwapStar,
    /// Routes changed since the last SWAP* pass (flags and list).
    touched: Vec<bool>,
    touched_list: Vec<usize>,
}

/// The state the fleet's descent works on: a plan of a problem.
pub struct Plan<'a> {
    pub p: &'a FleetProblem,
    pub sol: &'a mut Solution,
}

impl Descent<Plan<'_>> for LocalSearch {
    /// The clock is read inside `improve_job`, every `STRIDE` pairs
    /// (`Deadline::tick`): one job's pairs may take long on a big day.
    const CLOCK_EVERY: u32 = 0;

    fn queue(&mut self) -> &mut DontLookQueue {
        &mut self.queue
    }

    fn improve_around(&mut self, plan: &mut Plan<'_>, u: usize, deadline: &Deadline) -> Around {
        self.improve_job(plan.p, plan.sol, u, deadline)
    }
}

impl LocalSearch {
    /// Pairs each job with its `granular` nearest by travel time (the problem's own lists).
    pub fn new(p: &FleetProblem, granular: usize) -> LocalSearch {
        LocalSearch::with_correlation(p, granular, false)
    }

    /// `correlated`: by time-window correlation instead when the day's
    /// windows differ (`fleet::correlated`; on from 600 to 1000 jobs by default:
    /// `FleetSettings::correlated_from_jobs`).
    pub fn with_correlation(p: &FleetProblem, granular: usize, correlated: bool) -> LocalSearch {
        LocalSearch {
            correlated: (correlated && p.windows_differ).then(|| correlated_jobs(p, granular)),
            queue: DontLookQueue::new(p.n()),
            granular,
            progress: Progress::default(),
            swap_star: SWAP_STAR_DEFAULT,
            star_links: STAR_LINKS,
            star_near: STAR_NEAR,
            star: SwapStar::new(),
            touched: vec![false; p.vehicles.len()],
            touched_list: Vec::new(),
        }
    }

    fn touch(&mut self, r: usize) {
        if !self.touched[r] {
            self.touched[r] = true;
            self.touched_list.push(r);
        }
    }

    /// Activate j and its neighbours in its route (after a move around it),
    /// in route order.
    fn activate_around(&mut self, sol: &Solution, j: usize) {
        let r = sol.route_of[j] as usize;
        let pos = sol.pos_of[j] as usize;
        let jobs = &sol.routes[r].jobs;
        let (lo, hi) = (pos.saturating_sub(1), (pos + 2).min(jobs.len()));
        for k in lo..hi {
            let n = sol.routes[r].jobs[k] as usize;
            self.activate(n);
        }
    }

    fn activate(&mut self, j: usize) {
        self.queue.wake(j);
    }

    /// The jobs the descent pairs j with, nearest first.
    pub fn candidates<'a>(&'a self, p: &'a FleetProblem, j: usize) -> &'a [u32] {
        match &self.correlated {
            Some(lists) => &lists[j],
            None => &p.neighbours[j],
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
                    if let Some((r, _)) = sol.place(j as usize) {
                        self.touch(r);
                    }
                }
            }
            None => {
                for j in 0..p.n() {
                    self.activate(j);
                }
                for r in 0..sol.routes.len() {
                    self.touch(r);
                }
            }
        }
        loop {
            if !descend(self, &mut Plan { p, sol }, deadline) {
                break;
            }
            if self.swap_star == SwapStarMode::Off || !self.swap_star_pass(p, sol, deadline) {
                break;
            }
        }
        // the next run starts from its own jobs (a descent stopped by the deadline leaves some)
        self.queue.clear();
        for &r in &self.touched_list {
            self.touched[r] = false;
        }
        self.touched_list.clear();
    }

    /// Every pair (u, v) for v among u's candidates, nearest first; after an
    /// applied move, u's candidates again from the nearest (u stays out of
    /// the queue: it has been looked at once nothing around it improves).
    fn improve_job(
        &mut self,
        p: &FleetProblem,
        sol: &mut Solution,
        u: usize,
        deadline: &Deadline,
    ) -> Around {
        if !sol.is_assigned(u) {
            return Around::Exhausted;
        }
        let k = self.granular.min(self.candidates(p, u).len());
        let mut i = 0;
        // u's place and runs, for all its pairs until a move changes the plan
        let mut anchor: Option<Anchor> = None;
        while i < k {
            let v = self.candidates(p, u)[i] as usize;
            i += 1;
            if !sol.is_assigned(v) {
                continue;
            }
            if deadline.tick() {
                return Around::OutOfTime;
            }
            let at_u =
                anchor.get_or_insert_with(|| Anchor::new(p, sol, u).expect("u is in a route"));
            let pair = Pair::new(p, sol, at_u, v).expect("v is in a route");
            if let Some((op, m)) = first_improving(p, sol, &mut self.progress, &pair) {
                anchor = None;
                self.apply(p, sol, op, &m);
                self.activate(v);
                // the route neighbours of both ends changed too
                self.activate_around(sol, u);
                self.activate_around(sol, v);
                if !sol.is_assigned(u) {
                    break;
                }
                i = 0; // u's surroundings changed: look at its neighbours again
            }
        }
        Around::Exhausted
    }

    fn apply(&mut self, p: &FleetProblem, sol: &mut Solution, op: Operator, m: &Move) {
        operators::apply(p, sol, m);
        self.progress.counter(op).applied += 1;
        for nr in &m.routes[..m.count] {
            self.touch(nr.route);
        }
    }

    /// One SWAP* pass over the route pairs with a touched route, applying
    /// each improving move found; true when one was (its jobs are active again).
    fn swap_star_pass(
        &mut self,
        p: &FleetProblem,
        sol: &mut Solution,
        deadline: &Deadline,
    ) -> bool {
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        for (a, route) in sol.routes.iter().enumerate() {
            for &u in &route.jobs {
                let nb = &p.neighbours[u as usize];
                for &v in &nb[..self.star_links.min(nb.len())] {
                    if let Some((b, _)) = sol.place(v as usize) {
                        if b != a && (self.touched[a] || self.touched[b]) {
                            pairs.push((a.min(b) as u32, a.max(b) as u32));
                        }
                    }
                }
            }
        }
        for &r in &self.touched_list {
            self.touched[r] = false;
        }
        self.touched_list.clear();
        pairs.sort_unstable();
        pairs.dedup();
        let mut improved = false;
        for (a, b) in pairs {
            if deadline.tick() {
                return false;
            }
            let (a, b) = (a as usize, b as usize);
            self.progress.counter(Operator::SwapStar).tried += 1;
            if let Some(m) = self
                .star
                .between(p, sol, a, b, self.star_near, None, deadline)
            {
                self.progress.counter(Operator::SwapStar).improving += 1;
                let moved: Vec<u32> = m.routes[..m.count]
                    .iter()
                    .flat_map(|nr| {
                        nr.pieces().iter().filter_map(|pc| match *pc {
                            Piece::Job(j) => Some(j),
                            _ => None,
                        })
                    })
                    .collect();
                self.apply(p, sol, Operator::SwapStar, &m);
                for j in moved {
                    self.activate_around(sol, j as usize);
                }
                improved = true;
            }
        }
        improved && !deadline.tick()
    }
}

fn first_improving(
    p: &FleetProblem,
    sol: &mut Solution,
    progress: &mut Progress,
    pair: &Pair,
) -> Option<(Operator, Move)> {
    let found = counted(
        progress,
        Operator::Relocate,
        relocate::evaluate(p, sol, pair),
    );
    if found.is_some() {
        return found;
    }
    let found = counted(progress, Operator::FleetSwap, swap::evaluate(p, sol, pair));
    if found.is_some() {
        return found;
    }
    let found = counted(
        progress,
        Operator::TwoOptStar,
        two_opt_star::evaluate(p, sol, pair),
    );
    if found.is_some() {
        return found;
    }
    let found = counted(
        progress,
        Operator::CrossExchange,
        cross_exchange::evaluate(p, sol, pair),
    );
    if found.is_some() {
        return found;
    }
    if p.has_pairs {
        let found = counted(
            progress,
            Operator::PairRelocate,
            pair_relocate::evaluate(p, sol, pair),
        );
        if found.is_some() {
            return found;
        }
    }
    counted(
        progress,
        Operator::FleetTwoOpt,
        two_opt::evaluate(p, sol, pair),
    )
}

/// Counts one evaluation of `op` (tried; improving when its move improves)
/// and returns the move when it improves.
fn counted(progress: &mut Progress, op: Operator, m: Option<Move>) -> Option<(Operator, Move)> {
    let counter = progress.counter(op);
    counter.tried += 1;
    let m = m.filter(|m| m.delta < FleetCost::ZERO)?;
    counter.improving += 1;
    Some((op, m))
}
