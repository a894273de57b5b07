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
  ImpreciseMatchError,
  isCommuneLevelFirst,
  normaliseAddressKey,
  type Address,
  type GeocodePrecision,
  type GeocodeResult,
  type Geocoder,
} from '../../../src/geo/geocoding/index.js';
import { banFeatureCollection, startFakeBan } from '../../fakes/ban.js';

const addr = (street: string, postalCode = '75004', city = 'Paris'): Address => ({ street, postalCode, city });
const point = (
  provider: string,
  latitude = 48.85,
  precision: GeocodePrecision = 'housenumber',
): NonNullable<GeocodeResult> => ({
  latitude,
  longitude: 2.35,
  precision,
  provider,
  label: `${provider} ${latitude}`,
});

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
  assert.match(logs[0]!.msg!, /b failed for 1 of 1 addresses, falling back to c/);
});

test('chain: all not found → null; not found + failure → GeocoderError (service trouble, not a bad address)', async () => {
  const nf = new FakeGeocoder('nf', () => null);
  assert.equal(await new GeocoderChain([nf, nf]).geocode(addr('x')), null);
  const boom = new FakeGeocoder('boom', () => new GeocoderError('boom', 'down'));
  await assert.rejects(
    new GeocoderChain([boom, nf]).geocode(addr('x')),
    (e: unknown) => e instanceof GeocoderError && e.provider === 'chain',
  );
  await assert.rejects(
    new GeocoderChain([boom]).geocode(addr('x')),
    (e: unknown) => e instanceof GeocoderError && e.provider === 'boom',
  );
});

test('createGeocoder(["ban","embedded"]): BAN down → embedded answers; BAN found → BAN', async () => {
  const fake = await startFakeBan(() => ({ status: 502, body: 'bad gateway' }));
  try {
    logs.length = 0;
    const g = createGeocoder(['ban', 'embedded'], { ban: { baseUrl: fake.url, timeoutMs: 500 }, logger });
    assert.equal(g.geocoders[0]!.name, 'ban');
    assert.equal(g.name, 'ban,embedded');
    const r = await g.geocode({ street: '1 rue de Rivoli', postalCode: '75004', city: 'Paris' });
    assert.equal(r?.provider, 'embedded');
    assert.equal(r?.precision, 'municipality');
    assert.equal(logs.length, 1);
    fake.respond = () => ({
      status: 200,
      body: banFeatureCollection({ latitude: 48.8559, longitude: 2.3587, score: 0.93 }),
    });
    assert.deepEqual(await g.geocode({ street: '1 rue de Rivoli', postalCode: '75004', city: 'Paris' }), {
      latitude: 48.8559,
      longitude: 2.3587,
      precision: 'housenumber',
      provider: 'ban',
      label: '8 Boulevard du Port 80000 Amiens',
    });
  } finally {
    await fake.close();
  }
  assert.throws(() => createGeocoder(['nominatim']), /baseUrl/);
  assert.throws(() => createGeocoder(['ban']), /baseUrl/);
  assert.throws(() => createGeocoder(['photon']), /unknown geocoder "photon"/);
  assert.throws(() => createGeocoder([' ']), /at least one/);
  assert.equal(isCommuneLevelFirst(['embedded']), true);
  assert.equal(isCommuneLevelFirst(['geoplateforme', 'embedded']), false);
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
  assert.deepEqual(
    out.map((p) => p.latitude),
    items.map((_, i) => i),
  );
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
  const g = new FakeGeocoder('g', (a) =>
    a.street === 'missing' ? null : a.street === 'down' ? new GeocoderError('g', 'HTTP 500') : point('g'),
  );
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
    assert.deepEqual(
      e.failures.map((f) => f.reason),
      ['not_found', 'error', 'not_found'],
    );
    assert.equal(e.message, 'Could not geocode: stops[3] (id "abc"), stops[4] (id "d"), end');
    assert.ok(e.failures[1]!.error instanceof GeocoderError);
    return true;
  });
  assert.deepEqual(await geocodeAll([], g, { concurrency: 2 }), []);
});

test('chain: a match coarser than minPrecision asks the next engine; when none is precise enough → ImpreciseMatchError with the finest match', async () => {
  const coarse = new FakeGeocoder('coarse', (a) =>
    a.street === 'rue fine' ? point('coarse', 48.1, 'street') : point('coarse', 48.2, 'locality'),
  );
  const fine = new FakeGeocoder('fine', (a) =>
    a.street === 'rue fine' ? point('fine', 48.3, 'housenumber') : point('fine', 48.4, 'municipality'),
  );
  const chain = new GeocoderChain([coarse, fine], { minPrecision: 'street' });
  assert.deepEqual(await chain.geocode(addr('rue fine')), point('coarse', 48.1, 'street'));
  assert.equal(fine.calls.length, 0, 'street level is enough: the next engine is not asked');
  await assert.rejects(chain.geocode(addr('rue floue')), (e: unknown) => {
    assert.ok(e instanceof ImpreciseMatchError);
    assert.equal(e.required, 'street');
    assert.deepEqual(e.best, point('coarse', 48.2, 'locality'), 'the finer of the two coarse matches');
    return true;
  });
  assert.equal(fine.calls.length, 1);
  // the default accepts every precision
  assert.equal((await new GeocoderChain([coarse, fine]).geocode(addr('rue floue')))?.provider, 'coarse');
});

test('chain.geocodeMany: each engine gets only what the previous ones did not find, one batch per engine', async () => {
  const batches: string[][] = [];
  const batching = (name: string, knows: (a: Address) => boolean): Geocoder => ({
    name,
    geocode: async () => {
      throw new Error('not used');
    },
    geocodeMany: async (addresses) => {
      batches.push([name, ...addresses.map((a) => a.street)]);
      return addresses.map((a) =>
        knows(a) ? { ok: true as const, result: point(name) } : { ok: true as const, result: null },
      );
    },
  });
  const chain = new GeocoderChain([
    batching('a', (x) => x.street !== 'b' && x.street !== 'c'),
    batching('b', (x) => x.street === 'b'),
  ]);
  const out = await chain.geocodeMany([addr('a'), addr('b'), addr('c')], { concurrency: 2 });
  assert.deepEqual(
    out.map((o) => (o.ok ? (o.result?.provider ?? null) : 'error')),
    ['a', 'b', null],
  );
  assert.deepEqual(batches, [
    ['a', 'a', 'b', 'c'],
    ['b', 'b', 'c'],
  ]);
});

test('CachedGeocoder.geocodeMany: hits are answered from the cache, only the misses reach the engine, in one batch', async () => {
  const seen: number[] = [];
  const engine: Geocoder = {
    name: 'net',
    geocode: async () => {
      throw new Error('not used');
    },
    geocodeMany: async (addresses) => {
      seen.push(addresses.length);
      return addresses.map((a) =>
        a.street === 'ghost'
          ? { ok: true as const, result: null }
          : { ok: true as const, result: point('net', Number(a.street)) },
      );
    },
  };
  const cache = new MemoryGeocodeCache();
  const cached = new CachedGeocoder(engine, cache);
  await cached.geocodeMany([addr('1'), addr('2')], { concurrency: 4 });
  const out = await cached.geocodeMany([addr('1'), addr('2'), addr('3'), addr('ghost')], { concurrency: 4 });
  assert.deepEqual(seen, [2, 2], 'the second call sends only 3 and ghost');
  assert.deepEqual(
    out.map((o) => (o.ok ? (o.result?.latitude ?? null) : 'error')),
    [1, 2, 3, null],
  );
  assert.equal(cache.size, 3, 'not-found is not cached');
});

test('createGeocoder with a cache: network engines are cached under their own name, the embedded fallback never', async () => {
  const fake = await startFakeBan(() => ({ status: 503, body: 'down' }));
  try {
    const cache = new MemoryGeocodeCache();
    const g = createGeocoder(['ban', 'embedded'], { ban: { baseUrl: fake.url, breakerFailures: 100 }, cache });
    const rivoli = { street: '1 rue de Rivoli', postalCode: '75004', city: 'Paris' };
    assert.equal((await g.geocode(rivoli))?.provider, 'embedded');
    assert.equal(cache.size, 0, 'a commune-level answer given while the street-level engine was down is not kept');
    fake.respond = () => ({
      status: 200,
      body: banFeatureCollection({ latitude: 48.8559, longitude: 2.3587, score: 0.93 }),
    });
    assert.equal((await g.geocode(rivoli))?.provider, 'ban');
    assert.equal(cache.get(`ban:${normaliseAddressKey(rivoli)}`)?.provider, 'ban');
    fake.respond = () => ({ status: 503, body: 'down' });
    assert.equal((await g.geocode(rivoli))?.provider, 'ban', 'cache hit: the engine is not asked');
  } finally {
    await fake.close();
  }
});
