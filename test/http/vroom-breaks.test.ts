/**
 * POST /api/v1/vroom with vehicle breaks: VROOM's example 1 (a break on vehicle 2) answers code 0 with a `break`
 * step inside its window, taken while the vehicle stands; the route's service counts it.
 */
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
before(async () => {
  server = await startTestServer({ env: { PLANS_SOLVER_TIME_LIMIT_MS: '300' } });
});
after(() => server.close());

const vroom = async (body: unknown, stops = 20) =>
  server.request('POST', '/api/v1/vroom', { key: await server.createKey('live', stops), body });
const example1 = () => JSON.parse(readFileSync(new URL('../fixtures/vroom/example_1.json', import.meta.url), 'utf8'));

test("VROOM's example 1 with its break: code 0, vehicle 2's break inside its window, between its tasks", async () => {
  const body = example1();
  const res = await vroom(body);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.code, 0);
  assert.deepEqual(res.body.unassigned, []);
  const route = res.body.routes.find((r: any) => r.vehicle === 2);
  assert.ok(route, 'vehicle 2 is used (the shipment needs its skill 2)');
  const breaks = route.steps.filter((s: any) => s.type === 'break');
  assert.equal(breaks.length, 1, JSON.stringify(route.steps));
  const b = breaks[0];
  const [[from, to]] = body.vehicles[1].breaks[0].time_windows;
  const start = b.arrival + b.waiting_time;
  assert.equal(b.id, 2);
  assert.equal(b.service, 300);
  assert.ok(from <= start && start <= to, `starts in its window: ${start}`);
  // the next step starts its service after the break, the previous one was done before it
  const k = route.steps.indexOf(b);
  const next = route.steps[k + 1];
  assert.ok(next.arrival + next.waiting_time >= start + 300);
  const previous = route.steps[k - 1];
  assert.ok(previous.arrival + previous.waiting_time + previous.service <= start);
  assert.equal(
    route.service,
    route.steps.reduce((s: number, step: any) => s + step.service, 0),
  );
  assert.ok(
    res.body.routes
      .filter((r: any) => r.vehicle !== 2)
      .every((r: any) => r.steps.every((s: any) => s.type !== 'break')),
    'vehicle 1 has no break',
  );
});
