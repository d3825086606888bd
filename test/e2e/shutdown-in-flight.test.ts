// Shutdown under write load, as kube-apiserver's graceful termination: ~50 creates kept in flight over keep-alive
// and new connections while the server is told to stop (SIGTERM to a `bonsai serve` child, or `close()` in process).
// Every create sent before the stop gets a whole answer (a 2xx, or a clean 429/503 Status): none is reset part way;
// a request sent later gets a whole answer or a connection closed before any answer byte; and every acknowledged
// object is there after a restart on the same data directory. No timing is asserted: the grace period is a bound.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type ServerHandle } from '../helpers/server.js';
import { eventually } from '../helpers/kubectl.js';
import { problems, startWriteLoad, type WriteLoad } from '../helpers/write-load.js';
import { startBonsai, type Bonsai } from '../../src/main.js';

const cms = '/api/v1/namespaces/default/configmaps';

/** Loads the server until plenty of creates are acknowledged and many are in flight at once. */
async function loaded(port: number): Promise<WriteLoad> {
  const load = startWriteLoad(port, cms, { keepAlive: 30, fresh: 20, prefix: 'w' });
  await eventually(() => load.acknowledged() >= 150, 120_000, '150 creates acknowledged');
  await eventually(() => load.inFlight() >= 25, 60_000, '25 creates in flight at once');
  return load;
}

/** Names of the ConfigMaps in default, read through `url`. */
async function storedNames(url: string): Promise<Set<string>> {
  const r = await fetch(`${url}${cms}`, { signal: AbortSignal.timeout(60_000) });
  assert.equal(r.status, 200);
  const list = (await r.json()) as { items: Array<{ metadata: { name: string } }> };
  return new Set(list.items.map((i) => i.metadata.name));
}

function check(load: WriteLoad, names: Set<string>): void {
  assert.deepEqual(problems(load.outcomes), []);
  const acked = load.outcomes.filter((o) => o.status === 201);
  const missing = acked.filter((o) => !names.has(o.name)).map((o) => o.name);
  assert.deepEqual(missing, [], `${missing.length} of ${acked.length} acknowledged creates missing after the restart`);
}

describe('shutdown with writes in flight', { timeout: 300_000 }, () => {
  it('SIGTERM: every create sent before it is answered whole, and every acknowledged one survives a restart', async () => {
    const servers: ServerHandle[] = [];
    let load: WriteLoad | undefined;
    try {
      const s = await startServer({ args: ['--addons', '', '--nodes', '0'] });
      servers.push(s);
      load = await loaded(Number(new URL(s.url).port));
      const inFlight = load.inFlight();
      load.stopping();
      s.proc.kill('SIGTERM');
      await load.done;
      assert.equal(await s.stop(), 0);
      const again = await startServer({ dataDir: s.dataDir, args: ['--addons', '', '--nodes', '0'] });
      servers.push(again);
      check(load, await storedNames(again.url));
      const before = load.outcomes.filter((o) => o.sentBefore).length;
      process.stdout.write(`# ${load.outcomes.length} creates, ${before} sent before SIGTERM, ${inFlight} in flight at it\n`);
    } finally {
      load?.end();
      for (const s of servers) await s.stop('SIGKILL').catch(() => undefined);
      servers[0]?.cleanup();
    }
  });

  it('close() in process: the same', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'bonsai-close-'));
    const opened: Bonsai[] = [];
    let load: WriteLoad | undefined;
    try {
      const open = async () => {
        const b = await startBonsai({ port: 0, data: dataDir, logLevel: 'silent', addons: [], cluster: { nodes: 0 } });
        opened.push(b);
        return b;
      };
      const b = await open();
      load = await loaded(b.port);
      load.stopping();
      await b.close();
      await load.done;
      const again = await open();
      check(load, await storedNames(again.url));
    } finally {
      load?.end();
      for (const b of opened) await b.close().catch(() => undefined);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
