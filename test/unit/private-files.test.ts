/**
 * Files holding keys or customer data are 0600 whatever the umask: the SQLite database and its WAL and
 * SHM (unsent e-mails in it hold full live keys), a backup, an outbox .eml file; older 0644 files are tightened.
 */
import { strict as assert } from 'node:assert';
import { chmodSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createMailSender } from '../../src/mail/sender.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import { tempDir } from '../helpers/server.js';

const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);
let saved: number;
// the loosest umask there is: every file the code creates relies on its own mode only
before(() => {
  saved = process.umask(0o000);
});
after(() => {
  process.umask(saved);
});

test('the database, its WAL and SHM files, and a backup are created 0600 even with umask 000', async () => {
  const dir = tempDir('ros-modes-');
  const path = join(dir, 'data', 'service.db');
  const store = new SqliteStore(path);
  try {
    await store.createKey({
      kind: 'live',
      keyHash: 'h1',
      last4: 'abcd',
      email: 'a@example.com',
      initialStops: 10,
      reason: 'admin_credit',
      now: new Date(),
    });
    assert.deepEqual([mode(path), mode(`${path}-wal`), mode(`${path}-shm`)], ['600', '600', '600']);
    assert.equal(mode(join(dir, 'data')), '700', 'a directory the store creates is private too');
    const backup = join(dir, 'backups', 'copy.db');
    await store.backup(backup);
    assert.equal(mode(backup), '600');
  } finally {
    await store.close();
  }
});

test('a database created 0644 by an older version is tightened to 0600 when opened, with its WAL and SHM', async () => {
  const dir = tempDir('ros-modes-');
  const path = join(dir, 'service.db');
  const old = new SqliteStore(path);
  await old.createKey({
    kind: 'test',
    keyHash: 'h2',
    last4: 'abcd',
    email: null,
    initialStops: 0,
    reason: 'admin_credit',
    now: new Date(),
  });
  await old.close();
  chmodSync(path, 0o644);
  writeFileSync(`${path}-wal`, '', { mode: 0o644 });
  chmodSync(`${path}-wal`, 0o644);
  const reopened = new SqliteStore(path);
  try {
    assert.deepEqual([mode(path), mode(`${path}-wal`)], ['600', '600']);
  } finally {
    await reopened.close();
  }
});

test('outbox e-mails (they may hold a full key) are written 0600 even with umask 000', async () => {
  const dir = tempDir('ros-modes-');
  const outboxDir = join(dir, 'outbox');
  const sender = createMailSender(
    { smtpUrl: null, mailFrom: 'a@example.com', outboxDir },
    { info: () => {}, warn: () => {} },
  );
  const sent = await sender.send({ to: 'b@example.com', subject: 'Your key', text: 'svc_live_xxx' });
  sender.close();
  assert.equal(readdirSync(outboxDir).length, 1);
  assert.equal(mode(sent.file!), '600');
  assert.equal(mode(outboxDir), '700');
});
