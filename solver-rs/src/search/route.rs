//! The current route and what prices a move in O(number of segments).
//!
//! Forward and backward prefix sums give the duration of any segment read in
//! either direction (so reversals are exact on asymmetric matrices). Without
//! lateness, the deadline feasibility of a segment shifted in time is a
//! range-minimum query over "latest start" keys. With lateness, the cost is
//! recomputed exactly, stopping as soon as it cannot beat the bound.

use super::range_min::RangeMin;
use super::segment::{materialize_into, Segment};
use crate::problem::{Cost, Problem};

pub struct RouteState<'p> {
    problem: &'p Problem,
    n: usize,
    /// Node by position: route[0] = 0 (start), route[n+1] = n+1 (end).
    route: Vec<usize>,
    /// Position by node.
    position: Vec<usize>,
    /// forward[k] = arrival time at position k.
    forward: Vec<i64>,
    /// backward[k] = sum of the edge weights before k, each edge read backwards.
    backward: Vec<i64>,
    /// lateness_before[k] = lateness of positions < k.
    lateness_before: Vec<i64>,
    /// lateness_from[k] = lateness of positions >= k.
    lateness_from: Vec<i64>,
    /// Over deadline(route[k]) - forward[k]: the slack of a forward segment.
    slack_forward: RangeMin,
    /// Over deadline(route[k]) + backward[k]: the slack of a reversed segment.
    slack_backward: RangeMin,
    /// round_trip_after[k] = round trip of the edge route[k] - route[k+1]
    /// (the Lin–Kernighan step's most frequent lookup).
    round_trip_after: Vec<i64>,
    keys: Vec<i64>,
    scratch: Vec<usize>,
    cost: Cost,
}

impl<'p> RouteState<'p> {
    /// `route` = [0, stops..., n+1].
    pub fn new(problem: &'p Problem, route: &[usize]) -> RouteState<'p> {
        let n = problem.n;
        assert_eq!(route.len(), n + 2);
        let mut state = RouteState {
            problem,
            n,
            route: route.to_vec(),
            position: vec![0; n + 2],
            forward: vec![0; n + 2],
            backward: vec![0; n + 2],
            lateness_before: vec![0; n + 3],
            lateness_from: vec![0; n + 3],
            slack_forward: RangeMin::default(),
            slack_backward: RangeMin::default(),
            round_trip_after: vec![0; n + 2],
            keys: Vec::with_capacity(n + 2),
            scratch: Vec::with_capacity(n + 2),
            cost: Cost::default(),
        };
        state.refresh_from(0);
        state
    }

    pub fn problem(&self) -> &'p Problem {
        self.problem
    }

    /// Number of stops.
    pub fn stops(&self) -> usize {
        self.n
    }

    pub fn cost(&self) -> Cost {
        self.cost
    }

    pub fn route(&self) -> &[usize] {
        &self.route
    }

    #[inline(always)]
    pub fn node_at(&self, position: usize) -> usize {
        self.route[position]
    }

    #[inline(always)]
    pub fn position_of(&self, node: usize) -> usize {
        self.position[node]
    }

    /// `Problem::round_trip` of the nodes at two adjacent positions (either order).
    #[inline(always)]
    pub fn round_trip_between(&self, p: usize, q: usize) -> i64 {
        if q == p + 1 {
            self.round_trip_after[p]
        } else if p == q + 1 {
            self.round_trip_after[q]
        } else {
            self.problem.round_trip(self.route[p], self.route[q])
        }
    }

    /// Arrival time at a position.
    #[inline(always)]
    pub fn arrival(&self, position: usize) -> i64 {
        self.forward[position]
    }

    /// Is the stop at `node` arriving after its deadline?
    pub fn is_late(&self, node: usize) -> bool {
        self.forward[self.position[node]] > self.problem.dl[node]
    }

    /// Replace the route (positions before the first difference are kept).
    pub fn set_route(&mut self, route: &[usize]) {
        debug_assert_eq!(route.len(), self.route.len());
        let first_change = self
            .route
            .iter()
            .zip(route.iter())
            .position(|(a, b)| a != b);
        if let Some(k) = first_change {
            self.route[k..].copy_from_slice(&route[k..]);
            self.refresh_from(k);
        }
    }

    /// Recompute the derived arrays for positions >= k0 (those before are
    /// unchanged since the last refresh).
    fn refresh_from(&mut self, k0: usize) {
        let p = self.problem;
        let len = self.n + 2;
        if k0 == 0 {
            self.forward[0] = 0;
            self.backward[0] = 0;
            self.position[self.route[0]] = 0;
        }
        let mut k = k0.max(1);
        let mut f = self.forward[k - 1];
        let mut b = self.backward[k - 1];
        let mut x = self.route[k - 1];
        while k < len {
            let y = self.route[k];
            self.position[y] = k;
            f += p.w(x, y);
            b += p.w(y, x);
            self.forward[k] = f;
            self.backward[k] = b;
            self.round_trip_after[k - 1] = p.round_trip(x, y);
            x = y;
            k += 1;
        }
        if !p.has_deadlines {
            // lateness is always 0: the lateness arrays stay all zeros
            self.cost = Cost {
                lateness: 0,
                duration: self.forward[len - 1],
            };
            return;
        }
        let mut late = 0;
        self.lateness_before[0] = 0;
        for k in 0..len {
            late += (self.forward[k] - p.dl[self.route[k]]).max(0);
            self.lateness_before[k + 1] = late;
        }
        for k in 0..=len {
            self.lateness_from[k] = late - self.lateness_before[k];
        }
        self.cost = Cost {
            lateness: late,
            duration: self.forward[len - 1],
        };
        self.keys.clear();
        for k in 0..len {
            self.keys
                .push(p.dl[self.route[k]].saturating_sub(self.forward[k]));
        }
        self.slack_forward.build(&self.keys);
        self.keys.clear();
        for k in 0..len {
            self.keys
                .push(p.dl[self.route[k]].saturating_add(self.backward[k]));
        }
        self.slack_backward.build(&self.keys);
    }

    /// Duration of a segment read in its direction (its first node's arrival excluded).
    #[inline(always)]
    fn segment_duration(&self, s: &Segment) -> i64 {
        if s.reversed {
            self.backward[s.to] - self.backward[s.from]
        } else {
            self.forward[s.to] - self.forward[s.from]
        }
    }

    /// Exact cost of the route `segments` make, if it is strictly better than
    /// `bound`; None otherwise. When the route has no lateness now, a move that
    /// creates lateness is rejected (None) whatever its duration.
    #[inline]
    pub fn evaluate(&self, segments: &[Segment], bound: Cost) -> Option<Cost> {
        if self.cost.lateness > 0 {
            return self.evaluate_with_lateness(segments, bound);
        }
        let p = self.problem;
        // The first segment (0..=to, forward) is unchanged and on time.
        let head = segments[0];
        debug_assert!(head.from == 0 && !head.reversed);
        let mut t = self.forward[head.to];
        let mut previous = self.route[head.to];
        for s in &segments[1..] {
            t += p.w(previous, self.route[s.first()]);
            if p.has_deadlines {
                // latest arrival at the segment's first node keeping it on time
                let latest = if s.reversed {
                    self.slack_backward.query(s.from, s.to) - self.backward[s.to]
                } else {
                    self.slack_forward.query(s.from, s.to) + self.forward[s.from]
                };
                if t > latest {
                    return None;
                }
            }
            t += self.segment_duration(s);
            previous = self.route[s.last()];
        }
        let cost = Cost {
            lateness: 0,
            duration: t,
        };
        if cost < bound {
            Some(cost)
        } else {
            None
        }
    }

    /// `evaluate` when the route is late somewhere: exact recomputation with
    /// early exits (the prefix lateness is reused; an unchanged tail that is
    /// not shifted in time is priced in O(1)).
    #[inline(never)]
    fn evaluate_with_lateness(&self, segments: &[Segment], bound: Cost) -> Option<Cost> {
        let p = self.problem;
        let head = segments[0];
        debug_assert!(head.from == 0 && !head.reversed);
        let mut late = self.lateness_before[head.to + 1];
        let mut t = self.forward[head.to];
        let mut previous = self.route[head.to];
        let end = self.n + 1;
        for s in &segments[1..] {
            if !s.reversed && s.to == end {
                // the unchanged tail shifted by `shift`: its duration is exact
                // in O(1), its lateness bounded by the current tail's
                let shift = t + p.w(previous, self.route[s.from]) - self.forward[s.from];
                if shift == 0 {
                    late += self.lateness_from[s.from];
                    t = self.forward[end];
                    previous = self.route[end];
                    continue;
                }
                let lower_bound = Cost {
                    lateness: if shift > 0 {
                        late + self.lateness_from[s.from]
                    } else {
                        late
                    },
                    duration: self.forward[end] + shift,
                };
                if lower_bound >= bound {
                    return None;
                }
            }
            if late > bound.lateness {
                return None;
            }
            let mut visit = |x: usize| {
                t += p.w(previous, x);
                let deadline = p.dl[x];
                if t > deadline {
                    late += t - deadline;
                }
                previous = x;
            };
            if s.reversed {
                for k in (s.from..=s.to).rev() {
                    visit(self.route[k]);
                }
            } else {
                for k in s.from..=s.to {
                    visit(self.route[k]);
                }
            }
        }
        let cost = Cost {
            lateness: late,
            duration: t,
        };
        if cost < bound {
            Some(cost)
        } else {
            None
        }
    }

    /// Rebuild the route from `segments`. `expected` is the cost `evaluate`
    /// gave; debug builds assert the new cost equals it and a full recomputation.
    pub fn apply(&mut self, segments: &[Segment], expected: Cost) {
        materialize_into(&self.route, segments, &mut self.scratch);
        debug_assert_eq!(self.scratch.len(), self.n + 2);
        std::mem::swap(&mut self.route, &mut self.scratch);
        let before = self.cost;
        self.refresh_from(segments[0].to + 1);
        debug_assert_eq!(
            self.cost, expected,
            "applied cost differs from the evaluated delta (cost before {:?})",
            before
        );
        let _ = (before, expected);
        #[cfg(debug_assertions)]
        self.check_consistency();
    }

    /// Apply `segments` whatever their cost (kicks).
    pub fn apply_unpriced(&mut self, segments: &[Segment]) {
        materialize_into(&self.route, segments, &mut self.scratch);
        std::mem::swap(&mut self.route, &mut self.scratch);
        self.refresh_from(segments[0].to + 1);
        #[cfg(debug_assertions)]
        self.check_consistency();
    }

    /// Debug check: the incrementally maintained arrays equal a full rebuild.
    #[cfg(debug_assertions)]
    fn check_consistency(&self) {
        let p = self.problem;
        let mut f = 0;
        let mut b = 0;
        for k in 0..self.n + 2 {
            if k > 0 {
                f += p.w(self.route[k - 1], self.route[k]);
                b += p.w(self.route[k], self.route[k - 1]);
            }
            assert_eq!(self.position[self.route[k]], k);
            assert_eq!(self.forward[k], f);
            assert_eq!(self.backward[k], b);
        }
        assert_eq!(self.cost, p.route_cost(&self.route));
    }
}
