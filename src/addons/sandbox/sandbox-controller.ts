// The Sandbox controller, as kubernetes-sigs/agent-sandbox's: a Sandbox owns one pod named after it (so its hostname
// is stable), the claims of its volumeClaimTemplates (`<template>-<sandbox>`, kept while it is suspended) and, when
// `spec.service` is true, a headless Service selecting the pod. Suspending (operatingMode Suspended, or v1alpha1
// `replicas: 0`) deletes the pod and keeps the claims; running again creates the pod with the same name and claims.
// `shutdownTime` expires it (pod and service deleted; the Sandbox too with shutdownPolicy Delete). Level-triggered.
import type { Client } from '../../client/client.js';
import type { KObject } from '../../machinery/types.js';
import { ApiError } from '../../machinery/errors.js';
import { defineController } from '../../controllers/runtime/index.js';
import { EventRecorder } from '../../client/event-recorder.js';
import { reportStatusWriteFailure } from '../status-write.js';
import { rfc3339, type Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import {
  annotations as ann, clusterDomain, controllerOf, isSuspended, isSystemKey, labels as lbl, nameHash, ownerReference, ownership, record,
  removeCondition, sandboxRef, setCondition, type Condition, type Sandbox,
} from './sandbox-types.js';
import { readyCondition, suspendedCondition, finishedCondition, scheduledCondition } from './sandbox-status.js';
import { splitKey } from '../../machinery/object-key.js';

const notFound = (e: unknown) => e instanceof ApiError && e.code === 404;

/** Sandboxes, and the pods, services and claims one controls. */
export const sandboxController = defineController({
  name: 'sandbox',
  for: sandboxRef,
  owns: ['v1/pods', 'v1/services', 'v1/persistentvolumeclaims'],
  setup: ({ client, clock, log }) => new SandboxController(client, clock, log),
});

class SandboxController {
  private readonly events: EventRecorder;

  constructor(private readonly client: Client, private readonly clock: Clock, private readonly log: Logger) {
    this.events = new EventRecorder(client, { component: 'sandbox-controller' });
  }

  async reconcile(key: string): Promise<number | void> {
    const { namespace: ns, name } = splitKey(key);
    const sb = this.client.get<Sandbox>(sandboxRef, ns, name);
    if (!sb || sb.metadata.deletionTimestamp) return;
    const hash = nameHash(name);
    const conditions: Condition[] = (sb.status?.conditions ?? []).map((c) => ({ ...c }));
    const status: NonNullable<Sandbox['status']> = { ...(sb.status ?? {}), conditions };
    const now = rfc3339(this.clock.now());
    const expiresIn = sb.spec?.shutdownTime ? Date.parse(sb.spec.shutdownTime) - this.clock.nowMs() : NaN;
    if (expiresIn <= 0) {
      if (await this.expire(sb)) return;
      const kept = { conditions };
      setCondition(kept.conditions, { type: 'Ready', status: 'False', reason: 'SandboxExpired', message: 'Sandbox has expired', observedGeneration: sb.metadata.generation }, now);
      await this.writeStatus(sb, kept);
      return;
    }
    let err: Error | undefined;
    try {
      await this.reconcileClaims(sb, hash);
    } catch (e) {
      err = e as Error;
    }
    let pod: KObject | undefined;
    try {
      pod = await this.reconcilePod(sb, hash);
    } catch (e) {
      err ??= e as Error;
      pod = this.client.get('v1/pods', ns, sb.metadata.annotations?.[ann.podName] || name);
    }
    const owned = pod && ownership(pod, sb) === 'owned';
    if (pod) status.selector = `${lbl.nameHash}=${hash}`;
    const ips = owned ? ((record(pod!.status).podIPs as Array<{ ip?: string }> | undefined) ?? []).map((p) => p.ip ?? '').filter(Boolean) : [];
    if (ips.length) status.podIPs = ips;
    else delete status.podIPs;
    const node = owned ? (record(pod!.spec).nodeName as string | undefined) : undefined;
    if (node) status.nodeName = node;
    else delete status.nodeName;
    let svc: KObject | undefined;
    try {
      svc = await this.reconcileService(sb, hash);
    } catch (e) {
      err ??= e as Error;
    }
    if (svc) {
      status.service = svc.metadata.name;
      status.serviceFQDN = `${svc.metadata.name}.${ns}.svc.${clusterDomain}`;
    } else {
      delete status.service;
      delete status.serviceFQDN;
    }
    // The controller writes v1beta1, whose status has no `replicas` (v1alpha1's, which upstream's conversion webhook
    // fills on the way out): a copy left by an earlier Bonsai goes.
    delete (status as Record<string, unknown>).replicas;
    const gen = sb.metadata.generation;
    setCondition(conditions, suspendedCondition(sb, pod, gen), now);
    const finished = finishedCondition(sb, pod, gen);
    if (finished) setCondition(conditions, finished, now);
    else removeCondition(conditions, 'Finished');
    const scheduled = scheduledCondition(sb, pod, gen);
    if (scheduled) setCondition(conditions, scheduled, now);
    else removeCondition(conditions, 'PodScheduled');
    setCondition(conditions, readyCondition(sb, err, svc, pod, gen), now);
    await this.writeStatus(sb, status);
    if (err) throw err;
    if (expiresIn > 0) return expiresIn;
  }

  private async writeStatus(sb: Sandbox, status: NonNullable<Sandbox['status']>): Promise<void> {
    if (JSON.stringify(sb.status ?? {}) === JSON.stringify(status)) return;
    try {
      await this.client.guaranteedUpdate(sandboxRef, sb.metadata.namespace ?? '', sb.metadata.name ?? '', (cur) => ({ ...cur, status }), { subresource: 'status' });
    } catch (e) {
      if (!notFound(e)) throw reportStatusWriteFailure(this.events, this.log, sb, e);
    }
  }

  private async reconcileClaims(sb: Sandbox, hash: string): Promise<void> {
    const ns = sb.metadata.namespace ?? '';
    for (const t of sb.spec?.volumeClaimTemplates ?? []) {
      const name = `${t.metadata?.name ?? ''}-${sb.metadata.name}`;
      const pvc = this.client.get('v1/persistentvolumeclaims', ns, name);
      if (pvc) {
        const o = ownership(pvc, sb);
        if (o === 'other') throw new Error(`PVC "${name}" is owned by ${controllerOf(pvc)!.kind}/${controllerOf(pvc)!.name} (UID: ${controllerOf(pvc)!.uid}), not by sandbox "${sb.metadata.name}"`);
        if (o === 'unowned') {
          if (pvc.metadata.labels?.['agents.x-k8s.io/adoptable'] !== 'true' && pvc.metadata.labels?.[lbl.nameHash] !== hash) {
            throw new Error(`cannot adopt unowned PVC "${name}": missing required pool authorization label ("agents.x-k8s.io/adoptable") or sandbox tracking label ("${lbl.nameHash}")`);
          }
          await this.client.guaranteedUpdate('v1/persistentvolumeclaims', ns, name, (cur) => ({ ...cur, metadata: { ...cur.metadata, ownerReferences: [...(cur.metadata.ownerReferences ?? []), ownerReference(sb)] } }));
        }
        continue;
      }
      await this.client.create('v1/persistentvolumeclaims', ns, {
        apiVersion: 'v1', kind: 'PersistentVolumeClaim',
        metadata: { name, namespace: ns, labels: { ...(t.metadata?.labels ?? {}), [lbl.nameHash]: hash }, ...(t.metadata?.annotations ? { annotations: { ...t.metadata.annotations } } : {}), ownerReferences: [ownerReference(sb)] },
        spec: structuredClone(t.spec ?? {}),
      });
    }
  }

  private async reconcilePod(sb: Sandbox, hash: string): Promise<KObject | undefined> {
    const ns = sb.metadata.namespace ?? '';
    const podName = sb.metadata.annotations?.[ann.podName] || (sb.metadata.name ?? '');
    let pod: KObject | undefined = this.client.get<KObject>('v1/pods', ns, podName);
    if (!pod && sb.metadata.annotations?.[ann.podName]) await this.setPodNameAnnotation(sb, undefined);
    if (!pod) {
      const owned = this.client.list('v1/pods', ns, { labelSelector: `${lbl.nameHash}=${hash}` }).filter((p) => ownership(p, sb) === 'owned');
      if (owned.length > 1) throw new Error(`multiple Pods (${owned.length}) are controlled by this Sandbox; refusing to choose or create a Pod`);
      pod = owned[0];
    }
    if (isSuspended(sb)) {
      if (pod && ownership(pod, sb) === 'owned' && !pod.metadata.deletionTimestamp) {
        try {
          await this.client.delete('v1/pods', ns, pod.metadata.name ?? '');
        } catch (e) {
          if (!notFound(e)) throw e;
        }
      }
      if (sb.metadata.annotations?.[ann.podName]) await this.setPodNameAnnotation(sb, undefined);
      return pod && this.client.get('v1/pods', ns, pod.metadata.name ?? '');
    }
    if (pod) {
      const o = ownership(pod, sb);
      const ref = controllerOf(pod);
      if (o === 'other') throw new Error(`pod "${pod.metadata.name}" is owned by ${ref!.kind}/${ref!.name} (UID: ${ref!.uid}), not by sandbox "${sb.metadata.name}"`);
      if (o === 'unowned') {
        if (pod.metadata.labels?.['agents.x-k8s.io/adoptable'] !== 'true' && pod.metadata.labels?.[lbl.nameHash] !== hash) {
          throw new Error(`cannot adopt unowned pod "${pod.metadata.name}": missing required pool authorization label ("agents.x-k8s.io/adoptable") or sandbox tracking label ("${lbl.nameHash}")`);
        }
        pod = (await this.client.guaranteedUpdate<KObject>('v1/pods', ns, pod.metadata.name ?? '', (cur) => ({
          ...cur, metadata: { ...cur.metadata, labels: { ...(cur.metadata.labels ?? {}), [lbl.nameHash]: hash }, ownerReferences: [...(cur.metadata.ownerReferences ?? []), ownerReference(sb)] },
        })));
      }
      if (!sb.metadata.annotations?.[ann.podName]) await this.setPodNameAnnotation(sb, pod?.metadata.name);
      return pod;
    }
    const created = await this.client.create('v1/pods', ns, this.podFor(sb, hash));
    await this.setPodNameAnnotation(sb, created.metadata.name);
    return created;
  }

  private podFor(sb: Sandbox, hash: string): KObject {
    const tmpl = sb.spec?.podTemplate ?? {};
    const podLabels: Record<string, string> = {};
    const labelKeys: string[] = [];
    for (const [k, v] of Object.entries(tmpl.metadata?.labels ?? {})) {
      if (isSystemKey(k)) continue;
      podLabels[k] = v;
      labelKeys.push(k);
    }
    podLabels[lbl.nameHash] = hash;
    const poolRef = controllerOf(sb);
    if (poolRef?.kind === 'SandboxWarmPool' && poolRef.apiVersion.startsWith('extensions.agents.x-k8s.io/')) podLabels[lbl.warmPool] = nameHash(poolRef.name);
    const podAnnotations: Record<string, string> = {};
    const annotationKeys: string[] = [];
    for (const [k, v] of Object.entries(tmpl.metadata?.annotations ?? {})) {
      if (isSystemKey(k)) continue;
      podAnnotations[k] = v;
      annotationKeys.push(k);
    }
    if (labelKeys.length) podAnnotations[ann.propagatedLabels] = labelKeys.sort().join(',');
    if (annotationKeys.length) podAnnotations[ann.propagatedAnnotations] = annotationKeys.sort().join(',');
    const spec = structuredClone(tmpl.spec ?? {}) as Record<string, unknown> & { volumes?: Array<{ name?: string }> };
    const claimVolumes = (sb.spec?.volumeClaimTemplates ?? []).map((t) => ({ name: t.metadata?.name ?? '', persistentVolumeClaim: { claimName: `${t.metadata?.name ?? ''}-${sb.metadata.name}` } }));
    if (claimVolumes.length) {
      const names = new Set(claimVolumes.map((v) => v.name));
      spec.volumes = [...(spec.volumes ?? []).filter((v) => !names.has(v.name ?? '')), ...claimVolumes];
    }
    return {
      apiVersion: 'v1', kind: 'Pod',
      metadata: { name: sb.metadata.name, namespace: sb.metadata.namespace, labels: podLabels, annotations: podAnnotations, ownerReferences: [ownerReference(sb)] },
      spec,
    };
  }

  private async setPodNameAnnotation(sb: Sandbox, podName: string | undefined): Promise<void> {
    const ns = sb.metadata.namespace ?? '';
    try {
      await this.client.guaranteedUpdate(sandboxRef, ns, sb.metadata.name ?? '', (cur) => {
        const a = { ...(cur.metadata.annotations ?? {}) };
        if (podName === undefined) delete a[ann.podName];
        else if (a[ann.podName]) return cur;
        else a[ann.podName] = podName;
        return { ...cur, metadata: { ...cur.metadata, annotations: a } };
      });
    } catch (e) {
      if (!notFound(e)) throw e;
    }
  }

  private async reconcileService(sb: Sandbox, hash: string): Promise<KObject | undefined> {
    const ns = sb.metadata.namespace ?? '';
    const name = sb.metadata.name ?? '';
    const want = sb.spec?.service;
    const svc = this.client.get('v1/services', ns, name);
    if (!svc) {
      if (want !== true) return undefined;
      return await this.client.create('v1/services', ns, {
        apiVersion: 'v1', kind: 'Service',
        metadata: { name, namespace: ns, labels: { [lbl.nameHash]: hash }, ownerReferences: [ownerReference(sb)] },
        spec: { clusterIP: 'None', selector: { [lbl.nameHash]: hash }, ...(servicePorts(sb).length ? { ports: servicePorts(sb) } : {}) },
      });
    }
    const o = ownership(svc, sb);
    if (want === false) {
      if (o === 'owned') await this.client.delete('v1/services', ns, name);
      return undefined;
    }
    if (o === 'other') {
      const ref = controllerOf(svc)!;
      throw new Error(`service "${name}" is owned by ${ref.kind}/${ref.name} (UID: ${ref.uid}), not by sandbox "${name}"`);
    }
    if (o === 'unowned') return want === undefined ? undefined : svc;
    return svc;
  }

  /** Deletes what an expired sandbox owns; true when the Sandbox itself went (shutdownPolicy Delete). */
  private async expire(sb: Sandbox): Promise<boolean> {
    const ns = sb.metadata.namespace ?? '';
    for (const [res, name] of [['v1/pods', sb.metadata.annotations?.[ann.podName] || sb.metadata.name], ['v1/services', sb.metadata.name]] as const) {
      const obj = this.client.get(res, ns, name ?? '');
      if (obj && ownership(obj, sb) === 'owned' && !obj.metadata.deletionTimestamp) {
        try {
          await this.client.delete(res, ns, name ?? '');
        } catch (e) {
          if (!notFound(e)) throw e;
        }
      }
    }
    if (sb.spec?.shutdownPolicy !== 'Delete') return false;
    try {
      await this.client.delete(sandboxRef, ns, sb.metadata.name ?? '');
    } catch (e) {
      if (!notFound(e)) throw e;
    }
    return true;
  }
}


/** The headless service's ports: each container port once (by port and protocol), named after it or `p-<port>-<proto>`. */
function servicePorts(sb: Sandbox): Array<{ name: string; protocol: string; port: number; targetPort: number }> {
  const spec = record(sb.spec?.podTemplate?.spec);
  const containers = [...(Array.isArray(spec.containers) ? spec.containers : []), ...(Array.isArray(spec.initContainers) ? spec.initContainers.filter((c) => record(c).restartPolicy === 'Always') : [])];
  const byKey = new Map<string, { port: number; protocol: string; name: string }>();
  const reserved = new Set<string>();
  for (const c of containers) {
    for (const p of Array.isArray(record(c).ports) ? (record(c).ports as unknown[]) : []) {
      const port = Number(record(p).containerPort);
      if (!port) continue;
      const protocol = String(record(p).protocol ?? 'TCP');
      const key = `${port}/${protocol}`;
      const entry = byKey.get(key) ?? { port, protocol, name: '' };
      byKey.set(key, entry);
      const pname = record(p).name;
      if (typeof pname === 'string' && pname && !entry.name && !reserved.has(pname)) {
        entry.name = pname;
        reserved.add(pname);
      }
    }
  }
  const sorted = [...byKey.values()].sort((a, b) => a.port - b.port || a.protocol.localeCompare(b.protocol));
  return sorted.map((e) => {
    let name = e.name;
    if (!name) {
      const base = `p-${e.port}-${e.protocol.toLowerCase()}`;
      name = base;
      for (let n = 2; reserved.has(name); n++) name = `${base}-${n}`;
      reserved.add(name);
    }
    return { name, protocol: e.protocol, port: e.port, targetPort: e.port };
  });
}
