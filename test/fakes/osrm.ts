/**
 * A fake OSRM server for tests: node:http on 127.0.0.1, port 0, answering the Table service
 *   GET /table/v1/{profile}/{lon,lat;...}?annotations=duration,distance&sources=..&destinations=..
 * with the real response shape {code, durations, distances, sources, destinations}, and the Route service
 *   GET /route/v1/{profile}/{lon,lat;...}?overview=full&geometries=geojson&steps=false
 * with {code, routes: [{geometry: {type: "LineString", coordinates}, legs: [{distance, duration, …}], …}], waypoints}.
 * Travel values are a deterministic function of the two coordinates (fakeLeg), so a test can
 * compare an assembled matrix with the expected full one; a route's line turns once per leg, at
 * fakeBend(a, b), so a test can tell a road line from straight segments. Like OSRM, more coordinates than
 * `maxTableSize` (Table) or `maxRouteSize` (Route) → 400 {code:"TooBig"}.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type FakeOsrmMode =
  | { kind: 'ok' }
  | { kind: 'stall' } // accept the request, never answer
  | { kind: 'hold' } // keep the request until release(), then answer it as 'ok'
  | { kind: 'delay'; ms: number } // answer as 'ok' after ms
  | { kind: 'status'; status: number; body?: unknown } // answer with this status and JSON body
  | { kind: 'code'; code: string; message?: string } // 200 with code != "Ok"
  | { kind: 'malformed' } // 200 with a body that is not the Table shape
  | { kind: 'unroutable'; from: number; to: number }; // null at [from][to] (indices in the request)

export interface FakeOsrmRequest {
  service: 'table' | 'route';
  profile: string;
  coordinates: [number, number][]; // [lon, lat] as sent
  params: URLSearchParams;
}

export interface FakeOsrm {
  url: string;
  requests: FakeOsrmRequest[];
  mode: FakeOsrmMode;
  maxTableSize: number;
  maxRouteSize: number;
  /** Requests held in 'hold' mode. */
  readonly held: number;
  /** Answers every held request (as 'ok') and switches to 'ok'. */
  release(): void;
  close(): Promise<void>;
}

/** Deterministic fake travel values between two [lon, lat] points (asymmetric on purpose). */
export function fakeLeg(a: [number, number], b: [number, number]): { duration: number; distance: number } {
  const dx = (b[0] - a[0]) * 73_000;
  const dy = (b[1] - a[1]) * 111_000;
  const distance = Math.hypot(dx, dy) * 1.25 + (a[0] > b[0] ? 37.3 : 11.1);
  return { distance: Math.round(distance * 10) / 10, duration: Math.round((distance / 9.7) * 10) / 10 };
}

/** The point where the fake road from a to b turns ([lon, lat]): a's longitude, b's latitude. */
export function fakeBend(a: [number, number], b: [number, number]): [number, number] {
  return [a[0], b[1]];
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(text);
}

export async function startFakeOsrm(
  opts: { maxTableSize?: number; maxRouteSize?: number; mode?: FakeOsrmMode } = {},
): Promise<FakeOsrm> {
  const state = {
    requests: [] as FakeOsrmRequest[],
    mode: opts.mode ?? ({ kind: 'ok' } as FakeOsrmMode),
    maxTableSize: opts.maxTableSize ?? 100,
    maxRouteSize: opts.maxRouteSize ?? 500,
  };
  const held: Array<[IncomingMessage, ServerResponse]> = [];
  const answer = (req: IncomingMessage, res: ServerResponse): void => {
    const u = new URL(req.url ?? '/', 'http://x');
    const m = /^\/(table|route)\/v1\/([^/]+)\/(.+)$/.exec(u.pathname);
    if (!m) return send(res, 400, { code: 'InvalidUrl', message: `URL string malformed: ${u.pathname}` });
    const service = m[1] as 'table' | 'route';
    const coordinates = decodeURIComponent(m[3]!)
      .split(';')
      .map((c) => c.split(',').map(Number) as [number, number]);
    state.requests.push({ service, profile: m[2]!, coordinates, params: u.searchParams });
    const mode = state.mode;
    if (mode.kind === 'stall') return; // never answer
    if (mode.kind === 'status') return send(res, mode.status, mode.body ?? { code: 'Error', message: 'fake failure' });
    if (mode.kind === 'code') return send(res, 200, { code: mode.code, message: mode.message ?? 'fake' });
    if (mode.kind === 'malformed') return send(res, 200, { code: 'Ok', durations: 'nope' });
    if (coordinates.some((c) => c.length !== 2 || c.some((x) => !Number.isFinite(x)))) {
      return send(res, 400, { code: 'InvalidQuery', message: 'Query string malformed' });
    }
    if (service === 'route') return send(res, ...route(coordinates, mode));
    if (coordinates.length > state.maxTableSize) {
      return send(res, 400, { code: 'TooBig', message: 'Too many table coordinates' });
    }
    const all = coordinates.map((_, i) => i);
    const parse = (name: string): number[] => {
      const v = u.searchParams.get(name);
      return v === null || v === 'all' ? all : v.split(';').map(Number);
    };
    const sources = parse('sources');
    const destinations = parse('destinations');
    if ([...sources, ...destinations].some((i) => !Number.isInteger(i) || i < 0 || i >= coordinates.length)) {
      return send(res, 400, { code: 'InvalidOptions', message: 'Index out of range' });
    }
    const waypoint = (i: number) => ({ hint: 'fake', distance: 0.5, name: '', location: coordinates[i] });
    const durations = sources.map((s, r) =>
      destinations.map((d, c) => {
        if (mode.kind === 'unroutable' && r === mode.from && c === mode.to) return null;
        return s === d ? 0 : fakeLeg(coordinates[s]!, coordinates[d]!).duration;
      }),
    );
    const distances = sources.map((s, r) =>
      destinations.map((d, c) => {
        if (mode.kind === 'unroutable' && r === mode.from && c === mode.to) return null;
        return s === d ? 0 : fakeLeg(coordinates[s]!, coordinates[d]!).distance;
      }),
    );
    send(res, 200, {
      code: 'Ok',
      durations,
      distances,
      sources: sources.map(waypoint),
      destinations: destinations.map(waypoint),
    });
  };
  const route = (coordinates: [number, number][], mode: FakeOsrmMode): [number, unknown] => {
    if (coordinates.length > state.maxRouteSize) return [400, { code: 'TooBig', message: 'Too many trip coordinates' }];
    if (coordinates.length < 2) return [400, { code: 'InvalidQuery', message: 'Query string malformed' }];
    const legs = coordinates.slice(1).map((to, k) => {
      const from = coordinates[k]!;
      const leg = from[0] === to[0] && from[1] === to[1] ? { duration: 0, distance: 0 } : fakeLeg(from, to);
      return { distance: leg.distance, duration: leg.duration, weight: leg.duration, summary: '', steps: [] };
    });
    if (mode.kind === 'unroutable') return [200, { code: 'NoRoute', message: 'Impossible route between points' }];
    const line = [coordinates[0]!, ...coordinates.slice(1).flatMap((to, k) => [fakeBend(coordinates[k]!, to), to])];
    const total = (key: 'distance' | 'duration') => legs.reduce((sum, leg) => sum + leg[key], 0);
    return [
      200,
      {
        code: 'Ok',
        routes: [
          {
            geometry: { type: 'LineString', coordinates: line },
            legs,
            distance: total('distance'),
            duration: total('duration'),
            weight_name: 'routability',
            weight: total('duration'),
          },
        ],
        waypoints: coordinates.map((c) => ({ hint: 'fake', distance: 0.5, name: '', location: c })),
      },
    ];
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const mode = state.mode;
    if (mode.kind === 'hold') held.push([req, res]);
    else if (mode.kind === 'delay') setTimeout(() => answer(req, res), mode.ms);
    else answer(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const fake: FakeOsrm = {
    url: `http://127.0.0.1:${port}`,
    get requests() {
      return state.requests;
    },
    get mode() {
      return state.mode;
    },
    set mode(m) {
      state.mode = m;
    },
    get maxTableSize() {
      return state.maxTableSize;
    },
    set maxTableSize(n) {
      state.maxTableSize = n;
    },
    get maxRouteSize() {
      return state.maxRouteSize;
    },
    set maxRouteSize(n) {
      state.maxRouteSize = n;
    },
    get held() {
      return held.length;
    },
    release() {
      state.mode = { kind: 'ok' };
      for (const [req, res] of held.splice(0)) answer(req, res);
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}
