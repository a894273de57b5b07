// Generated from solver-rs/src/abi.rs by scripts/build-solver.sh (cargo run --bin abi-ts).
// Do not edit: change abi.rs and run `npm run build:solver`; `build-solver.sh --check` fails when stale.

/** The ABI version the module reports (abi_version()). */
export const ABI_VERSION = 4;

/** Status codes of the exports. */
export const Status = {
  OK: 0,
  BAD_SIZE: 1,
  BAD_LENGTH: 2,
  NEGATIVE_DURATION: 3,
  NEGATIVE_SERVICE: 4,
  BAD_DEADLINE: 5,
  BAD_FLAG: 6,
  BAD_TIME_LIMIT: 7,
  NULL_POINTER: 8,
  MISALIGNED: 9,
  NO_VEHICLES: 10,
  TOO_MANY_VEHICLES: 11,
  NO_JOBS: 12,
  BAD_MATRIX: 13,
  NEGATIVE_VALUE: 14,
  BAD_LOCATION: 15,
  NEGATIVE_QUANTITY: 16,
  BAD_WINDOW: 17,
  BAD_VEHICLE_INDEX: 18,
  BAD_OBJECTIVE: 19,
  TOO_MANY_DIMENSIONS: 20,
  BAD_NUMBER: 21,
  BAD_ORDER: 22,
  BAD_EXTRA: 23,
} as const;

/** What each status means. */
export const STATUS_MEANING: Readonly<Record<number, string>> = {
  0: "solved",
  1: "route matrix side below 1 (2 with an end) or above MAX_SIZE",
  2: "an array of the wrong length or type (raised by the host: the module reads lengths from the sizes)",
  3: "a route travel time below 0",
  4: "a route service time below 0",
  5: "ABI 1-3 only: a deadline below -1 (since ABI 4 every value but NO_DEADLINE is a deadline)",
  6: "has_end neither 0 nor 1",
  7: "time limit NaN, infinite or negative",
  8: "a required pointer is 0",
  9: "a pointer not aligned to its element type",
  10: "a fleet without vehicles",
  11: "more than MAX_VEHICLES vehicles",
  12: "a fleet problem without jobs",
  13: "fleet matrix side 0 or above MAX_LOCATIONS, or an array of the wrong length",
  14: "a fleet travel time or distance below -1",
  15: "a location index outside the matrix",
  16: "a negative service, demand, capacity or maxStops",
  17: "ready after due, a negative ready or shift start, or a shift ending before it starts",
  18: "an allowed-vehicle index outside the fleet",
  19: "a negative objective weight or vehicle cost, or a balance duration scale below 1",
  20: "more than MAX_DIMS demand dimensions",
  21: "a number that is not an integer in range (fleet fields; the seed and iteration caps)",
  22: "evaluate_route: the order is not a permutation of the stops",
  23: "solve_fleet's extra sections: an unknown or repeated tag, a length that does not match, a bad window count, or a bad shipment pair (a job outside the list or in two pairs, ends with different demands, a backhaul pickup on a shipment's job)",
};

/** Operator counters in the route report, in ABI order. */
export const OPERATOR_NAMES = ['two_opt', 'or_opt', 'swap', 'segment_swap', 'late_relocate', 'lin_kernighan', 'kick'] as const;
/** f64 entries of the route report. */
export const REPORT_LEN = 25;
/** Largest route matrix side (start + stops + end). */
export const MAX_SIZE = 4096;
/** Deadline value meaning none (route deadlines and fleet job deadlines). */
export const NO_DEADLINE = -2147483648;
/** Route output head: lateness, duration, iterations (then the order, then STOP_FIELDS per stop). */
export const ROUTE_OUT_HEAD = 3;
/** Per-stop times: arrival, wait, start of service, departure, lateness (seconds after the departure). */
export const STOP_FIELDS = 5;
export const VEHICLE_FIELDS = 5;
export const JOB_FIELDS = 5;
/** Allowed vehicles: per job ceil(vehicles / ALLOWED_WORD_BITS) u32 words, vehicle v = bit v % 32 of word v / 32. */
export const ALLOWED_WORD_BITS = 32;
export const FLEET_OUT_HEAD = 8;
export const FLEET_ROUTE_FIELDS = 4;
export const FLEET_VEHICLE_TIMES = 2;
/** Fleet limits. */
export const MAX_VEHICLES = 1024;
export const MAX_DIMS = 8;
export const MAX_LOCATIONS = 16384;
/** Tags of solve_fleet's extra sections ([tag, length, values]). */
export const EXTRA = { WINDOWS: 1, VEHICLE_LIMITS: 2, LIMIT_DISTANCE: 3, PRIORITY: 4, SHIPMENTS: 5, PICKUP: 6, BREAKS: 7, VEHICLE_COSTS: 8, BALANCE: 9 } as const;
/** Per break in the fleet output's tail: start (-1 unused vehicle), jobs before it, arrival at what follows it. */
export const BREAK_FIELDS = 3;
/** Most breaks per vehicle. */
export const MAX_BREAKS = 16;
/** Values per vehicle in EXTRA.VEHICLE_LIMITS: max duration, max driving, max distance (-1 none). */
export const VEHICLE_LIMIT_FIELDS = 3;
/** Most windows per job. */
export const MAX_WINDOWS = 16;
/** Values per vehicle in EXTRA.VEHICLE_COSTS: fixed, per duration unit, per distance unit. */
export const VEHICLE_COST_FIELDS = 3;
/** Values of EXTRA.BALANCE: per stop², per duration², duration scale. */
export const BALANCE_FIELDS = 3;
/** Unassigned reasons by code. */
export const REASON_CODES = {
  1: 'capacity',
  2: 'shift',
  3: 'allowedVehicles',
  4: 'unreachable',
  5: 'timeWindows',
  6: 'routeLimit',
  7: 'priority',
} as const;
/** The service's fleet objective (fleet/model.rs Objective::SERVICE). */
export const SERVICE_OBJECTIVE = { vehicleCost: 1099511627776, durationWeight: 1024, distanceWeight: 1 } as const;
/** Total distance only. */
export const DISTANCE_OBJECTIVE = { vehicleCost: 0, durationWeight: 0, distanceWeight: 1 } as const;
