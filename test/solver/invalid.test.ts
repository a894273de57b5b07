import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';

import {
  NO_DEADLINE,
  SolverError,
  SolverPool,
  Status,
  compileSolverModule,
  loadSolver,
  type SolveOptions,
  type SolveProblem,
} from '../../src/solver/index.js';
import { solverImports, type SolverExports } from '../../src/solver/abi.js';

function base(): SolveProblem {
  return {
    durations: new Int32Array([0, 5, 9, 3, 5, 0, 2, 4, 9, 2, 0, 6, 3, 4, 6, 0]),
    size: 4,
    serviceS: new Int32Array([0, 0, 0]),
    deadlineS: new Int32Array([NO_DEADLINE, NO_DEADLINE, NO_DEADLINE]),
    hasEnd: false,
  };
}

const cases: Array<[string, (p: SolveProblem) => SolveProblem, number, SolveOptions?]> = [
  ['size 0', (p) => ({ ...p, size: 0, durations: new Int32Array(0) }), Status.BAD_SIZE],
  [
    'size 1 with an end',
    (p) => ({
      ...p,
      size: 1,
      durations: new Int32Array(1),
      serviceS: new Int32Array(0),
      deadlineS: new Int32Array(0),
      hasEnd: true,
    }),
    Status.BAD_SIZE,
  ],
  ['size above the maximum', (p) => ({ ...p, size: 5000 }), Status.BAD_SIZE],
  ['non-integer size', (p) => ({ ...p, size: 3.5 }), Status.BAD_SIZE],
  ['matrix too short', (p) => ({ ...p, durations: p.durations.slice(0, 15) }), Status.BAD_LENGTH],
  ['service length', (p) => ({ ...p, serviceS: new Int32Array(2) }), Status.BAD_LENGTH],
  ['deadline length', (p) => ({ ...p, deadlineS: new Int32Array(4) }), Status.BAD_LENGTH],
  [
    'durations not Int32Array',
    (p) => ({ ...p, durations: Array.from(p.durations) as unknown as Int32Array }),
    Status.BAD_LENGTH,
  ],
  [
    'negative duration',
    (p) => ({ ...p, durations: p.durations.map((x, i) => (i === 6 ? -1 : x)) }),
    Status.NEGATIVE_DURATION,
  ],
  ['negative service', (p) => ({ ...p, serviceS: new Int32Array([0, -5, 0]) }), Status.NEGATIVE_SERVICE],
  ['seed out of range', (p) => p, Status.BAD_NUMBER, { seed: -1 }],
  ['negative time limit', (p) => p, Status.BAD_TIME_LIMIT, { timeLimitMs: -1 }],
  ['NaN time limit', (p) => p, Status.BAD_TIME_LIMIT, { timeLimitMs: Number.NaN }],
  ['infinite time limit', (p) => p, Status.BAD_TIME_LIMIT, { timeLimitMs: Number.POSITIVE_INFINITY }],
];

function isInvalid(status: number) {
  return (e: unknown) => {
    assert.ok(e instanceof SolverError, `not a SolverError: ${e}`);
    assert.equal(e.code, 'invalid_input');
    assert.equal(e.status, status, `status ${e.status} (${e.statusName}), expected ${status}`);
    return true;
  };
}

describe('invalid inputs', () => {
  const solver = loadSolver();
  const pool = new SolverPool({ size: 1 });
  after(() => pool.close());

  for (const [name, make, status, opts] of cases) {
    it(`in-thread: ${name} -> status ${status}`, () => {
      assert.throws(() => solver.solve(make(base()), opts), isInvalid(status));
    });
    it(`pool: ${name} -> SolverError invalid_input`, async () => {
      await assert.rejects(pool.solve(make(base()), opts), isInvalid(status));
    });
  }

  it('the module itself rejects bad values (JS checks bypassed)', () => {
    const module = compileSolverModule();
    const ex = new WebAssembly.Instance(
      module,
      solverImports(() => performance.now()),
    ).exports as unknown as SolverExports;
    const put = (a: Int32Array) => {
      const ptr = ex.alloc(Math.max(4, a.byteLength), 4);
      new Int32Array(ex.memory.buffer, ptr, a.length).set(a);
      return ptr;
    };
    const p = base();
    const d = put(p.durations);
    const s = put(p.serviceS);
    const l = put(p.deadlineS);
    const out = ex.alloc(8 * (3 + 6 * 3), 8);
    const call = (
      o: Partial<{ d: number; size: number; s: number; l: number; hasEnd: number; t: number; out: number }>,
    ) => ex.solve(o.d ?? d, o.size ?? 4, o.s ?? s, o.l ?? l, o.hasEnd ?? 0, 1, o.t ?? 0, 0, 0, o.out ?? out);
    assert.equal(call({}), Status.OK);
    assert.deepEqual(Array.from(new Float64Array(ex.memory.buffer, out, 6)), [0, 9, 0, 2, 0, 1]);
    // then per stop in visiting order: arrival, wait, start, departure, lateness
    assert.deepEqual(
      Array.from(new Float64Array(ex.memory.buffer, out + 48, 15)),
      [3, 0, 3, 3, 0, 7, 0, 7, 7, 0, 9, 0, 9, 9, 0],
    );
    assert.equal(call({ hasEnd: 2 }), Status.BAD_FLAG);
    assert.equal(call({ d: 0 }), Status.NULL_POINTER);
    assert.equal(call({ out: 0 }), Status.NULL_POINTER);
    assert.equal(call({ s: 0 }), Status.NULL_POINTER);
    assert.equal(call({ d: d + 1 }), Status.MISALIGNED);
    assert.equal(call({ out: out + 4 }), Status.MISALIGNED);
    assert.equal(call({ size: 0 }), Status.BAD_SIZE);
    assert.equal(call({ size: 4097 }), Status.BAD_SIZE);
    assert.equal(call({ t: Number.NaN }), Status.BAD_TIME_LIMIT);
    new Int32Array(ex.memory.buffer, d, 16)[1] = -3;
    assert.equal(call({}), Status.NEGATIVE_DURATION);
    new Int32Array(ex.memory.buffer, d, 16)[1] = 5;
    // ABI 4: -7 is a deadline 7 s before departure (only NO_DEADLINE means none): stop 0 is late
    new Int32Array(ex.memory.buffer, l, 3)[0] = -7;
    assert.equal(call({}), Status.OK);
    assert.equal(new Float64Array(ex.memory.buffer, out, 1)[0], 5 + 7, 'stop 0 first (5 s away), 12 s late');
    new Int32Array(ex.memory.buffer, l, 3)[0] = NO_DEADLINE;
    new Int32Array(ex.memory.buffer, s, 3)[2] = -1;
    assert.equal(call({}), Status.NEGATIVE_SERVICE);
    assert.equal(ex.alloc(0, 4), 0);
    assert.equal(ex.alloc(16, 3), 0, 'non power-of-two alignment');
  });
});
