/**
 * The import-direction check of docs/architecture.md: every relative import (static, dynamic, re-export) of every
 * .ts file below a root, read with TypeScript's own pre-parser, is tested against rules that forbid a part from
 * importing another. A part is the first folder below the root (`store`, `api` …) or, for a file at the root,
 * its name (`app`, `services` …); what lies outside the root is `../<folder>` (`../test`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

export interface ImportRule {
  /** The parts this rule holds for. */
  from: string[];
  /** The parts they must never import. */
  never: string[];
  /** Why, in one sentence: printed with each violation. */
  why: string;
}

export interface Violation {
  file: string;
  line: number;
  specifier: string;
  fromPart: string;
  toPart: string;
  why: string;
}

const DOMAIN = ['store', 'billing', 'geo', 'solver', 'schedule', 'mail'];
const WIRING = ['app', 'main', 'services', 'admin', 'executable', 'startup'];

/** The allowed directions of src/, as docs/architecture.md draws them. */
export const SRC_RULES: ImportRule[] = [
  { from: DOMAIN, never: ['api', 'http', 'console', 'payments', ...WIRING], why: 'the domain parts never know the HTTP layer, the API, payments or the wiring' },
  { from: ['payments'], never: ['api', 'http', 'console', ...WIRING], why: 'payments is used by the API\'s routers, never the reverse' },
  { from: ['http'], never: ['store', 'api', 'console', 'payments', ...WIRING], why: 'the HTTP layer maps errors and reads requests; it never reaches the database or an endpoint' },
  { from: ['api', 'console'], never: WIRING, why: 'endpoints are wired by app.ts and services.ts, not the other way round' },
  { from: ['app', 'services'], never: ['main', 'admin', 'executable', 'startup'], why: 'the wiring is built by the entry points (the server, the admin CLI, the executable), never the reverse' },
  { from: ['*'], never: ['../test', '../scripts'], why: 'the service never depends on its tests or tools' },
];

/** scripts/: the benches and tools share nothing with the tests. */
export const SCRIPTS_RULES: ImportRule[] = [
  { from: ['*'], never: ['../test'], why: 'a bench or tool carries what it needs in scripts/lib or takes it from src/, never from the tests' },
];

function* typescriptFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* typescriptFiles(path);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) yield path;
  }
}

/** The part a path (absolute) belongs to, seen from `root`. */
export function partOf(root: string, path: string): string {
  const rel = relative(root, path);
  const [first, ...rest] = rel.split(sep);
  if (first === '..') return `../${rest[0]}`;
  return rest.length === 0 ? first.replace(/\.(ts|js|mjs|json)$/, '') : first;
}

/** Every violation of `rules` by the files below `root`. */
export function checkImports(root: string, rules: ImportRule[]): Violation[] {
  const violations: Violation[] = [];
  for (const file of typescriptFiles(root)) {
    const text = readFileSync(file, 'utf8');
    const fromPart = partOf(root, file);
    const applicable = rules.filter((r) => r.from.includes(fromPart) || r.from.includes('*'));
    if (applicable.length === 0) continue;
    for (const imported of ts.preProcessFile(text, true, true).importedFiles) {
      if (!imported.fileName.startsWith('.')) continue; // packages and node: builtins
      const toPart = partOf(root, resolve(dirname(file), imported.fileName));
      if (toPart === fromPart) continue;
      for (const rule of applicable) {
        if (!rule.never.includes(toPart)) continue;
        const line = text.slice(0, imported.pos).split('\n').length;
        violations.push({ file: relative(root, file), line, specifier: imported.fileName, fromPart, toPart, why: rule.why });
      }
    }
  }
  return violations;
}

export const describeViolation = (v: Violation): string => `${v.file}:${v.line} imports '${v.specifier}' (${v.fromPart} → ${v.toPart}): ${v.why}`;
