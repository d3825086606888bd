// A Job deleted and created again under the same name before the Job controller looks at it (JobSet's restart does
// this with every Job) is a new Job: it does not inherit the pod failure backoff of the one it replaces.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../src/machinery/types.js';
import { useBonsai } from './http.js';
import { waitDeadline } from '../helpers/wait.js';

describe('Job recreated under the same name', () => {
  // The clock stands still: a pod failure's backoff (10 s) never runs out, so only a fresh Job creates a pod.
  const { env } = useBonsai({ clockSpeed: 0, cluster: { nodes: 0 } });

  const job = (): KObject => ({
    apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'again', namespace: 'default' },
    spec: { parallelism: 1, completions: 1, backoffLimit: 3, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] } } },
  } as KObject);

  async function until<T>(what: string, f: () => T | undefined): Promise<T> {
    const end = Date.now() + waitDeadline(10_000);
    for (;;) {
      const v = f();
      if (v) return v;
      if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  it('creates its pod at once, without the backoff of the pod that failed under the old Job', async () => {
    const reg = env.b.registry;
    const jobs = reg.find('batch', 'v1', 'jobs')!;
    const pods = reg.find('', 'v1', 'pods')!;
    const podsOf = (uid: string | undefined) => reg.list(pods, 'default', { labelSelector: `batch.kubernetes.io/controller-uid=${uid}` }).items;
    const first = await reg.create(jobs, 'default', job());
    const pod = await until('the first pod', () => podsOf(first.metadata.uid)[0]);
    // Its pod fails (no node runs it: the test writes what a kubelet would): the controller records the failure.
    await reg.update(pods, 'default', pod.metadata.name!, (cur) => ({ ...cur, status: { ...(cur.status as object), phase: 'Failed' } } as KObject), { subresource: 'status' });
    await until('the failure counted', () => (reg.get(jobs, 'default', 'again').status as { failed?: number } | undefined)?.failed === 1 || undefined);
    // The replacement waits for the backoff on the standing clock.
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(podsOf(first.metadata.uid).filter((p) => (p.status as { phase?: string } | undefined)?.phase !== 'Failed').length, 0, 'no replacement pod during the backoff');
    // Deleted and created again in one go: the controller sees only the new Job.
    const deleted = reg.delete(jobs, 'default', 'again', { propagationPolicy: 'Background' });
    const created = reg.create(jobs, 'default', job());
    await deleted;
    const second = await created;
    assert.notEqual(second.metadata.uid, first.metadata.uid);
    await until('the new Job\'s pod', () => podsOf(second.metadata.uid)[0]);
  });
});
