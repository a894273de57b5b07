/**
 * The single executable's entry (dist/route-optimizer; also dist/route-optimizer.js for plain node):
 *   route-optimizer [serve]       the service, configured by the same environment variables as npm start
 *   route-optimizer admin …       the admin CLI (every command of npm run admin)
 *   route-optimizer version       version, solver build hash, Node.js version
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { isSea } from 'node:sea';
import pkg from '../package.json' with { type: 'json' };
import { assetPath } from './assets.js';

/** The name the user typed: the executable's file name (it may have been renamed), else route-optimizer (dist/route-optimizer.js). */
export function programName(): string {
  return isSea() ? basename(process.execPath) : 'route-optimizer';
}

export function usage(program = programName()): string {
  return `Usage: ${program} [command]

  serve [--role R]      run the service (the default); configured by environment variables (README);
                        --role all|api|worker sets SERVICE_ROLE (worker: runs asynchronous plans only)
  admin <command> …     the admin CLI: keys create|revoke|credit|list|resend-email, payments list,
                        outbox list|retry, db check|recover|backup|migrate-to-postgres
                        (${program} admin --help lists them)
  version               print the version, the solver build and the Node.js runtime
  help                  print this text
`;
}

export function versionText(): string {
  const solver = createHash('sha256')
    .update(readFileSync(assetPath('solver/solver.wasm')))
    .digest('hex')
    .slice(0, 16);
  return [
    `route-optimizer ${pkg.version}`,
    `solver ${solver} (sha256 of solver.wasm)`,
    `node ${process.version} (${process.platform}-${process.arch})`,
  ].join('\n');
}

/** `serve`'s arguments: null (none), the role of `--role R` / `--role=R`, or undefined when they are not that. */
export function serveRole(args: string[]): string | null | undefined {
  if (args.length === 0) return null;
  const [first, second] = args;
  if (args.length === 2 && first === '--role' && ROLES.includes(second!)) return second!;
  if (args.length === 1 && first!.startsWith('--role=') && ROLES.includes(first!.slice(7))) return first!.slice(7);
  return undefined;
}

const ROLES = ['all', 'api', 'worker'];

async function run(argv: string[]): Promise<number | null> {
  const [command = 'serve', ...rest] = argv;
  switch (command) {
    case 'serve': {
      const role = serveRole(rest);
      if (role === undefined) break;
      if (role !== null) process.env.SERVICE_ROLE = role;
      await import('./main.js'); // starts the server; it exits on its own
      return null;
    }
    case 'admin':
      return (await import('./admin/main.js')).runAdminCommand(rest, `${programName()} admin`);
    case 'version':
    case '--version':
    case '-v':
      process.stdout.write(`${versionText()}\n`);
      return 0;
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(usage());
      return 0;
  }
  process.stderr.write(`${programName()}: unknown command "${argv.join(' ')}"\n\n${usage()}`);
  return 2;
}

run(process.argv.slice(2)).then(
  (code) => {
    if (code !== null) process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`${String((err as Error)?.stack ?? err)}\n`);
    process.exitCode = 1;
  },
);
