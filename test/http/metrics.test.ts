import { strict as assert } from 'node:assert';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { startMetricsServer } from '../../src/http/metrics-server.js';
import { Metrics } from '../../src/metrics.js';
import { PARIS_START, coordinateStops, startTestServer, type TestServer } from '../helpers/server.js';

const TOKEN = 'metrics-token-0123456789abcdef';
let open: TestServer;
let guarded: TestServer;
before(async () => {
  open = await startTestServer();
  guarded = await startTestServer({ env: { METRICS_TOKEN: TOKEN } });
});
after(async () => {
  await open.close();
  await guarded.close();
});

const scrape = (server: TestServer, authorization?: string) =>
  fetch(`${server.url}/metrics`, { headers: authorization ? { Authorization: authorization } : {} });

test('GET /metrics is not served on the API port by default', async () => {
  const res = await scrape(open);
  assert.equal(res.status, 404);
  assert.equal(((await res.json()) as { error: string }).error, 'not_found');
});

test('with METRICS_TOKEN, GET /metrics on the API port needs that bearer token', async () => {
  for (const authorization of [undefined, 'Bearer wrong-token-0123456789abcdef', TOKEN, `Basic ${TOKEN}`]) {
    const res = await scrape(guarded, authorization);
    assert.equal(res.status, 401, `Authorization: ${authorization}`);
    assert.equal(((await res.json()) as { error: string }).error, 'unauthorized');
    assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer /);
  }
  const res = await scrape(guarded, `Bearer ${TOKEN}`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
});

test('GET /metrics: prefixed names; requests by route and status, stops debited and refunded, solver and routing, Node.js process metrics', async () => {
  const key = await guarded.createKey('live', 10);
  await guarded.request('POST', '/api/v1/optimize', { key, body: { start: PARIS_START, stops: coordinateStops(3) } });
  await guarded.request('POST', '/api/v1/optimize', {
    key,
    body: {
      start: PARIS_START,
      stops: [...coordinateStops(2), { id: 'x', street: '1 rue', postalCode: '99999', city: 'Nulle-Part' }],
    },
  });
  const text = await (await scrape(guarded, `Bearer ${TOKEN}`)).text();
  const p = 'route_optimizer_';
  assert.match(
    text,
    new RegExp(`${p}http_requests_total\\{method="POST",route="/api/v1/optimize",status="200"\\} \\d+`),
  );
  assert.match(
    text,
    new RegExp(`${p}http_requests_total\\{method="POST",route="/api/v1/optimize",status="422"\\} \\d+`),
  );
  assert.match(
    text,
    new RegExp(
      `${p}http_request_duration_seconds_bucket\\{le="0\\.1",method="POST",route="/api/v1/optimize",status="200"\\}`,
    ),
  );
  const value = (name: string) => Number(new RegExp(`^${p}${name} (\\S+)$`, 'm').exec(text)?.[1]);
  assert.ok(value('stops_debited_total') >= 6);
  assert.ok(value('stops_refunded_total') >= 3);
  assert.match(text, new RegExp(`${p}geocoder_calls_total\\{outcome="not_found"\\} \\d+`));
  assert.match(text, new RegExp(`${p}routing_calls_total\\{engine="live",outcome="ok"\\} \\d+`));
  assert.match(text, new RegExp(`${p}solver_duration_seconds_count\\{outcome="ok"\\} \\d+`));
  assert.match(text, new RegExp(`^${p}solver_queue_depth 0$`, 'm'));
  assert.match(text, new RegExp(`^${p}nodejs_version_info\\{version="${process.version}"`, 'm'));
  const unprefixed = text.split('\n').filter((l) => l !== '' && !l.startsWith('#') && !l.startsWith(p));
  assert.deepEqual(unprefixed, []);
});

test('requests matching no route are counted by status under one label, whatever their path or method', async () => {
  const count = (text: string, method: string, status = 404) =>
    Number(
      new RegExp(
        `^route_optimizer_http_requests_total\\{method="${method}",route="unmatched",status="${status}"\\} (\\d+)$`,
        'm',
      ).exec(text)?.[1] ?? 0,
    );
  const before = await (await scrape(guarded, `Bearer ${TOKEN}`)).text();
  for (let i = 0; i < 25; i++) await fetch(`${guarded.url}/scan/${i}/${Math.random().toString(36).slice(2)}.php`);
  const odd = (await fetch(`${guarded.url}/nowhere`, { method: 'PROPFIND' })).status;
  const text = await (await scrape(guarded, `Bearer ${TOKEN}`)).text();
  assert.equal(count(text, 'GET') - count(before, 'GET'), 25);
  assert.equal(count(text, 'OTHER', odd) - count(before, 'OTHER', odd), 1, `PROPFIND answered ${odd}`);
  assert.doesNotMatch(text, /scan\//);
});

test('the METRICS_PORT listener serves GET /metrics only, with the token when one is set', async () => {
  const metrics = new Metrics({ defaultMetrics: false });
  metrics.stopsDebited.inc(7);
  const server = await startMetricsServer(metrics, { port: 0, host: '127.0.0.1', token: null });
  const withToken = await startMetricsServer(metrics, { port: 0, host: '127.0.0.1', token: TOKEN });
  const url = (s: typeof server, path: string) => `http://127.0.0.1:${(s.address() as AddressInfo).port}${path}`;
  try {
    const res = await fetch(url(server, '/metrics'));
    assert.equal(res.status, 200);
    assert.match(await res.text(), /^route_optimizer_stops_debited_total 7$/m);
    assert.equal((await fetch(url(server, '/metrics?x=1'))).status, 200);
    assert.equal((await fetch(url(server, '/'))).status, 404);
    assert.equal((await fetch(url(server, '/api/v1/balance'))).status, 404);
    const post = await fetch(url(server, '/metrics'), { method: 'POST' });
    assert.equal(post.status, 405);
    assert.equal(post.headers.get('allow'), 'GET, HEAD');
    assert.equal((await fetch(url(withToken, '/metrics'))).status, 401);
    assert.equal(
      (await fetch(url(withToken, '/metrics'), { headers: { Authorization: `Bearer ${TOKEN}` } })).status,
      200,
    );
  } finally {
    server.close();
    withToken.close();
  }
});
