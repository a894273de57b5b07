//! Stopping rules: a wall-clock limit (read through the host's clock) and/or
//! an iteration cap. With no time limit the clock is never consulted for a
//! decision, so a run with an iteration cap is deterministic.

/// Host clock in milliseconds (monotonic).
pub trait Clock {
    fn now_ms(&self) -> f64;
}

pub struct Budget<'c> {
    clock: &'c dyn Clock,
    started_ms: f64,
    /// 0 = none.
    limit_ms: f64,
}

impl<'c> Budget<'c> {
    pub fn new(clock: &'c dyn Clock, limit_ms: f64) -> Budget<'c> {
        Budget {
            clock,
            started_ms: clock.now_ms(),
            limit_ms,
        }
    }

    pub fn has_time_limit(&self) -> bool {
        self.limit_ms > 0.0
    }

    /// Time limit reached (always false without one; the clock is then not read).
    pub fn expired(&self) -> bool {
        self.limit_ms > 0.0 && self.elapsed_ms() >= self.limit_ms
    }

    /// For reports only (never for a decision).
    pub fn elapsed_ms(&self) -> f64 {
        self.clock.now_ms() - self.started_ms
    }
}
