/**
 * Deadline benchmark on planted instances: a random tour is drawn, deadlines
 * are set at or after its arrival times (so a zero-lateness route exists), and
 * the solver must find one. Reports, per family, the share of instances solved
 * with zero lateness, mean lateness, mean duration vs the planted tour, and ms.
 *
 *   npx tsx scripts/bench-deadlines.ts [--time-limit-ms N] [--count K] [--wasm FILE] [--seed S]
 *        [--stall N] [--only FAMILY,...] [--json]
 *
 * --stall N: stop after N kicks without a new best route (default 0: the solver's
 * convergence stop, as in the service; 4294967295: run to the time limit).
 *
 * Instances are generated from fixed seeds, so runs are comparable.
 */
import { resolve } from 'node:path';

import { loadSolver, DEFAULT_WASM_PATH } from '../src/solver/load.js';
import { PLANTED_FAMILIES as FAMILIES, plantedInstance } from './lib/planted.js';

function main() {
  const argv = process.argv.slice(2);
  let timeLimitMs = 1000;
  let count = 10;
  let wasm = DEFAULT_WASM_PATH;
  let seed = 1;
  let json = false;
  let stall = 0;
  let only: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    if (k === '--time-limit-ms') timeLimitMs = Number(argv[++i]);
    else if (k === '--count') count = Number(argv[++i]);
    else if (k === '--wasm') wasm = resolve(argv[++i]);
    else if (k === '--seed') seed = Number(argv[++i]);
    else if (k === '--json') json = true;
    else if (k === '--stall') stall = Number(argv[++i]);
    else if (k === '--only') only = (argv[++i] ?? '').split(',');
    else {
      console.error(`bench-deadlines: unknown argument ${k}`);
      process.exit(2);
    }
  }
  const solver = loadSolver(wasm);
  let zeroAll = 0;
  let totalAll = 0;
  if (!json) console.log(`time limit ${timeLimitMs} ms, ${count} instances per family, solver seed ${seed}`);
  if (!json)
    console.log(
      `${'family'.padEnd(16)} ${'n'.padStart(4)} ${'zero-late'.padStart(10)} ${'mean late s'.padStart(12)} ${'dur/planted'.padStart(12)} ${'mean ms'.padStart(8)}`,
    );
  let ratioAll = 0;
  let families = 0;
  FAMILIES.forEach((f, fi) => {
    if (only.length > 0 && !only.includes(f.name)) return;
    let zero = 0;
    let late = 0;
    let ratio = 0;
    let ms = 0;
    for (let k = 0; k < count; k++) {
      const { problem, plantedDuration } = plantedInstance(f, 1000 * (fi + 1) + k);
      const r = solver.solve(problem, { seed, timeLimitMs, stallIterations: stall });
      if (r.latenessS === 0) zero++;
      late += r.latenessS;
      ratio += r.durationS / plantedDuration;
      ms += r.solveMs;
    }
    zeroAll += zero;
    totalAll += count;
    ratioAll += ratio / count;
    families++;
    const row = {
      family: f.name,
      n: f.n,
      zeroLateShare: zero / count,
      meanLatenessS: late / count,
      durationVsPlanted: ratio / count,
      meanMs: ms / count,
    };
    if (json) console.log(JSON.stringify(row));
    else
      console.log(
        `${f.name.padEnd(16)} ${String(f.n).padStart(4)} ${`${zero}/${count}`.padStart(10)} ${(late / count).toFixed(0).padStart(12)} ${(ratio / count).toFixed(3).padStart(12)} ${(ms / count).toFixed(1).padStart(8)}`,
      );
  });
  if (json)
    console.log(
      JSON.stringify({ total: { zeroLateShare: zeroAll / totalAll, meanDurationVsPlanted: ratioAll / families } }),
    );
  else
    console.log(
      `overall zero-lateness share: ${zeroAll}/${totalAll} = ${((100 * zeroAll) / totalAll).toFixed(1)}%; mean dur/planted over families ${(ratioAll / families).toFixed(4)}`,
    );
}

main();
