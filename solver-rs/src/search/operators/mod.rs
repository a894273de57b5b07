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
// (each operator file counts its evaluations in a `Counter`)
pub use crate::progress::{Counter, Operator};

/// An improving move found by an operator: the new route as segments of the
/// current one, and its exact cost.
#[derive(Clone, Copy, Debug)]
pub struct Move {
    pub segments: SegmentList,
    pub cost: Cost,
}

/// The operators this engine counts (and the kicks), in the ABI's report order.
pub const OPERATORS: [Operator; OPERATOR_COUNT] = [
    Operator::TwoOpt,
    Operator::OrOpt,
    Operator::Swap,
    Operator::SegmentSwap,
    Operator::LateRelocate,
    Operator::LinKernighan,
    Operator::Kick,
];

pub const OPERATOR_COUNT: usize = 7;
