/**
 * A fake self-hosted addok (BAN) server for tests: node:http on 127.0.0.1, port 0, answering
 * GET /search/?q=..&postcode=..&limit=1 with the real GeoJSON FeatureCollection shape, and
 * POST /search/csv/ as the addok-csv plugin does (addok_csv CSVSearch: the input rows with latitude,
 * longitude, result_label, result_score, result_type, result_id, result_housenumber appended; no
 * result_status column; empty cells when not found) — or 404 when `csv` is off (no plugin).
 * `respond` decides each search answer from the query; it defaults to one housenumber feature (score 0.9).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parse as parseCsv } from 'csv-parse/sync';
import { stringify as stringifyCsv } from 'csv-stringify/sync';

export type FakeBanAnswer = { status: number; body: unknown } | 'stall';

export interface FakeBan {
  url: string;
  requests: URLSearchParams[];
  paths: string[];
  respond: (q: URLSearchParams) => FakeBanAnswer;
  /** Serve POST /search/csv/ (the addok-csv plugin); default false → 404. */
  csv: boolean;
  close(): Promise<void>;
}

/** The body BAN returns for one match. */
export function banFeatureCollection(
  match: {
    latitude: number;
    longitude: number;
    score: number;
    type?: 'housenumber' | 'street' | 'locality' | 'municipality';
  } | null,
  query = '',
): unknown {
  const features = match
    ? [
        {
          type: 'Feature',
          geometry: { type: 'Point', coordinates: [match.longitude, match.latitude] },
          properties: {
            label: '8 Boulevard du Port 80000 Amiens',
            score: match.score,
            housenumber: '8',
            id: '80021_6590_00008',
            name: '8 Boulevard du Port',
            postcode: '80000',
            citycode: '80021',
            x: 648952.58,
            y: 6977867.14,
            city: 'Amiens',
            context: '80, Somme, Hauts-de-France',
            type: match.type ?? 'housenumber',
            importance: 0.6291,
            street: 'Boulevard du Port',
          },
        },
      ]
    : [];
  return {
    type: 'FeatureCollection',
    version: 'draft',
    features,
    attribution: 'BAN',
    licence: 'ETALAB-2.0',
    query,
    limit: 1,
  };
}

export async function startFakeBan(
  respond: (q: URLSearchParams) => FakeBanAnswer = (q) => ({
    status: 200,
    body: banFeatureCollection({ latitude: 49.897443, longitude: 2.290084, score: 0.9 }, q.get('q') ?? ''),
  }),
): Promise<FakeBan> {
  const state = { requests: [] as URLSearchParams[], paths: [] as string[], respond, csv: false };
  const server = createServer(async (req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    state.requests.push(u.searchParams);
    state.paths.push(u.pathname);
    if (req.method === 'POST' && u.pathname === '/search/csv/' && state.csv) {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const form = await new Request('http://fake/', {
        method: 'POST',
        headers: { 'content-type': req.headers['content-type'] ?? '' },
        body: new Uint8Array(Buffer.concat(chunks)),
      }).formData();
      const rows = parseCsv(await (form.get('data') as Blob).text(), { columns: true, bom: true }) as Array<
        Record<string, string>
      >;
      const columns = form.getAll('columns').map(String);
      const postcode = form.get('postcode');
      const header = Object.keys(rows[0] ?? {});
      const added = [
        'latitude',
        'longitude',
        'result_label',
        'result_score',
        'result_type',
        'result_id',
        'result_housenumber',
      ];
      const out = rows.map((row) => {
        const q = new URLSearchParams({
          q: columns.map((c) => row[c] ?? '').join(' '),
          ...(postcode && row[String(postcode)] ? { postcode: row[String(postcode)]! } : {}),
        });
        const answer = state.respond(q);
        const f =
          answer !== 'stall' && answer.status === 200 ? (answer.body as { features: any[] }).features[0] : undefined;
        const extra = f
          ? [
              f.geometry.coordinates[1],
              f.geometry.coordinates[0],
              f.properties.label,
              f.properties.score,
              f.properties.type,
              f.properties.id,
              f.properties.housenumber ?? '',
            ]
          : added.map(() => '');
        return [...header.map((h) => row[h]), ...extra];
      });
      res.writeHead(200, { 'content-type': 'text/csv; charset=utf-8' });
      res.end(stringifyCsv([[...header, ...added], ...out]));
      return;
    }
    if (u.pathname !== '/search/' && u.pathname !== '/search') {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ code: 404, message: 'Not found' }));
      return;
    }
    const answer = state.respond(u.searchParams);
    if (answer === 'stall') return;
    res.writeHead(answer.status, { 'content-type': 'application/json' });
    res.end(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get requests() {
      return state.requests;
    },
    get paths() {
      return state.paths;
    },
    get respond() {
      return state.respond;
    },
    set respond(f) {
      state.respond = f;
    },
    get csv() {
      return state.csv;
    },
    set csv(on) {
      state.csv = on;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
