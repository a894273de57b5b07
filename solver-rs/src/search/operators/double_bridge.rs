//! Improving double bridge: the non-sequential 4-change that a sequential
//! (Lin–Kernighan) move cannot make. Two 2-changes that each alone would cut
//! the route in two (remove the edges leaving positions i < j, add
//! node(i) -> node(j + 1) and node(j) -> node(i + 1)), interleaved so that
//! together they make one route again: `kicks::double_bridge_at` with the
//! four cuts sorted. Found on the candidate lists: the first 2-change must
//! gain, the second may lose less than the first gains; the exact price
//! decides. The double bridge keeps the orientation of every run, so the
//! price is exact on asymmetric matrices too.

use super::super::kicks::double_bridge_at;
use super::super::neighbours::Neighbours;
use super::super::route::RouteState;
use super::super::segment::SegmentList;
use super::Move;

/// Gain of the "cutting" 2-change on the edges leaving positions `cut` and
/// `other`: node(cut) -> node(other + 1) and node(other) -> node(cut + 1).
fn cutting_gain(state: &RouteState, cut: usize, other: usize) -> i64 {
    let p = state.problem();
    let (a, b) = (state.node_at(cut), state.node_at(cut + 1));
    let (c, d) = (state.node_at(other), state.node_at(other + 1));
    p.d(a, b) + p.d(c, d) - p.d(a, d) - p.d(c, b)
}

/// The first improving double bridge found, scanning every edge of the route.
pub fn find(state: &RouteState, neighbours: &Neighbours) -> Option<Move> {
    let n = state.stops();
    let current = state.cost();
    for first in 0..=n {
        let a = state.node_at(first);
        for candidate in neighbours.of(a) {
            let position = state.position_of(candidate.node);
            if position == 0 || position == first + 1 || position == first {
                continue;
            }
            let other = position - 1;
            if other == first {
                continue;
            }
            let gain = cutting_gain(state, first, other);
            if gain <= 0 {
                continue;
            }
            let (low, high) = (first.min(other), first.max(other));
            if high - low < 2 {
                continue;
            }
            // the second 2-change joins an edge strictly between the first
            // two cuts with one outside them; scan the shorter side
            let inside = high - low - 1;
            let scan_inside = inside <= n + 1 - inside - 2;
            let (near, far) = if scan_inside {
                (low + 1..high, 0..0)
            } else {
                (0..low, high + 1..n + 1)
            };
            for second in near.chain(far) {
                let e = state.node_at(second);
                for partner in neighbours.of(e) {
                    let partner_position = state.position_of(partner.node);
                    if partner_position == 0 {
                        continue;
                    }
                    let fourth = partner_position - 1;
                    let fourth_inside = fourth > low && fourth < high;
                    if fourth == low || fourth == high || fourth_inside == scan_inside {
                        continue;
                    }
                    if gain + cutting_gain(state, second, fourth) <= 0 {
                        continue;
                    }
                    let mut cuts = [low, high, second, fourth];
                    cuts.sort_unstable();
                    let segments = double_bridge_at(n, cuts);
                    if let Some(cost) = state.evaluate(&segments, current) {
                        return Some(Move {
                            segments: SegmentList::from_slice(&segments),
                            cost,
                        });
                    }
                }
            }
        }
    }
    None
}
