//! Heuristic search: deadline-aware construction, then iterated local search
//! (2-opt with direction-aware pricing, Or-opt 1..3 both orientations,
//! relocate, swap; neighbour lists and don't-look bits; segment double-bridge
//! perturbation, accept if not worse).
//!
//! A move is described as a concatenation of position intervals of the
//! current route, each kept forward or reversed. Forward and backward prefix
//! sums price any interval in O(1); without lateness, deadline feasibility of
//! an interval is an O(1) range-minimum query ("latest start" of the interval);
//! with lateness the cost is recomputed exactly, stopping early once it cannot
//! beat the current cost.

use std::collections::VecDeque;

use crate::problem::{Cost, Problem};
use crate::rng::Rng;

/// Host clock in milliseconds (monotonic).
pub trait Clock {
    fn now_ms(&self) -> f64;
}

#[derive(Clone, Debug)]
pub struct Params {
    pub seed: u64,
    /// 0 = no time limit.
    pub time_limit_ms: f64,
    /// 0 = no cap on ILS iterations.
    pub max_iterations: u64,
    /// Stop after this many iterations without improving the best; 0 = default.
    pub stall_iterations: u64,
}

impl Default for Params {
    fn default() -> Params {
        Params {
            seed: 1,
            time_limit_ms: 0.0,
            max_iterations: 0,
            stall_iterations: 0,
        }
    }
}

pub fn default_stall(n: usize) -> u64 {
    50 * n as u64 + 500
}

pub const NEIGHBOURS: usize = 10;
const STRICT_OR: bool = true;
const USE_OR3: bool = true;
/// Threshold acceptance: a kicked route up to this many parts per million
/// longer than the current one (same lateness) is accepted.
pub const ACCEPT_PPM: i64 = 3000;
/// Restart from the best route after this many non-improving iterations.
pub const RESET_EVERY: u64 = 200;

/// One piece of a rearranged route: positions a..=b of the current route.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Iv {
    pub a: usize,
    pub b: usize,
    pub rev: bool,
}

#[inline(always)]
fn fw(a: usize, b: usize) -> Iv {
    Iv { a, b, rev: false }
}

#[inline(always)]
fn rv(a: usize, b: usize) -> Iv {
    Iv { a, b, rev: true }
}

/// Sparse table for range minimum.
#[derive(Clone, Debug, Default)]
struct Rmq {
    lv: Vec<Vec<i64>>,
}

impl Rmq {
    fn build(&mut self, keys: &[i64]) {
        let len = keys.len();
        let mut levels = 1;
        while (1usize << levels) <= len {
            levels += 1;
        }
        self.lv.resize(levels, Vec::new());
        self.lv[0].clear();
        self.lv[0].extend_from_slice(keys);
        for k in 1..levels {
            let half = 1usize << (k - 1);
            let (lo, hi) = self.lv.split_at_mut(k);
            let prev = &lo[k - 1];
            let cur = &mut hi[0];
            cur.clear();
            if len >= (1 << k) {
                for i in 0..=(len - (1 << k)) {
                    cur.push(prev[i].min(prev[i + half]));
                }
            }
        }
    }

    #[inline(always)]
    fn query(&self, a: usize, b: usize) -> i64 {
        let span = b - a + 1;
        let k = (usize::BITS - 1 - span.leading_zeros()) as usize;
        let l = &self.lv[k];
        l[a].min(l[b + 1 - (1 << k)])
    }
}

pub struct Search<'p> {
    p: &'p Problem,
    n: usize,
    /// route by position: r[0] = 0 (start), r[n+1] = n+1 (end)
    r: Vec<usize>,
    pos: Vec<usize>,
    /// fwd[k] = arrival time at position k; bwd[k] = sum of reversed edge weights before k
    fwd: Vec<i64>,
    bwd: Vec<i64>,
    /// lp[k] = lateness of positions < k; ls[k] = lateness of positions >= k
    lp: Vec<i64>,
    ls: Vec<i64>,
    rf: Rmq,
    rb: Rmq,
    keys: Vec<i64>,
    pub cost: Cost,
    nbrs: Vec<Vec<(i64, usize)>>,
    queue: VecDeque<usize>,
    inq: Vec<bool>,
    scratch: Vec<usize>,
    pub evals: u64,
    pub moves: u64,
}

impl<'p> Search<'p> {
    pub fn new(p: &'p Problem, route: &[usize]) -> Search<'p> {
        let n = p.n;
        assert_eq!(route.len(), n + 2);
        let k = NEIGHBOURS.min(n.saturating_sub(1));
        // Candidate neighbours of a stop: the other stops by the shorter of the
        // two directions, plus the start (key: start -> stop) and, when the
        // route has a real end point, the end (key: stop -> end).
        let mut nbrs = vec![Vec::new(); n + 2];
        for a in 1..=n {
            let mut cand: Vec<(i64, usize)> = (1..=n)
                .filter(|&c| c != a)
                .map(|c| (p.d(a, c).min(p.d(c, a)), c))
                .collect();
            cand.push((p.d(0, a), 0));
            if p.has_end {
                cand.push((p.d(a, n + 1), n + 1));
            }
            cand.sort();
            cand.truncate(k + 1);
            nbrs[a] = cand;
        }
        let mut s = Search {
            p,
            n,
            r: route.to_vec(),
            pos: vec![0; n + 2],
            fwd: vec![0; n + 2],
            bwd: vec![0; n + 2],
            lp: vec![0; n + 3],
            ls: vec![0; n + 3],
            rf: Rmq::default(),
            rb: Rmq::default(),
            keys: Vec::with_capacity(n + 2),
            cost: Cost::default(),
            nbrs,
            queue: VecDeque::with_capacity(n + 2),
            inq: vec![false; n + 2],
            scratch: Vec::with_capacity(n + 2),
            evals: 0,
            moves: 0,
        };
        s.refresh();
        s
    }

    pub fn route(&self) -> &[usize] {
        &self.r
    }

    pub fn set_route(&mut self, route: &[usize]) {
        debug_assert_eq!(route.len(), self.r.len());
        let k0 = self.r.iter().zip(route.iter()).position(|(a, b)| a != b);
        if let Some(k0) = k0 {
            self.r[k0..].copy_from_slice(&route[k0..]);
            self.refresh_from(k0);
        }
    }

    /// Debug check: the incrementally maintained arrays equal a full rebuild.
    #[cfg(debug_assertions)]
    fn check_state(&self) {
        let p = self.p;
        let mut f = 0;
        let mut b = 0;
        for k in 0..self.n + 2 {
            if k > 0 {
                f += p.w(self.r[k - 1], self.r[k]);
                b += p.w(self.r[k], self.r[k - 1]);
            }
            assert_eq!(self.pos[self.r[k]], k);
            assert_eq!(self.fwd[k], f);
            assert_eq!(self.bwd[k], b);
        }
        assert_eq!(self.cost, p.route_cost(&self.r));
    }

    fn refresh(&mut self) {
        self.refresh_from(0);
    }

    /// Recompute the derived arrays for positions >= k0 (positions before k0
    /// are unchanged since the last refresh).
    fn refresh_from(&mut self, k0: usize) {
        let p = self.p;
        let len = self.n + 2;
        if k0 == 0 {
            self.fwd[0] = 0;
            self.bwd[0] = 0;
            self.pos[self.r[0]] = 0;
        }
        let mut k = k0.max(1);
        let mut f = self.fwd[k - 1];
        let mut b = self.bwd[k - 1];
        let mut x = self.r[k - 1];
        while k < len {
            let y = self.r[k];
            self.pos[y] = k;
            f += p.w(x, y);
            b += p.w(y, x);
            self.fwd[k] = f;
            self.bwd[k] = b;
            x = y;
            k += 1;
        }
        if !p.has_deadlines {
            // lateness is always 0; lp/ls stay all zeros
            self.cost = Cost {
                lateness: 0,
                duration: self.fwd[len - 1],
            };
            return;
        }
        let mut late = 0;
        self.lp[0] = 0;
        for k in 0..len {
            let l = (self.fwd[k] - p.dl[self.r[k]]).max(0);
            late += l;
            self.lp[k + 1] = late;
        }
        for k in 0..=len {
            self.ls[k] = late - self.lp[k];
        }
        self.cost = Cost {
            lateness: late,
            duration: self.fwd[len - 1],
        };
        if p.has_deadlines {
            self.keys.clear();
            for k in 0..len {
                self.keys.push(p.dl[self.r[k]].saturating_sub(self.fwd[k]));
            }
            self.rf.build(&self.keys);
            self.keys.clear();
            for k in 0..len {
                self.keys.push(p.dl[self.r[k]].saturating_add(self.bwd[k]));
            }
            self.rb.build(&self.keys);
        }
    }

    /// Exact cost of the rearranged route if it is strictly better than
    /// `bound`, else None. `ivs` must partition 0..=n+1, first starts at 0.
    #[inline]
    pub fn eval(&mut self, ivs: &[Iv], bound: Cost) -> Option<Cost> {
        self.evals += 1;
        let p = self.p;
        let r = &self.r;
        if self.cost.lateness == 0 {
            // No lateness now: any lateness makes the move worse. The first
            // interval (0..=b, forward) is unchanged and on time.
            let iv0 = ivs[0];
            debug_assert!(iv0.a == 0 && !iv0.rev);
            let mut t = self.fwd[iv0.b];
            let mut prev = r[iv0.b];
            for iv in &ivs[1..] {
                let (first, last) = if iv.rev {
                    (r[iv.b], r[iv.a])
                } else {
                    (r[iv.a], r[iv.b])
                };
                t += p.w(prev, first);
                if p.has_deadlines {
                    let latest = if iv.rev {
                        self.rb.query(iv.a, iv.b) - self.bwd[iv.b]
                    } else {
                        self.rf.query(iv.a, iv.b) + self.fwd[iv.a]
                    };
                    if t > latest {
                        return None;
                    }
                }
                t += if iv.rev {
                    self.bwd[iv.b] - self.bwd[iv.a]
                } else {
                    self.fwd[iv.b] - self.fwd[iv.a]
                };
                prev = last;
            }
            let c = Cost {
                lateness: 0,
                duration: t,
            };
            if c < bound {
                Some(c)
            } else {
                None
            }
        } else {
            self.eval_late(ivs, bound)
        }
    }

    /// `eval` when the route is late somewhere: exact recomputation with
    /// early exits (prefix lateness is reused; an unchanged tail is priced
    /// in O(1) when not shifted).
    #[inline(never)]
    fn eval_late(&self, ivs: &[Iv], bound: Cost) -> Option<Cost> {
        let p = self.p;
        let r = &self.r;
        let iv0 = ivs[0];
        debug_assert!(iv0.a == 0 && !iv0.rev);
        let mut late = self.lp[iv0.b + 1];
        let mut t = self.fwd[iv0.b];
        let mut prev = r[iv0.b];
        let end_pos = self.n + 1;
        for iv in &ivs[1..] {
            if !iv.rev && iv.b == end_pos {
                // unchanged tail shifted by delta: duration is exact in O(1),
                // lateness is bounded by the current tail lateness
                let t_first = t + p.w(prev, r[iv.a]);
                let delta = t_first - self.fwd[iv.a];
                if delta == 0 {
                    late += self.ls[iv.a];
                    t = self.fwd[end_pos];
                    prev = r[end_pos];
                    continue;
                }
                let dur = self.fwd[end_pos] + delta;
                let lb = if delta > 0 {
                    late + self.ls[iv.a]
                } else {
                    late
                };
                if (Cost {
                    lateness: lb,
                    duration: dur,
                }) >= bound
                {
                    return None;
                }
            }
            if late > bound.lateness {
                return None;
            }
            if iv.rev {
                let mut k = iv.b + 1;
                while k > iv.a {
                    k -= 1;
                    let x = r[k];
                    t += p.w(prev, x);
                    let dl = p.dl[x];
                    if t > dl {
                        late += t - dl;
                    }
                    prev = x;
                }
            } else {
                for k in iv.a..=iv.b {
                    let x = r[k];
                    t += p.w(prev, x);
                    let dl = p.dl[x];
                    if t > dl {
                        late += t - dl;
                    }
                    prev = x;
                }
            }
        }
        let c = Cost {
            lateness: late,
            duration: t,
        };
        if c < bound {
            Some(c)
        } else {
            None
        }
    }

    /// Rebuild the route from intervals; wake the nodes at the boundaries.
    pub fn apply(&mut self, ivs: &[Iv], expected: Cost) {
        self.moves += 1;
        for iv in ivs {
            let (x, y) = (self.r[iv.a], self.r[iv.b]);
            self.push(x);
            self.push(y);
        }
        materialize_into(&self.r, ivs, &mut self.scratch);
        debug_assert_eq!(self.scratch.len(), self.n + 2);
        std::mem::swap(&mut self.r, &mut self.scratch);
        let before = self.cost;
        self.refresh_from(ivs[0].b + 1);
        debug_assert_eq!(self.cost, expected, "delta mismatch from {:?}", before);
        #[cfg(debug_assertions)]
        self.check_state();
        let _ = (before, expected);
        debug_assert_eq!(self.cost, self.p.route_cost(&self.r));
    }

    #[inline]
    fn try_move(&mut self, ivs: &[Iv]) -> bool {
        let bound = self.cost;
        if let Some(c) = self.eval(ivs, bound) {
            self.apply(ivs, c);
            true
        } else {
            false
        }
    }

    /// Try moves around stop `a`; applies the first improving one.
    fn improve_node(&mut self, a: usize) -> bool {
        let p = self.p;
        let n = self.n;
        let late_mode = self.cost.lateness > 0;
        let pa = self.pos[a];
        let a_late = self.fwd[pa] > p.dl[a];
        let gmax = p.d(self.r[pa - 1], a).max(p.d(a, self.r[pa + 1]));
        let nb = self.nbrs[a].len();
        for ci in 0..nb {
            let (key, c) = self.nbrs[a][ci];
            // cheap gain bound: the new edge at `a` must be shorter than an edge removed at `a`
            if key >= gmax && !(late_mode && a_late) {
                break;
            }
            let pa = self.pos[a];
            let pc = self.pos[c];
            if for_each_move(n, pa, pc, |ivs| self.try_move(ivs)) {
                return true;
            }
        }
        if USE_OR3 && self.try_or3(a) {
            return true;
        }
        if late_mode && self.fwd[self.pos[a]] > p.dl[a] {
            // late stop: best earlier position for it
            let pa = self.pos[a];
            let mut best: Option<(Cost, usize)> = None;
            for q in 0..pa.saturating_sub(1) {
                let bound = best.map(|b| b.0).unwrap_or(self.cost);
                let ivs = relocate_earlier(n, pa, q);
                if let Some(c) = self.eval(&ivs, bound) {
                    best = Some((c, q));
                }
            }
            if let Some((c, q)) = best {
                self.apply(&relocate_earlier(n, pa, q), c);
                return true;
            }
        }
        false
    }

    /// Or-3opt (orientation-preserving sequential 3-opt, "segment swap" of
    /// any lengths) found LK-style from `a`: remove a -> succ(a), add a -> c,
    /// remove pred(c) -> c, add pred(c) -> e, remove pred(e) -> e, close
    /// pred(e) -> succ(a). Partial gains must stay positive (travel times).
    fn try_or3(&mut self, a: usize) -> bool {
        let p = self.p;
        let n = self.n;
        let p1 = self.pos[a];
        let a_next = self.r[p1 + 1];
        let g0 = p.d(a, a_next);
        let nb = self.nbrs[a].len();
        for ci in 0..nb {
            let (key, c) = self.nbrs[a][ci];
            if key >= g0 {
                break;
            }
            let pc = self.pos[c];
            if pc == 0 || pc == p1 + 1 || pc == p1 {
                continue;
            }
            let g1 = g0 - p.d(a, c);
            if g1 <= 0 {
                continue;
            }
            let p2 = pc - 1;
            let t2 = self.r[p2];
            let g1b = g1 + p.d(t2, c);
            let ne = self.nbrs[t2].len();
            for ei in 0..ne {
                let (key2, e) = self.nbrs[t2][ei];
                if key2 >= g1b {
                    break;
                }
                let pe = self.pos[e];
                if pe == 0 || e == c {
                    continue;
                }
                if g1b - p.d(t2, e) <= 0 {
                    continue;
                }
                if let Some(ivs) = or3_move(n, p1, p2, pe - 1) {
                    if self.try_move(&ivs) {
                        return true;
                    }
                }
            }
        }
        false
    }

    fn push(&mut self, x: usize) {
        if x >= 1 && x <= self.n && !self.inq[x] {
            self.inq[x] = true;
            self.queue.push_back(x);
        }
    }

    pub fn wake_all(&mut self) {
        for x in 1..=self.n {
            self.push(x);
        }
    }

    /// Local search until no queued stop improves (or time runs out).
    pub fn local_search(&mut self, timer: &Timer) {
        let mut pops = 0u32;
        while let Some(a) = self.queue.pop_front() {
            self.inq[a] = false;
            if self.improve_node(a) {
                self.push(a);
            }
            pops += 1;
            if pops & 63 == 0 && timer.expired() {
                while let Some(x) = self.queue.pop_front() {
                    self.inq[x] = false;
                }
                return;
            }
        }
    }

    /// Segment double bridge: swap two adjacent random segments
    /// (A B C D -> A C B D with the start and end fixed).
    pub fn perturb(&mut self, rng: &mut Rng) {
        let n = self.n;
        if n < 3 {
            return;
        }
        let lmax = (n / 3).clamp(1, 50);
        // Without lateness, prefer a kick that keeps the route on time (an
        // O(1) check): repairing lateness is the expensive part of the search.
        let mut ivs = [Iv {
            a: 0,
            b: 0,
            rev: false,
        }; 4];
        for attempt in 0..8 {
            // halve the segment lengths after each rejected attempt
            let lm = (lmax >> (attempt / 2)).max(1);
            let l1 = rng.range(1, lm);
            let l2 = rng.range(1, lm);
            let p0 = rng.range(1, n + 1 - l1 - l2);
            ivs = perturbation(n, p0, l1, l2);
            if !self.p.has_deadlines || self.cost.lateness > 0 || attempt == 7 {
                break;
            }
            if self
                .eval(
                    &ivs,
                    Cost {
                        lateness: 1,
                        duration: i64::MIN,
                    },
                )
                .is_some()
            {
                break;
            }
        }
        // wake the stops at both ends of every changed edge, then rebuild
        for iv in ivs.iter() {
            let (x, y) = (self.r[iv.a], self.r[iv.b]);
            self.push(x);
            self.push(y);
            if iv.a > 0 {
                let z = self.r[iv.a - 1];
                self.push(z);
            }
            if iv.b <= n {
                let z = self.r[iv.b + 1];
                self.push(z);
            }
        }
        materialize_into(&self.r, &ivs, &mut self.scratch);
        std::mem::swap(&mut self.r, &mut self.scratch);
        self.refresh_from(ivs[0].b + 1);
    }
}

/// Every move of the neighbourhood that brings the stop at position `pa`
/// next to the node at position `pc` (a stop, the start at 0 or the end at
/// n+1): 2-opt (both directions), Or-opt of 1..3 stops with `a` at either end
/// of the segment inserted before/after `c` in both orientations, and swaps of
/// `a` with a neighbour of `c`. Calls `f` with each move's intervals and stops
/// at the first `true` (returned).
pub fn for_each_move<F: FnMut(&[Iv]) -> bool>(n: usize, pa: usize, pc: usize, mut f: F) -> bool {
    let end = n + 1;
    // 2-opt: reverse i..=j
    let cands = [
        (pa + 1, pc, pa + 1 < pc),
        (pa, pc.wrapping_sub(1), pa + 1 < pc),
        (pc + 1, pa, pc + 1 < pa),
        (pc, pa.wrapping_sub(1), pc + 1 < pa),
    ];
    for &(i, j, ok) in cands.iter() {
        if ok && i >= 1 && i < j && j <= n && f(&[fw(0, i - 1), rv(i, j), fw(j + 1, end)]) {
            return true;
        }
    }
    // Or-opt: segment of 1..3 stops with `a` at one end, next to `c`
    for l in 1..=3usize {
        for &a_first in [true, false].iter() {
            if l == 1 && !a_first {
                continue;
            }
            let (s, e) = if a_first {
                if pa + l - 1 > n {
                    continue;
                }
                (pa, pa + l - 1)
            } else {
                if pa < l {
                    continue;
                }
                (pa + 1 - l, pa)
            };
            if pc >= s && pc <= e {
                continue;
            }
            for &q in [pc, pc.wrapping_sub(1)].iter() {
                if q > n || (q + 1 >= s && q <= e) {
                    continue;
                }
                for &rev in [false, true].iter() {
                    if l == 1 && rev {
                        continue;
                    }
                    // only orientations that put `a` next to `c`
                    if l > 1 && STRICT_OR && rev != ((q == pc) != a_first) {
                        continue;
                    }
                    let seg = Iv { a: s, b: e, rev };
                    let ok = if q + 1 < s {
                        f(&[fw(0, q), seg, fw(q + 1, s - 1), fw(e + 1, end)])
                    } else {
                        f(&[fw(0, s - 1), fw(e + 1, q), seg, fw(q + 1, end)])
                    };
                    if ok {
                        return true;
                    }
                }
            }
        }
    }
    // swap `a` with a neighbour of `c`
    for &t in [pc.wrapping_sub(1), pc + 1].iter() {
        if t == 0 || t > n || t == pa {
            continue;
        }
        let (i, j) = if t < pa { (t, pa) } else { (pa, t) };
        let ok = if j == i + 1 {
            f(&[fw(0, i - 1), fw(j, j), fw(i, i), fw(j + 1, end)])
        } else {
            f(&[
                fw(0, i - 1),
                fw(j, j),
                fw(i + 1, j - 1),
                fw(i, i),
                fw(j + 1, end),
            ])
        };
        if ok {
            return true;
        }
    }
    false
}

/// Segment double bridge at position p0 with segment lengths l1, l2.
pub fn perturbation(n: usize, p0: usize, l1: usize, l2: usize) -> [Iv; 4] {
    [
        fw(0, p0 - 1),
        fw(p0 + l1, p0 + l1 + l2 - 1),
        fw(p0, p0 + l1 - 1),
        fw(p0 + l1 + l2, n + 1),
    ]
}

/// Or-3opt: remove the edges leaving positions p1, p2, p3 and reconnect
/// r[p1] -> r[p2+1], r[p2] -> r[p3+1], r[p3] -> r[p1+1] (swap of two adjacent
/// segments, orientation kept). None unless (p1, p2, p3) are in cyclic
/// increasing order.
#[allow(clippy::nonminimal_bool)] // the readable form of "cyclic order"
pub fn or3_move(n: usize, p1: usize, p2: usize, p3: usize) -> Option<[Iv; 4]> {
    let cyclic = (p1 < p2 && p2 < p3) || (p2 < p3 && p3 < p1) || (p3 < p1 && p1 < p2);
    let in_range = p1.max(p2).max(p3) <= n;
    if !(cyclic && in_range) {
        return None;
    }
    let mut v = [p1, p2, p3];
    v.sort_unstable();
    let (x, y, z) = (v[0], v[1], v[2]);
    Some([fw(0, x), fw(y + 1, z), fw(x + 1, y), fw(z + 1, n + 1)])
}

/// Moving the stop at `pa` to just after position `q < pa - 1`.
pub fn relocate_earlier(n: usize, pa: usize, q: usize) -> [Iv; 4] {
    [fw(0, q), fw(pa, pa), fw(q + 1, pa - 1), fw(pa + 1, n + 1)]
}

/// The route a move produces.
pub fn materialize_into(r: &[usize], ivs: &[Iv], out: &mut Vec<usize>) {
    out.clear();
    for iv in ivs {
        if iv.rev {
            out.extend(r[iv.a..=iv.b].iter().rev());
        } else {
            out.extend_from_slice(&r[iv.a..=iv.b]);
        }
    }
}

/// Time limit helper.
pub struct Timer<'c> {
    clock: &'c dyn Clock,
    start: f64,
    limit: f64,
}

impl<'c> Timer<'c> {
    pub fn new(clock: &'c dyn Clock, limit_ms: f64) -> Timer<'c> {
        Timer {
            clock,
            start: clock.now_ms(),
            limit: limit_ms,
        }
    }
    pub fn expired(&self) -> bool {
        self.limit > 0.0 && self.clock.now_ms() - self.start >= self.limit
    }
}

/// Nearest-neighbour order (internal ids).
pub fn nearest_neighbour(p: &Problem) -> Vec<usize> {
    let n = p.n;
    let mut used = vec![false; n + 2];
    let mut order = Vec::with_capacity(n);
    let mut cur = 0;
    for _ in 0..n {
        let mut best = (i64::MAX, 0usize);
        for c in 1..=n {
            if !used[c] && p.w(cur, c) < best.0 {
                best = (p.w(cur, c), c);
            }
        }
        used[best.1] = true;
        order.push(best.1);
        cur = best.1;
    }
    order
}

/// Stops sorted by deadline (earliest first); stops without one keep
/// nearest-neighbour order at the back.
pub fn deadline_order(p: &Problem) -> Vec<usize> {
    let nn = nearest_neighbour(p);
    let mut with: Vec<usize> = nn
        .iter()
        .cloned()
        .filter(|&s| p.dl[s] < crate::problem::NO_DEADLINE)
        .collect();
    with.sort_by_key(|&s| (p.dl[s], s));
    let without = nn
        .iter()
        .cloned()
        .filter(|&s| p.dl[s] >= crate::problem::NO_DEADLINE);
    with.into_iter().chain(without).collect()
}

/// Insertion in deadline order, each stop at the position minimising the
/// lexicographic cost of the partial route.
pub fn deadline_insertion(p: &Problem) -> Vec<usize> {
    let seq = deadline_order(p);
    let mut route: Vec<usize> = Vec::with_capacity(p.n);
    let mut buf: Vec<usize> = Vec::with_capacity(p.n);
    for &s in seq.iter() {
        let mut best = (Cost::MAX, 0usize);
        for q in 0..=route.len() {
            buf.clear();
            buf.extend_from_slice(&route[..q]);
            buf.push(s);
            buf.extend_from_slice(&route[q..]);
            let c = partial_cost(p, &buf, best.0);
            if c < best.0 {
                best = (c, q);
            }
        }
        route.insert(best.1, s);
    }
    route
}

/// Cost of a partial order (start -> stops -> end), early exit above `bound`.
fn partial_cost(p: &Problem, stops: &[usize], bound: Cost) -> Cost {
    let mut t = 0;
    let mut late = 0;
    let mut prev = 0;
    for &x in stops {
        t += p.w(prev, x);
        late += (t - p.dl[x]).max(0);
        if late > bound.lateness {
            return Cost::MAX;
        }
        prev = x;
    }
    t += p.w(prev, p.end());
    Cost {
        lateness: late,
        duration: t,
    }
}

/// Full heuristic solve for n > EXACT_MAX_STOPS. Returns internal stop order.
pub fn solve_heuristic(p: &Problem, params: &Params, clock: &dyn Clock) -> (Vec<usize>, Cost, u64) {
    let timer = Timer::new(clock, params.time_limit_ms);
    let n = p.n;
    let mut rng = Rng::new(params.seed);
    let mut starts = vec![nearest_neighbour(p)];
    if p.has_deadlines {
        starts.push(deadline_order(p));
        starts.push(deadline_insertion(p));
    }
    let mut init = starts[0].clone();
    let mut init_cost = p.order_cost(&init);
    for s in starts.iter().skip(1) {
        let c = p.order_cost(s);
        if c < init_cost {
            init_cost = c;
            init = s.clone();
        }
    }
    let mut route = Vec::with_capacity(n + 2);
    route.push(0);
    route.extend_from_slice(&init);
    route.push(n + 1);
    let mut s = Search::new(p, &route);
    s.wake_all();
    s.local_search(&timer);
    let mut best = s.route().to_vec();
    let mut best_cost = s.cost;
    let mut cur = best.clone();
    let mut cur_cost = s.cost;
    let stall_limit = if params.stall_iterations > 0 {
        params.stall_iterations
    } else {
        default_stall(n)
    };
    let mut iter = 0u64;
    let mut stall = 0u64;
    loop {
        if params.max_iterations > 0 && iter >= params.max_iterations {
            break;
        }
        if stall >= stall_limit || timer.expired() {
            break;
        }
        iter += 1;
        s.perturb(&mut rng);
        s.local_search(&timer);
        if s.cost < best_cost {
            best_cost = s.cost;
            best.clear();
            best.extend_from_slice(s.route());
            stall = 0;
        } else {
            stall += 1;
        }
        // Acceptance: not worse, or (same lateness) at most ACCEPT_PPM longer
        // than the current route; every RESET_EVERY non-improving iterations
        // the search restarts from the best route.
        let accept = s.cost <= cur_cost
            || (s.cost.lateness == cur_cost.lateness
                && s.cost.duration
                    <= cur_cost.duration + cur_cost.duration * ACCEPT_PPM / 1_000_000);
        if stall > 0 && stall % RESET_EVERY == 0 {
            s.set_route(&best);
            cur_cost = best_cost;
            cur.clear();
            cur.extend_from_slice(&best);
        } else if accept {
            cur_cost = s.cost;
            cur.clear();
            cur.extend_from_slice(s.route());
        } else {
            s.set_route(&cur);
        }
    }
    debug_assert_eq!(p.route_cost(&best), best_cost);
    (best[1..=n].to_vec(), best_cost, iter)
}
