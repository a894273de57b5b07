//! The stops of one place in input order. The host gives points a few metres
//! apart one location (one matrix row: `src/calls/places.ts`), so any order
//! among a route's jobs at one location is equally short, and the search's
//! choice among them is arbitrary. A plan visits them in input order (job
//! index order): each location's positions in the route are filled with its
//! jobs in ascending index, unless that breaks a rule or makes the route later
//! (more lateness, or a later return: a wait for a window can move it); then
//! the search's order among them stays. Locations are taken in the order of
//! their first job. Optimize applies the same rule to its single route
//! (`src/calls/places.ts`, timed by this module's `evaluate_route`).

use super::model::FleetProblem;
use super::solution::{lateness_of, route_violation, schedule_of};

/// Vehicle v's `jobs` with each location's jobs in input order where that is no later.
pub fn input_order_at_same_place(p: &FleetProblem, v: usize, jobs: &[u32]) -> Vec<u32> {
    let mut current = jobs.to_vec();
    let mut by_index = jobs.to_vec();
    by_index.sort_unstable();
    // (location, its jobs ascending), in the order of each location's first job
    let mut groups: Vec<(usize, Vec<u32>)> = Vec::new();
    for &j in &by_index {
        let loc = p.jobs[j as usize].loc;
        match groups.iter_mut().find(|g| g.0 == loc) {
            Some(g) => g.1.push(j),
            None => groups.push((loc, vec![j])),
        }
    }
    let price = |order: &[u32]| (lateness_of(p, v, order), schedule_of(p, v, order).1);
    let mut current_price = price(&current);
    for (loc, members) in groups.iter().filter(|g| g.1.len() > 1) {
        let mut candidate = current.clone();
        let mut next = members.iter();
        for slot in candidate.iter_mut() {
            if p.jobs[*slot as usize].loc == *loc {
                *slot = *next.next().expect("a location's positions hold its jobs");
            }
        }
        if candidate == current || route_violation(p, v, &candidate).is_some() {
            continue;
        }
        let candidate_price = price(&candidate);
        if candidate_price.0 <= current_price.0 && candidate_price.1 <= current_price.1 {
            current = candidate;
            current_price = candidate_price;
        }
    }
    current
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fleet::model::{FleetInput, JobInput, Objective, VehicleInput};

    /// One vehicle from location 0 and back; jobs of 60 s at the given locations, with (due, deadline).
    fn problem(jobs: &[(usize, Option<i64>, Option<i64>)]) -> FleetProblem {
        let ready: Vec<(usize, i64, Option<i64>, Option<i64>)> = jobs
            .iter()
            .map(|&(l, due, deadline)| (l, 0, due, deadline))
            .collect();
        problem_with_ready(&ready)
    }

    /// As `problem`, with each job's earliest start: (location, ready, due, deadline).
    fn problem_with_ready(jobs: &[(usize, i64, Option<i64>, Option<i64>)]) -> FleetProblem {
        // location 0 the depot; 1 and 2 ten seconds from it and from each other
        let travel: Vec<i64> = vec![0, 10, 10, 10, 0, 10, 10, 10, 0];
        FleetProblem::new(&FleetInput {
            locations: 3,
            travel,
            distance: None,
            vehicles: vec![VehicleInput {
                start: 0,
                end: Some(0),
                shift_start: 0,
                shift_end: None,
                capacity: vec![],
                max_stops: None,
                max_duration: None,
                max_driving: None,
                max_distance: None,
                breaks: Vec::new(),
                ..VehicleInput::default()
            }],
            jobs: jobs
                .iter()
                .map(|&(location, ready, due, deadline)| JobInput {
                    location,
                    service: 60,
                    ready,
                    due,
                    deadline,
                    demand: vec![],
                    allowed: None,
                    windows: None,
                    priority: 0,
                    pickup: Vec::new(),
                })
                .collect(),
            objective: Objective::SERVICE,
            limit_distance: None,
            shipments: Vec::new(),
        })
        .unwrap()
    }

    #[test]
    fn jobs_at_one_location_go_back_to_input_order() {
        let p = problem(&[
            (1, None, None),
            (2, None, None),
            (1, None, None),
            (1, None, None),
        ]);
        assert_eq!(
            input_order_at_same_place(&p, 0, &[3, 0, 2, 1]),
            vec![0, 2, 3, 1]
        );
        // positions need not be adjacent: the location's positions are filled in input order
        assert_eq!(
            input_order_at_same_place(&p, 0, &[3, 1, 2, 0]),
            vec![0, 1, 2, 3]
        );
    }

    #[test]
    fn the_search_order_stays_when_input_order_is_later_or_breaks_a_window() {
        // job 0 has a deadline at 100 s, job 1 none: 1 before 0 makes 0 late, so the search's order stays
        let p = problem(&[(1, None, Some(100)), (1, None, None)]);
        assert_eq!(input_order_at_same_place(&p, 0, &[0, 1]), vec![0, 1]);
        let q = problem(&[(1, None, None), (1, Some(100), None)]);
        // job 1 must start by 100 s: after job 0's 60 s service at 10 s it starts at 70 s (fine) ...
        assert_eq!(input_order_at_same_place(&q, 0, &[1, 0]), vec![0, 1]);
        let r = problem(&[(1, None, None), (1, Some(50), None)]);
        // ... but by 50 s it could not: input order would break its window
        assert_eq!(input_order_at_same_place(&r, 0, &[1, 0]), vec![1, 0]);
    }

    #[test]
    fn the_search_order_stays_when_input_order_returns_later() {
        // job 0 may start at 200 s, job 1 at once: the search's [1, 0] serves 1 while waiting and is back at
        // 270 s; input order [0, 1] waits first and is back at 330 s, so [1, 0] stays
        let p = problem_with_ready(&[(1, 200, None, None), (1, 0, None, None)]);
        assert_eq!(schedule_of(&p, 0, &[1, 0]).1, 270);
        assert_eq!(schedule_of(&p, 0, &[0, 1]).1, 330);
        assert_eq!(input_order_at_same_place(&p, 0, &[1, 0]), vec![1, 0]);
    }
}
