//! 2-opt: reverse the run of the route between `a` and `c` so that they
//! become adjacent. The reversed run is priced with the backward prefix sums,
//! so asymmetric matrices are exact.

use super::{Counter, Move};
use crate::search::route::RouteState;
use crate::search::segment::{forward, reversed, Segment, SegmentList};

/// The 2-opt moves making positions `pa` and `pc` adjacent (both
/// directions); calls `f` with each and stops at the first `true` (returned).
pub fn candidates<F: FnMut(&[Segment]) -> bool>(n: usize, pa: usize, pc: usize, mut f: F) -> bool {
    let end = n + 1;
    // reverse positions from..=to
    let runs = [
        (pa + 1, pc, pa + 1 < pc),
        (pa, pc.wrapping_sub(1), pa + 1 < pc),
        (pc + 1, pa, pc + 1 < pa),
        (pc, pa.wrapping_sub(1), pc + 1 < pa),
    ];
    for &(from, to, ok) in runs.iter() {
        if ok
            && from >= 1
            && from < to
            && to <= n
            && f(&[
                forward(0, from - 1),
                reversed(from, to),
                forward(to + 1, end),
            ])
        {
            return true;
        }
    }
    false
}

/// First improving 2-opt move making `pa` and `pc` adjacent.
pub fn evaluate(state: &RouteState, counter: &mut Counter, pa: usize, pc: usize) -> Option<Move> {
    first_improving(state, counter, |f| candidates(state.stops(), pa, pc, f))
}

/// Runs an enumerator of candidate moves and returns the first that beats the current cost.
pub(crate) fn first_improving<E>(
    state: &RouteState,
    counter: &mut Counter,
    enumerate: E,
) -> Option<Move>
where
    E: FnOnce(&mut dyn FnMut(&[Segment]) -> bool) -> bool,
{
    let bound = state.cost();
    let mut found = None;
    enumerate(&mut |segments: &[Segment]| {
        counter.tried += 1;
        match state.evaluate(segments, bound) {
            Some(cost) => {
                found = Some(Move {
                    segments: SegmentList::from_slice(segments),
                    cost,
                });
                true
            }
            None => false,
        }
    });
    if found.is_some() {
        counter.improving += 1;
    }
    found
}
