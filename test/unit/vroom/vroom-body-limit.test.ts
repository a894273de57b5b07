/**
 * The body limit of POST /api/v1/vroom (src/http/body-size.ts over vroomBodySizeSchema, whose `matrices` is the one
 * profile a valid request holds): the largest valid VROOM request, pretty-printed with its matrices' rows compact,
 * passes validation and fits; the limit is not above twice it.
 */
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { largestValidBodyBytes } from '../../../src/http/body-size.js';
import { MAX_MATRIX_ROWS } from '../../../src/calls/matrix-schema.js';
import { validateVroomRequest } from '../../../src/api/vroom/validate.js';
import { vroomBodySizeSchema } from '../../../src/api/vroom/schema.js';

const text = (length: number) => 'x'.repeat(length);
const amount = Array.from({ length: 8 }, () => 999_999_999);
const windows = Array.from({ length: 16 }, (_, w) => [4_000_000_000 + w * 10, 4_000_000_000 + w * 10 + 5]);
const skills = Array.from({ length: 100 }, (_, s) => 4_000_000_000 + s);

function largestRequest() {
  const profile = 'p'.repeat(100);
  const row = Array.from({ length: MAX_MATRIX_ROWS }, () => 999_999.1234);
  const table = Array.from({ length: MAX_MATRIX_ROWS }, () => row);
  return {
    vehicles: Array.from({ length: 50 }, (_, k) => ({
      id: 9_007_199_254_739_000 + k,
      profile,
      description: text(500),
      start: [-179.123456789012, -89.123456789012],
      start_index: 1099,
      end: [-179.123456789012, -89.123456789012],
      end_index: 1099,
      capacity: amount,
      skills,
      type: text(100),
      time_window: [0, 4_294_967_295],
      breaks: [],
      speed_factor: 1,
      max_tasks: 1000,
      max_travel_time: 4_294_967_295,
      max_distance: 4_294_967_295,
      steps: [],
    })),
    jobs: Array.from({ length: 1000 }, (_, i) => ({
      id: 9_007_199_254_739_000 + i,
      description: text(500),
      location: [-179.123456789012, -89.123456789012],
      location_index: 1099,
      setup: 0,
      service: 4_294_967_295,
      time_windows: windows,
      delivery: amount,
      pickup: amount,
      skills,
      priority: 100,
    })),
    matrices: { [profile]: { durations: table, distances: table, costs: table } },
    options: { g: true },
  };
}

/** Pretty-printed with 4 spaces and CRLF, but the matrices' rows one per line, compact (docs/api.md "Limits"). */
function prettyWithTables(body: ReturnType<typeof largestRequest>): number {
  const [[profile, matrices]] = Object.entries(body.matrices);
  const table = (rows: number[][]) =>
    `[\r\n${rows.map((r) => `                ${JSON.stringify(r)}`).join(',\r\n')}\r\n            ]`;
  const inner = `{\r\n        "${profile}": {\r\n            "durations": ${table(matrices!.durations)},\r\n            "distances": ${table(matrices!.distances)},\r\n            "costs": ${table(matrices!.costs)}\r\n        }\r\n    }`;
  const text = JSON.stringify({ ...body, matrices: 'MATRICES' }, null, 4)
    .replace(/\n/g, '\r\n')
    .replace('"MATRICES"', inner);
  return Buffer.byteLength(text);
}

test('the largest valid VROOM request fits the limit counted from the schema, which is not above twice it', () => {
  const body = largestRequest();
  const call = validateVroomRequest(body);
  assert.equal(call.stops.length, 1000);
  const size = prettyWithTables(body);
  const limit = largestValidBodyBytes(vroomBodySizeSchema);
  assert.ok(size <= limit, `${size} > ${limit}`);
  // the schema also counts 500 shipments beside the 1000 jobs, which no valid call has at once
  assert.ok(limit < 2 * size, `${limit} ≥ 2 × ${size}`);
});
