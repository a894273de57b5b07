//! Cross-exchange: swap a run of 1–3 jobs starting at u with a run of 1–3
//! jobs starting just after v, so that v is followed by u's run.

use super::{better, price, Move, NewRoute};
use crate::fleet::model::FleetProblem;
use crate::fleet::solution::{Piece, Solution, NONE};

pub const MAX_RUN: usize = 3;

pub fn evaluate(p: &FleetProblem, sol: &mut Solution, u: usize, v: usize) -> Option<Move> {
    let (ru, rv) = (sol.route_of[u], sol.route_of[v]);
    if ru == NONE || rv == NONE || ru == rv {
        return None;
    }
    let (ru, rv) = (ru as usize, rv as usize);
    let (pu, pv) = (sol.pos_of[u] as usize, sol.pos_of[v] as usize);
    let (len_u, len_v) = (sol.routes[ru].len(), sol.routes[rv].len());
    let mut best: Option<Move> = None;
    for a in 1..=MAX_RUN {
        if pu + a > len_u {
            break;
        }
        for b in 1..=MAX_RUN {
            let s = pv + 1;
            if s + b > len_v {
                break;
            }
            let m = price(
                p,
                sol,
                &[
                    NewRoute::new(
                        ru,
                        &[
                            Piece::Prefix(ru, pu),
                            Piece::Range(rv, s, s + b),
                            Piece::Suffix(ru, pu + a),
                        ],
                    ),
                    NewRoute::new(
                        rv,
                        &[
                            Piece::Prefix(rv, s),
                            Piece::Range(ru, pu, pu + a),
                            Piece::Suffix(rv, s + b),
                        ],
                    ),
                ],
            );
            best = better(best, m);
        }
    }
    best
}
