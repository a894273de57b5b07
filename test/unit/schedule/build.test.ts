import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DateTime } from 'luxon';
import {
  SCHEDULE_RULES,
  buildSchedule,
  metresToKm,
  resolveDeparture,
  retardMinutes,
  secondsToMin1,
  type ScheduleInput,
  type ScheduleStop,
} from '../../../src/schedule/index.js';

const at = (iso: string): DateTime => resolveDeparture(iso, new Date(0));

// nodes: 0 start, 1 stop a, 2 stop b, 3 end
const DUR = [
  [0, 600, 300, 999],
  [600, 0, 900, 700],
  [300, 450, 0, 1200],
  [999, 700, 1200, 0],
];
const DIST = [
  [0, 5000, 2000, 9000],
  [5000, 0, 7345, 6000],
  [2000, 3000, 0, 4000],
  [9000, 6000, 4000, 0],
];

function input(over: Partial<ScheduleInput> = {}, stops?: ScheduleStop[]): ScheduleInput {
  return {
    departure: at('2026-06-01T06:00:00Z'), // 08:00 Paris
    order: [0, 1],
    stops: stops ?? [
      { id: 'a', serviceS: 120 },
      { id: 'b', serviceS: 300 },
    ],
    durationsS: DUR,
    distancesM: DIST,
    hasEnd: true,
    ...over,
  };
}

test('closed route: arrivals include earlier service, returnAt after last service + last leg', () => {
  const r = buildSchedule(input());
  assert.deepEqual(r, {
    departAt: '2026-06-01T06:00:00Z',
    schedule: [
      { colisId: 'a', arrivee: '2026-06-01T06:10:00Z' }, // +600
      { colisId: 'b', arrivee: '2026-06-01T06:27:00Z' }, // +120 service +900
    ],
    returnAt: '2026-06-01T06:52:00Z', // +300 service +1200
    lateStops: null,
    totalDistanceKm: 16.35, // 5000 + 7345 + 4000 = 16 345 m
    estimatedTimeMin: 52,
    totalLatenessS: 0,
    durationS: 3120,
  });
});

test('open route: returnAt null, duration ends after the last stop service, no end leg', () => {
  const r = buildSchedule(input({ hasEnd: false }));
  assert.equal(r.returnAt, null);
  assert.equal(r.durationS, 600 + 120 + 900 + 300);
  assert.equal(r.estimatedTimeMin, 32);
  assert.equal(r.totalDistanceKm, 12.35); // 12 345 m
  assert.deepEqual(
    r.schedule.map((e) => e.arrivee),
    ['2026-06-01T06:10:00Z', '2026-06-01T06:27:00Z'],
  );
});

test('open route works with an (n+1)x(n+1) matrix', () => {
  const small = DUR.slice(0, 3).map((row) => row.slice(0, 3));
  const smallD = DIST.slice(0, 3).map((row) => row.slice(0, 3));
  const r = buildSchedule(input({ hasEnd: false, durationsS: small, distancesM: smallD }));
  assert.equal(r.durationS, 1920);
  assert.throws(() => buildSchedule(input({ hasEnd: true, durationsS: small, distancesM: smallD })), RangeError);
});

test('visiting order is followed', () => {
  const r = buildSchedule(input({ order: [1, 0] }));
  assert.deepEqual(r.schedule, [
    { colisId: 'b', arrivee: '2026-06-01T06:05:00Z' }, // +300
    { colisId: 'a', arrivee: '2026-06-01T06:17:30Z' }, // +300 service +450
  ]);
  assert.equal(r.returnAt, '2026-06-01T06:31:10Z'); // +120 service +700
  assert.equal(r.durationS, 300 + 300 + 450 + 120 + 700);
  assert.equal(r.totalDistanceKm, 11); // 2000 + 3000 + 6000
});

test('service times are counted in arrivals and in estimatedTimeMin', () => {
  const none = buildSchedule(input({}, [{ id: 'a' }, { id: 'b', serviceS: 0 }]));
  const some = buildSchedule(input());
  assert.equal(some.durationS - none.durationS, 420);
  assert.equal(some.estimatedTimeMin - none.estimatedTimeMin, 7);
  assert.equal(none.schedule[1]!.arrivee, '2026-06-01T06:25:00Z');
  assert.equal(some.schedule[1]!.arrivee, '2026-06-01T06:27:00Z');
  // the first stop's own service does not delay its own arrival
  assert.equal(none.schedule[0]!.arrivee, some.schedule[0]!.arrivee);
});

test('lateStops: null when every deadline is met, exact values when late', () => {
  const onTime = buildSchedule(
    input({}, [
      { id: 'a', serviceS: 120, deadline: '08:10' }, // arrival exactly 06:10Z = 08:10 Paris: on time
      { id: 'b', serviceS: 300, deadline: '12:00' },
    ]),
  );
  assert.equal(onTime.lateStops, null);
  assert.equal(onTime.totalLatenessS, 0);

  const late = buildSchedule(
    input({}, [
      { id: 'a', serviceS: 120, deadline: '08:05' }, // 5 min late
      { id: 'b', serviceS: 300, deadline: '08:26' }, // 60 s late
    ]),
  );
  assert.deepEqual(late.lateStops, [
    { colisId: 'a', arrivee: '2026-06-01T06:10:00Z', limite: '2026-06-01T06:05:00Z', retardMin: 5 },
    { colisId: 'b', arrivee: '2026-06-01T06:27:00Z', limite: '2026-06-01T06:26:00Z', retardMin: 1 },
  ]);
  assert.equal(late.totalLatenessS, 360);
  // lateness does not change the arrivals
  assert.deepEqual(late.schedule, onTime.schedule);
});

test('retardMin rounds partial minutes up', () => {
  const r = buildSchedule(
    input({}, [
      { id: 'a', serviceS: 121 },
      { id: 'b', serviceS: 300, deadline: '08:26' }, // arrival 06:27:01Z: 61 s late
    ]),
  );
  assert.deepEqual(r.lateStops, [
    { colisId: 'b', arrivee: '2026-06-01T06:27:01Z', limite: '2026-06-01T06:26:00Z', retardMin: 2 },
  ]);
  assert.equal(r.totalLatenessS, 61);
  assert.equal(retardMinutes(1), 1);
  assert.equal(retardMinutes(59), 1);
  assert.equal(retardMinutes(60), 1);
  assert.equal(retardMinutes(61), 2);
  assert.equal(retardMinutes(11400), 190);
});

test('a deadline already past at departure is late by the true amount', () => {
  const r = buildSchedule(
    input({ departure: at('2026-06-01T10:00:00Z') }, [
      { id: 'a', serviceS: 120, deadline: '09:00' }, // 07:00Z, arrival 10:10Z
      { id: 'b', serviceS: 300 },
    ]),
  );
  assert.deepEqual(r.lateStops, [
    { colisId: 'a', arrivee: '2026-06-01T10:10:00Z', limite: '2026-06-01T07:00:00Z', retardMin: 190 },
  ]);
  assert.equal(r.totalLatenessS, 11400);
});

test('deadline on the Paris calendar day when the UTC date differs', () => {
  // departure 2026-06-01T23:30Z = 2026-06-02 01:30 Paris
  const r = buildSchedule(
    input({ departure: at('2026-06-01T23:30:00Z') }, [
      { id: 'a', serviceS: 120, deadline: '01:35' }, // 2026-06-01T23:35Z; arrival 23:40Z
      { id: 'b', serviceS: 300, deadline: '08:00' }, // 2026-06-02T06:00Z: on time
    ]),
  );
  assert.deepEqual(r.lateStops, [
    { colisId: 'a', arrivee: '2026-06-01T23:40:00Z', limite: '2026-06-01T23:35:00Z', retardMin: 5 },
  ]);
  assert.equal(r.schedule[1]!.arrivee, '2026-06-01T23:57:00Z');
  assert.equal(r.returnAt, '2026-06-02T00:22:00Z');
});

test('route across the spring change: lateness uses instants, not wall clocks', () => {
  // departure 01:30 CET = 00:30Z; 1 h to a -> 01:30Z = 03:30 CEST; deadline 03:00 CEST = 01:00Z
  const r = buildSchedule({
    departure: at('2026-03-29T01:30'),
    order: [0, 1],
    stops: [
      { id: 'a', deadline: '03:00' },
      { id: 'b', deadline: '02:30' }, // in the gap -> 03:30 CEST = 01:30Z
    ],
    durationsS: [
      [0, 3600, 3600],
      [3600, 0, 1],
      [3600, 1, 0],
    ],
    distancesM: [
      [0, 1000, 1000],
      [1000, 0, 1],
      [1000, 1, 0],
    ],
    hasEnd: false,
  });
  assert.equal(r.departAt, '2026-03-29T00:30:00Z');
  assert.deepEqual(r.lateStops, [
    { colisId: 'a', arrivee: '2026-03-29T01:30:00Z', limite: '2026-03-29T01:00:00Z', retardMin: 30 },
    { colisId: 'b', arrivee: '2026-03-29T01:30:01Z', limite: '2026-03-29T01:30:00Z', retardMin: 1 },
  ]);
  assert.equal(r.totalDistanceKm, 1); // 1001 m
});

test('route across the autumn change: overlap deadline is the later instant', () => {
  // departure 02:00 CEST = 00:00Z; 90 min to a -> 01:30Z = 02:30 CET
  const mk = (deadline: string) =>
    buildSchedule({
      departure: at('2026-10-25T00:00:00Z'),
      order: [0, 1],
      stops: [{ id: 'a', deadline }, { id: 'b' }],
      durationsS: [
        [0, 5400, 60],
        [5400, 0, 60],
        [60, 60, 0],
      ],
      distancesM: [
        [0, 0, 0],
        [0, 0, 0],
        [0, 0, 0],
      ],
      hasEnd: false,
    });
  assert.equal(mk('02:30').lateStops, null); // exactly at the later 02:30
  assert.deepEqual(mk('02:29').lateStops, [
    { colisId: 'a', arrivee: '2026-10-25T01:30:00Z', limite: '2026-10-25T01:29:00Z', retardMin: 1 },
  ]);
  assert.equal(mk('02:29').totalDistanceKm, 0);
});

test('departure given without offset flows through (Paris winter wall time)', () => {
  const r = buildSchedule(input({ departure: at('2026-01-15T08:00') }, [
    { id: 'a', serviceS: 120, deadline: '08:09' },
    { id: 'b', serviceS: 300, deadline: '08:30' },
  ]));
  assert.equal(r.departAt, '2026-01-15T07:00:00Z');
  assert.deepEqual(r.lateStops, [
    { colisId: 'a', arrivee: '2026-01-15T07:10:00Z', limite: '2026-01-15T07:09:00Z', retardMin: 1 },
  ]);
});

test('departAt and arrivals drop milliseconds; fractional legs and services are rounded per item', () => {
  const dep = DateTime.fromISO('2026-06-01T06:00:00.750Z', { zone: 'utc' });
  const r = buildSchedule(
    input(
      {
        departure: dep,
        durationsS: [
          [0, 600.4, 300, 999],
          [600, 0, 899.5, 700.49],
          [300, 450, 0, 1200],
          [999, 700, 1200, 0],
        ],
        hasEnd: true,
        order: [1, 0],
      },
      [
        { id: 'a', serviceS: 29.5 },
        { id: 'b', serviceS: 0.4 },
      ],
    ),
  );
  // 300 + 0 + 450 -> a at 750; + 30 + 700 -> end at 1480
  assert.equal(r.departAt, '2026-06-01T06:00:00Z');
  assert.deepEqual(r.schedule.map((e) => e.arrivee), ['2026-06-01T06:05:00Z', '2026-06-01T06:12:30Z']);
  assert.equal(r.durationS, 1480);
  assert.equal(r.returnAt, '2026-06-01T06:24:40Z');
  assert.equal(r.estimatedTimeMin, 24.7); // 24.666… -> 24.7
  assert.ok(Number.isInteger(r.durationS) && Number.isInteger(r.totalLatenessS));
});

test('rounding helpers: km half up to 2 decimals, minutes half up to 1 decimal', () => {
  assert.equal(metresToKm(12345), 12.35);
  assert.equal(metresToKm(12344), 12.34);
  assert.equal(metresToKm(1005), 1.01);
  assert.equal(metresToKm(5), 0.01);
  assert.equal(metresToKm(4), 0);
  assert.equal(metresToKm(0), 0);
  assert.equal(metresToKm(123456.7), 123.46);
  assert.equal(secondsToMin1(3723), 62.1);
  assert.equal(secondsToMin1(3717), 62); // 61.95 -> 62.0
  assert.equal(secondsToMin1(3716), 61.9);
  assert.equal(secondsToMin1(3), 0.1);
  assert.equal(secondsToMin1(2), 0);
  assert.equal(secondsToMin1(0), 0);
});

test('a flat row-major matrix gives the same result as rows', () => {
  const flat = (m: number[][]) => Float64Array.from(m.flat());
  assert.deepEqual(buildSchedule(input({ durationsS: flat(DUR), distancesM: flat(DIST) })), buildSchedule(input()));
  assert.deepEqual(
    buildSchedule(input({ durationsS: flat(DUR), distancesM: DIST.flat(), order: [1, 0], hasEnd: false })),
    buildSchedule(input({ order: [1, 0], hasEnd: false })),
  );
  assert.throws(() => buildSchedule(input({ durationsS: [1, 2, 3] })), RangeError);
});

test('bad input is rejected', () => {
  assert.throws(() => buildSchedule(input({ order: [0] })), RangeError);
  assert.throws(() => buildSchedule(input({ order: [0, 0] })), RangeError);
  assert.throws(() => buildSchedule(input({ order: [0, 2] })), RangeError);
  assert.throws(() => buildSchedule(input({ order: [0, 1.5] })), RangeError);
  assert.throws(
    () => buildSchedule(input({ durationsS: [[0, -1, 0, 0], ...DUR.slice(1)] })),
    RangeError,
  );
  assert.throws(
    () => buildSchedule(input({ distancesM: [[0, NaN, 0, 0], ...DIST.slice(1)] })),
    RangeError,
  );
  assert.throws(() => buildSchedule(input({ durationsS: DUR.slice(0, 3) })), RangeError);
  assert.throws(() => buildSchedule(input({}, [{ id: 'a', serviceS: -1 }, { id: 'b' }])), RangeError);
  assert.throws(() => buildSchedule(input({}, [{ id: 'a', deadline: '8:00' }, { id: 'b' }])), RangeError);
  assert.throws(() => buildSchedule(input({ departure: DateTime.invalid('x') })), RangeError);
});

test('SCHEDULE_RULES states each response field and rounding', () => {
  for (const word of [
    'departAt',
    'arrivee',
    'returnAt',
    'lateStops',
    'limite',
    'retardMin',
    'totalDistanceKm',
    'estimatedTimeMin',
    'Europe/Paris',
    '2 decimals',
    '1 decimal',
    'earlier',
    'later',
    'strictly after',
  ]) {
    assert.ok(SCHEDULE_RULES.includes(word), word);
  }
});
