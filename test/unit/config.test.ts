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
  const config = loadConfig({
    PORT: '8080',
    HOST: '127.0.0.1',
    DATABASE_PATH: '/tmp/x.db',
    LOG_LEVEL: 'debug',
    PUBLIC_BASE_URL: 'https://routes.example.com/',
  });
  assert.equal(config.port, 8080);
  assert.equal(config.host, '127.0.0.1');
  assert.equal(config.databasePath, '/tmp/x.db');
  assert.equal(config.logLevel, 'debug');
  assert.equal(config.publicBaseUrl, 'https://routes.example.com');
});

test('every bad variable is named in one error', () => {
  assert.throws(
    () =>
      loadConfig({
        PORT: 'eighty',
        LOG_LEVEL: 'loud',
        PUBLIC_BASE_URL: 'ftp://x',
        SMTP_URL: 'http://mail',
        SANDBOX_CALLS_PER_MINUTE: '0',
      }),
    (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      const text = err.message;
      for (const name of ['PORT', 'LOG_LEVEL', 'PUBLIC_BASE_URL', 'SMTP_URL', 'SANDBOX_CALLS_PER_MINUTE'])
        assert.match(text, new RegExp(name));
      assert.equal(err.problems.length, 5);
      return true;
    },
  );
});

test('a port out of range is refused', () => {
  assert.throws(() => loadConfig({ PORT: '70000' }), /PORT must be an integer from 0 to 65535/);
});

test('engine, store and limit settings: lists, URLs and the settings they require', () => {
  const config = loadConfig({
    ROUTING: 'osrm, haversine',
    OSRM_URL: 'http://osrm:5000/',
    GEOCODER: 'ban,embedded',
    BAN_URL: 'http://addok:7878/',
    DATABASE_URL: 'postgres://u@db/ros',
    CORS_ORIGINS: 'https://a.example, https://b.example',
  });
  assert.deepEqual(config.routing.live, ['osrm', 'haversine']);
  assert.equal(config.routing.osrmUrl, 'http://osrm:5000');
  assert.deepEqual(config.geocoding.chain, ['ban', 'embedded']);
  assert.equal(config.geocoding.banUrl, 'http://addok:7878');
  assert.equal(config.databaseUrl, 'postgres://u@db/ros');
  assert.deepEqual(config.limits.corsOrigins, ['https://a.example', 'https://b.example']);
  assert.equal(config.solver.timeLimitMs, 250);
  assert.throws(
    () =>
      loadConfig({
        ROUTING: 'osrm,teleport',
        SANDBOX_ROUTING: 'osrm',
        GEOCODER: 'nominatim',
        DATABASE_URL: 'mysql://x',
        TRUST_PROXY: 'yes',
      }),
    (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      for (const name of [
        'ROUTING must be',
        'OSRM_URL is required',
        'NOMINATIM_URL is required',
        'DATABASE_URL must start',
        'TRUST_PROXY',
      ]) {
        assert.ok(
          err.problems.some((p) => p.includes(name)),
          name,
        );
      }
      return true;
    },
  );
});

test('instance leases: 10 s expiry and a heartbeat of a third by default; the heartbeat must be at most half the expiry; obsolete variables warn', () => {
  const defaults = loadConfig({});
  assert.deepEqual(defaults.lease, { expiryMs: 10_000, heartbeatMs: 3_333 });
  assert.deepEqual(defaults.warnings, []);
  assert.deepEqual(loadConfig({ LEASE_EXPIRY_MS: '3000' }).lease, { expiryMs: 3_000, heartbeatMs: 1_000 });
  assert.deepEqual(loadConfig({ LEASE_EXPIRY_MS: '3000', LEASE_HEARTBEAT_MS: '1500' }).lease, {
    expiryMs: 3_000,
    heartbeatMs: 1_500,
  });
  assert.throws(
    () => loadConfig({ LEASE_EXPIRY_MS: '3000', LEASE_HEARTBEAT_MS: '1501' }),
    /LEASE_HEARTBEAT_MS must be at most half of LEASE_EXPIRY_MS \(3000\)/,
  );
  assert.throws(() => loadConfig({ LEASE_EXPIRY_MS: '500' }), /LEASE_EXPIRY_MS must be an integer from 1000 to 600000/);
  const old = loadConfig({ INSTANCE_ID: 'web-1:3000', RECOVERY_INTERVAL_MS: '10000' });
  assert.equal(old.warnings.length, 2);
  assert.match(old.warnings[0], /^INSTANCE_ID is set but no longer used: each process now takes a random instance id/);
  assert.match(old.warnings[1], /^RECOVERY_INTERVAL_MS is set but no longer used: .*LEASE_HEARTBEAT_MS/);
});

test('geocoding: the Géoplateforme first by default, its limits, and BAN only with a self-hosted URL', () => {
  const geo = loadConfig({}).geocoding;
  assert.deepEqual(geo.chain, ['geoplateforme', 'embedded']);
  assert.equal(geo.geoplateformeUrl, 'https://data.geopf.fr/geocodage');
  assert.equal(geo.geoplateformeRateLimit, 50);
  assert.equal(geo.banUrl, null, 'no default BAN host: the old public one is gone');
  assert.equal(geo.minPrecision, 'municipality');
  assert.deepEqual(
    [geo.breakerFailures, geo.breakerCooldownMs, geo.batchThreshold, geo.concurrencyPerCall],
    [3, 30_000, 20, 4],
  );
  const set = loadConfig({
    GEOPLATEFORME_URL: 'http://geo.internal/geocodage/',
    GEOPLATEFORME_RATE_LIMIT: '20',
    GEOCODER_MIN_PRECISION: 'street',
    GEOCODER_BREAKER_FAILURES: '5',
    GEOCODER_BREAKER_COOLDOWN_MS: '10000',
    GEOCODER_BATCH_THRESHOLD: '50',
  }).geocoding;
  assert.equal(set.geoplateformeUrl, 'http://geo.internal/geocodage');
  assert.deepEqual(
    [set.geoplateformeRateLimit, set.minPrecision, set.breakerFailures, set.breakerCooldownMs, set.batchThreshold],
    [20, 'street', 5, 10_000, 50],
  );
  assert.throws(
    () => loadConfig({ GEOCODER: 'ban,embedded', GEOPLATEFORME_RATE_LIMIT: '0', GEOCODER_MIN_PRECISION: 'building' }),
    (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      assert.deepEqual(
        err.problems.map((p) => p.split(' ')[0]),
        ['GEOPLATEFORME_RATE_LIMIT', 'GEOCODER_MIN_PRECISION', 'BAN_URL'],
      );
      assert.match(err.problems[2]!, /self-hosted addok/);
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
  assert.throws(
    () => loadConfig({ PORT: '8080', METRICS_PORT: '8080', METRICS_TOKEN: 'short', SHUTDOWN_DRAIN_MS: '-1' }),
    (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      assert.deepEqual(
        err.problems.filter((p) => /METRICS|SHUTDOWN/.test(p)),
        [
          'METRICS_PORT must differ from PORT',
          'METRICS_TOKEN must be at least 16 characters (e.g. openssl rand -hex 16)',
          'SHUTDOWN_DRAIN_MS must be an integer from 0 to 600000 (got "-1")',
        ],
      );
      return true;
    },
  );
});

test('hardening limits: defaults, and settings that contradict each other are refused', () => {
  const config = loadConfig({});
  assert.deepEqual(
    {
      window: config.departureWindowDays,
      anonymous: config.limits.anonymousBodyLimitBytes,
      inFlight: config.limits.bodyBytesInFlight,
      bodyTimeout: config.limits.bodyTimeoutMs,
      headersTimeout: config.limits.headersTimeoutMs,
      tracked: config.limits.trackedAddresses,
      checkout: [config.limits.checkoutPerAddressPerMinute, config.limits.checkoutPerMinute],
    },
    {
      window: 366,
      anonymous: 16_384,
      inFlight: 64 * 1024 * 1024,
      bodyTimeout: 15_000,
      headersTimeout: 10_000,
      tracked: 100_000,
      checkout: [10, 120],
    },
  );
  assert.equal(
    loadConfig({ BODY_LIMIT_BYTES: '4096' }).limits.anonymousBodyLimitBytes,
    4096,
    'never above the authenticated limit',
  );
  assert.throws(
    () => loadConfig({ BODY_LIMIT_BYTES: '4096', ANONYMOUS_BODY_LIMIT_BYTES: '8192' }),
    /ANONYMOUS_BODY_LIMIT_BYTES \(8192\) must not exceed BODY_LIMIT_BYTES/,
  );
  assert.throws(
    () => loadConfig({ BODY_LIMIT_BYTES: '1048576', BODY_BYTES_IN_FLIGHT: '65536' }),
    /BODY_BYTES_IN_FLIGHT \(65536\) must be at least BODY_LIMIT_BYTES/,
  );
});
