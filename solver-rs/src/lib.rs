//! Single-vehicle route solver: visit every stop once from a start point,
//! optionally finishing at an end point, minimising total lateness and then
//! total duration (lexicographically). Integer seconds throughout. The
//! multi-route (fleet) solver lives in `fleet` and shares the PRNG, the
//! clock, the time limit (`deadline`) and the descent loop (`descent`)
//! with it; a fleet plan of one vehicle without fleet-only rules is
//! solved here (`fleet::single`). Both engines report what they did in one
//! type (`progress::Progress`).
//!
//! `ffi` is the only module allowed to use `unsafe` (WebAssembly exports over
//! linear memory); everything else is safe Rust.
#![deny(unsafe_code)]
// Index loops over positions are the natural form of this code.
#![allow(clippy::needless_range_loop)]

pub mod abi;
pub mod deadline;
pub mod descent;
pub mod dont_look;
pub mod exact;
#[allow(unsafe_code)]
pub mod ffi;
pub mod fleet;
pub mod nearest;
pub mod problem;
pub mod progress;
pub mod rng;
pub mod schedule;
pub mod search;
pub mod tsplib;

pub use deadline::{Clock, Deadline};
pub use problem::{Cost, Input, InputError, Problem};
pub use progress::{Operator, Progress};
pub use search::{Improvement, Options, Params};

/// Result of a solve in the external numbering.
#[derive(Clone, Debug, PartialEq)]
pub struct Solution {
    /// 0-based stop indices in visiting order.
    pub order: Vec<u32>,
    pub cost: Cost,
    /// What the search did: kicks as iterations, operator counters (all 0 for
    /// the exact solver).
    pub progress: Progress,
    /// Every new best route, in order (the ABI's improvement events; none for
    /// the exact solver).
    pub improvements: Vec<Improvement>,
}

/// Validate and solve, within `params.time_limit_ms` (less the reserve,
/// `deadline`) counted from this call.
pub fn solve(inp: &Input, params: &Params, clock: &dyn Clock) -> Result<Solution, InputError> {
    let started_ms = clock.now_ms();
    if !params.time_limit_ms.is_finite() || params.time_limit_ms < 0.0 {
        return Err(InputError::BadTimeLimit);
    }
    let p = Problem::new(inp)?;
    let limit = Deadline::new(clock, started_ms, params.time_limit_ms);
    let (order, cost, progress, improvements) = solve_problem(&p, params, &limit, &mut |_, _| {});
    Ok(Solution {
        order: order.iter().map(|&s| (s - 1) as u32).collect(),
        cost,
        progress,
        improvements,
    })
}

/// Solve a validated problem: exactly at <= EXACT_MAX_STOPS stops (`on_best`
/// is then not called), else by the search (`search::solve_reporting`) until
/// `limit` (`params.time_limit_ms` is not read). Returns the order (internal
/// stop ids), its cost, what the search did and its new best routes.
pub fn solve_problem(
    p: &Problem,
    params: &Params,
    limit: &Deadline,
    on_best: &mut dyn FnMut(&[usize], Cost),
) -> (Vec<usize>, Cost, Progress, Vec<Improvement>) {
    if p.n <= exact::EXACT_MAX_STOPS {
        let (o, c) = exact::solve_exact(p);
        (o, c, Progress::default(), Vec::new())
    } else {
        search::solve_reporting(p, params, limit, on_best)
    }
}

/// Wall clock for native builds.
#[cfg(not(target_arch = "wasm32"))]
pub struct NativeClock(std::time::Instant);

#[cfg(not(target_arch = "wasm32"))]
impl NativeClock {
    pub fn new() -> NativeClock {
        NativeClock(std::time::Instant::now())
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl Default for NativeClock {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl Clock for NativeClock {
    fn now_ms(&self) -> f64 {
        self.0.elapsed().as_secs_f64() * 1000.0
    }
}
