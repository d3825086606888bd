// The server bundle (dist/bundle, scripts/build-server.mjs) and the compiled modules both start Bonsai with every
// data path found from the package root: OpenAPI documents, protobuf definitions, migrations (a data directory), add-on
// CRDs read and parsed in their worker thread. And `bonsai` picks the bundle only when it is current.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../helpers/server.js';
import { bundleIsCurrent } from '../../src/cli/bundle-choice.js';
import { configMap } from '../helpers/hostile-protobuf.js';

const bundle = join(projectRoot, 'dist', 'bundle', 'cli.js');
const compiled = join(projectRoot, 'dist', 'src', 'cli', 'cli.js');
const scratch = mkdtempSync(join(tmpdir(), 'bonsai-bundle-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

async function serveAndCheck(script: string, label: string): Promise<void> {
  const data = mkdtempSync(join(scratch, `${label}-`));
  const p = spawn(process.execPath, [script, 'serve', '--port', '0', '--data', data, '--output', 'json', '--addons', 'jobset', '--log-level', 'error'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  p.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<void>((resolve) => p.once('exit', () => resolve()));
  try {
    const line = await new Promise<{ url: string; token: string }>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`${label}: no ready line in 30 s: ${out}${err}`)), 30_000);
      p.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('\n')) {
          clearTimeout(t);
          resolve(JSON.parse(out.slice(0, out.indexOf('\n'))) as { url: string; token: string });
        }
      });
      p.once('exit', (code) => reject(new Error(`${label}: exited ${code}: ${err}`)));
    });
    const get = (path: string, accept = 'application/json') => fetch(`${line.url}${path}`, { headers: { authorization: `Bearer ${line.token}`, accept } });
    const v2 = await get('/openapi/v2');
    assert.equal(v2.status, 200, `${label}: /openapi/v2`);
    assert.ok(((await v2.json()) as { paths?: object }).paths, `${label}: the swagger document`);
    assert.equal((await get('/openapi/v3/api/v1')).status, 200, `${label}: /openapi/v3/api/v1`);
    // A protobuf body is decoded with the definitions under proto/.
    const pb = await fetch(`${line.url}/api/v1/namespaces/default/configmaps`, { method: 'POST', body: new Uint8Array(configMap('from-protobuf', { a: 'b' })), headers: { authorization: `Bearer ${line.token}`, 'content-type': 'application/vnd.kubernetes.protobuf', accept: 'application/json' } });
    assert.equal(pb.status, 201, `${label}: protobuf create: ${await pb.text()}`);
    assert.deepEqual(((await (await get('/api/v1/namespaces/default/configmaps/from-protobuf')).json()) as { data?: object }).data, { a: 'b' });
    assert.ok(existsSync(join(data, 'bonsai.db')), `${label}: the database (migrations applied)`);
    // The add-on's CRD file is read from the package and parsed in the worker thread, then served.
    const deadline = Date.now() + 20_000;
    let crd = 0;
    while (Date.now() < deadline && (crd = (await get('/apis/apiextensions.k8s.io/v1/customresourcedefinitions/jobsets.jobset.x-k8s.io')).status) !== 200) await new Promise((r) => setTimeout(r, 50));
    assert.equal(crd, 200, `${label}: the jobset CRD installed: ${err}`);
    assert.doesNotMatch(err, /failed|Cannot find/i, `${label}: stderr`);
  } finally {
    p.kill('SIGTERM');
    await exited;
  }
}

describe('server bundle', () => {
  it('the bundle serves OpenAPI, protobuf, a data directory and add-on CRDs', { skip: !bundleIsCurrent(bundle, compiled) && 'no current dist/bundle (npm run build writes it)' }, async () => {
    await serveAndCheck(bundle, 'bundle');
  });

  it('the compiled modules do the same', async () => {
    await serveAndCheck(compiled, 'compiled');
  });

  it('bonsai runs the bundle only when it is not older than the compiled CLI, and not with BONSAI_BUNDLE=0', () => {
    const b = join(scratch, 'b.js');
    const c = join(scratch, 'c.js');
    writeFileSync(b, '');
    writeFileSync(c, '');
    utimesSync(c, 1000, 1000);
    utimesSync(b, 2000, 2000);
    assert.equal(bundleIsCurrent(b, c, {}), true);
    assert.equal(bundleIsCurrent(b, c, { BONSAI_BUNDLE: '0' }), false);
    utimesSync(b, 1000, 1000); // npm pack: one mtime for every file
    assert.equal(bundleIsCurrent(b, c, {}), true);
    utimesSync(c, 3000, 3000); // a plain tsc since the bundle
    assert.equal(bundleIsCurrent(b, c, {}), false);
    assert.equal(bundleIsCurrent(join(scratch, 'missing.js'), c, {}), false);
  });
});
