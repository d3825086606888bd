// Regression (issue 9): a YAML body nested ~1,000 levels, sent twice, aborted `bonsai serve` with
// "RegExpCompiler Allocation failed - process out of memory" (a RegExp compiled where the yaml library's
// recursive composer had used up the stack). Now nesting is measured before composing, so the server answers
// 400 and keeps serving, without a line on stderr.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type ServerHandle } from '../helpers/server.js';
import { noAddons } from '../helpers/cluster.js';

describe('deep YAML bodies against bonsai serve', () => {
  let srv: ServerHandle;
  let stderr = '';
  before(async () => {
    srv = await startServer({ args: [...noAddons] });
    srv.proc.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  });
  after(async () => {
    await srv.stop();
    srv.cleanup();
  });

  it('answers 400 to each, twice, and still serves', async () => {
    const bodies = [850, 1000, 2000].map((d) => `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "deep"}, "x": ${'['.repeat(d)}1${']'.repeat(d)}}`);
    let block = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deep\nx:\n';
    for (let i = 0; i < 1000; i++) block += `${' '.repeat(i + 2)}a:\n`;
    bodies.push(block);
    for (const body of bodies) {
      for (const [method, path, type] of [
        ['POST', '/api/v1/namespaces/default/configmaps', 'application/yaml'],
        ['PATCH', '/api/v1/namespaces/default/configmaps/deep?fieldManager=t', 'application/apply-patch+yaml'],
      ]) {
        for (let i = 0; i < 2; i++) {
          const r = await fetch(srv.url + path, { method, headers: { 'content-type': type }, body });
          const s = (await r.json()) as { code?: number; message?: string };
          assert.equal(r.status, 400, JSON.stringify(s));
          assert.equal(s.code, 400);
          assert.match(s.message ?? '', /exceeded max depth of 300/);
        }
      }
    }
    assert.equal((await fetch(`${srv.url}/healthz`)).status, 200);
    assert.equal(srv.proc.exitCode, null);
    assert.equal(stderr, '');
  });
});
