// A representative part of the API suite, run again in the etcd test mode (each suite's server on a fresh etcd), so
// that `npm test` covers the etcd backend: `node test/run.mjs --storage=etcd api` runs all of it.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const apiDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'api');
/** Reads, writes and their errors, watches (also by an indexed field), custom resources, RBAC, a restart. */
const suites = ['http-semantics', 'http-reads', 'watch-index', 'crd-api', 'rbac-http', 'graceful-deletion'];

// A generous guard, not a time the suites must keep: they take under half a minute on a quiet machine.
const guardMs = 12 * 60_000;

it('passes representative API suites with every server on etcd', { timeout: guardMs + 60_000 }, async () => {
  const files = suites.map((s) => join(apiDir, `${s}.test.js`));
  // A runner of its own: without the parent's NODE_TEST_CONTEXT, which would make it report to this one instead.
  const env: NodeJS.ProcessEnv = { ...process.env, BONSAI_TEST_STORAGE: 'etcd' };
  delete env.NODE_TEST_CONTEXT;
  const child = spawn(process.execPath, ['--test', '--test-concurrency=1', '--test-reporter=dot', ...files], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-20_000)));
  child.stderr.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-20_000)));
  const timer = setTimeout(() => child.kill('SIGKILL'), guardMs);
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  clearTimeout(timer);
  assert.equal(code, 0, out);
  assert.match(out, /\./, 'the suites ran');
});
