// exec, attach and port-forward through the official Python client (issue 23), as its own e2e suite drives them:
// test/fixtures/python/test_streaming.py runs under pytest against a server started here, with the simulated
// runtime. CI installs python3-pytest and python3-kubernetes (.ci/run); without them the test skips.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { projectRoot, startServer } from '../helpers/server.js';
import { noAddons } from '../helpers/cluster.js';
import { pythonSkip, runPytest } from '../helpers/pytest.js';

const skip = pythonSkip('kubernetes, pytest', 'python3-kubernetes python3-pytest');

it('the Python client execs, attaches and port-forwards over WebSocket', { skip }, async () => {
  const server = await startServer({ args: [...noAddons] });
  try {
    const { code, out } = await runPytest(join(projectRoot, 'test', 'fixtures', 'python', 'test_streaming.py'), { BONSAI_KUBECONFIG: server.kubeconfig }, 240_000);
    assert.equal(code, 0, out);
    assert.match(out, /\b6 passed\b/, out);
  } finally {
    await server.stop();
    server.cleanup();
  }
});
