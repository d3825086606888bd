// docker-compose.yml is valid for Debian's docker-compose and runs Bonsai as documented: an image built by the
// Dockerfile (nothing installed into the user's checkout), an init forwarding SIGTERM, ports on the host's loopback,
// healthchecks with a start period; the `etcd` profile adds etcd and three replicas on it.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../helpers/server.js';

const which = spawnSync('sh', ['-c', 'command -v docker-compose']);
const missing = which.status !== 0 && 'docker-compose is not installed (.ci/run installs it)';
const config = (...args: string[]) => {
  const r = spawnSync('docker-compose', ['-f', join(projectRoot, 'docker-compose.yml'), ...args, 'config'], { encoding: 'utf8', env: { ...process.env, BONSAI_BIND_ADDRESS: '' } });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
};
const count = (text: string, re: RegExp) => (text.match(new RegExp(re.source, 'g')) ?? []).length;

it('docker-compose.yml passes `docker-compose config`: one Bonsai from the built image', { skip: missing }, () => {
  const out = config();
  assert.match(out, /build:\s+context: \S+/, 'the image is built from the repository');
  assert.doesNotMatch(out, /npm (ci|install)/, 'nothing is installed into the bind-mounted checkout');
  assert.match(out, /init: true/, 'an init as PID 1 forwards SIGTERM to node');
  assert.match(out, /- 127\.0\.0\.1:6443:6443/, "published on the host's loopback only");
  assert.match(out, /bonsai-data:\/data/);
  assert.match(out, /start_period: \S+/, 'the healthcheck has a start period');
});

it('the etcd profile runs etcd and three replicas on it, each on the loopback', { skip: missing }, () => {
  const out = config('--profile', 'etcd');
  for (const port of [6444, 6445, 6446]) assert.match(out, new RegExp(`- 127\\.0\\.0\\.1:${port}:6443`));
  assert.equal(count(out, /- etcd:\/\/etcd:2379/), 3, 'three replicas on the shared etcd');
  assert.ok(count(out, /condition: service_healthy/) >= 3, 'the replicas wait for a healthy etcd');
  assert.ok(count(out, /init: true/) >= 4);
});

it('the Dockerfile installs and builds inside the image and runs node in exec form as a non-root user', () => {
  const text = readFileSync(join(projectRoot, 'Dockerfile'), 'utf8');
  assert.match(text, /^FROM node:20/m);
  assert.match(text, /RUN npm ci/);
  assert.match(text, /^USER node/m);
  assert.match(text, /^(ENTRYPOINT|CMD) \[/m, 'exec form: node receives signals directly');
  assert.match(text, /HEALTHCHECK/);
});
