import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { validateOptimizeRequest } from '../../src/api/optimize/validate.js';
import { DomainError } from '../../src/errors.js';

const point = (i: number) => ({ id: `s${i}`, latitude: 48.85 + i / 1000, longitude: 2.35 });
const base = () => ({
  start: { latitude: 48.85, longitude: 2.35 },
  stops: [point(1), point(2)] as Array<Record<string, unknown>>,
});

function rejects(body: unknown, message: RegExp): void {
  assert.throws(
    () => validateOptimizeRequest(body),
    (err: unknown) => {
      assert.ok(err instanceof DomainError);
      assert.equal(err.status, 400);
      assert.equal(err.code, 'invalid_request');
      assert.match(err.message, message);
      return true;
    },
  );
}

function accepts(body: unknown): void {
  assert.doesNotThrow(() => validateOptimizeRequest(body));
}

const withStop = (patch: Record<string, unknown>, drop: string[] = []) => {
  const body = base();
  const stop: Record<string, unknown> = { ...point(1), ...patch };
  for (const k of drop) delete stop[k];
  body.stops[0] = stop;
  return body;
};

test('stops: 2 to 200 items', () => {
  rejects({ ...base(), stops: [point(1)] }, /^stops must contain at least 2 items/);
  accepts({ ...base(), stops: [point(1), point(2)] });
  accepts({ ...base(), stops: Array.from({ length: 200 }, (_, i) => point(i)) });
  rejects(
    { ...base(), stops: Array.from({ length: 201 }, (_, i) => point(i)) },
    /^stops must contain at most 200 items/,
  );
  rejects({ start: base().start }, /^stops is required$/);
  rejects({ ...base(), stops: 'many' }, /^stops must be an array$/);
});

test('latitude -90..90 and longitude -180..180, at and past each bound', () => {
  for (const latitude of [-90, 90, 0]) accepts(withStop({ latitude }));
  rejects(withStop({ latitude: 90.0001 }), /^stops\[0\]\.latitude must be a number from -90 to 90$/);
  rejects(withStop({ latitude: -90.5 }), /^stops\[0\]\.latitude must be a number from -90 to 90$/);
  for (const longitude of [-180, 180]) accepts(withStop({ longitude }));
  rejects(withStop({ longitude: 180.1 }), /^stops\[0\]\.longitude must be a number from -180 to 180$/);
  rejects(withStop({ longitude: -181 }), /^stops\[0\]\.longitude/);
  rejects(withStop({ latitude: '48.8' }), /^stops\[0\]\.latitude must be a number/);
  rejects({ ...base(), start: { latitude: 100, longitude: 2 } }, /^start\.latitude must be a number from -90 to 90$/);
});

test('stop id: required, a string, at most 100 characters, unique within the call', () => {
  accepts(withStop({ id: 'x'.repeat(100) }));
  rejects(withStop({ id: 'x'.repeat(101) }), /^stops\[0\]\.id must be at most 100 characters long$/);
  rejects(withStop({}, ['id']), /^stops\[0\]\.id is required$/);
  rejects(withStop({ id: 7 }), /^stops\[0\]\.id must be a string$/);
  const dup = base();
  dup.stops[1] = { ...point(2), id: 's1' };
  rejects(dup, /^stops\[1\]\.id "s1" repeats stops\[0\]\.id/);
});

test('deadline: HH:MM 24-hour', () => {
  for (const deadline of ['00:00', '09:05', '19:59', '23:59']) accepts(withStop({ deadline }));
  for (const deadline of ['24:00', '9:05', '12:60', '12:5', '12h30', '', '12:30:00'])
    rejects(withStop({ deadline }), /^stops\[0\]\.deadline must be a time HH:MM \(24-hour, Europe\/Paris\)/);
});

test('serviceSeconds: 0 to 3600', () => {
  for (const serviceSeconds of [0, 3600, 90.5]) accepts(withStop({ serviceSeconds }));
  rejects(
    withStop({ serviceSeconds: 3601 }),
    /^stops\[0\]\.serviceSeconds must be a number of seconds from 0 to 3600$/,
  );
  rejects(withStop({ serviceSeconds: -1 }), /^stops\[0\]\.serviceSeconds must be a number of seconds from 0 to 3600$/);
});

test('a location is exactly one shape: coordinates or an address', () => {
  accepts({ ...base(), start: { street: '1 rue de Rivoli', postalCode: '75004', city: 'Paris' } });
  accepts(withStop({ street: '5 place Bellecour', postalCode: '69002', city: 'Lyon' }, ['latitude', 'longitude']));
  rejects(
    { ...base(), start: { latitude: 48.8, longitude: 2.3, city: 'Paris' } },
    /^start must be either coordinates .* or an address .*not both$/,
  );
  rejects({ ...base(), start: { latitude: 48.8 } }, /^start\.longitude is required$/);
  rejects({ ...base(), start: { street: '1 rue', city: 'Paris' } }, /^start\.postalCode is required$/);
  rejects({ ...base(), start: { street: '', postalCode: '75004', city: 'Paris' } }, /^start\.street must not be empty/);
  rejects({ ...base(), start: {} }, /^start\.street is required$/);
  rejects({ ...base(), start: 'Paris' }, /^start must be an object$/);
  rejects({ stops: base().stops }, /^start is required$/);
});

test('end is optional and validated like start', () => {
  accepts({ ...base(), end: { latitude: 48.9, longitude: 2.4 } });
  rejects({ ...base(), end: { latitude: 48.9 } }, /^end\.longitude is required$/);
});

test('avoidTolls is a boolean; departureTime an ISO 8601 date-time with an optional offset', () => {
  accepts({ ...base(), avoidTolls: true });
  rejects({ ...base(), avoidTolls: 'yes' }, /^avoidTolls must be a boolean$/);
  for (const departureTime of [
    '2026-06-01T08:00:00Z',
    '2026-06-01T08:00:00+02:00',
    '2026-06-01T08:00',
    '2020-01-01T00:00:00.5Z',
  ])
    accepts({ ...base(), departureTime });
  for (const departureTime of ['tomorrow', '2026-02-30T08:00:00Z', '2026-06-01', '2026-06-01T25:00:00Z', ''])
    rejects({ ...base(), departureTime }, /^departureTime must be an ISO 8601 date-time/);
});

test('unknown fields and non-object bodies are refused', () => {
  rejects({ ...base(), vehicle: 'van' }, /^body has an unknown property "vehicle"$/);
  rejects(withStop({ priority: 1 }), /^stops\[0\] has an unknown property "priority"$/);
  rejects([], /^body must be an object$/);
  rejects(null, /^body must be an object$/);
});
