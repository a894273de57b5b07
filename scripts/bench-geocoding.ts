/**
 * Geocoding benchmark: the service as a child process with the default geocoder chain
 * (geoplateforme,embedded) and the Géoplateforme faked in this process at GEOPLATEFORME_URL
 * (scripts/lib/fake-geoplateforme.ts, the documented response shapes). Prints the figures of issue 12:
 *
 *   1. 20 Paris addresses, service answering: distinct points, precisions, warnings, time;
 *   2. the same call, service not answering (stalled, then refusing connections): time against
 *      GEOCODER_TIMEOUT_MS, requests that reached it, precisions, warnings, stops charged;
 *   3. a burst of 200 addresses (4 calls × 50 at once, the CSV endpoint failing so every address is
 *      one request): the most requests the service saw in any 1 s window, against the limit;
 *   4. the batch path: 200 addresses in one call → one CSV request.
 *
 *   npx tsx scripts/bench-geocoding.ts [--timeout-ms 1000] [--rate 50] [--json]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Billing } from '../src/billing/billing.js';
import { SqliteStore } from '../src/store/sqlite.js';
import { startFakeGeoplateforme, type FakeAddress } from './lib/fake-geoplateforme.js';
import { PARIS_ADDRESSES, parisAddressStops } from './lib/paris-addresses.js';
import { startServiceProcess, type ServiceProcess } from './lib/service-process.js';

const { values } = parseArgs({
  options: {
    'timeout-ms': { type: 'string', default: '1000' },
    rate: { type: 'string', default: '50' },
    json: { type: 'boolean', default: false },
  },
});
const timeoutMs = Number(values['timeout-ms']);
const rate = Number(values.rate);
const START = { latitude: 48.8566, longitude: 2.3522 };

const roquette: FakeAddress[] = Array.from({ length: 200 }, (_, i) => ({
  housenumber: String(i + 1),
  street: 'Rue de la Roquette',
  postcode: '75011',
  city: 'Paris',
  citycode: '75111',
  latitude: 48.8532 + i * 0.00011,
  longitude: 2.3714 + i * 0.00009,
}));
const roquetteStops = roquette.map((a, i) => ({
  id: `r${i + 1}`,
  street: `${a.housenumber} ${a.street}`,
  postalCode: a.postcode,
  city: a.city,
}));

const fake = await startFakeGeoplateforme([...PARIS_ADDRESSES, ...roquette]);
const dirs: string[] = [];
const servers: ServiceProcess[] = [];

/** A fresh service (its own database, so nothing comes from the cache), warmed up, and a live key. */
async function service(env: Record<string, string>): Promise<{ url: string; key: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-geocoding-'));
  dirs.push(dir);
  const databasePath = join(dir, 'bench.db');
  const store = new SqliteStore(databasePath);
  const { key } = await new Billing(store, {
    limits: { maxStopsPerCall: 10, callsPerMinute: 20, stopsPerDay: 200 },
  }).issueKey('live', { stops: 100_000 });
  await store.close();
  const server = await startServiceProcess({
    DATABASE_PATH: databasePath,
    LOG_LEVEL: 'error',
    GEOCODER_TIMEOUT_MS: String(timeoutMs),
    GEOPLATEFORME_RATE_LIMIT: String(rate),
    ...env,
  });
  servers.push(server);
  // a first call with coordinates only: solver workers, database and code paths warm, no geocoding
  const warm = await optimize({ url: server.url, key }, [
    { id: 'w1', latitude: 48.86, longitude: 2.34 },
    { id: 'w2', latitude: 48.85, longitude: 2.36 },
  ]);
  if (warm.status !== 200) throw new Error(`warm-up call failed: ${JSON.stringify(warm.body)}`);
  return { url: server.url, key };
}

async function optimize(
  s: { url: string; key: string },
  stops: unknown[],
): Promise<{ status: number; ms: number; body: any }> {
  const t0 = performance.now();
  const res = await fetch(`${s.url}/api/v1/optimize`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${s.key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ start: START, stops }),
  });
  const body = await res.json();
  return { status: res.status, ms: Math.round(performance.now() - t0), body };
}

const count = (items: string[]): Record<string, number> =>
  items.reduce<Record<string, number>>((c, k) => ({ ...c, [k]: (c[k] ?? 0) + 1 }), {});
const summary = (r: { status: number; ms: number; body: any }) => ({
  status: r.status,
  ms: r.ms,
  distinctPoints: new Set((r.body.waypoints ?? []).map((w: any) => `${w.latitude},${w.longitude}`)).size,
  precision: count((r.body.waypoints ?? []).map((w: any) => `${w.geocoding?.provider}:${w.geocoding?.precision}`)),
  warnings: r.body.warnings?.length ?? 0,
  stopsCharged: r.body.stopsCharged,
});

const results: Record<string, unknown> = {};
try {
  fake.requests.length = 0;
  const up = await service({ GEOPLATEFORME_URL: fake.url });
  const answering = await optimize(up, parisAddressStops());
  results.answering = {
    ...summary(answering),
    requests: fake.requests.length,
    warningsField: 'warnings' in answering.body,
  };

  fake.requests.length = 0;
  fake.respond = () => 'stall';
  const stalled = await service({ GEOPLATEFORME_URL: fake.url });
  const first = await optimize(stalled, parisAddressStops());
  const firstRequests = fake.requests.length;
  const second = await optimize(stalled, parisAddressStops());
  results.stalled = {
    timeoutMs,
    first: { ...summary(first), requests: firstRequests },
    secondBreakerOpen: { ...summary(second), requests: fake.requests.length - firstRequests },
  };
  fake.respond = () => undefined;

  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const closedPort = (probe.address() as { port: number }).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  const refused = await service({ GEOPLATEFORME_URL: `http://127.0.0.1:${closedPort}/geocodage` });
  results.refused = summary(await optimize(refused, parisAddressStops()));

  fake.requests.length = 0;
  fake.respondCsv = () => ({ status: 502, body: 'Bad Gateway' });
  const burst = await service({ GEOPLATEFORME_URL: fake.url, GEOCODER_CONCURRENCY: '32' });
  const t0 = performance.now();
  const calls = await Promise.all([0, 1, 2, 3].map((k) => optimize(burst, roquetteStops.slice(k * 50, k * 50 + 50))));
  results.burst = {
    addresses: 200,
    limitPerSecond: rate,
    requests: fake.requests.length,
    maxInAnySecond: fake.maxInWindow(1000),
    ms: Math.round(performance.now() - t0),
    statuses: count(calls.map((c) => String(c.status))),
    precision: count(
      calls.flatMap((c) => c.body.waypoints.map((w: any) => `${w.geocoding.provider}:${w.geocoding.precision}`)),
    ),
  };
  fake.respondCsv = () => undefined;

  fake.requests.length = 0;
  const batch = await service({ GEOPLATEFORME_URL: fake.url });
  const oneCall = await optimize(batch, roquetteStops);
  results.batch = { ...summary(oneCall), requests: count(fake.requests.map((r) => r.kind)) };
} finally {
  for (const s of servers) {
    s.child.kill('SIGTERM');
    await s.exited;
  }
  await fake.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}

if (values.json) {
  console.log(JSON.stringify(results));
} else {
  const r = results as any;
  console.log(
    `1. service answering, 20 Paris addresses: HTTP ${r.answering.status} in ${r.answering.ms} ms; ${r.answering.distinctPoints} distinct points; ${JSON.stringify(r.answering.precision)}; warnings field present: ${r.answering.warningsField}; ${r.answering.requests} requests`,
  );
  console.log(
    `2. service stalled (GEOCODER_TIMEOUT_MS=${timeoutMs}): HTTP ${r.stalled.first.status} in ${r.stalled.first.ms} ms (timeout + ${r.stalled.first.ms - timeoutMs} ms); ${r.stalled.first.requests} requests reached it; ${JSON.stringify(r.stalled.first.precision)}; ${r.stalled.first.warnings} warnings; ${r.stalled.first.stopsCharged} stops charged`,
  );
  console.log(
    `   next call, breaker open: HTTP ${r.stalled.secondBreakerOpen.status} in ${r.stalled.secondBreakerOpen.ms} ms; ${r.stalled.secondBreakerOpen.requests} requests; ${r.stalled.secondBreakerOpen.warnings} warnings`,
  );
  console.log(
    `   service refusing connections: HTTP ${r.refused.status} in ${r.refused.ms} ms; ${JSON.stringify(r.refused.precision)}; ${r.refused.warnings} warnings`,
  );
  console.log(
    `3. burst of 200 addresses (4 calls × 50, batch failing): ${r.burst.requests} requests in ${r.burst.ms} ms; most in any 1 s window at the service: ${r.burst.maxInAnySecond} (limit ${r.burst.limitPerSecond}); ${JSON.stringify(r.burst.precision)}`,
  );
  console.log(
    `4. batch, 200 addresses in one call: HTTP ${r.batch.status} in ${r.batch.ms} ms; requests ${JSON.stringify(r.batch.requests)}; ${JSON.stringify(r.batch.precision)}`,
  );
}
