//! Every constant the WebAssembly ABI shares with its host, declared once.
//!
//! `ffi.rs` (the exports), `problem.rs`, `fleet/flat.rs` and `fleet/model.rs`
//! use these; `typescript()` renders them as the host's module
//! `src/solver/abi-constants.generated.ts`, written by `scripts/build-solver.sh`
//! (through the `abi-ts` binary) and checked by `build-solver.sh --check` and by
//! the crate test `generated_typescript_is_committed`. Safe code.

use crate::fleet::model::{Objective, MAX_DIMS, MAX_LOCATIONS, MAX_VEHICLES};
use crate::fleet::Reason;
use crate::problem::MAX_SIZE;
use crate::search::operators::{OPERATORS, OPERATOR_COUNT};

/// ABI 4 = ABI 3 plus the schedules (per-stop times in the outputs of
/// `solve_with_report`, `solve` and `solve_fleet`, and `evaluate_route`),
/// deadlines that may lie before the departure (`NO_DEADLINE` marks none),
/// and `solve_fleet`'s 17th argument `stall_iterations` (added inside ABI 3
/// without a bump). Changed in place before its release: the allowed
/// vehicles travel as a bitset of `allowed_words(nv)` u32 words per job
/// (was two words, a 64-bit mask), so that a fleet may have up to
/// MAX_VEHICLES vehicles.
pub const ABI_VERSION: u32 = 4;

/// Status codes returned by the exports. Names are the host's (`Status` in TypeScript).
pub mod status {
    pub const OK: i32 = 0;
    pub const BAD_SIZE: i32 = 1;
    pub const BAD_LENGTH: i32 = 2;
    pub const NEGATIVE_DURATION: i32 = 3;
    pub const NEGATIVE_SERVICE: i32 = 4;
    pub const BAD_DEADLINE: i32 = 5;
    pub const BAD_FLAG: i32 = 6;
    pub const BAD_TIME_LIMIT: i32 = 7;
    pub const NULL_POINTER: i32 = 8;
    pub const MISALIGNED: i32 = 9;
    pub const NO_VEHICLES: i32 = 10;
    pub const TOO_MANY_VEHICLES: i32 = 11;
    pub const NO_JOBS: i32 = 12;
    pub const BAD_MATRIX: i32 = 13;
    pub const NEGATIVE_VALUE: i32 = 14;
    pub const BAD_LOCATION: i32 = 15;
    pub const NEGATIVE_QUANTITY: i32 = 16;
    pub const BAD_WINDOW: i32 = 17;
    pub const BAD_VEHICLE_INDEX: i32 = 18;
    pub const BAD_OBJECTIVE: i32 = 19;
    pub const TOO_MANY_DIMENSIONS: i32 = 20;
    pub const BAD_NUMBER: i32 = 21;
    pub const BAD_ORDER: i32 = 22;
    pub const BAD_EXTRA: i32 = 23;
}

/// Every status with its name and what it means, in code order.
pub const STATUSES: [(&str, i32, &str); 24] = [
    ("OK", status::OK, "solved"),
    ("BAD_SIZE", status::BAD_SIZE, "route matrix side below 1 (2 with an end) or above MAX_SIZE"),
    ("BAD_LENGTH", status::BAD_LENGTH, "an array of the wrong length or type (raised by the host: the module reads lengths from the sizes)"),
    ("NEGATIVE_DURATION", status::NEGATIVE_DURATION, "a route travel time below 0"),
    ("NEGATIVE_SERVICE", status::NEGATIVE_SERVICE, "a route service time below 0"),
    ("BAD_DEADLINE", status::BAD_DEADLINE, "ABI 1-3 only: a deadline below -1 (since ABI 4 every value but NO_DEADLINE is a deadline)"),
    ("BAD_FLAG", status::BAD_FLAG, "has_end neither 0 nor 1"),
    ("BAD_TIME_LIMIT", status::BAD_TIME_LIMIT, "time limit NaN, infinite or negative"),
    ("NULL_POINTER", status::NULL_POINTER, "a required pointer is 0"),
    ("MISALIGNED", status::MISALIGNED, "a pointer not aligned to its element type"),
    ("NO_VEHICLES", status::NO_VEHICLES, "a fleet without vehicles"),
    ("TOO_MANY_VEHICLES", status::TOO_MANY_VEHICLES, "more than MAX_VEHICLES vehicles"),
    ("NO_JOBS", status::NO_JOBS, "a fleet problem without jobs"),
    ("BAD_MATRIX", status::BAD_MATRIX, "fleet matrix side 0 or above MAX_LOCATIONS, or an array of the wrong length"),
    ("NEGATIVE_VALUE", status::NEGATIVE_VALUE, "a fleet travel time or distance below -1"),
    ("BAD_LOCATION", status::BAD_LOCATION, "a location index outside the matrix"),
    ("NEGATIVE_QUANTITY", status::NEGATIVE_QUANTITY, "a negative service, demand, capacity or maxStops"),
    ("BAD_WINDOW", status::BAD_WINDOW, "ready after due, a negative ready or shift start, or a shift ending before it starts"),
    ("BAD_VEHICLE_INDEX", status::BAD_VEHICLE_INDEX, "an allowed-vehicle index outside the fleet"),
    ("BAD_OBJECTIVE", status::BAD_OBJECTIVE, "a negative objective weight or vehicle cost, or a balance duration scale below 1"),
    ("TOO_MANY_DIMENSIONS", status::TOO_MANY_DIMENSIONS, "more than MAX_DIMS demand dimensions"),
    ("BAD_NUMBER", status::BAD_NUMBER, "a number that is not an integer in range (fleet fields; the seed and iteration caps)"),
    ("BAD_ORDER", status::BAD_ORDER, "evaluate_route: the order is not a permutation of the stops"),
    ("BAD_EXTRA", status::BAD_EXTRA, "solve_fleet's extra sections: an unknown or repeated tag, a length that does not match, a bad window count, or a bad shipment pair (a job outside the list or in two pairs, ends with different demands, a backhaul pickup on a shipment's job)"),
];

/// f64 entries of the full report of `solve_with_report`.
pub const REPORT_LEN: usize = 4 + 3 * OPERATOR_COUNT;

/// Deadline value meaning "none" in the route's `deadline` array and the
/// fleet's job deadline field (ABI 4). Every other value is a deadline in
/// seconds after the departure; a negative one was already past at departure.
pub const NO_DEADLINE: i32 = i32::MIN;

/// The ABI's route deadlines (NO_DEADLINE none, any other value a deadline)
/// as the search reads them (`Input::deadline`: -1 none, a deadline already
/// past counted from 0 — that stop's lateness changes by a constant, so the
/// best order is the same) and as given (for the reported times).
pub fn route_deadlines(given: &[i32]) -> (Vec<i32>, Vec<Option<i64>>) {
    let search = given
        .iter()
        .map(|&d| if d == NO_DEADLINE { -1 } else { d.max(0) })
        .collect();
    let as_given = given
        .iter()
        .map(|&d| {
            if d == NO_DEADLINE {
                None
            } else {
                Some(d as i64)
            }
        })
        .collect();
    (search, as_given)
}

/// Head of the route output: lateness, duration, iterations; then the order
/// (n), then `STOP_FIELDS` per stop in visiting order.
pub const ROUTE_OUT_HEAD: usize = 3;
/// Per-stop times, seconds after the departure: arrival, wait, start of
/// service, departure, lateness (start of service past the deadline, 0 when on time).
pub const STOP_FIELDS: usize = 5;

/// f64 entries of a route output with n stops (ABI 4).
pub const fn route_out_len(n: usize) -> usize {
    ROUTE_OUT_HEAD + n + STOP_FIELDS * n
}

/// Fleet input records (fleet/flat.rs).
pub const VEHICLE_FIELDS: usize = 5;
pub const JOB_FIELDS: usize = 5;
/// Bits per word of the fleet's allowed-vehicle bitsets (u32 words: vehicle
/// v is bit v % 32 of word v / 32 of its job's row).
pub const ALLOWED_WORD_BITS: usize = 32;

/// u32 words per job of the allowed-vehicle input for nv vehicles.
pub const fn allowed_words(nv: usize) -> usize {
    (nv + ALLOWED_WORD_BITS - 1) / ALLOWED_WORD_BITS
}
/// Fleet output: head, then ROUTE_FIELDS per vehicle, … (fleet/flat.rs).
pub const FLEET_OUT_HEAD: usize = 8;
pub const FLEET_ROUTE_FIELDS: usize = 4;
/// Fleet output, ABI 4 tail: per vehicle departure and return, then the stops' times.
pub const FLEET_VEHICLE_TIMES: usize = 2;

/// solve_fleet's optional `extra` array (ABI 4, arguments 18 and 19): a
/// sequence of sections [tag, length, length values], each tag at most once,
/// for what the fixed records do not carry (fleet/flat.rs).
pub mod extra {
    /// Per job: a window count c (-1: none, [ready, due] alone; 0: never
    /// served), then c (start, end) pairs in time order, disjoint.
    pub const WINDOWS: u32 = 1;
    /// Per vehicle VEHICLE_LIMIT_FIELDS values: max duration, max driving
    /// (travel time), max distance (over LIMIT_DISTANCE); -1 none.
    pub const VEHICLE_LIMITS: u32 = 2;
    /// locations² distances (-1 unreachable) that max distance counts;
    /// absent: the objective's distance matrix.
    pub const LIMIT_DISTANCE: u32 = 3;
    pub const VEHICLE_LIMIT_FIELDS: usize = 3;
    /// Per job its priority (0 to fleet::model::MAX_PRIORITY).
    pub const PRIORITY: u32 = 4;
    /// Pickup-and-delivery pairs: (pickup job, delivery job) per pair, each
    /// job in at most one pair, both ends with the same demand (fleet::model::FleetInput::shipments).
    pub const SHIPMENTS: u32 = 5;
    /// Per job and demand dimension (nj × dims values): the amount loaded
    /// there and carried to the route's end (a backhaul; 0 none).
    pub const PICKUP: u32 = 6;
    /// Per vehicle a break count c (0 to fleet::model::MAX_BREAKS), then c
    /// (window start, window end, duration) triples (fleet::breaks).
    pub const BREAKS: u32 = 7;
    /// Per vehicle VEHICLE_COST_FIELDS values in the objective's main unit:
    /// fixed (per used route), per unit of route duration, per unit of
    /// objective distance (fleet::model::VehicleCosts; >= 0). Absent: none.
    pub const VEHICLE_COSTS: u32 = 8;
    pub const VEHICLE_COST_FIELDS: usize = 3;
    /// BALANCE_FIELDS values: per used route stops × s² + ⌊duration × d² /
    /// duration scale⌋ (fleet::model::Balance; >= 0, scale >= 1). Absent: none.
    pub const BALANCE: u32 = 9;
    pub const BALANCE_FIELDS: usize = 3;
}

/// Fleet output tail when the problem has breaks: per break (vehicle after
/// vehicle, each vehicle's in the order given) its start (-1 when the
/// vehicle is unused), how many of the route's jobs come before it, and the
/// arrival at what follows it (the next job or the end point; a break that
/// starts before it was taken before that leg).
pub const BREAK_FIELDS: usize = 3;

/// f64 entries of the fleet output for nv vehicles and nj jobs (ABI 4).
pub const fn fleet_out_len(nv: usize, nj: usize) -> usize {
    fleet_out_len_abi3(nv, nj) + FLEET_VEHICLE_TIMES * nv + STOP_FIELDS * nj
}

/// The ABI 3 part of the fleet output (unchanged at its start in ABI 4).
pub const fn fleet_out_len_abi3(nv: usize, nj: usize) -> usize {
    FLEET_OUT_HEAD + FLEET_ROUTE_FIELDS * nv + 2 * nj
}

/// Unassigned reasons by code.
pub const REASONS: [Reason; 7] = [
    Reason::Capacity,
    Reason::Shift,
    Reason::AllowedVehicles,
    Reason::Unreachable,
    Reason::TimeWindows,
    Reason::RouteLimit,
    Reason::Priority,
];

/// The TypeScript module of these constants (src/solver/abi-constants.generated.ts).
pub fn typescript() -> String {
    let mut s = String::new();
    s.push_str("// Generated from solver-rs/src/abi.rs by scripts/build-solver.sh (cargo run --bin abi-ts).\n");
    s.push_str("// Do not edit: change abi.rs and run `npm run build:solver`; `build-solver.sh --check` fails when stale.\n\n");
    s.push_str(&format!("/** The ABI version the module reports (abi_version()). */\nexport const ABI_VERSION = {};\n\n", ABI_VERSION));
    s.push_str("/** Status codes of the exports. */\nexport const Status = {\n");
    for (name, code, _) in STATUSES.iter() {
        s.push_str(&format!("  {}: {},\n", name, code));
    }
    s.push_str("} as const;\n\n/** What each status means. */\nexport const STATUS_MEANING: Readonly<Record<number, string>> = {\n");
    for (_, code, meaning) in STATUSES.iter() {
        s.push_str(&format!("  {}: {:?},\n", code, meaning));
    }
    s.push_str("};\n\n/** Operator counters in the route report, in ABI order. */\nexport const OPERATOR_NAMES = [");
    let names: Vec<String> = OPERATORS
        .iter()
        .map(|o| format!("'{}'", o.name()))
        .collect();
    s.push_str(&names.join(", "));
    s.push_str("] as const;\n");
    s.push_str(&format!(
        "/** f64 entries of the route report. */\nexport const REPORT_LEN = {};\n",
        REPORT_LEN
    ));
    s.push_str(&format!(
        "/** Largest route matrix side (start + stops + end). */\nexport const MAX_SIZE = {};\n",
        MAX_SIZE
    ));
    s.push_str(&format!("/** Deadline value meaning none (route deadlines and fleet job deadlines). */\nexport const NO_DEADLINE = {};\n", NO_DEADLINE));
    s.push_str(&format!("/** Route output head: lateness, duration, iterations (then the order, then STOP_FIELDS per stop). */\nexport const ROUTE_OUT_HEAD = {};\n", ROUTE_OUT_HEAD));
    s.push_str(&format!("/** Per-stop times: arrival, wait, start of service, departure, lateness (seconds after the departure). */\nexport const STOP_FIELDS = {};\n", STOP_FIELDS));
    s.push_str(&format!(
        "export const VEHICLE_FIELDS = {};\nexport const JOB_FIELDS = {};\n",
        VEHICLE_FIELDS, JOB_FIELDS
    ));
    s.push_str(&format!("/** Allowed vehicles: per job ceil(vehicles / ALLOWED_WORD_BITS) u32 words, vehicle v = bit v % 32 of word v / 32. */\nexport const ALLOWED_WORD_BITS = {};\n", ALLOWED_WORD_BITS));
    s.push_str(&format!("export const FLEET_OUT_HEAD = {};\nexport const FLEET_ROUTE_FIELDS = {};\nexport const FLEET_VEHICLE_TIMES = {};\n", FLEET_OUT_HEAD, FLEET_ROUTE_FIELDS, FLEET_VEHICLE_TIMES));
    s.push_str(&format!("/** Fleet limits. */\nexport const MAX_VEHICLES = {};\nexport const MAX_DIMS = {};\nexport const MAX_LOCATIONS = {};\n", MAX_VEHICLES, MAX_DIMS, MAX_LOCATIONS));
    s.push_str(&format!("/** Tags of solve_fleet's extra sections ([tag, length, values]). */\nexport const EXTRA = {{ WINDOWS: {}, VEHICLE_LIMITS: {}, LIMIT_DISTANCE: {}, PRIORITY: {}, SHIPMENTS: {}, PICKUP: {}, BREAKS: {}, VEHICLE_COSTS: {}, BALANCE: {} }} as const;\n/** Per break in the fleet output's tail: start (-1 unused vehicle), jobs before it, arrival at what follows it. */\nexport const BREAK_FIELDS = {};\n/** Most breaks per vehicle. */\nexport const MAX_BREAKS = {};\n/** Values per vehicle in EXTRA.VEHICLE_LIMITS: max duration, max driving, max distance (-1 none). */\nexport const VEHICLE_LIMIT_FIELDS = {};\n/** Most windows per job. */\nexport const MAX_WINDOWS = {};\n", extra::WINDOWS, extra::VEHICLE_LIMITS, extra::LIMIT_DISTANCE, extra::PRIORITY, extra::SHIPMENTS, extra::PICKUP, extra::BREAKS, extra::VEHICLE_COSTS, extra::BALANCE, BREAK_FIELDS, crate::fleet::model::MAX_BREAKS, extra::VEHICLE_LIMIT_FIELDS, crate::fleet::model::MAX_WINDOWS));
    s.push_str(&format!("/** Values per vehicle in EXTRA.VEHICLE_COSTS: fixed, per duration unit, per distance unit. */\nexport const VEHICLE_COST_FIELDS = {};\n/** Values of EXTRA.BALANCE: per stop², per duration², duration scale. */\nexport const BALANCE_FIELDS = {};\n", extra::VEHICLE_COST_FIELDS, extra::BALANCE_FIELDS));
    s.push_str("/** Unassigned reasons by code. */\nexport const REASON_CODES = {\n");
    for r in REASONS.iter() {
        s.push_str(&format!("  {}: '{}',\n", *r as i32, r.code()));
    }
    s.push_str("} as const;\n");
    let obj = |name: &str, doc: &str, o: Objective| {
        format!(
            "/** {} */\nexport const {} = {{ vehicleCost: {}, durationWeight: {}, distanceWeight: {} }} as const;\n",
            doc, name, o.vehicle_cost, o.duration_weight, o.distance_weight
        )
    };
    s.push_str(&obj(
        "SERVICE_OBJECTIVE",
        "The service's fleet objective (fleet/model.rs Objective::SERVICE).",
        Objective::SERVICE,
    ));
    s.push_str(&obj(
        "DISTANCE_OBJECTIVE",
        "Total distance only.",
        Objective::DISTANCE,
    ));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_are_numbered_in_order() {
        for (k, (_, code, _)) in STATUSES.iter().enumerate() {
            assert_eq!(*code as usize, k);
        }
    }

    #[test]
    fn generated_typescript_is_committed() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../src/solver/abi-constants.generated.ts"
        );
        match std::fs::read_to_string(path) {
            // the crate may be built on its own (scripts/build-solver.sh copies it): nothing to compare then
            Err(_) => {}
            Ok(committed) => assert!(
                committed == typescript(),
                "src/solver/abi-constants.generated.ts is stale: run npm run build:solver"
            ),
        }
    }
}
