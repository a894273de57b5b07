//! Native TSPLIB bench: `bench DIR [ITERS] [--time-limit-ms N] [--seed S] [--stall N]`.
//! Closed tour from node 0 (end = copy of node 0). With ITERS > 0 and no time
//! limit the run is deterministic (compare with `bench:solver -- --max-iterations`).
#![deny(unsafe_code)]

use route_solver::tsplib;
use route_solver::{Input, NativeClock, Params};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut dir = None;
    let mut iters = 0u64;
    let mut time_limit = 0.0f64;
    let mut seed = 1u64;
    let mut stall = 0u64;
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--time-limit-ms" => {
                time_limit = args[i + 1].parse().expect("time limit");
                i += 1;
            }
            "--seed" => {
                seed = args[i + 1].parse().expect("seed");
                i += 1;
            }
            "--stall" => {
                stall = args[i + 1].parse().expect("stall");
                i += 1;
            }
            a if dir.is_none() => dir = Some(a.to_string()),
            a => iters = a.parse().expect("ITERS"),
        }
        i += 1;
    }
    let dir = dir.unwrap_or_else(|| {
        eprintln!("usage: bench DIR [ITERS] [--time-limit-ms N] [--seed S] [--stall N]");
        std::process::exit(2)
    });
    if stall == 0 {
        stall = u32::MAX as u64;
    }
    let optima = std::fs::read_to_string(format!("{}/optima.json", dir)).unwrap_or_default();
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("read dir")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| n.ends_with(".tsp"))
        .collect();
    names.sort();
    let mut gaps = Vec::new();
    let mut total_ms = 0.0;
    println!(
        "{:<10} {:>4} {:>8} {:>8} {:>7} {:>9} {:>8}",
        "instance", "n", "optimum", "length", "gap%", "ms", "iters"
    );
    for name in names {
        let text = std::fs::read_to_string(format!("{}/{}", dir, name)).expect("read");
        let inst = tsplib::parse(&text).expect("parse");
        let (m, mat) = tsplib::closed_tour_matrix(&inst);
        let n = m - 2;
        let svc = vec![0i32; n];
        let dl = vec![-1i32; n];
        let inp = Input {
            size: m,
            durations: &mat,
            service: &svc,
            deadline: &dl,
            has_end: true,
        };
        let params = Params {
            seed,
            time_limit_ms: time_limit,
            max_iterations: iters,
            stall_iterations: stall,
        };
        let t0 = Instant::now();
        let sol = route_solver::solve(&inp, &params, &NativeClock::new()).expect("solve");
        let ms = t0.elapsed().as_secs_f64() * 1000.0;
        let mut tour = vec![0usize];
        tour.extend(sol.order.iter().map(|&s| s as usize + 1));
        let len = tsplib::tour_length(&inst, &tour);
        assert_eq!(len, sol.cost.duration);
        let stem = name.trim_end_matches(".tsp");
        let opt = find_optimum(&optima, stem);
        let gap = opt.map(|o| 100.0 * (len - o) as f64 / o as f64);
        if let Some(g) = gap {
            gaps.push(g);
        }
        total_ms += ms;
        println!(
            "{:<10} {:>4} {:>8} {:>8} {:>7} {:>9.1} {:>8}",
            stem,
            inst.coords.len(),
            opt.map(|o| o.to_string()).unwrap_or_else(|| "-".into()),
            len,
            gap.map(|g| format!("{:.2}", g))
                .unwrap_or_else(|| "-".into()),
            ms,
            sol.iterations
        );
    }
    let count = gaps.len().max(1) as f64;
    let mean = gaps.iter().sum::<f64>() / count;
    let max = gaps.iter().cloned().fold(0.0, f64::max);
    println!(
        "mean gap {:.3}%  max gap {:.3}%  total ms {:.1}",
        mean, max, total_ms
    );
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
