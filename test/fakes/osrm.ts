/**
 * A fake OSRM server for tests: node:http on 127.0.0.1, port 0, answering the Table service
 *   GET /table/v1/{profile}/{lon,lat;...}?annotations=duration,distance&sources=..&destinations=..
 * with the real response shape {code, durations, distances, sources, destinations}.
 * Travel values are a deterministic function of the two coordinates (fakeLeg), so a test can
 * compare an assembled matrix with the expected full one. Like OSRM, more coordinates than
 * `maxTableSize` → 400 {code:"TooBig"}.
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
  profile: string;
  coordinates: [number, number][]; // [lon, lat] as sent
  params: URLSearchParams;
}

export interface FakeOsrm {
  url: string;
  requests: FakeOsrmRequest[];
  mode: FakeOsrmMode;
  maxTableSize: number;
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

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(text);
}

export async function startFakeOsrm(opts: { maxTableSize?: number; mode?: FakeOsrmMode } = {}): Promise<FakeOsrm> {
  const state = {
    requests: [] as FakeOsrmRequest[],
    mode: opts.mode ?? ({ kind: 'ok' } as FakeOsrmMode),
    maxTableSize: opts.maxTableSize ?? 100,
  };
  const held: Array<[IncomingMessage, ServerResponse]> = [];
  const answer = (req: IncomingMessage, res: ServerResponse): void => {
    const u = new URL(req.url ?? '/', 'http://x');
    const m = /^\/table\/v1\/([^/]+)\/(.+)$/.exec(u.pathname);
    if (!m) return send(res, 400, { code: 'InvalidUrl', message: `URL string malformed: ${u.pathname}` });
    const coordinates = decodeURIComponent(m[2]!)
      .split(';')
      .map((c) => c.split(',').map(Number) as [number, number]);
    state.requests.push({ profile: m[1]!, coordinates, params: u.searchParams });
    const mode = state.mode;
    if (mode.kind === 'stall') return; // never answer
    if (mode.kind === 'status') return send(res, mode.status, mode.body ?? { code: 'Error', message: 'fake failure' });
    if (mode.kind === 'code') return send(res, 200, { code: mode.code, message: mode.message ?? 'fake' });
    if (mode.kind === 'malformed') return send(res, 200, { code: 'Ok', durations: 'nope' });
    if (coordinates.some((c) => c.length !== 2 || c.some((x) => !Number.isFinite(x)))) {
      return send(res, 400, { code: 'InvalidQuery', message: 'Query string malformed' });
    }
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
