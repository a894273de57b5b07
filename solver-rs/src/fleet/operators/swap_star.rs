//! SWAP* (Vidal 2022, "Hybrid genetic search for the CVRP: open-source
//! implementation and SWAP* neighborhood"): exchange u of route A with v of
//! route B where each goes to its best place in the other route, not
//! necessarily the place the other one left.
//!
//! Per route pair: every job's three cheapest insertion places in the other
//! route by distance (places whose time windows already fail with the route
//! as it is are left out: O(1) each from the route's segments), and every
//! job's removal gain; then for each (u, v) the best estimate of v at one of
//! its places in A (or in u's place) and u at one of its places in B (or in
//! v's place), places next to the job leaving being replaced by its place.
//! The estimate is the exact change of the routes' distance; the candidates
//! that shorten them are priced exactly with `operators::price` (windows,
//! capacities, deadlines, breaks, costs) in increasing order of estimate,
//! at most `MAX_EXACT` per pair, and the first that improves is the move.
//! The estimate ignores vehicles' different distance costs (a mixed fleet);
//! a move that lengthens the routes but costs less is left to the other operators.
//!
//! The descent's pass (`local_search`, off by default: it did not win at
//! equal time, docs/benchmarks.md) exchanges only the jobs that have a job of
//! the other route among their few nearest (`near`): the full quadratic scan
//! of each pair cost a third of the search's iterations.
//!
//! Shipment jobs are skipped (their ends must stay in one route: pair relocate).

use super::{price, Move, NewRoute};
use crate::fleet::deadline::Deadline;
use crate::fleet::model::{FleetProblem, Role};
use crate::fleet::solution::{job_segment, Piece, Solution};

/// Insertion places kept per (job, route), as in Vidal's implementation.
pub const TOP: usize = 3;
/// Exact pricings per route pair at most, the cheapest estimates first.
pub const MAX_EXACT: usize = 8;

const NO_POS: u32 = u32::MAX;

/// A job's cheapest insertion places in a route (before jobs[pos]; NO_POS
/// = none), cheapest first; `allowed` false when the job cannot go there at all.
#[derive(Clone, Copy)]
struct Top {
    cost: [i64; TOP],
    pos: [u32; TOP],
    allowed: bool,
}

impl Top {
    const NONE: Top = Top {
        cost: [i64::MAX; TOP],
        pos: [NO_POS; TOP],
        allowed: false,
    };

    fn add(&mut self, cost: i64, pos: u32) {
        let mut i = TOP;
        while i > 0 && cost < self.cost[i - 1] {
            i -= 1;
        }
        if i == TOP {
            return;
        }
        for k in (i + 1..TOP).rev() {
            self.cost[k] = self.cost[k - 1];
            self.pos[k] = self.pos[k - 1];
        }
        self.cost[i] = cost;
        self.pos[i] = pos;
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Candidate {
    estimate: i64,
    /// positions of u in A and v in B, and where v goes in A and u in B
    /// (positions of the routes as they are; pu for v in A means u's place)
    pu: u32,
    pv: u32,
    ka: u32,
    kb: u32,
}

/// Buffers reused from one route pair to the next.
#[derive(Default)]
pub struct SwapStar {
    /// per job of A: its places in B, its removal gain from A; and the other way round
    into_b: Vec<Top>,
    into_a: Vec<Top>,
    gain_a: Vec<i64>,
    gain_b: Vec<i64>,
    candidates: Vec<Candidate>,
}

/// Location before and after position k of route r (k = 0..=len): the
/// vehicle's start and end at the ends.
fn around(p: &FleetProblem, sol: &Solution, r: usize, k: usize) -> (usize, usize) {
    let route = &sol.routes[r];
    let veh = &p.vehicles[route.vehicle];
    let loc = |i: usize| p.jobs[route.jobs[i] as usize].loc;
    let prev = if k == 0 { veh.start } else { loc(k - 1) };
    let next = if k == route.len() { veh.end } else { loc(k) };
    (prev, next)
}

/// The new route r without the job at `out` and with `job` before position k
/// (k = out or out + 1: in its place).
pub fn exchanged(r: usize, out: usize, job: usize, k: usize) -> NewRoute {
    let j = Piece::Job(job as u32);
    if k == out || k == out + 1 {
        NewRoute::new(r, &[Piece::Prefix(r, out), j, Piece::Suffix(r, out + 1)])
    } else if k < out {
        NewRoute::new(
            r,
            &[
                Piece::Prefix(r, k),
                j,
                Piece::Range(r, k, out),
                Piece::Suffix(r, out + 1),
            ],
        )
    } else {
        NewRoute::new(
            r,
            &[
                Piece::Prefix(r, out),
                Piece::Range(r, out + 1, k),
                j,
                Piece::Suffix(r, k),
            ],
        )
    }
}

fn swappable(p: &FleetProblem, j: usize) -> bool {
    !p.has_pairs || p.role[j] == Role::Plain
}

impl SwapStar {
    pub fn new() -> SwapStar {
        SwapStar::default()
    }

    /// The best places of each job of route `from` in route `to` (`tops`)
    /// and each one's removal gain from `from` (`gains`).
    fn prepare(
        p: &FleetProblem,
        sol: &Solution,
        from: usize,
        to: usize,
        near: usize,
        tops: &mut Vec<Top>,
        gains: &mut Vec<i64>,
    ) {
        tops.clear();
        gains.clear();
        let (rf, rt) = (&sol.routes[from], &sol.routes[to]);
        let vt = rt.vehicle;
        for (i, &j) in rf.jobs.iter().enumerate() {
            let j = j as usize;
            let loc = p.jobs[j].loc;
            let (prev, next) = (around(p, sol, from, i).0, around(p, sol, from, i + 1).1);
            gains.push(p.d(prev, next) - p.d(prev, loc) - p.d(loc, next));
            let mut top = Top::NONE;
            let close = near == 0
                || p.neighbours[j][..near.min(p.neighbours[j].len())]
                    .iter()
                    .any(|&n| sol.route_of[n as usize] as usize == to);
            if close && swappable(p, j) && p.allows(j, vt) {
                top.allowed = true;
                let js = job_segment(p, j);
                for k in 0..=rt.len() {
                    let (a, b) = around(p, sol, to, k);
                    let cost = p.d(a, loc) + p.d(loc, b) - p.d(a, b);
                    // the windows only for a place that would enter the top
                    if cost < top.cost[TOP - 1]
                        && rt.fwd[k].then(&js, p).then(&rt.bwd_end[k], p).feasible()
                    {
                        top.add(cost, k as u32);
                    }
                }
            }
            tops.push(top);
        }
    }

    /// The best SWAP* between routes a and b (both with jobs), or None when no
    /// candidate improves or the deadline passes. `near` > 0: only the jobs
    /// with a job of the other route among their `near` nearest are exchanged
    /// (0: every job, as Vidal's). `only`: just that (u of a, v of b).
    #[allow(clippy::too_many_arguments)]
    pub fn between(
        &mut self,
        p: &FleetProblem,
        sol: &mut Solution,
        a: usize,
        b: usize,
        near: usize,
        only: Option<(usize, usize)>,
        deadline: &Deadline,
    ) -> Option<Move> {
        if a == b || sol.routes[a].is_empty() || sol.routes[b].is_empty() {
            return None;
        }
        Self::prepare(p, sol, a, b, near, &mut self.into_b, &mut self.gain_a);
        Self::prepare(p, sol, b, a, near, &mut self.into_a, &mut self.gain_b);
        self.candidates.clear();
        let (ra, rb) = (&sol.routes[a], &sol.routes[b]);
        let (va, vb) = (ra.vehicle, rb.vehicle);
        // capacity after the exchange, checked before anything is priced when the load only falls
        let loads = !p.profile;
        let (cap_a, cap_b) = (p.vehicle_capacity(va), p.vehicle_capacity(vb));
        let mut load_a = [0i64; crate::fleet::model::MAX_DIMS];
        let mut load_b = load_a;
        if loads {
            for d in 0..p.dims {
                load_a[d] = ra.total_load(p, d);
                load_b[d] = rb.total_load(p, d);
            }
        }
        for pu in 0..ra.len() {
            let u = ra.jobs[pu] as usize;
            if only.map_or(false, |o| o.0 != u) || !self.into_b[pu].allowed {
                continue;
            }
            if deadline.tick() {
                return None;
            }
            let (ua, ub) = (around(p, sol, a, pu).0, around(p, sol, a, pu + 1).1);
            let base_ua = p.d(ua, ub);
            let du = p.job_demand(u);
            for pv in 0..rb.len() {
                let v = rb.jobs[pv] as usize;
                if only.map_or(false, |o| o.1 != v) || !self.into_a[pv].allowed {
                    continue;
                }
                if loads {
                    let dv = p.job_demand(v);
                    if (0..p.dims).any(|d| {
                        load_a[d] - du[d] + dv[d] > cap_a[d] || load_b[d] - dv[d] + du[d] > cap_b[d]
                    }) {
                        continue;
                    }
                }
                let removal = self.gain_a[pu] + self.gain_b[pv];
                let (lu, lv) = (p.jobs[u].loc, p.jobs[v].loc);
                // v into A: in u's place, or one of its places not next to u
                let mut in_a = [(0i64, NO_POS); TOP + 1];
                in_a[0] = (p.d(ua, lv) + p.d(lv, ub) - base_ua, pu as u32);
                let mut na = 1;
                let ta = &self.into_a[pv];
                for i in 0..TOP {
                    let k = ta.pos[i];
                    if k != NO_POS && k != pu as u32 && k != pu as u32 + 1 {
                        in_a[na] = (ta.cost[i], k);
                        na += 1;
                    }
                }
                // u into B, the same way
                let (vb0, vb1) = (around(p, sol, b, pv).0, around(p, sol, b, pv + 1).1);
                let mut in_b = [(0i64, NO_POS); TOP + 1];
                in_b[0] = (p.d(vb0, lu) + p.d(lu, vb1) - p.d(vb0, vb1), pv as u32);
                let mut nb = 1;
                let tb = &self.into_b[pu];
                for i in 0..TOP {
                    let k = tb.pos[i];
                    if k != NO_POS && k != pv as u32 && k != pv as u32 + 1 {
                        in_b[nb] = (tb.cost[i], k);
                        nb += 1;
                    }
                }
                for &(ca, ka) in &in_a[..na] {
                    for &(cb, kb) in &in_b[..nb] {
                        let estimate = removal + ca + cb;
                        if estimate < 0 {
                            self.candidates.push(Candidate {
                                estimate,
                                pu: pu as u32,
                                pv: pv as u32,
                                ka,
                                kb,
                            });
                        }
                    }
                }
            }
        }
        if self.candidates.is_empty() {
            return None;
        }
        self.candidates.sort_unstable();
        for i in 0..self.candidates.len().min(MAX_EXACT) {
            let c = self.candidates[i];
            let (pu, pv) = (c.pu as usize, c.pv as usize);
            let u = sol.routes[a].jobs[pu] as usize;
            let v = sol.routes[b].jobs[pv] as usize;
            let m = price(
                p,
                sol,
                &[
                    exchanged(a, pu, v, c.ka as usize),
                    exchanged(b, pv, u, c.kb as usize),
                ],
            );
            if let Some(m) = m {
                if m.delta < crate::fleet::solution::FleetCost::ZERO {
                    return Some(m);
                }
            }
        }
        None
    }
}

/// The best SWAP* of u and v (in two different routes), when it improves.
pub fn evaluate(p: &FleetProblem, sol: &mut Solution, u: usize, v: usize) -> Option<Move> {
    let ((ru, _), (rv, _)) = (sol.place(u)?, sol.place(v)?);
    SwapStar::new().between(p, sol, ru, rv, 0, Some((u, v)), &Deadline::none())
}
