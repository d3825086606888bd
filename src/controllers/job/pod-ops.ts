// The writes the Job controller makes to pods: create from the template (with the tracking finalizer and, for
// Indexed Jobs, the index), delete, and remove the tracking finalizer.
import type { Steps } from '../../util/steps.js';
import type { Job } from '../../generated/k8s/batch/v1.js';
import type { Pod, PodTemplateSpec } from '../../generated/k8s/core/v1.js';
import { isPodReady } from '../../machinery/conditions.js';
import type { KObject } from '../../machinery/types.js';
import type { Client } from '../../client/client.js';
import type { ResourceDef } from '../../client/types.js';
import type { PodControl } from '../workload/pod-control.js';
import { statusCode } from '../workload/pod-control.js';
import { hasTrackingFinalizer, trackingFinalizer } from './job-pods.js';

export class JobPodOps {
  readonly podsDef: ResourceDef;
  constructor(private readonly client: Client, readonly control: PodControl) {
    this.podsDef = client.resource('v1/pods')!;
  }

  /** Removes the tracking finalizer; true when it is gone (or the pod is). */
  *removeFinalizer(pod: Pod): Steps<boolean> {
    if (!hasTrackingFinalizer(pod)) return true;
    try {
      yield this.client.guaranteedUpdate(this.podsDef, pod.metadata?.namespace ?? '', pod.metadata?.name ?? '', (cur) => {
        if (cur.metadata.uid !== pod.metadata?.uid) throw Object.assign(new Error('pod replaced'), { code: 404 });
        return { ...cur, metadata: { ...cur.metadata, finalizers: (cur.metadata.finalizers ?? []).filter((f) => f !== trackingFinalizer) } };
      });
      return true;
    } catch (err) {
      return statusCode(err) === 404;
    }
  }

  /** Adds the tracking finalizer to an adopted pod; returns the pod as stored (unchanged when the write failed). */
  *addFinalizer(pod: Pod): Steps<Pod> {
    try {
      return (yield this.client.guaranteedUpdate<Pod>(this.podsDef, pod.metadata?.namespace ?? '', pod.metadata?.name ?? '', (cur) => {
        if (cur.metadata.uid !== pod.metadata?.uid || cur.metadata.deletionTimestamp || cur.metadata.finalizers?.includes(trackingFinalizer)) return cur;
        return { ...cur, metadata: { ...cur.metadata, finalizers: [...(cur.metadata.finalizers ?? []), trackingFinalizer] } };
      })) as Pod;
    } catch {
      return pod;
    }
  }

  /** Deletes pods (optionally dropping the finalizer first); returns how many went and how many of those were ready. */
  *deletePods(job: Job, pods: Pod[], dropFinalizer: boolean): Steps<{ deleted: number; deletedReady: number; error?: unknown }> {
    let deleted = 0;
    let deletedReady = 0;
    let error: unknown;
    for (const p of pods) {
      if (dropFinalizer && !(yield* this.removeFinalizer(p))) {
        error ??= new Error(`removing tracking finalizer from pod ${p.metadata?.name}`);
        continue;
      }
      try {
        yield* this.control.delete(job, p);
      } catch (err) {
        error ??= err;
        continue;
      }
      deleted++;
      if (isPodReady(p)) deletedReady++;
    }
    return { deleted, deletedReady, error };
  }

  /** Creates a pod from the (already prepared) template; undefined when the API refused it. Steps: see util/steps.ts. */
  *create(job: Job, template: PodTemplateSpec, generateName?: string): Steps<{ pod?: Pod; error?: unknown }> {
    try {
      return { pod: yield* this.control.create(job, template, generateName ? { generateName } : {}) };
    } catch (error) {
      return { error };
    }
  }
}
