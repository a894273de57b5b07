export { SolverPool } from './pool.ts';
export { loadSolver, compileSolverModule, DEFAULT_WASM_PATH, type InThreadSolver } from './load.ts';
export { SolverError, type SolverErrorCode } from './errors.ts';
export { ABI_VERSION, EVENT_CAPACITY, MAX_SIZE, OPERATOR_NAMES, REPORT_LEN, Status, statusName, type WasmSolverOptions } from './abi.ts';
export type { Improvement, OperatorCounter, OperatorName, SolveOptions, SolveProblem, SolveReport, SolveResult, SolverPoolOptions } from './types.ts';
