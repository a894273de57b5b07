import { strict as assert } from 'node:assert';
import { createServer } from 'node:http';
import { test } from 'node:test';
import { bindPort, describeStoreError, startingGate, StartupError } from '../../src/startup.js';

const sqlite = { databaseUrl: null, databasePath: '/srv/routes/service.db' };
const postgres = { databaseUrl: 'postgres://ros:s3cret@db.internal:5432/routes', databasePath: '/unused' };
const coded = (code: string, message: string) => Object.assign(new Error(message), { code });

test('a busy port is one line naming the fix; the second listener changes nothing', async () => {
  const first = createServer((_, res) => res.end('first'));
  const port = await bindPort(first, 0, '127.0.0.1');
  const second = createServer();
  const err = await bindPort(second, port, '127.0.0.1').then(
    () => null,
    (e: unknown) => e,
  );
  assert.ok(err instanceof StartupError);
  assert.equal(err.message, `port ${port} is already in use; set PORT to another port`);
  assert.equal(await (await fetch(`http://127.0.0.1:${port}/`)).text(), 'first');
  await new Promise((r) => first.close(r));
});

test("a host that is not this machine's is one line", async () => {
  const err = await bindPort(createServer(), 0, '192.0.2.123').then(
    () => null,
    (e: unknown) => e,
  );
  assert.ok(err instanceof StartupError);
  assert.match(err.message, /^HOST 192\.0\.2\.123 is not an address of this machine; set HOST/);
});

test('store failures name the setting to check, never the password; a bug stays a bug', () => {
  const lines = [
    describeStoreError(coded('SQLITE_CANTOPEN', 'unable to open database file'), sqlite),
    describeStoreError(coded('SQLITE_NOTADB', 'file is not a database'), sqlite),
    describeStoreError(coded('EACCES', "EACCES: permission denied, mkdir '/srv/routes'"), sqlite),
    describeStoreError(coded('08006', 'PostgreSQL is unavailable: connect ECONNREFUSED'), postgres),
    describeStoreError(coded('28P01', 'password authentication failed for user "ros"'), postgres),
    describeStoreError(coded('3D000', 'database "routes" does not exist'), postgres),
  ];
  for (const line of lines) assert.ok(line instanceof StartupError, String(line));
  assert.deepEqual(
    lines.map((l) => l.message),
    [
      'cannot open the SQLite database /srv/routes/service.db (unable to open database file); check DATABASE_PATH and that its directory is writable by this user',
      '/srv/routes/service.db is not a usable SQLite database (file is not a database); check DATABASE_PATH, or restore a backup',
      "cannot open the SQLite database /srv/routes/service.db (EACCES: permission denied, mkdir '/srv/routes'); check DATABASE_PATH and that its directory is writable by this user",
      'cannot reach PostgreSQL at db.internal:5432/routes (PostgreSQL is unavailable: connect ECONNREFUSED); check DATABASE_URL and that the server is up',
      'PostgreSQL at db.internal:5432/routes refused the login (password authentication failed for user "ros"); check the user and password in DATABASE_URL',
      'PostgreSQL at db.internal:5432 has no database routes; create it or fix DATABASE_URL (database "routes" does not exist)',
    ],
  );
  for (const line of lines) assert.doesNotMatch(line.message, /s3cret/);
  const bug = new TypeError('x is undefined');
  assert.equal(describeStoreError(bug, sqlite), bug);
});

test('requests that arrive while the service starts wait, then reach the app', async () => {
  const gate = startingGate();
  const server = createServer(gate.listener);
  const port = await bindPort(server, 0, '127.0.0.1');
  const early = fetch(`http://127.0.0.1:${port}/early`).then((r) => r.text());
  await new Promise((r) => setTimeout(r, 100));
  gate.open((req, res) => res.end(`app saw ${req.url}`));
  assert.equal(await early, 'app saw /early');
  assert.equal(await (await fetch(`http://127.0.0.1:${port}/late`)).text(), 'app saw /late');
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});
