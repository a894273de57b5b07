/**
 * One import suffix style: a relative import names the file it loads as it will be when built, `.js`, and tsx
 * (tests, scripts, `npm start`) and esbuild (dist/, the executable) map it to the `.ts` source. The exception is
 * what a worker thread may load without tsx: the worker entries (src/solver/worker.mjs, scripts/lib/compare/
 * solve-worker.mjs) import their `.ts` module directly, and Node's own type stripping resolves no `.js` to `.ts`,
 * so every file that module reaches imports with `.ts`. A plain JavaScript module (`.js`, `.mjs`: the worker
 * entries, the console's browser modules, the build scripts) is never mapped by anything: it names the file that
 * exists, whatever its suffix.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/** The TypeScript modules a worker thread imports natively (from its .mjs entry). */
export const NATIVE_WORKER_MODULES = ['src/solver/worker.ts', 'scripts/lib/compare/solve-task.ts'];

export interface SuffixViolation {
  file: string;
  line: number;
  specifier: string;
  expected: '.js' | '.ts' | 'an existing file';
}

function* sourceFiles(dir: string, skip: (path: string) => boolean): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (skip(path) || entry.name === 'node_modules') continue;
    if (entry.isDirectory()) yield* sourceFiles(path, skip);
    else if (/\.(ts|js|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) yield path;
  }
}

interface RelativeImport {
  specifier: string;
  line: number;
  target: string;
}

function relativeImports(file: string): RelativeImport[] {
  const text = readFileSync(file, 'utf8');
  return ts
    .preProcessFile(text, true, true)
    .importedFiles.filter((i) => i.fileName.startsWith('.'))
    .map((i) => ({
      specifier: i.fileName,
      line: text.slice(0, i.pos).split('\n').length,
      target: resolve(dirname(file), i.fileName.replace(/\?.*$/, '').replace(/\.js$/, '.ts')),
    }));
}

/** Every .ts file a native worker module reaches through relative imports (itself included). */
export function nativeWorkerGraph(root: string, entries: string[] = NATIVE_WORKER_MODULES): Set<string> {
  const seen = new Set<string>();
  const pending = entries.map((e) => join(root, e));
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (seen.has(file) || !file.endsWith('.ts') || !existsSync(file)) continue;
    seen.add(file);
    for (const i of relativeImports(file)) pending.push(i.target);
  }
  return seen;
}

/**
 * Every relative import of a source file below `dirs` (relative to `root`) with the wrong suffix. In a .ts file:
 * `.ts` inside the native worker graph, `.js` outside it, for imports of TypeScript modules (a `.mjs`, `.cjs` or
 * `.json` is named as it is); an import without a suffix is wrong everywhere. In a .js or .mjs file: the name of a
 * file that exists.
 */
export function checkSuffixes(
  root: string,
  dirs: string[],
  graph = nativeWorkerGraph(root),
  skip: (path: string) => boolean = () => false,
): SuffixViolation[] {
  const violations: SuffixViolation[] = [];
  for (const dir of dirs) {
    for (const file of sourceFiles(join(root, dir), skip)) {
      if (!file.endsWith('.ts')) {
        for (const i of relativeImports(file)) {
          if (!existsSync(resolve(dirname(file), i.specifier.replace(/\?.*$/, '')))) {
            violations.push({
              file: relative(root, file),
              line: i.line,
              specifier: i.specifier,
              expected: 'an existing file',
            });
          }
        }
        continue;
      }
      const expected = graph.has(file) ? '.ts' : '.js';
      for (const i of relativeImports(file)) {
        const bare = i.specifier.replace(/\?.*$/, '');
        if (/\.(mjs|cjs|json|wasm|sql|html|css|svg)$/.test(bare)) continue;
        if (!bare.endsWith(expected))
          violations.push({ file: relative(root, file), line: i.line, specifier: i.specifier, expected });
      }
    }
  }
  return violations;
}

export const describeSuffixViolation = (v: SuffixViolation): string =>
  v.expected === 'an existing file'
    ? `${v.file}:${v.line} imports '${v.specifier}': no such file (a .js or .mjs module names the file as it is)`
    : `${v.file}:${v.line} imports '${v.specifier}': use ${v.expected}`;
