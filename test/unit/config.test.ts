import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';

test('defaults: port 3000, SQLite under var/, payments off, mail to the outbox', () => {
  const config = loadConfig({});
  assert.equal(config.port, 3000);
  assert.equal(config.host, '0.0.0.0');
  assert.match(config.databasePath, /\/var\/service\.db$/);
  assert.equal(config.logLevel, 'info');
  assert.equal(config.payments.stripeSecretKey, null);
  assert.equal(config.mail.smtpUrl, null);
  assert.deepEqual(config.sandbox, { maxStopsPerCall: 10, callsPerMinute: 20, stopsPerDay: 200 });
});

test('values are read from the environment', () => {
  const config = loadConfig({ PORT: '8080', HOST: '127.0.0.1', DATABASE_PATH: '/tmp/x.db', LOG_LEVEL: 'debug', PUBLIC_BASE_URL: 'https://routes.example.com/' });
  assert.equal(config.port, 8080);
  assert.equal(config.host, '127.0.0.1');
  assert.equal(config.databasePath, '/tmp/x.db');
  assert.equal(config.logLevel, 'debug');
  assert.equal(config.publicBaseUrl, 'https://routes.example.com');
});

test('every bad variable is named in one error', () => {
  assert.throws(
    () => loadConfig({ PORT: 'eighty', LOG_LEVEL: 'loud', PUBLIC_BASE_URL: 'ftp://x', SMTP_URL: 'http://mail', SANDBOX_CALLS_PER_MINUTE: '0' }),
    (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      const text = err.message;
      for (const name of ['PORT', 'LOG_LEVEL', 'PUBLIC_BASE_URL', 'SMTP_URL', 'SANDBOX_CALLS_PER_MINUTE']) assert.match(text, new RegExp(name));
      assert.equal(err.problems.length, 5);
      return true;
    },
  );
});

test('a port out of range is refused', () => {
  assert.throws(() => loadConfig({ PORT: '70000' }), /PORT must be an integer from 0 to 65535/);
});

test('engine, store and limit settings: lists, URLs and the settings they require', () => {
  const config = loadConfig({ ROUTING: 'osrm, haversine', OSRM_URL: 'http://osrm:5000/', GEOCODER: 'ban,embedded', DATABASE_URL: 'postgres://u@db/ros', CORS_ORIGINS: 'https://a.example, https://b.example' });
  assert.deepEqual(config.routing.live, ['osrm', 'haversine']);
  assert.equal(config.routing.osrmUrl, 'http://osrm:5000');
  assert.deepEqual(config.geocoding.chain, ['ban', 'embedded']);
  assert.equal(config.databaseUrl, 'postgres://u@db/ros');
  assert.deepEqual(config.limits.corsOrigins, ['https://a.example', 'https://b.example']);
  assert.equal(config.solver.timeLimitMs, 250);
  assert.throws(
    () => loadConfig({ ROUTING: 'osrm,teleport', SANDBOX_ROUTING: 'osrm', GEOCODER: 'nominatim', DATABASE_URL: 'mysql://x', TRUST_PROXY: 'yes' }),
    (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      for (const name of ['ROUTING must be', 'OSRM_URL is required', 'NOMINATIM_URL is required', 'DATABASE_URL must start', 'TRUST_PROXY']) {
        assert.ok(err.problems.some((p) => p.includes(name)), name);
      }
      return true;
    },
  );
});

test('metrics and shutdown settings: defaults, and the bad values named', () => {
  const defaults = loadConfig({});
  assert.deepEqual(defaults.metrics, { port: null, host: '127.0.0.1', token: null });
  assert.equal(defaults.shutdownDrainMs, 2000);
  const set = loadConfig({ METRICS_PORT: '9464', METRICS_TOKEN: 'a'.repeat(32), SHUTDOWN_DRAIN_MS: '0' });
  assert.deepEqual(set.metrics, { port: 9464, host: '127.0.0.1', token: 'a'.repeat(32) });
  assert.equal(set.shutdownDrainMs, 0);
  assert.throws(() => loadConfig({ PORT: '8080', METRICS_PORT: '8080', METRICS_TOKEN: 'short', SHUTDOWN_DRAIN_MS: '-1' }), (err: unknown) => {
    assert.ok(err instanceof ConfigError);
    assert.deepEqual(err.problems.filter((p) => /METRICS|SHUTDOWN/.test(p)), [
      'METRICS_PORT must differ from PORT',
      'METRICS_TOKEN must be at least 16 characters (e.g. openssl rand -hex 16)',
      'SHUTDOWN_DRAIN_MS must be an integer from 0 to 600000 (got "-1")',
    ]);
    return true;
  });
});
