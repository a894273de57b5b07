//! Swap: exchange u and v between their routes (intra-route too).

use super::{jobs_swapped, price_arcs, Move, NewRoute, Pair, Run};
use crate::fleet::model::FleetProblem;
use crate::fleet::solution::{Piece, Solution};

pub fn evaluate(p: &FleetProblem, sol: &mut Solution, pair: &Pair) -> Option<Move> {
    let (ru, pu, rv, pv) = pair.places();
    let (u, v) = (pair.u.job, pair.v);
    if ru != rv {
        let u_job = pair.u.run(1).expect("u is in its route");
        let change = u_job.exchanged_with(p, &Run::new(p, sol, rv, pv, 1));
        return price_arcs(p, sol, &pair.gate, change, || {
            [
                NewRoute::new(
                    ru,
                    &[
                        Piece::Prefix(ru, pu),
                        Piece::Job(v as u32),
                        Piece::Suffix(ru, pu + 1),
                    ],
                ),
                NewRoute::new(
                    rv,
                    &[
                        Piece::Prefix(rv, pv),
                        Piece::Job(u as u32),
                        Piece::Suffix(rv, pv + 1),
                    ],
                ),
            ]
        });
    }
    let (a, b) = if pu < pv { (pu, pv) } else { (pv, pu) };
    let (ja, jb) = (sol.routes[ru].jobs[a], sol.routes[ru].jobs[b]);
    let change = jobs_swapped(p, sol, ru, a, b);
    price_arcs(p, sol, &pair.gate, change, || {
        [NewRoute::new(
            ru,
            &[
                Piece::Prefix(ru, a),
                Piece::Job(jb),
                Piece::Range(ru, a + 1, b),
                Piece::Job(ja),
                Piece::Suffix(ru, b + 1),
            ],
        )]
    })
}
