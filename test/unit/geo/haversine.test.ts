import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DEFAULT_CIRCUITY_FACTOR,
  HaversineProvider,
  greatCircleM,
  tieredDurationS,
} from '../../../src/geo/routing/haversine.js';

const paris = { latitude: 48.8566, longitude: 2.3522 };
const lyon = { latitude: 45.764, longitude: 4.8357 };

test('Paris–Lyon great circle ≈ 392 km; matrix distance = great circle × 1.3', async () => {
  const gc = greatCircleM(paris, lyon);
  assert.ok(gc > 390_000 && gc < 394_000, `great circle ${gc}`);
  assert.equal(DEFAULT_CIRCUITY_FACTOR, 1.3);
  const m = await new HaversineProvider().matrix([paris, lyon], { avoidTolls: false });
  assert.equal(m.distancesM[0]![1], Math.round(gc * 1.3));
  assert.ok(m.distancesM[0]![1]! > 505_000 && m.distancesM[0]![1]! < 515_000);
  // 2 km @20 + 8 km @35 + 40 km @65 + the rest @100 km/h ≈ 5 h 32 min
  const h = m.durationsS[0]![1]! / 3600;
  assert.ok(h > 5.4 && h < 5.7, `${h} h`);
});

test('speed tiers: short legs slow, long legs fast, documented examples', () => {
  assert.equal(Math.round(tieredDurationS(1000)), 180); // 1 km at 20 km/h = 3 min
  assert.equal(Math.round(tieredDurationS(5000)), 360 + 309); // 2 km @20 + 3 km @35
  assert.equal(Math.round(tieredDurationS(30_000)), 360 + 823 + 1108);
  const avg = (m: number) => m / 1000 / (tieredDurationS(m) / 3600);
  assert.ok(avg(1000) < avg(10_000) && avg(10_000) < avg(100_000) && avg(100_000) < avg(500_000));
  let prev = 0;
  for (let m = 0; m <= 200_000; m += 250) {
    const s = tieredDurationS(m);
    assert.ok(s >= prev);
    prev = s;
  }
});

test('matrix: integers, zero diagonal, symmetric, avoidTolls ignored', async () => {
  const pts = [paris, lyon, { latitude: 48.86, longitude: 2.36 }, { latitude: 43.2965, longitude: 5.3698 }];
  const p = new HaversineProvider();
  const a = await p.matrix(pts, { avoidTolls: false });
  const b = await p.matrix(pts, { avoidTolls: true });
  assert.deepEqual(a, b);
  for (let i = 0; i < pts.length; i++) {
    assert.equal(a.durationsS[i]![i], 0);
    assert.equal(a.distancesM[i]![i], 0);
    for (let j = 0; j < pts.length; j++) {
      assert.ok(Number.isInteger(a.durationsS[i]![j]) && Number.isInteger(a.distancesM[i]![j]));
      assert.equal(a.durationsS[i]![j], a.durationsS[j]![i]);
      if (i !== j) assert.ok(a.durationsS[i]![j]! > 0);
    }
  }
  assert.deepEqual(await p.matrix([], { avoidTolls: false }), { durationsS: [], distancesM: [] });
});

test('settings: circuity factor and tiers are configurable and validated', async () => {
  const p = new HaversineProvider({ circuityFactor: 1, speedTiers: [{ upToM: Infinity, kmh: 36 }] });
  const m = await p.matrix([paris, lyon], { avoidTolls: false });
  const gc = greatCircleM(paris, lyon);
  assert.equal(m.distancesM[0]![1], Math.round(gc));
  assert.equal(m.durationsS[0]![1], Math.round(gc / 10)); // 36 km/h = 10 m/s
  assert.throws(() => new HaversineProvider({ circuityFactor: 0.5 }), /circuityFactor/);
  assert.throws(() => new HaversineProvider({ speedTiers: [{ upToM: 1000, kmh: 20 }] }), /Infinity/);
  assert.throws(() => new HaversineProvider({ speedTiers: [{ upToM: Infinity, kmh: 0 }] }), /kmh/);
});
