export { SolverPool } from './pool.ts';
export { loadSolver, compileSolverModule, DEFAULT_WASM_PATH, type InThreadSolver } from './load.ts';
export { SolverError, type SolverErrorCode } from './errors.ts';
export { ABI_VERSION, MAX_SIZE, Status, statusName } from './abi.ts';
export type { SolveOptions, SolveProblem, SolveResult, SolverPoolOptions } from './types.ts';
