/** The instance sets of bench:compare: the committed manifest matches its sources. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { loadSet } from '../../scripts/lib/compare/instances.js';
import { MANIFEST_PATH, buildManifest, manifestText, readManifest } from '../../scripts/lib/compare/manifest.js';

const manifest = readManifest();

test('data/bench/manifest.json is what scripts/build-bench-manifest.ts builds from the sources', () => {
  assert.equal(
    readFileSync(MANIFEST_PATH, 'utf8'),
    manifestText(buildManifest()),
    'run npx tsx scripts/build-bench-manifest.ts',
  );
});

test('every set names its source, licence and reference; every instance its size', () => {
  for (const [name, set] of Object.entries(manifest.sets)) {
    for (const k of ['description', 'source', 'licence', 'reference'] as const)
      assert.ok(set[k].length > 10, `${name}.${k}`);
    for (const i of set.instances) assert.ok(Number.isInteger(i.n) && i.n > 0, `${name}/${i.name}`);
  }
  assert.equal(manifest.sets.tsplib.instances.length, 33);
  assert.equal(manifest.sets.deadlines.instances.length, 32);
  assert.deepEqual(
    manifest.sets.city.instances.map((i) => i.name),
    [
      'paris-50',
      'paris-100',
      'paris-200',
      'lyon-50',
      'lyon-100',
      'lyon-200',
      'marseille-50',
      'marseille-100',
      'marseille-200',
    ],
  );
});

test('instances load as valid solver problems', () => {
  for (const inst of loadSet(manifest, 'tsplib')) {
    assert.equal(inst.problem.size, inst.n + 1, inst.name);
    assert.equal(inst.euc2d!.length, inst.problem.size);
    assert.ok(inst.reference! > 0);
  }
  for (const inst of loadSet(manifest, 'deadlines')) {
    assert.ok(inst.hasDeadlines && inst.problem.deadlineS.some((d) => d >= 0), inst.name);
    assert.equal(inst.problem.serviceS.length, inst.n);
  }
  for (const inst of loadSet(manifest, 'city')) {
    const p = inst.problem;
    const m = p.size;
    assert.equal(m, inst.n + 2);
    for (let i = 0; i < m; i++) {
      for (let j = 0; j < m; j++) {
        assert.equal(p.durations[i * m + j], p.durations[j * m + i], `${inst.name} symmetric`);
        // distinct places: only the depot and its copy (the end) share a point
        if (i !== j && !((i === 0 && j === m - 1) || (i === m - 1 && j === 0)))
          assert.ok(p.durations[i * m + j] > 0, `${inst.name} ${i}→${j}`);
      }
    }
  }
});

test('a planted instance whose generator drifted is refused with the fix', () => {
  const m = structuredClone(manifest);
  m.sets.deadlines.instances[0].bestKnown += 1;
  assert.throws(() => loadSet(m, 'deadlines'), /generator changed, run npx tsx scripts\/build-bench-manifest\.ts/);
});
