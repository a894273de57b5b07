//! Intra-route 2-opt: reverse the jobs between u and v of one route so that
//! the two become neighbours. For positions a < b of the pair: either u
//! is followed by v (jobs[a+1..=b] reversed) or u follows v's old place
//! from the other side (jobs[a..b] reversed: ..., jobs[b-1], ..., jobs[a],
//! jobs[b], ...). The reversed run is priced along its own arcs (a matrix
//! need not be symmetric) and its schedule job by job: O(run).

use super::{offer_arcs, run_reversed, Move, NewRoute, Pair};
use crate::fleet::model::FleetProblem;
use crate::fleet::solution::{Piece, Solution};

pub fn evaluate(p: &FleetProblem, sol: &mut Solution, pair: &Pair) -> Option<Move> {
    let (ru, pu, rv, pv) = pair.places();
    if ru != rv {
        return None;
    }
    let (a, b) = if pu < pv { (pu, pv) } else { (pv, pu) };
    if b < a + 2 {
        return None; // neighbours already, or a run of one: nothing to reverse
    }
    let r = ru;
    let gate = &pair.gate;
    let mut best = None;
    let change = run_reversed(p, sol, r, a + 1, b + 1);
    offer_arcs(&mut best, p, sol, gate, change, || {
        [NewRoute::new(
            r,
            &[
                Piece::Prefix(r, a + 1),
                Piece::Reversed(r, a + 1, b + 1),
                Piece::Suffix(r, b + 1),
            ],
        )]
    });
    let change = run_reversed(p, sol, r, a, b);
    offer_arcs(&mut best, p, sol, gate, change, || {
        [NewRoute::new(
            r,
            &[
                Piece::Prefix(r, a),
                Piece::Reversed(r, a, b),
                Piece::Suffix(r, b),
            ],
        )]
    });
    best
}
