//! What a search did, in one type for both engines (`search`, the single
//! route; `fleet`, many): iterations, the iteration and the time at which
//! the returned solution was first reached, and per-operator counters.
//!
//! Operators of both engines share one identity (`Operator`); each engine
//! counts the operators it runs (its own list: `search::operators::OPERATORS`,
//! `fleet::local_search::OPERATORS`), so a report lists the non-zero ones by
//! name (`Progress::nonzero`).

/// An operator of either engine (the kicks of the single-route engine too).
/// Names are the engines' own: the single-route ones are the ABI's
/// (`OPERATOR_NAMES` of the generated TypeScript constants).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operator {
    // single-route engine (`crate::search::operators`)
    TwoOpt,
    OrOpt,
    Swap,
    SegmentSwap,
    LateRelocate,
    LinKernighan,
    Kick,
    // fleet engine (`crate::fleet::operators`)
    Relocate,
    /// Two jobs exchanged (between routes or within one).
    FleetSwap,
    TwoOptStar,
    CrossExchange,
    PairRelocate,
    SwapStar,
    /// A reversal within one fleet route.
    FleetTwoOpt,
}

/// Every operator, in counter order.
pub const ALL_OPERATORS: [Operator; 14] = [
    Operator::TwoOpt,
    Operator::OrOpt,
    Operator::Swap,
    Operator::SegmentSwap,
    Operator::LateRelocate,
    Operator::LinKernighan,
    Operator::Kick,
    Operator::Relocate,
    Operator::FleetSwap,
    Operator::TwoOptStar,
    Operator::CrossExchange,
    Operator::PairRelocate,
    Operator::SwapStar,
    Operator::FleetTwoOpt,
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
            Operator::Relocate => "relocate",
            Operator::FleetSwap => "swap",
            Operator::TwoOptStar => "2-opt*",
            Operator::CrossExchange => "cross-exchange",
            Operator::PairRelocate => "pair-relocate",
            Operator::SwapStar => "swap*",
            Operator::FleetTwoOpt => "2-opt",
        }
    }
}

/// tried: exact evaluations (after any cheap bound); improving: evaluations
/// that beat the current cost; applied: moves applied. For the kicks: kicks
/// made, kicks after which the best route improved, kicked routes accepted.
/// (The fleet's operators price every variant of their move around a pair
/// of jobs in one evaluation: there, tried counts pairs.)
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counter {
    pub tried: u64,
    pub improving: u64,
    pub applied: u64,
}

impl Counter {
    pub fn is_zero(&self) -> bool {
        *self == Counter::default()
    }
}

/// What a search did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Progress {
    /// Iterations made: kicks (single route), ruin-and-recreate iterations (fleet).
    pub iterations: u64,
    /// Iteration after which the returned solution was first reached (0:
    /// before the first, by the construction and the first descent).
    pub best_iteration: u64,
    /// When it was first reached, in ms since the call; observed, never used
    /// for a decision. None where the engine does not observe it (the exact
    /// solver); 0 without a clock.
    pub best_ms: Option<f64>,
    counters: [Counter; ALL_OPERATORS.len()],
}

impl Progress {
    pub fn get(&self, op: Operator) -> Counter {
        self.counters[op as usize]
    }

    pub fn counter(&mut self, op: Operator) -> &mut Counter {
        &mut self.counters[op as usize]
    }

    /// Adds `other`'s operator counters to these (totals over several searches).
    pub fn add_counters(&mut self, other: &Progress) {
        for (mine, theirs) in self.counters.iter_mut().zip(other.counters.iter()) {
            mine.tried += theirs.tried;
            mine.improving += theirs.improving;
            mine.applied += theirs.applied;
        }
    }

    /// The operators with a non-zero counter, in counter order.
    pub fn nonzero(&self) -> impl Iterator<Item = (Operator, Counter)> + '_ {
        ALL_OPERATORS
            .iter()
            .map(move |&op| (op, self.get(op)))
            .filter(|(_, c)| !c.is_zero())
    }

    /// One line for people: `name tried/improving/applied` per non-zero operator.
    pub fn operators_line(&self) -> String {
        let cells: Vec<String> = self
            .nonzero()
            .map(|(op, c)| format!("{} {}/{}/{}", op.name(), c.tried, c.improving, c.applied))
            .collect();
        cells.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counter_order_is_the_enum_order() {
        for (k, op) in ALL_OPERATORS.iter().enumerate() {
            assert_eq!(*op as usize, k);
        }
    }

    #[test]
    fn lists_the_non_zero_operators_by_name() {
        let mut p = Progress::default();
        assert_eq!(p.nonzero().count(), 0);
        p.counter(Operator::Relocate).tried += 3;
        p.counter(Operator::Relocate).improving += 1;
        p.counter(Operator::SwapStar).tried += 1;
        assert_eq!(p.operators_line(), "relocate 3/1/0, swap* 1/0/0");
        let mut total = Progress::default();
        total.add_counters(&p);
        total.add_counters(&p);
        assert_eq!(total.operators_line(), "relocate 6/2/0, swap* 2/0/0");
    }
}
