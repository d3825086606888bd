// Builds (npm run build) only when the build is not current: a fingerprint of every input's path, size and mtime is
// kept in dist/.build-stamp after a successful build, so `npm ci` builds once (prepare) and `npm test`, `npm run
// bench` and `npm pack` reuse that build. `npm run build` always builds.
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const inputs = ['src', 'test', 'bench', 'ui/src', 'scripts', 'openapi', 'migrations', 'package.json', 'package-lock.json', 'tsconfig.json'];
const stamp = join(root, 'dist', '.build-stamp');

function walk(path, hash) {
  if (!existsSync(path)) return;
  const st = statSync(path);
  if (st.isDirectory()) {
    if (path.endsWith('generated')) return; // written by the build itself
    for (const f of readdirSync(path).sort()) walk(join(path, f), hash);
  } else hash.update(`${path}\0${st.size}\0${st.mtimeMs}\n`);
}

export function fingerprint() {
  const hash = createHash('sha256');
  for (const i of inputs) walk(join(root, i), hash);
  return hash.digest('hex');
}

const before = fingerprint();
if (existsSync(stamp) && readFileSync(stamp, 'utf8') === before) {
  console.log('build is current (dist/.build-stamp)');
} else {
  const r = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
  writeFileSync(stamp, before);
}
