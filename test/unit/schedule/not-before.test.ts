import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { buildSchedule, resolveDeparture } from '../../../src/schedule/index.js';

// start, a, b: 600 s legs
const legs = [[0, 600, 600], [600, 0, 600], [600, 600, 0]];

test('notBefore (plans): an early vehicle waits, serviceStart says until when, and the waiting counts in the route time', () => {
  const r = buildSchedule({
    departure: resolveDeparture('2026-06-01T08:00:00+02:00', new Date()),
    order: [0, 1],
    stops: [{ id: 'a', notBefore: '08:30', serviceS: 60 }, { id: 'b', notBefore: '08:00', deadline: '08:45' }],
    durationsS: legs, distancesM: legs, hasEnd: false,
  });
  assert.deepEqual(r.schedule, [
    { colisId: 'a', arrivee: '2026-06-01T06:10:00Z', serviceStart: '2026-06-01T06:30:00Z' },
    { colisId: 'b', arrivee: '2026-06-01T06:41:00Z' },
  ]);
  assert.equal(r.durationS, 41 * 60);
  assert.equal(r.lateStops, null);
});

test('without notBefore nothing changes: no serviceStart, no waiting', () => {
  const r = buildSchedule({
    departure: resolveDeparture('2026-06-01T08:00:00+02:00', new Date()),
    order: [1, 0], stops: [{ id: 'a' }, { id: 'b' }], durationsS: legs, distancesM: legs, hasEnd: false,
  });
  assert.deepEqual(r.schedule, [{ colisId: 'b', arrivee: '2026-06-01T06:10:00Z' }, { colisId: 'a', arrivee: '2026-06-01T06:20:00Z' }]);
});
