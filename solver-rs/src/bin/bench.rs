//! Native TSPLIB bench (closed tour from node 0; the end is a copy of node 0).
//!
//!   bench --solomon DIR ...  the fleet (VRPTW) bench: see src/bin/solomon.rs
//!   bench DIR [ITERATIONS] [--time-limit-ms N] [--seed S] [--seeds K] [--stall N]
//!         [--json] [--only NAME,...] [search options]
//!
//! `--stall N`: stop after N kicks without a new best route; default none (the
//! budget decides, as in bench:solver); 0 = the solver's convergence stop.
//! ITERATIONS > 0 without a time limit is deterministic (the WASM build gives
//! the same routes: `bench:solver -- --max-iterations N`). `--seeds K` runs
//! seeds S..S+K-1 and prints the mean/min/max of the per-seed mean gap.
//! Per instance: length, gap, ms, kicks, the kick and the time at which the
//! final route was first reached; then per-operator counters (tried,
//! improving, applied) summed over the instances.
//!
//! Search options (defaults: the solver's):
//!   --no-lk                  deadline-aware operator set only
//!   --lk-depth D             deepest Lin–Kernighan level
//!   --lk-breadth B1,B2,..    alternatives per level (descents after kicks)
//!   --lk-initial-breadth B1,B2,..  the same for the first descent
//!   --lk-first               Lin–Kernighan before 2-opt, Or-opt, swap (default after)
//!   --no-segment-swap        without the segment-swap operator
//!   --no-double-bridge-search  without the improving double bridges after each descent
//!   --kick NAME              double-bridge (default without deadlines) | random-double-bridge | walk-double-bridge | segment-swap
//!   --kick-run N             longest run of the segment kicks
//!   --no-wrap                double bridge runs never straddle the depot (default: a quarter may on round trips)
//!   --walk-steps N           random-walk length of the walk kick
//!   --accept equal | threshold:PPM:RESTART[:AFTER]
//!   --neighbours K           candidate neighbours per stop
//!   --nearest                nearest-neighbour candidates (default: alpha-nearness)
//!
//! `--anytime T1,T2,..`: also the gaps each run had reached at those times (from
//! its improvement events; run with a time limit >= the last checkpoint and a
//! large --stall), summarised over instances and seeds.
//!
//! `--cpu-clock`: time limits and times count this thread's CPU time (Linux,
//! clock_gettime(CLOCK_THREAD_CPUTIME_ID)) instead of wall time, so that figures
//! taken on a busy machine are comparable.
#![deny(unsafe_code)]

use route_solver::search::operators::OPERATORS;
use route_solver::search::{Acceptance, CandidateRule, Kick, LinKernighanSettings};
use route_solver::tsplib;
use route_solver::{Clock, Input, NativeClock, Options, Params};
use std::time::Instant;

/// This thread's CPU time in ms: clock_gettime(CLOCK_THREAD_CPUTIME_ID), which
/// the kernel brings up to date at each read (nanoseconds). (The scheduler's
/// counters in /proc/thread-self/schedstat, read before, only advance at
/// context switches and timer ticks: 4 ms steps on these machines.)
struct CpuClock;

impl CpuClock {
    fn open() -> CpuClock {
        if thread_cpu_time_ns().is_none() {
            eprintln!("--cpu-clock needs clock_gettime(CLOCK_THREAD_CPUTIME_ID) (Linux)");
            std::process::exit(2)
        }
        CpuClock
    }
}

impl Clock for CpuClock {
    fn now_ms(&self) -> f64 {
        thread_cpu_time_ns().unwrap_or(0) as f64 / 1e6
    }
}

#[repr(C)]
struct Timespec {
    seconds: i64,
    nanoseconds: i64,
}

extern "C" {
    fn clock_gettime(clock: i32, time: *mut Timespec) -> i32;
}

/// CLOCK_THREAD_CPUTIME_ID on Linux.
const CLOCK_THREAD_CPUTIME_ID: i32 = 3;

/// The one unsafe call of this binary: libc's clock_gettime writes the
/// struct it is given and nothing else.
#[allow(unsafe_code)]
fn thread_cpu_time_ns() -> Option<u64> {
    let mut time = Timespec {
        seconds: 0,
        nanoseconds: 0,
    };
    let status = unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut time) };
    if status == 0 {
        Some(time.seconds as u64 * 1_000_000_000 + time.nanoseconds as u64)
    } else {
        None
    }
}

struct Args {
    dir: String,
    iterations: u64,
    time_limit_ms: f64,
    seed: u64,
    seeds: u64,
    stall: u64,
    json: bool,
    cpu_clock: bool,
    anytime: Vec<f64>,
    only: Vec<String>,
    options: Options,
}

fn usage() -> ! {
    eprintln!("usage: bench DIR [ITERATIONS] [--time-limit-ms N] [--seed S] [--seeds K] [--stall N] [--json] [--only A,B] [search options]; see the source header");
    std::process::exit(2)
}

fn parse_args() -> Args {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let mut a = Args {
        dir: String::new(),
        iterations: 0,
        time_limit_ms: 0.0,
        seed: 1,
        seeds: 1,
        stall: u32::MAX as u64,
        json: false,
        cpu_clock: false,
        anytime: Vec::new(),
        only: Vec::new(),
        options: Options::default(),
    };
    let mut i = 0;
    let value = |i: &mut usize| -> String {
        *i += 1;
        argv.get(*i).cloned().unwrap_or_else(|| usage())
    };
    fn number<T: std::str::FromStr>(s: &str) -> T {
        s.parse().unwrap_or_else(|_| usage())
    }
    while i < argv.len() {
        match argv[i].as_str() {
            "--time-limit-ms" => a.time_limit_ms = number(&value(&mut i)),
            "--seed" => a.seed = number(&value(&mut i)),
            "--seeds" => a.seeds = number(&value(&mut i)),
            "--stall" => a.stall = number(&value(&mut i)),
            "--json" => a.json = true,
            "--cpu-clock" => a.cpu_clock = true,
            "--anytime" => a.anytime = value(&mut i).split(',').map(number).collect(),
            "--only" => a.only = value(&mut i).split(',').map(String::from).collect(),
            "--no-lk" => a.options.lin_kernighan = None,
            "--lk-depth" => {
                let d = number(&value(&mut i));
                a.options
                    .lin_kernighan
                    .get_or_insert_with(LinKernighanSettings::default)
                    .max_depth = d;
            }
            "--lk-breadth" => {
                let b: Vec<usize> = value(&mut i).split(',').map(number).collect();
                a.options
                    .lin_kernighan
                    .get_or_insert_with(LinKernighanSettings::default)
                    .breadth = b;
            }
            "--lk-initial-breadth" => {
                let b: Vec<usize> = value(&mut i).split(',').map(number).collect();
                a.options
                    .lin_kernighan
                    .get_or_insert_with(LinKernighanSettings::default)
                    .initial_breadth = b;
            }
            "--lk-first" => a.options.classic_before_lin_kernighan = false,
            "--no-segment-swap" => a.options.segment_swap = false,
            "--no-double-bridge-search" => a.options.double_bridge_search = false,
            "--kick" => {
                let k = Kick::parse(&value(&mut i)).unwrap_or_else(|| usage());
                a.options.kick.kind = k;
                a.options.deadline_kick.kind = k;
            }
            "--no-wrap" => {
                a.options.kick.wrap_round_trips = false;
                a.options.deadline_kick.wrap_round_trips = false;
            }
            "--kick-run" => {
                let r = number(&value(&mut i));
                a.options.kick.max_run = r;
                a.options.deadline_kick.max_run = r;
            }
            "--walk-steps" => {
                let s = number(&value(&mut i));
                a.options.kick.walk_steps = s;
                a.options.deadline_kick.walk_steps = s;
            }
            "--accept" => {
                let v = value(&mut i);
                a.options.acceptance = if v == "equal" {
                    Acceptance::BetterOrEqual
                } else if let Some(rest) = v.strip_prefix("threshold:") {
                    let parts: Vec<&str> = rest.split(':').collect();
                    if parts.len() < 2 || parts.len() > 3 {
                        usage();
                    }
                    Acceptance::Threshold {
                        parts_per_million: number(parts[0]),
                        restart_after: number(parts[1]),
                        after_stall: parts.get(2).map(|x| number(x)).unwrap_or(0),
                    }
                } else {
                    usage()
                };
            }
            "--neighbours" => a.options.neighbours = number(&value(&mut i)),
            "--nearest" => a.options.candidates = CandidateRule::Nearest,
            s if s.starts_with("--") => usage(),
            s if a.dir.is_empty() => a.dir = s.to_string(),
            s => a.iterations = number(s),
        }
        i += 1;
    }
    if a.dir.is_empty() || a.seeds == 0 {
        usage();
    }
    a
}

struct Run {
    name: String,
    n: usize,
    gap: Option<f64>,
    /// Gap at each `--anytime` checkpoint (from the improvement events).
    anytime: Vec<f64>,
}

/// `bench --solomon DIR …` is the fleet bench (src/bin/solomon.rs).
#[path = "solomon.rs"]
mod solomon;

fn main() {
    if std::env::args().any(|a| a == "--solomon") {
        return solomon::main();
    }
    let args = parse_args();
    let optima = std::fs::read_to_string(format!("{}/optima.json", args.dir)).unwrap_or_default();
    let mut names: Vec<String> = std::fs::read_dir(&args.dir)
        .unwrap_or_else(|e| {
            eprintln!("cannot read {}: {}", args.dir, e);
            std::process::exit(2)
        })
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| n.ends_with(".tsp"))
        .filter(|n| args.only.is_empty() || args.only.iter().any(|o| format!("{}.tsp", o) == *n))
        .collect();
    names.sort();
    let instances: Vec<(String, tsplib::Instance)> = names
        .iter()
        .map(|name| {
            let text = std::fs::read_to_string(format!("{}/{}", args.dir, name)).expect("read");
            (
                name.trim_end_matches(".tsp").to_string(),
                tsplib::parse(&text).expect("parse"),
            )
        })
        .collect();
    let mut seed_means = Vec::new();
    let mut totals = vec![[0u64; 3]; OPERATORS.len()];
    let mut all_runs: Vec<Vec<Run>> = Vec::new();
    for seed in args.seed..args.seed + args.seeds {
        if !args.json {
            println!(
                "seed {}{}{}",
                seed,
                if args.iterations > 0 {
                    format!(", {} kicks", args.iterations)
                } else {
                    String::new()
                },
                if args.time_limit_ms > 0.0 {
                    format!(", {} ms", args.time_limit_ms)
                } else {
                    String::new()
                }
            );
            println!(
                "{:<10} {:>4} {:>8} {:>8} {:>7} {:>8} {:>7} {:>7} {:>8}",
                "instance", "n", "optimum", "length", "gap%", "ms", "kicks", "final@", "final ms"
            );
        }
        let mut runs = Vec::new();
        let mut total_ms = 0.0;
        for (stem, inst) in &instances {
            let (m, mat) = tsplib::closed_tour_matrix(inst);
            let n = m - 2;
            let service = vec![0i32; n];
            let deadline = vec![-1i32; n];
            let input = Input {
                size: m,
                durations: &mat,
                service: &service,
                deadline: &deadline,
                has_end: true,
            };
            let params = Params {
                seed,
                time_limit_ms: args.time_limit_ms,
                max_iterations: args.iterations,
                stall_iterations: args.stall,
                options: args.options.clone(),
            };
            let cpu = if args.cpu_clock {
                Some(CpuClock::open())
            } else {
                None
            };
            let wall = NativeClock::new();
            let clock: &dyn Clock = match &cpu {
                Some(c) => c,
                None => &wall,
            };
            let t0 = Instant::now();
            let cpu0 = clock.now_ms();
            let sol = route_solver::solve(&input, &params, clock).expect("solve");
            let ms = if args.cpu_clock {
                clock.now_ms() - cpu0
            } else {
                t0.elapsed().as_secs_f64() * 1000.0
            };
            total_ms += ms;
            let mut tour = vec![0usize];
            tour.extend(sol.order.iter().map(|&s| s as usize + 1));
            let length = tsplib::tour_length(inst, &tour);
            assert_eq!(
                length, sol.cost.duration,
                "{}: reported cost differs from the tour length",
                stem
            );
            let optimum = find_optimum(&optima, stem);
            let gap = optimum.map(|o| 100.0 * (length - o) as f64 / o as f64);
            for (k, op) in OPERATORS.iter().enumerate() {
                let c = sol.progress.get(*op);
                totals[k][0] += c.tried;
                totals[k][1] += c.improving;
                totals[k][2] += c.applied;
            }
            if args.json {
                let ops: Vec<String> = OPERATORS
                    .iter()
                    .map(|op| {
                        let c = sol.progress.get(*op);
                        format!(
                            "\"{}\":[{},{},{}]",
                            op.name(),
                            c.tried,
                            c.improving,
                            c.applied
                        )
                    })
                    .collect();
                let order: Vec<String> = tour.iter().map(|x| x.to_string()).collect();
                let events: Vec<String> = sol
                    .improvements
                    .iter()
                    .map(|e| format!("[{:.2},{},{}]", e.ms, e.iteration, e.cost.duration))
                    .collect();
                println!(
                    "{{\"instance\":\"{}\",\"n\":{},\"order\":[{}],\"ms\":{:.2},\"length\":{},\"gap\":{},\"seed\":{},\"iterations\":{},\"finalIteration\":{},\"msToFinal\":{:.2},\"operators\":{{{}}},\"improvements\":[{}]}}",
                    stem,
                    inst.coords.len(),
                    order.join(","),
                    ms,
                    length,
                    gap.map(|g| format!("{:.6}", g)).unwrap_or_else(|| "null".into()),
                    seed,
                    sol.progress.iterations,
                    sol.progress.best_iteration,
                    sol.progress.best_ms.unwrap_or(0.0),
                    ops.join(","),
                    events.join(",")
                );
            } else {
                println!(
                    "{:<10} {:>4} {:>8} {:>8} {:>7} {:>8.1} {:>7} {:>7} {:>8.1}",
                    stem,
                    inst.coords.len(),
                    optimum.map(|o| o.to_string()).unwrap_or_else(|| "-".into()),
                    length,
                    gap.map(|g| format!("{:.3}", g))
                        .unwrap_or_else(|| "-".into()),
                    ms,
                    sol.progress.iterations,
                    sol.progress.best_iteration,
                    sol.progress.best_ms.unwrap_or(0.0)
                );
            }
            let anytime = match optimum {
                Some(o) => args
                    .anytime
                    .iter()
                    .map(|&t| {
                        let best = sol
                            .improvements
                            .iter()
                            .filter(|e| e.ms <= t)
                            .map(|e| e.cost.duration)
                            .min()
                            .unwrap_or(i64::MAX);
                        if best == i64::MAX {
                            f64::INFINITY
                        } else {
                            100.0 * (best - o) as f64 / o as f64
                        }
                    })
                    .collect(),
                None => Vec::new(),
            };
            runs.push(Run {
                name: stem.clone(),
                n: inst.coords.len(),
                gap,
                anytime,
            });
        }
        let gaps: Vec<f64> = runs.iter().filter_map(|r| r.gap).collect();
        let mean = gaps.iter().sum::<f64>() / gaps.len().max(1) as f64;
        let max = gaps.iter().cloned().fold(0.0, f64::max);
        let optimal = gaps.iter().filter(|&&g| g == 0.0).count();
        if !args.json {
            println!(
                "seed {}: mean gap {:.4}%  max gap {:.3}%  optimal {}/{}  total ms {:.1}",
                seed,
                mean,
                max,
                optimal,
                gaps.len(),
                total_ms
            );
        }
        seed_means.push((mean, max, optimal));
        all_runs.push(runs);
    }
    if args.json {
        return;
    }
    println!("operator        tried   improving     applied   (summed over instances and seeds)");
    for (k, op) in OPERATORS.iter().enumerate() {
        println!(
            "{:<13} {:>9} {:>11} {:>11}",
            op.name(),
            totals[k][0],
            totals[k][1],
            totals[k][2]
        );
    }
    for (k, t) in args.anytime.iter().enumerate() {
        let per_seed: Vec<(f64, f64, usize)> = all_runs
            .iter()
            .map(|runs| {
                let gaps: Vec<f64> = runs
                    .iter()
                    .filter_map(|r| r.anytime.get(k).cloned())
                    .collect();
                let mean = gaps.iter().sum::<f64>() / gaps.len().max(1) as f64;
                let max = gaps.iter().cloned().fold(0.0, f64::max);
                (mean, max, gaps.iter().filter(|&&g| g == 0.0).count())
            })
            .collect();
        let count = per_seed.len() as f64;
        println!(
            "at {:>6.1} ms: mean gap {:.4}% (seeds {:.4}..{:.4})  max gap mean {:.3}% max {:.3}%  optimal mean {:.1} min {}",
            t,
            per_seed.iter().map(|s| s.0).sum::<f64>() / count,
            per_seed.iter().map(|s| s.0).fold(f64::INFINITY, f64::min),
            per_seed.iter().map(|s| s.0).fold(0.0, f64::max),
            per_seed.iter().map(|s| s.1).sum::<f64>() / count,
            per_seed.iter().map(|s| s.1).fold(0.0, f64::max),
            per_seed.iter().map(|s| s.2 as f64).sum::<f64>() / count,
            per_seed.iter().map(|s| s.2).min().unwrap_or(0)
        );
    }
    if args.seeds > 1 {
        let means: Vec<f64> = seed_means.iter().map(|s| s.0).collect();
        let mean = means.iter().sum::<f64>() / means.len() as f64;
        let min = means.iter().cloned().fold(f64::INFINITY, f64::min);
        let max = means.iter().cloned().fold(0.0, f64::max);
        let max_of_max = seed_means.iter().map(|s| s.1).fold(0.0, f64::max);
        let optimal: Vec<String> = seed_means.iter().map(|s| s.2.to_string()).collect();
        println!(
            "{} seeds: mean gap mean {:.4}%  min {:.4}%  max {:.4}%; max gap {:.3}%; optimal per seed {}",
            args.seeds,
            mean,
            min,
            max,
            max_of_max,
            optimal.join("/")
        );
        // instances that missed the optimum on some seed
        let mut worst: Vec<(String, usize, f64, usize)> = Vec::new();
        for (i, r) in all_runs[0].iter().enumerate() {
            let gaps: Vec<f64> = all_runs.iter().filter_map(|runs| runs[i].gap).collect();
            let misses = gaps.iter().filter(|&&g| g > 0.0).count();
            if misses > 0 {
                let m = gaps.iter().cloned().fold(0.0, f64::max);
                worst.push((r.name.clone(), r.n, m, misses));
            }
        }
        for (name, n, m, misses) in worst {
            println!(
                "  {:<10} n={:<4} missed on {} seed(s), worst gap {:.3}%",
                name, n, misses, m
            );
        }
    }
}

/// Tiny lookup in optima.json: `"name": { "optimum": N`.
fn find_optimum(json: &str, name: &str) -> Option<i64> {
    let key = format!("\"{}\"", name);
    let at = json.find(&key)?;
    let rest = &json[at..];
    let o = rest.find("\"optimum\"")?;
    let rest = &rest[o + 9..];
    let rest = rest.trim_start_matches(|c: char| c == ':' || c.is_whitespace());
    let end = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    rest[..end].parse().ok()
}
