/**
 * The import-direction check of docs/architecture.md: every relative import (static, dynamic, re-export) of every
 * .ts, .js and .mjs file below a root, read with TypeScript's own pre-parser, is tested against rules that forbid
 * a part from importing another. A part is the first folder below the root (`store`, `calls` …) or, for a file at
 * the root, its name (`app`, `services` …), except where SRC_SUBPARTS cuts a folder finer (each endpoint of `api/`
 * is a part, `api/optimize`; `billing/rules` is one); what lies outside the root is `../<folder>` (`../test`).
 * Imports inside one part are never checked; imports between two parts of one folder are.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

export interface ImportRule {
  /** The parts this rule holds for (`api/*`: every part below api/; `*`: every part). */
  from: string[];
  /** Parts of `from` the rule does not hold for. */
  but?: string[];
  /** The parts they must never import (a folder names its parts too: `api` is `api/optimize` as well; `*`: any other part). */
  never: string[];
  /** What they may import all the same: parts or modules (`billing/rules`, `api/*\/schema`). */
  except?: string[];
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

/** Folders of src/ cut finer than the first level: `*` is any one name. */
export const SRC_SUBPARTS = ['api/*', 'billing/rules'];

/**
 * Every entry of src/, in the layers docs/architecture.md draws, top to bottom (a folder ends with `/`). Its
 * picture names exactly these, and src/ holds exactly these.
 */
export const SRC_LAYERS: Array<{ layer: string; members: string[] }> = [
  { layer: 'entry points', members: ['main.ts', 'startup.ts', 'shutdown.ts', 'executable.ts', 'admin/'] },
  { layer: 'the wiring', members: ['app.ts', 'services.ts', 'readiness.ts'] },
  { layer: 'endpoints', members: ['api/', 'console/'] },
  { layer: 'paid calls', members: ['calls/'] },
  { layer: 'payments and the HTTP layer', members: ['payments/', 'http/'] },
  { layer: 'the domain', members: ['billing/', 'geo/', 'solver/', 'schedule/', 'mail/'] },
  { layer: 'the store', members: ['store/'] },
  {
    layer: 'leaves',
    members: [
      'errors.ts',
      'config.ts',
      'config-types.ts',
      'config-help.ts',
      'logger.ts',
      'log-output.ts',
      'metrics.ts',
      'storage-errors.ts',
      'assets.ts',
      'asset-sources.json',
      'private-files.ts',
    ],
  },
];

const partsOf = (layer: string): string[] =>
  SRC_LAYERS.find((l) => l.layer === layer)!.members.map((m) => m.replace(/(\/|\.\w+)$/, ''));
const ENTRY = partsOf('entry points');
const WIRING = partsOf('the wiring');
const LEAVES = partsOf('leaves');
const ABOVE_THE_DOMAIN = ['calls', 'api', 'console', 'payments', 'http', ...WIRING, ...ENTRY];

/** The allowed directions of src/, as docs/architecture.md draws them. */
export const SRC_RULES: ImportRule[] = [
  {
    from: ['store'],
    never: [...ABOVE_THE_DOMAIN, 'billing', 'geo', 'solver', 'schedule', 'mail'],
    except: ['billing/rules'],
    why: 'the store runs SQL and decides nothing: it asks the pure rules of billing/rules/ and knows no other part of the domain',
  },
  {
    from: ['billing/rules'],
    never: ['*'],
    why: 'the billing rules are pure functions of their arguments: they import nothing',
  },
  {
    from: ['billing'],
    but: ['billing/rules'],
    never: [...ABOVE_THE_DOMAIN, 'geo', 'solver', 'mail'],
    why: 'billing keeps keys, money and quotas in the store and counts the sandbox day with schedule/; it needs no geography, solver or mail',
  },
  {
    from: ['geo'],
    never: [...ABOVE_THE_DOMAIN, 'billing', 'solver', 'schedule', 'mail'],
    why: 'geocoding and routing (their cache in the store) know nothing of keys, solving, time or mail',
  },
  {
    from: ['solver'],
    never: [...ABOVE_THE_DOMAIN, 'store', 'billing', 'geo', 'schedule', 'mail'],
    why: 'the solver takes problems in integers and knows no other part',
  },
  {
    from: ['schedule'],
    never: [...ABOVE_THE_DOMAIN, 'store', 'billing', 'geo', 'mail'],
    why: "schedule turns seconds into Europe/Paris instants (from the solver's answers); it knows no store, key, place or mail",
  },
  {
    from: ['mail'],
    never: [...ABOVE_THE_DOMAIN, 'billing', 'geo', 'solver', 'schedule'],
    why: 'mail delivers messages (its outbox in the store) and knows nothing of keys, routes or time',
  },
  {
    from: ['payments'],
    never: ['calls', 'api', 'http', 'console', ...WIRING, ...ENTRY],
    why: "payments is used by the API's routers, never the reverse",
  },
  {
    from: ['http'],
    never: ['store', 'calls', 'api', 'console', 'payments', ...WIRING, ...ENTRY],
    why: 'the HTTP layer maps errors and reads requests; it never reaches the database, a paid call or an endpoint',
  },
  {
    from: ['calls'],
    never: ['api', 'console', 'payments', ...WIRING, ...ENTRY],
    why: 'what every paid call does serves the endpoints and never knows one of them',
  },
  {
    from: ['api', 'console'],
    never: [...WIRING, ...ENTRY],
    why: 'endpoints are wired by app.ts and services.ts, not the other way round',
  },
  {
    from: ['api/*'],
    but: ['api/openapi'],
    never: ['api'],
    why: 'an endpoint never imports another: what optimize and plans share is calls/',
  },
  {
    from: ['api/openapi'],
    never: ['api'],
    except: ['api/*/schema'],
    why: "the OpenAPI document reads the endpoints' request schemas and nothing else of them",
  },
  {
    from: WIRING,
    never: ENTRY,
    why: 'the wiring is built by the entry points (the server, the admin CLI, the executable), never the reverse',
  },
  {
    from: LEAVES,
    never: ['*'],
    except: [...LEAVES, 'geo/geocoding/types'],
    why: "the leaves import only each other (config-types names the geocoder precisions by geo's own type)",
  },
  { from: ['*'], never: ['../test', '../scripts'], why: 'the service never depends on its tests or tools' },
];

/** scripts/: the benches and tools share nothing with the tests. */
export const SCRIPTS_RULES: ImportRule[] = [
  {
    from: ['*'],
    never: ['../test'],
    why: 'a bench or tool carries what it needs in scripts/lib or takes it from src/, never from the tests',
  },
];

/** The source files below `dir`: TypeScript (not declarations), JavaScript and ES modules. */
export function* sourceFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(path);
    else if (/\.(ts|js|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) yield path;
  }
}

const EXTENSION = /\.(ts|js|mjs|json)(\?.*)?$/;

/** Whether `name` (a rule's name of a part or module) covers `target` (a part, or a module path without extension). */
export function covers(name: string, target: string): boolean {
  if (name === '*') return true;
  const pattern = name
    .split('/')
    .map((segment) => (segment === '*' ? '[^/]+' : segment.replace(/[.+?^${}()|[\]\\-]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${pattern}(/.*)?$`).test(target);
}

/** The part a path (absolute) belongs to, seen from `root`; `subparts` cut folders finer (SRC_SUBPARTS). */
export function partOf(root: string, path: string, subparts: readonly string[] = []): string {
  const rel = relative(root, path).split(sep);
  if (rel[0] === '..') return `../${rel[1]}`;
  const names = rel.map((name, i) => (i === rel.length - 1 ? name.replace(EXTENSION, '') : name));
  for (const subpart of subparts) {
    const segments = subpart.split('/');
    if (names.length >= segments.length && segments.every((s, i) => s === '*' || s === names[i]))
      return names.slice(0, segments.length).join('/');
  }
  return names[0]!;
}

/** Every violation of `rules` by the files below `root`. */
export function checkImports(root: string, rules: ImportRule[], subparts: readonly string[] = []): Violation[] {
  const violations: Violation[] = [];
  for (const file of sourceFiles(root)) {
    const text = readFileSync(file, 'utf8');
    const fromPart = partOf(root, file, subparts);
    const applicable = rules.filter(
      (r) => r.from.some((name) => covers(name, fromPart)) && !(r.but ?? []).some((name) => covers(name, fromPart)),
    );
    if (applicable.length === 0) continue;
    for (const imported of ts.preProcessFile(text, true, true).importedFiles) {
      if (!imported.fileName.startsWith('.')) continue; // packages and node: builtins
      const target = resolve(dirname(file), imported.fileName);
      const toPart = partOf(root, target, subparts);
      if (toPart === fromPart) continue;
      const module = relative(root, target).split(sep).join('/').replace(EXTENSION, '');
      for (const rule of applicable) {
        if (!rule.never.some((name) => covers(name, toPart))) continue;
        if ((rule.except ?? []).some((name) => covers(name, toPart) || covers(name, module))) continue;
        const line = text.slice(0, imported.pos).split('\n').length;
        violations.push({
          file: relative(root, file),
          line,
          specifier: imported.fileName,
          fromPart,
          toPart,
          why: rule.why,
        });
      }
    }
  }
  return violations;
}

export const describeViolation = (v: Violation): string =>
  `${v.file}:${v.line} imports '${v.specifier}' (${v.fromPart} → ${v.toPart}): ${v.why}`;

/**
 * The picture of docs/architecture.md (the first fenced block after `heading`) against the entries of `srcDir`:
 * the entries it does not name, and the names it shows (`name/`, `name.ts`, `name.json`) that are no entry.
 */
export function checkPicture(
  srcDir: string,
  doc: string,
  heading = '## The parts and the allowed directions',
): { unplaced: string[]; unknown: string[] } {
  const section = doc.slice(doc.indexOf(heading));
  const picture = section.slice(section.indexOf('```') + 3, section.indexOf('```', section.indexOf('```') + 3));
  const shown = new Set(
    [...picture.matchAll(/(?<![\w./-])([a-z][\w-]*(?:\/|\.(?:ts|json)))(?![\w/])/g)].map((m) => m[1]!),
  );
  const entries = readdirSync(srcDir, { withFileTypes: true }).map((e) => (e.isDirectory() ? `${e.name}/` : e.name));
  return {
    unplaced: entries.filter((e) => !shown.has(e)).sort(),
    unknown: [...shown].filter((s) => !entries.includes(s)).sort(),
  };
}
