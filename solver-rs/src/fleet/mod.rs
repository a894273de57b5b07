//! Multi-route model (fleets): vehicles with capacities, shifts, maxStops;
//! jobs with hard windows, soft deadlines, demands, allowed vehicles.
//! Objective, lexicographic: jobs assigned, total lateness, then the
//! weighted vehicles / duration / distance (`model::Objective`).
//!
//! - `model`: input, validation, the internal problem
//! - `segment`: time-window segments (O(1) concatenation)
//! - `matrix`: the i32 matrices (owned, or the host's buffer read in place)
//! - `place_order`: places renumbered along the jobs' neighbour lists (matrix reads near in memory)
//! - `load`: load segments (O(1) concatenation) when the load varies along a route
//! - `pairs`: shipments (pickup-and-delivery pairs) in the insertion heuristics
//! - `solution/`: routes with their segment caches (`route`), costs (`cost`), schedules
//!   from scratch (`schedule`), pricing of routes made of pieces (`pricing`), one job's
//!   insertion and removals (`insertion`), invariant checks (`check`)
//! - `insertion`: regret construction, greedy insertion with blinks
//! - `insertion_column`: the regret table's column of one route, read along the matrix rows
//! - `regret_table`: the regret construction's table, priced lazily
//! - `regret_near`: regret construction on neighbour lists (big problems)
//! - `ruin`: SISR string removal
//! - `operators/`: one file per inter-route operator (relocate, swap, 2-opt*, cross-exchange)
//! - `local_search`: granular descent
//! - `correlated`: the descent's candidates by time-window correlation (600 to 1000 jobs)
//! - `single`: the entry (`solve`): a one-vehicle plan with no fleet-only rule goes to the
//!   single-route engine (`crate::solve_problem`: exact up to 10 stops, else its
//!   Lin–Kernighan search), every other plan to `driver`
//! - `driver`: ruin-and-recreate under simulated annealing
//! - `soft_windows`: the annealing through late schedules, their time warp priced (off by default)
//! - `bound`: a lower bound on any plan's cost (the search stops once the best plan reaches it)
//! - `deadline`: the time limit, counted from the host's call, checked cheaply in inner loops
//! - `windows`: exact schedules when jobs have several time windows
//! - `breaks`: vehicle breaks, and the exact schedule of a route with them
//! - `reasons`: reason codes of unassigned jobs
//! - `same_place`: the stops of one place in input order, where that is no later (the plan's last step)
//! - `flat`: the flat arrays of the WebAssembly ABI (`ffi::solve_fleet`) and the native CLI
//! - `solomon`: Solomon VRPTW instances (parser, scaled problem, double-precision check)
//!
//! Single-route calls (`crate::solve`) do not use this module; this module's
//! `single` uses theirs.

pub mod arith;
pub mod bound;
pub mod breaks;
pub mod correlated;
pub mod deadline;
pub mod driver;
pub mod flat;
pub mod insertion;
pub mod insertion_column;
pub mod keyed_heap;
pub mod load;
pub mod local_search;
pub mod matrix;
pub mod model;
pub mod operators;
pub mod pairs;
pub mod place_order;
pub mod reasons;
pub mod regret_near;
pub mod regret_table;
pub mod route_polish;
pub mod ruin;
pub mod same_place;
pub mod segment;
pub mod single;
pub mod soft_windows;
pub mod solomon;
pub mod solution;
pub mod windows;

pub use driver::{FleetParams, FleetSettings, FleetSolution};
pub use model::{FleetError, FleetInput, FleetProblem, JobInput, Objective, VehicleInput};
pub use reasons::Reason;
pub use single::{solve, solve_since};
pub use solution::FleetCost;
