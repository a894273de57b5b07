//! Native CLI for the fleet solver: solve problem files in the flat form of
//! the WebAssembly ABI (`fleet::flat`, the same decoding and encoding) and
//! print one JSON line per file: `{"status":0,"out":[...]}` (the output array
//! of `solve_fleet`) or `{"status":N}`. No time limit is used, so the result
//! is deterministic and must equal the WASM build's for the same input.
//! `--operators` (before the files): also, on stderr, per file, the iterations,
//! the best one and the operator counters (tried/improving/applied).
//!
//! File format (whitespace-separated numbers):
//!   locations vehicles jobs dims has_distance has_allowed seed max_iterations
//!   stall_iterations
//!   vehicle_cost duration_weight distance_weight
//!   locations² travel times, then locations² distances if has_distance
//!   5 × vehicles vehicle fields, 5 × jobs job fields
//!   vehicles × dims capacities, jobs × dims demands
//!   jobs × ceil(vehicles / 32) allowed-vehicle bitset words if has_allowed
//!   then, to the end of the file, the extra sections (abi::extra), if any
#![deny(unsafe_code)]

use route_solver::fleet::{flat, FleetParams, FleetProblem};
use route_solver::NativeClock;

fn main() {
    let mut paths: Vec<String> = std::env::args().skip(1).collect();
    let operators = paths.first().map_or(false, |a| a == "--operators");
    if operators {
        paths.remove(0);
    }
    if paths.is_empty() {
        eprintln!("usage: fleet [--operators] FILE...");
        std::process::exit(2);
    }
    for path in paths {
        match solve_file(&path, operators) {
            Ok(out) => {
                let cells: Vec<String> = out.iter().map(|x| format!("{}", x)).collect();
                println!("{{\"status\":0,\"out\":[{}]}}", cells.join(","));
            }
            Err(status) => println!("{{\"status\":{}}}", status),
        }
    }
}

fn fail(msg: &str) -> ! {
    eprintln!("fleet: {}", msg);
    std::process::exit(2)
}

fn solve_file(path: &str, operators: bool) -> Result<Vec<f64>, i32> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| fail(&format!("cannot read {}: {}", path, e)));
    let nums: Vec<f64> = text
        .split_whitespace()
        .map(|t| {
            t.parse::<f64>()
                .unwrap_or_else(|_| fail(&format!("bad number {:?}", t)))
        })
        .collect();
    let mut at = 0usize;
    let mut take = |k: usize| -> &[f64] {
        if at + k > nums.len() {
            fail("truncated file");
        }
        at += k;
        &nums[at - k..at]
    };
    let h: Vec<usize> = take(9).iter().map(|&x| x as usize).collect();
    let (m, nv, nj, dims, has_distance, has_allowed) =
        (h[0], h[1], h[2], h[3], h[4] == 1, h[5] == 1);
    let (seed, max_iterations, stall_iterations) = (h[6] as u64, h[7] as u64, h[8] as u64);
    let o = take(3);
    let objective = [o[0], o[1], o[2]];
    let to_i32 = |xs: &[f64]| xs.iter().map(|&x| x as i32).collect::<Vec<i32>>();
    let travel = to_i32(take(m * m));
    let distance = if has_distance {
        Some(to_i32(take(m * m)))
    } else {
        None
    };
    let vehicles = take(flat::VEHICLE_FIELDS * nv).to_vec();
    let jobs = take(flat::JOB_FIELDS * nj).to_vec();
    let capacity = take(nv * dims).to_vec();
    let demand = take(nj * dims).to_vec();
    let allowed: Option<Vec<u32>> = if has_allowed {
        Some(
            take(nj * route_solver::abi::allowed_words(nv))
                .iter()
                .map(|&x| x as u32)
                .collect(),
        )
    } else {
        None
    };
    let extra = nums[at..].to_vec();
    let input = flat::decode(&flat::FlatInput {
        locations: m,
        travel: &travel,
        distance: distance.as_deref(),
        vehicles: &vehicles,
        jobs: &jobs,
        dims,
        capacity: &capacity,
        demand: &demand,
        allowed: allowed.as_deref(),
        objective,
        extra: Some(&extra),
    })?;
    let problem = FleetProblem::new(&input).map_err(flat::status_of)?;
    let params = FleetParams {
        seed,
        time_limit_ms: 0.0,
        max_iterations,
        stall_iterations,
        settings: Default::default(),
    };
    let sol = route_solver::fleet::solve(&problem, &params, &NativeClock::new());
    if operators {
        eprintln!(
            "{}: iterations {} (best at {}), operators {}",
            path,
            sol.progress.iterations,
            sol.progress.best_iteration,
            sol.progress.operators_line()
        );
    }
    let mut out = vec![0.0; flat::out_len(nv, nj, flat::break_count(&input))];
    flat::encode(&problem, &sol, &mut out);
    Ok(out)
}
