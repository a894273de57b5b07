/**
 * Solving with a WebAssembly build: one fresh module instance per solve (no
 * state carried between runs).
 *
 * Which ABI: a module whose abi_version() is the one src/solver/abi.ts speaks
 * goes through the service's own marshalling (WasmSolver), so whatever that
 * layer returns (improvement events, the time the final route was reached)
 * reaches the report. A module of ABI 1 that the service no longer speaks
 * (an old build compared with a new one) goes through the frozen ABI-1 reader
 * below. ABI 1 reports neither events nor the time to the final route: the
 * report then samples the anytime curve from the budgets and says so.
 */
import { SUPPORTED_ABI_VERSIONS, WasmSolver, legacyDeadlines } from '../../../src/solver/abi.ts';
import type { SolveProblem } from '../../../src/solver/types.ts';
import type { ImprovementEvent, SolveOutcome } from './types.ts';

export interface WasmSolveOptions {
  seed: number;
  budgetMs: number;
  /** Cap on search iterations (0 = none); with budgetMs 0 the solve is deterministic (tests). */
  maxIterations?: number;
}

/** The module's ABI version (instantiated with no-op imports, nothing runs but the getter). */
export function moduleAbiVersion(module: WebAssembly.Module): number {
  const imports: Record<string, Record<string, () => number>> = {};
  for (const imp of WebAssembly.Module.imports(module)) {
    if (imp.kind !== 'function')
      throw new Error(`solver module imports a ${imp.kind} (${imp.module}.${imp.name}): unsupported`);
    (imports[imp.module] ??= {})[imp.name] = () => 0;
  }
  const inst = new WebAssembly.Instance(module, imports);
  const getter = inst.exports.abi_version;
  if (typeof getter !== 'function') throw new Error('solver module has no abi_version export');
  return Number((getter as () => number)());
}

export function wasmSolve(
  module: WebAssembly.Module,
  abiVersion: number,
  problem: SolveProblem,
  o: WasmSolveOptions,
): SolveOutcome {
  // ABI 2 and later share the single-route exports and their report
  if (abiVersion >= 2 && SUPPORTED_ABI_VERSIONS.includes(abiVersion)) {
    const t0 = performance.now();
    // report: the solver's improvement events and the time it first reached its final route (ABI 2)
    const r = new WasmSolver(module).solve(problem, {
      seed: o.seed,
      timeLimitMs: o.budgetMs,
      maxIterations: o.maxIterations ?? 0,
      report: true,
    });
    const elapsedMs = performance.now() - t0;
    const extra: Record<string, unknown> = {
      ...(r as unknown as Record<string, unknown>),
      ...(r.report ? { improvements: r.report.improvements, timeToFinalMs: r.report.msToFinal } : {}),
    };
    const events = readEvents(extra.events ?? extra.improvements);
    return {
      order: r.order,
      reported: { latenessS: r.latenessS, durationS: r.durationS },
      elapsedMs,
      timeToFinalMs: readTimeToFinal(extra) ?? (events && events.length > 0 ? events[events.length - 1].ms : null),
      events,
      iterations: r.iterations,
    };
  }
  if (abiVersion === 1) return solveAbi1(module, problem, o);
  throw new Error(
    `solver module speaks ABI ${abiVersion}; this checkout reads ABI ${SUPPORTED_ABI_VERSIONS.join(', ')}`,
  );
}

function readTimeToFinal(r: Record<string, unknown>): number | null {
  for (const k of ['timeToFinalMs', 'finalAtMs', 'timeToBestMs', 'bestAtMs', 'bestMs']) {
    const v = r[k];
    if (typeof v === 'number' && Number.isFinite(v) && v >= 0) return v;
  }
  return null;
}

/**
 * Improvement events as the solver layer returns them, in any of the shapes
 * {ms|elapsedMs|timeMs, latenessS?, durationS} or {ms, cost: {lateness, duration}} (objects), [ms, lateness, duration]
 * / [ms, duration] (tuples), or a flat numeric buffer of [ms, lateness, duration]
 * triples; null when absent. Sorted by time.
 */
export function readEvents(raw: unknown): ImprovementEvent[] | null {
  if (raw === undefined || raw === null) return null;
  if (!Array.isArray(raw) && !ArrayBuffer.isView(raw)) throw new Error('solver events are not an array');
  let list = Array.from(raw as ArrayLike<unknown>);
  // a flat numeric buffer (as read from linear memory): consecutive [ms, lateness, duration] triples
  if (list.length > 0 && list.every((x) => typeof x === 'number')) {
    if (list.length % 3 !== 0)
      throw new Error(`solver events: a flat buffer of ${list.length} numbers is not [ms, lateness, duration] triples`);
    list = Array.from({ length: list.length / 3 }, (_, k) => list.slice(3 * k, 3 * k + 3));
  }
  const events = list.map((e): ImprovementEvent => {
    if (Array.isArray(e) || ArrayBuffer.isView(e)) {
      const t = Array.from(e as ArrayLike<number>);
      return t.length >= 3
        ? { ms: t[0], latenessS: t[1], durationS: t[2] }
        : { ms: t[0], latenessS: 0, durationS: t[1] };
    }
    const o = e as Record<string, unknown>;
    // the cost inline, or nested as {cost: {lateness, duration}} (the crate's Improvement)
    const c = (typeof o.cost === 'object' && o.cost !== null ? o.cost : o) as Record<string, number>;
    const ms = (o.ms ?? o.elapsedMs ?? o.timeMs) as number;
    const durationS = c.durationS ?? c.duration ?? (typeof o.cost === 'number' ? o.cost : undefined);
    return { ms, latenessS: c.latenessS ?? c.lateness ?? 0, durationS };
  });
  for (const e of events) {
    if (![e.ms, e.latenessS, e.durationS].every((x) => typeof x === 'number' && Number.isFinite(x))) {
      throw new Error(`solver event has no finite time and cost: ${JSON.stringify(e)}`);
    }
  }
  return events.sort((a, b) => a.ms - b.ms);
}

// ---- frozen reader of ABI 1 (solver-rs/src/ffi.rs at ABI_VERSION 1) ----

interface Abi1Exports {
  memory: WebAssembly.Memory;
  alloc(size: number, align: number): number;
  solve(
    d: number,
    size: number,
    svc: number,
    dl: number,
    hasEnd: number,
    seed: number,
    limitMs: number,
    maxIter: number,
    stall: number,
    out: number,
  ): number;
}

export function solveAbi1(module: WebAssembly.Module, p: SolveProblem, o: WasmSolveOptions): SolveOutcome {
  const inst = new WebAssembly.Instance(module, { env: { now_ms: () => performance.now(), on_improve: () => {} } });
  const e = inst.exports as unknown as Abi1Exports;
  const put = (a: Int32Array): number => {
    if (a.length === 0) return 0;
    const ptr = e.alloc(a.byteLength, 4);
    if (ptr === 0) throw new Error('solver out of memory');
    new Uint8Array(e.memory.buffer).set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), ptr);
    return ptr;
  };
  const n = p.size - 1 - (p.hasEnd ? 1 : 0);
  const d = put(p.durations);
  const s = put(p.serviceS);
  const l = put(legacyDeadlines(p.deadlineS));
  const out = e.alloc((3 + n) * 8, 8);
  if (out === 0) throw new Error('solver out of memory');
  const t0 = performance.now();
  const status = e.solve(d, p.size, s, l, p.hasEnd ? 1 : 0, o.seed >>> 0, o.budgetMs, o.maxIterations ?? 0, 0, out);
  const elapsedMs = performance.now() - t0;
  if (status !== 0) throw new Error(`solver rejected the problem: status ${status}`);
  // the instance is dropped after this solve: no need to free
  const r = new Float64Array(e.memory.buffer, out, 3 + n);
  return {
    order: Array.from(r.subarray(3)),
    reported: { latenessS: r[0], durationS: r[1] },
    elapsedMs,
    timeToFinalMs: null,
    events: null,
    iterations: r[2],
  };
}
