// The README's pytest example (examples/pytest/) runs as written: its session fixture starts
// `bonsai serve --port 0 --data :memory: --output json` and its tests use the official Python kubernetes client.
// CI installs python3-pytest and python3-kubernetes (.ci/run), so this test runs rather than skips.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { binPath, projectRoot } from '../helpers/server.js';

it('the pytest example passes against bonsai serve --output json', async () => {
  const python = process.env.PYTHON ?? '/usr/bin/python3';
  const p = spawn(python, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', join(projectRoot, 'examples', 'pytest')], {
    cwd: projectRoot,
    env: { ...process.env, BONSAI: `${JSON.stringify(process.execPath)} ${JSON.stringify(binPath)}`, PYTHONDONTWRITEBYTECODE: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  p.stdout.on('data', (d: Buffer) => (out += d.toString()));
  p.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const timer = setTimeout(() => p.kill('SIGKILL'), 90_000);
  const code = await new Promise<number | null>((resolve) => p.on('close', resolve));
  clearTimeout(timer);
  assert.equal(code, 0, out);
  assert.match(out, /\b3 passed\b/, out);
});
