// Reading the objects lessons look at (pods, nodes, workloads) from their JSON, without trusting their shape.
import { isRecord } from '../machinery/types.js';
import type { Json, LessonApi, RemoveOptions } from './lesson-api.js';

export function rec(v: unknown): Json {
  return isRecord(v) ? v : {};
}
export function arr(v: unknown): Json[] {
  return Array.isArray(v) ? v.filter(isRecord) : [];
}
export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}
export function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}

export function nameOf(o: Json): string {
  return str(rec(o.metadata).name) ?? '';
}
export function annotationsOf(o: Json): Json {
  return rec(rec(o.metadata).annotations);
}
export function labelsOf(o: Json): Json {
  return rec(rec(o.metadata).labels);
}
export function isDeleting(o: Json): boolean {
  return rec(o.metadata).deletionTimestamp !== undefined;
}

/** The condition of `type` in status.conditions. */
export function condition(o: Json, type: string): Json | undefined {
  return arr(rec(o.status).conditions).find((c) => c.type === type);
}
export function conditionTrue(o: Json, type: string): boolean {
  return condition(o, type)?.status === 'True';
}

export function podNode(pod: Json): string | undefined {
  return str(rec(pod.spec).nodeName) || undefined;
}
export function podReady(pod: Json): boolean {
  return !isDeleting(pod) && conditionTrue(pod, 'Ready');
}
/** The names of the ReplicaSets (or other controllers) that own the object. */
export function ownerNames(o: Json): string[] {
  return arr(rec(o.metadata).ownerReferences).map((r) => str(r.name) ?? '');
}

/** Why a pod's container is failing (a waiting reason such as ImagePullBackOff, or a crash), or undefined. */
export function containerTrouble(pod: Json): string | undefined {
  for (const cs of arr(rec(pod.status).containerStatuses)) {
    const waiting = rec(rec(cs.state).waiting);
    const reason = str(waiting.reason);
    if (reason && reason !== 'ContainerCreating' && reason !== 'PodInitializing') return reason;
    const terminated = rec(rec(cs.state).terminated);
    if (terminated.exitCode !== undefined && num(terminated.exitCode) !== 0) return str(terminated.reason) ?? 'Error';
    if (num(cs.restartCount) > 0) return `restarted ${num(cs.restartCount)} time${num(cs.restartCount) === 1 ? '' : 's'}`;
  }
  return undefined;
}

/** Deletes the object if it exists and waits until it is gone. */
export async function removeAndWait(api: LessonApi, path: string, timeoutMs = 60_000, opts?: RemoveOptions): Promise<void> {
  if (!(await api.get(path))) return;
  await api.remove(path, opts);
  const deadline = Date.now() + timeoutMs;
  while (await api.get(path)) {
    if (Date.now() > deadline) throw new Error(`${path} is still there ${Math.round(timeoutMs / 1000)} s after its deletion; delete it and run the lesson again`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** One line a learner can paste into a shell (the JSON holds no single quote). */
export function applyCommand(manifest: Json): string {
  return `echo '${JSON.stringify(manifest)}' | kubectl apply -f -`;
}
