//! Cross-exchange: swap a run of 1–3 jobs starting at u with a run of 1–3
//! jobs starting just after v, so that v is followed by u's run.

use super::{offer_arcs, runs_exchanged, Gate, Move, NewRoute};
use crate::fleet::model::FleetProblem;
use crate::fleet::solution::{Piece, Solution};

pub const MAX_RUN: usize = 3;

pub fn evaluate(p: &FleetProblem, sol: &mut Solution, u: usize, v: usize) -> Option<Move> {
    let ((ru, pu), (rv, pv)) = (sol.place(u)?, sol.place(v)?);
    if ru == rv {
        return None;
    }
    let (len_u, len_v) = (sol.routes[ru].len(), sol.routes[rv].len());
    let gate = Gate::new(p, sol, ru, rv);
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
            let change = runs_exchanged(p, sol, ru, pu, a, rv, s, b);
            offer_arcs(
                &mut best,
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
                &gate,
                change,
            );
        }
    }
    best
}
