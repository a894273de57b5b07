/**
 * Request and response examples of POST /api/v1/plans. The response was produced by the service
 * itself (test key, built-in travel model, default settings) for the "fleet" request; the linter
 * checks every example against its schema. docs/api.md shows the same pair.
 */
export const PLAN_REQUEST_EXAMPLES = {
  fleet: {
    summary:
      'Two vans from one depot: shifts, capacities [kg, parcels], maxStops, a notBefore, an allowed vehicle, deadlines, a stop too heavy for any van (works with a test key)',
    value: {
      vehicles: [
        {
          id: 'van-1',
          start: {
            latitude: 48.8566,
            longitude: 2.3522,
          },
          end: {
            latitude: 48.8566,
            longitude: 2.3522,
          },
          shift: {
            start: '08:00',
            end: '12:00',
          },
          capacity: [300, 20],
        },
        {
          id: 'van-2',
          start: {
            latitude: 48.8566,
            longitude: 2.3522,
          },
          shift: {
            start: '09:00',
            end: '13:00',
          },
          capacity: [200, 15],
          maxStops: 4,
        },
      ],
      stops: [
        {
          id: 'louvre',
          latitude: 48.8606,
          longitude: 2.3376,
          demand: [40, 3],
          deadline: '08:30',
        },
        {
          id: 'notre-dame',
          latitude: 48.853,
          longitude: 2.3499,
          demand: [25, 2],
          serviceSeconds: 300,
        },
        {
          id: 'etoile',
          latitude: 48.8738,
          longitude: 2.295,
          demand: [120, 4],
          notBefore: '10:30',
        },
        {
          id: 'bastille',
          latitude: 48.8532,
          longitude: 2.3691,
          demand: [60, 5],
          allowedVehicles: ['van-2'],
        },
        {
          id: 'montmartre',
          latitude: 48.8867,
          longitude: 2.3431,
          demand: [80, 2],
          serviceSeconds: 180,
        },
        {
          id: 'pantheon',
          latitude: 48.8462,
          longitude: 2.3464,
          demand: [30, 1],
          deadline: '09:15',
        },
        {
          id: 'piano',
          latitude: 48.8414,
          longitude: 2.321,
          demand: [450, 1],
        },
      ],
      departureTime: '2026-06-01T07:30:00+02:00',
    },
  },
  minimal: {
    summary: 'The least a call needs: one vehicle and two stops',
    value: {
      vehicles: [
        {
          id: 'van-1',
          start: {
            latitude: 48.8566,
            longitude: 2.3522,
          },
        },
      ],
      stops: [
        {
          id: 'a',
          latitude: 48.8606,
          longitude: 2.3376,
        },
        {
          id: 'b',
          latitude: 48.853,
          longitude: 2.3499,
        },
      ],
    },
  },
};

export const PLAN_RESPONSE_EXAMPLES = {
  testKey: {
    summary:
      'Test key: the "fleet" request; van-2 waits at etoile until its notBefore (serviceStart), the piano fits no van',
    value: {
      routes: [
        {
          vehicleId: 'van-1',
          order: ['notre-dame', 'pantheon', 'louvre', 'montmartre'],
          waypoints: [
            {
              id: 'notre-dame',
              order: 1,
              latitude: 48.853,
              longitude: 2.3499,
            },
            {
              id: 'pantheon',
              order: 2,
              latitude: 48.8462,
              longitude: 2.3464,
            },
            {
              id: 'louvre',
              order: 3,
              latitude: 48.8606,
              longitude: 2.3376,
            },
            {
              id: 'montmartre',
              order: 4,
              latitude: 48.8867,
              longitude: 2.3431,
            },
          ],
          schedule: [
            {
              colisId: 'notre-dame',
              arrivee: '2026-06-01T06:01:42Z',
            },
            {
              colisId: 'pantheon',
              arrivee: '2026-06-01T06:09:49Z',
            },
            {
              colisId: 'louvre',
              arrivee: '2026-06-01T06:16:14Z',
            },
            {
              colisId: 'montmartre',
              arrivee: '2026-06-01T06:25:20Z',
            },
          ],
          departAt: '2026-06-01T06:00:00Z',
          returnAt: '2026-06-01T06:38:31Z',
          lateStops: null,
          totalDistanceKm: 12.09,
          estimatedTimeMin: 38.5,
          load: [175, 8],
          steps: [
            {
              type: 'start',
              id: 'van-1',
              arrival: '2026-06-01T06:00:00Z',
              departure: '2026-06-01T06:00:00Z',
              load: [175, 8],
              distanceM: 0,
              durationS: 0,
            },
            {
              type: 'stop',
              id: 'notre-dame',
              arrival: '2026-06-01T06:01:42Z',
              departure: '2026-06-01T06:06:42Z',
              load: [150, 6],
              distanceM: 565,
              durationS: 102,
            },
            {
              type: 'stop',
              id: 'pantheon',
              arrival: '2026-06-01T06:09:49Z',
              departure: '2026-06-01T06:09:49Z',
              load: [120, 5],
              distanceM: 1038,
              durationS: 187,
            },
            {
              type: 'stop',
              id: 'louvre',
              arrival: '2026-06-01T06:16:14Z',
              departure: '2026-06-01T06:16:14Z',
              load: [80, 2],
              distanceM: 2244,
              durationS: 385,
            },
            {
              type: 'stop',
              id: 'montmartre',
              arrival: '2026-06-01T06:25:20Z',
              departure: '2026-06-01T06:28:20Z',
              load: [0, 0],
              distanceM: 3809,
              durationS: 546,
            },
            {
              type: 'end',
              id: 'van-1',
              arrival: '2026-06-01T06:38:31Z',
              departure: '2026-06-01T06:38:31Z',
              load: [0, 0],
              distanceM: 4436,
              durationS: 611,
            },
          ],
        },
        {
          vehicleId: 'van-2',
          order: ['bastille', 'etoile'],
          waypoints: [
            {
              id: 'bastille',
              order: 1,
              latitude: 48.8532,
              longitude: 2.3691,
            },
            {
              id: 'etoile',
              order: 2,
              latitude: 48.8738,
              longitude: 2.295,
            },
          ],
          schedule: [
            {
              colisId: 'bastille',
              arrivee: '2026-06-01T07:05:03Z',
            },
            {
              colisId: 'etoile',
              arrivee: '2026-06-01T07:20:44Z',
              serviceStart: '2026-06-01T08:30:00Z',
            },
          ],
          departAt: '2026-06-01T07:00:00Z',
          returnAt: null,
          lateStops: null,
          totalDistanceKm: 9.33,
          estimatedTimeMin: 90,
          load: [180, 9],
          steps: [
            {
              type: 'start',
              id: 'van-2',
              arrival: '2026-06-01T07:00:00Z',
              departure: '2026-06-01T07:00:00Z',
              load: [180, 9],
              distanceM: 0,
              durationS: 0,
            },
            {
              type: 'stop',
              id: 'bastille',
              arrival: '2026-06-01T07:05:03Z',
              departure: '2026-06-01T07:05:03Z',
              load: [120, 4],
              distanceM: 1681,
              durationS: 303,
            },
            {
              type: 'stop',
              id: 'etoile',
              arrival: '2026-06-01T07:20:44Z',
              serviceStart: '2026-06-01T08:30:00Z',
              departure: '2026-06-01T08:30:00Z',
              load: [0, 0],
              distanceM: 7650,
              durationS: 941,
            },
            {
              type: 'end',
              id: 'van-2',
              arrival: '2026-06-01T08:30:00Z',
              departure: '2026-06-01T08:30:00Z',
              load: [0, 0],
              distanceM: 0,
              durationS: 0,
            },
          ],
        },
      ],
      unassigned: [
        {
          id: 'piano',
          reason: 'capacity',
          message:
            'Stop "piano" was not planned: its demand, or one more stop, fits in no vehicle allowed to serve it (capacity or maxStops): add a vehicle, raise a capacity or maxStops, or split the stop.',
        },
      ],
      totals: {
        stops: 7,
        assigned: 6,
        unassigned: 1,
        vehiclesUsed: 2,
        totalDistanceKm: 21.42,
        estimatedTimeMin: 128.5,
        lateStops: 0,
      },
      stopsCharged: 0,
      sandbox: true,
      sandboxStopsRemainingToday: 193,
    },
  },
};
