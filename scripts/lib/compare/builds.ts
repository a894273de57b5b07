/**
 * The builds of a comparison: `--build FILE.wasm`, `--build LABEL=FILE.wasm`,
 * `--build native` (the crate built natively with cargo) and the external
 * solvers (`--build lkh|linkern|vroom|ortools`, or `external` for all four).
 * A build that cannot run here (no cargo, binary not on PATH) is skipped with
 * one line; a .wasm that cannot be read or compiled is an error.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';

import { SUPPORTED_ABI_VERSIONS } from '../../../src/solver/abi.ts';
import { compileSolverModule } from '../../../src/solver/load.ts';
import { ROOT } from './manifest.ts';
import { moduleAbiVersion } from './wasm-build.ts';
import { EXTERNAL_SOLVERS, type ExternalName } from './external.ts';

export type BuildSpec =
  | { kind: 'wasm'; label: string; path: string; sha256: string; bytes: number; abiVersion: number }
  | { kind: 'native'; label: string; path: string; sha256: string; crateCommit: string; cargo: string }
  | { kind: 'external'; label: string; solver: ExternalName; path: string; sha256: string; version: string };

export class BuildError extends Error {}

const NATIVE_CRATE = join(ROOT, 'scripts/lib/compare/native-runner');

export function sha256File(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/** Resolves the --build arguments. `skipped` gets one line per build that cannot run here. */
export function resolveBuilds(args: string[], skipped: string[], log: (line: string) => void = () => {}): BuildSpec[] {
  const builds: BuildSpec[] = [];
  const taken = new Set<string>();
  const unique = (label: string) => {
    let l = label;
    for (let k = 2; taken.has(l); k++) l = `${label}#${k}`;
    taken.add(l);
    return l;
  };
  for (const arg of args) {
    const eq = arg.indexOf('=');
    const label = eq > 0 ? arg.slice(0, eq) : '';
    const what = eq > 0 ? arg.slice(eq + 1) : arg;
    if (what === 'native') {
      const b = nativeBuild(unique(label || 'native'), skipped, log);
      if (b) builds.push(b);
    } else if (what === 'external') {
      for (const name of Object.keys(EXTERNAL_SOLVERS) as ExternalName[]) {
        const b = externalBuild(name, unique(EXTERNAL_SOLVERS[name].label), skipped);
        if (b) builds.push(b);
      }
    } else if (what in EXTERNAL_SOLVERS) {
      const name = what as ExternalName;
      const b = externalBuild(name, unique(label || EXTERNAL_SOLVERS[name].label), skipped);
      if (b) builds.push(b);
    } else if (what.endsWith('.wasm')) {
      builds.push(wasmBuild(unique(label || basename(what, '.wasm')), resolve(what)));
    } else {
      throw new BuildError(
        `--build ${arg}: expected a .wasm file, LABEL=FILE.wasm, native, external, or one of ${Object.keys(EXTERNAL_SOLVERS).join(', ')}`,
      );
    }
  }
  return builds;
}

function wasmBuild(label: string, path: string): BuildSpec {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    throw new BuildError(
      `--build ${path}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); give the path of a solver .wasm`,
    );
  }
  let abiVersion: number;
  try {
    abiVersion = moduleAbiVersion(compileSolverModule(path));
  } catch (err) {
    throw new BuildError(
      `--build ${path}: not a solver module (${(err as Error).message}); build one with npm run build:solver`,
    );
  }
  if (!SUPPORTED_ABI_VERSIONS.includes(abiVersion)) {
    throw new BuildError(
      `--build ${path}: the module speaks solver ABI ${abiVersion}; this checkout reads ABI ${SUPPORTED_ABI_VERSIONS.join(' and ')}: compare it from a checkout of its own version`,
    );
  }
  return {
    kind: 'wasm',
    label,
    path,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    bytes: bytes.length,
    abiVersion,
  };
}

function which(cmd: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (dir && existsSync(join(dir, cmd))) return join(dir, cmd);
  }
  return null;
}

/** cargo from PATH, else rustup's default location. */
function findCargo(): string | null {
  return (
    which('cargo') ??
    (existsSync(join(process.env.HOME ?? '', '.cargo/bin/cargo'))
      ? join(process.env.HOME ?? '', '.cargo/bin/cargo')
      : null)
  );
}

function nativeBuild(label: string, skipped: string[], log: (line: string) => void): BuildSpec | null {
  const cargo = findCargo();
  if (!cargo) {
    skipped.push(`${label}: skipped, cargo is not installed (the native build needs a Rust toolchain)`);
    return null;
  }
  const version = spawnSync(cargo, ['--version'], { encoding: 'utf8' }).stdout.trim();
  // a target directory per cargo version: toolchains must not share build artefacts
  const targetDir = join(ROOT, 'solver-rs/target', `compare-native-${version.replace(/[^\w.]+/g, '-')}`);
  log(`building the native runner with ${version}`);
  const built = spawnSync(cargo, ['build', '--offline', '--locked', '--release', '--quiet'], {
    cwd: NATIVE_CRATE,
    env: { ...process.env, CARGO_TARGET_DIR: targetDir },
    encoding: 'utf8',
  });
  if (built.status !== 0)
    throw new BuildError(`native build failed (cargo build in ${NATIVE_CRATE}):\n${built.stderr.trim()}`);
  const path = join(targetDir, 'release', 'route-bench-native');
  const commit = spawnSync('git', ['-C', ROOT, 'log', '-1', '--format=%h', '--', 'solver-rs'], {
    encoding: 'utf8',
  }).stdout.trim();
  const dirty =
    spawnSync('git', ['-C', ROOT, 'status', '--porcelain', '--', 'solver-rs'], { encoding: 'utf8' }).stdout.trim() !==
    '';
  return {
    kind: 'native',
    label,
    path,
    sha256: sha256File(path),
    crateCommit: `${commit || 'unknown'}${dirty ? '+changes' : ''}`,
    cargo: version,
  };
}

function externalBuild(name: ExternalName, label: string, skipped: string[]): BuildSpec | null {
  const solver = EXTERNAL_SOLVERS[name];
  const found = solver.locate(which);
  if (!found) {
    skipped.push(`${label}: skipped, ${solver.missing}`);
    return null;
  }
  return {
    kind: 'external',
    label,
    solver: name,
    path: found.path,
    sha256: sha256File(found.hashFile ?? found.path),
    version: found.version,
  };
}

/** One line per pair of builds with the same bytes: their differences can only be noise. */
export function identicalBuilds(builds: BuildSpec[]): string[] {
  const lines: string[] = [];
  builds.forEach((a, i) =>
    builds.slice(i + 1).forEach((b) => {
      if (a.sha256 === b.sha256)
        lines.push(
          `${a.label} and ${b.label} are the same bytes (sha256 ${a.sha256.slice(0, 16)}…): any difference between them is seed and timing noise`,
        );
    }),
  );
  return lines;
}
