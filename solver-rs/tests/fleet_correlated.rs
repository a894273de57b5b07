#![deny(unsafe_code)]
//! The descent's candidates on a day whose windows differ
//! (`fleet::correlated`): nearest by travel plus a fifth of the least wait
//! and the whole least lateness, the smaller of the two orders.

use route_solver::fleet::correlated::{correlated_jobs, proximity, WAIT_DIVISOR};
use route_solver::fleet::local_search::LocalSearch;
use route_solver::fleet::model::FleetProblem;
mod common;

use common::depot_day;
use route_solver::fleet::{FleetSettings, JobInput};
use route_solver::rng::Rng;

const A: usize = 0;
const B: usize = 1;
const C: usize = 2;

/// Jobs A, B, C on a line at 100, 110 and 200 from the depot; A and C open
/// at the start of the day; B, next to A, only late in the day (unless
/// `same_windows`: then every job has the same window).
fn line(same_windows: bool) -> FleetProblem {
    let xs = [0i64, 100, 110, 200];
    let places = xs.len();
    let travel = (0..places * places)
        .map(|c| (xs[c / places] - xs[c % places]).abs())
        .collect();
    let windows = if same_windows {
        [(0, 10_000); 3]
    } else {
        [(0, 100), (5_000, 5_100), (0, 300)]
    };
    let jobs = windows
        .iter()
        .enumerate()
        .map(|(i, &(ready, due))| JobInput {
            location: i + 1,
            service: 0,
            ready,
            due: Some(due),
            ..JobInput::default()
        })
        .collect();
    FleetProblem::new(&depot_day(places, travel, jobs)).expect("valid line")
}

#[test]
fn a_near_stop_whose_window_cannot_follow_nor_precede_comes_after_a_further_one_that_fits() {
    let p = line(false);
    assert_eq!(
        p.neighbours[A],
        vec![B as u32, C as u32],
        "by travel, B is A's nearest"
    );
    // A then B: leaving A at its due (100), B is reached at 110 and waits until 5000
    assert_eq!(proximity(&p, A, B, 10), 10 + (5_000 - 110) / WAIT_DIVISOR);
    // B then A: leaving B at 5000, A is reached 4910 after its due
    assert_eq!(proximity(&p, B, A, 10), 10 + 4_910);
    // A then C: no wait, no lateness
    assert_eq!(proximity(&p, A, C, 100), 100);
    let lists = correlated_jobs(&p, 2);
    assert_eq!(lists[A], vec![C as u32, B as u32]);
    assert_eq!(
        LocalSearch::with_correlation(&p, 2, true).candidates(&p, A),
        &[C as u32, B as u32]
    );
    assert_eq!(
        LocalSearch::new(&p, 2).candidates(&p, A),
        &p.neighbours[A][..]
    );
}

#[test]
fn with_the_same_window_everywhere_the_descent_pairs_by_travel() {
    let p = line(true);
    let ls = LocalSearch::with_correlation(&p, 2, true);
    for j in [A, B, C] {
        assert_eq!(ls.candidates(&p, j), &p.neighbours[j][..]);
    }
}

/// A day of n jobs on a small grid (Manhattan travel, so that proximities tie
/// often), each job's window wide or an hour at a random time; `one_way`
/// adds this much to every arc from a lower place to a higher one, and
/// `closed` makes the arc from place 1 to place 2 unreachable (2 to 1 is not).
fn grid_day(seed: u64, n: usize, one_way: i64, closed: bool) -> FleetProblem {
    let mut rng = Rng::new(seed);
    let places = n + 1;
    let pts: Vec<(i64, i64)> = (0..places)
        .map(|_| (rng.range(0, 30) as i64, rng.range(0, 30) as i64))
        .collect();
    let travel = (0..places * places)
        .map(|c| {
            let (a, b) = (c / places, c % places);
            let d = (pts[a].0 - pts[b].0).abs() + (pts[a].1 - pts[b].1).abs();
            if closed && (a, b) == (1, 2) {
                -1
            } else {
                d + if a < b { one_way } else { 0 }
            }
        })
        .collect();
    let jobs = (1..places)
        .map(|location| {
            let ready = if rng.range(0, 3) == 0 {
                0
            } else {
                rng.range(0, 900) as i64
            };
            let due = if ready == 0 { 1_000 } else { ready + 60 };
            JobInput {
                location,
                service: rng.range(0, 10) as i64,
                ready,
                due: Some(due),
                ..JobInput::default()
            }
        })
        .collect();
    FleetProblem::new(&depot_day(places, travel, jobs)).expect("valid grid day")
}

#[test]
fn the_lists_from_the_travel_neighbours_are_those_of_every_pair() {
    for (seed, n, one_way, closed) in [
        (1, 250, 0, false),
        (2, 400, 0, false),
        (3, 250, 1, false),
        (5, 300, 9, false),
        (6, 250, 0, true),
        (4, 60, 0, false),
    ] {
        let p = grid_day(seed, n, one_way, closed);
        let t = |a: usize, b: usize| p.t(p.jobs[a].loc, p.jobs[b].loc);
        for keep in [1, 4, 10, 40] {
            let every_pair: Vec<Vec<u32>> = (0..n)
                .map(|i| {
                    let mut row: Vec<(i64, u32)> = (0..n)
                        .filter(|&j| j != i)
                        .map(|j| {
                            let key =
                                proximity(&p, i, j, t(i, j)).min(proximity(&p, j, i, t(j, i)));
                            (key, j as u32)
                        })
                        .collect();
                    row.sort();
                    row.into_iter().take(keep).map(|(_, j)| j).collect()
                })
                .collect();
            assert_eq!(
                correlated_jobs(&p, keep),
                every_pair,
                "seed {seed}, {n} jobs, one way {one_way}, closed {closed}, keep {keep}"
            );
        }
    }
}

#[test]
fn days_of_600_to_1000_jobs_take_the_correlated_candidates() {
    let s = FleetSettings::default();
    assert!(!s.correlates(100), "Solomon's days keep travel");
    assert!(!s.correlates(599));
    assert!(s.correlates(600));
    assert!(s.correlates(1000));
    assert!(!s.correlates(1001), "no larger day was measured");
}
