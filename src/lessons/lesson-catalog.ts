// The lessons shipped with Bonsai, each loaded on first use.
import type { LessonFactory } from './lesson-types.js';

export interface CatalogEntry {
  name: string;
  summary: string;
  load(): Promise<LessonFactory>;
}

export const lessonCatalog: readonly CatalogEntry[] = [
  { name: 'rolling-update', summary: 'a Deployment rolled to a broken image: watch the rollout stall, inspect the failing pod, roll back', load: async () => (await import('./rolling-update.js')).default },
  { name: 'node-failure', summary: 'a node fails and its pods move; drain another node while a PodDisruptionBudget keeps the service up', load: async () => (await import('./node-failure.js')).default },
  { name: 'gpu-gang', summary: 'a gang of GPU pods that does not fit stays Pending whole, until you add a GPU node', load: async () => (await import('./gpu-gang.js')).default },
  { name: 'probes', summary: 'a readiness probe on the wrong port keeps a Service without endpoints; a liveness probe restarts containers', load: async () => (await import('./probes.js')).default },
  { name: 'jobset-failure-policy', summary: 'a JobSet restarted by a named failure-policy rule after an OOM kill, and failed at once by another', load: async () => (await import('./jobset-failure-policy.js')).default },
  { name: 'gpus-with-dra', summary: 'GPUs through DRA: a claim no GPU meets, one that fits, a claim shared by two pods, MIG slices', load: async () => (await import('./gpus-with-dra.js')).default },
  { name: 'lws-group', summary: 'a LeaderWorkerSet serving in groups: delete one worker and its whole group is recreated; scale by a group', load: async () => (await import('./lws-group.js')).default },
  { name: 'karpenter-consolidation', summary: 'Karpenter launches nodes for pending pods; scale down and consolidation removes them', load: async () => (await import('./karpenter-consolidation.js')).default },
  { name: 'keda-scale-to-zero', summary: 'KEDA scales a queue consumer to zero when its metric drops to 0, and back when work arrives', load: async () => (await import('./keda-scale-to-zero.js')).default },
  { name: 'vpa-in-place', summary: 'a VerticalPodAutoscaler recommends requests, then resizes running pods in place without a restart', load: async () => (await import('./vpa-in-place.js')).default },
];

export function findLesson(name: string): CatalogEntry | undefined {
  return lessonCatalog.find((l) => l.name === name);
}
