// The volume controller: the PV controller's binding loop plus the simulated provisioner, one work queue for
// claims (`pvc:<ns>/<name>`) and volumes (`pv:<name>`). Claims without a class get the default class
// (retroactive default StorageClass assignment); WaitForFirstConsumer classes provision once a pod using the claim
// is scheduled (the node goes into volume.kubernetes.io/selected-node, as the scheduler would write it).
import type { PersistentVolume, PersistentVolumeClaim, Pod } from '../../generated/k8s/core/v1.js';
import { EventRecorder } from '../../client/event-recorder.js';
import type { KObject } from '../../machinery/types.js';
import type { Client } from '../../client/client.js';
import { splitKey } from '../../machinery/object-key.js';
import { defineController } from '../runtime/index.js';
import { bind, findMatchingVolume, getVolume, refersToClaim, syncVolume } from './binder.js';
import { ann, claimClassName, simulatedProvisioner, storageClass } from './classes.js';
import { provision } from './provisioner.js';

const pvcKey = 'v1/persistentvolumeclaims';

const pvcKeyOf = (ns: string | undefined, name: string | undefined) => `pvc:${ns}/${name}`;

/** The claims not bound yet (a free volume or a new class may fit them). */
const pendingClaims = (client: Client): string[] =>
  client.list<PersistentVolumeClaim>(pvcKey).filter((c) => c.status?.phase !== 'Bound').map((c) => pvcKeyOf(c.metadata?.namespace, c.metadata?.name));

export const volumeController = defineController({
  name: 'persistentvolume-binder',
  watches: [
    {
      resource: pvcKey,
      map: (c, { client }) => {
        const { namespace, name } = c.object.metadata;
        if (c.type !== 'DELETED') return [pvcKeyOf(namespace, name)];
        // The claim's own key too: its reconcile forgets the events told about it.
        return [pvcKeyOf(namespace, name), ...client.list<PersistentVolume>('v1/persistentvolumes')
          .filter((pv) => pv.spec?.claimRef?.namespace === namespace && pv.spec?.claimRef?.name === name).map((pv) => `pv:${pv.metadata?.name}`)];
      },
    },
    {
      resource: 'v1/persistentvolumes',
      map: (c, { client }) => {
        const pv = c.object as PersistentVolume;
        const keys = c.type !== 'DELETED' ? [`pv:${pv.metadata?.name}`] : [];
        const ref = pv.spec?.claimRef;
        if (ref?.name) keys.push(pvcKeyOf(ref.namespace, ref.name));
        else if (c.type !== 'DELETED') keys.push(...pendingClaims(client)); // a free volume may fit a waiting claim
        return keys;
      },
    },
    {
      resource: 'v1/pods',
      map: (c, { client }) => {
        const pod = c.object as Pod;
        if (c.type === 'DELETED' || !pod.spec?.nodeName) return [];
        const keys: string[] = [];
        for (const v of pod.spec.volumes ?? []) {
          if (!v.persistentVolumeClaim) continue;
          const claim = client.get<PersistentVolumeClaim>(pvcKey, pod.metadata?.namespace ?? '', v.persistentVolumeClaim.claimName);
          if (claim && claim.status?.phase !== 'Bound') keys.push(pvcKeyOf(pod.metadata?.namespace, v.persistentVolumeClaim.claimName));
        }
        return keys;
      },
    },
    { resource: 'storage.k8s.io/v1/storageclasses', when: (c) => c.type !== 'DELETED', map: (_c, { client }) => pendingClaims(client) },
  ],
  initialKeys: ({ client }) => [...client.list('v1/persistentvolumes').map((pv) => `pv:${pv.metadata.name}`), ...pendingClaims(client)],
  setup: ({ client }) => new VolumeReconciler(client),
});

class VolumeReconciler {
  private readonly events: EventRecorder;
  private readonly provisionerEvents: EventRecorder;
  /** `<ns>/<name>|uid|reason` of claim events already recorded, so a waiting claim gets each message once. */
  private readonly told = new Set<string>();

  constructor(private readonly client: Client) {
    this.events = new EventRecorder(client, { component: 'persistentvolume-controller' });
    this.provisionerEvents = new EventRecorder(client, { component: `${simulatedProvisioner}_bonsai-provisioner` });
  }

  async reconcile(key: string): Promise<void> {
    if (key.startsWith('pv:')) {
      const pv = getVolume(this.client, key.slice(3));
      if (pv) await syncVolume(this.client, pv);
      return;
    }
    const { namespace, name } = splitKey(key.slice(4));
    if (!this.claim(namespace, name)) {
      for (const k of this.told) if (k.startsWith(`${namespace}/${name}|`)) this.told.delete(k);
      return;
    }
    return this.syncClaim(namespace, name);
  }

  private tell(pvc: PersistentVolumeClaim, type: 'Normal' | 'Warning', reason: string, message: string, recorder = this.events): void {
    const k = `${pvc.metadata?.namespace}/${pvc.metadata?.name}|${pvc.metadata?.uid}|${reason}`;
    if (this.told.has(k)) return;
    this.told.add(k);
    recorder.event(pvc as KObject, type, reason, message);
  }

  private claim(ns: string, name: string): PersistentVolumeClaim | undefined {
    return this.client.get(pvcKey, ns, name) as PersistentVolumeClaim | undefined;
  }

  private async update(pvc: PersistentVolumeClaim, mutate: (c: PersistentVolumeClaim) => void): Promise<void> {
    const def = this.client.resource('v1/persistentvolumeclaims')!;
    await this.client.guaranteedUpdate(def, pvc.metadata?.namespace ?? '', pvc.metadata?.name ?? '', (cur) => {
      const c = structuredClone(cur) as PersistentVolumeClaim;
      mutate(c);
      return c as KObject;
    });
  }

  private async syncClaim(ns: string, name: string): Promise<void> {
    const pvc = this.claim(ns, name);
    if (!pvc || pvc.metadata?.deletionTimestamp || pvc.status?.phase === 'Lost') return;
    if (pvc.status?.phase === 'Bound') return this.checkBound(pvc);
    if (pvc.spec?.volumeName) {
      const pv = getVolume(this.client, pvc.spec.volumeName);
      if (pv && (!pv.spec?.claimRef || refersToClaim(pv, pvc))) await bind(this.client, pv, pvc);
      return;
    }
    const prebound = (this.client.list('v1/persistentvolumes') as PersistentVolume[]).find((pv) => refersToClaim(pv, pvc) && !pv.metadata?.deletionTimestamp);
    if (prebound) return bind(this.client, prebound, pvc);
    const className = claimClassName(pvc);
    if (className === undefined) {
      const dc = this.client.services.defaultStorageClass();
      if (dc) await this.update(pvc, (c) => (c.spec = { ...c.spec, storageClassName: dc.metadata?.name }));
      else await this.bindStatic(pvc, 'no persistent volumes available for this claim and no storage class is set');
      return;
    }
    if (className === '') {
      await this.bindStatic(pvc, 'no persistent volumes available for this claim and no storage class is set');
      return;
    }
    const cls = storageClass(this.client, className);
    if (!cls) {
      if (!(await this.bindStatic(pvc))) this.tell(pvc, 'Warning', 'ProvisioningFailed', `storageclass.storage.k8s.io "${className}" not found`);
      return;
    }
    if (cls.volumeBindingMode === 'WaitForFirstConsumer' && !pvc.metadata?.annotations?.[ann.selectedNode]) {
      const node = this.consumerNode(pvc);
      if (!node) return this.tell(pvc, 'Normal', 'WaitForFirstConsumer', 'waiting for first consumer to be created before binding');
      await this.update(pvc, (c) => (c.metadata = { ...c.metadata, annotations: { ...(c.metadata?.annotations ?? {}), [ann.selectedNode]: node } }));
      return;
    }
    if (await this.bindStatic(pvc)) return;
    if (pvc.metadata?.annotations?.[ann.storageProvisioner] !== cls.provisioner) {
      await this.update(pvc, (c) => (c.metadata = {
        ...c.metadata, annotations: { ...(c.metadata?.annotations ?? {}), [ann.betaStorageProvisioner]: cls.provisioner, [ann.storageProvisioner]: cls.provisioner },
      }));
    }
    this.tell(pvc, 'Normal', 'ExternalProvisioning', `Waiting for a volume to be created either by the external provisioner '${cls.provisioner}' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.`);
    if (cls.provisioner !== simulatedProvisioner) return;
    const fresh = this.claim(ns, name) ?? pvc;
    const pv = await provision(this.client, this.provisionerEvents, fresh, cls);
    if (pv) await bind(this.client, pv, this.claim(ns, name) ?? fresh);
  }

  /** Binds to a fitting Available volume if there is one; otherwise records why the claim waits (when given). */
  private async bindStatic(pvc: PersistentVolumeClaim, waitMessage?: string): Promise<boolean> {
    const pv = findMatchingVolume(this.client, pvc);
    if (pv) {
      await bind(this.client, pv, pvc);
      return true;
    }
    if (waitMessage) this.tell(pvc, 'Normal', 'FailedBinding', waitMessage);
    return false;
  }

  /** The node of a scheduled pod that uses the claim. */
  private consumerNode(pvc: PersistentVolumeClaim): string | undefined {
    const pods = this.client.list('v1/pods', pvc.metadata?.namespace) as Pod[];
    return pods.find((p) => p.spec?.nodeName && !p.metadata?.deletionTimestamp && p.spec.volumes?.some((v) => v.persistentVolumeClaim?.claimName === pvc.metadata?.name))?.spec?.nodeName;
  }

  /** A bound claim whose volume vanished is Lost; a bound claim whose volume is not yet marked Bound gets it marked. */
  private async checkBound(pvc: PersistentVolumeClaim): Promise<void> {
    const pv = pvc.spec?.volumeName ? getVolume(this.client, pvc.spec.volumeName) : undefined;
    if (pv) {
      if (refersToClaim(pv, pvc) && pv.status?.phase !== 'Bound') await bind(this.client, pv, pvc);
      return;
    }
    const def = this.client.resource('v1/persistentvolumeclaims')!;
    await this.client.guaranteedUpdate(def, pvc.metadata?.namespace ?? '', pvc.metadata?.name ?? '', (cur) => ({ ...cur, status: { ...(cur.status as object ?? {}), phase: 'Lost' } }), { subresource: 'status' });
    this.events.event(pvc as KObject, 'Warning', 'ClaimLost', 'Bound claim has lost its PersistentVolume. Data on the volume is lost!');
  }
}
