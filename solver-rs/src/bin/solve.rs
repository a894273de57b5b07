//! Native CLI: solve problem files and print one JSON line per file:
//! `{"status":0,"order":[...],"latenessS":..,"durationS":..,"iterations":..,
//!   "finalIteration":..,"improvements":[[kick,lateness,duration],...],
//!   "operators":{"two_opt":[tried,improving,applied],...}}`
//! (everything the search decided; the observed times are left out).
//!
//! File format (whitespace-separated integers):
//!   size has_end seed max_iterations stall_iterations
//!   size*size travel durations (row-major)
//!   n service times
//!   n deadlines (-1 = none)
//! where n = size - 1 - has_end. No time limit is used, so the result is
//! deterministic and must equal the WASM build's for the same input.
#![deny(unsafe_code)]

use route_solver::search::operators::OPERATORS;
use route_solver::{Input, NativeClock, Params};

fn main() {
    let paths: Vec<String> = std::env::args().skip(1).collect();
    if paths.is_empty() {
        eprintln!("usage: solve FILE...");
        std::process::exit(2);
    }
    for path in paths {
        solve_file(&path);
    }
}

fn solve_file(path: &str) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| {
        eprintln!("cannot read {}: {}", path, e);
        std::process::exit(2)
    });
    let nums: Vec<i64> = text
        .split_whitespace()
        .map(|t| {
            t.parse::<i64>().unwrap_or_else(|_| {
                eprintln!("bad number {:?}", t);
                std::process::exit(2)
            })
        })
        .collect();
    if nums.len() < 5 {
        eprintln!("truncated header");
        std::process::exit(2);
    }
    let size = nums[0] as usize;
    let has_end = nums[1] != 0;
    let n = size.saturating_sub(1 + has_end as usize);
    let need = 5 + size * size + 2 * n;
    if nums.len() != need {
        eprintln!("expected {} numbers, got {}", need, nums.len());
        std::process::exit(2);
    }
    let to32 = |s: &[i64]| s.iter().map(|&x| x as i32).collect::<Vec<i32>>();
    let dur = to32(&nums[5..5 + size * size]);
    let svc = to32(&nums[5 + size * size..5 + size * size + n]);
    let dl = to32(&nums[5 + size * size + n..]);
    let params = Params {
        seed: nums[2] as u64,
        time_limit_ms: 0.0,
        max_iterations: nums[3] as u64,
        stall_iterations: nums[4] as u64,
        options: Default::default(),
    };
    let inp = Input {
        size,
        durations: &dur,
        service: &svc,
        deadline: &dl,
        has_end,
    };
    match route_solver::solve(&inp, &params, &NativeClock::new()) {
        Ok(sol) => {
            let order: Vec<String> = sol.order.iter().map(|x| x.to_string()).collect();
            let improvements: Vec<String> = sol
                .improvements
                .iter()
                .map(|e| format!("[{},{},{}]", e.iteration, e.cost.lateness, e.cost.duration))
                .collect();
            let operators: Vec<String> = OPERATORS
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
            println!(
                "{{\"status\":0,\"order\":[{}],\"latenessS\":{},\"durationS\":{},\"iterations\":{},\"finalIteration\":{},\"improvements\":[{}],\"operators\":{{{}}}}}",
                order.join(","),
                sol.cost.lateness,
                sol.cost.duration,
                sol.progress.iterations,
                sol.progress.best_iteration,
                improvements.join(","),
                operators.join(",")
            );
        }
        Err(e) => println!("{{\"status\":{}}}", e as i32),
    }
}
