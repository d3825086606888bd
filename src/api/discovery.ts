// Discovery: legacy (/api, /apis, per group-version resource lists) and aggregated v2 documents.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { notFoundFor, ServiceUnavailable } from './not-found.js';
import { isUnavailableAggregated, unavailableAggregated } from '../registry/resources/apiservices.js';
import type { Registry } from '../registry/registry.js';
import { allVerbs, servedVersions, type ResourceDef } from '../registry/resource.js';
import { metricsResources } from './metrics.js';
import { storageVersionHash } from './storage-version-hash.js';
import { compareKubeVersions } from '../machinery/version-priority.js';
import { adapterAggregatedResources, adapterGroups, adapterResources, isAdapterGroupVersion } from '../metrics-apis/discovery.js';

const aggregatedType = (v: string) => `application/json;g=apidiscovery.k8s.io;v=${v};as=APIGroupDiscoveryList`;

interface GroupInfo {
  name: string;
  versions: string[];
}

/** Stored resources and the computed ones (metrics.k8s.io) that have their own handler. */
const discoverable = (reg: Registry): ResourceDef[] => [...reg.defs, ...metricsResources];

function groups(reg: Registry): GroupInfo[] {
  const out = new Map<string, string[]>();
  const add = (group: string, v: string) => {
    const vs = out.get(group) ?? [];
    if (!vs.includes(v)) vs.push(v);
    out.set(group, vs);
  };
  for (const d of discoverable(reg)) {
    if (d.group === '') continue;
    for (const v of servedVersions(d)) add(d.group, v);
  }
  // APIServices nothing answers for are listed too (kube-aggregator lists every APIService), marked stale below.
  for (const gv of unavailableAggregated(reg)) add(gv.group, gv.version);
  // A group lists its versions by Kubernetes' version priority (v1 > v1beta2 > v1beta1 > v1alpha1), whatever order
  // its kinds were registered in, and the first is the preferred one; the metrics adapter's groups come last.
  return [...out.entries()].map(([name, versions]) => ({ name, versions: versions.sort(compareKubeVersions) })).concat(adapterGroups.map((g) => ({ name: g.name, versions: [...g.versions] })));
}

function defsOf(reg: Registry, group: string, version: string): ResourceDef[] {
  return discoverable(reg).filter((d) => d.group === group && servedVersions(d).includes(version));
}

const subresourceKinds: Record<string, { group: string; version: string; kind: string }> = {
  scale: { group: 'autoscaling', version: 'v1', kind: 'Scale' },
  eviction: { group: 'policy', version: 'v1', kind: 'Eviction' },
  binding: { group: '', version: 'v1', kind: 'Binding' },
  token: { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' },
};

function subVerbs(sub: string): string[] {
  if (sub === 'status' || sub === 'scale' || sub === 'ephemeralcontainers' || sub === 'resize' || sub === 'approval') return ['get', 'patch', 'update'];
  if (sub === 'binding' || sub === 'eviction' || sub === 'token') return ['create'];
  if (sub === 'log') return ['get'];
  if (sub === 'finalize') return ['update'];
  if (sub === 'proxy') return ['create', 'delete', 'get', 'patch', 'update'];
  return ['create', 'get'];
}

function subKind(def: ResourceDef, sub: string, version: string) {
  if (subresourceKinds[sub]) return subresourceKinds[sub];
  if (sub === 'log' || sub === 'exec' || sub === 'attach' || sub === 'portforward' || sub === 'proxy') {
    return { group: '', version: 'v1', kind: sub === 'exec' ? 'PodExecOptions' : sub === 'attach' ? 'PodAttachOptions' : sub === 'log' ? 'Pod' : sub === 'proxy' ? `${def.kind}ProxyOptions` : 'PodPortForwardOptions' };
  }
  return { group: def.group, version, kind: def.kind };
}

export function apiResourceList(reg: Registry, group: string, version: string): Record<string, unknown> {
  if (isUnavailableAggregated(reg, group, version)) throw new ServiceUnavailable();
  if (isAdapterGroupVersion(group, version)) return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: `${group}/${version}`, resources: adapterResources(reg, group, version) };
  const defs = defsOf(reg, group, version);
  if (!defs.length) throw notFoundFor(reg, group, version);
  const resources: Record<string, unknown>[] = [];
  for (const d of defs) {
    resources.push({
      name: d.plural, singularName: d.singular, namespaced: d.namespaced, kind: d.kind, verbs: d.verbs ?? allVerbs,
      ...(d.shortNames ? { shortNames: d.shortNames } : {}), ...(d.categories ? { categories: d.categories } : {}),
      ...(d.computed ? {} : { storageVersionHash: storageVersionHash(d) }),
    });
    for (const s of d.subresources ?? []) {
      const k = subKind(d, s, version);
      resources.push({ name: `${d.plural}/${s}`, singularName: '', namespaced: d.namespaced, ...(k.group !== group || k.version !== version ? { group: k.group, version: k.version } : {}), kind: k.kind, verbs: subVerbs(s) });
    }
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: group ? `${group}/${version}` : version, resources };
}

function aggregatedResource(d: ResourceDef, version: string): Record<string, unknown> {
  return {
    resource: d.plural, responseKind: { group: d.group, version, kind: d.kind }, scope: d.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: d.singular, verbs: d.verbs ?? allVerbs,
    ...(d.shortNames ? { shortNames: d.shortNames } : {}), ...(d.categories ? { categories: d.categories } : {}),
    ...(d.subresources?.length ? {
      subresources: d.subresources.map((s) => ({ subresource: s, responseKind: subKind(d, s, version), verbs: subVerbs(s) })),
    } : {}),
  };
}

function aggregatedVersion(reg: Registry, group: string, version: string, unavailable: Set<string>): Record<string, unknown> {
  // An APIService nothing answers for: its version is listed Stale without resources, which kubectl reports as
  // `stale GroupVersion discovery`.
  if (unavailable.has(`${group}/${version}`)) return { version, freshness: 'Stale' };
  const resources = isAdapterGroupVersion(group, version) ? adapterAggregatedResources(reg, group, version) : defsOf(reg, group, version).map((d) => aggregatedResource(d, version));
  return { version, resources, freshness: 'Current' };
}

function aggregated(reg: Registry, legacy: boolean, v: string): Record<string, unknown> {
  const unavailable = new Set(unavailableAggregated(reg).map((gv) => `${gv.group}/${gv.version}`));
  const items = legacy
    ? [{ metadata: { name: '', creationTimestamp: null }, versions: [{ version: 'v1', resources: defsOf(reg, '', 'v1').map((d) => aggregatedResource(d, 'v1')), freshness: 'Current' }] }]
    : groups(reg).map((g) => ({
      metadata: { name: g.name, creationTimestamp: null },
      versions: g.versions.map((ver) => aggregatedVersion(reg, g.name, ver, unavailable)),
    }));
  return { kind: 'APIGroupDiscoveryList', apiVersion: `apidiscovery.k8s.io/${v}`, metadata: {}, items };
}

function wantsAggregated(req: FastifyRequest): string | undefined {
  const accept = req.headers.accept ?? '';
  for (const part of accept.split(',')) {
    if (/g=apidiscovery\.k8s\.io/.test(part) && /as=APIGroupDiscoveryList/.test(part)) {
      const m = part.match(/v=(v2beta1|v2)\b/);
      if (m) return m[1];
    }
  }
  return undefined;
}

export function serveRootDiscovery(reg: Registry, legacy: boolean, req: FastifyRequest, reply: FastifyReply, serverAddress: string): void {
  const agg = wantsAggregated(req);
  if (agg) {
    // A Buffer, so that Fastify sends the media type verbatim (a string body gets it re-quoted with a charset).
    reply.header('Content-Type', aggregatedType(agg)).header('Vary', 'Accept').send(Buffer.from(`${JSON.stringify(aggregated(reg, legacy, agg))}\n`));
    return;
  }
  reply.header('Vary', 'Accept');
  if (legacy) {
    reply.send({ kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] });
    return;
  }
  reply.send({
    kind: 'APIGroupList', apiVersion: 'v1',
    groups: groups(reg).map((g) => ({
      name: g.name,
      versions: g.versions.map((v) => ({ groupVersion: `${g.name}/${v}`, version: v })),
      preferredVersion: { groupVersion: `${g.name}/${g.versions[0]}`, version: g.versions[0] },
    })),
  });
}

export function serveGroup(reg: Registry, group: string, reply: FastifyReply): void {
  const g = groups(reg).find((x) => x.name === group);
  if (!g) throw notFoundFor(reg, group, undefined);
  reply.send({
    kind: 'APIGroup', apiVersion: 'v1', name: g.name,
    versions: g.versions.map((v) => ({ groupVersion: `${g.name}/${v}`, version: v })),
    preferredVersion: { groupVersion: `${g.name}/${g.versions[0]}`, version: g.versions[0] },
  });
}
