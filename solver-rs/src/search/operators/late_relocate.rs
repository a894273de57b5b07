//! Late relocate (repair): move a late stop to the earlier position that
//! gives the lowest cost. Used only while the route is late.

use super::{Counter, Move};
use crate::search::route::RouteState;
use crate::search::segment::{forward, Segment, SegmentList};

/// Moving the stop at `pa` to just after position `q < pa - 1`.
pub fn segments(n: usize, pa: usize, q: usize) -> [Segment; 4] {
    [
        forward(0, q),
        forward(pa, pa),
        forward(q + 1, pa - 1),
        forward(pa + 1, n + 1),
    ]
}

/// Best improving earlier position for the late stop `a` (None if `a` is on
/// time or no earlier position improves).
pub fn evaluate(state: &RouteState, counter: &mut Counter, a: usize) -> Option<Move> {
    if !state.is_late(a) {
        return None;
    }
    let n = state.stops();
    let pa = state.position_of(a);
    let mut best: Option<Move> = None;
    for q in 0..pa.saturating_sub(1) {
        let bound = best.map(|m| m.cost).unwrap_or_else(|| state.cost());
        let move_segments = segments(n, pa, q);
        counter.tried += 1;
        if let Some(cost) = state.evaluate(&move_segments, bound) {
            counter.improving += 1;
            best = Some(Move {
                segments: SegmentList::from_slice(&move_segments),
                cost,
            });
        }
    }
    best
}
