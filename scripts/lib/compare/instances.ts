/** Turns the manifest's entries into solver problems. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { HaversineProvider } from '../../../src/geo/routing/haversine.js';
import { NO_DEADLINE } from '../../../src/solver/abi-constants.generated.js';
import { closedTourProblem, parseTsplib } from '../tsplib.js';
import { plantedInstance } from '../planted.js';
import { ROOT, type CityEntry, type Manifest } from './manifest.js';
import type { BenchInstance, SetName } from './types.js';

export function loadSet(m: Manifest, set: SetName): BenchInstance[] {
  switch (set) {
    case 'tsplib':
      return m.sets.tsplib.instances.map((e) => {
        const inst = parseTsplib(readFileSync(join(ROOT, e.file), 'utf8'), e.name);
        // the closed-tour problem's end node is a copy of city 0
        const euc2d = [...inst.coords, inst.coords[0]];
        return {
          set,
          name: e.name,
          n: e.n,
          problem: closedTourProblem(inst),
          euc2d,
          reference: e.optimum,
          referenceKind: 'optimum',
          hasDeadlines: false,
        };
      });
    case 'deadlines': {
      const families = new Map(m.sets.deadlines.families.map((f) => [f.name, f]));
      return m.sets.deadlines.instances.map((e) => {
        const f = families.get(e.family);
        if (!f) throw new Error(`manifest: deadline instance ${e.name} names an unknown family ${e.family}`);
        const { problem, plantedDuration } = plantedInstance(f, e.seed);
        if (plantedDuration !== e.bestKnown) {
          throw new Error(
            `manifest: ${e.name} planted duration ${plantedDuration} != stored ${e.bestKnown}; the generator changed, run npx tsx scripts/build-bench-manifest.ts`,
          );
        }
        return {
          set,
          name: e.name,
          n: e.n,
          problem,
          reference: e.bestKnown,
          referenceKind: 'planted',
          hasDeadlines: true,
        };
      });
    }
    case 'city':
      return m.sets.city.instances.map((e) => ({
        set,
        name: e.name,
        n: e.n,
        problem: cityProblem(e),
        referenceKind: 'best-found',
        hasDeadlines: false,
      }));
  }
}

/** Closed tour from the depot over the stops, travel times from the built-in model. */
export function cityProblem(e: CityEntry): BenchInstance['problem'] {
  const model = new HaversineProvider();
  const pts = [e.depot, ...e.stops, e.depot].map((p) => ({ latitude: p.lat, longitude: p.lon }));
  const m = pts.length;
  const durations = new Int32Array(m * m);
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < m; j++) if (i !== j) durations[i * m + j] = model.leg(pts[i], pts[j]).durationS;
  }
  return {
    durations,
    size: m,
    serviceS: new Int32Array(e.n),
    deadlineS: new Int32Array(e.n).fill(NO_DEADLINE),
    hasEnd: true,
  };
}
