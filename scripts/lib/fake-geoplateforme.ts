/**
 * A fake IGN Géoplateforme geocoding service for tests and bench:geocoding: node:http on 127.0.0.1, port 0, under
 * /geocodage like the real one (https://data.geopf.fr/geocodage). Shapes, from the service's
 * documentation and the addok code it runs:
 *
 * - GET /geocodage/search?q=..&postcode=..&limit=..&index=address → a GeoJSON FeatureCollection;
 *   each feature: geometry {type: "Point", coordinates: [lon, lat]}, properties label, score,
 *   housenumber, id, banId, name, postcode, citycode, x, y, city, context, type (housenumber |
 *   street | locality | municipality), importance, street, _type "address"
 *   (geoservices.ign.fr/documentation/services/services-geoplateforme/geocodage, and answers of the
 *   service kept in public test fixtures).
 * - POST /geocodage/search/csv, multipart/form-data: data (the CSV file), columns (repeated: the
 *   columns joined into the query), postcode / citycode (the column holding that filter),
 *   result_columns (repeated) → the input CSV with the result columns appended: latitude,
 *   longitude, result_label, result_score, result_type, result_id, result_housenumber, result_name,
 *   result_street, result_postcode, result_city, result_context, result_citycode, result_oldcitycode,
 *   result_oldcity, result_district, result_status (ok | not-found | …) (addok-csv's CSVSearch and
 *   addok-geocode-stream's result columns, which the Géoplateforme batch endpoint follows).
 * - More than 50 requests per second per IP → 429 (not simulated unless a test asks for it).
 *
 * The address book decides the answers: a query equal to "<housenumber> <street> <city>" of an entry
 * → that entry at its `type` (default housenumber, score 0.97); "<other number> <street> <city>" or
 * "<street> <city>" → the street (score 0.75); anything else → no feature. `respond`/`respondCsv`
 * override any answer (errors, stalls, 429 with Retry-After, malformed bodies).
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parse as parseCsv } from 'csv-parse/sync';
import { stringify as stringifyCsv } from 'csv-stringify/sync';

export interface FakeAddress {
  housenumber?: string;
  street?: string;
  postcode: string;
  city: string;
  citycode: string;
  latitude: number;
  longitude: number;
  /** What the service reports for a full match; default housenumber (street when there is no housenumber). */
  type?: 'housenumber' | 'street' | 'locality' | 'municipality';
  score?: number;
  /** locality only: the lieu-dit's name. */
  name?: string;
}

export type FakeAnswer =
  { status: number; body: unknown; headers?: Record<string, string> } | 'stall' | 'reset' | undefined;

export interface FakeRequest {
  /** performance.now() when the request arrived. */
  at: number;
  kind: 'search' | 'csv' | 'other';
  params: URLSearchParams;
  /** csv only: rows in the file. */
  rows?: number;
}

export interface FakeGeoplateforme {
  /** The service root, e.g. http://127.0.0.1:PORT/geocodage (what GEOPLATEFORME_URL takes). */
  url: string;
  addresses: FakeAddress[];
  requests: FakeRequest[];
  /** Override of GET /search answers; undefined → the address book. */
  respond: (q: URLSearchParams) => FakeAnswer;
  /** Override of POST /search/csv answers; undefined → the address book. */
  respondCsv: (fields: {
    columns: string[];
    postcode: string | null;
    resultColumns: string[];
    rows: number;
  }) => FakeAnswer;
  /** Most requests that arrived within any window of `windowMs` (the service's view of our rate). */
  maxInWindow(windowMs?: number): number;
  close(): Promise<void>;
}

const DEFAULT_RESULT_COLUMNS = [
  'latitude',
  'longitude',
  'result_label',
  'result_score',
  'result_type',
  'result_id',
  'result_housenumber',
  'result_name',
  'result_street',
  'result_postcode',
  'result_city',
  'result_context',
  'result_citycode',
  'result_oldcitycode',
  'result_oldcity',
  'result_district',
  'result_status',
];

const norm = (s: string): string =>
  s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();

interface Match {
  entry: FakeAddress;
  type: NonNullable<FakeAddress['type']>;
  score: number;
}

function find(addresses: readonly FakeAddress[], q: string, postcode: string | null): Match | null {
  const nq = norm(q);
  const candidates = addresses.filter((e) => !postcode || e.postcode === postcode);
  for (const e of candidates) {
    if (nq === norm(`${e.housenumber ?? ''} ${e.street ?? e.name ?? ''} ${e.city}`)) {
      return { entry: e, type: e.type ?? (e.housenumber ? 'housenumber' : 'street'), score: e.score ?? 0.97 };
    }
  }
  for (const e of candidates) {
    const place = norm(`${e.street ?? ''} ${e.city}`);
    if (
      e.street &&
      (nq === place || (nq.endsWith(` ${place}`) && /^\d+[a-z]?$/.test(nq.slice(0, -place.length - 1))))
    ) {
      return {
        entry: e,
        type: e.type === 'municipality' || e.type === 'locality' ? e.type : 'street',
        score: e.score ?? 0.75,
      };
    }
  }
  return null;
}

/** A feature as the service returns it (x, y: approximate Lambert-93 metres, for shape only). */
export function geoplateformeFeature(m: Match): object {
  const e = m.entry;
  const context = `${e.postcode.slice(0, 2)}, Paris, Île-de-France`;
  const x = Math.round((652_000 + (e.longitude - 2.35) * 73_000) * 100) / 100;
  const y = Math.round((6_862_000 + (e.latitude - 48.857) * 111_000) * 100) / 100;
  const common = {
    postcode: e.postcode,
    citycode: e.citycode,
    x,
    y,
    city: e.city,
    context,
    type: m.type,
    importance: 0.6,
    score: m.score,
    _type: 'address',
  };
  const streetId = `${e.citycode}_${String(Math.abs(Math.round(e.latitude * 1e4)) % 10_000).padStart(4, '0')}`;
  let properties: Record<string, unknown>;
  switch (m.type) {
    case 'housenumber':
      properties = {
        label: `${e.housenumber} ${e.street} ${e.postcode} ${e.city}`,
        housenumber: e.housenumber,
        id: `${streetId}_${e.housenumber!.padStart(5, '0')}`,
        banId: null,
        name: `${e.housenumber} ${e.street}`,
        street: e.street,
        ...common,
      };
      break;
    case 'street':
      properties = {
        label: `${e.street} ${e.postcode} ${e.city}`,
        id: streetId,
        banId: null,
        name: e.street,
        street: e.street,
        ...common,
      };
      break;
    case 'locality':
      properties = {
        label: `${e.name ?? e.street} ${e.postcode} ${e.city}`,
        id: streetId,
        banId: null,
        name: e.name ?? e.street,
        ...common,
      };
      break;
    default:
      properties = { label: e.city, id: e.citycode, banId: null, name: e.city, ...common };
  }
  return { type: 'Feature', geometry: { type: 'Point', coordinates: [e.longitude, e.latitude] }, properties };
}

export function featureCollection(features: object[]): object {
  return { type: 'FeatureCollection', features };
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function startFakeGeoplateforme(addresses: FakeAddress[] = []): Promise<FakeGeoplateforme> {
  const state = {
    addresses,
    requests: [] as FakeRequest[],
    respond: ((): FakeAnswer => undefined) as FakeGeoplateforme['respond'],
    respondCsv: ((): FakeAnswer => undefined) as FakeGeoplateforme['respondCsv'],
  };

  const search = (q: URLSearchParams): object => {
    const m = find(state.addresses, q.get('q') ?? '', q.get('postcode'));
    return featureCollection(m ? [geoplateformeFeature(m)] : []);
  };

  const csvSearch = (form: FormData, text: string): string => {
    const columns = form.getAll('columns').map(String);
    const postcodeColumn = form.get('postcode') === null ? null : String(form.get('postcode'));
    const requested = form.getAll('result_columns').map(String);
    const resultColumns = requested.length > 0 ? requested : DEFAULT_RESULT_COLUMNS;
    const rows = parseCsv(text, { columns: true, bom: true, skip_empty_lines: true }) as Array<Record<string, string>>;
    const header = rows.length > 0 ? Object.keys(rows[0]!) : [];
    for (const c of [...columns, ...(postcodeColumn ? [postcodeColumn] : [])]) {
      if (!header.includes(c))
        throw Object.assign(new Error(`At least one given column name is unknown`), { status: 400 });
    }
    const out = rows.map((row) => {
      const q = columns.map((c) => (row[c] ?? '').trim()).join(' ');
      const m = find(state.addresses, q, postcodeColumn && row[postcodeColumn] ? row[postcodeColumn]! : null);
      const result: Record<string, unknown> = Object.fromEntries(DEFAULT_RESULT_COLUMNS.map((c) => [c, '']));
      if (m) {
        const f = geoplateformeFeature(m) as {
          geometry: { coordinates: [number, number] };
          properties: Record<string, unknown>;
        };
        for (const [k, v] of Object.entries(f.properties)) result[`result_${k}`] = v ?? '';
        result.longitude = f.geometry.coordinates[0];
        result.latitude = f.geometry.coordinates[1];
        result.result_status = 'ok';
      } else {
        result.result_status = 'not-found';
      }
      return [...header.map((h) => row[h] ?? ''), ...resultColumns.map((c) => String(result[c] ?? ''))];
    });
    return stringifyCsv([[...header, ...resultColumns], ...out]);
  };

  const server = createServer(async (req, res) => {
    const at = performance.now();
    const u = new URL(req.url ?? '/', 'http://x');
    const body = await readBody(req);
    const send = (answer: Exclude<FakeAnswer, undefined>, contentType = 'application/json'): void => {
      if (answer === 'stall') return;
      if (answer === 'reset') {
        req.socket.destroy();
        return;
      }
      res.writeHead(answer.status, { 'content-type': contentType, ...answer.headers });
      res.end(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
    };
    const path = u.pathname.replace(/\/+$/, '');
    if (req.method === 'GET' && path === '/geocodage/search') {
      state.requests.push({ at, kind: 'search', params: u.searchParams });
      const q = u.searchParams.get('q') ?? '';
      if (q.trim().length < 3 || q.length > 200) {
        send({ status: 400, body: { code: 400, message: 'q: must contain between 3 and 200 chars' } });
        return;
      }
      send(state.respond(u.searchParams) ?? { status: 200, body: search(u.searchParams) });
      return;
    }
    if (req.method === 'POST' && path === '/geocodage/search/csv') {
      let form: FormData;
      try {
        form = await new Request('http://fake/', {
          method: 'POST',
          headers: { 'content-type': req.headers['content-type'] ?? '' },
          body: new Uint8Array(body),
        }).formData();
      } catch {
        state.requests.push({ at, kind: 'csv', params: u.searchParams });
        send({ status: 400, body: { code: 400, message: 'A CSV file must be provided in data field' } });
        return;
      }
      const file = form.get('data');
      const text = file instanceof Blob ? await file.text() : '';
      const rows = Math.max(0, text.split('\n').filter((l) => l.trim() !== '').length - 1);
      state.requests.push({ at, kind: 'csv', params: u.searchParams, rows });
      const override = state.respondCsv({
        columns: form.getAll('columns').map(String),
        postcode: form.get('postcode') === null ? null : String(form.get('postcode')),
        resultColumns: form.getAll('result_columns').map(String),
        rows,
      });
      if (override) {
        send(override, 'text/csv; charset=utf-8');
        return;
      }
      if (!(file instanceof Blob)) {
        send({ status: 400, body: { code: 400, message: 'A CSV file must be provided in data field' } });
        return;
      }
      try {
        send({ status: 200, body: csvSearch(form, text) }, 'text/csv; charset=utf-8');
      } catch (err) {
        send({
          status: (err as { status?: number }).status ?? 500,
          body: { code: 400, message: (err as Error).message },
        });
      }
      return;
    }
    state.requests.push({ at, kind: 'other', params: u.searchParams });
    send({ status: 404, body: { code: 404, message: 'Not found' } });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/geocodage`,
    get addresses() {
      return state.addresses;
    },
    set addresses(list) {
      state.addresses = list;
    },
    get requests() {
      return state.requests;
    },
    get respond() {
      return state.respond;
    },
    set respond(f) {
      state.respond = f;
    },
    get respondCsv() {
      return state.respondCsv;
    },
    set respondCsv(f) {
      state.respondCsv = f;
    },
    maxInWindow(windowMs = 1000) {
      const times = state.requests.map((r) => r.at).sort((a, b) => a - b);
      let most = 0;
      for (let i = 0, j = 0; j < times.length; j++) {
        while (times[j]! - times[i]! >= windowMs) i++;
        most = Math.max(most, j - i + 1);
      }
      return most;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
