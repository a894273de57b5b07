//! Time-window segments (Vidal et al. 2013, as PyVRP's `DurationSegment`):
//! the data of a run of visits that lets two runs be joined in O(1).
//!
//! For a run, `duration` is its total time (travel, service, waiting),
//! `time_warp` how much a window would have to be violated (0 = feasible:
//! windows are hard here), and [`earliest`, `latest`] the window in which the
//! run may begin so that it has that duration and time warp.

use super::model::FleetProblem;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TwSegment {
    pub first: u32,
    pub last: u32,
    pub duration: i64,
    pub time_warp: i64,
    pub earliest: i64,
    pub latest: i64,
}

impl TwSegment {
    /// One visit at `loc` with service `service` starting within [earliest, latest].
    pub fn visit(loc: usize, service: i64, earliest: i64, latest: i64) -> TwSegment {
        TwSegment {
            first: loc as u32,
            last: loc as u32,
            duration: service,
            time_warp: 0,
            earliest,
            latest,
        }
    }

    /// This run followed by `next` (travel from our last to its first).
    #[inline(always)]
    pub fn then(&self, next: &TwSegment, p: &FleetProblem) -> TwSegment {
        let travel = p.t(self.last as usize, next.first as usize);
        let delta = self.duration - self.time_warp + travel;
        let wait = (next.earliest - delta - self.latest).max(0);
        let warp = (self.earliest + delta - next.latest).max(0);
        TwSegment {
            first: self.first,
            last: next.last,
            duration: self.duration + next.duration + travel + wait,
            time_warp: self.time_warp + next.time_warp + warp,
            earliest: (next.earliest - delta).max(self.earliest) - wait,
            latest: (next.latest - delta).min(self.latest) + warp,
        }
    }

    /// This run cannot be followed in time by a visit whose latest start is
    /// `latest`, directly or after more visits: it has a time warp already,
    /// or it ends after `latest` even begun at its earliest (travel, service
    /// and waiting only push the end later).
    #[inline(always)]
    pub fn ends_after(&self, latest: i64) -> bool {
        self.time_warp > 0 || self.earliest + self.duration > latest
    }

    /// No unreachable arc (a time warp may remain: `feasible` rules it out too).
    #[inline(always)]
    pub fn reachable(&self) -> bool {
        self.duration < super::model::UNREACHABLE
    }

    /// Feasible: no window violated and no unreachable arc.
    #[inline(always)]
    pub fn feasible(&self) -> bool {
        self.time_warp == 0 && self.duration < super::model::UNREACHABLE
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fleet::model::{FleetInput, JobInput, Objective, VehicleInput};
    use crate::rng::Rng;

    /// Joining is associative, exactly (the routes cache a suffix joined with
    /// the vehicle's end and join prefixes to it: the same as joining in order).
    #[test]
    fn joining_is_associative() {
        let mut rng = Rng::new(7);
        let m = 6;
        let travel = (0..m * m)
            .map(|x| {
                if x / m == x % m {
                    0
                } else {
                    rng.range(0, 40) as i64
                }
            })
            .collect();
        let p = FleetProblem::new(&FleetInput {
            locations: m,
            travel,
            distance: None,
            vehicles: vec![VehicleInput::default()],
            jobs: vec![JobInput::default()],
            objective: Objective::SERVICE,
            limit_distance: None,
            shipments: Vec::new(),
        })
        .unwrap();
        let seg = |rng: &mut Rng| {
            let e = rng.range(0, 100) as i64;
            TwSegment::visit(
                rng.range(0, m - 1),
                rng.range(0, 10) as i64,
                e,
                e + rng.range(0, 60) as i64,
            )
        };
        for _ in 0..20000 {
            let (a, b, c, d) = (seg(&mut rng), seg(&mut rng), seg(&mut rng), seg(&mut rng));
            let (ab, cd) = (a.then(&b, &p), c.then(&d, &p));
            let left = ab.then(&c, &p).then(&d, &p);
            assert_eq!(left, a.then(&b.then(&c, &p), &p).then(&d, &p));
            assert_eq!(left, ab.then(&cd, &p));
            assert_eq!(left, a.then(&b.then(&cd, &p), &p));
        }
    }
}
