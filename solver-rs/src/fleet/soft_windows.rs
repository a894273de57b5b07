//! Soft time windows in the annealing: the search may pass through plans
//! that break windows, each unit of time warp priced (Vidal et al. 2013's
//! penalised time warp, as HGS and PyVRP search), so that it can cross from
//! one set of on-time plans to a better one through late schedules.
//!
//! While the annealing runs, `FleetProblem::warp_price` is above 0: the
//! pricing (`Solution::evaluate`, `best_insertion`) keeps a time warp
//! instead of ruling the route out, and every route's cost adds its warp at
//! that price. Every `ADAPT_EVERY` candidates the price rises by a fifth when
//! fewer than the target share of them were on time after their descent
//! (it doubles when none was: no better plan could be found at all), and
//! falls by 15 % when more were (the target ± 5 points is left alone).
//! Only a candidate on time can become the best plan, and the price goes
//! back to 0 (hard windows) before anything else runs.
//!
//! Where it applies (`applies`): the objective is the distance (no weighted
//! duration, no costs of the vehicles' own: the bounds of the descent's
//! gate and the insertion stay exact), one window per job, no breaks, no
//! soft deadlines, no shipments or pickups, no driving or distance limits,
//! the windows differ, the construction serves every job, and the day has at
//! most `FleetSettings::soft_windows_to_jobs` jobs.

use super::driver::FleetSettings;
use super::model::FleetProblem;
use super::solution::Solution;

/// The starting price of a unit of time warp, in hundredths of a unit of
/// distance.
pub const START_PRICE: i64 = 100;

/// Candidates between two adjustments of the price.
pub const ADAPT_EVERY: u64 = 100;

/// Past this price (hundredths of the main unit per unit of warp) the
/// windows go hard again: the candidates are almost never on time.
pub const MAX_PRICE: i64 = 1 << 40;

/// The annealing may soften this day's windows, starting from `plan`.
pub fn applies(p: &FleetProblem, s: &FleetSettings, plan: &Solution, servable: &[bool]) -> bool {
    p.n() <= s.soft_windows_to_jobs
        && p.windows_differ
        && p.duration_free()
        && !p.priced
        && !p.has_deadlines
        && !p.multi_windows
        && !p.has_breaks
        && !p.has_pairs
        && !p.profile
        && !p.driving_limited
        && !p.distance_limited
        && (0..p.n()).all(|j| plan.is_assigned(j) || !servable[j])
}

/// No route of `sol` breaks a window.
pub fn on_time(sol: &Solution) -> bool {
    sol.routes.iter().all(|r| r.eval.warp == 0)
}

/// What `SoftWindows::record` did to the price.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Adjusted {
    Kept,
    /// Every route's cost changed with it: the caller prices its plan again.
    Changed,
    /// Past `MAX_PRICE`: the windows are hard again (the caller goes back to an on-time plan).
    Hardened,
}

/// The price of time warp and the candidates seen since its last change.
#[derive(Clone, Debug)]
pub struct SoftWindows {
    price: i64,
    on_time_percent: u64,
    seen: u64,
    on_time: u64,
}

impl SoftWindows {
    /// Soften `p`'s windows: a unit of time warp costs what a unit of distance does.
    pub fn start(p: &FleetProblem, s: &FleetSettings) -> SoftWindows {
        let price = START_PRICE * p.objective.distance_weight.max(1);
        p.set_warp_price(price);
        SoftWindows {
            price,
            on_time_percent: s.soft_windows_on_time_percent.min(100),
            seen: 0,
            on_time: 0,
        }
    }

    pub fn price(&self) -> i64 {
        self.price
    }

    /// A candidate after its descent, on time or not; the price adapts every `ADAPT_EVERY`.
    pub fn record(&mut self, p: &FleetProblem, on_time: bool) -> Adjusted {
        self.seen += 1;
        self.on_time += on_time as u64;
        if self.seen < ADAPT_EVERY {
            return Adjusted::Kept;
        }
        let share = self.on_time * 100 / self.seen;
        let price = if self.on_time == 0 {
            // none on time: the search would find no better plan at all
            self.price * 2
        } else if share + 5 < self.on_time_percent {
            (self.price + self.price / 5).max(self.price + 1)
        } else if share > self.on_time_percent + 5 {
            (self.price - self.price * 15 / 100).max(1)
        } else {
            (self.seen, self.on_time) = (0, 0);
            return Adjusted::Kept;
        };
        (self.seen, self.on_time) = (0, 0);
        if price > MAX_PRICE {
            p.set_warp_price(0);
            return Adjusted::Hardened;
        }
        self.price = price;
        p.set_warp_price(price);
        Adjusted::Changed
    }

    /// The windows hard again.
    pub fn stop(&self, p: &FleetProblem) {
        p.set_warp_price(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fleet::model::{FleetInput, JobInput, Objective, VehicleInput};

    fn problem() -> FleetProblem {
        FleetProblem::new(&FleetInput {
            locations: 2,
            travel: vec![0, 5, 5, 0],
            distance: None,
            vehicles: vec![VehicleInput::default()],
            jobs: vec![JobInput {
                location: 1,
                ..JobInput::default()
            }],
            objective: Objective::DISTANCE,
            limit_distance: None,
            shipments: Vec::new(),
        })
        .unwrap()
    }

    fn settings(percent: u64) -> FleetSettings {
        FleetSettings {
            soft_windows_on_time_percent: percent,
            ..FleetSettings::default()
        }
    }

    /// The price starts at the distance's, rises when too few candidates
    /// are on time, falls when too many are, holds within 5 points of the
    /// target, and changes only every ADAPT_EVERY candidates.
    #[test]
    fn the_price_follows_the_share_of_candidates_on_time() {
        let p = problem();
        let mut soft = SoftWindows::start(&p, &settings(80));
        assert_eq!((soft.price(), p.warp_price()), (100, 100));
        for i in 0..ADAPT_EVERY - 1 {
            assert_eq!(soft.record(&p, i % 2 == 0), Adjusted::Kept);
        }
        // 50 % on time against 80 %: dearer
        assert_eq!(soft.record(&p, false), Adjusted::Changed);
        assert_eq!((soft.price(), p.warp_price()), (120, 120));
        for _ in 0..ADAPT_EVERY {
            soft.record(&p, true);
        }
        // 100 %: cheaper
        assert_eq!((soft.price(), p.warp_price()), (102, 102));
        for i in 0..ADAPT_EVERY - 1 {
            soft.record(&p, i % 4 != 0);
        }
        // 75 of 100: within the target's 5 points
        assert_eq!(soft.record(&p, true), Adjusted::Kept);
        assert_eq!(soft.price(), 102);
        soft.stop(&p);
        assert_eq!(p.warp_price(), 0);
        assert!(!p.windows_soft());
    }

    /// No candidate on time doubles the price; a price that keeps rising
    /// hardens the windows past MAX_PRICE.
    #[test]
    fn a_price_past_the_cap_hardens_the_windows() {
        let p = problem();
        let mut soft = SoftWindows::start(&p, &settings(100));
        let mut rounds = 0;
        loop {
            let before = soft.price();
            let mut last = Adjusted::Kept;
            for _ in 0..ADAPT_EVERY {
                last = soft.record(&p, false);
            }
            rounds += 1;
            if last == Adjusted::Hardened {
                break;
            }
            assert_eq!(last, Adjusted::Changed);
            assert_eq!(soft.price(), 2 * before);
            assert!(p.windows_soft());
        }
        // 100 · 2^34 > 2^40
        assert_eq!(rounds, 34);
        assert_eq!(p.warp_price(), 0);
    }
}
