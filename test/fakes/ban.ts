/**
 * A fake BAN (api-adresse) server for tests: node:http on 127.0.0.1, port 0, answering
 * GET /search/?q=..&postcode=..&limit=1 with the real GeoJSON FeatureCollection shape.
 * `respond` decides each answer from the query; it defaults to one housenumber feature (score 0.9).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export type FakeBanAnswer = { status: number; body: unknown } | 'stall';

export interface FakeBan {
  url: string;
  requests: URLSearchParams[];
  paths: string[];
  respond: (q: URLSearchParams) => FakeBanAnswer;
  close(): Promise<void>;
}

/** The body BAN returns for one match. */
export function banFeatureCollection(
  match: { latitude: number; longitude: number; score: number; type?: 'housenumber' | 'street' | 'locality' | 'municipality' } | null,
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
  const state = { requests: [] as URLSearchParams[], paths: [] as string[], respond };
  const server = createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    state.requests.push(u.searchParams);
    state.paths.push(u.pathname);
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
    get requests() { return state.requests; },
    get paths() { return state.paths; },
    get respond() { return state.respond; },
    set respond(f) { state.respond = f; },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
