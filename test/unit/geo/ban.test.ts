import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { BanGeocoder, DEFAULT_BAN_BASE_URL } from '../../../src/geo/geocoding/ban.ts';
import { GeocoderError } from '../../../src/geo/geocoding/types.ts';
import { banFeatureCollection, startFakeBan } from '../../fakes/ban.ts';

const fake = await startFakeBan();
after(() => fake.close());
const address = { street: '8 boulevard du Port', postalCode: '80000', city: 'Amiens' };

test('found: [lon, lat] read in the right order, query parameters', async () => {
  fake.requests.length = 0;
  fake.paths.length = 0;
  fake.respond = (q) => ({ status: 200, body: banFeatureCollection({ latitude: 49.897443, longitude: 2.290084, score: 0.97 }, q.get('q')!) });
  const r = await new BanGeocoder({ baseUrl: `${fake.url}/` }).geocode(address);
  assert.deepEqual(r, { latitude: 49.897443, longitude: 2.290084, precision: 'housenumber', provider: 'ban' });
  assert.equal(fake.paths[0], '/search/');
  const q = fake.requests[0]!;
  assert.equal(q.get('q'), '8 boulevard du Port Amiens');
  assert.equal(q.get('postcode'), '80000');
  assert.equal(q.get('limit'), '1');
  assert.equal(DEFAULT_BAN_BASE_URL, 'https://api-adresse.data.gouv.fr');
});

test('score threshold: default 0.5, configurable; type → precision', async () => {
  fake.respond = () => ({ status: 200, body: banFeatureCollection({ latitude: 49.9, longitude: 2.3, score: 0.49, type: 'street' }) });
  assert.equal(await new BanGeocoder({ baseUrl: fake.url }).geocode(address), null);
  const low = await new BanGeocoder({ baseUrl: fake.url, minScore: 0.4 }).geocode(address);
  assert.deepEqual(low, { latitude: 49.9, longitude: 2.3, precision: 'street', provider: 'ban' });
  fake.respond = () => ({ status: 200, body: banFeatureCollection({ latitude: 49.9, longitude: 2.3, score: 0.6 }) });
  assert.equal(await new BanGeocoder({ baseUrl: fake.url, minScore: 0.7 }).geocode(address), null);
  assert.ok(await new BanGeocoder({ baseUrl: fake.url }).geocode(address));
});

test('not found: empty FeatureCollection → null', async () => {
  fake.respond = () => ({ status: 200, body: banFeatureCollection(null) });
  assert.equal(await new BanGeocoder({ baseUrl: fake.url }).geocode(address), null);
});

test('service failures throw GeocoderError: 500, 400, malformed body, timeout', async () => {
  const ban = new BanGeocoder({ baseUrl: fake.url, timeoutMs: 150 });
  fake.respond = () => ({ status: 500, body: 'oops' });
  await assert.rejects(ban.geocode(address), (e: unknown) => e instanceof GeocoderError && e.status === 500 && e.provider === 'ban');
  fake.respond = () => ({ status: 400, body: { code: 400, message: 'q must contain between 3 and 200 chars' } });
  await assert.rejects(ban.geocode(address), (e: unknown) => e instanceof GeocoderError && e.status === 400);
  fake.respond = () => ({ status: 200, body: { type: 'FeatureCollection' } });
  await assert.rejects(ban.geocode(address), /malformed/);
  fake.respond = () => ({ status: 200, body: '<html>' });
  await assert.rejects(ban.geocode(address), /not JSON/);
  fake.respond = () => 'stall';
  const t0 = Date.now();
  await assert.rejects(ban.geocode(address), (e: unknown) => e instanceof GeocoderError && e.timedOut);
  assert.ok(Date.now() - t0 < 2000);
});
