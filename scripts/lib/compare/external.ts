/**
 * Adapters for external solvers, used when their binaries are on PATH:
 * LKH-3 (`LKH`), Concorde's chained Lin–Kernighan (`linkern`), VROOM (`vroom`)
 * and OR-Tools (python3 with the `ortools` package, through ortools_solve.py).
 * Each writes the instance in the solver's own format, runs it with the
 * budget, reads the route back; the caller scores it with our evaluator, so
 * every row of the report is measured the same way.
 *
 * The budget: every solver is told to search for the whole budget (LKH-3 and
 * linkern get an unbounded number of trials/kicks and the time limit); the
 * elapsed time recorded is the whole process, from spawn to exit.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { NO_DEADLINE } from '../../../src/solver/abi-constants.generated.ts';
import type { SolveProblem } from '../../../src/solver/types.ts';
import type { BenchInstance, SolveOutcome } from './types.ts';

export type ExternalName = 'lkh' | 'linkern' | 'vroom' | 'ortools';

export interface ExternalSolver {
  label: string;
  /** The sentence after "skipped," when it cannot run here. */
  missing: string;
  locate(which: (cmd: string) => string | null): { path: string; version: string; hashFile?: string } | null;
  /** null when the instance can be solved; otherwise why not (one line). */
  unsupported(inst: BenchInstance): string | null;
  solve(path: string, inst: BenchInstance, o: { seed: number; budgetMs: number }, dir: string): SolveOutcome;
}

const ORTOOLS_SCRIPT = fileURLToPath(new URL('./ortools_solve.py', import.meta.url));

export const EXTERNAL_SOLVERS: Record<ExternalName, ExternalSolver> = {
  lkh: {
    label: 'LKH-3',
    missing: 'LKH (LKH-3) is not on PATH',
    locate: (which) => located(which('LKH')),
    unsupported: (inst) => symmetricTourReason(inst, 'LKH-3'),
    solve(path, inst, o, dir) {
      const problemFile = join(dir, 'problem.tsp');
      const tourFile = join(dir, 'problem.tour');
      writeFileSync(problemFile, tsplibText(inst));
      writeFileSync(
        join(dir, 'problem.par'),
        [
          `PROBLEM_FILE = ${problemFile}`,
          `OUTPUT_TOUR_FILE = ${tourFile}`,
          'RUNS = 1',
          `SEED = ${o.seed}`,
          'MAX_TRIALS = 1000000000',
          `TIME_LIMIT = ${(o.budgetMs / 1000).toFixed(3)}`,
          'TRACE_LEVEL = 0',
          '',
        ].join('\n'),
      );
      const elapsedMs = run(path, [join(dir, 'problem.par')], dir, o.budgetMs);
      return fromTour(inst.problem, readTsplibTour(readFileSync(tourFile, 'utf8')), elapsedMs);
    },
  },
  linkern: {
    label: 'linkern',
    missing: 'linkern (Concorde) is not on PATH',
    locate: (which) => located(which('linkern')),
    unsupported: (inst) => symmetricTourReason(inst, 'linkern'),
    solve(path, inst, o, dir) {
      const problemFile = join(dir, 'problem.tsp');
      const tourFile = join(dir, 'problem.edges');
      writeFileSync(problemFile, tsplibText(inst));
      const args = [
        '-s',
        String(o.seed),
        '-t',
        (o.budgetMs / 1000).toFixed(3),
        '-R',
        '1000000000',
        '-o',
        tourFile,
        problemFile,
      ];
      const elapsedMs = run(path, args, dir, o.budgetMs);
      return fromTour(inst.problem, readEdgeTour(readFileSync(tourFile, 'utf8')), elapsedMs);
    },
  },
  vroom: {
    label: 'VROOM',
    missing: 'vroom is not on PATH',
    locate: (which) => located(which('vroom')),
    unsupported: () => null,
    solve(path, inst, o, dir) {
      const input = join(dir, 'input.json');
      const output = join(dir, 'output.json');
      writeFileSync(input, JSON.stringify(vroomInput(inst.problem)));
      const args = ['-i', input, '-o', output, '-t', '1', '-l', (o.budgetMs / 1000).toFixed(3)];
      const elapsedMs = run(path, args, dir, o.budgetMs);
      return {
        order: readVroomOrder(readFileSync(output, 'utf8'), inst.problem),
        elapsedMs,
        timeToFinalMs: null,
        events: null,
      };
    },
  },
  ortools: {
    label: 'OR-Tools',
    missing: 'python3 with the ortools package is not available',
    locate: (which) => {
      const py = which('python3');
      if (!py) return null;
      const probe = spawnSync(py, ['-c', 'import ortools; print(ortools.__version__)'], { encoding: 'utf8' });
      if (probe.status !== 0) return null;
      return { path: py, version: `ortools ${probe.stdout.trim()}`, hashFile: ORTOOLS_SCRIPT };
    },
    unsupported: () => null,
    solve(path, inst, o, dir) {
      const input = join(dir, 'input.json');
      const output = join(dir, 'output.json');
      const p = inst.problem;
      writeFileSync(
        input,
        JSON.stringify({
          size: p.size,
          hasEnd: p.hasEnd,
          durations: Array.from(p.durations),
          serviceS: Array.from(p.serviceS),
          deadlineS: Array.from(p.deadlineS),
          seed: o.seed,
          budgetMs: o.budgetMs,
        }),
      );
      const elapsedMs = run(path, [ORTOOLS_SCRIPT, input, output], dir, o.budgetMs);
      const out = JSON.parse(readFileSync(output, 'utf8')) as { order: number[] };
      return { order: out.order, elapsedMs, timeToFinalMs: null, events: null };
    },
  },
};

function located(path: string | null) {
  return path ? { path, version: 'on PATH' } : null;
}

/** Spawns the solver; allows it 5 × the budget + 30 s before killing it. Returns the elapsed ms. */
function run(cmd: string, args: string[], cwd: string, budgetMs: number): number {
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', timeout: 5 * budgetMs + 30_000, maxBuffer: 64 << 20 });
  const elapsedMs = performance.now() - t0;
  if (r.error) throw new Error(`${cmd}: ${r.error.message}`);
  if (r.status !== 0)
    throw new Error(
      `${cmd} exited with ${r.status ?? r.signal}: ${(r.stderr || r.stdout).trim().split('\n').slice(-3).join(' | ')}`,
    );
  return elapsedMs;
}

/**
 * TSP solvers take a tour over start + stops: valid only for a closed route whose end
 * is the start (same travel times) on a symmetric matrix, without deadlines.
 */
function symmetricTourReason(inst: BenchInstance, who: string): string | null {
  const p = inst.problem;
  if (inst.hasDeadlines) return `${who} adapter solves plain tours: instances with deadlines are not run`;
  if (!p.hasEnd) return `${who} adapter solves closed tours only`;
  const m = p.size;
  const e = m - 1;
  for (let i = 1; i < e; i++) {
    if (p.durations[i * m + e] !== p.durations[i * m] || p.durations[e * m + i] !== p.durations[i])
      return `${who}: the end point is not the start point`;
  }
  for (let i = 0; i < e; i++) {
    for (let j = i + 1; j < e; j++)
      if (p.durations[i * m + j] !== p.durations[j * m + i]) return `${who} adapter needs a symmetric matrix`;
  }
  return null;
}

/** TSPLIB text over nodes 0..m-2 (the end node, a copy of the start, is dropped). */
export function tsplibText(inst: BenchInstance): string {
  const p = inst.problem;
  const dim = p.size - 1;
  const head = [`NAME : ${inst.name.replace(/[^\w.-]/g, '_')}`, 'TYPE : TSP', `DIMENSION : ${dim}`];
  if (inst.euc2d) {
    const lines = inst.euc2d.slice(0, dim).map(([x, y], i) => `${i + 1} ${x} ${y}`);
    return [...head, 'EDGE_WEIGHT_TYPE : EUC_2D', 'NODE_COORD_SECTION', ...lines, 'EOF', ''].join('\n');
  }
  const rows: string[] = [];
  for (let i = 0; i < dim; i++) rows.push(Array.from(p.durations.subarray(i * p.size, i * p.size + dim)).join(' '));
  return [
    ...head,
    'EDGE_WEIGHT_TYPE : EXPLICIT',
    'EDGE_WEIGHT_FORMAT : FULL_MATRIX',
    'EDGE_WEIGHT_SECTION',
    ...rows,
    'EOF',
    '',
  ].join('\n');
}

/** TOUR_SECTION of a TSPLIB tour file: 1-based node ids ending with -1 → 0-based. */
export function readTsplibTour(text: string): number[] {
  const at = text.indexOf('TOUR_SECTION');
  if (at < 0) throw new Error('tour file has no TOUR_SECTION');
  const tour: number[] = [];
  for (const tok of text.slice(at + 'TOUR_SECTION'.length).split(/\s+/)) {
    if (tok === '') continue;
    if (tok === '-1' || tok === 'EOF') break;
    tour.push(Number(tok) - 1);
  }
  return tour;
}

/** Concorde edge file ("ncount ecount", then "a b w" in tour order) → node sequence. */
export function readEdgeTour(text: string): number[] {
  const lines = text
    .trim()
    .split(/\r?\n/)
    .map((l) => l.trim().split(/\s+/).map(Number));
  const [count] = lines[0];
  const next = new Map<number, number[]>();
  for (const [a, b] of lines.slice(1)) {
    next.set(a, [...(next.get(a) ?? []), b]);
    next.set(b, [...(next.get(b) ?? []), a]);
  }
  const tour = [0];
  let prev = -1;
  let cur = 0;
  while (tour.length < count) {
    const nb = (next.get(cur) ?? []).find((x) => x !== prev);
    if (nb === undefined) throw new Error('edge file is not a tour');
    prev = cur;
    cur = nb;
    tour.push(cur);
  }
  return tour;
}

/** A cyclic tour over start + stops (node 0 = start) → stop order. */
function fromTour(p: SolveProblem, tour: number[], elapsedMs: number): SolveOutcome {
  const at = tour.indexOf(0);
  if (at < 0 || tour.length !== p.size - 1)
    throw new Error(`solver returned a tour of ${tour.length} nodes, expected ${p.size - 1}`);
  const rotated = [...tour.slice(at), ...tour.slice(0, at)];
  return { order: rotated.slice(1).map((v) => v - 1), elapsedMs, timeToFinalMs: null, events: null };
}

/** VROOM input: one vehicle from node 0 (to the end node when there is one), deadlines as time windows [0, deadline]. */
export function vroomInput(p: SolveProblem) {
  const m = p.size;
  const rows = Array.from({ length: m }, (_, i) => Array.from(p.durations.subarray(i * m, (i + 1) * m)));
  const n = m - 1 - (p.hasEnd ? 1 : 0);
  const jobs = Array.from({ length: n }, (_, s) => ({
    id: s + 1,
    location_index: s + 1,
    service: p.serviceS[s],
    ...(p.deadlineS[s] !== NO_DEADLINE ? { time_windows: [[0, p.deadlineS[s]]] } : {}),
  }));
  return {
    vehicles: [{ id: 1, profile: 'car', start_index: 0, ...(p.hasEnd ? { end_index: m - 1 } : {}) }],
    jobs,
    matrices: { car: { durations: rows } },
  };
}

export function readVroomOrder(text: string, p: SolveProblem): number[] {
  const out = JSON.parse(text) as {
    code?: number;
    error?: string;
    unassigned?: unknown[];
    routes?: Array<{ steps: Array<{ type: string; id?: number }> }>;
  };
  if (out.code !== undefined && out.code !== 0) throw new Error(`vroom error ${out.code}: ${out.error ?? ''}`);
  if (out.unassigned && out.unassigned.length > 0)
    throw new Error(`vroom left ${out.unassigned.length} stops unassigned (its deadlines are hard time windows)`);
  const steps = out.routes?.[0]?.steps ?? [];
  const order = steps.filter((s) => s.type === 'job').map((s) => (s.id as number) - 1);
  if (order.length !== p.size - 1 - (p.hasEnd ? 1 : 0)) throw new Error(`vroom route has ${order.length} stops`);
  return order;
}
