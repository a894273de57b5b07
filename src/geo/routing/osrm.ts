/**
 * OSRM client for the Table service:
 *   GET {baseUrl}/table/v1/{profile}/{lon,lat;lon,lat;...}?annotations=duration,distance
 *       &sources=i;j;...&destinations=k;l;...[&exclude=toll]
 *
 * Large matrices are split into blocks: the points are cut into groups of ⌊maxTableSize / 2⌋ and
 * one request is sent per (source group, destination group) pair; its coordinate list holds only
 * the points of those two groups (fewer when both are the same group), so no request carries more
 * than `maxTableSize` coordinates. When all points fit (n ≤ maxTableSize) a single request without
 * sources/destinations is sent. Match `maxTableSize` with the server's `--max-table-size`
 * (OSRM's default is 100).
 *
 * `exclude=toll` is sent when avoidTolls is true; the server's profile must define the "toll"
 * exclude class (the stock car.lua does).
 *
 * Failures throw RoutingError: timeout (each request has its own AbortSignal.timeout), HTTP error
 * status, `code` other than "Ok", a malformed body, or a null entry (a pair the server cannot route).
 *
 * `route()` asks the Route service for the line through the points (src/geo/routing/osrm-route.ts).
 */
import type { MatrixOptions, Point, RouteLine, RouteOptions, RoutingProvider, TravelMatrix } from './types.js';
import { osrmRoute } from './osrm-route.js';
import { RoutingError } from './types.js';
import { osrmCoordinates, osrmGet, type OsrmRequestSettings } from './osrm-http.js';

export interface OsrmSettings {
  /** Server root, e.g. "http://localhost:5000" (no trailing /table). Required. */
  baseUrl: string;
  /** OSRM profile in the URL; default "driving". */
  profile?: string;
  /** Largest number of coordinates in one request (the server's --max-table-size); default 100. Minimum 2. */
  maxTableSize?: number;
  /** Timeout of each HTTP request, ms; default 10000. */
  timeoutMs?: number;
  /** Blocks requested in parallel; default 4. */
  concurrency?: number;
  /** Extra request headers (e.g. an API key of a hosted OSRM). */
  headers?: Record<string, string>;
  /** Most coordinates in one Route request (the server's --max-viaroute-size); default 500. Minimum 2. */
  maxRouteSize?: number;
}

interface OsrmTableResponse {
  durations?: unknown;
  distances?: unknown;
}

export class OsrmProvider implements RoutingProvider {
  readonly name = 'osrm';
  private readonly baseUrl: string;
  private readonly profile: string;
  private readonly maxTableSize: number;
  private readonly timeoutMs: number;
  private readonly concurrency: number;
  private readonly headers: Record<string, string>;
  private readonly maxRouteSize: number;

  constructor(settings: OsrmSettings) {
    if (!settings?.baseUrl) throw new Error('osrm: baseUrl is required');
    this.baseUrl = settings.baseUrl.replace(/\/+$/, '');
    this.profile = settings.profile ?? 'driving';
    this.maxTableSize = settings.maxTableSize ?? 100;
    this.timeoutMs = settings.timeoutMs ?? 10_000;
    this.concurrency = settings.concurrency ?? 4;
    this.headers = settings.headers ?? {};
    this.maxRouteSize = settings.maxRouteSize ?? 500;
    if (!Number.isInteger(this.maxRouteSize) || this.maxRouteSize < 2)
      throw new Error('osrm: maxRouteSize must be an integer >= 2');
    if (!Number.isInteger(this.maxTableSize) || this.maxTableSize < 2)
      throw new Error('osrm: maxTableSize must be an integer >= 2');
    if (!Number.isInteger(this.concurrency) || this.concurrency < 1)
      throw new Error('osrm: concurrency must be an integer >= 1');
  }

  async matrix(points: Point[], opts: MatrixOptions): Promise<TravelMatrix> {
    const n = points.length;
    const durationsS = Array.from({ length: n }, () => new Array<number>(n).fill(0));
    const distancesM = Array.from({ length: n }, () => new Array<number>(n).fill(0));
    if (n <= 1) return { durationsS, distancesM };

    const all = Array.from({ length: n }, (_, i) => i);
    const blocks: { src: number[]; dst: number[] }[] = [];
    if (n <= this.maxTableSize) {
      blocks.push({ src: all, dst: all });
    } else {
      const size = Math.floor(this.maxTableSize / 2);
      const groups: number[][] = [];
      for (let i = 0; i < n; i += size) groups.push(all.slice(i, i + size));
      for (const src of groups) for (const dst of groups) blocks.push({ src, dst });
    }

    // On the first failing block, stop handing out blocks and cancel the ones in flight.
    const stop = new AbortController();
    const signal = opts.signal ? AbortSignal.any([opts.signal, stop.signal]) : stop.signal;
    let next = 0;
    let failure: unknown;
    const worker = async (): Promise<void> => {
      while (next < blocks.length && failure === undefined) {
        const b = blocks[next++]!;
        try {
          await this.fetchBlock(
            points,
            b.src,
            b.dst,
            n <= this.maxTableSize,
            { ...opts, signal },
            durationsS,
            distancesM,
          );
        } catch (err) {
          if (failure === undefined) failure = err;
          stop.abort();
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.concurrency, blocks.length) }, worker));
    if (failure !== undefined) throw failure;
    for (let i = 0; i < n; i++) {
      durationsS[i]![i] = 0;
      distancesM[i]![i] = 0;
    }
    return { durationsS, distancesM };
  }

  /** The road line through `points` from the Route service (src/geo/routing/osrm-route.ts). */
  route(points: Point[], opts: RouteOptions): Promise<RouteLine> {
    return osrmRoute(points, opts, {
      provider: this.name,
      baseUrl: this.baseUrl,
      profile: this.profile,
      maxRouteSize: this.maxRouteSize,
      request: this.settings(opts.signal),
    });
  }

  private settings(signal: AbortSignal | undefined): OsrmRequestSettings {
    return { timeoutMs: this.timeoutMs, headers: this.headers, ...(signal ? { signal } : {}) };
  }

  private async fetchBlock(
    points: Point[],
    src: number[],
    dst: number[],
    whole: boolean,
    opts: MatrixOptions,
    durationsS: number[][],
    distancesM: number[][],
  ): Promise<void> {
    // Coordinates of this request: the union of both groups, in order; local index of each point.
    const ids = whole ? src : [...new Set([...src, ...dst])];
    const local = new Map(ids.map((id, k) => [id, k]));
    const coords = osrmCoordinates(ids.map((id) => points[id]!));
    const params = new URLSearchParams({ annotations: 'duration,distance' });
    if (!whole) {
      params.set('sources', src.map((id) => local.get(id)).join(';'));
      params.set('destinations', dst.map((id) => local.get(id)).join(';'));
    }
    if (opts.avoidTolls) params.set('exclude', 'toll');
    const url = `${this.baseUrl}/table/v1/${encodeURIComponent(this.profile)}/${coords}?${params.toString().replace(/%3B/g, ';').replace(/%2C/g, ',')}`;

    const body = (await osrmGet(this.name, url, this.settings(opts.signal))) as OsrmTableResponse;
    const durations = checkTable(this.name, 'durations', body.durations, src.length, dst.length);
    const distances = checkTable(this.name, 'distances', body.distances, src.length, dst.length);
    for (let r = 0; r < src.length; r++) {
      for (let c = 0; c < dst.length; c++) {
        const i = src[r]!;
        const j = dst[c]!;
        const d = durations[r]![c];
        const m = distances[r]![c];
        if (i === j) continue;
        if (d === null || m === null) {
          throw new RoutingError(this.name, `no route from point ${i} to point ${j}`, { code: 'NoRoute' });
        }
        durationsS[i]![j] = Math.round(d!);
        distancesM[i]![j] = Math.round(m!);
      }
    }
  }
}

function checkTable(provider: string, field: string, v: unknown, rows: number, cols: number): (number | null)[][] {
  const ok =
    Array.isArray(v) &&
    v.length === rows &&
    v.every(
      (row) =>
        Array.isArray(row) &&
        row.length === cols &&
        row.every((x) => x === null || (typeof x === 'number' && Number.isFinite(x) && x >= 0)),
    );
  if (!ok) throw new RoutingError(provider, `malformed response: "${field}" is not a ${rows}×${cols} table of numbers`);
  return v as (number | null)[][];
}
