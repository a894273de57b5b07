/**
 * Admin CLI arguments: one-line errors with exit 2 before the database is
 * touched, --help for every command, --json on every listing, live keys need
 * --stops, negative and fractional amounts refused, links only from PUBLIC_BASE_URL.
 */
import { strict as assert } from 'node:assert';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, test } from 'node:test';
import { NPM_PROGRAM, runAdmin, usage, USAGE } from '../../src/admin/cli.js';
import { loadConfig, type Config } from '../../src/config.js';

let dir: string;
let config: Config;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ros-admin-cli-'));
  config = loadConfig({ DATABASE_PATH: join(dir, 'service.db'), OUTBOX_DIR: join(dir, 'outbox'), LOG_LEVEL: 'silent' });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function admin(argv: string[], cfg: Config = config, program?: string) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runAdmin(argv, cfg, { out: (l) => out.push(l), err: (l) => err.push(l) }, program);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

function usageError(r: { code: number; out: string; err: string }, message: RegExp): void {
  assert.equal(r.code, 2, r.err);
  assert.equal(r.out, '');
  assert.equal(r.err.split('\n').length, 1, `one line: ${r.err}`);
  assert.match(r.err, message);
}

test('keys credit refuses negative, zero and fractional amounts with one line, without opening the database', async () => {
  const key = `svc_live_${'a'.repeat(43)}`;
  usageError(
    await admin(['keys', 'credit', key, '-5']),
    /^admin keys credit: N must be a whole number of at least 1 \(got "-5"\) \(see .* keys credit --help\)$/,
  );
  usageError(await admin(['keys', 'credit', key, '0']), /N must be a whole number of at least 1 \(got "0"\)/);
  usageError(await admin(['keys', 'credit', key, '2.5']), /N must be a whole number of at least 1 \(got "2\.5"\)/);
  usageError(await admin(['keys', 'credit', key]), /missing N/);
  usageError(
    await admin(['keys', 'credit', 'abc', '5']),
    /KEY must be a full API key, svc_test_… or svc_live_… \(got "abc"\)/,
  );
  assert.equal(existsSync(config.databasePath), false, 'argument errors do not create the database');
});

test('keys create --kind live requires --stops; --stops 0 is an explicit empty key', async () => {
  usageError(await admin(['keys', 'create', '--kind', 'live']), /--kind live needs --stops N/);
  usageError(
    await admin(['keys', 'create', '--kind', 'live', '--stops', '-1']),
    /--stops must be a whole number of at least 0 \(got "-1"\)/,
  );
  usageError(await admin(['keys', 'create', '--kind', 'live', '--stops']), /--stops needs a value/);
  usageError(await admin(['keys', 'create']), /--kind is required: --kind test or --kind live/);
  usageError(
    await admin(['keys', 'create', '--kind', 'live', '--stops', '5', '--email', 'nope']),
    /--email "nope" is not an e-mail address/,
  );
  const empty = await admin(['keys', 'create', '--kind', 'live', '--stops', '0']);
  assert.equal(empty.code, 0, empty.err);
  assert.match(empty.out, /^svc_live_/);
  assert.match(empty.err, /with 0 stops/);
});

test('unknown commands and options: one line naming what exists', async () => {
  usageError(
    await admin(['keys', 'frob']),
    /^admin: unknown command "keys frob"; keys commands: create, revoke, credit, list, resend-email/,
  );
  usageError(await admin(['frob']), /^admin: unknown command "frob"; commands start with keys, payments, outbox, db/);
  usageError(await admin(['keys', 'list', '--verbose']), /unknown option --verbose; options: --json/);
  usageError(await admin(['db', 'check', '--force']), /unknown option --force; this command takes no options/);
  usageError(await admin(['db', 'backup']), /missing PATH/);
  // a key's last 4 characters may begin with '-': the message says how to pass them
  usageError(await admin(['keys', 'resend-email', '-K3x']), /unknown option -K; .*goes after "--": -- -K/);
});

test('--help: the whole usage, a group, and every command, on stdout with exit 0', async () => {
  const all = await admin(['--help']);
  assert.equal(all.code, 0);
  assert.equal(all.out, USAGE);
  for (const line of USAGE.split('\n').filter((l) => /^  \w/.test(l))) {
    const name = line.trim().split(/\s+/).slice(0, 2);
    const help = await admin([...name, '--help']);
    assert.equal(help.code, 0, name.join(' '));
    assert.match(help.out, new RegExp(`^Usage: npm run --silent admin -- ${name.join(' ')}`));
    assert.ok(help.out.split('\n').length >= 5, `${name.join(' ')} has details`);
  }
  const group = await admin(['outbox', '--help']);
  assert.match(group.out, /outbox list \[--json\][\s\S]*outbox retry/);
  const none = await admin([]);
  assert.equal(none.code, 2);
  assert.equal(none.err, USAGE);
});

test("usage and errors name the program that was run: npm run by default, the executable's own name when it passes it", async () => {
  assert.equal(USAGE, usage(NPM_PROGRAM));
  const exe = 'route-optimizer admin';
  const all = await admin(['--help'], config, exe);
  assert.match(all.out, /^Usage: route-optimizer admin <command> \[--help\]\n/);
  assert.match(all.out, /"route-optimizer admin <command> --help" shows/);
  assert.ok(!all.out.includes('npm'), all.out);
  const create = await admin(['keys', 'create', '--help'], config, exe);
  assert.match(create.out, /^Usage: route-optimizer admin keys create /);
  assert.match(create.out, /Example: route-optimizer admin keys create --kind live/);
  assert.ok(!create.out.includes('npm') && !create.out.includes('$PROGRAM'), create.out);
  assert.match((await admin(['keys'], config, exe)).err, /^Usage: route-optimizer admin keys <command>/);
  usageError(await admin(['keys', 'frob'], config, exe), /\(see route-optimizer admin --help\)$/);
  usageError(await admin(['frob'], config, exe), /\(see route-optimizer admin --help\)$/);
  usageError(
    await admin(['keys', 'create'], config, exe),
    /^admin keys create: --kind is required: --kind test or --kind live \(see route-optimizer admin keys create --help\)$/,
  );
  assert.match(
    (await admin(['keys', 'credit', '--help'])).out,
    /Example: npm run --silent admin -- keys credit svc_live_… 500/,
  );
});

test('--json on every listing: keys list, payments list, outbox list', async () => {
  const key = (await admin(['keys', 'create', '--kind', 'live', '--stops', '7', '--email', 'ops@example.com'])).out;
  const keys = JSON.parse((await admin(['keys', 'list', '--json'])).out);
  assert.deepEqual(
    keys.map((k: any) => [k.kind, k.last4, k.email, k.balance]),
    [['live', key.slice(-4), 'ops@example.com', 7]],
  );
  assert.ok(!JSON.stringify(keys).includes(key), 'never the full key');
  assert.deepEqual(JSON.parse((await admin(['payments', 'list', '--json'])).out), []);
  assert.deepEqual(JSON.parse((await admin(['outbox', 'list', '--json'])).out), []);
  assert.match((await admin(['keys', 'list'])).out, /^KIND\s+KEY/);
});

test('keys resend-email builds its link from PUBLIC_BASE_URL: without it, one line and exit 2, nothing changed', async () => {
  const key = (await admin(['keys', 'create', '--kind', 'live', '--stops', '7', '--email', 'ops@example.com'])).out;
  usageError(
    await admin(['keys', 'resend-email', key]),
    /^admin keys resend-email: set PUBLIC_BASE_URL to the address customers reach the service at/,
  );
  assert.equal(
    JSON.parse((await admin(['keys', 'list', '--json'])).out)[0].revokedAt,
    null,
    'the key was not replaced',
  );
  const configured = loadConfig({
    DATABASE_PATH: config.databasePath,
    OUTBOX_DIR: join(dir, 'outbox'),
    PUBLIC_BASE_URL: 'https://routes.example.com',
    PORT: '4321',
  });
  const sent = await admin(['keys', 'resend-email', key], configured);
  assert.equal(sent.code, 0, sent.err);
  const { readdirSync, readFileSync } = await import('node:fs');
  const mail = readFileSync(join(dir, 'outbox', readdirSync(join(dir, 'outbox'))[0]), 'utf8').replace(/=\r?\n/g, '');
  assert.match(mail, /https:\/\/routes\.example\.com\/api\/v1\/balance/);
  assert.ok(!/https?:\/\/localhost/.test(mail), "no link to the CLI's own PORT");
});
