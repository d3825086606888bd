// apiregistration.k8s.io/v1 APIService, as kube-aggregator serves it: one per group version, either Local (served by
// this server) or backed by a Service (an aggregated API server such as metrics-server). Local ones are kept in
// step with what the registry serves (kube-apiserver's autoregister controller); availability is set as the
// aggregator's available-condition controller sets it.
import { fieldInvalid, fieldNotSupported, fieldRequired, type FieldError } from '../../machinery/errors.js';
import { isRecord, type KObject } from '../../machinery/types.js';
import { rfc3339 } from '../../util/clock.js';
import type { Registry } from '../registry.js';
import { servedVersions, storageKey, type ResourceDef, type StrategyContext, type StrategyRegistry } from '../resource.js';
import { ApiError } from '../../machinery/errors.js';
import { isDns1035Label, isDns1123Subdomain, nameIsPathSegment } from '../../machinery/names.js';
import { apiServicePrinter } from '../tables/apiregistration.js';

const apiRegistrationGroup = 'apiregistration.k8s.io';
/** The label autoregister puts on the APIServices it manages (`onstart`: those of the server's own groups). */
const autoManagedLabel = 'kube-aggregator.kubernetes.io/automanaged';

/** kube-apiserver's priorities per group version (spec.groupPriorityMinimum, spec.versionPriority). */
const priorities: Record<string, [number, number]> = {
  'v1': [18000, 1],
  'apps/v1': [17800, 15],
  'events.k8s.io/v1': [17750, 15],
  'authentication.k8s.io/v1': [17700, 15],
  'authorization.k8s.io/v1': [17600, 15],
  'autoscaling/v1': [17500, 15],
  'autoscaling/v2': [17500, 30],
  'batch/v1': [17400, 15],
  'certificates.k8s.io/v1': [17300, 15],
  'networking.k8s.io/v1': [17200, 15],
  'policy/v1': [17100, 15],
  'rbac.authorization.k8s.io/v1': [17000, 15],
  'storage.k8s.io/v1': [16800, 15],
  'apiextensions.k8s.io/v1': [16700, 15],
  'admissionregistration.k8s.io/v1': [16700, 15],
  'scheduling.k8s.io/v1': [16600, 15],
  'coordination.k8s.io/v1': [16500, 15],
  'node.k8s.io/v1': [16300, 15],
  'discovery.k8s.io/v1': [16200, 15],
  'flowcontrol.apiserver.k8s.io/v1': [16100, 21],
};
/** What the CRD registration controller gives custom resources' group versions. */
const customPriority: [number, number] = [1000, 100];

const spec = (o: KObject): Record<string, unknown> => (isRecord(o.spec) ? o.spec : {});
const service = (o: KObject): Record<string, unknown> | undefined => (isRecord(spec(o).service) ? (spec(o).service as Record<string, unknown>) : undefined);

/**
 * APIs a built-in handler serves in place of an aggregated API server: Bonsai's metrics.k8s.io stands for
 * metrics-server, and is registered as metrics-server's manifest registers it.
 */
const builtInAggregated = [
  { group: 'metrics.k8s.io', version: 'v1beta1', service: { namespace: 'kube-system', name: 'metrics-server', port: 443 }, labels: { 'k8s-app': 'metrics-server' }, versionPriority: 100 },
  // The simulated metrics adapter (src/metrics-apis/), registered as custom-metrics-apiserver's deployment does.
  ...[['custom.metrics.k8s.io', 'v1beta2', 200], ['custom.metrics.k8s.io', 'v1beta1', 100], ['external.metrics.k8s.io', 'v1beta1', 100]].map(([group, version, versionPriority]) => ({
    group: group as string, version: version as string, service: { namespace: 'custom-metrics', name: 'custom-metrics-apiserver', port: 443 }, labels: { app: 'custom-metrics-apiserver' }, versionPriority: versionPriority as number,
  })),
];

type GroupVersion = Readonly<{ group: string; version: string }>;

/** servedGroupVersions per definition list: a registry's views share its `defs`, which never change. */
const servedByDefs = new WeakMap<readonly ResourceDef[], readonly GroupVersion[]>();

/** Group versions served here, core first, in the registry's order. */
function servedGroupVersions(reg: StrategyRegistry): readonly GroupVersion[] {
  const cached = servedByDefs.get(reg.defs);
  if (cached) return cached;
  const seen = new Set<string>();
  const out: GroupVersion[] = [];
  for (const d of reg.defs) {
    for (const version of servedVersions(d)) {
      const gv = `${d.group}/${version}`;
      if (!seen.has(gv)) seen.add(gv), out.push({ group: d.group, version });
    }
  }
  out.push(...builtInAggregated.map(({ group, version }) => ({ group, version })));
  servedByDefs.set(reg.defs, out);
  return out;
}

/** Whether this server answers for `group/version` itself. */
function servedHere(reg: StrategyRegistry, group: string, version: string): boolean {
  return servedGroupVersions(reg).some((gv) => gv.group === group && gv.version === version);
}

/**
 * The group versions of APIServices backed by a Service that this server does not serve itself: nothing answers for
 * them (no aggregated API server runs in Bonsai, e.g. kueue's visibility API), so discovery lists them as stale and
 * their paths answer 503, as kube-aggregator does for an unavailable APIService.
 */
export function unavailableAggregated(reg: Registry): { group: string; version: string }[] {
  const out: { group: string; version: string }[] = [];
  for (const o of reg.listStored(storageKey(apiServices), '')) {
    const s = spec(o);
    const group = typeof s.group === 'string' ? s.group : '';
    const version = typeof s.version === 'string' ? s.version : '';
    if (service(o) && group && version && !servedHere(reg, group, version)) out.push({ group, version });
  }
  return out;
}

export function isUnavailableAggregated(reg: Registry, group: string, version: string | undefined): boolean {
  return !!version && unavailableAggregated(reg).some((gv) => gv.group === group && gv.version === version);
}

/** The Available condition the aggregator would report. */
function availability(reg: StrategyRegistry, o: KObject): { status: string; reason: string; message: string } {
  const s = spec(o);
  const svc = service(o);
  const served = servedHere(reg, String(s.group ?? ''), String(s.version ?? ''));
  if (!svc) return served ? { status: 'True', reason: 'Local', message: 'Local APIServices are always available' } : { status: 'False', reason: 'Local', message: 'no API is served for this group version' };
  if (served) return { status: 'True', reason: 'Passed', message: 'all checks passed' };
  const [ns, name] = [String(svc.namespace ?? ''), String(svc.name ?? '')];
  if (!reg.getStored('core/services', ns, name)) return { status: 'False', reason: 'ServiceNotFound', message: `service/${name} in "${ns}" is not present` };
  return { status: 'False', reason: 'FailedDiscoveryCheck', message: `failing or missing response from https://${name}.${ns}.svc:${String(svc.port ?? 443)}/apis/${String(s.group)}/${String(s.version)}: no aggregated API server runs in Bonsai` };
}

/** Sets status.conditions[Available], keeping its transition time while its status stays the same. */
function setAvailable(o: KObject, ctx: StrategyContext): void {
  const a = availability(ctx.registry, o);
  const status = isRecord(o.status) ? o.status : {};
  const old = Array.isArray(status.conditions) ? (status.conditions as Array<Record<string, unknown>>).find((c) => isRecord(c) && c.type === 'Available') : undefined;
  const since = old && old.status === a.status && typeof old.lastTransitionTime === 'string' ? old.lastTransitionTime : rfc3339(ctx.clock.now());
  o.status = { ...status, conditions: [{ type: 'Available', status: a.status, lastTransitionTime: since, reason: a.reason, message: a.message }] };
}

function defaults(o: KObject): void {
  const svc = service(o);
  if (svc && svc.port === undefined) svc.port = 443;
}

function validateAPIService(o: KObject): FieldError[] {
  const errs: FieldError[] = [];
  const s = spec(o);
  const group = typeof s.group === 'string' ? s.group : '';
  const version = typeof s.version === 'string' ? s.version : '';
  const name = o.metadata.name ?? '';
  const required = `${version}.${group}`;
  if (name && name !== required) errs.push(fieldInvalid('metadata.name', name, `must be \`spec.version+"."+spec.group\`: ${JSON.stringify(required)}`));
  if (!group && version !== 'v1') errs.push(fieldRequired('spec.group', 'only v1 may have an empty group and it better be legacy kube'));
  if (group) for (const m of isDns1123Subdomain(group)) errs.push(fieldInvalid('spec.group', group, m));
  for (const m of isDns1035Label(version)) errs.push(fieldInvalid('spec.version', version, m));
  const gpm = typeof s.groupPriorityMinimum === 'number' ? s.groupPriorityMinimum : 0;
  if (gpm <= 0 || gpm > 20000) errs.push(fieldInvalid('spec.groupPriorityMinimum', gpm, 'must be positive and less than 20000'));
  const vp = typeof s.versionPriority === 'number' ? s.versionPriority : 0;
  if (vp <= 0 || vp > 1000) errs.push(fieldInvalid('spec.versionPriority', vp, 'must be positive and less than 1000'));
  const ca = typeof s.caBundle === 'string' ? Buffer.from(s.caBundle, 'base64').length : 0;
  const svc = service(o);
  if (!svc) {
    if (ca) errs.push(fieldInvalid('spec.caBundle', `${ca} bytes`, 'local APIServices may not have a caBundle'));
    if (s.insecureSkipTLSVerify === true) errs.push(fieldInvalid('spec.insecureSkipTLSVerify', true, 'local APIServices may not have insecureSkipTLSVerify'));
  } else {
    if (!svc.namespace) errs.push(fieldRequired('spec.service.namespace'));
    if (!svc.name) errs.push(fieldRequired('spec.service.name'));
    if (s.insecureSkipTLSVerify === true && ca) errs.push(fieldInvalid('spec.insecureSkipTLSVerify', true, 'may not be true if caBundle is present'));
  }
  const conditions = isRecord(o.status) && Array.isArray(o.status.conditions) ? o.status.conditions : [];
  conditions.forEach((c, i) => {
    const st = isRecord(c) ? c.status : undefined;
    if (st !== 'True' && st !== 'False' && st !== 'Unknown') errs.push(fieldNotSupported(`status.conditions[${i}].status`, st ?? '', ['True', 'False', 'Unknown']));
  });
  return errs;
}

export const apiServices: ResourceDef = {
  group: apiRegistrationGroup, version: 'v1', kind: 'APIService', plural: 'apiservices', singular: 'apiservice',
  namespaced: false, categories: ['api-extensions'], subresources: ['status'],
  prepareCreate: (o, ctx) => {
    defaults(o);
    setAvailable(o, ctx);
  },
  prepareUpdate: (o, _old, ctx) => {
    defaults(o);
    setAvailable(o, ctx);
  },
  validate: (o) => validateAPIService(o),
  nameValidation: nameIsPathSegment,
  table: apiServicePrinter,
};

/** The APIServices of the group versions this server serves, as kube-apiserver's autoregister controller makes them. */
function localAPIServices(reg: Registry): KObject[] {
  return servedGroupVersions(reg).filter((gv) => gv.group !== apiRegistrationGroup).map(({ group, version }) => {
    const gv = group ? `${group}/${version}` : version;
    const [groupPriorityMinimum, versionPriority] = priorities[gv] ?? customPriority;
    const builtIn = builtInAggregated.find((b) => b.group === group && b.version === version);
    const s: Record<string, unknown> = builtIn
      ? { group, version, groupPriorityMinimum: 100, versionPriority: builtIn.versionPriority, insecureSkipTLSVerify: true, service: { ...builtIn.service } }
      : { group, version, groupPriorityMinimum, versionPriority };
    const labels: Record<string, string> = builtIn ? { ...builtIn.labels } : { [autoManagedLabel]: 'onstart' };
    return { apiVersion: `${apiRegistrationGroup}/v1`, kind: 'APIService', metadata: { name: `${version}.${group}`, labels }, spec: s };
  });
}

/**
 * Brings the stored APIServices in line with what is served: creates missing ones, restores the spec of those
 * this server manages, deletes managed ones whose group version is no longer served. Call it again whenever
 * the served resources change (custom resources).
 */
/** Done when it returns, or a promise on a store that waits (etcd). */
export function syncLocalAPIServices(reg: Registry): void | Promise<void> {
  const key = storageKey(apiServices);
  const want = localAPIServices(reg);
  const names = new Set(want.map((o) => o.metadata.name));
  const writes: Array<Promise<unknown>> = [];
  const tolerate = (write: () => unknown) => {
    const caught = (e: unknown) => {
      if (!(e instanceof ApiError && (e.code === 404 || e.code === 409))) throw e;
    };
    try {
      const r = write();
      if (r instanceof Promise) writes.push(r.catch(caught));
    } catch (e) {
      caught(e);
    }
  };
  for (const o of want) {
    const cur = reg.getStored(key, '', o.metadata.name ?? '');
    if (!cur) tolerate(() => reg.create(apiServices, '', o, { webhooks: false }));
    else if (JSON.stringify(cur.spec) !== JSON.stringify(o.spec)) tolerate(() => reg.update(apiServices, '', o.metadata.name ?? '', (c) => ({ ...c, spec: o.spec }), { webhooks: false }));
  }
  for (const cur of reg.listStored(key)) {
    if (cur.metadata.labels?.[autoManagedLabel] && !names.has(cur.metadata.name)) tolerate(() => reg.delete(apiServices, '', cur.metadata.name ?? '', { webhooks: false }));
  }
  if (writes.length) return Promise.all(writes).then(() => undefined);
}
