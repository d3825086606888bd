// exec, attach and port-forward through the official Python client (issue 23), as its own e2e suite drives them:
// test/fixtures/python/test_streaming.py runs under pytest against a server started here, with the simulated
// runtime. CI installs python3-pytest and python3-kubernetes (.ci/run); without them the test skips.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { projectRoot, startServer } from '../helpers/server.js';

const python = process.env.PYTHON ?? '/usr/bin/python3';
const probe = spawnSync(python, ['-c', 'import kubernetes, pytest'], { encoding: 'utf8' });
const skip = probe.status === 0 ? false : `${python} cannot import kubernetes and pytest (install python3-kubernetes python3-pytest; .ci/run does): ${(probe.stderr ?? String(probe.error)).trim().split('\n').pop()}`;

it('the Python client execs, attaches and port-forwards over WebSocket', { skip }, async () => {
  const server = await startServer();
  try {
    const p = spawn(python, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', join(projectRoot, 'test', 'fixtures', 'python', 'test_streaming.py')], {
      cwd: projectRoot,
      env: { ...process.env, BONSAI_KUBECONFIG: server.kubeconfig, PYTHONDONTWRITEBYTECODE: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr.on('data', (d: Buffer) => (out += d.toString()));
    // A bound for a wedged client only: each wait inside the tests ends as soon as its condition holds.
    const timer = setTimeout(() => p.kill('SIGKILL'), 240_000);
    const code = await new Promise<number | null>((resolve) => p.on('close', resolve));
    clearTimeout(timer);
    assert.equal(code, 0, out);
    assert.match(out, /\b6 passed\b/, out);
  } finally {
    await server.stop();
    server.cleanup();
  }
});
