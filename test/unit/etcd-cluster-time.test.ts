// A simulated cluster on etcd, where every write is answered asynchronously, with time sped up: the add-ons are
// served once `addonsReady` settles (their election is won after start returns), and a kubelet whose periodic status
// report is still on its way to etcd is not ticked again and again (it once wrote in a loop until the heap ran out).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startBonsai } from '../../src/main.js';
import { startEtcd } from '../helpers/etcd.js';
import { eventually } from '../helpers/kubectl.js';
import { statusReportMs } from '../../src/kubelet/node-agent.js';

interface NodeJson { status?: { conditions?: Array<{ type: string; lastHeartbeatTime?: string }> } }

test('on etcd at 600x: the add-ons are served when addonsReady settles, and node status reports go on', { timeout: 120_000 }, async () => {
  const etcd = await startEtcd();
  try {
    const b = await startBonsai({ port: 0, data: ':memory:', logLevel: 'silent', cluster: { nodes: 1 }, addons: ['vpa'], clockSpeed: 600, storage: etcd.storage });
    try {
      const headers = { authorization: `Bearer ${b.credentials.token}`, 'content-type': 'application/json' };
      await b.addonsReady;
      const vpa = await fetch(`${b.url}/apis/autoscaling.k8s.io/v1/namespaces/default/verticalpodautoscalers`, {
        method: 'POST', headers,
        body: JSON.stringify({ apiVersion: 'autoscaling.k8s.io/v1', kind: 'VerticalPodAutoscaler', metadata: { name: 'v' }, spec: { targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' } } }),
      });
      assert.equal(vpa.status, 201, await vpa.text());
      const heartbeat = async () => {
        const r = await fetch(`${b.url}/api/v1/nodes`, { headers });
        const nodes = (await r.json()) as { items: NodeJson[] };
        const t = nodes.items[0]?.status?.conditions?.find((c) => c.type === 'Ready')?.lastHeartbeatTime;
        return t ? Date.parse(t) : undefined;
      };
      const first = await eventually(heartbeat, 20_000, 'a first node status report');
      // Two report periods later (simulated), a later report has landed and the API still answers.
      const later = await eventually(async () => {
        const t = await heartbeat();
        return t !== undefined && t >= first + 2 * statusReportMs ? t : undefined;
      }, 60_000, 'later node status reports');
      assert.ok(later > first);
    } finally {
      await b.close();
    }
  } finally {
    await etcd.stop();
  }
});
