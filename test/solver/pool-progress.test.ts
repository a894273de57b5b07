/**
 * A fleet solve's live side on the worker pool: the solver's new best plans reach the caller as they come
 * (`onProgress`, from the module's env.on_improve), and `stop` ends the search early with its best plan.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';

import { SolverPool, type FleetProblem, type FleetProgress } from '../../src/solver/index.js';
import { parseSolomon, solomonProblem } from '../../scripts/lib/solomon.js';
import { ROOT } from './helpers.js';

const r101 = (): FleetProblem =>
  solomonProblem(parseSolomon(readFileSync(join(ROOT, 'data/solomon', 'R101.txt'), 'utf8')));

describe('fleet solves on the pool: progress and stop', () => {
  let pool: SolverPool;
  before(() => {
    pool = new SolverPool({ size: 1 });
  });
  after(() => pool.close());

  it('reports each new best plan while it runs; the last report is the plan returned', async () => {
    const p = r101();
    const seen: Array<FleetProgress & { at: number }> = [];
    const t0 = performance.now();
    const r = await pool.solveFleet(p, {
      timeLimitMs: 1500,
      onProgress: (x) => seen.push({ ...x, at: performance.now() - t0 }),
    });
    // both counted from the call: the worker's start (its first solve) comes before either
    const answeredAt = performance.now() - t0;
    assert.ok(seen.length >= 2, `progress events: ${seen.length}`);
    assert.ok(
      seen[0]!.at < answeredAt - 200,
      `the first comes while the solve runs (at ${seen[0]!.at} ms, the answer at ${answeredAt} ms, of which ${r.solveMs} ms solving)`,
    );
    for (let k = 1; k < seen.length; k++) assert.ok(seen[k]!.improvements > seen[k - 1]!.improvements);
    const last = seen.at(-1)!;
    assert.equal(last.assigned, p.jobs.length - r.unassigned.length);
    const served = r.routes.reduce((s, route) => s + route.jobs.length, 0);
    assert.equal(last.assigned, served);
    assert.ok(last.improvements >= 2, JSON.stringify(last));
    assert.equal(
      last.routeS,
      r.routes.reduce((sum, route) => sum + route.duration, 0),
      "the routes' total duration, waits included",
    );
  });

  it('stop: the search ends at once with its best plan, which resolves (abort rejects)', async () => {
    const p = r101();
    const stop = new AbortController();
    let first: FleetProgress | null = null;
    let stoppedAt = Infinity;
    const r = await pool.solveFleet(p, {
      timeLimitMs: 60_000,
      stop: stop.signal,
      onProgress: (x) => {
        first ??= x;
        setTimeout(() => {
          stoppedAt = Math.min(stoppedAt, performance.now());
          stop.abort();
        }, 300);
      },
    });
    // counted from the stop, not from the call: building R101 and the worker's start come before it
    const took = performance.now() - stoppedAt;
    assert.ok(first, 'progress before the stop');
    assert.ok(Number.isFinite(stoppedAt), 'the stop was sent before the answer');
    assert.ok(took < 5_000, `answered ${Math.round(took)} ms after the stop, of a 60 s budget`);
    assert.equal(r.unassigned.length + r.routes.reduce((s, route) => s + route.jobs.length, 0), p.jobs.length);
    assert.equal(r.unassigned.length, 0, 'R101 is served in full once constructed');
  });
});
