import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DateTime } from 'luxon';
import {
  NO_DEADLINE,
  deadlineInstant,
  deadlineToOffsetS,
  formatUtc,
  resolveDeparture,
  solverDeadlineOffsetS,
} from '../../../src/schedule/index.js';
import { NO_DEADLINE as SOLVER_NO_DEADLINE } from '../../../src/solver/index.js';

const at = (iso: string): DateTime => resolveDeparture(iso, new Date(0));
const H = 3600;

/** [departure, deadline, expected deadline instant, expected offset s] */
type Case = [string, string, string, number];

function check(cases: Case[]): void {
  for (const [d, dl, instant, offset] of cases) {
    const departure = at(d);
    assert.equal(formatUtc(deadlineInstant(dl, departure)), instant, `${d} ${dl} instant`);
    assert.equal(deadlineToOffsetS(dl, departure), offset, `${d} ${dl} offset`);
  }
}

test('ordinary days: deadline is Paris wall time (winter +01:00, summer +02:00)', () => {
  check([
    ['2026-06-01T06:00:00Z', '10:00', '2026-06-01T08:00:00Z', 2 * H],
    ['2026-01-15T07:00:00Z', '10:00', '2026-01-15T09:00:00Z', 2 * H],
    ['2026-06-01T06:00:00Z', '08:00', '2026-06-01T06:00:00Z', 0],
    ['2026-06-01T06:00:00Z', '23:59', '2026-06-01T21:59:00Z', 15 * H + 59 * 60],
  ]);
});

test('deadline already past at departure: negative offset, given to the solver as it is (the solver counts it from 0 in its search)', () => {
  check([['2026-06-01T10:00:00Z', '09:00', '2026-06-01T07:00:00Z', -3 * H]]);
  const dep = at('2026-06-01T10:00:00Z');
  assert.equal(solverDeadlineOffsetS('09:00', dep), -3 * H);
  assert.equal(solverDeadlineOffsetS('14:00', dep), 2 * H);
  assert.equal(solverDeadlineOffsetS(undefined, dep), NO_DEADLINE);
  assert.equal(NO_DEADLINE, SOLVER_NO_DEADLINE, 'the solver\'s "none"');
  assert.equal(NO_DEADLINE, -(2 ** 31));
});

test('deadline is on the Paris calendar day of departure, not the UTC day', () => {
  // 2026-06-01T23:30Z is 2026-06-02 01:30 in Paris
  check([
    ['2026-06-01T23:30:00Z', '08:00', '2026-06-02T06:00:00Z', 6.5 * H],
    ['2026-06-01T23:30:00Z', '01:45', '2026-06-01T23:45:00Z', 15 * 60],
    ['2026-06-01T23:30:00Z', '01:00', '2026-06-01T23:00:00Z', -30 * 60], // no roll-over to the next day
    // 2026-06-01T21:59Z is still 2026-06-01 23:59 in Paris
    ['2026-06-01T21:59:00Z', '08:00', '2026-06-01T06:00:00Z', -(15 * H + 59 * 60)],
    // winter: 2026-01-15T23:30Z is 2026-01-16 00:30 in Paris
    ['2026-01-15T23:30:00Z', '08:00', '2026-01-16T07:00:00Z', 7.5 * H],
  ]);
});

test('spring change 2026-03-29 (02:00 CET -> 03:00 CEST)', () => {
  check([
    // day before
    ['2026-03-28T06:00:00Z', '09:00', '2026-03-28T08:00:00Z', 2 * H],
    // on the day, departure before the switch (01:00 CET)
    ['2026-03-29T00:00:00Z', '01:30', '2026-03-29T00:30:00Z', 0.5 * H],
    ['2026-03-29T00:00:00Z', '04:00', '2026-03-29T02:00:00Z', 2 * H], // only 2 h later, not 3
    ['2026-03-29T00:00:00Z', '09:00', '2026-03-29T07:00:00Z', 7 * H],
    // deadline in the gap: shifted forward by the gap
    ['2026-03-29T00:00:00Z', '02:30', '2026-03-29T01:30:00Z', 1.5 * H],
    ['2026-03-29T00:00:00Z', '02:00', '2026-03-29T01:00:00Z', 1 * H],
    ['2026-03-29T00:00:00Z', '02:59', '2026-03-29T01:59:00Z', 1 * H + 59 * 60],
    ['2026-03-29T00:00:00Z', '03:00', '2026-03-29T01:00:00Z', 1 * H],
    // on the day, departure after the switch (07:00 CEST)
    ['2026-03-29T05:00:00Z', '09:00', '2026-03-29T07:00:00Z', 2 * H],
    ['2026-03-29T05:00:00Z', '01:30', '2026-03-29T00:30:00Z', -4.5 * H],
    // day after
    ['2026-03-30T05:00:00Z', '09:00', '2026-03-30T07:00:00Z', 2 * H],
    // departure without offset, Paris wall time on that day
    ['2026-03-29T01:30', '04:00', '2026-03-29T02:00:00Z', 1.5 * H],
  ]);
});

test('autumn change 2026-10-25 (03:00 CEST -> 02:00 CET)', () => {
  check([
    // day before
    ['2026-10-24T05:00:00Z', '09:00', '2026-10-24T07:00:00Z', 2 * H],
    // on the day, departure before the switch (00:30 CEST); its UTC date is still 10-24
    ['2026-10-24T22:30:00Z', '01:00', '2026-10-24T23:00:00Z', 0.5 * H],
    ['2026-10-24T22:30:00Z', '09:00', '2026-10-25T08:00:00Z', 9.5 * H], // 9.5 h, not 8.5
    // deadline in the overlap: the later instant (02:30 CET)
    ['2026-10-24T22:30:00Z', '02:30', '2026-10-25T01:30:00Z', 3 * H],
    ['2026-10-24T22:30:00Z', '02:00', '2026-10-25T01:00:00Z', 2.5 * H],
    ['2026-10-24T22:30:00Z', '03:00', '2026-10-25T02:00:00Z', 3.5 * H],
    ['2026-10-24T22:30:00Z', '01:59', '2026-10-24T23:59:00Z', 1.5 * H - 60],
    // on the day, departure after the switch (07:00 CET)
    ['2026-10-25T06:00:00Z', '09:00', '2026-10-25T08:00:00Z', 2 * H],
    ['2026-10-25T06:00:00Z', '01:00', '2026-10-24T23:00:00Z', -7 * H],
    // departure inside the overlap itself (first 02:30, CEST) sees the later 02:45
    ['2026-10-25T02:30', '02:45', '2026-10-25T01:45:00Z', 1.25 * H],
    // day after
    ['2026-10-26T06:00:00Z', '09:00', '2026-10-26T08:00:00Z', 2 * H],
  ]);
});

test('departure fractions do not leak into offsets (whole seconds)', () => {
  const d = DateTime.fromISO('2026-06-01T06:00:00.900Z', { zone: 'utc' });
  assert.equal(deadlineToOffsetS('08:10', d), 600);
  assert.ok(Number.isInteger(deadlineToOffsetS('08:10', d)));
});

test('malformed deadlines are rejected', () => {
  const d = at('2026-06-01T06:00:00Z');
  for (const s of ['24:00', '8:00', '08:60', '']) {
    assert.throws(() => deadlineToOffsetS(s, d), RangeError, s);
  }
});
