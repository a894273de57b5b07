/** TSPLIB EUC_2D helpers for the solver benchmarks. */
import { readFileSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';

import { NO_DEADLINE } from '../../src/solver/abi-constants.generated.ts';

export interface TsplibInstance {
  name: string;
  coords: Array<[number, number]>;
}

export function parseTsplib(text: string, fallbackName = ''): TsplibInstance {
  let name = fallbackName;
  const coords: Array<[number, number]> = [];
  let inCoords = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '') continue;
    if (inCoords) {
      if (line === 'EOF' || !/^[-\d]/.test(line)) {
        inCoords = false;
        continue;
      }
      const f = line.split(/\s+/);
      coords.push([Number(f[1]), Number(f[2])]);
    } else if (line.startsWith('NAME')) {
      name = line.split(':').slice(1).join(':').trim() || name;
    } else if (line.startsWith('EDGE_WEIGHT_TYPE')) {
      const t = line.split(':')[1]?.trim();
      if (t !== 'EUC_2D') throw new Error(`${name}: unsupported EDGE_WEIGHT_TYPE ${t}`);
    } else if (line.startsWith('NODE_COORD_SECTION')) {
      inCoords = true;
    }
  }
  return { name, coords };
}

/** TSPLIB nint(sqrt(dx² + dy²)) = (int)(x + 0.5). */
export function euc2d(a: [number, number], b: [number, number]): number {
  const dx = a[0] - b[0];
  const dy = a[1] - b[1];
  return Math.floor(Math.sqrt(dx * dx + dy * dy) + 0.5);
}

/**
 * Closed tour from node 0 as a solver problem: start = node 0, stops = nodes
 * 1..N-1 (stop k is node k+1), end = a copy of node 0; size N + 1.
 */
export function closedTourProblem(inst: TsplibInstance) {
  const N = inst.coords.length;
  const m = N + 1;
  const ext = (i: number) => (i === N ? 0 : i);
  const durations = new Int32Array(m * m);
  for (let i = 0; i < m; i++)
    for (let j = 0; j < m; j++) durations[i * m + j] = euc2d(inst.coords[ext(i)], inst.coords[ext(j)]);
  return {
    durations,
    size: m,
    serviceS: new Int32Array(N - 1),
    deadlineS: new Int32Array(N - 1).fill(NO_DEADLINE),
    hasEnd: true,
  };
}

/** Tour (0-based nodes starting at 0) from a solver order over the closed-tour problem. */
export function tourFromOrder(order: number[]): number[] {
  return [0, ...order.map((s) => s + 1)];
}

export function tourLength(inst: TsplibInstance, tour: number[]): number {
  let len = 0;
  for (let k = 0; k < tour.length; k++) len += euc2d(inst.coords[tour[k]], inst.coords[tour[(k + 1) % tour.length]]);
  return len;
}

export function loadTsplibDir(dir: string): { instances: TsplibInstance[]; optima: Record<string, number> } {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.tsp'))
    .sort();
  const instances = files.map((f) => parseTsplib(readFileSync(join(dir, f), 'utf8'), basename(f, '.tsp')));
  let optima: Record<string, number> = {};
  try {
    const raw = JSON.parse(readFileSync(join(dir, 'optima.json'), 'utf8')) as Record<string, { optimum: number }>;
    optima = Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, v.optimum]));
  } catch {
    // no optima: gaps are not reported
  }
  return { instances, optima };
}
