//! Relocate: move a run of 1–3 jobs starting at u to just after v (v's route,
//! possibly u's own: the intra-route Or-opt), or just before v.

use super::{offer, offer_arcs, Gap, Move, NewRoute, Pair, MAX_RUN};
use crate::fleet::model::FleetProblem;
use crate::fleet::solution::{Piece, Solution};

pub fn evaluate(p: &FleetProblem, sol: &mut Solution, pair: &Pair) -> Option<Move> {
    let (ru, pu, rv, pv) = pair.places();
    let len_u = sol.routes[ru].len();
    let gate = &pair.gate;
    let mut best: Option<Move> = None;
    // after v (target position t = pv + 1), and before v (t = pv)
    let targets = [pv + 1, pv];
    let gaps = targets.map(|t| Gap::new(p, sol, rv, t));
    for run in 1..=MAX_RUN {
        let moved = match pair.u.run(run) {
            Some(moved) => moved,
            None => break,
        };
        let taken_out = moved.taken_out(p);
        for (&t, gap) in targets.iter().zip(&gaps) {
            if ru != rv {
                let routes = || {
                    [
                        NewRoute::new(ru, &[Piece::Prefix(ru, pu), Piece::Suffix(ru, pu + run)]),
                        NewRoute::new(
                            rv,
                            &[
                                Piece::Prefix(rv, t),
                                Piece::Range(ru, pu, pu + run),
                                Piece::Suffix(rv, t),
                            ],
                        ),
                    ]
                };
                if run < len_u {
                    let change = taken_out + moved.put_in(p, gap);
                    offer_arcs(&mut best, p, sol, gate, change, routes);
                } else {
                    // u's route empties: its vehicle cost goes too
                    offer(&mut best, p, sol, &routes());
                }
            } else if t >= pu && t <= pu + run {
                // the run is already there or v is inside it
            } else if t > pu {
                let change = taken_out + moved.put_in(p, gap);
                offer_arcs(&mut best, p, sol, gate, change, || {
                    [NewRoute::new(
                        ru,
                        &[
                            Piece::Prefix(ru, pu),
                            Piece::Range(ru, pu + run, t),
                            Piece::Range(ru, pu, pu + run),
                            Piece::Suffix(ru, t),
                        ],
                    )]
                });
            } else {
                let change = taken_out + moved.put_in(p, gap);
                offer_arcs(&mut best, p, sol, gate, change, || {
                    [NewRoute::new(
                        ru,
                        &[
                            Piece::Prefix(ru, t),
                            Piece::Range(ru, pu, pu + run),
                            Piece::Range(ru, t, pu),
                            Piece::Suffix(ru, pu + run),
                        ],
                    )]
                });
            }
        }
    }
    best
}
