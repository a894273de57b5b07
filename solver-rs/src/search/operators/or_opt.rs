//! Or-opt: move a run of 1..3 stops that starts or ends with `a` next to `c`,
//! kept or reversed (only the orientation that puts `a` beside `c`).

use super::two_opt::first_improving;
use super::{Counter, Move};
use crate::search::route::RouteState;
use crate::search::segment::{forward, Segment};

/// Longest run moved.
pub const MAX_RUN: usize = 3;

/// The Or-opt moves putting the stop at `pa` next to the node at `pc`.
pub fn candidates<F: FnMut(&[Segment]) -> bool>(n: usize, pa: usize, pc: usize, mut f: F) -> bool {
    let end = n + 1;
    for len in 1..=MAX_RUN {
        for &a_first in [true, false].iter() {
            if len == 1 && !a_first {
                continue;
            }
            // the run: positions from..=to, with `a` first or last
            let (from, to) = if a_first {
                if pa + len - 1 > n {
                    continue;
                }
                (pa, pa + len - 1)
            } else {
                if pa < len {
                    continue;
                }
                (pa + 1 - len, pa)
            };
            if pc >= from && pc <= to {
                continue;
            }
            // insert after position q: q = pc (run after c) or pc - 1 (before c)
            for &q in [pc, pc.wrapping_sub(1)].iter() {
                if q > n || (q + 1 >= from && q <= to) {
                    continue;
                }
                // the orientation that puts `a` next to `c`
                let run_reversed = len > 1 && ((q == pc) != a_first);
                let run = Segment {
                    from,
                    to,
                    reversed: run_reversed,
                };
                let found = if q + 1 < from {
                    f(&[
                        forward(0, q),
                        run,
                        forward(q + 1, from - 1),
                        forward(to + 1, end),
                    ])
                } else {
                    f(&[
                        forward(0, from - 1),
                        forward(to + 1, q),
                        run,
                        forward(q + 1, end),
                    ])
                };
                if found {
                    return true;
                }
            }
        }
    }
    false
}

/// First improving Or-opt move putting `pa` next to `pc`.
pub fn evaluate(state: &RouteState, counter: &mut Counter, pa: usize, pc: usize) -> Option<Move> {
    first_improving(state, counter, |f| candidates(state.stops(), pa, pc, f))
}
