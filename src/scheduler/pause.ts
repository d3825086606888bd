// Holding the scheduler back (a Bonsai extension, for benchmarks measured as upstream's scheduler_perf does: pods
// created ahead, then scheduling timed alone): while the ConfigMap kube-system/bonsai-scheduler has data.paused
// "true", the scheduler takes pods into its queue but binds none. Deleting it (or any other value) releases it.
import type { Client } from '../client/client.js';

export const pauseConfigMap = { namespace: 'kube-system', name: 'bonsai-scheduler' } as const;

/** Whether the ConfigMap holds the scheduler back now. */
export function schedulerPaused(client: Client): boolean {
  const cm = client.get('v1/configmaps', pauseConfigMap.namespace, pauseConfigMap.name) as { data?: Record<string, unknown> } | undefined;
  return cm?.data?.paused === 'true';
}

/** Calls `released` whenever the ConfigMap stops holding the scheduler back; returns the unsubscribe function. */
export function watchPause(client: Client, released: () => void): () => void {
  return client.watch('v1/configmaps', (c) => {
    if (c.object.metadata.namespace !== pauseConfigMap.namespace || c.object.metadata.name !== pauseConfigMap.name) return;
    if (!schedulerPaused(client)) released();
  });
}
