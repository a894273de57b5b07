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

test('hardening limits: defaults, and settings that contradict each other are refused', () => {
  const config = loadConfig({});
  assert.deepEqual({
    window: config.departureWindowDays, anonymous: config.limits.anonymousBodyLimitBytes, inFlight: config.limits.bodyBytesInFlight,
    bodyTimeout: config.limits.bodyTimeoutMs, headersTimeout: config.limits.headersTimeoutMs, tracked: config.limits.trackedAddresses,
    checkout: [config.limits.checkoutPerAddressPerMinute, config.limits.checkoutPerMinute],
  }, { window: 366, anonymous: 16_384, inFlight: 64 * 1024 * 1024, bodyTimeout: 15_000, headersTimeout: 10_000, tracked: 100_000, checkout: [10, 120] });
  assert.equal(loadConfig({ BODY_LIMIT_BYTES: '4096' }).limits.anonymousBodyLimitBytes, 4096, 'never above the authenticated limit');
  assert.throws(() => loadConfig({ BODY_LIMIT_BYTES: '4096', ANONYMOUS_BODY_LIMIT_BYTES: '8192' }), /ANONYMOUS_BODY_LIMIT_BYTES \(8192\) must not exceed BODY_LIMIT_BYTES/);
  assert.throws(() => loadConfig({ BODY_LIMIT_BYTES: '1048576', BODY_BYTES_IN_FLIGHT: '65536' }), /BODY_BYTES_IN_FLIGHT \(65536\) must be at least BODY_LIMIT_BYTES/);
});
