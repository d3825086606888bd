// The container's filesystem, computed from the live objects at exec time: the image's skeleton, /etc/hostname,
// /etc/hosts and /etc/resolv.conf as the kubelet writes them, the service account token, and every volume mount
// (ConfigMap, Secret, downward API, projected; emptyDir and other writable volumes persist across sessions).
import type { Container, DownwardAPIVolumeFile, KeyToPath, Pod, Volume } from '../generated/k8s/core/v1.js';
import type { Client } from '../client/client.js';
import type { KObject } from '../machinery/types.js';
import { fieldValue, resourceValue, secretsOf } from './container-env.js';
import { simulatedToken } from './pod-token.js';
import { Vfs, dir, newQuota, resolvePath, type DirNode } from './vfs.js';
import { imageFiles } from './image-files.js';

export const clusterDomain = 'cluster.local';
export const clusterDnsIP = '10.96.0.10';

/** Writable directories kept between sessions, per pod and volume (bounded: the oldest are forgotten). */
export class WritableDirs {
  private readonly dirs = new Map<string, DirNode>();
  constructor(private readonly max = 500) {}
  get(key: string, mtimeMs: number): DirNode {
    let d = this.dirs.get(key);
    if (!d) {
      if (this.dirs.size >= this.max) this.dirs.delete(this.dirs.keys().next().value!);
      this.dirs.set(key, (d = dir(0o777, mtimeMs, newQuota())));
    }
    return d;
  }
}

function file(text: string | Buffer, mode: number, mtimeMs: number) {
  return { type: 'file' as const, data: typeof text === 'string' ? Buffer.from(text) : text, mode, mtimeMs };
}

export function hostsFile(pod: Pod): string {
  const lines = [
    '# Kubernetes-managed hosts file.', '127.0.0.1\tlocalhost', '::1\tlocalhost ip6-localhost ip6-loopback', 'fe00::0\tip6-localnet',
    'fe00::0\tip6-mcastprefix', 'fe00::1\tip6-allnodes', 'fe00::2\tip6-allrouters',
  ];
  const host = pod.spec?.hostname ?? pod.metadata?.name ?? '';
  const ip = pod.status?.podIP;
  if (ip) {
    const sub = pod.spec?.subdomain;
    lines.push(sub ? `${ip}\t${host}.${sub}.${pod.metadata?.namespace}.svc.${clusterDomain}\t${host}` : `${ip}\t${host}`);
  }
  const aliases = pod.spec?.hostAliases ?? [];
  if (aliases.length) {
    lines.push('', '# Entries added by HostAliases.');
    for (const a of aliases) lines.push(`${a.ip}\t${(a.hostnames ?? []).join('\t')}`);
  }
  return `${lines.join('\n')}\n`;
}

export function resolvConf(ns: string): string {
  return `search ${ns}.svc.${clusterDomain} svc.${clusterDomain} ${clusterDomain}\nnameserver ${clusterDnsIP}\noptions ndots:5\n`;
}

/** A token shaped as a service account JWT (its signature is not one the API server accepts). */

/** Files of a ConfigMap or Secret volume: all keys, or the listed items (missing keys skipped). */
function keyFiles(into: DirNode, data: Record<string, string> | undefined, items: KeyToPath[] | undefined, mode: number, mtimeMs: number): void {
  const fs = new Vfs(into);
  if (!data) return;
  if (!items?.length) {
    for (const [k, v] of Object.entries(data)) into.children.set(k, file(v, mode, mtimeMs));
    return;
  }
  for (const it of items) {
    if (!Object.prototype.hasOwnProperty.call(data, it.key) || !safeRelative(it.path)) continue;
    fs.put(`/${it.path}`, file(data[it.key], it.mode ?? mode, mtimeMs));
  }
}

function safeRelative(p: string): boolean {
  return !!p && !p.startsWith('/') && !p.split('/').includes('..') && p.length <= 4096;
}

function downwardFiles(into: DirNode, client: Client, pod: Pod, items: DownwardAPIVolumeFile[], mode: number, mtimeMs: number): void {
  const fs = new Vfs(into);
  const node = pod.spec?.nodeName ? client.get<KObject>('v1/nodes', '', pod.spec.nodeName) : undefined;
  const alloc = (node?.status as { allocatable?: Record<string, unknown> } | undefined)?.allocatable;
  for (const it of items) {
    if (!safeRelative(it.path)) continue;
    let v: string | undefined;
    if (it.fieldRef) v = fieldValue(pod, it.fieldRef.fieldPath);
    else if (it.resourceFieldRef) {
      const c = (pod.spec?.containers ?? []).find((x) => x.name === it.resourceFieldRef!.containerName);
      v = resourceValue(c, it.resourceFieldRef.resource, it.resourceFieldRef.divisor, alloc);
    }
    if (v !== undefined) fs.put(`/${it.path}`, file(v, it.mode ?? mode, mtimeMs));
  }
}

function volumeDir(client: Client, pod: Pod, v: Volume, writable: WritableDirs, mtimeMs: number): DirNode {
  const ns = pod.metadata?.namespace ?? 'default';
  if (v.configMap) {
    const d = dir(0o777, mtimeMs);
    keyFiles(d, secretsOf.configMapData(client, ns, v.configMap.name ?? ''), v.configMap.items, v.configMap.defaultMode ?? 0o644, mtimeMs);
    return d;
  }
  if (v.secret) {
    const d = dir(0o1777, mtimeMs);
    keyFiles(d, secretsOf.secretData(client, ns, v.secret.secretName ?? ''), v.secret.items, v.secret.defaultMode ?? 0o644, mtimeMs);
    return d;
  }
  if (v.downwardAPI) {
    const d = dir(0o777, mtimeMs);
    downwardFiles(d, client, pod, v.downwardAPI.items ?? [], v.downwardAPI.defaultMode ?? 0o644, mtimeMs);
    return d;
  }
  if (v.projected) {
    const d = dir(0o777, mtimeMs);
    const mode = v.projected.defaultMode ?? 0o644;
    for (const s of v.projected.sources ?? []) {
      if (s.configMap) keyFiles(d, secretsOf.configMapData(client, ns, s.configMap.name ?? ''), s.configMap.items, mode, mtimeMs);
      else if (s.secret) keyFiles(d, secretsOf.secretData(client, ns, s.secret.name ?? ''), s.secret.items, mode, mtimeMs);
      else if (s.downwardAPI) downwardFiles(d, client, pod, s.downwardAPI.items ?? [], mode, mtimeMs);
      else if (s.serviceAccountToken && safeRelative(s.serviceAccountToken.path)) new Vfs(d).put(`/${s.serviceAccountToken.path}`, file(simulatedToken(pod, mtimeMs), mode, mtimeMs));
    }
    return d;
  }
  // emptyDir, persistent volumes, hostPath...: writable, kept for the pod's life in this process.
  return writable.get(`${pod.metadata?.uid}/${v.name}`, mtimeMs);
}

/** The container's whole filesystem. */
export function containerFs(client: Client, pod: Pod, c: Container, writable: WritableDirs, commands: Iterable<string>, nowMs: number): Vfs {
  const started = Date.parse(pod.status?.startTime ?? '') || nowMs;
  const fs = new Vfs(dir(0o755, started));
  for (const d of ['/dev', '/proc', '/sys', '/usr/local/bin', '/usr/sbin', '/sbin', '/var/log', '/home', '/etc', '/root']) fs.mkdirp(d);
  const bin = fs.mkdirp('/bin');
  for (const name of commands) bin.children.set(name, file('', 0o755, started));
  fs.put('/tmp', writable.get(`${pod.metadata?.uid}/${c.name}/tmp`, started));
  const ns = pod.metadata?.namespace ?? 'default';
  fs.put('/etc/hostname', file(`${pod.spec?.hostname ?? pod.metadata?.name ?? ''}\n`, 0o644, started));
  fs.put('/etc/hosts', file(hostsFile(pod), 0o644, started));
  fs.put('/etc/resolv.conf', file(resolvConf(ns), 0o644, started));
  fs.put('/etc/passwd', file('root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/home:/bin/false\n', 0o644, started));
  fs.put('/etc/group', file('root:x:0:\nnobody:x:65534:\n', 0o644, started));
  for (const [path, text] of imageFiles(c.image ?? '')) fs.put(path, file(text, 0o644, started));
  const automount = pod.spec?.automountServiceAccountToken !== false;
  const mounts = c.volumeMounts ?? [];
  const saPath = '/var/run/secrets/kubernetes.io/serviceaccount';
  if (automount && !mounts.some((m) => m.mountPath === saPath)) {
    const sa = fs.mkdirp(saPath, 0o1777);
    const ca = client.get<KObject>('v1/configmaps', ns, 'kube-root-ca.crt')?.data as Record<string, string> | undefined;
    sa.children.set('token', file(simulatedToken(pod, started), 0o644, started));
    sa.children.set('ca.crt', file(ca?.['ca.crt'] ?? '', 0o644, started));
    sa.children.set('namespace', file(ns, 0o644, started));
  }
  const volumes = new Map((pod.spec?.volumes ?? []).map((v) => [v.name, v]));
  for (const m of mounts) {
    const v = volumes.get(m.name);
    if (!v || !m.mountPath?.startsWith('/')) continue;
    let node = volumeDir(client, pod, v, writable, started) as DirNode | ReturnType<typeof file>;
    if (m.subPath && safeRelative(m.subPath)) {
      const inner = new Vfs(node as DirNode).lookup(`/${m.subPath}`);
      node = inner ?? dir(0o755, started);
    }
    const path = resolvePath('/', m.mountPath);
    if (path !== '/') fs.put(path, m.readOnly && node.type === 'dir' && node.quota ? { ...node, quota: undefined } : node);
  }
  return fs;
}
