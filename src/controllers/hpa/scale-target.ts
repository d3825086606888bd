// The HPA's view of its target through the scale subresource: spec.replicas, status.replicas and the label
// selector of the pods (Deployment, ReplicaSet, StatefulSet, ReplicationController, or any resource that serves
// /scale), and the write of a new spec.replicas through the registry, as a PUT of the Scale would do.
import { notFound } from '../../machinery/errors.js';
import type { CrossVersionObjectReference } from '../../generated/k8s/autoscaling/v2.js';
import { formatLabelSelector } from '../../machinery/labels.js';
import type { KObject, LabelSelector } from '../../machinery/types.js';
import type { Client } from '../../client/client.js';
import type { ResourceDef } from '../../client/types.js';

export interface Scale {
  def: ResourceDef;
  name: string;
  specReplicas: number;
  statusReplicas: number;
  /** Label selector string, as Scale.status.selector carries it ('' when the target has none). */
  selector: string;
}

/** `apps/v1` -> apps, `v1` -> core; anything else is not a group/version. */
export function groupOf(apiVersion: string | undefined): string {
  const v = apiVersion ?? '';
  const parts = v.split('/');
  if (v === '' || parts.length > 2 || parts.some((p) => p === '')) throw new Error(`unexpected GroupVersion string: ${v}`);
  return parts.length === 2 ? parts[0] : '';
}

/** The resource a scaleTargetRef names, or the error the REST mapper or the scale client would give. */
export function scaleResource(client: Client, ref: CrossVersionObjectReference): ResourceDef {
  const group = groupOf(ref.apiVersion);
  const def = client.resourceForKind(group, ref.kind);
  if (!def) throw new Error(`no matches for kind "${ref.kind}" in group "${group}"`);
  if (!def.subresources?.includes('scale')) throw new Error('the server could not find the requested resource');
  return def;
}

function selectorOf(def: ResourceDef, obj: KObject): string {
  const sel = (obj.spec as { selector?: unknown } | undefined)?.selector;
  if (def.group === '' && def.plural === 'replicationcontrollers') {
    return Object.entries((sel ?? {}) as Record<string, string>).map(([k, v]) => `${k}=${v}`).join(',');
  }
  return formatLabelSelector(sel as LabelSelector | undefined);
}

export function getScale(client: Client, namespace: string, ref: CrossVersionObjectReference): Scale {
  const def = scaleResource(client, ref);
  const obj = client.get(def, namespace, ref.name);
  if (!obj) throw notFound({ group: def.group, resource: def.plural }, ref.name);
  const r = obj as { spec?: { replicas?: number }; status?: { replicas?: number } };
  return { def, name: ref.name, specReplicas: r.spec?.replicas ?? 0, statusReplicas: r.status?.replicas ?? 0, selector: selectorOf(def, obj) };
}

/** Sets spec.replicas of the target (a no-op write is skipped by the registry's own comparison). */
export async function updateScale(client: Client, namespace: string, scale: Scale, replicas: number): Promise<void> {
  await client.guaranteedUpdate(scale.def, namespace, scale.name, (cur) => ({ ...cur, spec: { ...(cur.spec as object), replicas } }), { fieldManager: 'kube-controller-manager' });
}
