export { SolverPool } from './pool.js';
export { loadSolver, compileSolverModule, DEFAULT_WASM_PATH, type InThreadSolver } from './load.js';
export { SolverError, type SolverErrorCode } from './errors.js';
export { ABI_VERSION, EVENT_CAPACITY, MAX_SIZE, OPERATOR_NAMES, REPORT_LEN, Status, statusName, type WasmSolverOptions } from './abi.js';
export type { Improvement, OperatorCounter, OperatorName, SolveOptions, SolveProblem, SolveReport, SolveResult, SolverPoolOptions } from './types.js';
