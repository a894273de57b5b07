//! Native Solomon VRPTW bench (the fleet solver; also `bench --solomon DIR`).
//!
//!   solomon --solomon DIR [--time-limit-ms N | --max-iterations N] [--objective distance|vehicles]
//!           [--json] [--only C101,R2] [--seed S] [--cpu-clock] [fleet options]
//!
//! Hard windows (notBefore = READY TIME, due = DUE DATE), 25 vehicles of the
//! instance's capacity, Euclidean distances. Each solution is re-checked in
//! unrounded doubles (`fleet::solomon::Instance::check`); the total is
//! printed unrounded and with each arc truncated to one decimal, the
//! convention of bks.csv's `distance_only` optima, against which the gap is
//! computed. `--objective vehicles` minimises vehicles first (a fixed cost
//! per vehicle) and is compared with the `vehicles`/`distance` columns.
//! `--only` takes instance names or prefixes. With `--json`: one line per
//! instance {"instance","routes","distance","vehicles","ms"}.
//!
//! `--random N:V[:SEED]` instead of `--solomon`: a synthetic service-like day
//! (N stops, V vans, 10 h shifts, two demand dimensions, 30% of the stops with
//! a 2 h notBefore/due window, a third of the others with a soft deadline, the service's
//! objective); prints time, cost, unassigned and the peak memory (VmHWM).
//! Without `--json`, a last line lists the descent's operator counters
//! (tried/improving/applied, `route_solver::Progress`).
//!
//! `--stall K`: stop when the best plan has not improved for K iterations.
//! Fleet options: --granular K, --correlated / --no-correlated (the descent's nearest by time-window
//! correlation on every day with windows / never; by default from 600 to 1000 jobs),
//! --no-ls, --no-route-polish, --ruin-average C (at the annealing's end), --ruin-start-average C
//! (at its start; C for the same throughout), --ruin-max-string L, --blink PER_MILLE,
//! --recreate-near K (0: every route), --recreate-near-from JOBS,
//! --temperature TENTHS (start, × mean near arc), --cooling RATIO,
//! --soft-windows-to-jobs N (the annealing through late schedules on days of at most N jobs; 0: off,
//! the default), --soft-windows-on-time PERCENT.
#![deny(unsafe_code)]

use route_solver::fleet::solomon::{customer_routes, parse_bks, Instance};
use route_solver::fleet::{self, FleetParams, FleetProblem};
use route_solver::{Clock, NativeClock, Progress};
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::time::Instant;

/// Per instance of a class: feasible, gap, vehicles, bks vehicles, hierarchical gap, ms.
type ClassRow = (bool, f64, usize, usize, f64, f64);

struct CpuClock(std::cell::RefCell<File>);

impl Clock for CpuClock {
    fn now_ms(&self) -> f64 {
        let mut f = self.0.borrow_mut();
        let mut s = String::new();
        f.seek(SeekFrom::Start(0)).expect("seek schedstat");
        f.read_to_string(&mut s).expect("read schedstat");
        s.split_whitespace()
            .next()
            .and_then(|t| t.parse::<u64>().ok())
            .unwrap_or(0) as f64
            / 1e6
    }
}

fn usage() -> ! {
    eprintln!("usage: solomon --solomon DIR [--time-limit-ms N | --max-iterations N] [--objective distance|vehicles] [--json] [--only A,B] [--seed S] [--cpu-clock]; see the source header");
    std::process::exit(2)
}

fn class_of(name: &str) -> &str {
    &name[..name.len() - 2]
}

pub fn main() {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let mut dir = None;
    let mut params = FleetParams::default();
    let mut vehicles_first = false;
    let mut json = false;
    let mut only: Vec<String> = Vec::new();
    let mut cpu = false;
    let mut random: Option<String> = None;
    let mut i = 0;
    fn num<T: std::str::FromStr>(v: Option<&String>) -> T {
        v.and_then(|s| s.parse().ok()).unwrap_or_else(|| usage())
    }
    while i < argv.len() {
        let a = argv[i].as_str();
        let v = argv.get(i + 1);
        let mut takes = true;
        match a {
            "--solomon" => dir = Some(v.cloned().unwrap_or_else(|| usage())),
            "--random" => random = Some(v.cloned().unwrap_or_else(|| usage())),
            "--time-limit-ms" => params.time_limit_ms = num(v),
            "--max-iterations" => params.max_iterations = num(v),
            "--seed" => params.seed = num(v),
            "--stall" => params.stall_iterations = num(v),
            "--fleet-stall-factor" => params.settings.fleet_stall_factor = num(v),
            "--objective" => match v.map(|s| s.as_str()) {
                Some("distance") => vehicles_first = false,
                Some("vehicles") => vehicles_first = true,
                _ => usage(),
            },
            "--only" => {
                only = v
                    .unwrap_or_else(|| usage())
                    .split(',')
                    .map(|s| s.to_string())
                    .collect()
            }
            "--granular" => params.settings.granular = num(v),
            "--ruin-average" => params.settings.ruin.average_removed = num(v),
            "--ruin-max-string" => params.settings.ruin.max_string = num(v),
            "--ruin-start-average" => params.settings.ruin.start_average = num(v),
            "--blink" => params.settings.blink_per_mille = num(v),
            "--recreate-near" => params.settings.recreate_near = num(v),
            "--recreate-near-from" => params.settings.recreate_near_from_jobs = num(v),
            "--temperature" => params.settings.start_temperature_tenths = num(v),
            "--cooling" => params.settings.cooling_ratio = num(v),
            "--soft-windows-to-jobs" => params.settings.soft_windows_to_jobs = num(v),
            "--soft-windows-on-time" => params.settings.soft_windows_on_time_percent = num(v),
            "--json" => {
                json = true;
                takes = false
            }
            "--cpu-clock" => {
                cpu = true;
                takes = false
            }
            "--no-ls" => {
                params.settings.local_search = false;
                takes = false
            }
            "--correlated" => {
                params.settings.correlated_from_jobs = 0;
                params.settings.correlated_to_jobs = usize::MAX;
                takes = false
            }
            "--no-correlated" => {
                params.settings.correlated_from_jobs = usize::MAX;
                takes = false
            }
            "--no-route-polish" => {
                params.settings.route_polish = false;
                takes = false
            }
            _ => usage(),
        }
        i += if takes { 2 } else { 1 };
    }
    if let Some(spec) = random {
        return random_day(&spec, &params);
    }
    let dir = dir.unwrap_or_else(|| usage());
    let bks = std::fs::read_to_string(format!("{}/bks.csv", dir))
        .map(|t| parse_bks(&t))
        .unwrap_or_default();
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| {
            eprintln!("cannot read {}: {}", dir, e);
            std::process::exit(2)
        })
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|f| f.ends_with(".txt"))
        .map(|f| f.trim_end_matches(".txt").to_string())
        .filter(|n| only.is_empty() || only.iter().any(|o| n.starts_with(o.as_str())))
        .collect();
    names.sort();
    if names.is_empty() {
        eprintln!("no instance (*.txt) in {}", dir);
        std::process::exit(2);
    }
    // class -> (instances, feasible, sum gap, worst gap, vehicles, bks vehicles, at bks vehicles, sum hierarchical gap, ms)
    let mut classes: Vec<(String, Vec<ClassRow>)> = Vec::new();
    // the fleet descent's operator counters over every instance
    let mut operators = Progress::default();
    if !json {
        println!(
            "{:<6} {:>4} {:>4} {:>11} {:>10} {:>9} {:>8}  {:>4} {:>9} {:>7} {:>7} {:>9}",
            "inst",
            "ok",
            "veh",
            "distance",
            "trunc",
            "opt",
            "gap%",
            "bksV",
            "bksDist",
            "hgap%",
            "ms",
            "iters"
        );
    }
    for name in &names {
        let text = std::fs::read_to_string(format!("{}/{}.txt", dir, name)).expect("read instance");
        let inst = Instance::parse(&text).unwrap_or_else(|e| {
            eprintln!("{}: {}", name, e);
            std::process::exit(2)
        });
        let problem = FleetProblem::new(&inst.fleet_input(vehicles_first)).expect("valid instance");
        let wall = NativeClock::new();
        let cpu_clock;
        let clock: &dyn Clock = if cpu {
            cpu_clock = CpuClock(std::cell::RefCell::new(
                File::open("/proc/thread-self/schedstat")
                    .expect("--cpu-clock needs /proc/thread-self/schedstat"),
            ));
            &cpu_clock
        } else {
            &wall
        };
        let started = Instant::now();
        let sol = fleet::solve(&problem, &params, clock);
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        operators.add_counters(&sol.progress);
        let routes = customer_routes(&sol.routes);
        let vehicles = routes.len();
        let checked = if sol.unassigned.is_empty() {
            inst.check(&routes)
        } else {
            Err(format!("{} customers unassigned", sol.unassigned.len()))
        };
        let (distance, truncated) = checked.clone().unwrap_or((f64::NAN, f64::NAN));
        let b = bks.iter().find(|b| &b.0 == name);
        let gap = b.map_or(f64::NAN, |b| (truncated - b.3) / b.3 * 100.0);
        let hgap = b.map_or(f64::NAN, |b| (distance - b.2) / b.2 * 100.0);
        if json {
            let rs: Vec<String> = routes
                .iter()
                .map(|r| {
                    format!(
                        "[{}]",
                        r.iter()
                            .map(|c| c.to_string())
                            .collect::<Vec<_>>()
                            .join(",")
                    )
                })
                .collect();
            println!(
                "{{\"instance\":\"{}\",\"routes\":[{}],\"distance\":{},\"vehicles\":{},\"ms\":{:.1}}}",
                name,
                rs.join(","),
                if distance.is_finite() { format!("{}", distance) } else { "null".into() },
                vehicles,
                ms
            );
        } else {
            println!(
                "{:<6} {:>4} {:>4} {:>11.2} {:>10.1} {:>9.1} {:>8.2}  {:>4} {:>9.2} {:>7.2} {:>7.0} {:>9}{}",
                name,
                if checked.is_ok() { "yes" } else { "NO" },
                vehicles,
                distance,
                truncated,
                b.map_or(f64::NAN, |b| b.3),
                gap,
                b.map_or(0, |b| b.1),
                b.map_or(f64::NAN, |b| b.2),
                hgap,
                ms,
                sol.progress.iterations,
                match &checked {
                    Err(e) => format!("  {}", e),
                    Ok(_) => String::new(),
                }
            );
        }
        let class = class_of(name).to_string();
        let entry = (
            checked.is_ok(),
            gap,
            vehicles,
            b.map_or(0, |b| b.1),
            hgap,
            ms,
        );
        match classes.iter_mut().find(|c| c.0 == class) {
            Some(c) => c.1.push(entry),
            None => classes.push((class, vec![entry])),
        }
    }
    if json {
        return;
    }
    println!();
    println!(
        "{:<6} {:>5} {:>8} {:>9} {:>9} {:>6} {:>6} {:>9} {:>10} {:>9}",
        "class",
        "n",
        "feasible",
        "mean gap%",
        "worst gap%",
        "veh",
        "bksV",
        "at bksV",
        "mean hgap%",
        "median ms"
    );
    let mut all: Vec<(bool, f64, usize, usize, f64, f64)> = Vec::new();
    let order = ["C1", "C2", "R1", "R2", "RC1", "RC2"];
    classes.sort_by_key(|c| order.iter().position(|o| *o == c.0).unwrap_or(99));
    for (class, rows) in &classes {
        summary(class, rows);
        all.extend(rows.iter().cloned());
    }
    summary("all", &all);
    println!();
    println!(
        "operators (tried/improving/applied, all instances): {}",
        operators.operators_line()
    );
}

fn summary(label: &str, rows: &[(bool, f64, usize, usize, f64, f64)]) {
    let n = rows.len();
    let feasible = rows.iter().filter(|r| r.0).count();
    let gaps: Vec<f64> = rows.iter().filter(|r| r.0).map(|r| r.1).collect();
    let mean = gaps.iter().sum::<f64>() / gaps.len().max(1) as f64;
    let worst = gaps.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let veh: usize = rows.iter().map(|r| r.2).sum();
    let bks_veh: usize = rows.iter().map(|r| r.3).sum();
    let at = rows.iter().filter(|r| r.0 && r.2 <= r.3).count();
    let hg: Vec<f64> = rows.iter().filter(|r| r.0).map(|r| r.4).collect();
    let hmean = hg.iter().sum::<f64>() / hg.len().max(1) as f64;
    let mut ms: Vec<f64> = rows.iter().map(|r| r.5).collect();
    ms.sort_by(|a, b| a.partial_cmp(b).unwrap());
    println!(
        "{:<6} {:>5} {:>8} {:>9.2} {:>9.2} {:>6} {:>6} {:>9} {:>10.2} {:>9.0}",
        label,
        n,
        feasible,
        mean,
        worst,
        veh,
        bks_veh,
        at,
        hmean,
        ms[ms.len() / 2]
    );
}

/// Synthetic day: stops uniform in a 30 km square around the depot at 30 km/h
/// (integer seconds, Euclidean), service 2–5 min, demands [1–30 kg, 1–3
/// parcels], vans of [1200 kg, 120 parcels], shift 07:00–17:00 (seconds from
/// midnight), the service's objective.
fn random_day(spec: &str, params: &FleetParams) {
    use route_solver::fleet::{FleetInput, JobInput, Objective, VehicleInput};
    use route_solver::rng::Rng;
    let parts: Vec<u64> = spec
        .split(':')
        .map(|x| x.parse().unwrap_or_else(|_| usage()))
        .collect();
    if parts.len() < 2 {
        usage();
    }
    let (n, nv, seed) = (
        parts[0] as usize,
        parts[1] as usize,
        parts.get(2).copied().unwrap_or(1),
    );
    let mut rng = Rng::new(seed);
    let m = n + 1;
    let pts: Vec<(i64, i64)> = (0..m)
        .map(|i| {
            if i == 0 {
                (15_000, 15_000)
            } else {
                (rng.range(0, 30_000) as i64, rng.range(0, 30_000) as i64)
            }
        })
        .collect();
    // i32 cells shared with the problem, as the WebAssembly entry passes the host's matrix (no i64 copy)
    let mut travel = vec![0i32; m * m];
    for a in 0..m {
        for b in 0..m {
            let (dx, dy) = ((pts[a].0 - pts[b].0) as f64, (pts[a].1 - pts[b].1) as f64);
            travel[a * m + b] = ((dx * dx + dy * dy).sqrt() / (30_000.0 / 3600.0)).round() as i32;
        }
    }

    let jobs: Vec<JobInput> = (1..m)
        .map(|l| {
            let windowed = rng.range(0, 9) < 3;
            let ready = if windowed {
                8 * 3600 + rng.range(0, 6 * 3600) as i64
            } else {
                0
            };
            JobInput {
                location: l,
                service: rng.range(120, 300) as i64,
                ready,
                due: if windowed {
                    Some(ready + 2 * 3600)
                } else {
                    None
                },
                deadline: if !windowed && rng.range(0, 6) < 2 {
                    Some(9 * 3600 + rng.range(0, 6 * 3600) as i64)
                } else {
                    None
                },
                demand: vec![rng.range(1, 30) as i64, rng.range(1, 3) as i64],
                allowed: None,
                windows: None,
                priority: 0,
                pickup: Vec::new(),
            }
        })
        .collect();
    let inp = FleetInput {
        locations: m,
        travel: Vec::new(),
        distance: None,
        vehicles: vec![
            VehicleInput {
                start: 0,
                end: Some(0),
                shift_start: 7 * 3600,
                shift_end: Some(17 * 3600),
                capacity: vec![1200, 120],
                max_stops: None,
                max_duration: None,
                max_driving: None,
                max_distance: None,
                breaks: Vec::new(),
                ..VehicleInput::default()
            };
            nv
        ],
        jobs,
        objective: Objective::SERVICE,
        limit_distance: None,
        shipments: Vec::new(),
    };
    drop(pts);
    if std::env::var_os("FLEET_PHASES").is_some() {
        phases(&inp, &travel, params);
    }
    let started = Instant::now();
    let clock = NativeClock::new(); // the budget includes building the problem, as in solve_fleet
    let problem = over_cells(&inp, travel);
    let sol = fleet::solve_since(&problem, params, &clock, 0.0);
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    let used = sol.routes.iter().filter(|r| !r.is_empty()).count();
    let hwm = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM"))
                .map(|l| l.trim().to_string())
        })
        .unwrap_or_default();
    println!(
        "random {}:{}:{}  ms {:.0}  iterations {}  best at {}  unassigned {}  lateness {} s  vehicles {}  duration {} s  {}",
        n,
        nv,
        seed,
        ms,
        sol.progress.iterations,
        sol.progress.best_iteration,
        sol.cost.unassigned,
        sol.cost.lateness,
        used,
        total_duration(&problem, &sol.routes),
        hwm
    );
    println!(
        "operators (tried/improving/applied): {}",
        sol.progress.operators_line()
    );
}

/// The problem of `inp` over these travel cells.
fn over_cells(inp: &route_solver::fleet::FleetInput, cells: Vec<i32>) -> FleetProblem {
    use route_solver::fleet::matrix::{Cells, Matrices};
    let mats = Matrices {
        travel: Cells::owned(inp.locations, cells),
        distance: None,
        limit_distance: None,
    };
    FleetProblem::with_matrices(inp, mats).expect("valid instance")
}

/// With FLEET_PHASES set: the time of each step before the search (the
/// problem, the greedy pass, the regret construction, the first descent).
fn phases(inp: &route_solver::fleet::FleetInput, travel: &[i32], params: &FleetParams) {
    use route_solver::fleet::deadline::Deadline;
    use route_solver::fleet::insertion::{greedy_insert, regret_insert, vehicle_classes};
    use route_solver::fleet::local_search::LocalSearch;
    use route_solver::fleet::solution::Solution;
    let t = Instant::now();
    let lap = |what: &str, t: &mut Instant| {
        eprintln!(
            "phase {:<12} {:>9.1} ms",
            what,
            t.elapsed().as_secs_f64() * 1000.0
        );
        *t = Instant::now();
    };
    let mut t = t;
    let p = over_cells(inp, travel.to_vec());
    lap("problem", &mut t);
    let classes = vehicle_classes(&p);
    let mut sol = Solution::empty(&p);
    let all: Vec<u32> = (0..p.n() as u32).collect();
    let mut rng = route_solver::rng::Rng::new(params.seed);
    greedy_insert(
        &p,
        &mut sol,
        &classes,
        &all,
        &mut rng,
        0,
        true,
        route_solver::fleet::insertion::ALL_ROUTES,
        &Deadline::none(),
    );
    eprintln!("phase greedy cost {:?}", sol.cost(&p));
    lap("greedy", &mut t);
    let mut sol = Solution::empty(&p);
    regret_insert(&p, &mut sol, &classes, &Deadline::none());
    eprintln!("phase regret cost {:?}", sol.cost(&p));
    lap("regret", &mut t);
    let mut near = Solution::empty(&p);
    route_solver::fleet::regret_near::regret_insert_near(
        &p,
        &mut near,
        &classes,
        &Deadline::none(),
    );
    eprintln!("phase near cost {:?}", near.cost(&p));
    lap("near", &mut t);
    LocalSearch::new(&p, params.settings.granular).run(&p, &mut near, None, &Deadline::none());
    eprintln!("phase near+descent cost {:?}", near.cost(&p));
    lap("near descent", &mut t);
    LocalSearch::new(&p, params.settings.granular).run(&p, &mut sol, None, &Deadline::none());
    eprintln!("phase descent cost {:?}", sol.cost(&p));
    lap("descent", &mut t);
}

/// Sum of the route durations (shift start to return, waiting included) of a plan.
fn total_duration(problem: &FleetProblem, routes: &[Vec<u32>]) -> i64 {
    let mut plan = fleet::solution::Solution::empty(problem);
    for (v, jobs) in routes.iter().enumerate() {
        plan.set_route(problem, v, jobs.clone());
    }
    plan.routes
        .iter()
        .filter(|r| !r.is_empty())
        .map(|r| r.eval.duration)
        .sum()
}
