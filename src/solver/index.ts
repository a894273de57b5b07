export { SolverPool } from './pool.js';
export { loadSolver, compileSolverModule, DEFAULT_WASM_PATH, type InThreadSolver } from './load.js';
export { SolverError, type SolverErrorCode } from './errors.js';
export {
  ABI_VERSION,
  EVENT_CAPACITY,
  MAX_SIZE,
  NO_DEADLINE,
  OPERATOR_NAMES,
  REPORT_LEN,
  Status,
  statusName,
  type WasmSolverOptions,
} from './abi.js';
export { routeTimes, timesForOrder } from './evaluate.js';
export type {
  Improvement,
  OperatorCounter,
  OperatorName,
  RouteTimes,
  StopTimes,
  SolveOptions,
  SolveProblem,
  SolveReport,
  SolveResult,
  SolverPoolOptions,
} from './types.js';
export { solveFleet, checkFleetProblem, REASONS as FLEET_REASONS } from './fleet-abi.js';
export { DISTANCE_OBJECTIVE, SERVICE_OBJECTIVE, serviceStallIterations } from './fleet-types.js';
export type {
  FleetCostParts,
  FleetJob,
  FleetObjective,
  FleetOptions,
  FleetProgress,
  FleetProblem,
  FleetResult,
  FleetRoute,
  FleetVehicle,
  UnassignedReason,
} from './fleet-types.js';
