/**
 * Plan mode's service start (src/api/vroom/plan.ts): the greedy choice, as early as the step's bounds and the
 * task's windows allow, and the violations VROOM names when they cannot all hold.
 */
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { serviceStart } from '../../../src/api/vroom/plan.js';

const windows = [
  [100, 200],
  [300, 400],
] as const;

test('on arrival inside a window; waits for the next one to open; late after every window', () => {
  assert.deepEqual(serviceStart(150, windows, {}), { start: 150, violations: [] });
  assert.deepEqual(serviceStart(250, windows, {}), { start: 300, violations: [] });
  assert.deepEqual(serviceStart(450, windows, {}), { start: 450, violations: [{ cause: 'delay', duration: 50 }] });
  assert.deepEqual(serviceStart(50, undefined, {}), { start: 50, violations: [] });
});

test("the step's service_at, service_after and service_before bound the start; outside every window they are violations", () => {
  // after: later than arrival, inside a window
  assert.deepEqual(serviceStart(150, windows, { after: 180 }), { start: 180, violations: [] });
  // after past the first window: waits for the second
  assert.deepEqual(serviceStart(150, windows, { after: 250 }), { start: 300, violations: [] });
  // at before the window opens: starts then, early
  assert.deepEqual(serviceStart(50, windows, { at: 80 }), {
    start: 80,
    violations: [{ cause: 'lead_time', duration: 20 }],
  });
  // at already past on arrival: starts on arrival, late
  assert.deepEqual(serviceStart(170, windows, { at: 160 }), {
    start: 170,
    violations: [{ cause: 'delay', duration: 10 }],
  });
  // before cuts the wait for a window: starts at before, early
  assert.deepEqual(serviceStart(220, windows, { before: 250 }), {
    start: 250,
    violations: [{ cause: 'lead_time', duration: 50 }],
  });
  // arriving after before: late by the difference
  assert.deepEqual(serviceStart(190, windows, { before: 150 }), {
    start: 190,
    violations: [{ cause: 'delay', duration: 40 }],
  });
});
