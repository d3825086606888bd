// Creating and deleting the pods a workload controller owns, with the events upstream's PodControl records
// (SuccessfulCreate / FailedCreate / SuccessfulDelete / FailedDelete on the owner).
import type { Pod, PodTemplateSpec } from '../../generated/k8s/core/v1.js';
import type { EventRecorder } from '../../client/event-recorder.js';
import type { KObject } from '../../machinery/types.js';
import type { Client } from '../../client/client.js';
import type { ResourceDef } from '../../client/types.js';
import { controllerRefTo } from './owner.js';
import type { Steps } from '../../util/steps.js';

export interface PodCreateOptions {
  /** A fixed name (StatefulSet); otherwise the pod gets generateName `<owner>-`. */
  name?: string;
  generateName?: string;
  /** Changes applied to the pod before it is created (labels, env, hostname, nodeAffinity...). */
  mutate?: (pod: Pod) => void;
}

/** A pod built from a template the way upstream's GetPodFromTemplate does: labels, annotations, finalizers, spec, controller ref. */
export function podFromTemplate(template: PodTemplateSpec | undefined, owner: KObject, opts: PodCreateOptions = {}): Pod {
  const t = structuredClone(template ?? {});
  const meta = t.metadata ?? {};
  const pod: Pod = {
    apiVersion: 'v1', kind: 'Pod',
    metadata: {
      ...(opts.name ? { name: opts.name } : { generateName: opts.generateName ?? `${owner.metadata.name}-` }),
      namespace: owner.metadata.namespace,
      ...(meta.labels ? { labels: { ...meta.labels } } : {}),
      ...(meta.annotations ? { annotations: { ...meta.annotations } } : {}),
      ...(meta.finalizers ? { finalizers: [...meta.finalizers] } : {}),
      ownerReferences: [controllerRefTo(owner)],
    },
    spec: t.spec ?? { containers: [] },
  };
  opts.mutate?.(pod);
  return pod;
}

export class PodControl {
  readonly podsDef: ResourceDef;
  constructor(private readonly client: Client, private readonly events: EventRecorder) {
    this.podsDef = client.resource('v1/pods')!;
  }

  /**
   * Creates a pod from the owner's template; records SuccessfulCreate or FailedCreate and rethrows failures. Steps:
   * the create waits (yields) only when an admission webhook is called for the pod, so a controller that drives its
   * sync with `drive` stays synchronous otherwise.
   */
  *create(owner: KObject, template: PodTemplateSpec | undefined, opts: PodCreateOptions = {}): Steps<Pod> {
    const pod = podFromTemplate(template, owner, opts);
    try {
      const r = this.client.create(this.podsDef, owner.metadata.namespace ?? '', pod);
      const created = (r instanceof Promise ? yield r : r) as Pod;
      this.events.event(owner, 'Normal', 'SuccessfulCreate', `Created pod: ${created.metadata?.name}`);
      return created;
    } catch (err) {
      this.events.event(owner, 'Warning', 'FailedCreate', `Error creating: ${errorMessage(err)}`);
      throw err;
    }
  }

  /** Deletes a pod the owner controls (precondition on its uid); a pod already gone is not an error. */
  *delete(owner: KObject, pod: Pod, gracePeriodSeconds?: number): Steps<boolean> {
    const name = pod.metadata?.name ?? '';
    try {
      yield this.client.delete(this.podsDef, owner.metadata.namespace ?? '', name, { preconditions: { uid: pod.metadata?.uid }, ...(gracePeriodSeconds !== undefined ? { gracePeriodSeconds } : {}) });
      this.events.event(owner, 'Normal', 'SuccessfulDelete', `Deleted pod: ${name}`);
      return true;
    } catch (err) {
      if (statusCode(err) === 404 || statusCode(err) === 409) return false;
      this.events.event(owner, 'Warning', 'FailedDelete', `Error deleting: ${errorMessage(err)}`);
      throw err;
    }
  }
}

export function statusCode(err: unknown): number | undefined {
  const e = err as { status?: { code?: number }; code?: number; statusCode?: number } | undefined;
  return e?.status?.code ?? e?.statusCode ?? (typeof e?.code === 'number' ? e.code : undefined);
}

export function errorMessage(err: unknown): string {
  const e = err as { status?: { message?: string }; message?: string } | undefined;
  return e?.status?.message ?? e?.message ?? String(err);
}
