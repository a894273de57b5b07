import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DateTime } from 'luxon';
import { formatUtc, utcClock } from '../../../src/schedule/index.js';

test('utcClock formats every offset as formatUtc(departure + offset) does, across midnight, DST and year ends', () => {
  const departures = [
    '2026-03-29T00:59:59.750Z', // the night Paris springs forward, with milliseconds (truncated)
    '2026-10-25T00:30:00Z', // the night Paris falls back
    '2026-12-31T22:15:10Z',
    '2026-06-01T06:00:00Z',
  ].map((iso) => DateTime.fromISO(iso, { zone: 'utc' }));
  const offsets = [0, 1, 59, 60, 3599.5, 3600, 86_399, 86_400, 123_456.999, 9 * 86_400 + 17];
  for (const departure of departures) {
    const at = utcClock(departure);
    const start = departure.toUTC().startOf('second');
    for (const s of offsets) assert.equal(at(s), formatUtc(start.plus({ seconds: s })), `${departure.toISO()} + ${s}`);
  }
});

test('utcClock refuses an invalid departure', () => {
  assert.throws(() => utcClock(DateTime.invalid('test')), /invalid departure/);
});
