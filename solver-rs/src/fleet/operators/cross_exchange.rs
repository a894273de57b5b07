//! Cross-exchange: swap a run of 1–3 jobs starting at u with a run of 1–3
//! jobs starting just after v, so that v is followed by u's run.

use super::{offer_arcs, Move, NewRoute, Pair, Run, MAX_RUN};
use crate::fleet::model::FleetProblem;
use crate::fleet::solution::{Piece, Solution};

pub fn evaluate(p: &FleetProblem, sol: &mut Solution, pair: &Pair) -> Option<Move> {
    let (ru, pu, rv, pv) = pair.places();
    if ru == rv {
        return None;
    }
    let len_v = sol.routes[rv].len();
    let mut best: Option<Move> = None;
    let s = pv + 1;
    let mut v_runs = [None; MAX_RUN];
    for b in 1..=MAX_RUN.min(len_v.saturating_sub(s)) {
        v_runs[b - 1] = Some(Run::new(p, sol, rv, s, b));
    }
    for a in 1..=MAX_RUN {
        let u_run = match pair.u.run(a) {
            Some(run) => run,
            None => break,
        };
        for b in 1..=MAX_RUN {
            let v_run = match &v_runs[b - 1] {
                Some(run) => run,
                None => break,
            };
            let change = u_run.exchanged_with(p, v_run);
            offer_arcs(&mut best, p, sol, &pair.gate, change, || {
                [
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
                ]
            });
        }
    }
    best
}
