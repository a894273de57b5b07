//! Pair relocate (VROOM's PDShift): move a whole shipment from u's route to
//! v's route. When u is the pickup it goes just before or just after v and
//! its delivery at the best place after it; when u is the delivery, the
//! other way round. The target route is priced by `best_pair_insertion`
//! (segments, O(1) per candidate in the plain case).

use super::{Move, NewRoute, Pair};
use crate::fleet::model::{FleetProblem, Role};
use crate::fleet::pairs::{pair_pieces, PairWindow};
use crate::fleet::solution::{Piece, Solution};

pub fn evaluate(p: &FleetProblem, sol: &mut Solution, pair: &Pair) -> Option<Move> {
    let u = pair.u.job;
    let o = p.partner(u)?;
    let (ru, pu, rv, pv) = pair.places();
    if ru == rv {
        return None;
    }
    let (a, b) = if p.role[u] == Role::Pickup {
        (u, o)
    } else {
        (o, u)
    };
    let po = sol.pos_of[o] as usize;
    let (pa, pb) = (pu.min(po), pu.max(po));
    let window = if u == a {
        PairWindow {
            i_lo: pv,
            i_hi: pv + 1,
            k_lo: 0,
            k_hi: usize::MAX,
        }
    } else {
        PairWindow {
            i_lo: 0,
            i_hi: pv + 1,
            k_lo: pv,
            k_hi: pv + 1,
        }
    };
    let from = [
        Piece::Prefix(ru, pa),
        Piece::Range(ru, pa + 1, pb),
        Piece::Suffix(ru, pb + 1),
    ];
    let vu = sol.routes[ru].vehicle;
    let (added, i, k) = sol.best_pair_insertion(p, rv, a, b, window, || false)?;
    if p.duration_free() && !p.has_deadlines {
        // gain bound (as operators::price): the distance change is the exact change of the cost
        let old = &sol.routes[ru];
        let (dist, count) = sol.distance_of_pieces(p, vu, &from);
        let removal =
            p.route_main(vu, count, 0, dist) - p.route_main(vu, old.len(), 0, old.eval.distance);
        if removal + added.main >= 0 {
            return None;
        }
    }
    let left = sol
        .evaluate(p, vu, &from)?
        .cost(p)
        .minus(sol.routes[ru].cost(p));
    let (pieces, len) = pair_pieces(rv, a, b, i, k);
    Some(Move {
        delta: left.plus(added),
        routes: [NewRoute::new(ru, &from), NewRoute::new(rv, &pieces[..len])],
        count: 2,
    })
}
