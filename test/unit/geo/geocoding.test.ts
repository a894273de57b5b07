import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CachedGeocoder,
  GeocoderChain,
  GeocoderError,
  GeocodingFailedError,
  MemoryGeocodeCache,
  createGeocoder,
  geocodeAll,
  normaliseAddressKey,
  usesEmbeddedGeocoder,
  type Address,
  type GeocodeResult,
  type Geocoder,
} from '../../../src/geo/geocoding/index.ts';
import { banFeatureCollection, startFakeBan } from '../../fakes/ban.ts';

const addr = (street: string, postalCode = '75004', city = 'Paris'): Address => ({ street, postalCode, city });
const point = (provider: string, latitude = 48.85): NonNullable<GeocodeResult> => ({ latitude, longitude: 2.35, precision: 'housenumber', provider });

class FakeGeocoder implements Geocoder {
  calls: Address[] = [];
  inFlight = 0;
  maxInFlight = 0;
  constructor(
    readonly name: string,
    private readonly answer: (a: Address) => GeocodeResult | Error,
    private readonly delayMs = 0,
  ) {}
  async geocode(a: Address): Promise<GeocodeResult> {
    this.calls.push(a);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      if (this.delayMs > 0) await new Promise((r) => setTimeout(r, this.delayMs));
      const r = this.answer(a);
      if (r instanceof Error) throw r;
      return r;
    } finally {
      this.inFlight--;
    }
  }
}

const logs: { obj: object; msg?: string }[] = [];
const logger = { warn: (obj: object, msg?: string) => logs.push({ obj, msg }), info: () => {} };

test('chain: not found → next; failure → next (logged); first hit wins', async () => {
  logs.length = 0;
  const a = new FakeGeocoder('a', () => null);
  const b = new FakeGeocoder('b', () => new GeocoderError('b', 'HTTP 500'));
  const c = new FakeGeocoder('c', () => point('c'));
  const d = new FakeGeocoder('d', () => point('d'));
  const chain = new GeocoderChain([a, b, c, d], { logger });
  assert.equal(chain.name, 'a,b,c,d');
  assert.deepEqual(await chain.geocode(addr('1 rue X')), point('c'));
  assert.equal(d.calls.length, 0);
  assert.equal(logs.length, 1);
  assert.match(logs[0]!.msg!, /b failed, falling back to c/);
});

test('chain: all not found → null; not found + failure → GeocoderError (service trouble, not a bad address)', async () => {
  const nf = new FakeGeocoder('nf', () => null);
  assert.equal(await new GeocoderChain([nf, nf]).geocode(addr('x')), null);
  const boom = new FakeGeocoder('boom', () => new GeocoderError('boom', 'down'));
  await assert.rejects(new GeocoderChain([boom, nf]).geocode(addr('x')), (e: unknown) => e instanceof GeocoderError && e.provider === 'chain');
  await assert.rejects(new GeocoderChain([boom]).geocode(addr('x')), (e: unknown) => e instanceof GeocoderError && e.provider === 'boom');
});

test('createGeocoder(["ban","embedded"]): BAN down → embedded answers; BAN found → BAN', async () => {
  const fake = await startFakeBan(() => ({ status: 502, body: 'bad gateway' }));
  try {
    logs.length = 0;
    const g = createGeocoder(['ban', 'embedded'], { ban: { baseUrl: fake.url, timeoutMs: 500 }, logger });
    assert.equal(g.name, 'ban,embedded');
    const r = await g.geocode({ street: '1 rue de Rivoli', postalCode: '75004', city: 'Paris' });
    assert.equal(r?.provider, 'embedded');
    assert.equal(r?.precision, 'municipality');
    assert.equal(logs.length, 1);
    fake.respond = () => ({ status: 200, body: banFeatureCollection({ latitude: 48.8559, longitude: 2.3587, score: 0.93 }) });
    assert.deepEqual(await g.geocode({ street: '1 rue de Rivoli', postalCode: '75004', city: 'Paris' }), {
      latitude: 48.8559,
      longitude: 2.3587,
      precision: 'housenumber',
      provider: 'ban',
    });
  } finally {
    await fake.close();
  }
  assert.throws(() => createGeocoder(['nominatim']), /baseUrl/);
  assert.throws(() => createGeocoder(['photon']), /unknown geocoder "photon"/);
  assert.throws(() => createGeocoder([' ']), /at least one/);
  assert.equal(usesEmbeddedGeocoder(['ban', 'embedded']), true);
  assert.equal(usesEmbeddedGeocoder(['ban']), false);
});

test('normaliseAddressKey ignores case, accents, punctuation and St/Saint', () => {
  assert.equal(
    normaliseAddressKey({ street: '12, Rue St-Honoré', postalCode: '75001', city: 'PARIS' }),
    normaliseAddressKey({ street: '12 rue saint honore', postalCode: ' 75001', city: 'Paris' }),
  );
  assert.notEqual(normaliseAddressKey(addr('12 rue A')), normaliseAddressKey(addr('14 rue A')));
});

test('CachedGeocoder: hits skip the geocoder; not-found and errors are not cached by default', async () => {
  let answer: GeocodeResult | Error = point('inner');
  const inner = new FakeGeocoder('inner', () => answer);
  const cache = new MemoryGeocodeCache();
  const g = new CachedGeocoder(inner, cache);
  assert.deepEqual(await g.geocode(addr('1 Rue A')), point('inner'));
  assert.deepEqual(await g.geocode(addr('1 rue a')), point('inner'));
  assert.equal(inner.calls.length, 1);
  assert.equal(cache.get(`inner:${normaliseAddressKey(addr('1 rue a'))}`)?.provider, 'inner');

  answer = null;
  assert.equal(await g.geocode(addr('2 rue B')), null);
  assert.equal(await g.geocode(addr('2 rue B')), null);
  assert.equal(inner.calls.length, 3);
  answer = new GeocoderError('inner', 'down');
  await assert.rejects(g.geocode(addr('3 rue C')));
  assert.equal(cache.size, 1);

  answer = null;
  const neg = new CachedGeocoder(inner, cache, { cacheNotFound: true, keyPrefix: '' });
  assert.equal(await neg.geocode(addr('4 rue D')), null);
  assert.equal(await neg.geocode(addr('4 rue D')), null);
  assert.equal(inner.calls.length, 5);
  assert.equal(cache.get(normaliseAddressKey(addr('4 rue D'))), null);
});

test('geocodeAll: at most `concurrency` calls in flight, results in input order', async () => {
  const g = new FakeGeocoder('slow', (a) => point('slow', Number(a.street)), 15);
  const items = Array.from({ length: 20 }, (_, i) => ({ label: `stops[${i}]`, address: addr(String(i)) }));
  const out = await geocodeAll(items, g, { concurrency: 3 });
  assert.equal(g.maxInFlight, 3);
  assert.deepEqual(out.map((p) => p.latitude), items.map((_, i) => i));
  const one = new FakeGeocoder('one', () => point('one'), 5);
  await geocodeAll(items, one, { concurrency: 1 });
  assert.equal(one.maxInFlight, 1);
});

test('geocodeAll: identical addresses are geocoded once', async () => {
  const g = new FakeGeocoder('g', () => point('g'));
  const out = await geocodeAll(
    [
      { label: 'start', address: addr('1 rue A') },
      { label: 'stops[0] (id "a")', address: addr('1, RUE A') },
      { label: 'end', address: addr('1 rue A') },
    ],
    g,
    { concurrency: 4 },
  );
  assert.equal(out.length, 3);
  assert.equal(g.calls.length, 1);
});

test('geocodeAll: failures listed by label, in input order, with the reason', async () => {
  const g = new FakeGeocoder('g', (a) => (a.street === 'missing' ? null : a.street === 'down' ? new GeocoderError('g', 'HTTP 500') : point('g')));
  const items = [
    { label: 'start', address: addr('ok') },
    { label: 'stops[0] (id "a")', address: addr('ok 2') },
    { label: 'stops[3] (id "abc")', address: addr('missing') },
    { label: 'stops[4] (id "d")', address: addr('down') },
    { label: 'end', address: addr('missing') },
  ];
  await assert.rejects(geocodeAll(items, g, { concurrency: 2 }), (e: unknown) => {
    assert.ok(e instanceof GeocodingFailedError);
    assert.deepEqual(e.labels, ['stops[3] (id "abc")', 'stops[4] (id "d")', 'end']);
    assert.deepEqual(e.failures.map((f) => f.reason), ['not_found', 'error', 'not_found']);
    assert.equal(e.message, 'Could not geocode: stops[3] (id "abc"), stops[4] (id "d"), end');
    return true;
  });
  assert.deepEqual(await geocodeAll([], g, { concurrency: 2 }), []);
});
