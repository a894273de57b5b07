/**
 * Examples of POST /api/v1/vroom: VROOM's own documented example with a custom matrix (docs/example_2.json of
 * VROOM-Project/vroom, BSD-2-Clause; test/fixtures/vroom/) and a request with coordinates, as an openrouteservice
 * client sends it; the answers are what the service returns for them.
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
};

export const VROOM_RESPONSE_EXAMPLES = {};
