/** The store contract for geocode cache, run against SQLite and PostgreSQL (test/store/harness.ts). */
import { strict as assert } from 'node:assert';
import { before, test } from 'node:test';
import { describeContract, freshDb, now } from './harness.js';

describeContract('geocode-cache', (kind) => {
  test('geocode cache: put, get, overwrite with precision and engine; concurrent puts of one key from several instances', async () => {
    const db = await freshDb(kind);
    const stores = [await db.open(), await db.open()];
    const entry = (
      result: string,
      precision: string | null = 'housenumber',
      engine: string | null = 'geoplateforme',
    ) => ({ result, precision, engine });
    assert.equal(await stores[0].getCachedGeocode('paris'), undefined);
    await stores[0].putCachedGeocode('paris', entry('{"a":1}'), now);
    assert.deepEqual(await stores[1].getCachedGeocode('paris'), entry('{"a":1}'));
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        stores[i % 2].putCachedGeocode('lyon', entry(`{"v":${i}}`, 'street', `e${i}`), now),
      ),
    );
    const lyon = (await stores[0].getCachedGeocode('lyon'))!;
    assert.match(lyon.result, /^\{"v":(\d)\}$/);
    assert.equal(lyon.engine, `e${/(\d)/.exec(lyon.result)![1]}`, 'one row: result and engine of the same put');
    await stores[1].putCachedGeocode('paris', entry('{"a":2}', 'municipality', 'ban'), now);
    assert.deepEqual(await stores[0].getCachedGeocode('paris'), entry('{"a":2}', 'municipality', 'ban'));
    await stores[1].putCachedGeocode('ghost', entry('null', null, null), now);
    assert.deepEqual(await stores[0].getCachedGeocode('ghost'), entry('null', null, null));
    const p = kind === 'sqlite' ? '?' : '$1';
    assert.deepEqual(await db.query(`SELECT precision, engine FROM geocode_cache WHERE cache_key = ${p}`, ['paris']), [
      { precision: 'municipality', engine: 'ban' },
    ]);
  });

  test('geocode cache migration: rows cached before it get their precision and engine from their JSON', async () => {
    const db = await freshDb(kind);
    await (await db.open()).close();
    const version = kind === 'sqlite' ? 8 : 4;
    const p = (n: number) => (kind === 'sqlite' ? '?' : `$${n}`);
    // back to the schema before the migration, with rows written then
    await db.query('DROP INDEX geocode_cache_engine_precision');
    await db.query('ALTER TABLE geocode_cache DROP COLUMN precision');
    await db.query('ALTER TABLE geocode_cache DROP COLUMN engine');
    await db.query(`DELETE FROM schema_migrations WHERE version = ${p(1)}`, [version]);
    const old = '{"latitude":48.85,"longitude":2.36,"precision":"municipality","provider":"embedded"}';
    await db.query(`INSERT INTO geocode_cache (cache_key, result, created_at) VALUES (${p(1)}, ${p(2)}, ${p(3)})`, [
      'embedded:1 rue|75004|paris',
      old,
      now.toISOString(),
    ]);
    await db.query(`INSERT INTO geocode_cache (cache_key, result, created_at) VALUES (${p(1)}, ${p(2)}, ${p(3)})`, [
      'ban:ghost',
      'null',
      now.toISOString(),
    ]);
    const store = await db.open();
    assert.deepEqual(await store.getCachedGeocode('embedded:1 rue|75004|paris'), {
      result: old,
      precision: 'municipality',
      engine: 'embedded',
    });
    assert.deepEqual(await store.getCachedGeocode('ban:ghost'), { result: 'null', precision: null, engine: null });
  });
});
