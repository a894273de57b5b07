/**
 * VROOM's shipments and job pickups to the fleet solver's problem (FleetProblem.shipments, FleetJob.pickup; the
 * solver honours them from issue-26ship): a shipment is two jobs, its pickup then its delivery, both with its
 * amount as demand; a job's pickup is carried to the end; skills and priority apply to both tasks of a shipment.
 */
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { validateVroomRequest } from '../../../src/api/vroom/validate.js';
import { vroomProblem } from '../../../src/api/vroom/problem.js';

test('shipments become pickup/delivery pairs of jobs, job pickups backhauls', () => {
  const call = validateVroomRequest({
    vehicles: [
      { id: 1, start_index: 0, capacity: [4], skills: [2] },
      { id: 2, start_index: 0, capacity: [4] },
    ],
    jobs: [
      { id: 1, location_index: 1, delivery: [1] },
      { id: 2, location_index: 2, pickup: [2] },
      { id: 3, location_index: 3, delivery: [1], pickup: [1] },
    ],
    shipments: [
      {
        amount: [3],
        skills: [2],
        priority: 7,
        pickup: { id: 4, location_index: 2, service: 60 },
        delivery: { id: 4, location_index: 3, service: 30, time_windows: [[100, 900]] },
      },
    ],
    matrices: {
      car: {
        durations: [
          [0, 1, 2, 3],
          [1, 0, 1, 2],
          [2, 1, 0, 1],
          [3, 2, 1, 0],
        ],
      },
    },
  });
  assert.equal(call.stops.length, 5, 'billed: one stop per job, two per shipment');
  assert.deepEqual(
    call.stops.map((t) => [t.type, t.id]),
    [
      ['job', 1],
      ['job', 2],
      ['job', 3],
      ['pickup', 4],
      ['delivery', 4],
    ],
  );
  const p = vroomProblem(
    call,
    call.labelled.map((l) => ('index' in l.location ? l.location.index : 0)),
    {
      durationsS: [
        [0, 1, 2, 3],
        [1, 0, 1, 2],
        [2, 1, 0, 1],
        [3, 2, 1, 0],
      ],
      distancesM: [
        [0, 0, 0, 0],
        [0, 0, 0, 0],
        [0, 0, 0, 0],
        [0, 0, 0, 0],
      ],
    },
  );
  assert.deepEqual(p.shipments, [{ pickup: 3, delivery: 4 }]);
  assert.deepEqual(p.jobs[0], { location: 1, service: 0, demand: [1] });
  assert.deepEqual(p.jobs[1], { location: 2, service: 0, pickup: [2] }, 'a pickup is not a delivery demand');
  assert.deepEqual(p.jobs[2], { location: 3, service: 0, demand: [1], pickup: [1] });
  assert.deepEqual(p.jobs[3], { location: 2, service: 60, demand: [3], allowedVehicles: [0], priority: 7 });
  assert.deepEqual(p.jobs[4], {
    location: 3,
    service: 30,
    windows: [[100, 900]],
    demand: [3],
    allowedVehicles: [0],
    priority: 7,
  });
});

test('pickup and delivery ids are their own: a pickup may share a job id, two pickups may not', () => {
  const base = {
    vehicles: [{ id: 1, start: [2.35, 48.85] }],
    jobs: [{ id: 1, location: [2.3, 48.86] }],
  };
  const shipment = (pickup: number, delivery: number) => ({
    pickup: { id: pickup, location: [2.31, 48.86] },
    delivery: { id: delivery, location: [2.32, 48.87] },
  });
  assert.equal(validateVroomRequest({ ...base, shipments: [shipment(1, 1)] }).stops.length, 3);
  assert.throws(
    () => validateVroomRequest({ ...base, shipments: [shipment(5, 6), shipment(5, 7)] }),
    (err: any) => err.extra.param === 'shipments[1].pickup.id',
  );
});
