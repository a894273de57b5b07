/**
 * The embedded geocoder: an offline French gazetteer (data/gazetteer/fr-communes.json, built by
 * scripts/build-gazetteer.ts) matched on postal code + city name. The street is ignored, so every
 * result has commune precision ('municipality'); in Paris, Lyon and Marseille it is the municipal
 * arrondissement given by the postal code.
 *
 * Matching, for the entries of the (normalised) postal code:
 *   1. exact match of the normalised city name (see normalise.ts: case, accents, hyphens,
 *      apostrophes, spaces, St/Ste → Saint/Sainte, trailing CEDEX) against the commune name, or the
 *      name of a former commune (déléguée/associée) now part of a commune with that postal code;
 *   2. Paris/Lyon/Marseille: "Paris", "Paris 4", "Paris 04", "Paris 4e", "Paris 4ème",
 *      "Paris IV", "Paris 4e arrondissement" with 75004 all give the 4th arrondissement point.
 *      The postal code decides the arrondissement (75004 + "Paris 5e" → 4th);
 *   3. documented tolerance: when there is no exact match, a single candidate of that postal code
 *      whose name is close (edit distance ≤ 1 for names up to 8 characters, ≤ 2 beyond; or one
 *      name is the other plus extra whole words, e.g. "Boulogne" for "Boulogne-Billancourt")
 *      is accepted. Two or more close candidates → null (ambiguous).
 *   Anything else → null (not found): an unknown postal code, or a name matching no commune of it.
 */
import { readFile } from 'node:fs/promises';
import { assetPath } from '../../assets.js';
import { normaliseName, normalisePostalCode } from './normalise.js';
import type { Address, GeocodeResult, Geocoder } from './types.js';

/** Logged by the app at start-up when the embedded geocoder is in the chain. */
export const EMBEDDED_GEOCODER_NOTICE =
  'Geocoder "embedded": addresses are located at commune precision only (the centre of the commune, ' +
  'or of the municipal arrondissement in Paris, Lyon and Marseille), from the postal code and city; ' +
  'the street is ignored. Travel times between stops of the same commune are therefore unreliable. ' +
  'For street-level positions put a street-level geocoder first in the chain: GEOCODER=geoplateforme,embedded ' +
  '(the default: the IGN Géoplateforme service, BAN data), GEOCODER=ban,embedded with a self-hosted addok (BAN_URL) ' +
  'or GEOCODER=nominatim,embedded with a Nominatim base URL.';

export const DEFAULT_GAZETTEER_PATH = assetPath('gazetteer/fr-communes.json');

type RawEntry = [string, number, number, string] | [string, number, number, string, 'arr' | 'old', string];
interface RawGazetteer {
  format: number;
  postalCodes: Record<string, RawEntry[]>;
}

export interface GazetteerEntry {
  name: string;
  latitude: number;
  longitude: number;
  insee: string;
  kind: 'commune' | 'arrondissement' | 'former';
  /** Arrondissement: its city ("Paris"); former commune: the commune it now belongs to. */
  parent?: string;
  /** Normalised names that match this entry exactly. */
  keys: string[];
  /** Normalised parent city name (arrondissements only). */
  cityKey?: string;
  /** Arrondissement number (arrondissements only). */
  arrondissement?: number;
}

export type Gazetteer = Map<string, GazetteerEntry[]>;

const loaded = new Map<string, Promise<Gazetteer>>();

/** Loads and indexes a gazetteer file once per path (lazily, on first use). */
export function loadGazetteer(path: string = DEFAULT_GAZETTEER_PATH): Promise<Gazetteer> {
  let p = loaded.get(path);
  if (!p) {
    p = readFile(path, 'utf8').then((text) => indexGazetteer(JSON.parse(text) as RawGazetteer));
    p.catch(() => loaded.delete(path)); // allow a retry after a failed read
    loaded.set(path, p);
  }
  return p;
}

function indexGazetteer(raw: RawGazetteer): Gazetteer {
  if (raw.format !== 1) throw new Error(`unsupported gazetteer format ${String(raw.format)}`);
  const out: Gazetteer = new Map();
  for (const [pc, list] of Object.entries(raw.postalCodes)) {
    out.set(
      pc,
      list.map((e) => {
        const [name, latitude, longitude, insee] = e;
        const kind = e[4] === 'arr' ? 'arrondissement' : e[4] === 'old' ? 'former' : 'commune';
        const entry: GazetteerEntry = { name, latitude, longitude, insee, kind, keys: [normaliseName(name)] };
        if (e.length === 6) entry.parent = e[5];
        if (kind === 'arrondissement') {
          entry.cityKey = normaliseName(e[5]!);
          entry.arrondissement = Number(/ (\d+)(?:er|e) /.exec(name)?.[1]);
          entry.keys.push(entry.cityKey);
        }
        return entry;
      }),
    );
  }
  return out;
}

const ROMAN: Record<string, number> = {
  i: 1,
  ii: 2,
  iii: 3,
  iv: 4,
  v: 5,
  vi: 6,
  vii: 7,
  viii: 8,
  ix: 9,
  x: 10,
  xi: 11,
  xii: 12,
  xiii: 13,
  xiv: 14,
  xv: 15,
  xvi: 16,
  xvii: 17,
  xviii: 18,
  xix: 19,
  xx: 20,
};

/** "4", "04", "4e", "4eme", "4 eme", "4er", "1er", "iv", optionally followed by "arrondissement"/"arr"/"arrdt". */
function isArrondissementDesignator(rest: string): boolean {
  const words = rest.split(' ').filter((w) => w.length > 0);
  if (words.length === 0) return true;
  const last = words[words.length - 1]!;
  if (['arrondissement', 'arr', 'arrt', 'arrdt', 'ardt'].includes(last)) words.pop();
  if (words.length === 0) return false;
  const joined = words.join('');
  return /^\d{1,2}(e|er|ere|eme|ieme|em)?$/.test(joined) || ROMAN[joined] !== undefined;
}

export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      cur.push(v);
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > max) return max + 1;
    prev = cur;
  }
  return prev[b.length]!;
}

function isClose(input: string, key: string): boolean {
  const max = Math.min(input.length, key.length) <= 8 ? 1 : 2;
  if (editDistance(input, key, max) <= max) return true;
  // one is the other plus whole words ("boulogne" / "boulogne billancourt")
  return key.startsWith(`${input} `) || input.startsWith(`${key} `);
}

/** Finds the entry for a postal code + city name in an indexed gazetteer (null when not found). */
export function matchGazetteer(g: Gazetteer, postalCode: string, city: string): GazetteerEntry | null {
  const list = g.get(normalisePostalCode(postalCode));
  if (!list || list.length === 0) return null;
  const name = normaliseName(city);
  if (name.length === 0) return null;
  const exact = list.filter((e) => e.keys.includes(name));
  if (exact.length > 0) return exact.find((e) => e.kind !== 'former') ?? exact[0]!;
  const arr = list.find(
    (e) =>
      e.kind === 'arrondissement' &&
      name.startsWith(`${e.cityKey!} `) &&
      isArrondissementDesignator(name.slice(e.cityKey!.length)),
  );
  if (arr) return arr;
  const close = list.filter((e) => e.keys.some((k) => isClose(name, k)));
  // several entries may be the same place (a commune and its former commune at the same point); ambiguity
  // is about distinct communes
  const distinct = new Set(close.map((e) => (e.kind === 'former' ? e.parent : e.name)));
  if (distinct.size === 1) return close.find((e) => e.kind !== 'former') ?? close[0]!;
  return null;
}

export interface EmbeddedGeocoderSettings {
  /** Gazetteer file; default data/gazetteer/fr-communes.json in this repository. */
  path?: string;
}

export class EmbeddedGeocoder implements Geocoder {
  readonly name = 'embedded';
  private readonly path: string;

  constructor(settings: EmbeddedGeocoderSettings = {}) {
    this.path = settings.path ?? DEFAULT_GAZETTEER_PATH;
  }

  /** Loads the gazetteer now instead of on the first request (optional, e.g. at start-up). */
  async warmUp(): Promise<void> {
    await loadGazetteer(this.path);
  }

  async geocode(a: Address): Promise<GeocodeResult> {
    const g = await loadGazetteer(this.path);
    const e = matchGazetteer(g, a.postalCode, a.city);
    if (!e) return null;
    return {
      latitude: e.latitude,
      longitude: e.longitude,
      precision: 'municipality',
      provider: this.name,
      label: `${normalisePostalCode(a.postalCode)} ${e.name}`,
    };
  }
}
