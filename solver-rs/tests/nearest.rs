#![deny(unsafe_code)]
//! The shared k-nearest selection (`route_solver::nearest::select`) against
//! a brute-force sort, and both engines' lists built on it against their
//! rules written out: the single-route search's nearest candidates
//! (`search::neighbours`) and the fleet's job lists (`FleetProblem::neighbours`).
//! Small integer matrices, so that keys tie often.

use route_solver::fleet::model::NEIGHBOURS_KEPT;
use route_solver::fleet::{FleetInput, FleetProblem, JobInput, Objective, VehicleInput};
use route_solver::nearest::{select, BLOCK};
use route_solver::rng::Rng;
use route_solver::search::neighbours::{CandidateRule, Neighbours};
use route_solver::{Input, Problem};

/// Every candidate pair's (key, j), sorted, the first `keep`.
fn brute_force(
    n: usize,
    keep: usize,
    key: impl Fn(usize, usize) -> i64,
    candidate: impl Fn(usize, usize) -> bool,
) -> Vec<Vec<(i64, u32)>> {
    (0..n)
        .map(|i| {
            let mut row: Vec<(i64, u32)> = (0..n)
                .filter(|&j| candidate(i, j))
                .map(|j| (key(i, j), j as u32))
                .collect();
            row.sort();
            row.truncate(keep);
            row
        })
        .collect()
}

#[test]
fn the_selection_keeps_the_smallest_keys_ties_by_index() {
    let mut rng = Rng::new(29);
    for trial in 0..60 {
        // sizes on both sides of a block, a few values only (ties everywhere)
        let n = [1, 2, 7, BLOCK - 1, BLOCK, BLOCK + 1, 150, 2 * BLOCK + 3][trial % 8];
        let values = [3, 10, 1000][trial % 3];
        let arcs: Vec<i64> = (0..n * n).map(|_| rng.range(0, values) as i64).collect();
        let arc = |i: usize, j: usize| arcs[i * n + j];
        let keep = [0, 1, 5, 20, n, n + 3][trial % 6];
        let modulus = 2 + trial % 5;
        let candidate = |i: usize, j: usize| i != j && (i * 7 + j * 3) % modulus != 0;
        let key = |i: usize, j: usize, there: i64, back: i64| {
            if trial % 2 == 0 {
                there.min(back)
            } else {
                3 * there + back + ((i + j) % 3) as i64
            }
        };
        let mut rows = Vec::new();
        select(n, keep, arc, key, candidate, |i, list| {
            assert_eq!(i, rows.len(), "rows in order");
            rows.push(list.to_vec());
        });
        let expected = brute_force(n, keep, |i, j| key(i, j, arc(i, j), arc(j, i)), candidate);
        assert_eq!(rows, expected, "trial {trial}: n {n}, keep {keep}");
    }
}

/// The search's nearest rule written out: for a stop, every other stop by the
/// shorter directed edge, the start by the edge from it, the end by the edge
/// to it; for the start, the stops by the edge from it; for a real end, by
/// the edge to it; sorted by (key, node), `count` + 1 kept (count at most n - 1).
fn search_rule(p: &Problem, count: usize) -> Vec<Vec<(usize, i64)>> {
    let (n, end) = (p.n, p.end());
    let k = count.min(n - 1);
    (0..n + 2)
        .map(|a| {
            let mut row: Vec<(i64, usize)> = Vec::new();
            if a == 0 {
                row.extend((1..=n).map(|c| (p.d(0, c), c)));
            } else if a == end {
                if p.has_end {
                    row.extend((1..=n).map(|c| (p.d(c, end), c)));
                }
            } else {
                row.extend(
                    (1..=n)
                        .filter(|&c| c != a)
                        .map(|c| (p.d(a, c).min(p.d(c, a)), c)),
                );
                row.push((p.d(0, a), 0));
                row.push((p.d(a, end), end));
            }
            row.sort();
            row.truncate(k + 1);
            row.into_iter().map(|(key, c)| (c, key)).collect()
        })
        .collect()
}

#[test]
fn the_search_keeps_its_nearest_candidates() {
    let mut rng = Rng::new(31);
    for trial in 0..24 {
        let n = [11, 40, BLOCK, 130][trial % 4];
        let has_end = trial % 3 != 0;
        let m = n + 1 + has_end as usize;
        let values = [4, 50][trial % 2];
        let durations: Vec<i32> = (0..m * m)
            .map(|x| {
                if x / m == x % m {
                    0
                } else {
                    rng.range(0, values) as i32
                }
            })
            .collect();
        let (service, deadline) = (vec![0; n], vec![-1; n]);
        let inp = Input {
            size: m,
            durations: &durations,
            service: &service,
            deadline: &deadline,
            has_end,
        };
        let p = Problem::new(&inp).unwrap();
        for count in [3, 10, n + 5] {
            let lists = Neighbours::build(&p, count, CandidateRule::Nearest);
            let got: Vec<Vec<(usize, i64)>> = (0..n + 2)
                .map(|a| lists.of(a).iter().map(|c| (c.node, c.key)).collect())
                .collect();
            assert_eq!(got, search_rule(&p, count), "trial {trial}, count {count}");
            assert!(lists.sorted_by_key());
        }
    }
}

#[test]
fn the_fleet_keeps_its_nearest_jobs() {
    let mut rng = Rng::new(37);
    for trial in 0..6 {
        let n = [5, NEIGHBOURS_KEPT + 1, NEIGHBOURS_KEPT + 2, 2 * BLOCK + 40][trial % 4] + trial;
        // locations: the depot, then fewer places than jobs (jobs share places)
        let m = 1 + n / 2 + 1;
        let values = [5, 500][trial % 2];
        let travel: Vec<i64> = (0..m * m)
            .map(|x| {
                let v = rng.range(0, values) as i64;
                match (x / m == x % m, trial == 3 && v == 0) {
                    (true, _) => 0,
                    (false, true) => -1, // unreachable: last
                    _ => v,
                }
            })
            .collect();
        let inp = FleetInput {
            locations: m,
            travel,
            distance: None,
            vehicles: vec![VehicleInput::default(); 2],
            jobs: (0..n)
                .map(|_| JobInput {
                    location: 1 + rng.range(0, m - 2),
                    ..JobInput::default()
                })
                .collect(),
            objective: Objective::SERVICE,
            limit_distance: None,
            shipments: Vec::new(),
        };
        let p = FleetProblem::new(&inp).unwrap();
        let t = |a: usize, b: usize| p.t(p.jobs[a].loc, p.jobs[b].loc);
        let expected: Vec<Vec<u32>> = brute_force(
            n,
            NEIGHBOURS_KEPT,
            |i, j| t(i, j).saturating_add(t(j, i)),
            |i, j| i != j,
        )
        .into_iter()
        .map(|row| row.into_iter().map(|(_, j)| j).collect())
        .collect();
        assert_eq!(p.neighbours, expected, "trial {trial}: {n} jobs");
    }
}
