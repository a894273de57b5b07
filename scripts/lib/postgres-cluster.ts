/**
 * A throwaway PostgreSQL cluster for tests: initdb into a temp dir, pg_ctl start
 * on 127.0.0.1 with a free port (trust auth, no fsync), one database per call to
 * createDatabase(), everything stopped and removed by stop(). When
 * TEST_DATABASE_URL is set, that server is used instead (databases are created
 * and dropped there). Missing binaries are a failure, not a skip: CI installs
 * the `postgresql` package.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MissingPrerequisite } from './prerequisites.js';
import pg from 'pg';
import { freePort } from './service-process.js';

export interface PostgresServer {
  /** postgres://… of the server's maintenance database (postgres). */
  adminUrl: string;
  /** Creates an empty database and answers its URL. */
  createDatabase(prefix?: string): Promise<string>;
  /** Drops the databases created here; stops and removes the cluster if it was started here. */
  stop(): Promise<void>;
}

const CANDIDATE_BIN_DIRS = [
  process.env.PG_BIN_DIR,
  '/usr/lib/postgresql/17/bin',
  '/usr/lib/postgresql/16/bin',
  '/usr/lib/postgresql/15/bin',
  '/usr/lib/postgresql/14/bin',
  '/usr/local/pgsql/bin',
  '/usr/local/bin',
  '/usr/bin',
].filter((d): d is string => !!d);

function findBinDir(): string {
  for (const dir of CANDIDATE_BIN_DIRS)
    if (existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'))) return dir;
  // or set PG_BIN_DIR, or point TEST_DATABASE_URL at a server
  throw new MissingPrerequisite(
    'PostgreSQL (initdb and pg_ctl, for the PostgreSQL store tests; or set PG_BIN_DIR or TEST_DATABASE_URL)',
  );
}

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

/** Runs a server binary as the `postgres` OS user when we are root (initdb and postgres refuse to run as root). */
function runAsServerUser(bin: string, args: string[]): void {
  const [cmd, argv] = isRoot() ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
  const result = spawnSync(cmd, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 });
  if (result.status !== 0) {
    throw new Error(
      `${[cmd, ...argv].join(' ')} failed (${result.status ?? result.signal}):\n${result.stdout}\n${result.stderr}`,
    );
  }
}

let counter = 0;
const uniqueName = (prefix: string) =>
  `${prefix}_${process.pid}_${Date.now().toString(36)}_${counter++}`.toLowerCase().replace(/[^a-z0-9_]/g, '_');

async function adminQuery(adminUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** Creates uniquely named databases on the server, remembering them in `created` (dropped on stop when external). */
function databaseCreator(adminUrl: string, created: string[]): PostgresServer['createDatabase'] {
  return async (prefix = 'ros_test') => {
    const name = uniqueName(prefix);
    await adminQuery(adminUrl, `CREATE DATABASE ${name}`);
    created.push(name);
    return withDatabase(adminUrl, name);
  };
}

export async function startPostgres(): Promise<PostgresServer> {
  const external = process.env.TEST_DATABASE_URL;
  const created: string[] = [];
  if (external) {
    const adminUrl = external;
    return {
      adminUrl,
      createDatabase: databaseCreator(adminUrl, created),
      async stop() {
        for (const name of created.splice(0))
          await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
      },
    };
  }

  const bin = findBinDir();
  const dir = mkdtempSync(join(tmpdir(), 'ros-pg-'));
  const data = join(dir, 'data');
  const socket = join(dir, 'socket');
  execFileSync('mkdir', ['-p', data, socket]);
  if (isRoot()) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    for (const p of [dir, data, socket]) chownSync(p, uid, gid);
  }
  chmodSync(data, 0o700);
  runAsServerUser(join(bin, 'initdb'), [
    '-D',
    data,
    '-U',
    'postgres',
    '--auth=trust',
    '--no-sync',
    '-E',
    'UTF8',
    '--locale=C',
  ]);
  const port = await freePort();
  const options = [
    `-p ${port}`,
    `-k ${socket}`,
    '-c listen_addresses=127.0.0.1',
    '-c fsync=off',
    '-c synchronous_commit=off',
    '-c full_page_writes=off',
    '-c max_connections=300',
    '-c shared_buffers=64MB',
  ].join(' ');
  runAsServerUser(join(bin, 'pg_ctl'), [
    '-D',
    data,
    '-l',
    join(dir, 'server.log'),
    '-o',
    options,
    '-w',
    '-t',
    '60',
    'start',
  ]);
  const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    try {
      runAsServerUser(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  // a test process that dies without calling stop() must not leave a server behind
  process.once('exit', () => {
    if (stopped) return;
    try {
      runAsServerUser(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']);
    } catch {
      /* already gone */
    }
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    adminUrl,
    createDatabase: databaseCreator(adminUrl, created),
    stop,
  };
}
