/**
 * Street addresses through the real app with the default geocoder chain (geoplateforme,embedded)
 * and the Géoplateforme faked at GEOPLATEFORME_URL: precision on every waypoint, warnings, the
 * fallback when the service is down (one timeout, not one per address), the rate limit at the
 * service, the batch path, the cache, GEOCODER_MIN_PRECISION and stops at the same place.
 */
import { strict as assert } from 'node:assert';
import { createServer } from 'node:net';
import { after, before, test } from 'node:test';
import { normaliseAddressKey } from '../../src/geo/index.js';
import { startFakeGeoplateforme, type FakeAddress, type FakeGeoplateforme } from '../fakes/geoplateforme.js';
import { PARIS_ADDRESSES, parisAddressStops } from '../fakes/paris-addresses.js';
import { PARIS_START, startTestServer, type TestServer } from '../helpers/server.js';

/** `count` more street addresses with distinct points, in the 11th arrondissement. */
function syntheticAddresses(count: number, street = 'Rue de la Roquette'): FakeAddress[] {
  return Array.from({ length: count }, (_, i) => ({
    housenumber: String(i + 1),
    street,
    postcode: '75011',
    city: 'Paris',
    citycode: '75111',
    latitude: 48.8532 + i * 0.00011,
    longitude: 2.3714 + i * 0.00009,
  }));
}
const asStops = (list: FakeAddress[], prefix: string) =>
  list.map((a, i) => ({
    id: `${prefix}${i + 1}`,
    street: `${a.housenumber} ${a.street}`,
    postalCode: a.postcode,
    city: a.city,
  }));

const VOSGES = PARIS_ADDRESSES[1]!; // 6 Place des Vosges
const EXTRA: FakeAddress[] = [
  // another name for the same entrance as 6 Place des Vosges (the same point)
  {
    housenumber: '1',
    street: 'Impasse Guéménée',
    postcode: '75004',
    city: 'Paris',
    citycode: '75104',
    latitude: VOSGES.latitude,
    longitude: VOSGES.longitude,
  },
  {
    name: 'Les Vignes',
    postcode: '75004',
    city: 'Paris',
    citycode: '75104',
    latitude: 48.8541,
    longitude: 2.3601,
    type: 'locality',
  },
  {
    street: 'Allée Introuvable',
    postcode: '75004',
    city: 'Paris',
    citycode: '75104',
    latitude: 48.8546,
    longitude: 2.3575,
    type: 'municipality',
  },
];

let fake: FakeGeoplateforme;
let server: TestServer;
before(async () => {
  fake = await startFakeGeoplateforme([...PARIS_ADDRESSES, ...EXTRA, ...syntheticAddresses(200)]);
  server = await startTestServer({ env: { GEOPLATEFORME_URL: fake.url } });
});
after(async () => {
  await server?.close();
  await fake?.close();
});

const reset = (): void => {
  fake.requests.length = 0;
  fake.respond = () => undefined;
  fake.respondCsv = () => undefined;
};

test('default chain, service answering: 20 Paris addresses → 20 distinct street-level points, each waypoint says how it was placed, no warnings', async () => {
  reset();
  assert.deepEqual(server.config.geocoding.chain, ['geoplateforme', 'embedded'], 'the default configuration');
  const key = await server.createKey('live', 100);
  const res = await server.request('POST', '/api/v1/optimize', {
    key,
    body: { start: PARIS_START, stops: parisAddressStops() },
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.waypoints.length, 20);
  assert.equal(
    new Set(res.body.waypoints.map((w: any) => `${w.latitude},${w.longitude}`)).size,
    20,
    '20 distinct points',
  );
  for (const w of res.body.waypoints) {
    const i = Number(w.id.slice(1)) - 1;
    const a = PARIS_ADDRESSES[i]!;
    assert.deepEqual([w.latitude, w.longitude], [a.latitude, a.longitude], w.id);
    assert.deepEqual(w.geocoding, {
      precision: 'housenumber',
      provider: 'geoplateforme',
      label: `${a.housenumber} ${a.street} ${a.postcode} Paris`,
    });
  }
  assert.equal('warnings' in res.body, false);
  assert.equal(res.body.stopsCharged, 20);
  assert.deepEqual(
    fake.requests.map((r) => r.kind),
    Array(20).fill('search'),
    '20 addresses: one request each (the batch starts above 20)',
  );
});

test('service unreachable: one timeout, not one per address; commune-level points, one geocoding_imprecise warning per stop, the live key charged as usual', async () => {
  reset();
  fake.respond = () => 'stall';
  const down = await startTestServer({ env: { GEOPLATEFORME_URL: fake.url, GEOCODER_TIMEOUT_MS: '1000' } });
  try {
    const key = await down.createKey('live', 100);
    const res = await down.request('POST', '/api/v1/optimize', {
      key,
      body: { start: PARIS_START, stops: parisAddressStops() },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.ok(
      fake.requests.length <= down.config.geocoding.concurrencyPerCall,
      `${fake.requests.length} requests reached the service: the breaker opened after the first wave (at most ${down.config.geocoding.concurrencyPerCall} in flight) and the other addresses fell through at once`,
    );
    for (const w of res.body.waypoints) {
      assert.equal(w.geocoding.provider, 'embedded');
      assert.equal(w.geocoding.precision, 'municipality');
      assert.match(w.geocoding.label, /^750\d\d Paris \d+e?r? Arrondissement$/);
    }
    assert.equal(res.body.warnings.length, 20);
    assert.deepEqual(
      res.body.warnings.map((w: any) => w.stopId).sort(),
      parisAddressStops()
        .map((s) => s.id)
        .sort(),
    );
    for (const w of res.body.warnings) {
      assert.equal(w.code, 'geocoding_imprecise');
      assert.equal(w.location, 'stop');
      assert.equal(w.precision, 'municipality');
      assert.match(
        w.message,
        /^Stop "p\d\d" was placed at its commune \("750\d\d Paris .*", embedded\), not at its street/,
      );
    }
    assert.equal(res.body.stopsCharged, 20);
    assert.equal(res.body.stopsBalance, 80);
    assert.deepEqual(await down.ledgerOf(key), { balance: 80, sum: 80, reasons: ['admin_credit', 'debit'] });

    // the next call, breaker open: nothing reaches the service
    const sent = fake.requests.length;
    const again = await down.request('POST', '/api/v1/optimize', {
      key,
      body: { start: PARIS_START, stops: parisAddressStops() },
    });
    assert.equal(again.status, 200);
    assert.equal(again.body.warnings.length, 20);
    assert.equal(fake.requests.length, sent);
  } finally {
    await down.close();
  }
});

test('service refusing connections: the same fallback, commune level with warnings', async () => {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as { port: number }).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const refused = await startTestServer({ env: { GEOPLATEFORME_URL: `http://127.0.0.1:${port}/geocodage` } });
  try {
    const key = await refused.createKey('live', 100);
    const res = await refused.request('POST', '/api/v1/optimize', {
      key,
      body: { start: PARIS_START, stops: parisAddressStops().slice(0, 5) },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(
      res.body.warnings.map((w: any) => w.precision),
      Array(5).fill('municipality'),
    );
    assert.equal(res.body.stopsCharged, 5);
  } finally {
    await refused.close();
  }
});

test('a burst of 200 addresses in 4 concurrent calls, batch endpoint failing: the service never sees more than the configured requests per second', async () => {
  reset();
  fake.respondCsv = () => ({ status: 502, body: 'Bad Gateway' });
  const burst = await startTestServer({
    env: { GEOPLATEFORME_URL: fake.url, GEOCODER_CONCURRENCY: '32', GEOPLATEFORME_RATE_LIMIT: '50' },
  });
  try {
    const key = await burst.createKey('live', 1000);
    const stops = asStops(syntheticAddresses(200), 'r');
    const calls = [0, 1, 2, 3].map((k) =>
      burst.request('POST', '/api/v1/optimize', {
        key,
        body: { start: PARIS_START, stops: stops.slice(k * 50, k * 50 + 50) },
      }),
    );
    const answers = await Promise.all(calls);
    for (const res of answers) {
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.ok(
        res.body.waypoints.every(
          (w: any) => w.geocoding.precision === 'housenumber' && w.geocoding.provider === 'geoplateforme',
        ),
      );
      assert.equal('warnings' in res.body, false);
    }
    const searches = fake.requests.filter((r) => r.kind === 'search').length;
    assert.equal(searches, 200);
    assert.ok(
      fake.maxInWindow(1000) <= 50,
      `the service saw ${fake.maxInWindow(1000)} requests within one second (limit 50)`,
    );
  } finally {
    await burst.close();
  }
});

test('more than 20 addresses to look up: one CSV batch request instead of one request each', async () => {
  reset();
  const key = await server.createKey('live', 100);
  const oberkampf = syntheticAddresses(25, 'Rue Oberkampf');
  fake.addresses = [...fake.addresses, ...oberkampf];
  const stops = [...parisAddressStops(), ...asStops(oberkampf, 'o')];
  const res = await server.request('POST', '/api/v1/optimize', { key, body: { start: PARIS_START, stops } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(
    fake.requests.map((r) => [r.kind, r.rows]),
    [['csv', 25]],
    'the 20 Paris addresses come from the cache; the 25 others in one batch',
  );
  assert.equal(res.body.waypoints.length, 45);
  assert.ok(
    res.body.waypoints.every(
      (w: any) => w.geocoding.precision === 'housenumber' && w.geocoding.provider === 'geoplateforme',
    ),
  );
});

test('the cache: a second call with the same addresses sends nothing; rows record precision and engine', async () => {
  reset();
  const key = await server.createKey('live', 100);
  const body = { start: PARIS_START, stops: parisAddressStops().slice(0, 8) };
  const first = await server.request('POST', '/api/v1/optimize', { key, body });
  assert.equal(first.status, 200);
  const sent = fake.requests.length;
  const second = await server.request('POST', '/api/v1/optimize', { key, body });
  assert.equal(second.status, 200);
  assert.equal(fake.requests.length, sent, 'every address from the cache');
  assert.deepEqual(second.body.waypoints, first.body.waypoints);
  const a = PARIS_ADDRESSES[0]!;
  const entry = await server.services.store.getCachedGeocode(
    `geoplateforme:${normaliseAddressKey({ street: `${a.housenumber} ${a.street}`, postalCode: a.postcode, city: 'Paris' })}`,
  );
  assert.deepEqual([entry?.precision, entry?.engine], ['housenumber', 'geoplateforme']);
});

test('coarser than street: a warning per such location, the start included; street level needs none', async () => {
  reset();
  const key = await server.createKey('live', 100);
  const res = await server.request('POST', '/api/v1/optimize', {
    key,
    body: {
      start: { street: 'Allée Introuvable', postalCode: '75004', city: 'Paris' },
      stops: [
        { id: 'vignes', street: 'Les Vignes', postalCode: '75004', city: 'Paris' },
        { id: 'rue', street: '999 Rue de Rivoli', postalCode: '75004', city: 'Paris' },
        { id: 'coords', latitude: 48.86, longitude: 2.35 },
      ],
    },
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const byId = new Map(res.body.waypoints.map((w: any) => [w.id, w]));
  assert.deepEqual((byId.get('vignes') as any).geocoding, {
    precision: 'locality',
    provider: 'geoplateforme',
    label: 'Les Vignes 75004 Paris',
  });
  assert.deepEqual((byId.get('rue') as any).geocoding, {
    precision: 'street',
    provider: 'geoplateforme',
    label: 'Rue de Rivoli 75004 Paris',
  });
  assert.equal('geocoding' in (byId.get('coords') as any), false, 'coordinates sent by the caller carry none');
  assert.deepEqual(
    res.body.warnings.map((w: any) => [w.location, w.stopId, w.precision]),
    [
      ['start', undefined, 'municipality'],
      ['stop', 'vignes', 'locality'],
    ],
  );
  assert.match(res.body.warnings[0].message, /^The start was placed at its commune \("Paris", geoplateforme\)/);
  assert.match(res.body.warnings[1].message, /^Stop "vignes" was placed at a locality/);
});

test('GEOCODER_MIN_PRECISION=street: a stop found only at locality level → 422 geocoding_failed naming it and why; nothing charged', async () => {
  reset();
  const strict = await startTestServer({ env: { GEOPLATEFORME_URL: fake.url, GEOCODER_MIN_PRECISION: 'street' } });
  try {
    const key = await strict.createKey('live', 10);
    const ok = await strict.request('POST', '/api/v1/optimize', {
      key,
      body: { start: PARIS_START, stops: parisAddressStops().slice(0, 2) },
    });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    const res = await strict.request('POST', '/api/v1/optimize', {
      key,
      body: {
        start: PARIS_START,
        stops: [
          ...parisAddressStops().slice(0, 2),
          { id: 'vignes', street: 'Les Vignes', postalCode: '75004', city: 'Paris' },
        ],
      },
    });
    assert.equal(res.status, 422);
    assert.equal(res.body.error, 'geocoding_failed');
    assert.equal(
      res.body.message,
      'Could not geocode: stops[2] (id "vignes") was only located at locality level ("Les Vignes 75004 Paris"), and this service requires street level or finer. ' +
        'Check the street, postal code and city, or send coordinates. Nothing was charged.',
    );
    assert.deepEqual(await strict.ledgerOf(key), {
      balance: 8,
      sum: 8,
      reasons: ['admin_credit', 'debit', 'debit', 'refund'],
    });
  } finally {
    await strict.close();
  }
});

test("addresses at the same point are separate stops: each one's service time is counted, and they are visited in input order", async () => {
  reset();
  const key = await server.createKey('live', 100);
  const same = {
    street: `${VOSGES.housenumber} ${VOSGES.street}`,
    postalCode: '75004',
    city: 'Paris',
    serviceSeconds: 300,
  };
  const stops = [
    { id: 'far', latitude: 48.8867, longitude: 2.3431 },
    { id: 'v1', ...same },
    { id: 'alias', street: '1 Impasse Guéménée', postalCode: '75004', city: 'Paris', serviceSeconds: 300 },
    { id: 'v2', ...same },
  ];
  const res = await server.request('POST', '/api/v1/optimize', {
    key,
    body: { start: { latitude: 48.8534, longitude: 2.3488 }, stops, departureTime: '2026-06-01T08:00:00+02:00' },
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const order: string[] = res.body.order.filter((id: string) => id !== 'far');
  assert.deepEqual(order, ['v1', 'alias', 'v2'], 'input order at the same place');
  const arrivals = new Map(res.body.schedule.map((e: any) => [e.colisId, Date.parse(e.arrivee)]));
  assert.equal(
    (arrivals.get('alias') as number) - (arrivals.get('v1') as number),
    300_000,
    "v1's 5 minutes of service",
  );
  assert.equal((arrivals.get('v2') as number) - (arrivals.get('alias') as number), 300_000);
  const points = new Set(
    res.body.waypoints.filter((w: any) => w.id !== 'far').map((w: any) => `${w.latitude},${w.longitude}`),
  );
  assert.equal(points.size, 1);
});

test('the OpenAPI document describes waypoint geocoding and the warnings', async () => {
  const doc = (await server.request('GET', '/api/v1/openapi.json')).body;
  const schemas = doc.components.schemas;
  const response = schemas.OptimizeResponse;
  assert.deepEqual(response.properties.waypoints.items, { $ref: '#/components/schemas/Waypoint' });
  assert.deepEqual(schemas.Waypoint.properties.geocoding, { $ref: '#/components/schemas/WaypointGeocoding' });
  const geocoding = schemas.WaypointGeocoding;
  assert.deepEqual(geocoding.required, ['precision', 'provider', 'label']);
  assert.deepEqual(geocoding.properties.precision.enum, ['housenumber', 'street', 'locality', 'municipality']);
  assert.deepEqual(response.properties.warnings.items, { $ref: '#/components/schemas/RouteWarning' });
  assert.deepEqual(schemas.RouteWarning.properties.code.enum, ['geocoding_imprecise']);
  assert.ok(!response.required.includes('warnings'));
});
