//! Heuristic search for n > EXACT_MAX_STOPS stops: construction, then an
//! iterated local search (Lin–Kernighan steps while the route is on time,
//! deadline-aware operators while it is late; kicks; an acceptance rule;
//! a convergence stop). See docs/solver.md.
//!
//! - `route`: the current route, O(segments) exact pricing of any move
//! - `segment`: moves as lists of segments of the current route
//! - `neighbours`: candidate lists
//! - `construction`: initial routes
//! - `operators`: one file per operator (evaluate, then `RouteState::apply`)
//! - `local_search`: don't-look-bit queue and operator dispatch
//! - `kicks`: perturbations
//! - `ils`: the driver (time limit, acceptance, convergence stop; what it did is a
//!   `crate::progress::Progress`, as the fleet's, plus the list of new best routes)
//!
//! The time limit is `crate::deadline::Deadline`, shared with the fleet search.

pub mod construction;
pub mod ils;
pub mod kicks;
pub mod local_search;
pub mod neighbours;
pub mod operators;
pub mod range_min;
pub mod route;
pub mod segment;

pub use crate::deadline::{Clock, Deadline};
pub use ils::{default_stall, solve, solve_reporting, Improvement};
pub use kicks::{Kick, KickSettings};
pub use neighbours::CandidateRule;
pub use operators::lin_kernighan::Settings as LinKernighanSettings;

/// How kicked routes are accepted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Acceptance {
    /// Keep the kicked route if it is not worse than the current one
    /// (the current route is then always the best).
    BetterOrEqual,
    /// Also keep it if it has the same lateness and is at most
    /// `parts_per_million` longer, once `after_stall` kicks have passed
    /// without a new best route (0: always); restart from the best route
    /// after every `restart_after` kicks without a new best.
    Threshold {
        parts_per_million: i64,
        restart_after: u64,
        after_stall: u64,
    },
}

/// Search configuration. The defaults are the measured choice (docs/solver.md);
/// the alternatives stay selectable for benchmarks (`bench` binary flags).
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// Candidate neighbours per stop.
    pub neighbours: usize,
    /// How candidate neighbours are chosen (problems without, with deadlines).
    pub candidates: CandidateRule,
    pub deadline_candidates: CandidateRule,
    /// Use Lin–Kernighan on problems with deadlines (while the route is on time).
    pub lin_kernighan_with_deadlines: bool,
    /// Lin–Kernighan while the route is on time (None: the deadline-aware
    /// operator set everywhere).
    pub lin_kernighan: Option<LinKernighanSettings>,
    /// While on time, try the deadline-aware set before Lin–Kernighan.
    pub classic_before_lin_kernighan: bool,
    /// Use the segment-swap operator.
    pub segment_swap: bool,
    /// Without deadlines, end every descent with the search for improving
    /// double bridges (`operators::double_bridge`).
    pub double_bridge_search: bool,
    /// Kick for problems without deadlines.
    pub kick: KickSettings,
    /// Kick for problems with deadlines.
    pub deadline_kick: KickSettings,
    /// Acceptance for problems without deadlines.
    pub acceptance: Acceptance,
    /// Acceptance for problems with deadlines.
    pub deadline_acceptance: Acceptance,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            neighbours: neighbours::NEIGHBOURS,
            candidates: CandidateRule::AlphaNearness,
            deadline_candidates: CandidateRule::Nearest,
            lin_kernighan_with_deadlines: false,
            lin_kernighan: Some(LinKernighanSettings::default()),
            classic_before_lin_kernighan: true,
            segment_swap: true,
            double_bridge_search: true,
            kick: KickSettings {
                kind: Kick::DoubleBridge,
                max_run: 50,
                walk_steps: 5,
                wrap_round_trips: true,
            },
            deadline_kick: KickSettings {
                kind: Kick::SegmentSwap,
                max_run: 50,
                walk_steps: 5,
                wrap_round_trips: true,
            },
            acceptance: Acceptance::Threshold {
                parts_per_million: 2000,
                restart_after: 400,
                after_stall: 200,
            },
            deadline_acceptance: Acceptance::Threshold {
                parts_per_million: 3000,
                restart_after: 200,
                after_stall: 0,
            },
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Params {
    pub seed: u64,
    /// 0 = no time limit. The search stops at it less the reserve
    /// (`crate::deadline`), counted from the call of `crate::solve` /
    /// `search::solve`.
    pub time_limit_ms: f64,
    /// 0 = no cap on kicks.
    pub max_iterations: u64,
    /// Stop after this many kicks without a new best route; 0 = `default_stall(n)`.
    pub stall_iterations: u64,
    pub options: Options,
}

impl Default for Params {
    fn default() -> Params {
        Params {
            seed: 1,
            time_limit_ms: 0.0,
            max_iterations: 0,
            stall_iterations: 0,
            options: Options::default(),
        }
    }
}
