/** Command-line arguments of bench:compare. */
import { availableParallelism } from 'node:os';

import { SET_NAMES, type SetName } from './types.js';

export interface CompareArgs {
  builds: string[];
  sets: SetName[];
  seeds: number;
  budgets: number[];
  out: string;
  threads: number;
  /** Only these instances (names), for quick runs and tests. */
  instances: string[] | null;
  /** Re-render report.html from OUT/results.jsonl and OUT/run.json without solving. */
  rerender: boolean;
  help: boolean;
}

export const USAGE = `usage: npm run bench:compare -- --build A.wasm --build B.wasm [--build native] [--build lkh|linkern|vroom|ortools|external]
         [--set tsplib|deadlines|city|all] [--seeds 10] [--budgets 10,25,100,1000] [--out report/]
         [--threads N] [--instances NAME,NAME] [--rerender]
  --build      a solver .wasm (LABEL=FILE.wasm names it), native (the crate built with cargo),
               or an external solver when its binary is on PATH; the first build is the baseline
  --set        instance set(s), comma-separated or all (default tsplib); see data/bench/manifest.json
  --seeds      seeds 1..N per instance and budget (default 10)
  --budgets    time budgets in ms, comma-separated (default 10,25,100,1000)
  --out        directory for results.jsonl, run.json and report.html (default report)
  --threads    parallel solves (default: the number of cores)
  --instances  only these instances
  --rerender   rebuild report.html from the results already in --out`;

export class ArgsError extends Error {}

export function parseArgs(argv: string[]): CompareArgs {
  const a: CompareArgs = {
    builds: [],
    sets: ['tsplib'],
    seeds: 10,
    budgets: [10, 25, 100, 1000],
    out: 'report',
    threads: availableParallelism(),
    instances: null,
    rerender: false,
    help: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    const val = (): string => {
      const v = argv[++i];
      if (v === undefined || v.startsWith('--')) throw new ArgsError(`${k} needs a value`);
      return v;
    };
    const positiveInt = (v: string, what: string): number => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1) throw new ArgsError(`${what} must be a whole number >= 1, got "${v}"`);
      return n;
    };
    switch (k) {
      case '--build':
        a.builds.push(val());
        break;
      case '--set': {
        const v = val();
        const list = v === 'all' ? [...SET_NAMES] : v.split(',').map((s) => s.trim());
        for (const s of list)
          if (!(SET_NAMES as readonly string[]).includes(s))
            throw new ArgsError(`--set ${s}: unknown set; use ${SET_NAMES.join(', ')} or all`);
        a.sets = [...new Set(list)] as SetName[];
        break;
      }
      case '--seeds':
        a.seeds = positiveInt(val(), '--seeds');
        break;
      case '--budgets': {
        const v = val();
        const list = v.split(',').map((x) => Number(x.trim()));
        if (list.some((x) => !Number.isFinite(x) || x <= 0))
          throw new ArgsError(
            `--budgets must be positive milliseconds separated by commas, e.g. 10,25,100,1000; got "${v}"`,
          );
        a.budgets = [...new Set(list)].sort((x, y) => x - y);
        break;
      }
      case '--out':
        a.out = val();
        break;
      case '--threads':
        a.threads = positiveInt(val(), '--threads');
        break;
      case '--instances':
        a.instances = val()
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
        break;
      case '--rerender':
        a.rerender = true;
        break;
      case '-h':
      case '--help':
        a.help = true;
        break;
      default:
        throw new ArgsError(`unknown argument ${k}`);
    }
  }
  if (!a.help && !a.rerender && a.builds.length === 0)
    throw new ArgsError(
      'give at least one --build (two to compare), e.g. --build data/solver/solver.wasm --build other.wasm',
    );
  return a;
}

/** The command line that reproduces a run, for the report. */
export function commandLine(argv: string[]): string {
  const q = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
  return ['npm', 'run', 'bench:compare', '--', ...argv.map(q)].join(' ');
}
