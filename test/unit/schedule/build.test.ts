/**
 * The schedule rules end to end on single routes: a problem goes through the solver (its
 * evaluate_route, which the optimize pipeline also uses for the order it keeps) for the times, then
 * through buildSchedule for the instants and the answer's fields. The arithmetic is the solver's;
 * these tests pin what the answer says.
 */
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
  solverDeadlineOffsetS,
  type MatrixLike,
  type ScheduleResult,
} from '../../../src/schedule/index.js';
import { SolverError, loadSolver } from '../../../src/solver/index.js';

const at = (iso: string): DateTime => resolveDeparture(iso, new Date(0));
const solver = loadSolver();

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

interface Stop {
  id: string;
  serviceS?: number;
  deadline?: string;
}
interface Route {
  departure: DateTime;
  order: number[];
  stops: Stop[];
  /** Whole seconds, rows over [start, stops…, end?] (the pipeline rounds the matrix before). */
  durationsS: number[][];
  distancesM: MatrixLike;
  hasEnd: boolean;
}

/** The optimize pipeline's steps for a given order: the solver's problem and times, then buildSchedule. */
function schedule(r: Route): ScheduleResult {
  const size = r.stops.length + 1 + (r.hasEnd ? 1 : 0);
  const problem = {
    durations: Int32Array.from(r.durationsS.slice(0, size).flatMap((row) => row.slice(0, size))),
    size,
    serviceS: Int32Array.from(r.stops, (s) => s.serviceS ?? 0),
    deadlineS: Int32Array.from(r.stops, (s) =>
      solverDeadlineOffsetS(s.deadline, r.departure.toUTC().startOf('second')),
    ),
    hasEnd: r.hasEnd,
  };
  const times = solver.evaluate(problem, r.order);
  return buildSchedule({
    departure: r.departure,
    order: r.order,
    stops: r.stops,
    times,
    distancesM: r.distancesM,
    hasEnd: r.hasEnd,
  });
}

function input(over: Partial<Route> = {}, stops?: Stop[]): Route {
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
  const r = schedule(input());
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
  const r = schedule(input({ hasEnd: false }));
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
  const r = schedule(input({ hasEnd: false, durationsS: small, distancesM: smallD }));
  assert.equal(r.durationS, 1920);
  assert.throws(
    () => schedule(input({ hasEnd: true, durationsS: small, distancesM: smallD })),
    (e: unknown) => e instanceof SolverError && e.code === 'invalid_input',
  );
});

test('visiting order is followed', () => {
  const r = schedule(input({ order: [1, 0] }));
  assert.deepEqual(r.schedule, [
    { colisId: 'b', arrivee: '2026-06-01T06:05:00Z' }, // +300
    { colisId: 'a', arrivee: '2026-06-01T06:17:30Z' }, // +300 service +450
  ]);
  assert.equal(r.returnAt, '2026-06-01T06:31:10Z'); // +120 service +700
  assert.equal(r.durationS, 300 + 300 + 450 + 120 + 700);
  assert.equal(r.totalDistanceKm, 11); // 2000 + 3000 + 6000
});

test('service times are counted in arrivals and in estimatedTimeMin', () => {
  const none = schedule(input({}, [{ id: 'a' }, { id: 'b', serviceS: 0 }]));
  const some = schedule(input());
  assert.equal(some.durationS - none.durationS, 420);
  assert.equal(some.estimatedTimeMin - none.estimatedTimeMin, 7);
  assert.equal(none.schedule[1]!.arrivee, '2026-06-01T06:25:00Z');
  assert.equal(some.schedule[1]!.arrivee, '2026-06-01T06:27:00Z');
  // the first stop's own service does not delay its own arrival
  assert.equal(none.schedule[0]!.arrivee, some.schedule[0]!.arrivee);
});

test('lateStops: null when every deadline is met, exact values when late', () => {
  const onTime = schedule(
    input({}, [
      { id: 'a', serviceS: 120, deadline: '08:10' }, // arrival exactly 06:10Z = 08:10 Paris: on time
      { id: 'b', serviceS: 300, deadline: '12:00' },
    ]),
  );
  assert.equal(onTime.lateStops, null);
  assert.equal(onTime.totalLatenessS, 0);

  const late = schedule(
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
  const r = schedule(
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
  const r = schedule(
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
  const r = schedule(
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
  const r = schedule({
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
    schedule({
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
  const r = schedule(
    input({ departure: at('2026-01-15T08:00') }, [
      { id: 'a', serviceS: 120, deadline: '08:09' },
      { id: 'b', serviceS: 300, deadline: '08:30' },
    ]),
  );
  assert.equal(r.departAt, '2026-01-15T07:00:00Z');
  assert.deepEqual(r.lateStops, [
    { colisId: 'a', arrivee: '2026-01-15T07:10:00Z', limite: '2026-01-15T07:09:00Z', retardMin: 1 },
  ]);
});

test('departAt and arrivals drop milliseconds: the times count from the whole second', () => {
  const dep = DateTime.fromISO('2026-06-01T06:00:00.750Z', { zone: 'utc' });
  const r = schedule(input({ departure: dep, order: [1, 0] }, [{ id: 'a', serviceS: 30 }, { id: 'b' }]));
  // 300 + 0 + 450 -> a at 750; + 30 + 700 -> end at 1480
  assert.equal(r.departAt, '2026-06-01T06:00:00Z');
  assert.deepEqual(
    r.schedule.map((e) => e.arrivee),
    ['2026-06-01T06:05:00Z', '2026-06-01T06:12:30Z'],
  );
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

test('a flat row-major distance matrix gives the same result as rows', () => {
  const flat = (m: number[][]) => Float64Array.from(m.flat());
  assert.deepEqual(schedule(input({ distancesM: flat(DIST) })), schedule(input()));
  assert.deepEqual(
    schedule(input({ distancesM: DIST.flat(), order: [1, 0], hasEnd: false })),
    schedule(input({ order: [1, 0], hasEnd: false })),
  );
  assert.throws(() => schedule(input({ distancesM: [1, 2, 3] })), RangeError);
});

test('bad input is rejected: by the solver (travel, service, order) or by buildSchedule (the rest)', () => {
  const invalid = (e: unknown) => e instanceof SolverError && e.code === 'invalid_input';
  assert.throws(() => schedule(input({ order: [0] })), invalid);
  assert.throws(() => schedule(input({ order: [0, 0] })), invalid);
  assert.throws(() => schedule(input({ order: [0, 2] })), invalid);
  assert.throws(() => schedule(input({ order: [0, 1.5] })), invalid);
  assert.throws(() => schedule(input({ durationsS: [[0, -1, 0, 0], ...DUR.slice(1)] })), invalid);
  assert.throws(() => schedule(input({}, [{ id: 'a', serviceS: -1 }, { id: 'b' }])), invalid);
  assert.throws(() => schedule(input({ distancesM: [[0, NaN, 0, 0], ...DIST.slice(1)] })), RangeError);
  assert.throws(() => schedule(input({ distancesM: DIST.slice(0, 3) })), RangeError);
  assert.throws(() => schedule(input({}, [{ id: 'a', deadline: '8:00' }, { id: 'b' }])), RangeError);
  assert.throws(() => schedule(input({ departure: DateTime.invalid('x') })), RangeError);
  const times = solver.evaluate(
    {
      durations: new Int32Array(9),
      size: 3,
      serviceS: new Int32Array(2),
      deadlineS: new Int32Array([-10, 0]),
      hasEnd: false,
    },
    [0, 1],
  );
  const base = {
    departure: at('2026-06-01T06:00:00Z'),
    stops: [{ id: 'a' }, { id: 'b' }],
    times,
    distancesM: DIST,
    hasEnd: false,
  };
  assert.throws(() => buildSchedule({ ...base, order: [0, 0] }), RangeError);
  assert.throws(
    () => buildSchedule({ ...base, order: [0], stops: [{ id: 'a' }] }),
    RangeError,
    'times of another route',
  );
  assert.throws(() => buildSchedule({ ...base, order: [0, 1] }), /late, and it has no deadline/);
});

test('the answer is made of the times it is given: nothing is recomputed from a matrix', () => {
  const departure = at('2026-06-01T06:00:00Z');
  const stops = [{ id: 'a', deadline: '08:01' }, { id: 'b' }];
  const times = {
    departureS: 0,
    stops: [
      { arrivalS: 100, waitS: 20, startS: 120, departureS: 180, latenessS: 60 },
      { arrivalS: 1000, waitS: 0, startS: 1000, departureS: 1000, latenessS: 0 },
    ],
    endS: 1300,
    durationS: 1300,
    latenessS: 60,
  };
  const r = buildSchedule({ departure, order: [0, 1], stops, times, distancesM: DIST, hasEnd: true });
  assert.deepEqual(r.schedule, [
    { colisId: 'a', arrivee: '2026-06-01T06:01:40Z', serviceStart: '2026-06-01T06:02:00Z' },
    { colisId: 'b', arrivee: '2026-06-01T06:16:40Z' },
  ]);
  assert.deepEqual(r.lateStops, [
    { colisId: 'a', arrivee: '2026-06-01T06:01:40Z', limite: '2026-06-01T06:01:00Z', retardMin: 1 },
  ]);
  assert.equal(r.returnAt, '2026-06-01T06:21:40Z');
  assert.deepEqual([r.durationS, r.estimatedTimeMin, r.totalLatenessS], [1300, 21.7, 60]);
  // a later departure of the vehicle (a fleet's shift start) moves departAt only
  assert.equal(
    buildSchedule({
      departure,
      order: [0, 1],
      stops,
      times: { ...times, departureS: 60 },
      distancesM: DIST,
      hasEnd: true,
    }).departAt,
    '2026-06-01T06:01:00Z',
  );
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
