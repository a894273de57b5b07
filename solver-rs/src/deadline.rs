//! The time limit of a solve, one type for both engines: the single-route
//! search (`search::ils`, behind `crate::solve` and POST /api/v1/optimize)
//! and the fleet search (`fleet::driver`). It is counted from when the host
//! called (so that decoding the input and building the problem are inside the
//! budget), and has a cheap check for the inner loops (the fleet's descent and
//! insertion) that reads the clock only every `STRIDE` calls.
//!
//! Both engines stop a little before the limit: the **reserve**,
//! min(limit / RESERVE_DIVISOR, RESERVE_MAX_MS) (2.5 ms of optimize's default
//! 250 ms, 50 ms from 5 s on). It leaves room for the answer and for the
//! host's scheduling: on a loaded machine a thread can be off the CPU for tens
//! of milliseconds between two clock reads. (The single-route search stopped
//! exactly at its limit before the two engines shared this type; a fleet plan
//! sent to it already took the reserve.)
//!
//! Without a time limit (an iteration budget) the clock is never read for a
//! decision: `expired` and `tick` are always false, so native and
//! WebAssembly builds stay identical at fixed iterations. `elapsed_ms` still
//! reads it for the reports (the times of new best routes), never for a
//! decision.

use std::cell::Cell;

/// Host clock in milliseconds (monotonic).
pub trait Clock {
    fn now_ms(&self) -> f64;
}

/// Calls of `tick` between two clock reads, in the fleet's inner loops. One
/// call is one pair evaluated by the descent (0.1–1 µs) or one job inserted
/// (1–50 µs, 1000 stops at the top), so an expired limit is seen within about 0.1 ms on Solomon and
/// 10 ms at worst on 1000 stops, while the clock (a host call: 0.2 µs for
/// performance.now(), 2 µs for process.cpuUsage() in the CPU-time benches)
/// costs under 1 % of the search. At 32 the WASM bench made 7 % fewer
/// iterations in CPU time than the build without checks. (The single-route
/// descent calls `expired` itself every 16 stops it takes from its queue: one
/// such step, a Lin–Kernighan search among them, costs far more than a call
/// here.)
pub const STRIDE: u32 = 256;
/// The search stops min(limit / RESERVE_DIVISOR, RESERVE_MAX_MS) before the limit.
pub const RESERVE_DIVISOR: f64 = 100.0;
pub const RESERVE_MAX_MS: f64 = 50.0;

pub struct Deadline<'c> {
    clock: Option<&'c dyn Clock>,
    started_ms: f64,
    /// When the search stops (the limit less the reserve); 0 = no limit.
    limit_ms: f64,
    countdown: Cell<u32>,
    /// Sticky once seen, so that every loop unwinds without reading the clock again.
    passed: Cell<bool>,
}

impl<'c> Deadline<'c> {
    /// A limit of `limit_ms` (0 = none) counted from `started_ms` on `clock`.
    pub fn new(clock: &'c dyn Clock, started_ms: f64, limit_ms: f64) -> Deadline<'c> {
        let reserve = (limit_ms / RESERVE_DIVISOR).min(RESERVE_MAX_MS);
        Deadline {
            clock: Some(clock),
            started_ms,
            limit_ms: if limit_ms > 0.0 {
                (limit_ms - reserve).max(f64::MIN_POSITIVE)
            } else {
                0.0
            },
            countdown: Cell::new(STRIDE),
            passed: Cell::new(false),
        }
    }

    /// No limit (never reads a clock).
    pub fn none() -> Deadline<'static> {
        Deadline {
            clock: None,
            started_ms: 0.0,
            limit_ms: 0.0,
            countdown: Cell::new(STRIDE),
            passed: Cell::new(false),
        }
    }

    pub fn has_time_limit(&self) -> bool {
        self.limit_ms > 0.0
    }

    /// When the search stops (ms after the start; 0 = no limit).
    pub fn stop_ms(&self) -> f64 {
        self.limit_ms
    }

    /// The same clock and start, stopping at `stop_ms` after the start (no
    /// further reserve; 0 = no limit). A part of a budget: the single route of
    /// a fleet plan whose hard limits might bind gets half of the fleet's.
    pub fn until(&self, stop_ms: f64) -> Deadline<'c> {
        Deadline {
            clock: self.clock,
            started_ms: self.started_ms,
            limit_ms: stop_ms.max(0.0),
            countdown: Cell::new(STRIDE),
            passed: Cell::new(false),
        }
    }

    /// The limit is reached (reads the clock; always false without a limit).
    pub fn expired(&self) -> bool {
        if self.passed.get() {
            return true;
        }
        if self.limit_ms > 0.0 && self.elapsed_ms() >= self.limit_ms {
            self.passed.set(true);
        }
        self.passed.get()
    }

    /// `expired`, with the clock read only every STRIDE calls (for inner loops).
    pub fn tick(&self) -> bool {
        if self.limit_ms <= 0.0 {
            return false;
        }
        if self.passed.get() {
            return true;
        }
        let left = self.countdown.get() - 1;
        if left > 0 {
            self.countdown.set(left);
            return false;
        }
        self.countdown.set(STRIDE);
        self.expired()
    }

    /// Time since the start: for the annealing schedule of a time-limited
    /// run, and for reports (`Progress::best_ms`), which never decide anything.
    pub fn elapsed_ms(&self) -> f64 {
        self.clock.map_or(0.0, |c| c.now_ms() - self.started_ms)
    }
}
