/**
 * A fake Nominatim server for tests: node:http on 127.0.0.1, port 0, answering
 * GET /search?street=..&postalcode=..&city=..&country=fr&format=jsonv2&limit=1&addressdetails=0
 * with the real jsonv2 array shape (lat/lon as strings, importance, place_rank).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export type FakeNominatimAnswer = { status: number; body: unknown } | 'stall';

export interface FakeNominatim {
  url: string;
  requests: { params: URLSearchParams; userAgent: string | undefined; path: string }[];
  respond: (q: URLSearchParams) => FakeNominatimAnswer;
  close(): Promise<void>;
}

/** The body Nominatim returns (format=jsonv2) for one match, or [] for none. */
export function nominatimResults(
  match: { latitude: number; longitude: number; importance: number; placeRank?: number } | null,
): unknown {
  if (!match) return [];
  return [
    {
      place_id: 88726543,
      licence: 'Data © OpenStreetMap contributors, ODbL 1.0. http://osm.org/copyright',
      osm_type: 'node',
      osm_id: 2570365045,
      lat: String(match.latitude),
      lon: String(match.longitude),
      category: 'place',
      type: 'house',
      place_rank: match.placeRank ?? 30,
      importance: match.importance,
      addresstype: 'place',
      name: '',
      display_name: '8, Boulevard du Port, Amiens, Somme, Hauts-de-France, France métropolitaine, 80000, France',
      boundingbox: ['49.8973930', '49.8974930', '2.2900340', '2.2901340'],
    },
  ];
}

export async function startFakeNominatim(
  respond: (q: URLSearchParams) => FakeNominatimAnswer = () => ({
    status: 200,
    body: nominatimResults({ latitude: 49.897443, longitude: 2.290084, importance: 0.3 }),
  }),
): Promise<FakeNominatim> {
  const state = { requests: [] as FakeNominatim['requests'], respond };
  const server = createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    state.requests.push({ params: u.searchParams, userAgent: req.headers['user-agent'], path: u.pathname });
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
    get respond() {
      return state.respond;
    },
    set respond(f) {
      state.respond = f;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
