//! 2-opt*: exchange the tails of two routes so that u is followed by v
//! (u's tail goes to v's route after v's predecessor).

use super::{price, Move, NewRoute};
use crate::fleet::model::FleetProblem;
use crate::fleet::solution::{Piece, Solution, NONE};

pub fn evaluate(p: &FleetProblem, sol: &mut Solution, u: usize, v: usize) -> Option<Move> {
    let (ru, rv) = (sol.route_of[u], sol.route_of[v]);
    if ru == NONE || rv == NONE || ru == rv {
        return None;
    }
    let (ru, rv) = (ru as usize, rv as usize);
    let (pu, pv) = (sol.pos_of[u] as usize, sol.pos_of[v] as usize);
    price(
        p,
        sol,
        &[
            NewRoute::new(ru, &[Piece::Prefix(ru, pu + 1), Piece::Suffix(rv, pv)]),
            NewRoute::new(rv, &[Piece::Prefix(rv, pv), Piece::Suffix(ru, pu + 1)]),
        ],
    )
}
