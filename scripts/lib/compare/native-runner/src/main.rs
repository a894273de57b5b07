//! `route-bench-native FILE`: solve one problem natively and print one JSON line
//! `{"status":0,"order":[...],"latenessS":..,"durationS":..,"iterations":..,"ms":..}`.
//!
//! FILE (whitespace-separated integers, except the budget):
//!   size has_end seed budget_ms
//!   size*size travel durations (row-major)
//!   n service times
//!   n deadlines (-1 = none)
//! with n = size - 1 - has_end. The search runs with the crate's defaults
//! (no iteration cap, default stall) and stops at the budget, like the WASM build.
//! Optional output fields read by solve-task.ts, for when the crate reports them:
//! "events": [[ms, lateness, duration], ...] (each new best route) and "timeToFinalMs".
#![deny(unsafe_code)]

use route_solver::{Input, NativeClock, Params};
use std::time::Instant;

fn main() {
    let path = std::env::args().nth(1).unwrap_or_else(|| fail("usage: route-bench-native FILE"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| fail(&format!("cannot read {}: {}", path, e)));
    let tokens: Vec<&str> = text.split_whitespace().collect();
    if tokens.len() < 4 {
        fail("truncated header");
    }
    let int = |t: &str| -> i64 { t.parse::<i64>().unwrap_or_else(|_| fail(&format!("bad integer {:?}", t))) };
    let size = int(tokens[0]) as usize;
    let has_end = int(tokens[1]) != 0;
    let seed = int(tokens[2]) as u64;
    let budget_ms: f64 = tokens[3].parse().unwrap_or_else(|_| fail("bad budget"));
    let n = size.saturating_sub(1 + has_end as usize);
    let need = 4 + size * size + 2 * n;
    if tokens.len() != need {
        fail(&format!("expected {} numbers, got {}", need, tokens.len()));
    }
    let nums: Vec<i32> = tokens[4..].iter().map(|t| int(t) as i32).collect();
    let durations = &nums[..size * size];
    let service = &nums[size * size..size * size + n];
    let deadline = &nums[size * size + n..];
    let input = Input { size, durations, service, deadline, has_end };
    let params = Params { seed, time_limit_ms: budget_ms, ..Default::default() };
    let started = Instant::now();
    let result = route_solver::solve(&input, &params, &NativeClock::new());
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    match result {
        Ok(sol) => {
            let order: Vec<String> = sol.order.iter().map(|x| x.to_string()).collect();
            println!(
                "{{\"status\":0,\"order\":[{}],\"latenessS\":{},\"durationS\":{},\"iterations\":{},\"ms\":{:.3}}}",
                order.join(","),
                sol.cost.lateness,
                sol.cost.duration,
                sol.progress.iterations,
                ms
            );
        }
        Err(e) => println!("{{\"status\":{}}}", e as i32),
    }
}

fn fail(msg: &str) -> ! {
    eprintln!("route-bench-native: {}", msg);
    std::process::exit(2)
}
