//! Kicks (perturbations) of the iterated local search. All keep the
//! orientation of every segment, so their effect on asymmetric matrices is
//! what the segments say.
//!
//! - segment swap: two adjacent runs exchanged (A B C D -> A C B D); a
//!   3-change that the segment-swap operator can undo directly.
//! - random double bridge: the classic double bridge (Martin, Otto and
//!   Felten): four cuts drawn uniformly over the route, the three runs between
//!   them put in reverse order (A B C D E -> A D C B E), the 4-change that
//!   sequential moves cannot undo in one step;
//! - double bridge: the same with three adjacent runs of at most `max_run`
//!   stops, so the kick stays local along the route. Its runs never
//!   straddle the depot, so it kicks the middle of the route more often than
//!   the stops near the depot. On a round trip (a cycle through the depot)
//!   a quarter of the double bridges, drawn at random, are placed uniformly on the
//!   cycle instead, their runs possibly straddling the depot: the stops on
//!   both sides of it, neighbours in space, are then kicked together too.
//! - walk double bridge: the same 4-change at four stops found by short
//!   random walks on the candidate lists from a random stop, so the changed
//!   edges are close in space though possibly far apart along the route
//!   (the "random-walk kick" of chained Lin–Kernighan).
//!
//! Without lateness, and when the problem has deadlines, a kick that keeps
//! the route on time is preferred (an O(segments) check); repairing lateness
//! is the expensive part of the search.

use super::neighbours::Neighbours;
use super::route::RouteState;
use super::segment::{forward, Segment, SegmentList};
use crate::problem::Cost;
use crate::rng::Rng;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kick {
    SegmentSwap,
    RandomDoubleBridge,
    DoubleBridge,
    WalkDoubleBridge,
}

impl Kick {
    pub fn name(self) -> &'static str {
        match self {
            Kick::SegmentSwap => "segment-swap",
            Kick::RandomDoubleBridge => "random-double-bridge",
            Kick::DoubleBridge => "double-bridge",
            Kick::WalkDoubleBridge => "walk-double-bridge",
        }
    }

    pub fn parse(name: &str) -> Option<Kick> {
        [
            Kick::SegmentSwap,
            Kick::RandomDoubleBridge,
            Kick::DoubleBridge,
            Kick::WalkDoubleBridge,
        ]
        .iter()
        .cloned()
        .find(|k| k.name() == name)
    }
}

/// Kick shape settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KickSettings {
    pub kind: Kick,
    /// Longest run moved by the segment kicks (also capped at n / 3).
    pub max_run: usize,
    /// Steps of each random walk of the walk double bridge.
    pub walk_steps: usize,
    /// On round trips (`Problem::ends_at_start`), place a quarter of the
    /// double bridges on the cycle through the depot (`cyclic_double_bridge`;
    /// a quarter beat a half at every kick count measured, docs/solver.md).
    pub wrap_round_trips: bool,
}

/// Attempts at finding a kick that keeps an on-time route on time.
const ON_TIME_ATTEMPTS: usize = 8;

/// Choose a kick for the current route (None when the route is too short).
pub fn choose(
    settings: &KickSettings,
    state: &RouteState,
    neighbours: &Neighbours,
    rng: &mut Rng,
) -> Option<SegmentList> {
    let n = state.stops();
    if n < 3 {
        return None;
    }
    let prefer_on_time = state.problem().has_deadlines && state.cost().lateness == 0;
    let wrap = settings.wrap_round_trips && state.problem().ends_at_start;
    let mut kick = None;
    for attempt in 0..ON_TIME_ATTEMPTS {
        // shorter runs after each rejected pair of attempts
        let max_run = (settings.max_run.min(n / 3).max(1) >> (attempt / 2)).max(1);
        let segments = match settings.kind {
            Kick::SegmentSwap => segment_swap(n, max_run, rng),
            Kick::RandomDoubleBridge => random_double_bridge(n, rng),
            Kick::DoubleBridge if wrap && rng.range(0, 3) == 0 => {
                // range is inclusive: one draw in four
                cyclic_double_bridge(n, max_run, rng)
            }
            Kick::DoubleBridge => double_bridge(n, max_run, rng),
            Kick::WalkDoubleBridge => {
                walk_double_bridge(state, neighbours, settings.walk_steps, rng)
                    .unwrap_or_else(|| double_bridge(n, max_run, rng))
            }
        };
        kick = Some(segments);
        if !prefer_on_time || keeps_on_time(state, segments.as_slice()) {
            break;
        }
    }
    kick
}

fn keeps_on_time(state: &RouteState, segments: &[Segment]) -> bool {
    let any_duration = Cost {
        lateness: 1,
        duration: i64::MIN,
    };
    state.evaluate(segments, any_duration).is_some()
}

/// Swap two adjacent runs of 1..=max_run stops at a random place.
pub fn segment_swap(n: usize, max_run: usize, rng: &mut Rng) -> SegmentList {
    let l1 = rng.range(1, max_run);
    let l2 = rng.range(1, max_run);
    let p0 = rng.range(1, n + 1 - l1 - l2);
    SegmentList::from_slice(&segment_swap_at(n, p0, l1, l2))
}

/// Runs p0..p0+l1-1 and p0+l1..p0+l1+l2-1 exchanged.
pub fn segment_swap_at(n: usize, p0: usize, l1: usize, l2: usize) -> [Segment; 4] {
    [
        forward(0, p0 - 1),
        forward(p0 + l1, p0 + l1 + l2 - 1),
        forward(p0, p0 + l1 - 1),
        forward(p0 + l1 + l2, n + 1),
    ]
}

/// Three adjacent runs of 1..=max_run stops at a random place, in reverse order.
pub fn double_bridge(n: usize, max_run: usize, rng: &mut Rng) -> SegmentList {
    let max_run = max_run.min(n / 3).max(1);
    let l1 = rng.range(1, max_run);
    let l2 = rng.range(1, max_run);
    let l3 = rng.range(1, max_run);
    let p0 = rng.range(1, n + 1 - l1 - l2 - l3);
    SegmentList::from_slice(&double_bridge_at(
        n,
        [p0 - 1, p0 + l1 - 1, p0 + l1 + l2 - 1, p0 + l1 + l2 + l3 - 1],
    ))
}

/// The double bridge of three adjacent runs on the route closed by the
/// end -> start link: the cut edges (edge e joins positions e and e + 1,
/// e = 0..=n) are taken modulo n + 1, so the runs may straddle that link.
/// Sorted, the cuts are an ordinary double bridge of the route (on a cycle
/// the double bridge only depends on the four cut edges).
pub fn cyclic_double_bridge(n: usize, max_run: usize, rng: &mut Rng) -> SegmentList {
    let max_run = max_run.min(n / 3).max(1);
    let l1 = rng.range(1, max_run);
    let l2 = rng.range(1, max_run);
    let l3 = rng.range(1, max_run);
    let first = rng.range(0, n);
    let edges = n + 1;
    let mut cuts = [
        first,
        (first + l1) % edges,
        (first + l1 + l2) % edges,
        (first + l1 + l2 + l3) % edges,
    ];
    cuts.sort_unstable();
    SegmentList::from_slice(&double_bridge_at(n, cuts))
}

/// Double bridge at four distinct cuts drawn uniformly from 0..=n (n >= 3).
pub fn random_double_bridge(n: usize, rng: &mut Rng) -> SegmentList {
    debug_assert!(n >= 3);
    // redraw until the cuts are distinct: for the routes that get here (more
    // than 10 stops; smaller ones are solved exactly) over half the draws are
    loop {
        let mut cuts = [
            rng.range(0, n),
            rng.range(0, n),
            rng.range(0, n),
            rng.range(0, n),
        ];
        cuts.sort_unstable();
        if cuts[0] < cuts[1] && cuts[1] < cuts[2] && cuts[2] < cuts[3] {
            return SegmentList::from_slice(&double_bridge_at(n, cuts));
        }
    }
}

/// Cut the edges leaving positions c0 < c1 < c2 < c3 (all <= n) and reconnect
/// the three runs between them in reverse order.
pub fn double_bridge_at(n: usize, cuts: [usize; 4]) -> [Segment; 5] {
    let [c0, c1, c2, c3] = cuts;
    debug_assert!(c0 < c1 && c1 < c2 && c2 < c3 && c3 <= n);
    [
        forward(0, c0),
        forward(c2 + 1, c3),
        forward(c1 + 1, c2),
        forward(c0 + 1, c1),
        forward(c3 + 1, n + 1),
    ]
}

/// Double bridge cutting after four stops that are near each other in
/// space: a random stop and the ends of three random walks from it.
pub fn walk_double_bridge(
    state: &RouteState,
    neighbours: &Neighbours,
    steps: usize,
    rng: &mut Rng,
) -> Option<SegmentList> {
    let n = state.stops();
    let origin = rng.range(1, n);
    let mut cuts = [state.position_of(origin); 4];
    for cut in cuts.iter_mut().skip(1) {
        let mut node = origin;
        for _ in 0..steps.max(1) {
            let candidates = neighbours.of(node);
            let next = candidates[rng.range(0, candidates.len() - 1)].node;
            if next >= 1 && next <= n {
                node = next;
            }
        }
        *cut = state.position_of(node);
    }
    cuts.sort_unstable();
    if cuts[0] == cuts[1] || cuts[1] == cuts[2] || cuts[2] == cuts[3] {
        return None;
    }
    Some(SegmentList::from_slice(&double_bridge_at(n, cuts)))
}
