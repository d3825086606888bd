// docker-compose.yml is valid for Debian's docker-compose and runs Bonsai as documented.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { projectRoot } from '../helpers/server.js';

const which = spawnSync('sh', ['-c', 'command -v docker-compose']);
const missing = which.status !== 0 && 'docker-compose is not installed (.ci/run installs it)';

it('docker-compose.yml passes `docker-compose config`', { skip: missing }, () => {
  const r = spawnSync('docker-compose', ['-f', join(projectRoot, 'docker-compose.yml'), 'config'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /image: node:20/);
  assert.match(r.stdout, /- 127\.0\.0\.1:6443:6443/, 'published on the host\'s loopback only');
  assert.match(r.stdout, /bonsai-data:\/data/);
  assert.match(r.stdout, /exec npm start -- --host 0\.0\.0\.0 --port 6443 --data\s+\/data\s+--insecure/); // exec: npm is process 1 and gets SIGTERM
});
