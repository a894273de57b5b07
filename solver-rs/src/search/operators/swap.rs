//! Swap: exchange the stop `a` with a route neighbour of `c`, so that `a`
//! lands next to `c`.

use super::two_opt::first_improving;
use super::{Counter, Move};
use crate::search::route::RouteState;
use crate::search::segment::{forward, Segment};

/// The swaps of the stop at `pa` with the stops next to position `pc`.
pub fn candidates<F: FnMut(&[Segment]) -> bool>(n: usize, pa: usize, pc: usize, mut f: F) -> bool {
    let end = n + 1;
    for &other in [pc.wrapping_sub(1), pc + 1].iter() {
        if other == 0 || other > n || other == pa {
            continue;
        }
        let (i, j) = if other < pa { (other, pa) } else { (pa, other) };
        let found = if j == i + 1 {
            f(&[
                forward(0, i - 1),
                forward(j, j),
                forward(i, i),
                forward(j + 1, end),
            ])
        } else {
            f(&[
                forward(0, i - 1),
                forward(j, j),
                forward(i + 1, j - 1),
                forward(i, i),
                forward(j + 1, end),
            ])
        };
        if found {
            return true;
        }
    }
    false
}

/// First improving swap putting `pa` next to `pc`.
pub fn evaluate(state: &RouteState, counter: &mut Counter, pa: usize, pc: usize) -> Option<Move> {
    first_improving(state, counter, |f| candidates(state.stops(), pa, pc, f))
}
