/**
 * The Géoplateforme geocoder against a local fake serving the documented shapes
 * (test/fakes/geoplateforme.ts): answers, failures, 429, the circuit breaker and the CSV batch path.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import {
  DEFAULT_GEOPLATEFORME_BASE_URL,
  GeoplateformeGeocoder,
  type GeoplateformeSettings,
} from '../../../src/geo/geocoding/geoplateforme.js';
import { GeocoderError, type Address } from '../../../src/geo/geocoding/types.js';
import { featureCollection, startFakeGeoplateforme, type FakeAddress } from '../../fakes/geoplateforme.js';
import { PARIS_ADDRESSES } from '../../fakes/paris-addresses.js';

const AMIENS: FakeAddress = {
  housenumber: '8',
  street: 'Boulevard du Port',
  postcode: '80000',
  city: 'Amiens',
  citycode: '80021',
  latitude: 49.897443,
  longitude: 2.290084,
};
const fake = await startFakeGeoplateforme([AMIENS, ...PARIS_ADDRESSES]);
after(() => fake.close());

const amiens: Address = { street: '8 boulevard du Port', postalCode: '80000', city: 'Amiens' };
const paris = (i: number): Address => ({
  street: `${PARIS_ADDRESSES[i]!.housenumber} ${PARIS_ADDRESSES[i]!.street}`,
  postalCode: PARIS_ADDRESSES[i]!.postcode,
  city: 'Paris',
});
const geocoder = (settings: GeoplateformeSettings = {}) =>
  new GeoplateformeGeocoder({ baseUrl: fake.url, ...settings });
const reset = (): void => {
  fake.requests.length = 0;
  fake.respond = () => undefined;
  fake.respondCsv = () => undefined;
};

test('the default service is the public Géoplateforme at data.geopf.fr', () => {
  assert.equal(DEFAULT_GEOPLATEFORME_BASE_URL, 'https://data.geopf.fr/geocodage');
});

test('found: GET /search with q, postcode, limit, autocomplete=0, index=address; [lon, lat] in the right order; label and precision kept', async () => {
  reset();
  const r = await geocoder().geocode(amiens);
  assert.deepEqual(r, {
    latitude: 49.897443,
    longitude: 2.290084,
    precision: 'housenumber',
    provider: 'geoplateforme',
    label: '8 Boulevard du Port 80000 Amiens',
  });
  assert.equal(fake.requests.length, 1);
  const q = fake.requests[0]!.params;
  assert.deepEqual(
    [q.get('q'), q.get('postcode'), q.get('limit'), q.get('autocomplete'), q.get('index')],
    ['8 boulevard du Port Amiens', '80000', '1', '0', 'address'],
  );
});

test('each precision type is reported as such: housenumber, street, locality, municipality', async () => {
  reset();
  const g = geocoder();
  assert.equal(
    (await g.geocode({ street: '99 boulevard du Port', postalCode: '80000', city: 'Amiens' }))?.precision,
    'street',
    'an unknown number on a known street',
  );
  const base = { postcode: '80000', city: 'Amiens', citycode: '80021', latitude: 49.9, longitude: 2.3 };
  fake.addresses = [
    { ...base, name: 'La Hotoie', type: 'locality' },
    { ...base, street: 'Nulle Part', type: 'municipality' },
  ];
  try {
    const locality = await g.geocode({ street: 'La Hotoie', postalCode: '80000', city: 'Amiens' });
    assert.deepEqual([locality?.precision, locality?.label], ['locality', 'La Hotoie 80000 Amiens']);
    const town = await g.geocode({ street: 'Nulle Part', postalCode: '80000', city: 'Amiens' });
    assert.deepEqual([town?.precision, town?.label], ['municipality', 'Amiens']);
  } finally {
    fake.addresses = [AMIENS, ...PARIS_ADDRESSES];
  }
});

test('not found (no feature), and a score below the threshold → null', async () => {
  reset();
  assert.equal(await geocoder().geocode({ street: '1 rue Imaginaire', postalCode: '80000', city: 'Amiens' }), null);
  fake.addresses = [{ ...AMIENS, score: 0.42 }];
  try {
    assert.equal(await geocoder().geocode(amiens), null);
    assert.equal((await geocoder({ minScore: 0.4 }).geocode(amiens))?.latitude, 49.897443);
  } finally {
    fake.addresses = [AMIENS, ...PARIS_ADDRESSES];
  }
});

test('service failures are GeocoderErrors: 5xx, 400, malformed bodies, timeout, connection refused', async () => {
  reset();
  const g = geocoder({ timeoutMs: 200, breakerFailures: 1000 });
  const cases: Array<[string, () => ReturnType<typeof fake.respond>, (e: GeocoderError) => boolean]> = [
    ['500', () => ({ status: 500, body: 'Internal Server Error' }), (e) => e.status === 500 && !e.unreachable],
    ['503', () => ({ status: 503, body: { code: 503, message: 'Service Unavailable' } }), (e) => e.status === 503],
    ['not JSON', () => ({ status: 200, body: '<html>maintenance</html>' }), (e) => /not JSON/.test(e.message)],
    [
      'no features',
      () => ({ status: 200, body: { type: 'FeatureCollection' } }),
      (e) => /no features array/.test(e.message),
    ],
    [
      'bad coordinates',
      () => ({
        status: 200,
        body: featureCollection([
          { type: 'Feature', geometry: { type: 'Point', coordinates: [2.3] }, properties: { score: 0.9 } },
        ]),
      }),
      (e) => /coordinates/.test(e.message),
    ],
    [
      'latitude out of range',
      () => ({
        status: 200,
        body: featureCollection([
          { type: 'Feature', geometry: { type: 'Point', coordinates: [2.3, 148.8] }, properties: { score: 0.9 } },
        ]),
      }),
      (e) => /coordinates/.test(e.message),
    ],
    [
      'no score',
      () => ({
        status: 200,
        body: featureCollection([
          { type: 'Feature', geometry: { type: 'Point', coordinates: [2.3, 48.8] }, properties: {} },
        ]),
      }),
      (e) => /score/.test(e.message),
    ],
    ['stall', () => 'stall', (e) => e.timedOut && e.unreachable],
    ['reset', () => 'reset', (e) => e.unreachable && !e.timedOut],
  ];
  for (const [what, answer, check] of cases) {
    fake.respond = answer;
    await assert.rejects(
      g.geocode(amiens),
      (e: unknown) => e instanceof GeocoderError && e.provider === 'geoplateforme' && check(e),
      what,
    );
  }
  fake.respond = () => undefined;
  await assert.rejects(
    g.geocode({ street: '', postalCode: '80000', city: 'X' }),
    (e: unknown) => e instanceof GeocoderError && e.status === 400,
    'q too short: the service refuses it',
  );

  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as { port: number }).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  await assert.rejects(
    new GeoplateformeGeocoder({ baseUrl: `http://127.0.0.1:${port}/geocodage` }).geocode(amiens),
    (e: unknown) => e instanceof GeocoderError && e.unreachable && !e.timedOut,
  );
});

test('429 with Retry-After: the engine pauses that long, then the request is tried again and succeeds', async () => {
  reset();
  let calls = 0;
  fake.respond = () =>
    ++calls === 1
      ? { status: 429, body: { code: 429, message: 'Too Many Requests' }, headers: { 'Retry-After': '1' } }
      : undefined;
  const g = geocoder();
  const r = await g.geocode(amiens);
  assert.equal(r?.provider, 'geoplateforme');
  assert.equal(fake.requests.length, 2);
  assert.ok(
    fake.requests[1]!.at - fake.requests[0]!.at >= 990,
    `waited ${fake.requests[1]!.at - fake.requests[0]!.at} ms, Retry-After is 1 s`,
  );
  assert.equal(g.guard.state, 'closed');
});

test('429 without Retry-After backs off 1 s then 2 s; after 3 tries the lookup fails with the 429', async () => {
  reset();
  fake.respond = () => ({ status: 429, body: 'Too Many Requests' });
  const g = geocoder({ breakerFailures: 1000 });
  await assert.rejects(g.geocode(amiens), (e: unknown) => e instanceof GeocoderError && e.status === 429);
  assert.equal(fake.requests.length, 3);
  const [a, b, c] = fake.requests.map((r) => r.at);
  assert.ok(b! - a! >= 990 && c! - b! >= 1990, `gaps ${b! - a!} ms, ${c! - b!} ms`);
});

test('429 asking for longer than the request timeout is not waited for: the lookup fails at once, and so do the others until the pause ends', async () => {
  reset();
  fake.respond = () => ({ status: 429, body: 'slow down', headers: { 'Retry-After': '120' } });
  const g = geocoder({ timeoutMs: 1000, breakerFailures: 1000 });
  await assert.rejects(
    g.geocode(amiens),
    (e: unknown) => e instanceof GeocoderError && e.status === 429 && e.retryAfterMs === 120_000,
  );
  fake.respond = () => undefined;
  await assert.rejects(g.geocode(amiens), /asked to wait 120 s/);
  assert.equal(fake.requests.length, 1, 'nothing is sent during the pause');
});

test('circuit breaker: after N failures the engine is skipped at once; after the cool-down one trial closes it again, or opens it for another cool-down', async () => {
  reset();
  fake.respond = () => ({ status: 503, body: 'down' });
  const g = geocoder({ breakerFailures: 3, breakerCooldownMs: 300 });
  for (let i = 0; i < 3; i++)
    await assert.rejects(g.geocode(amiens), (e: unknown) => e instanceof GeocoderError && e.status === 503);
  assert.equal(g.guard.state, 'open');
  const skipped = await Promise.allSettled(Array.from({ length: 10 }, () => g.geocode(amiens)));
  assert.ok(
    skipped.every(
      (s) =>
        s.status === 'rejected' &&
        /skipped after 3 consecutive failures/.test((s.reason as Error).message) &&
        (s.reason as GeocoderError).unreachable,
    ),
  );
  assert.equal(fake.requests.length, 3, 'an open breaker sends nothing');

  await new Promise((r) => setTimeout(r, 350));
  await assert.rejects(
    g.geocode(amiens),
    (e: unknown) => e instanceof GeocoderError && e.status === 503,
    'the trial fails',
  );
  assert.equal(g.guard.state, 'open');
  assert.equal(fake.requests.length, 4);

  await new Promise((r) => setTimeout(r, 350));
  fake.respond = () => undefined;
  assert.equal((await g.geocode(amiens))?.provider, 'geoplateforme', 'the trial succeeds');
  assert.equal(g.guard.state, 'closed');
  assert.equal((await g.geocode(paris(0)))?.precision, 'housenumber');
});

test('a 400 (the service refused this query) does not count toward the breaker; not found is no failure at all', async () => {
  reset();
  const g = geocoder({ breakerFailures: 2 });
  for (let i = 0; i < 4; i++)
    await assert.rejects(
      g.geocode({ street: '', postalCode: '80000', city: 'X' }),
      (e: unknown) => (e as GeocoderError).status === 400,
    );
  for (let i = 0; i < 4; i++)
    assert.equal(await g.geocode({ street: '1 rue Imaginaire', postalCode: '80000', city: 'Amiens' }), null);
  assert.equal(g.guard.state, 'closed');
});

test('batch: more addresses than the threshold → one POST /search/csv with the documented fields; results in input order', async () => {
  reset();
  const addresses = [
    ...PARIS_ADDRESSES.map((_, i) => paris(i)),
    amiens,
    { street: '1 rue Imaginaire', postalCode: '75004', city: 'Paris' },
  ];
  const out = await geocoder({ batchThreshold: 20 }).geocodeMany(addresses, { concurrency: 4 });
  assert.deepEqual(
    fake.requests.map((r) => [r.kind, r.rows]),
    [['csv', 22]],
  );
  out.slice(0, 20).forEach((o, i) => {
    assert.ok(o.ok && o.result, `row ${i}`);
    assert.deepEqual(
      [o.result.latitude, o.result.longitude, o.result.precision, o.result.provider],
      [PARIS_ADDRESSES[i]!.latitude, PARIS_ADDRESSES[i]!.longitude, 'housenumber', 'geoplateforme'],
    );
    assert.equal(
      o.result.label,
      `${PARIS_ADDRESSES[i]!.housenumber} ${PARIS_ADDRESSES[i]!.street} ${PARIS_ADDRESSES[i]!.postcode} Paris`,
    );
  });
  assert.ok(out[20]!.ok && out[20]!.result?.label === '8 Boulevard du Port 80000 Amiens');
  assert.deepEqual(out[21], { ok: true, result: null }, 'result_status not-found');

  reset();
  await geocoder({ batchThreshold: 20 }).geocodeMany(addresses.slice(0, 20), { concurrency: 4 });
  assert.deepEqual(
    fake.requests.map((r) => r.kind),
    Array(20).fill('search'),
    '20 addresses: single requests',
  );
});

test('batch failures: an error status or a malformed file → single requests; rows the service could not process are asked again alone', async () => {
  const addresses = PARIS_ADDRESSES.map((_, i) => paris(i)).concat([amiens]);
  for (const [what, answer] of [
    ['500', { status: 500, body: 'Internal Server Error' }],
    ['413', { status: 413, body: 'Payload Too Large' }],
    ['not CSV', { status: 200, body: '{"type":"FeatureCollection"}' }],
    ['unbalanced quotes', { status: 200, body: 'id,latitude,longitude\n0,"48.8,2.3\n' }],
  ] as const) {
    reset();
    fake.respondCsv = () => answer;
    const out = await geocoder({ batchThreshold: 20 }).geocodeMany(addresses, { concurrency: 4 });
    assert.deepEqual(
      fake.requests.map((r) => r.kind),
      ['csv', ...Array(21).fill('search')],
      what,
    );
    assert.ok(
      out.every((o) => o.ok && o.result?.precision === 'housenumber'),
      what,
    );
  }

  reset();
  let batch = true;
  fake.respondCsv = ({ rows }) => {
    if (!batch) return undefined;
    batch = false;
    // rows 0 and 1 answered, row 2 failed on the service's side, the others missing from the answer
    const header = 'id,street,postcode,city,latitude,longitude,result_label,result_score,result_type,result_status';
    const lines = [
      `0,x,75004,Paris,48.855648,2.358457,1 Rue de Rivoli 75004 Paris,0.97,housenumber,ok`,
      `1,x,75004,Paris,,,,,,not-found`,
      `2,x,75004,Paris,,,,,,error`,
    ];
    assert.equal(rows, 21);
    return { status: 200, body: `${header}\n${lines.join('\n')}\n` };
  };
  const out = await geocoder({ batchThreshold: 20 }).geocodeMany(addresses, { concurrency: 4 });
  assert.deepEqual(
    fake.requests.map((r) => r.kind),
    ['csv', ...Array(19).fill('search')],
    'rows 2…20 asked again alone',
  );
  assert.equal(out[0]!.ok && out[0]!.result?.label, '1 Rue de Rivoli 75004 Paris');
  assert.deepEqual(out[1], { ok: true, result: null });
  assert.ok(out.slice(2).every((o) => o.ok && o.result?.precision === 'housenumber'));
});

test('batch: a service that does not answer fails every address at once (no single requests after a timeout)', async () => {
  reset();
  fake.respondCsv = () => 'stall';
  const addresses = PARIS_ADDRESSES.map((_, i) => paris(i)).concat([amiens]);
  const out = await geocoder({ batchThreshold: 20, timeoutMs: 300 }).geocodeMany(addresses, { concurrency: 4 });
  assert.deepEqual(
    fake.requests.map((r) => r.kind),
    ['csv'],
  );
  assert.ok(out.every((o) => !o.ok && o.error instanceof GeocoderError && o.error.timedOut));
});

test("an aborted lookup rejects with the caller's reason and does not count as a service failure", async () => {
  reset();
  fake.respond = () => 'stall';
  const g = geocoder({ breakerFailures: 1, timeoutMs: 5000 });
  const controller = new AbortController();
  const pending = g.geocode(amiens, { signal: controller.signal });
  setTimeout(() => controller.abort(new Error('client went away')), 50);
  await assert.rejects(pending, /client went away/);
  assert.equal(g.guard.state, 'closed');
});
