// Runs every compiled test file under dist/test with node's test runner, two at a time in name order: api, e2e, then
// the many short unit files, which keep both slots busy to the end (no long file is left to run alone).
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

function find(dir) {
  let out = [];
  for (const f of readdirSync(dir)) {
    const p = join(dir, f);
    if (statSync(p).isDirectory()) out = out.concat(find(p));
    else if (f.endsWith('.test.js')) out.push(p);
  }
  return out.sort();
}

const files = find('dist/test');
// `--storage=etcd` (or BONSAI_TEST_STORAGE=etcd): the API test servers run on a fresh etcd each, and the e2e suites'
// `bonsai serve` processes on one per data dir (/usr/bin/etcd; see test/helpers/server.ts).
const args = process.argv.slice(2);
const storage = args.find((a) => a.startsWith('--storage='));
if (storage) process.env.BONSAI_TEST_STORAGE = storage.slice('--storage='.length);
// `--quick` (npm run test:quick): a first check in a couple of minutes, the unit files and kubectl's basics.
const quick = ['/unit/', '/e2e/kubectl-basics.'];
const only = args.filter((a) => !a.startsWith('--storage=')).flatMap((a) => (a === '--quick' ? quick : [a]));
const selected = only.length ? files.filter((f) => only.some((o) => f.includes(o))) : files;
if (!selected.length) {
  console.error(`no test file matches ${only.join(' ')}`);
  process.exit(1);
}
// Timeouts: every test and hook gets one unless it sets its own (test/timeouts/, 5 minutes by default,
// BONSAI_TEST_TIMEOUT_MS), each file 20 minutes in all (node 20's --test-timeout bounds whole files), and a file
// whose tests are done exits even if something it started still holds the event loop.
const timeouts = join(dirname(fileURLToPath(import.meta.url)), 'timeouts', 'register.mjs');
// Two files at a time; BONSAI_TEST_CONCURRENCY=N runs N (the e2e files alone use about 0.8 of a core each).
const concurrency = Number(process.env.BONSAI_TEST_CONCURRENCY) || 2;
const runner = ['--import', pathToFileURL(timeouts).href, '--test', `--test-concurrency=${concurrency}`, '--test-timeout=1200000', '--test-force-exit'];
const r = spawnSync(process.execPath, [...runner, '--test-reporter=spec', ...selected], { stdio: 'inherit' });
process.exit(r.status ?? 1);
