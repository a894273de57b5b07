/**
 * A client of the addok geocoder family: the IGN Géoplateforme geocoding service and self-hosted
 * addok/BAN instances (addok-docker) speak the same protocol.
 *
 *   GET  {baseUrl}{searchPath}?q=<street> <city>&postcode=<postal code>&limit=1&autocomplete=0[&index=address]
 *        → GeoJSON FeatureCollection; features[0].geometry.coordinates = [lon, lat],
 *          properties.score (0..1), properties.type ∈ housenumber | street | locality | municipality,
 *          properties.label ("8 Boulevard du Port 80000 Amiens").
 *   POST {baseUrl}{csvPath}  multipart/form-data: data = a CSV file, columns = the columns joined into
 *        the query (repeated), postcode = the column holding the postcode filter, result_columns
 *        (repeated) → the same CSV with latitude, longitude, result_label, result_score, result_type
 *        and, on the Géoplateforme, result_status (ok | not-found | error | skipped) appended.
 *
 * The city goes into `q` (addok has no city filter; its filters are postcode, citycode, type) and the
 * postal code into the `postcode` filter. No feature, or a score below `minScore` → null (not found).
 *
 * Every request runs through the engine's guard (circuit breaker, 429 back-off, rate limit). A batch is
 * one request. When a batch answer is unusable (an error status, a malformed file) the addresses are
 * looked up one by one; when the service does not answer at all (or its breaker is open) every address
 * fails at once, so that the chain falls through to the next engine after one timeout, not two.
 */
import { parse as parseCsv } from 'csv-parse/sync';
import { stringify as stringifyCsv } from 'csv-stringify/sync';
import type { GeoLogger } from '../logger.js';
import type { EngineGuard } from './guard.js';
import { getJson, isFiniteNumber, requestText } from './http.js';
import { normalisePostalCode } from './normalise.js';
import {
  GEOCODE_PRECISIONS,
  GeocoderError,
  settleEach,
  type Address,
  type GeocodeManyOptions,
  type GeocodeOptions,
  type GeocodeOutcome,
  type GeocodePrecision,
  type GeocodeResult,
  type Geocoder,
} from './types.js';

export interface AddokSettings {
  /** Provider name reported on results and in errors ('geoplateforme', 'ban'). */
  name: string;
  baseUrl: string;
  /** '/search' (Géoplateforme) or '/search/' (addok). */
  searchPath: string;
  /** The CSV batch endpoint; null = this engine has none. */
  csvPath: string | null;
  /** Extra query parameters of every search, e.g. { index: 'address' }. */
  extraParams?: Record<string, string>;
  /** Lowest accepted properties.score, 0..1. */
  minScore: number;
  /** Timeout of each request (single or batch), ms. */
  timeoutMs: number;
  /** A lookup of more than this many addresses at once uses the CSV batch endpoint. */
  batchThreshold: number;
  guard: EngineGuard;
  headers?: Record<string, string>;
  logger?: GeoLogger;
}

const PRECISIONS = new Set<string>(GEOCODE_PRECISIONS);
const RESULT_COLUMNS = ['latitude', 'longitude', 'result_label', 'result_score', 'result_type', 'result_status'];

/** addok's type as our precision; anything unexpected is taken as the coarsest, never overstated. */
function precisionOf(type: unknown): GeocodePrecision {
  return typeof type === 'string' && PRECISIONS.has(type) ? (type as GeocodePrecision) : 'municipality';
}

const validPoint = (lat: number, lon: number): boolean => lat >= -90 && lat <= 90 && lon >= -180 && lon <= 180;

export class AddokGeocoder implements Geocoder {
  readonly name: string;
  private readonly settings: AddokSettings;
  private readonly baseUrl: string;
  /** Turned off for the life of the process when the server has no CSV endpoint (404, 405, 501). */
  private batchAvailable: boolean;

  constructor(settings: AddokSettings) {
    this.settings = settings;
    this.name = settings.name;
    this.baseUrl = settings.baseUrl.replace(/\/+$/, '');
    this.batchAvailable = settings.csvPath !== null;
  }

  get guard(): EngineGuard {
    return this.settings.guard;
  }

  async geocode(a: Address, opts: GeocodeOptions = {}): Promise<GeocodeResult> {
    return this.settings.guard.run(() => this.searchOne(a, opts.signal), opts.signal);
  }

  async geocodeMany(addresses: readonly Address[], opts: GeocodeManyOptions): Promise<GeocodeOutcome[]> {
    const one = (a: Address): Promise<GeocodeResult> => this.geocode(a, { signal: opts.signal });
    if (!this.batchAvailable || addresses.length <= this.settings.batchThreshold) {
      return settleEach(addresses, opts.concurrency, one, opts.signal);
    }
    let rows: Array<GeocodeOutcome | 'retry'>;
    try {
      rows = await this.settings.guard.run(() => this.searchCsv(addresses, opts.signal), opts.signal);
    } catch (err) {
      opts.signal?.throwIfAborted();
      const e = err instanceof Error ? err : new Error(String(err));
      if (e instanceof GeocoderError && e.unreachable) return addresses.map(() => ({ ok: false, error: e }));
      if (e instanceof GeocoderError && (e.status === 404 || e.status === 405 || e.status === 501)) {
        this.batchAvailable = false;
        this.settings.logger?.warn(
          { provider: this.name, status: e.status },
          `geocoding: ${this.name} has no CSV batch endpoint at ${this.baseUrl}${this.settings.csvPath}; addresses are looked up one by one`,
        );
      } else {
        this.settings.logger?.warn(
          { provider: this.name, err: { message: e.message } },
          `geocoding: ${this.name} batch request failed; looking the ${addresses.length} addresses up one by one`,
        );
      }
      return settleEach(addresses, opts.concurrency, one, opts.signal);
    }
    // rows the service could not process (status error/skipped/aborted, or missing) are asked again alone
    const retry = rows.flatMap((r, i) => (r === 'retry' ? [i] : []));
    const again = await settleEach(
      retry.map((i) => addresses[i]!),
      opts.concurrency,
      one,
      opts.signal,
    );
    retry.forEach((i, k) => {
      rows[i] = again[k]!;
    });
    return rows as GeocodeOutcome[];
  }

  private async searchOne(a: Address, signal?: AbortSignal): Promise<GeocodeResult> {
    const params = new URLSearchParams({
      q: `${a.street} ${a.city}`.trim(),
      limit: '1',
      autocomplete: '0',
      ...this.settings.extraParams,
    });
    const pc = normalisePostalCode(a.postalCode);
    if (/^\d{5}$/.test(pc)) params.set('postcode', pc);
    const body = await getJson(this.name, `${this.baseUrl}${this.settings.searchPath}?${params.toString()}`, {
      timeoutMs: this.settings.timeoutMs,
      signal,
      headers: this.settings.headers,
    });
    const features = (body as { features?: unknown } | null)?.features;
    if (!Array.isArray(features)) throw new GeocoderError(this.name, 'malformed response: no features array');
    if (features.length === 0) return null;
    const f = features[0] as {
      geometry?: { coordinates?: unknown };
      properties?: { score?: unknown; type?: unknown; label?: unknown };
    };
    const coords = f?.geometry?.coordinates;
    if (
      !Array.isArray(coords) ||
      !isFiniteNumber(coords[0]) ||
      !isFiniteNumber(coords[1]) ||
      !validPoint(coords[1], coords[0])
    ) {
      throw new GeocoderError(this.name, 'malformed response: features[0].geometry.coordinates');
    }
    const score = f.properties?.score;
    if (!isFiniteNumber(score)) throw new GeocoderError(this.name, 'malformed response: features[0].properties.score');
    if (score < this.settings.minScore) return null;
    const label = typeof f.properties?.label === 'string' ? f.properties.label : `${a.street} ${pc} ${a.city}`;
    return {
      latitude: coords[1],
      longitude: coords[0],
      precision: precisionOf(f.properties?.type),
      provider: this.name,
      label,
    };
  }

  /**
   * One CSV batch request; one outcome per address, or 'retry' for a row the service did not process.
   * An answer we cannot use (error status other than 429, malformed file) is an `unusableBatch` error.
   */
  private async searchCsv(
    addresses: readonly Address[],
    signal?: AbortSignal,
  ): Promise<Array<GeocodeOutcome | 'retry'>> {
    try {
      return await this.searchCsvOnce(addresses, signal);
    } catch (err) {
      if (err instanceof GeocoderError && !err.unreachable && err.status !== 429) {
        throw new GeocoderError(this.name, `batch: ${err.message.replace(`${this.name}: `, '')}`, {
          status: err.status,
          unusableBatch: true,
          cause: err,
        });
      }
      throw err;
    }
  }

  private async searchCsvOnce(
    addresses: readonly Address[],
    signal?: AbortSignal,
  ): Promise<Array<GeocodeOutcome | 'retry'>> {
    const csv = stringifyCsv([
      ['id', 'street', 'postcode', 'city'],
      ...addresses.map((a, i) => {
        const pc = normalisePostalCode(a.postalCode);
        return [String(i), a.street, /^\d{5}$/.test(pc) ? pc : '', a.city];
      }),
    ]);
    const form = new FormData();
    form.append('data', new Blob([csv], { type: 'text/csv' }), 'addresses.csv');
    form.append('columns', 'street');
    form.append('columns', 'city');
    form.append('postcode', 'postcode');
    for (const column of RESULT_COLUMNS) form.append('result_columns', column);
    const text = await requestText(this.name, `${this.baseUrl}${this.settings.csvPath}`, {
      method: 'POST',
      body: form,
      timeoutMs: this.settings.timeoutMs,
      signal,
      headers: { accept: 'text/csv', ...this.settings.headers },
    });
    let records: Array<Record<string, string>>;
    try {
      records = parseCsv(text, { columns: true, bom: true, skip_empty_lines: true, relax_column_count: true }) as Array<
        Record<string, string>
      >;
    } catch (err) {
      throw new GeocoderError(this.name, `malformed batch response: ${(err as Error).message}`, { cause: err });
    }
    if (records.length > 0 && !('latitude' in records[0]! && 'longitude' in records[0]! && 'id' in records[0]!)) {
      throw new GeocoderError(this.name, 'malformed batch response: no id, latitude or longitude column');
    }
    const byId = new Map(records.map((r) => [r.id, r]));
    return addresses.map((a, i) => {
      const row = byId.get(String(i));
      if (!row) return 'retry';
      return this.rowOutcome(row, a);
    });
  }

  private rowOutcome(row: Record<string, string>, a: Address): GeocodeOutcome | 'retry' {
    const status = row.result_status;
    if (status !== undefined && status !== '' && status !== 'ok')
      return status === 'not-found' ? { ok: true, result: null } : 'retry';
    if ((row.latitude ?? '') === '' && (row.longitude ?? '') === '') return { ok: true, result: null };
    const lat = Number(row.latitude);
    const lon = Number(row.longitude);
    const score = Number(row.result_score);
    if (!Number.isFinite(lat) || !Number.isFinite(lon) || !validPoint(lat, lon) || !Number.isFinite(score)) {
      return {
        ok: false,
        error: new GeocoderError(this.name, 'malformed batch response: latitude, longitude or result_score'),
      };
    }
    if (score < this.settings.minScore) return { ok: true, result: null };
    const label = row.result_label ? row.result_label : `${a.street} ${normalisePostalCode(a.postalCode)} ${a.city}`;
    return {
      ok: true,
      result: { latitude: lat, longitude: lon, precision: precisionOf(row.result_type), provider: this.name, label },
    };
  }
}
