/**
 * Plan sizes by mode: a synchronous plan takes 1000 stops and 50 vehicles, and past them is told to send the plan
 * with `Prefer: respond-async`; an asynchronous one takes 10,000 stops and 500 vehicles (charged per stop as
 * today). No runner (SERVICE_ROLE=api): the jobs stay queued, nothing is solved here.
 */
import { strict as assert } from 'node:assert';
import { after, before, test } from 'node:test';
import { PARIS_START, coordinateStops, startTestServer, type TestServer } from '../helpers/server.js';

const DEPARTURE = '2026-06-01T08:00:00+02:00';
const ASYNC = { Prefer: 'respond-async' };
const plan = (stops: number, vehicles: number) => ({
  departureTime: DEPARTURE,
  vehicles: Array.from({ length: vehicles }, (_, i) => ({ id: `v${i}`, start: PARIS_START })),
  stops: coordinateStops(stops),
});

let server: TestServer;
before(async () => {
  server = await startTestServer({ env: { SERVICE_ROLE: 'api', JOB_MAX_UNFINISHED_PER_KEY: '10' } });
});
after(async () => {
  await server.close();
});

test('synchronous: 1001 stops or 51 vehicles are refused, naming Prefer: respond-async', async () => {
  const key = await server.createKey('live', 100_000);
  for (const [stops, vehicles, param, said] of [
    [
      1001,
      2,
      'stops',
      /at most 1000 stops \(got 1001\); split the day into several plans, or send it asynchronously with the header "Prefer: respond-async" \(up to 10000 stops and 500 vehicles/,
    ],
    [
      10,
      51,
      'vehicles',
      /at most 50 vehicles \(got 51\); plan the fleet in groups, or send it asynchronously with the header "Prefer: respond-async"/,
    ],
  ] as const) {
    const res = await server.request('POST', '/api/v1/plans', { key, body: plan(stops, vehicles) });
    assert.equal(res.status, 400, JSON.stringify(res.body).slice(0, 300));
    assert.equal(res.body.error, 'invalid_request');
    assert.equal(res.body.param, param);
    assert.match(res.body.message, said);
  }
  assert.equal((await server.ledgerOf(key)).balance, 100_000, 'nothing charged');
});

test('asynchronous: 1001 stops × 51 vehicles and 10,000 stops × 500 vehicles are queued and charged per stop', async () => {
  const key = await server.createKey('live', 20_000);
  for (const [stops, vehicles] of [
    [1001, 51],
    [10_000, 500],
  ] as const) {
    const res = await server.request('POST', '/api/v1/plans', { key, body: plan(stops, vehicles), headers: ASYNC });
    assert.equal(res.status, 202, JSON.stringify(res.body).slice(0, 300));
    assert.equal(res.body.status, 'queued');
    assert.equal(res.body.stopsCharged, stops);
  }
  assert.equal((await server.ledgerOf(key)).balance, 20_000 - 1001 - 10_000);
});

test('asynchronous: 10,001 stops or 501 vehicles are refused, uncharged', async () => {
  const key = await server.createKey('live', 100_000);
  for (const [stops, vehicles, param, said] of [
    [10_001, 2, 'stops', /at most 10000 stops, asynchronously \(got 10001\)/],
    [10, 501, 'vehicles', /at most 500 vehicles, asynchronously \(got 501\)/],
  ] as const) {
    const res = await server.request('POST', '/api/v1/plans', { key, body: plan(stops, vehicles), headers: ASYNC });
    assert.equal(res.status, 400, JSON.stringify(res.body).slice(0, 300));
    assert.equal(res.body.param, param);
    assert.match(res.body.message, said);
  }
  assert.equal((await server.ledgerOf(key)).balance, 100_000);
});
