import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  formatUtc,
  isValidDeadline,
  isValidDepartureTime,
  parisWallTimeToInstant,
  resolveDeparture,
} from '../../../src/schedule/index.js';

const NOW = new Date('2026-06-01T06:00:00.789Z');
const dep = (s: string | undefined): string => formatUtc(resolveDeparture(s, NOW));

test('departure with Z is that instant', () => {
  assert.equal(dep('2026-06-01T06:00:00Z'), '2026-06-01T06:00:00Z');
  assert.equal(dep('2026-12-01T06:00Z'), '2026-12-01T06:00:00Z');
  assert.equal(dep('2026-06-01t06:00:00z'), '2026-06-01T06:00:00Z');
});

test('departure with an offset is that instant', () => {
  assert.equal(dep('2026-06-01T08:00:00+02:00'), '2026-06-01T06:00:00Z');
  assert.equal(dep('2026-01-15T08:00:00+02:00'), '2026-01-15T06:00:00Z'); // offset wins over Paris winter time
  assert.equal(dep('2026-06-01T01:00:00-05:30'), '2026-06-01T06:30:00Z');
  assert.equal(dep('2026-06-01T00:30:00+01:00'), '2026-05-31T23:30:00Z');
});

test('departure without offset is Paris wall time (winter +01:00, summer +02:00)', () => {
  assert.equal(dep('2026-01-15T08:00'), '2026-01-15T07:00:00Z');
  assert.equal(dep('2026-01-15T08:00:00'), '2026-01-15T07:00:00Z');
  assert.equal(dep('2026-07-15T08:00:00'), '2026-07-15T06:00:00Z');
  assert.equal(dep('2026-03-28T08:00'), '2026-03-28T07:00:00Z'); // day before spring change
  assert.equal(dep('2026-03-29T08:00'), '2026-03-29T06:00:00Z'); // day of spring change, after it
  assert.equal(dep('2026-10-25T08:00'), '2026-10-25T07:00:00Z'); // day of autumn change, after it
  assert.equal(dep('2026-10-25T01:59'), '2026-10-24T23:59:00Z'); // before it (CEST)
});

test('departure without offset in the spring gap shifts forward by the gap', () => {
  assert.equal(dep('2026-03-29T02:30'), '2026-03-29T01:30:00Z'); // = 03:30 CEST
  assert.equal(dep('2026-03-29T02:00'), '2026-03-29T01:00:00Z'); // = 03:00 CEST
  assert.equal(dep('2026-03-29T03:00'), '2026-03-29T01:00:00Z');
  assert.equal(dep('2026-03-29T01:59'), '2026-03-29T00:59:00Z');
});

test('departure without offset in the autumn overlap is the earlier instant', () => {
  assert.equal(dep('2026-10-25T02:30'), '2026-10-25T00:30:00Z'); // 02:30 CEST, not 02:30 CET
  assert.equal(dep('2026-10-25T02:00'), '2026-10-25T00:00:00Z');
  assert.equal(dep('2026-10-25T03:00'), '2026-10-25T02:00:00Z'); // after the overlap: CET only
});

test('no departureTime uses the injected now, truncated to the second, in UTC', () => {
  const d = resolveDeparture(undefined, NOW);
  assert.equal(d.toMillis(), Date.parse('2026-06-01T06:00:00Z'));
  assert.equal(d.zoneName, 'UTC');
  assert.equal(formatUtc(d), '2026-06-01T06:00:00Z');
  assert.throws(() => resolveDeparture(undefined, new Date('nope')), RangeError);
});

test('fractions are dropped (truncated, not rounded)', () => {
  assert.equal(dep('2026-06-01T06:00:00.999Z'), '2026-06-01T06:00:00Z');
  assert.equal(dep('2026-06-01T08:00:00.123456+02:00'), '2026-06-01T06:00:00Z');
  assert.equal(resolveDeparture('2026-06-01T06:00:59.5Z', NOW).millisecond, 0);
});

test('a departure in the past is valid', () => {
  assert.equal(dep('2001-01-01T00:00:00Z'), '2001-01-01T00:00:00Z');
  assert.equal(dep('2020-02-29T12:00'), '2020-02-29T11:00:00Z');
});

test('resolveDeparture rejects what isValidDepartureTime rejects', () => {
  assert.throws(() => resolveDeparture('garbage', NOW), RangeError);
  assert.throws(() => resolveDeparture('2026-02-30T08:00', NOW), RangeError);
  assert.throws(() => resolveDeparture('', NOW), RangeError);
});

test('isValidDepartureTime accepts the documented forms', () => {
  for (const s of [
    '2026-06-01T08:00',
    '2026-06-01T08:00:00',
    '2026-06-01T08:00:00.1',
    '2026-06-01T08:00:00.123',
    '2026-06-01T08:00:00.123456789',
    '2026-06-01T08:00Z',
    '2026-06-01T08:00:00Z',
    '2026-06-01T08:00:00.000Z',
    '2026-06-01T08:00:00+02:00',
    '2026-06-01T08:00:00-00:00',
    '2026-06-01t08:00:00z',
    '2028-02-29T08:00',
    '2000-02-29T08:00',
    '2026-12-31T23:59:59Z',
    '2026-03-29T02:30', // Paris gap: accepted, shifted forward
    '2026-10-25T02:30', // Paris overlap: accepted, earlier instant
  ]) {
    assert.equal(isValidDepartureTime(s), true, s);
  }
});

test('isValidDepartureTime rejects garbage and impossible dates', () => {
  for (const s of [
    '',
    'garbage',
    '2026-06-01',
    '2026-06-01T08',
    '2026-06-01 08:00',
    '2026-6-1T08:00',
    '2026-02-29T08:00', // 2026 is not a leap year
    '1900-02-29T08:00',
    '2026-02-30T08:00',
    '2026-04-31T08:00',
    '2026-13-01T08:00',
    '2026-00-10T08:00',
    '2026-06-00T08:00',
    '2026-06-01T24:00',
    '2026-06-01T08:60',
    '2026-06-01T08:00:60Z',
    '2026-06-01T08:00.5',
    '2026-06-01T08:00:00.Z',
    '2026-06-01T08:00:00.1234567890Z',
    '2026-06-01T08:00+0200',
    '2026-06-01T08:00+02',
    '2026-06-01T08:00+24:00',
    '2026-06-01T08:00+02:60',
    '2026-06-01T08:00:00ZZ',
    ' 2026-06-01T08:00Z',
    '2026-06-01T08:00Z\n',
    '２０２６-06-01T08:00',
  ]) {
    assert.equal(isValidDepartureTime(s), false, JSON.stringify(s));
  }
  for (const v of [undefined, null, 0, 1780000000000, new Date(), {}]) {
    assert.equal(isValidDepartureTime(v), false, String(v));
  }
});

test('isValidDeadline follows the spec pattern', () => {
  for (const s of ['00:00', '08:05', '19:59', '23:59']) assert.equal(isValidDeadline(s), true, s);
  for (const s of ['24:00', '8:00', '08:60', '0800', '08:00:00', '', ' 08:00', 8]) {
    assert.equal(isValidDeadline(s), false, String(s));
  }
});

test('parisWallTimeToInstant: overlap rule is honoured, ordinary times have one instant', () => {
  const w = { year: 2026, month: 10, day: 25, hour: 2, minute: 30 };
  assert.equal(formatUtc(parisWallTimeToInstant(w, 'earlier')), '2026-10-25T00:30:00Z');
  assert.equal(formatUtc(parisWallTimeToInstant(w, 'later')), '2026-10-25T01:30:00Z');
  const g = { year: 2026, month: 3, day: 29, hour: 2, minute: 30 };
  assert.equal(formatUtc(parisWallTimeToInstant(g, 'earlier')), '2026-03-29T01:30:00Z');
  assert.equal(formatUtc(parisWallTimeToInstant(g, 'later')), '2026-03-29T01:30:00Z');
  const o = { year: 2026, month: 6, day: 1, hour: 8, minute: 0 };
  assert.equal(formatUtc(parisWallTimeToInstant(o, 'earlier')), '2026-06-01T06:00:00Z');
  assert.equal(formatUtc(parisWallTimeToInstant(o, 'later')), '2026-06-01T06:00:00Z');
});
