import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { solverBreaks } from '../../../src/api/plans/breaks.js';
import { routeSteps } from '../../../src/api/plans/steps.js';
import { resolveDeparture } from '../../../src/schedule/index.js';
import type { RouteTimes, StopTimes } from '../../../src/solver/types.js';

// 08:00 Paris = 06:00Z
const departure = resolveDeparture('2026-06-01T08:00:00+02:00', new Date());

test('break windows in seconds after the departure: one under way starts at 0, one over before the departure is dropped', () => {
  const breaks = [
    { id: 'coffee', window: { start: '07:00', end: '07:30' }, durationSeconds: 600 },
    { id: 'early', window: { start: '07:30', end: '09:00' }, durationSeconds: 300 },
    { id: 'lunch', window: { start: '12:00', end: '13:00' }, durationSeconds: 2700 },
  ];
  assert.deepEqual(solverBreaks({ breaks }, departure), {
    breaks: [
      { start: 0, end: 3600, duration: 300 },
      { start: 14400, end: 18000, duration: 2700 },
    ],
    ids: ['early', 'lunch'],
  });
});

const stop = (arrivalS: number, startS: number, departureS: number): StopTimes => ({
  arrivalS,
  waitS: startS - arrivalS,
  startS,
  departureS,
  latenessS: 0,
});

test('break steps: before a leg (the leg counts its driving only), on arriving at a stop (before its service), at the end point', () => {
  const times: RouteTimes = {
    departureS: 0,
    // a: 100 s away, served 100-160; the break 160-460 before the leg; b reached at 560 (100 s), served after the second break
    stops: [stop(100, 100, 160), stop(560, 900, 960)],
    endS: 1400,
    durationS: 1400,
    latenessS: 0,
    breaks: [
      { index: 0, startS: 160, endS: 460, afterStops: 1, nextArrivalS: 560 },
      { index: 1, startS: 600, endS: 900, afterStops: 1, nextArrivalS: 560 },
      { index: 2, startS: 1100, endS: 1400, afterStops: 2, nextArrivalS: 1060 },
    ],
  };
  const steps = routeSteps({
    departure,
    vehicleId: 'van',
    stopIds: ['a', 'b'],
    kinds: ['stop', 'stop'],
    demands: [[1], [2]],
    dimensions: 1,
    times,
    legsM: [1000, 1000, 1000],
    hasEnd: true,
    breakIds: ['coffee', 'lunch', 'late'],
  });
  assert.deepEqual(
    steps.map((s) => [s.type, s.id, s.arrival.slice(11, 19), s.departure.slice(11, 19), s.durationS, s.load[0]]),
    [
      ['start', 'van', '06:00:00', '06:00:00', 0, 3],
      ['stop', 'a', '06:01:40', '06:02:40', 100, 2],
      ['break', 'coffee', '06:02:40', '06:07:40', 0, 2],
      ['break', 'lunch', '06:10:00', '06:15:00', 0, 2],
      ['stop', 'b', '06:09:20', '06:16:00', 100, 0],
      ['break', 'late', '06:18:20', '06:23:20', 0, 0],
      ['end', 'van', '06:17:40', '06:23:20', 100, 0],
    ],
  );
  assert.ok(steps.filter((s) => s.type === 'break').every((s) => s.distanceM === 0));
});
