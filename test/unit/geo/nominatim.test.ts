import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_NOMINATIM_USER_AGENT, NominatimGeocoder } from '../../../src/geo/geocoding/nominatim.js';
import { GeocoderError } from '../../../src/geo/geocoding/types.js';
import { nominatimResults, startFakeNominatim } from '../../fakes/nominatim.js';

const fake = await startFakeNominatim();
after(() => fake.close());
const address = { street: '8 boulevard du Port', postalCode: '80000', city: 'Amiens' };

test('found: lat/lon strings parsed, structured query, User-Agent sent', async () => {
  fake.requests.length = 0;
  fake.respond = () => ({
    status: 200,
    body: nominatimResults({ latitude: 49.8974, longitude: 2.2901, importance: 0.31 }),
  });
  const r = await new NominatimGeocoder({ baseUrl: fake.url }).geocode(address);
  assert.deepEqual(r, {
    latitude: 49.8974,
    longitude: 2.2901,
    precision: 'housenumber',
    provider: 'nominatim',
    label: '8, Boulevard du Port, Amiens, Somme, Hauts-de-France, France métropolitaine, 80000, France',
  });
  const req = fake.requests[0]!;
  assert.equal(req.path, '/search');
  assert.equal(req.userAgent, DEFAULT_NOMINATIM_USER_AGENT);
  const p = req.params;
  assert.deepEqual(
    [
      p.get('street'),
      p.get('postalcode'),
      p.get('city'),
      p.get('country'),
      p.get('format'),
      p.get('limit'),
      p.get('addressdetails'),
    ],
    ['8 boulevard du Port', '80000', 'Amiens', 'fr', 'jsonv2', '1', '0'],
  );
  await new NominatimGeocoder({ baseUrl: fake.url, userAgent: 'acme-delivery/2 (ops@acme.test)' }).geocode(address);
  assert.equal(fake.requests[1]!.userAgent, 'acme-delivery/2 (ops@acme.test)');
});

test('importance threshold and place_rank → precision', async () => {
  fake.respond = () => ({
    status: 200,
    body: nominatimResults({ latitude: 49.9, longitude: 2.3, importance: 0.1, placeRank: 26 }),
  });
  assert.equal((await new NominatimGeocoder({ baseUrl: fake.url }).geocode(address))?.precision, 'street');
  assert.equal(await new NominatimGeocoder({ baseUrl: fake.url, minImportance: 0.2 }).geocode(address), null);
  fake.respond = () => ({
    status: 200,
    body: nominatimResults({ latitude: 49.9, longitude: 2.3, importance: 0.5, placeRank: 16 }),
  });
  assert.equal(
    (await new NominatimGeocoder({ baseUrl: fake.url, minImportance: 0.2 }).geocode(address))?.precision,
    'municipality',
  );
});

test('not found: [] → null', async () => {
  fake.respond = () => ({ status: 200, body: [] });
  assert.equal(await new NominatimGeocoder({ baseUrl: fake.url }).geocode(address), null);
});

test('failures throw GeocoderError: 500, malformed, timeout', async () => {
  const n = new NominatimGeocoder({ baseUrl: fake.url, timeoutMs: 150, breakerFailures: 100 });
  fake.respond = () => ({ status: 500, body: { error: 'boom' } });
  await assert.rejects(
    n.geocode(address),
    (e: unknown) => e instanceof GeocoderError && e.status === 500 && e.provider === 'nominatim',
  );
  fake.respond = () => ({ status: 200, body: { error: 'not an array' } });
  await assert.rejects(n.geocode(address), /malformed/);
  fake.respond = () => ({ status: 200, body: [{ lat: 'x', lon: '2' }] });
  await assert.rejects(n.geocode(address), /lat\/lon/);
  fake.respond = () => 'stall';
  await assert.rejects(n.geocode(address), (e: unknown) => e instanceof GeocoderError && e.timedOut);
});

test('failures open the circuit breaker: the engine is skipped without a request until the cool-down ends', async () => {
  const n = new NominatimGeocoder({ baseUrl: fake.url, breakerFailures: 2, breakerCooldownMs: 60_000 });
  fake.respond = () => ({ status: 502, body: 'bad gateway' });
  const before = fake.requests.length;
  await assert.rejects(n.geocode(address), (e: unknown) => e instanceof GeocoderError && e.status === 502);
  await assert.rejects(n.geocode(address), (e: unknown) => e instanceof GeocoderError && e.status === 502);
  await assert.rejects(n.geocode(address), /nominatim: skipped after 2 consecutive failures; next try in 60 s/);
  assert.equal(fake.requests.length - before, 2);
  assert.equal(n.guard.state, 'open');
});

test('minIntervalMs spaces requests (public-instance policy)', async () => {
  fake.respond = () => ({ status: 200, body: [] });
  const n = new NominatimGeocoder({ baseUrl: fake.url, minIntervalMs: 100 });
  const t0 = Date.now();
  await Promise.all([n.geocode(address), n.geocode(address), n.geocode(address)]);
  assert.ok(Date.now() - t0 >= 190, `${Date.now() - t0} ms`);
  assert.throws(() => new NominatimGeocoder({ baseUrl: '' }), /baseUrl/);
});
