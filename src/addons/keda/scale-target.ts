// A ScaledObject's target through its scale subresource: the resource a scaleTargetRef names (any kind that serves
// /scale: Deployment, StatefulSet, a custom resource with a scale subresource), its replicas and selector, and writes
// of spec.replicas as a PUT of the Scale would make them (admission sees an autoscaling/v1 Scale).
import type { Client } from '../../client/client.js';
import { formatLabelSelector } from '../../machinery/labels.js';
import type { KObject, LabelSelector } from '../../machinery/types.js';

/** A served resource, as the client describes it. */
export type ResourceDef = NonNullable<ReturnType<Client['resource']>>;

export interface Gvkr {
  group: string;
  version: string;
  kind: string;
  resource: string;
}

export interface ScaleView {
  replicas: number;
  statusReplicas: number;
  selector: string;
}

export class TargetError extends Error {
  constructor(message: string, readonly reason: 'parse' | 'notFound' | 'noScale') {
    super(message);
  }
}

/** The resource and its GVKR; throws a TargetError when the kind is not served or serves no /scale. */
export function resolveTarget(client: Client, apiVersion: string, kind: string): { def: ResourceDef; gvkr: Gvkr } {
  const parts = apiVersion.split('/');
  if (apiVersion === '' || parts.length > 2 || parts.some((p) => p === '')) throw new TargetError(`unexpected GroupVersion string: ${apiVersion}`, 'parse');
  const group = parts.length === 2 ? parts[0] : '';
  const version = parts[parts.length - 1];
  const def = client.resourceForKind(group, kind);
  if (!def) throw new TargetError(`no matches for kind "${kind}" in version "${apiVersion}"`, 'parse');
  return { def, gvkr: { group, version, kind, resource: def.plural } };
}

export const gvkString = (g: Gvkr) => `${g.group}/${g.version}.${g.kind}`;

function view(def: ResourceDef, obj: KObject): ScaleView {
  if (def.scale) {
    const s = def.scale.get(obj) as { spec?: { replicas?: number }; status?: { replicas?: number; selector?: string } };
    return { replicas: s.spec?.replicas ?? 0, statusReplicas: s.status?.replicas ?? 0, selector: s.status?.selector ?? '' };
  }
  const r = obj as { spec?: { replicas?: number; selector?: unknown }; status?: { replicas?: number } };
  const sel = r.spec?.selector;
  const selector = def.group === '' && def.plural === 'replicationcontrollers'
    ? Object.entries((sel ?? {}) as Record<string, string>).map(([k, v]) => `${k}=${v}`).join(',')
    : formatLabelSelector(sel as LabelSelector | undefined);
  return { replicas: r.spec?.replicas ?? 0, statusReplicas: r.status?.replicas ?? 0, selector };
}

/** The target's scale now; throws a TargetError (no object, or no /scale). */
export function getScale(client: Client, def: ResourceDef, namespace: string, name: string): ScaleView {
  const obj = client.get<KObject>(def, namespace, name);
  if (!obj) throw new TargetError(`${def.plural}${def.group ? `.${def.group}` : ''} "${name}" not found`, 'notFound');
  if (!def.subresources?.includes('scale')) throw new TargetError(`the server could not find the requested resource`, 'noScale');
  return view(def, obj);
}

/** Writes spec.replicas through the scale subresource's rules; returns the replicas before. */
export async function setScale(client: Client, def: ResourceDef, namespace: string, name: string, replicas: number): Promise<number> {
  let before = 0;
  await client.guaranteedUpdate(def, namespace, name, (cur) => {
    before = view(def, cur).replicas;
    if (def.scale) return def.scale.set(cur, replicas);
    return { ...cur, spec: { ...(cur.spec as object), replicas } };
  }, {
    fieldManager: 'keda',
    audit: { verb: 'update', subresource: 'scale' },
    admitAs: {
      subresource: 'scale', kind: { group: 'autoscaling', version: 'v1', kind: 'Scale' },
      view: (o: KObject) => ({ apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: o.metadata.name, namespace: o.metadata.namespace, uid: o.metadata.uid, resourceVersion: o.metadata.resourceVersion }, spec: { replicas: view(def, o).replicas }, status: { replicas: view(def, o).statusReplicas, selector: view(def, o).selector } }) as KObject,
    },
  });
  return before;
}
