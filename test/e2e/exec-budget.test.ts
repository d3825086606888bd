// Issue 22: one exec command must not pin the server. Through real kubectl against `bonsai serve --exec-cpu-budget 1`:
// the export loop and the file-doubling loop of the issue, and an endless loop, each end with the budget's message
// and exit code 137, while other clients' requests are still answered.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type ServerHandle } from '../helpers/server.js';
import { Kubectl } from '../helpers/kubectl.js';

describe('exec budget', () => {
  let server: ServerHandle | undefined;
  let k: Kubectl;
  before(async () => {
    server = await startServer({ args: ['--exec-cpu-budget', '1', '--addons', ''] });
    k = new Kubectl(server.kubeconfig);
    await k.ok(['run', 'box', '--image=busybox', '--', 'sleep', '3600']);
    await k.ok(['wait', '--for=condition=Ready', 'pod/box', '--timeout=60s']);
  });
  after(async () => {
    try {
      await server?.stop();
    } finally {
      server?.cleanup();
    }
  });

  /** Runs `kubectl exec box -- sh -c src` while polling /healthz; how many polls were answered meanwhile. */
  async function bomb(src: string): Promise<{ code: number | null; stderr: string; answered: number }> {
    let running = true;
    let answered = 0;
    const poll = (async () => {
      while (running) {
        const r = await fetch(`${server!.url}/healthz`);
        await r.text();
        if (running && r.status === 200) answered++;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
    try {
      const r = await k.run(['exec', 'box', '--', 'sh', '-c', src], { timeoutMs: 300_000 });
      return { code: r.code, stderr: r.stderr, answered };
    } finally {
      running = false;
      await poll;
    }
  }

  it('ends the export loop of the issue when its variables fill the memory budget', async () => {
    const r = await bomb('i=0; while [ $i -lt 20000 ]; do export V$i=1; i=$((i+1)); done');
    assert.equal(r.code, 137);
    assert.equal(r.stderr, 'sh: memory budget exhausted (more than 10000 variables); session ended\ncommand terminated with exit code 137\n');
  });

  it('ends an endless loop with the CPU budget and serves other requests meanwhile', async () => {
    const r = await bomb('i=0; while true; do export V$((i % 5000))=$i; i=$((i+1)); done');
    assert.equal(r.code, 137);
    assert.equal(r.stderr, 'sh: CPU budget of 1 s exhausted; session ended\ncommand terminated with exit code 137\n');
    assert.ok(r.answered > 0, 'no GET was answered while the shell ran');
  });

  it('ends the file-doubling loop with the memory budget', async () => {
    const r = await bomb('cd /tmp; echo x > f; while true; do cat f f > g; cat g > f; done');
    assert.equal(r.code, 137);
    assert.equal(r.stderr, 'sh: memory budget of 64 MiB exhausted; session ended\ncommand terminated with exit code 137\n');
    // The session is over, the pod is not: the next exec works.
    assert.equal(await k.ok(['exec', 'box', '--', 'sh', '-c', 'echo still here']), 'still here\n');
  });
});
