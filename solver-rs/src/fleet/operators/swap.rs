//! Swap: exchange u and v between their routes (intra-route too).

use super::{jobs_swapped, price_arcs, Gate, Move, NewRoute, Run};
use crate::fleet::model::FleetProblem;
use crate::fleet::solution::{Piece, Solution};

pub fn evaluate(p: &FleetProblem, sol: &mut Solution, u: usize, v: usize) -> Option<Move> {
    let ((ru, pu), (rv, pv)) = (sol.place(u)?, sol.place(v)?);
    if ru != rv {
        let change = Run::new(p, sol, ru, pu, 1).exchanged_with(p, &Run::new(p, sol, rv, pv, 1));
        return price_arcs(
            p,
            sol,
            &[
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
            ],
            &Gate::new(p, sol, ru, rv),
            change,
        );
    }
    let (a, b) = if pu < pv { (pu, pv) } else { (pv, pu) };
    let (ja, jb) = (sol.routes[ru].jobs[a], sol.routes[ru].jobs[b]);
    let change = jobs_swapped(p, sol, ru, a, b);
    price_arcs(
        p,
        sol,
        &[NewRoute::new(
            ru,
            &[
                Piece::Prefix(ru, a),
                Piece::Job(jb),
                Piece::Range(ru, a + 1, b),
                Piece::Job(ja),
                Piece::Suffix(ru, b + 1),
            ],
        )],
        &Gate::new(p, sol, ru, ru),
        change,
    )
}
