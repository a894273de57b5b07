//! 2-opt*: exchange the tails of two routes so that u is followed by v
//! (u's tail goes to v's route after v's predecessor).

use super::{price, price_arcs, tails_exchanged, Move, NewRoute, Pair};
use crate::fleet::model::FleetProblem;
use crate::fleet::solution::{Piece, Solution};

pub fn evaluate(p: &FleetProblem, sol: &mut Solution, pair: &Pair) -> Option<Move> {
    let (ru, pu, rv, pv) = pair.places();
    if ru == rv {
        return None;
    }
    let routes = || {
        [
            NewRoute::new(ru, &[Piece::Prefix(ru, pu + 1), Piece::Suffix(rv, pv)]),
            NewRoute::new(rv, &[Piece::Prefix(rv, pv), Piece::Suffix(ru, pu + 1)]),
        ]
    };
    if pv == 0 && pu + 1 == sol.routes[ru].len() {
        // v's route empties: its vehicle cost goes too
        return price(p, sol, &routes());
    }
    let change = tails_exchanged(p, sol, ru, pu, rv, pv);
    price_arcs(p, sol, &pair.gate, change, routes)
}
