import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { BanGeocoder } from '../../../src/geo/geocoding/ban.js';
import { GeocoderError } from '../../../src/geo/geocoding/types.js';
import { banFeatureCollection, startFakeBan } from '../../fakes/ban.js';

const fake = await startFakeBan();
after(() => fake.close());
const address = { street: '8 boulevard du Port', postalCode: '80000', city: 'Amiens' };

test('a self-hosted addok needs its URL', () => {
  assert.throws(() => new BanGeocoder({ baseUrl: '' }), /baseUrl is required/);
});

test('found: [lon, lat] read in the right order, label kept, query parameters', async () => {
  fake.requests.length = 0;
  fake.paths.length = 0;
  fake.respond = (q) => ({
    status: 200,
    body: banFeatureCollection({ latitude: 49.897443, longitude: 2.290084, score: 0.97 }, q.get('q')!),
  });
  const r = await new BanGeocoder({ baseUrl: `${fake.url}/` }).geocode(address);
  assert.deepEqual(r, {
    latitude: 49.897443,
    longitude: 2.290084,
    precision: 'housenumber',
    provider: 'ban',
    label: '8 Boulevard du Port 80000 Amiens',
  });
  assert.equal(fake.paths[0], '/search/');
  const q = fake.requests[0]!;
  assert.equal(q.get('q'), '8 boulevard du Port Amiens');
  assert.equal(q.get('postcode'), '80000');
  assert.equal(q.get('limit'), '1');
  assert.equal(q.get('autocomplete'), '0');
  assert.equal(q.get('index'), null, 'index is a Géoplateforme parameter, not sent to addok');
});

test('score threshold: default 0.5, configurable; type → precision', async () => {
  fake.respond = () => ({
    status: 200,
    body: banFeatureCollection({ latitude: 49.9, longitude: 2.3, score: 0.49, type: 'street' }),
  });
  assert.equal(await new BanGeocoder({ baseUrl: fake.url }).geocode(address), null);
  const low = await new BanGeocoder({ baseUrl: fake.url, minScore: 0.4 }).geocode(address);
  assert.deepEqual(low, {
    latitude: 49.9,
    longitude: 2.3,
    precision: 'street',
    provider: 'ban',
    label: '8 Boulevard du Port 80000 Amiens',
  });
  fake.respond = () => ({ status: 200, body: banFeatureCollection({ latitude: 49.9, longitude: 2.3, score: 0.6 }) });
  assert.equal(await new BanGeocoder({ baseUrl: fake.url, minScore: 0.7 }).geocode(address), null);
  assert.ok(await new BanGeocoder({ baseUrl: fake.url }).geocode(address));
});

test('not found: empty FeatureCollection → null', async () => {
  fake.respond = () => ({ status: 200, body: banFeatureCollection(null) });
  assert.equal(await new BanGeocoder({ baseUrl: fake.url }).geocode(address), null);
});

test('service failures throw GeocoderError: 500, 400, malformed body, timeout', async () => {
  const ban = new BanGeocoder({ baseUrl: fake.url, timeoutMs: 150, breakerFailures: 100 });
  fake.respond = () => ({ status: 500, body: 'oops' });
  await assert.rejects(
    ban.geocode(address),
    (e: unknown) => e instanceof GeocoderError && e.status === 500 && e.provider === 'ban',
  );
  fake.respond = () => ({ status: 400, body: { code: 400, message: 'q must contain between 3 and 200 chars' } });
  await assert.rejects(ban.geocode(address), (e: unknown) => e instanceof GeocoderError && e.status === 400);
  fake.respond = () => ({ status: 200, body: { type: 'FeatureCollection' } });
  await assert.rejects(ban.geocode(address), /malformed/);
  fake.respond = () => ({ status: 200, body: '<html>' });
  await assert.rejects(ban.geocode(address), /not JSON/);
  fake.respond = () => 'stall';
  await assert.rejects(ban.geocode(address), (e: unknown) => e instanceof GeocoderError && e.timedOut && e.unreachable);
});

test('batch: the addok-csv plugin answers one CSV for many addresses; without the plugin (404) the addresses are looked up one by one, and the endpoint is not tried again', async () => {
  const addresses = Array.from({ length: 6 }, (_, i) => ({
    street: `${i + 1} rue du Port`,
    postalCode: '80000',
    city: 'Amiens',
  }));
  fake.respond = (q) =>
    q.get('q')!.startsWith('6 ')
      ? { status: 200, body: banFeatureCollection(null) }
      : {
          status: 200,
          body: banFeatureCollection({ latitude: 49.89 + Number(q.get('q')![0]) / 1000, longitude: 2.29, score: 0.9 }),
        };
  fake.csv = true;
  fake.paths.length = 0;
  const ban = new BanGeocoder({ baseUrl: fake.url, batchThreshold: 5 });
  const out = await ban.geocodeMany(addresses, { concurrency: 2 });
  assert.deepEqual(fake.paths, ['/search/csv/']);
  assert.deepEqual(
    out.map((o) => (o.ok ? (o.result?.latitude ?? null) : 'error')),
    [49.891, 49.892, 49.893, 49.894, 49.895, null],
  );
  assert.ok(
    out.every(
      (o) =>
        !o.ok ||
        o.result === null ||
        (o.result.provider === 'ban' && o.result.label === '8 Boulevard du Port 80000 Amiens'),
    ),
  );

  fake.csv = false;
  fake.paths.length = 0;
  const noPlugin = new BanGeocoder({ baseUrl: fake.url, batchThreshold: 5 });
  const singles = await noPlugin.geocodeMany(addresses, { concurrency: 2 });
  assert.deepEqual(
    singles.map((o) => (o.ok ? (o.result?.latitude ?? null) : 'error')),
    [49.891, 49.892, 49.893, 49.894, 49.895, null],
  );
  assert.deepEqual(fake.paths, ['/search/csv/', ...addresses.map(() => '/search/')]);
  fake.paths.length = 0;
  await noPlugin.geocodeMany(addresses, { concurrency: 2 });
  assert.deepEqual(
    fake.paths,
    addresses.map(() => '/search/'),
    'the missing CSV endpoint is remembered',
  );
});
