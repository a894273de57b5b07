//! Lin–Kernighan step: a variable-depth sequential move built from 2-opt
//! reversals, as in chained Lin–Kernighan.
//!
//! From a stop t1 and one of its route neighbours t2, the edge t1–t2 is
//! removed; then, level by level, an edge t2–t3 is added towards a candidate
//! t3 of t2, the edge t3–t4 that makes the result a route again is removed,
//! and t4 becomes the new t2 (the closing edge t1–t4 is the one that the next
//! level removes). Every level is one reversal of the tentative route.
//!
//! Gain bound: the open gain (removed minus added edge lengths, both
//! directions summed, so it is exact for symmetric matrices and a guide for
//! asymmetric ones) must stay positive, candidates are ranked by the
//! look-ahead gain |t3t4| - |t2t3|, `breadth[level]` alternatives are tried at
//! the first levels and one below, down to `max_depth`. An edge added in the
//! move is never removed again and a removed edge never added back.
//!
//! Exact price: the tentative route is kept as a few segments of the current
//! route (at most 2 × depth + 1), so after each level its exact cost (lateness
//! and duration, deadline slack included) is `RouteState::evaluate` in
//! O(segments), on asymmetric matrices too. The best tentative route of the
//! whole search, if better than the current one, is the move.

use super::Counter;
use crate::problem::Cost;
use crate::search::neighbours::Neighbours;
use crate::search::route::RouteState;
use crate::search::segment::{forward, reversed, Segment};

/// The tentative route: segments of the current route, concatenated.
#[derive(Clone, Debug, Default)]
pub struct TentativeRoute {
    segments: Vec<Segment>,
}

impl TentativeRoute {
    pub fn reset(&mut self, last_position: usize) {
        self.segments.clear();
        self.segments.push(forward(0, last_position));
    }

    pub fn segments(&self) -> &[Segment] {
        &self.segments
    }

    fn copy_from(&mut self, other: &TentativeRoute) {
        self.segments.clear();
        self.segments.extend_from_slice(&other.segments);
    }

    /// (segment index, index in the tentative route) of a current-route position.
    fn locate(&self, position: usize) -> (usize, usize) {
        let mut start = 0;
        for (i, s) in self.segments.iter().enumerate() {
            if s.contains(position) {
                let offset = if s.reversed {
                    s.to - position
                } else {
                    position - s.from
                };
                return (i, start + offset);
            }
            start += s.len();
        }
        unreachable!("position {} outside the route", position)
    }

    /// Index in the tentative route of a current-route position.
    pub fn index_of(&self, position: usize) -> usize {
        self.locate(position).1
    }

    /// Current-route position of the node after `position` in the tentative route.
    pub fn next(&self, position: usize) -> Option<usize> {
        let (i, _) = self.locate(position);
        let s = self.segments[i];
        if s.reversed && position > s.from {
            Some(position - 1)
        } else if !s.reversed && position < s.to {
            Some(position + 1)
        } else {
            self.segments.get(i + 1).map(|t| t.first())
        }
    }

    /// Current-route position of the node before `position` in the tentative route.
    pub fn previous(&self, position: usize) -> Option<usize> {
        let (i, _) = self.locate(position);
        let s = self.segments[i];
        if s.reversed && position < s.to {
            Some(position + 1)
        } else if !s.reversed && position > s.from {
            Some(position - 1)
        } else if i > 0 {
            Some(self.segments[i - 1].last())
        } else {
            None
        }
    }

    /// Make a segment start at tentative index `index`; returns its segment index.
    fn split_before(&mut self, index: usize) -> usize {
        let mut start = 0;
        for i in 0..self.segments.len() {
            let s = self.segments[i];
            if start == index {
                return i;
            }
            if index < start + s.len() {
                let k = index - start; // length of the first part
                let (head, tail) = if s.reversed {
                    (
                        single(s.to + 1 - k, s.to, true),
                        single(s.from, s.to - k, true),
                    )
                } else {
                    (
                        single(s.from, s.from + k - 1, false),
                        single(s.from + k, s.to, false),
                    )
                };
                self.segments[i] = head;
                self.segments.insert(i + 1, tail);
                return i + 1;
            }
            start += s.len();
        }
        self.segments.len()
    }

    /// Reverse the tentative route between indices `from` and `to` (inclusive).
    pub fn reverse(&mut self, from: usize, to: usize) {
        debug_assert!(from >= 1 && from < to);
        let first = self.split_before(from);
        let past = self.split_before(to + 1);
        self.segments[first..past].reverse();
        for s in &mut self.segments[first..past] {
            if s.from != s.to {
                s.reversed = !s.reversed;
            }
        }
        // Segments inside the reversed run stay unmergeable; only its two borders can merge.
        if past < self.segments.len() {
            self.merge_at(past);
        }
        if first > 0 {
            self.merge_at(first);
        }
    }

    /// Merge segments i-1 and i when they read as one run of the current route.
    fn merge_at(&mut self, i: usize) {
        let (x, y) = (self.segments[i - 1], self.segments[i]);
        let x_forward = x.from == x.to || !x.reversed;
        let y_forward = y.from == y.to || !y.reversed;
        let x_backward = x.from == x.to || x.reversed;
        let y_backward = y.from == y.to || y.reversed;
        let merged = if x_forward && y_forward && y.first() == x.last() + 1 {
            forward(x.first(), y.last())
        } else if x_backward && y_backward && x.last() >= 1 && y.first() == x.last() - 1 {
            reversed(y.last(), x.first())
        } else {
            return;
        };
        self.segments[i - 1] = merged;
        self.segments.remove(i);
    }
}

/// A segment; single positions are always kept forward (so merging is simple).
fn single(from: usize, to: usize, is_reversed: bool) -> Segment {
    Segment {
        from,
        to,
        reversed: is_reversed && from != to,
    }
}

#[derive(Clone, Copy, Debug)]
struct Candidate {
    /// |t3t4| - |t2t3|
    lookahead: i64,
    t3: usize,
    t4: usize,
    /// |t2t3|, |t3t4| (round trips)
    added: i64,
    removed: i64,
}

/// Higher look-ahead first, then the lower node id (deterministic).
fn better(x: &Candidate, y: &Candidate) -> bool {
    x.lookahead > y.lookahead || (x.lookahead == y.lookahead && x.t3 < y.t3)
}

/// Search settings: alternatives tried per level (levels beyond the list try
/// one) and the deepest level. The first descent, from a constructed route,
/// searches wider (`initial_breadth`): it has the most to repair, and a wide
/// search there is cheaper than the kicks it saves; the descents after kicks
/// only repair a few edges.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    pub breadth: Vec<usize>,
    pub initial_breadth: Vec<usize>,
    pub max_depth: usize,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            breadth: vec![5, 3, 1],
            initial_breadth: vec![10, 5, 3, 2],
            max_depth: 10,
        }
    }
}

/// Buffers of the search, reused from call to call.
#[derive(Default)]
pub struct LinKernighan {
    settings: Settings,
    tour: TentativeRoute,
    best: TentativeRoute,
    best_cost: Cost,
    base_cost: Cost,
    /// Use `initial_breadth` (the first descent).
    initial: bool,
    saved: Vec<TentativeRoute>,
    candidates: Vec<Vec<Candidate>>,
    added: Vec<(usize, usize)>,
    removed: Vec<(usize, usize)>,
}

fn same_edge(e: (usize, usize), a: usize, b: usize) -> bool {
    (e.0 == a && e.1 == b) || (e.0 == b && e.1 == a)
}

impl LinKernighan {
    pub fn new(settings: Settings) -> LinKernighan {
        let levels = settings.max_depth + 2;
        LinKernighan {
            saved: vec![TentativeRoute::default(); levels],
            candidates: vec![Vec::new(); levels],
            settings,
            ..LinKernighan::default()
        }
    }

    /// Switch between the first descent's breadth and the kicks'.
    pub fn set_initial(&mut self, initial: bool) {
        self.initial = initial;
    }

    /// Search from the stop `t1`; returns the improving route (as segments of
    /// the current one) and its exact cost.
    pub fn evaluate(
        &mut self,
        state: &RouteState,
        neighbours: &Neighbours,
        counter: &mut Counter,
        t1: usize,
    ) -> Option<(&[Segment], Cost)> {
        let p = state.problem();
        let last = state.stops() + 1;
        let p1 = state.position_of(t1);
        if p1 == 0 || p1 == last {
            return None;
        }
        self.base_cost = state.cost();
        self.best_cost = self.base_cost;
        for &t2_is_next in [true, false].iter() {
            let t2 = state.node_at(if t2_is_next { p1 + 1 } else { p1 - 1 });
            self.tour.reset(last);
            self.added.clear();
            self.removed.clear();
            self.removed.push((t1, t2));
            let gain = p.round_trip(t1, t2);
            if self.step(state, neighbours, counter, 1, t1, t2, t2_is_next, gain) {
                counter.improving += 1;
                return Some((self.best.segments(), self.best_cost));
            }
        }
        None
    }

    /// One level: add t2–t3, remove t3–t4, recurse from t4. True when an
    /// improving route was found at this level or below.
    #[allow(clippy::too_many_arguments)]
    fn step(
        &mut self,
        state: &RouteState,
        neighbours: &Neighbours,
        counter: &mut Counter,
        level: usize,
        t1: usize,
        t2: usize,
        t2_is_next: bool,
        open_gain: i64,
    ) -> bool {
        if level > self.settings.max_depth {
            return false;
        }
        let breadth_by_level = if self.initial {
            &self.settings.initial_breadth
        } else {
            &self.settings.breadth
        };
        let breadth = breadth_by_level.get(level - 1).cloned().unwrap_or(1);
        let mut candidates = std::mem::take(&mut self.candidates[level]);
        self.collect_candidates(
            state,
            neighbours,
            t1,
            t2,
            t2_is_next,
            open_gain,
            breadth,
            &mut candidates,
        );
        let p = state.problem();
        let mut found = false;
        for c in candidates.iter() {
            let (t3, t4) = (c.t3, c.t4);
            self.saved[level].copy_from(&self.tour);
            let i1 = self.tour.index_of(state.position_of(t1));
            let i3 = self.tour.index_of(state.position_of(t3));
            // Reverse the run between t2 and t4, or its complement when that
            // run would contain the fixed end -> start link.
            let t4_is_next = if t2_is_next {
                if i3 > i1 {
                    self.tour.reverse(i1 + 1, i3 - 1);
                    true
                } else {
                    self.tour.reverse(i3, i1);
                    false
                }
            } else if i3 < i1 {
                self.tour.reverse(i3 + 1, i1 - 1);
                false
            } else {
                self.tour.reverse(i1, i3);
                true
            };
            self.added.push((t2, t3));
            self.removed.push((t3, t4));
            let gain = open_gain - c.added + c.removed;
            // On a symmetric matrix the tentative duration follows from the
            // gains (doubled units): only a promising one is priced exactly
            // (which also checks the deadlines).
            let estimate = self.base_cost.duration - (gain - p.round_trip(t1, t4)) / 2;
            if !p.symmetric || estimate < self.best_cost.duration {
                counter.tried += 1;
                if let Some(cost) = state.evaluate(self.tour.segments(), self.best_cost) {
                    debug_assert!(!p.symmetric || cost.duration == estimate);
                    self.best_cost = cost;
                    self.best.copy_from(&self.tour);
                    found = true;
                }
            }
            if self.step(
                state,
                neighbours,
                counter,
                level + 1,
                t1,
                t4,
                t4_is_next,
                gain,
            ) {
                found = true;
            }
            self.added.pop();
            self.removed.pop();
            let saved = std::mem::take(&mut self.saved[level]);
            self.tour.copy_from(&saved);
            self.saved[level] = saved;
            if found {
                break;
            }
        }
        self.candidates[level] = candidates;
        found
    }

    /// The `breadth` best next steps from t2 by look-ahead gain.
    #[allow(clippy::too_many_arguments)]
    fn collect_candidates(
        &self,
        state: &RouteState,
        neighbours: &Neighbours,
        t1: usize,
        t2: usize,
        t2_is_next: bool,
        open_gain: i64,
        breadth: usize,
        out: &mut Vec<Candidate>,
    ) {
        out.clear();
        let p2 = state.position_of(t2);
        let t2_next = self.tour.next(p2);
        let t2_previous = self.tour.previous(p2);
        for nb in neighbours.of(t2) {
            let t3 = nb.node;
            if open_gain - nb.round_trip <= 0 {
                // the round trip is at least twice the key
                if neighbours.sorted_by_key() && open_gain - 2 * nb.key <= 0 {
                    break;
                }
                continue;
            }
            if t3 == t1 {
                continue;
            }
            let p3 = state.position_of(t3);
            if t2_next == Some(p3) || t2_previous == Some(p3) {
                continue; // already adjacent
            }
            let p4 = if t2_is_next {
                self.tour.previous(p3)
            } else {
                self.tour.next(p3)
            };
            let (p4, t4) = match p4 {
                Some(p4) => (p4, state.node_at(p4)),
                None => continue, // t3 is the start or the end: that side is fixed
            };
            if self.added.iter().any(|&e| same_edge(e, t3, t4))
                || self.removed.iter().any(|&e| same_edge(e, t2, t3))
            {
                continue;
            }
            let removed = state.round_trip_between(p3, p4);
            let candidate = Candidate {
                lookahead: removed - nb.round_trip,
                t3,
                t4,
                added: nb.round_trip,
                removed,
            };
            if breadth == 1 {
                // keep only the best
                match out.first() {
                    Some(best) if !better(&candidate, best) => {}
                    _ => {
                        out.clear();
                        out.push(candidate);
                    }
                }
            } else {
                out.push(candidate);
            }
        }
        if breadth > 1 {
            out.sort_unstable_by(|x, y| y.lookahead.cmp(&x.lookahead).then(x.t3.cmp(&y.t3)));
            out.truncate(breadth);
        }
    }
}
