// Marks the pods of a node that stopped reporting as not Ready (upstream's MarkPodsNotReady): their Ready
// condition turns False and each gets a NodeNotReady warning event.
import type { Pod } from '../generated/k8s/core/v1.js';
import type { EventRecorder } from '../client/event-recorder.js';
import type { KObject } from '../machinery/types.js';
import type { Client } from '../client/client.js';
import { rfc3339 } from '../util/clock.js';
import type { Logger } from '../util/logger.js';

/** Sets the Ready condition of the node's pods to False, as upstream's MarkPodsNotReady. */
export async function markPodsNotReady(client: Client, events: EventRecorder, log: Logger, pods: KObject[], nodeName: string): Promise<void> {
  const def = client.resource('v1/pods')!;
  const stamp = rfc3339(client.clock.now());
  for (const p of pods as Pod[]) {
    if (p.spec?.nodeName !== nodeName) continue;
    const ready = p.status?.conditions?.find((c) => c.type === 'Ready');
    if (!ready || ready.status === 'False') continue;
    try {
      await client.guaranteedUpdate(def, p.metadata?.namespace ?? '', p.metadata?.name ?? '', (cur) => {
        const st = (cur.status ?? {}) as { conditions?: Array<{ type: string; status: string; lastTransitionTime?: string }> };
        const conditions = (st.conditions ?? []).map((c) => (c.type === 'Ready' && c.status !== 'False' ? { ...c, status: 'False', lastTransitionTime: stamp } : c));
        return { ...cur, status: { ...st, conditions } };
      }, { subresource: 'status' });
      events.event(p as KObject, 'Warning', 'NodeNotReady', 'Node is not ready');
    } catch (err) {
      log.debug({ err, pod: p.metadata?.name }, 'marking pod not ready failed');
    }
  }
}
