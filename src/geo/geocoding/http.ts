import { fetchText, FetchFailure } from '../http.js';
import { GeocoderError } from './types.js';

/** GET a JSON document with a timeout; every failure becomes a GeocoderError. */
export async function getJson(
  provider: string,
  url: string,
  opts: { timeoutMs: number; signal?: AbortSignal; headers?: Record<string, string> },
): Promise<unknown> {
  let res: Response;
  let text: string;
  try {
    ({ res, text } = await fetchText(url, opts));
  } catch (err) {
    if (err instanceof FetchFailure) throw new GeocoderError(provider, err.message, { timedOut: err.reason === 'timeout', cause: err.cause });
    throw err;
  }
  if (!res.ok) throw new GeocoderError(provider, `HTTP ${res.status}: ${text.slice(0, 200)}`, { status: res.status });
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new GeocoderError(provider, 'malformed response: not JSON', { status: res.status, cause: err });
  }
}

export const isFiniteNumber = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);
