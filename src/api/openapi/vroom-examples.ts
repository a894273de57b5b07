/**
 * Examples of POST /api/v1/vroom: VROOM's own documented example with a custom matrix (docs/example_2.json of
 * VROOM-Project/vroom, BSD-2-Clause; test/fixtures/vroom/), its matrix in plan mode (options.c) with a route given
 * that is late (test/http/vroom-plan.test.ts) and a request with coordinates, as an openrouteservice client sends
 * it; the answers are what the service returns for them.
 */
export const VROOM_REQUEST_EXAMPLES = {
  customMatrix: {
    summary: "VROOM's documented example 2: one vehicle, two jobs, a custom matrix (works with a test key)",
    value: {
      vehicles: [{ id: 0, start_index: 0, end_index: 3 }],
      jobs: [
        { id: 1414, location_index: 1 },
        { id: 1515, location_index: 2 },
      ],
      matrices: {
        car: {
          durations: [
            [0, 2104, 197, 1299],
            [2103, 0, 2255, 3152],
            [197, 2256, 0, 1102],
            [1299, 3153, 1102, 0],
          ],
        },
      },
    },
  },
  planMode: {
    summary:
      "Plan mode (options.c): example 2's matrix, the route given in the vehicle's steps; the answer times it and reports its violations",
    value: {
      vehicles: [
        {
          id: 0,
          start_index: 0,
          end_index: 3,
          time_window: [0, 5000],
          steps: [
            { type: 'start' },
            { type: 'job', id: 1515 },
            { type: 'job', id: 1414, service_before: 2000 },
            { type: 'end' },
          ],
        },
      ],
      jobs: [
        { id: 1414, location_index: 1 },
        { id: 1515, location_index: 2 },
      ],
      matrices: {
        car: {
          durations: [
            [0, 2104, 197, 1299],
            [2103, 0, 2255, 3152],
            [197, 2256, 0, 1102],
            [1299, 3153, 1102, 0],
          ],
        },
      },
      options: { c: true },
    },
  },
  coordinates: {
    summary: 'An openrouteservice-style call: [lon, lat], UNIX-time windows, capacities, skills, geometry',
    value: {
      vehicles: [
        {
          id: 1,
          profile: 'driving-car',
          start: [2.35044, 48.71764],
          end: [2.35044, 48.71764],
          capacity: [4],
          skills: [1, 14],
          time_window: [1600416000, 1600444800],
        },
      ],
      jobs: [
        {
          id: 1,
          service: 300,
          delivery: [1],
          location: [1.98935, 48.701],
          skills: [1],
          time_windows: [[1600419600, 1600423200]],
        },
        { id: 5, service: 300, delivery: [1], location: [2.28325, 48.5958], skills: [14] },
      ],
      options: { g: true },
    },
  },
};

export const VROOM_RESPONSE_EXAMPLES = {
  customMatrix: {
    summary: "The answer to VROOM's example 2 (test key): VROOM's documented route, start → 1414 → 1515 → end",
    value: {
      code: 0,
      summary: {
        cost: 5461,
        routes: 1,
        unassigned: 0,
        setup: 0,
        service: 0,
        duration: 5461,
        waiting_time: 0,
        priority: 0,
        violations: [],
      },
      unassigned: [],
      routes: [
        {
          vehicle: 0,
          cost: 5461,
          setup: 0,
          service: 0,
          duration: 5461,
          waiting_time: 0,
          priority: 0,
          violations: [],
          steps: [
            {
              type: 'start',
              location_index: 0,
              setup: 0,
              service: 0,
              waiting_time: 0,
              arrival: 0,
              duration: 0,
              violations: [],
            },
            {
              type: 'job',
              id: 1414,
              location_index: 1,
              setup: 0,
              service: 0,
              waiting_time: 0,
              arrival: 2104,
              duration: 2104,
              violations: [],
            },
            {
              type: 'job',
              id: 1515,
              location_index: 2,
              setup: 0,
              service: 0,
              waiting_time: 0,
              arrival: 4359,
              duration: 4359,
              violations: [],
            },
            {
              type: 'end',
              location_index: 3,
              setup: 0,
              service: 0,
              waiting_time: 0,
              arrival: 5461,
              duration: 5461,
              violations: [],
            },
          ],
        },
      ],
      stopsCharged: 0,
      sandbox: true,
      sandboxStopsRemainingToday: 198,
    },
  },
};
