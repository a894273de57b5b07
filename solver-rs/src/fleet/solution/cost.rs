//! The cost of a solution (`FleetCost`, lexicographic) and the totals of one route (`RouteEval`).

use crate::fleet::model::FleetProblem;

/// Lexicographic cost: unassigned jobs (weighted by their priorities:
/// `FleetProblem::miss_weight`), lateness, then the weighted rest.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FleetCost {
    pub unassigned: i64,
    pub lateness: i64,
    pub main: i64,
}

impl FleetCost {
    pub const MAX: FleetCost = FleetCost {
        unassigned: i64::MAX,
        lateness: i64::MAX,
        main: i64::MAX,
    };

    pub fn plus(self, o: FleetCost) -> FleetCost {
        FleetCost {
            unassigned: self.unassigned + o.unassigned,
            lateness: self.lateness + o.lateness,
            main: self.main + o.main,
        }
    }

    pub fn minus(self, o: FleetCost) -> FleetCost {
        FleetCost {
            unassigned: self.unassigned - o.unassigned,
            lateness: self.lateness - o.lateness,
            main: self.main - o.main,
        }
    }

    pub const ZERO: FleetCost = FleetCost {
        unassigned: 0,
        lateness: 0,
        main: 0,
    };
}

/// Totals of a route (feasible, or late by `warp` while the windows are soft).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct RouteEval {
    /// The vehicle driving it (its costs price it; any when `count` is 0).
    pub vehicle: usize,
    pub count: usize,
    pub duration: i64,
    pub distance: i64,
    pub lateness: i64,
    /// Its time warp: how much its windows are broken (0 but while the
    /// windows are soft: `FleetProblem::windows_soft`).
    pub warp: i64,
}

impl RouteEval {
    pub fn cost(&self, p: &FleetProblem) -> FleetCost {
        FleetCost {
            unassigned: 0,
            lateness: self.lateness,
            main: p
                .route_main(self.vehicle, self.count, self.duration, self.distance)
                .saturating_add(p.warp_cost(self.warp)),
        }
    }
}
