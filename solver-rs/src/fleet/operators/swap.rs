//! Swap: exchange u and v between their routes (intra-route too).

use super::{price, Move, NewRoute};
use crate::fleet::model::FleetProblem;
use crate::fleet::solution::{Piece, Solution};

pub fn evaluate(p: &FleetProblem, sol: &mut Solution, u: usize, v: usize) -> Option<Move> {
    let ((ru, pu), (rv, pv)) = (sol.place(u)?, sol.place(v)?);
    if ru != rv {
        return price(
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
        );
    }
    let (a, b) = if pu < pv { (pu, pv) } else { (pv, pu) };
    let (ja, jb) = (sol.routes[ru].jobs[a], sol.routes[ru].jobs[b]);
    price(
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
    )
}
