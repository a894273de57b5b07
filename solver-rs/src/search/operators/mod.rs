//! Improvement operators. Each has `candidates` (the moves of its
//! neighbourhood around a pair of positions, as segment lists), `evaluate`
//! (cheap gain bound first, then the exact cost through
//! `RouteState::evaluate`; returns the first improving move) and is applied by
//! `RouteState::apply`, which asserts in debug builds that the new cost equals
//! the evaluated one.

pub mod double_bridge;
pub mod late_relocate;
pub mod lin_kernighan;
pub mod or_opt;
pub mod segment_swap;
pub mod swap;
pub mod two_opt;

use super::segment::SegmentList;
use crate::problem::Cost;

/// An improving move found by an operator: the new route as segments of the
/// current one, and its exact cost.
#[derive(Clone, Copy, Debug)]
pub struct Move {
    pub segments: SegmentList,
    pub cost: Cost,
}

/// What the search counts per operator (and for the kicks).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operator {
    TwoOpt = 0,
    OrOpt = 1,
    Swap = 2,
    SegmentSwap = 3,
    LateRelocate = 4,
    LinKernighan = 5,
    Kick = 6,
}

pub const OPERATOR_COUNT: usize = 7;

/// In counter order (the ABI's report lists them in this order).
pub const OPERATORS: [Operator; OPERATOR_COUNT] = [
    Operator::TwoOpt,
    Operator::OrOpt,
    Operator::Swap,
    Operator::SegmentSwap,
    Operator::LateRelocate,
    Operator::LinKernighan,
    Operator::Kick,
];

impl Operator {
    pub fn name(self) -> &'static str {
        match self {
            Operator::TwoOpt => "two_opt",
            Operator::OrOpt => "or_opt",
            Operator::Swap => "swap",
            Operator::SegmentSwap => "segment_swap",
            Operator::LateRelocate => "late_relocate",
            Operator::LinKernighan => "lin_kernighan",
            Operator::Kick => "kick",
        }
    }
}

/// tried: exact evaluations (after the gain bound); improving: evaluations
/// that beat the current cost; applied: moves applied. For the kicks: kicks
/// made, kicks after which the best route improved, kicked routes accepted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counter {
    pub tried: u64,
    pub improving: u64,
    pub applied: u64,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OperatorStats {
    counters: [Counter; OPERATOR_COUNT],
}

impl OperatorStats {
    pub fn get(&self, op: Operator) -> Counter {
        self.counters[op as usize]
    }

    pub fn counter(&mut self, op: Operator) -> &mut Counter {
        &mut self.counters[op as usize]
    }
}
