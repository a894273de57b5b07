//! Solomon VRPTW instances: parser, the scaled integer problem the solver
//! works on, and the double-precision check of a solution.
//!
//! The solver works in integers: travel time = ceil(Euclidean × SCALE), so a
//! schedule feasible in the solver's units is feasible in exact arithmetic
//! too (rounding up only delays arrivals); the objective distance is
//! round(Euclidean × SCALE). The check below recomputes everything in
//! unrounded doubles.

use super::model::{FleetInput, JobInput, Objective, VehicleInput};

/// Fixed-point scale of times and distances inside the solver.
pub const SCALE: f64 = 100_000.0;
/// Vehicle cost of the vehicles-first objective (above any scaled total distance).
pub const VEHICLE_COST: i64 = 1_000_000_000_000;

#[derive(Clone, Debug, PartialEq)]
pub struct Customer {
    pub number: u32,
    pub x: f64,
    pub y: f64,
    pub demand: i64,
    pub ready: f64,
    pub due: f64,
    pub service: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Instance {
    pub name: String,
    pub vehicles: usize,
    pub capacity: i64,
    /// [0] is the depot.
    pub nodes: Vec<Customer>,
}

impl Instance {
    pub fn parse(text: &str) -> Result<Instance, String> {
        let mut lines = text.lines().map(|l| l.trim()).filter(|l| !l.is_empty());
        let name = lines.next().ok_or("empty file")?.to_string();
        let mut vehicles = None;
        let mut nodes = Vec::new();
        for line in lines {
            let nums: Vec<f64> = line
                .split_whitespace()
                .filter_map(|t| t.parse().ok())
                .collect();
            let words = line.split_whitespace().count();
            if nums.len() != words || nums.is_empty() {
                continue; // a header line
            }
            if vehicles.is_none() && nums.len() == 2 {
                vehicles = Some((nums[0] as usize, nums[1] as i64));
            } else if nums.len() == 7 {
                nodes.push(Customer {
                    number: nums[0] as u32,
                    x: nums[1],
                    y: nums[2],
                    demand: nums[3] as i64,
                    ready: nums[4],
                    due: nums[5],
                    service: nums[6],
                });
            } else {
                return Err(format!("unexpected line: {}", line));
            }
        }
        let (vehicles, capacity) = vehicles.ok_or("no VEHICLE block")?;
        if nodes.len() < 2
            || nodes
                .iter()
                .enumerate()
                .any(|(i, c)| c.number as usize != i)
        {
            return Err("customer rows must be numbered 0..n".into());
        }
        Ok(Instance {
            name,
            vehicles,
            capacity,
            nodes,
        })
    }

    pub fn euclid(&self, a: usize, b: usize) -> f64 {
        let (p, q) = (&self.nodes[a], &self.nodes[b]);
        ((p.x - q.x) * (p.x - q.x) + (p.y - q.y) * (p.y - q.y)).sqrt()
    }

    /// The solver's problem: location 0 is the depot, job j is customer j + 1.
    pub fn fleet_input(&self, vehicles_first: bool) -> FleetInput {
        let m = self.nodes.len();
        let mut travel = vec![0i64; m * m];
        let mut distance = vec![0i64; m * m];
        for a in 0..m {
            for b in 0..m {
                let e = self.euclid(a, b) * SCALE;
                travel[a * m + b] = e.ceil() as i64;
                distance[a * m + b] = e.round() as i64;
            }
        }
        let scaled = |x: f64| (x * SCALE).round() as i64;
        let depot = &self.nodes[0];
        let vehicle = VehicleInput {
            start: 0,
            end: Some(0),
            shift_start: scaled(depot.ready),
            shift_end: Some(scaled(depot.due)),
            capacity: vec![self.capacity],
            max_stops: None,
            max_duration: None,
            max_driving: None,
            max_distance: None,
            breaks: Vec::new(),
            ..VehicleInput::default()
        };
        FleetInput {
            locations: m,
            travel,
            distance: Some(distance),
            vehicles: vec![vehicle; self.vehicles],
            jobs: self.nodes[1..]
                .iter()
                .enumerate()
                .map(|(j, c)| JobInput {
                    location: j + 1,
                    service: scaled(c.service),
                    ready: scaled(c.ready),
                    due: Some(scaled(c.due)),
                    deadline: None,
                    demand: vec![c.demand],
                    allowed: None,
                    windows: None,
                    priority: 0,
                    pickup: Vec::new(),
                })
                .collect(),
            objective: if vehicles_first {
                Objective {
                    vehicle_cost: VEHICLE_COST,
                    duration_weight: 0,
                    distance_weight: 1,
                    ..Objective::DISTANCE
                }
            } else {
                Objective::DISTANCE
            },
            limit_distance: None,
            shipments: Vec::new(),
        }
    }

    /// Check routes of customer numbers (depot excluded) in unrounded
    /// doubles: every customer exactly once, capacity, service starting
    /// within [ready, due], back at the depot by its due date, at most the
    /// fleet size. Returns (total distance, total with each arc truncated to
    /// one decimal).
    pub fn check(&self, routes: &[Vec<u32>]) -> Result<(f64, f64), String> {
        let n = self.nodes.len() - 1;
        let mut seen = vec![false; n + 1];
        let used = routes.iter().filter(|r| !r.is_empty()).count();
        if used > self.vehicles {
            return Err(format!("{} routes for {} vehicles", used, self.vehicles));
        }
        let mut total = 0.0;
        let mut tenths: i64 = 0;
        for (ri, route) in routes.iter().enumerate() {
            if route.is_empty() {
                continue;
            }
            let load: i64 = route
                .iter()
                .map(|&c| self.nodes.get(c as usize).map_or(0, |n| n.demand))
                .sum();
            if load > self.capacity {
                return Err(format!(
                    "route {}: load {} above {}",
                    ri, load, self.capacity
                ));
            }
            let mut t = self.nodes[0].ready;
            let mut at = 0usize;
            for &c in route.iter().chain(std::iter::once(&0)) {
                let c = c as usize;
                if c > n {
                    return Err(format!("route {}: no customer {}", ri, c));
                }
                if c != 0 {
                    if seen[c] {
                        return Err(format!("customer {} visited twice", c));
                    }
                    seen[c] = true;
                }
                let d = self.euclid(at, c);
                total += d;
                tenths += (d * 10.0).floor() as i64;
                let node = &self.nodes[c];
                t = (t + self.nodes[at].service + d).max(node.ready);
                if t > node.due {
                    return Err(format!(
                        "route {}: customer {} served at {} after {}",
                        ri, c, t, node.due
                    ));
                }
                at = c;
            }
        }
        if let Some(c) = (1..=n).find(|&c| !seen[c]) {
            return Err(format!("customer {} not visited", c));
        }
        Ok((total, tenths as f64 / 10.0))
    }
}

/// The solver's routes (job indices, one list per vehicle) as the routes of
/// customer numbers that `Instance::check` takes: job j is customer j + 1
/// (`Instance::fleet_input`), unused vehicles dropped.
pub fn customer_routes(routes: &[Vec<u32>]) -> Vec<Vec<u32>> {
    routes
        .iter()
        .filter(|r| !r.is_empty())
        .map(|r| r.iter().map(|&j| j + 1).collect())
        .collect()
}

/// bks.csv: instance -> (vehicles, distance, distance_only).
pub fn parse_bks(text: &str) -> Vec<(String, usize, f64, f64)> {
    text.lines()
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.trim().split(',').collect();
            if f.len() != 4 {
                return None;
            }
            Some((
                f[0].to_string(),
                f[1].parse().ok()?,
                f[2].parse().ok()?,
                f[3].parse().ok()?,
            ))
        })
        .collect()
}
