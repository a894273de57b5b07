/**
 * The host side of the WebAssembly ABI documented at the top of solver-rs/src/ffi.rs. Its constants
 * (version, statuses, layouts, limits) come from abi-constants.generated.ts, written from
 * solver-rs/src/abi.rs by scripts/build-solver.sh; every call goes through marshal.ts.
 *
 * Versions: the service needs ABI 4 (the routes' times, `evaluate_route`). Modules of ABI 1–3 (older
 * builds, kept loadable for benchmark comparisons) still solve single routes — their deadlines are
 * passed in their encoding (-1 none, a past one as 0) and their results carry no `times` — and ABI 3
 * modules still plan fleets (without times); ABI 1 lacks `solve_with_report` (no report), 1 and 2 lack
 * `solve_fleet` (plans fail with 'unsupported'), 1–3 lack `evaluate_route` ('unsupported').
 */
import { SolverError } from './errors.ts';
import {
  ABI_VERSION,
  MAX_SIZE,
  NO_DEADLINE,
  OPERATOR_NAMES,
  REPORT_LEN,
  ROUTE_OUT_HEAD,
  STOP_FIELDS,
  Status,
} from './abi-constants.generated.ts';
import { callModule, checkOptions, invalid } from './marshal.ts';
import type {
  OperatorCounter,
  OperatorName,
  RouteTimes,
  SolveOptions,
  SolveProblem,
  SolveReport,
  SolveResult,
  StopTimes,
} from './types.ts';

export { ABI_VERSION, MAX_SIZE, NO_DEADLINE, OPERATOR_NAMES, REPORT_LEN, Status };
export { invalid, statusName, type StatusName } from './marshal.ts';
/** ABI versions this host can drive (see above for what each lacks). */
export const SUPPORTED_ABI_VERSIONS = [1, 2, 3, ABI_VERSION];
/** Improvement events kept per solve (the final one is always kept). */
export const EVENT_CAPACITY = 4096;

export interface SolverExports {
  memory: WebAssembly.Memory;
  abi_version(): number;
  alloc(size: number, align: number): number;
  dealloc(ptr: number, size: number, align: number): void;
  solve(
    durations: number,
    size: number,
    service: number,
    deadline: number,
    hasEnd: number,
    seed: number,
    timeLimitMs: number,
    maxIterations: number,
    stallIterations: number,
    out: number,
  ): number;
  /** ABI 2. */
  solve_with_report?(
    durations: number,
    size: number,
    service: number,
    deadline: number,
    hasEnd: number,
    seed: number,
    timeLimitMs: number,
    maxIterations: number,
    stallIterations: number,
    out: number,
    report: number,
    reportLen: number,
    events: number,
    eventsCapacity: number,
  ): number;
  /** ABI 4. */
  evaluate_route?(
    durations: number,
    size: number,
    service: number,
    deadline: number,
    hasEnd: number,
    order: number,
    out: number,
  ): number;
  /** ABI 3 (16 parameters in its first builds, 17 since). */
  solve_fleet?(
    travel: number,
    distance: number,
    locations: number,
    vehicles: number,
    vehicleCount: number,
    jobs: number,
    jobCount: number,
    dims: number,
    capacity: number,
    demand: number,
    allowed: number,
    objective: number,
    seed: number,
    timeLimitMs: number,
    maxIterations: number,
    out: number,
    stallIterations: number,
    /** ABI 4 (appended before its release): the extra sections (fleet/flat.rs) and their length; 0, 0 = none. */
    extra?: number,
    extraLen?: number,
  ): number;
  trap_for_test(): void;
}

export interface WasmSolverOptions {
  /** Clock for the time limit and the report's times, in ms. Default performance.now(). */
  clock?: () => number;
  /** The clock the module itself reads (`env.now_ms`), when it is not `clock` (the worker's stop: src/solver/worker.ts). */
  moduleClock?: () => number;
  /** `env.on_improve`: the fleet search has a new best plan (the jobs it serves, its routes' total seconds). */
  onImprove?: (assigned: number, routeS: number) => void;
}

/** The module's imports; a module built before `on_improve` ignores it. */
export function solverImports(
  nowMs: () => number,
  onImprove: (assigned: number, routeS: number) => void = () => {},
): WebAssembly.Imports {
  return { env: { now_ms: nowMs, on_improve: onImprove } };
}

/** Checks what the module cannot check itself (array lengths and types), and the options. */
export function checkProblem(p: SolveProblem, o: SolveOptions = {}): void {
  if (!Number.isInteger(p.size) || p.size < (p.hasEnd ? 2 : 1) || p.size > MAX_SIZE) {
    throw invalid(Status.BAD_SIZE, `size must be an integer in ${p.hasEnd ? 2 : 1}..${MAX_SIZE}`);
  }
  if (typeof p.hasEnd !== 'boolean') throw invalid(Status.BAD_FLAG, 'hasEnd must be a boolean');
  const n = p.size - 1 - (p.hasEnd ? 1 : 0);
  if (!(p.durations instanceof Int32Array) || p.durations.length !== p.size * p.size) {
    throw invalid(Status.BAD_LENGTH, `durations must be an Int32Array of ${p.size * p.size}`);
  }
  if (!(p.serviceS instanceof Int32Array) || p.serviceS.length !== n) {
    throw invalid(Status.BAD_LENGTH, `serviceS must be an Int32Array of ${n}`);
  }
  if (!(p.deadlineS instanceof Int32Array) || p.deadlineS.length !== n) {
    throw invalid(Status.BAD_LENGTH, `deadlineS must be an Int32Array of ${n}`);
  }
  checkOptions(o);
}

/** Minimal module shape checks (so a wrong file fails at load, not at solve). */
export function checkModule(module: WebAssembly.Module): void {
  const names = new Set(WebAssembly.Module.exports(module).map((e) => e.name));
  for (const k of ['memory', 'abi_version', 'alloc', 'dealloc', 'solve']) {
    if (!names.has(k)) throw new SolverError('load_failed', `solver module lacks export ${k}`);
  }
}

/**
 * Deadlines in the encoding of ABI 1–3 and of the native CLI's files (solver-rs/src/bin/solve.rs):
 * -1 none, a deadline already past counted from 0 (the search's reading of ABI 4's deadlines).
 */
export function legacyDeadlines(deadlineS: Int32Array): Int32Array {
  return deadlineS.map((d) => (d === NO_DEADLINE ? -1 : Math.max(0, d)));
}

/** STOP_FIELDS entries per stop from `at`: the module's StopTimes. */
export function readStopTimes(out: Float64Array, at: number, count: number): StopTimes[] {
  return Array.from({ length: count }, (_, k) => {
    const f = at + STOP_FIELDS * k;
    return {
      arrivalS: out[f]!,
      waitS: out[f + 1]!,
      startS: out[f + 2]!,
      departureS: out[f + 3]!,
      latenessS: out[f + 4]!,
    };
  });
}

/** A route output of ABI 4 (or ABI 1–3's shorter one, without times). */
function readRouteOut(out: Float64Array, n: number, withTimes: boolean): Omit<SolveResult, 'solveMs'> {
  const result: Omit<SolveResult, 'solveMs'> = {
    order: Array.from(out.subarray(ROUTE_OUT_HEAD, ROUTE_OUT_HEAD + n)),
    latenessS: out[0]!,
    durationS: out[1]!,
    iterations: out[2]!,
  };
  if (withTimes) {
    const stops = readStopTimes(out, ROUTE_OUT_HEAD + n, n);
    const times: RouteTimes = { departureS: 0, stops, endS: out[1]!, durationS: out[1]!, latenessS: out[0]! };
    result.times = times;
  }
  return result;
}

/** f64 entries of a route output with n stops for a module of this version. */
function routeOutLength(abiVersion: number, n: number): number {
  return abiVersion >= 4 ? ROUTE_OUT_HEAD + n + STOP_FIELDS * n : ROUTE_OUT_HEAD + n;
}

/**
 * One instance of the module. Not re-entrant. After a trap the instance must
 * be discarded (see `WasmSolver.solve`'s caller): its memory may be corrupt.
 */
export class WasmSolver {
  readonly exports: SolverExports;
  readonly abiVersion: number;
  /** The module's clock (ms). */
  readonly clock: () => number;

  constructor(module: WebAssembly.Module, options: WasmSolverOptions = {}) {
    const clock = options.clock ?? (() => performance.now());
    this.clock = clock;
    const instance = new WebAssembly.Instance(module, solverImports(options.moduleClock ?? clock, options.onImprove));
    this.exports = instance.exports as unknown as SolverExports;
    const v = this.exports.abi_version();
    if (!SUPPORTED_ABI_VERSIONS.includes(v)) {
      throw new SolverError(
        'load_failed',
        `solver ABI version ${v}, expected one of ${SUPPORTED_ABI_VERSIONS.join(', ')}`,
      );
    }
    this.abiVersion = v;
  }

  /** Can this module report operator counters and improvement events? */
  get canReport(): boolean {
    return this.abiVersion >= 2 && typeof this.exports.solve_with_report === 'function';
  }

  /** Can this module plan fleets (`solve_fleet`, ABI 3)? */
  get canPlanFleets(): boolean {
    return this.abiVersion >= 3 && typeof this.exports.solve_fleet === 'function';
  }

  /** Does this module time the stops (ABI 4: `times` in results, `evaluate_route`)? */
  get canTime(): boolean {
    return this.abiVersion >= 4 && typeof this.exports.evaluate_route === 'function';
  }

  /** The deadlines as this module reads them. */
  private deadlines(p: SolveProblem): Int32Array {
    return this.abiVersion >= 4 ? p.deadlineS : legacyDeadlines(p.deadlineS);
  }

  /** Solve; throws SolverError('invalid_input') on a bad status. Traps propagate as WebAssembly.RuntimeError. */
  solve(p: SolveProblem, o: SolveOptions = {}): SolveResult {
    checkProblem(p, o);
    const n = p.size - 1 - (p.hasEnd ? 1 : 0);
    const e = this.exports;
    const wantReport = o.report === true && this.canReport;
    const outLength = routeOutLength(this.abiVersion, n);
    let solveMs = 0;
    const [out, report, events] = callModule(
      e,
      [p.durations, p.serviceS, this.deadlines(p)],
      [outLength, wantReport ? REPORT_LEN : 0, wantReport ? 4 * EVENT_CAPACITY : 0],
      ([dPtr, sPtr, lPtr], [outPtr, reportPtr, eventsPtr]) => {
        const args = [
          dPtr!,
          p.size,
          sPtr!,
          lPtr!,
          p.hasEnd ? 1 : 0,
          (o.seed ?? 1) >>> 0,
          o.timeLimitMs ?? 0,
          o.maxIterations ?? 0,
          o.stallIterations ?? 0,
          outPtr!,
        ] as const;
        const t0 = this.clock();
        const status = wantReport
          ? e.solve_with_report!(...args, reportPtr!, REPORT_LEN, eventsPtr!, EVENT_CAPACITY)
          : e.solve(...args);
        solveMs = this.clock() - t0;
        return status;
      },
      'the problem',
    );
    const result: SolveResult = { ...readRouteOut(out!, n, this.abiVersion >= 4), solveMs };
    if (wantReport) result.report = readReport(report!, events!);
    return result;
  }

  /**
   * The times of `order` (0-based stop indices, a permutation) on problem `p`, without a search
   * (`evaluate_route`, ABI 4; SolverError 'unsupported' on older modules).
   */
  evaluate(p: SolveProblem, order: readonly number[]): RouteTimes {
    if (!this.canTime)
      throw new SolverError(
        'unsupported',
        `solver module of ABI version ${this.abiVersion} cannot time a route (needs 4)`,
      );
    checkProblem(p);
    const n = p.size - 1 - (p.hasEnd ? 1 : 0);
    if (order.length !== n || order.some((s) => !Number.isInteger(s) || s < 0 || s >= n)) {
      throw invalid(Status.BAD_ORDER, `order must list each of the ${n} stops once`);
    }
    const e = this.exports;
    const [out] = callModule(
      e,
      [p.durations, p.serviceS, p.deadlineS, Uint32Array.from(order)],
      [routeOutLength(this.abiVersion, n)],
      ([dPtr, sPtr, lPtr, orderPtr], [outPtr]) =>
        e.evaluate_route!(dPtr!, p.size, sPtr!, lPtr!, p.hasEnd ? 1 : 0, orderPtr!, outPtr!),
      'the route',
    );
    return readRouteOut(out!, n, true).times!;
  }

  trapForTest(): void {
    this.exports.trap_for_test();
  }
}

function readReport(r: Float64Array, ev: Float64Array): SolveReport {
  const written = r[3]!;
  const improvements = [];
  for (let k = 0; k < written; k++) {
    improvements.push({
      ms: ev[4 * k]!,
      iteration: ev[4 * k + 1]!,
      latenessS: ev[4 * k + 2]!,
      durationS: ev[4 * k + 3]!,
    });
  }
  const operators = {} as Record<OperatorName, OperatorCounter>;
  OPERATOR_NAMES.forEach((name, k) => {
    operators[name] = { tried: r[4 + 3 * k]!, improving: r[5 + 3 * k]!, applied: r[6 + 3 * k]! };
  });
  return { finalIteration: r[0]!, msToFinal: r[1]!, improvementsTotal: r[2]!, improvements, operators };
}
