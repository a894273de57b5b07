/**
 * bench:api --full-day's independent checker: a timeline that keeps every rule passes, and each broken rule
 * (window, break, precedence, load, a visit missing or twice) is found.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DateTime } from 'luxon';

import { checkFullDay, fullDay, type FullDayAnswer } from '../../scripts/lib/full-day.js';

const day = fullDay(4, 1, 1);
const at = (hhmm: string) =>
  DateTime.fromISO(`2026-06-01T${hhmm}`, { zone: 'Europe/Paris' }).toUTC().toISO({ suppressMilliseconds: true })!;
const [a, b] = day.stops;
const ship = day.shipments[0]!;
const step = (type: 'stop' | 'pickup' | 'delivery', id: string, start: string, load: number[]) => ({
  type,
  id,
  arrival: at(start),
  departure: at(start),
  load,
});

function valid(): FullDayAnswer {
  return {
    routes: [
      {
        vehicleId: 'van-1',
        steps: [
          { type: 'start', id: 'van-1', arrival: at('07:00'), departure: at('07:00'), load: [50, 5] },
          step('stop', a!.id, a!.timeWindows[0]!.start, [40, 4]),
          step('pickup', ship.id, ship.pickup.timeWindows[0]!.start, [60, 6]),
          { type: 'break', id: 'lunch', arrival: at('12:00'), departure: at('12:30'), load: [60, 6] },
          step('delivery', ship.id, ship.delivery.timeWindows[1]!.start, [40, 4]),
          step('stop', b!.id, b!.timeWindows[1]!.end, [0, 0]),
          { type: 'end', id: 'van-1', arrival: at('18:30'), departure: at('18:30'), load: [0, 0] },
        ],
      },
    ],
    unassigned: [],
  };
}

test('a timeline that keeps every rule has no violation', () => {
  assert.deepEqual(checkFullDay(day, valid()), []);
  assert.deepEqual(checkFullDay(day, { routes: [], unassigned: [a!, b!, ship].map((v) => ({ id: v.id })) }), []);
});

test('each broken rule is found', () => {
  const cases: Array<[string, (x: FullDayAnswer) => void, RegExp]> = [
    ['service outside windows', (x) => (x.routes[0]!.steps[1]!.arrival = at('12:59')), /outside its windows/],
    ['break outside its window', (x) => (x.routes[0]!.steps[3]!.arrival = at('14:30')), /break starts outside/],
    ['break too short', (x) => (x.routes[0]!.steps[3]!.departure = at('12:10')), /short break/],
    ['no break', (x) => x.routes[0]!.steps.splice(3, 1), /0 breaks/],
    ['delivery first', (x) => x.routes[0]!.steps.splice(2, 1), /without its pickup/],
    ['over capacity', (x) => (x.routes[0]!.steps[2]!.load = [1300, 6]), /load 1300,6/],
    ['a stop twice', (x) => x.unassigned.push({ id: a!.id }), /appears 2 times/],
    ['after the shift', (x) => (x.routes[0]!.steps[6]!.departure = at('19:30')), /outside the shift/],
  ];
  for (const [name, breakIt, found] of cases) {
    const answer = valid();
    breakIt(answer);
    const problems = checkFullDay(day, answer);
    assert.ok(
      problems.some((p) => found.test(p)),
      `${name}: ${JSON.stringify(problems)}`,
    );
  }
});
