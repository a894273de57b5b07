//! Segment swap (Or-3opt): exchange two adjacent runs of the route of any
//! lengths, orientation kept (a pure sequential 3-opt move), found
//! Lin–Kernighan style from `a`: remove a -> next(a), add a -> c, remove
//! prev(c) -> c, add prev(c) -> e, remove prev(e) -> e, close prev(e) ->
//! next(a). Each partial gain must stay positive (the gain bound); the move is
//! then priced exactly.

use super::{Counter, Move};
use crate::search::neighbours::Neighbours;
use crate::search::route::RouteState;
use crate::search::segment::{forward, Segment, SegmentList};

/// Remove the edges leaving positions p1, p2, p3 and reconnect
/// route[p1] -> route[p2+1], route[p2] -> route[p3+1], route[p3] -> route[p1+1].
/// None unless (p1, p2, p3) are in cyclic increasing order.
#[allow(clippy::nonminimal_bool)] // the readable form of "cyclic order"
pub fn segments(n: usize, p1: usize, p2: usize, p3: usize) -> Option<[Segment; 4]> {
    let cyclic = (p1 < p2 && p2 < p3) || (p2 < p3 && p3 < p1) || (p3 < p1 && p1 < p2);
    if !cyclic || p1.max(p2).max(p3) > n {
        return None;
    }
    let mut v = [p1, p2, p3];
    v.sort_unstable();
    let (x, y, z) = (v[0], v[1], v[2]);
    Some([
        forward(0, x),
        forward(y + 1, z),
        forward(x + 1, y),
        forward(z + 1, n + 1),
    ])
}

/// First improving segment swap found from the stop `a`.
pub fn evaluate(
    state: &RouteState,
    neighbours: &Neighbours,
    counter: &mut Counter,
    a: usize,
) -> Option<Move> {
    let p = state.problem();
    let n = state.stops();
    let p1 = state.position_of(a);
    let removed_at_a = p.d(a, state.node_at(p1 + 1));
    let bound = state.cost();
    for candidate in neighbours.of(a) {
        let c = candidate.node;
        if candidate.key >= removed_at_a {
            if neighbours.sorted_by_key() {
                break;
            }
            continue;
        }
        let pc = state.position_of(c);
        if pc == 0 || pc == p1 + 1 || pc == p1 {
            continue;
        }
        let gain1 = removed_at_a - p.d(a, c);
        if gain1 <= 0 {
            continue;
        }
        let p2 = pc - 1;
        let t2 = state.node_at(p2);
        let gain2 = gain1 + p.d(t2, c);
        for candidate2 in neighbours.of(t2) {
            let e = candidate2.node;
            if candidate2.key >= gain2 {
                if neighbours.sorted_by_key() {
                    break;
                }
                continue;
            }
            let pe = state.position_of(e);
            if pe == 0 || e == c || gain2 - p.d(t2, e) <= 0 {
                continue;
            }
            if let Some(move_segments) = segments(n, p1, p2, pe - 1) {
                counter.tried += 1;
                if let Some(cost) = state.evaluate(&move_segments, bound) {
                    counter.improving += 1;
                    return Some(Move {
                        segments: SegmentList::from_slice(&move_segments),
                        cost,
                    });
                }
            }
        }
    }
    None
}
