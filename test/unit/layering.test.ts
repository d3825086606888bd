// Layering: controllers, the scheduler, the kubelets and the simulated cluster reach objects only through the
// in-process client (src/client/): no file under them imports the storage layer or uses the store's watch hub.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project root: the compiled test sits in dist/test/unit/, the source in src/. */
function projectRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'src'))) return dir;
    dir = dirname(dir);
  }
  throw new Error('project root not found');
}

function sources(dir: string, depth = 0): string[] {
  if (depth > 10) return [];
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...sources(p, depth + 1));
    else if (name.endsWith('.ts')) out.push(p);
  }
  return out;
}

const storageImport = /(?:from\s+|import\s*\(\s*)['"](?:\.\.?\/)+(?:[\w-]+\/)*storage\/[^'"]*['"]/;
const hubUse = /\.hub\b/;
/** The HTTP surface's internals (handlers, decoding): components and the client reach objects through the registry. */
const apiImport = /(?:from\s+|import\s*\(\s*)['"](?:\.\.?\/)+(?:[\w-]+\/)*api\/[^'"]*['"]/;

test('controllers, scheduler, kubelet and cluster neither import storage/ nor use the watch hub', () => {
  const root = projectRoot();
  const offences: string[] = [];
  let files = 0;
  for (const folder of ['controllers', 'scheduler', 'kubelet', 'cluster']) {
    for (const file of sources(join(root, 'src', folder))) {
      files++;
      readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
        if (storageImport.test(line) || hubUse.test(line)) offences.push(`${relative(root, file)}:${i + 1}: ${line.trim()}`);
      });
    }
  }
  assert.ok(files > 20, `found the sources (${files} files)`);
  assert.deepEqual(offences, []);
});

test('controllers, scheduler, kubelet, cluster and the client do not import api/ internals', () => {
  const root = projectRoot();
  const offences: string[] = [];
  for (const folder of ['controllers', 'scheduler', 'kubelet', 'cluster', 'client']) {
    for (const file of sources(join(root, 'src', folder))) {
      readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
        if (apiImport.test(line)) offences.push(`${relative(root, file)}:${i + 1}: ${line.trim()}`);
      });
    }
  }
  assert.deepEqual(offences, []);
  assert.ok(apiImport.test(`import { bindPod } from '../api/binding.js';`));
  assert.ok(!apiImport.test(`import type { Pod } from 'kubernetes-types/core/v1.js';`));
});

test('the check itself catches what it is meant to', () => {
  assert.ok(storageImport.test(`import type { Change } from '../storage/watch-hub.js';`));
  assert.ok(storageImport.test(`import { SqliteStore } from '../../storage/sqlite-store.js';`));
  assert.ok(storageImport.test(`const m = await import('../storage/sqlite-store.js');`));
  assert.ok(!storageImport.test(`import type { StorageClass } from 'kubernetes-types/storage/v1.js';`));
  assert.ok(hubUse.test('reg.store.hub.subscribe(')); 
  assert.ok(!hubUse.test('const hubs = 1;'));
});

/** Every relative import of a file, resolved to a path under src/. */
function importsOf(file: string): Array<{ line: number; text: string; target: string }> {
  const out: Array<{ line: number; text: string; target: string }> = [];
  readFileSync(file, 'utf8').split('\n').forEach((text, i) => {
    for (const m of text.matchAll(/(?:from\s+|import\s*\(\s*)['"](\.\.?\/[^'"]*)['"]/g)) out.push({ line: i + 1, text: text.trim(), target: join(dirname(file), m[1]) });
  });
  return out;
}

test('an add-on is one folder: it imports neither registry/ (but its pure validation rules), storage/, api/ nor another add-on', () => {
  const root = projectRoot();
  const addons = join(root, 'src', 'addons');
  const offences: string[] = [];
  let folders = 0;
  for (const name of readdirSync(addons)) {
    const folder = join(addons, name);
    if (!statSync(folder).isDirectory()) continue;
    folders++;
    for (const file of sources(folder)) {
      for (const imp of importsOf(file)) {
        const rel = relative(join(root, 'src'), imp.target);
        const top = rel.split('/')[0];
        const otherAddon = rel.startsWith('addons/') && !rel.startsWith(`addons/${name}/`) && rel.split('/').length > 2;
        // The field and name rules (registry/validation/) are pure functions, as apimachinery's validation is to
        // upstream's webhooks: an add-on's admission checks may use them.
        const rules = rel.startsWith('registry/validation/');
        if (((top === 'registry' && !rules) || top === 'storage' || top === 'api') || otherAddon) offences.push(`${relative(root, file)}:${imp.line}: ${imp.text}`);
      }
    }
  }
  assert.ok(folders >= 6, `found the add-on folders (${folders})`);
  assert.deepEqual(offences, []);
});
