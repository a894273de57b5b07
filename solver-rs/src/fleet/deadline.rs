//! The fleet search's time limit is the crate's (`crate::deadline`, shared
//! with the single-route search); this path stays for the fleet's modules.

pub use crate::deadline::{Deadline, RESERVE_DIVISOR, RESERVE_MAX_MS, STRIDE};
