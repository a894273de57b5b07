/** One request to an OSRM service (Table, Route): the URL's coordinates, the GET and its failures as RoutingErrors. */
import { fetchText, FetchFailure } from '../http.js';
import type { Point } from './types.js';
import { RoutingError } from './types.js';

/** What one OSRM request needs: its timeout, the caller's signal, extra headers. */
export interface OsrmRequestSettings {
  timeoutMs: number;
  signal?: AbortSignal;
  headers: Record<string, string>;
}

/**
 * One GET to an OSRM service, its body parsed: a RoutingError on a timeout, a network failure, an HTTP
 * error status, a body that is not a JSON object, or a `code` other than "Ok".
 */
export async function osrmGet(provider: string, url: string, settings: OsrmRequestSettings): Promise<object> {
  let res: Response;
  let text: string;
  try {
    ({ res, text } = await fetchText(url, settings));
  } catch (err) {
    if (err instanceof FetchFailure)
      throw new RoutingError(provider, err.message, { timedOut: err.reason === 'timeout', cause: err.cause });
    throw err;
  }
  let body: { code?: unknown; message?: unknown } | undefined;
  try {
    body = JSON.parse(text) as { code?: unknown; message?: unknown };
  } catch {
    body = undefined;
  }
  const code = typeof body?.code === 'string' ? body.code : undefined;
  const message = typeof body?.message === 'string' ? body.message : undefined;
  if (!res.ok) {
    throw new RoutingError(provider, `HTTP ${res.status}${code ? ` ${code}` : ''}${message ? `: ${message}` : ''}`, {
      status: res.status,
      code,
    });
  }
  if (body === null || typeof body !== 'object')
    throw new RoutingError(provider, 'malformed response: not a JSON object');
  if (code !== 'Ok') {
    throw new RoutingError(provider, `code ${code ?? '(missing)'}${message ? `: ${message}` : ''}`, {
      code,
      status: res.status,
    });
  }
  return body;
}

/** `lon,lat;lon,lat;…` with 6 decimals at most, as OSRM's URLs take them. */
export function osrmCoordinates(points: readonly Point[]): string {
  return points.map((p) => `${fmt(p.longitude)},${fmt(p.latitude)}`).join(';');
}

function fmt(x: number): string {
  if (!Number.isFinite(x)) throw new RoutingError('osrm', `invalid coordinate ${x}`);
  return String(Math.round(x * 1e6) / 1e6);
}
