// The simulated cluster network as seen from inside a container: DNS from the cluster's own records (Services,
// headless Services' pods, `<ip-dashed>.<ns>.pod`, the pod's /etc/hosts) and connections to Service ClusterIPs
// (round robin over the ready endpoints of the Service's EndpointSlices) or pod IPs.
import type { Pod, Service } from '../generated/k8s/core/v1.js';
import type { EndpointSlice } from '../generated/k8s/discovery/v1.js';
import type { Client } from '../client/client.js';
import { clusterDomain } from './container-fs.js';

const ipv4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

export interface Resolved {
  name: string;
  addresses: string[];
}

/** Where a connection to an address and port lands. */
export type Target = { pod: Pod; port: number } | { error: 'refused' | 'unreachable' };

function liveEndpoints(client: Client, svc: Service, servicePort: number | undefined): { ns: string; name: string; ip: string; port: number; hostname?: string }[] {
  const ns = svc.metadata?.namespace ?? 'default';
  const sp = (svc.spec?.ports ?? []).find((p) => p.port === servicePort);
  const out: { ns: string; name: string; ip: string; port: number; hostname?: string }[] = [];
  const slices = client.list<EndpointSlice>('discovery.k8s.io/v1/endpointslices', ns, { labelSelector: `kubernetes.io/service-name=${svc.metadata?.name}` });
  for (const s of slices) {
    const port = sp ? (s.ports ?? []).find((p) => (p.name ?? '') === (sp.name ?? ''))?.port : servicePort;
    for (const e of s.endpoints ?? []) {
      if (e.conditions?.ready === false) continue;
      const ip = e.addresses?.[0];
      if (!ip) continue;
      out.push({ ns: e.targetRef?.namespace ?? ns, name: e.targetRef?.name ?? '', ip, port: port ?? servicePort ?? 80, hostname: e.hostname });
    }
  }
  out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return out;
}

export class Network {
  /** Round-robin positions per Service (bounded). */
  private readonly cursors = new Map<string, number>();
  constructor(private readonly client: Client) {}

  private services(): Service[] {
    return this.client.list<Service>('v1/services');
  }

  /** Resolves `name` from a pod in `ns`, with the resolv.conf search path (as nslookup and wget do). */
  resolve(name: string, self: Pod): Resolved | undefined {
    const ns = self.metadata?.namespace ?? 'default';
    const n = name.toLowerCase().replace(/\.$/, '');
    if (ipv4.test(n)) return { name: n, addresses: [n] };
    if (n === 'localhost') return { name: n, addresses: ['127.0.0.1'] };
    const host = self.spec?.hostname ?? self.metadata?.name;
    if (n === host && self.status?.podIP) return { name: n, addresses: [self.status.podIP] };
    const candidates = name.endsWith('.') ? [n] : [...[`${ns}.svc.${clusterDomain}`, `svc.${clusterDomain}`, clusterDomain].map((s) => `${n}.${s}`), n];
    for (const fqdn of candidates) {
      const addrs = this.lookupFqdn(fqdn);
      if (addrs?.length) return { name: fqdn, addresses: addrs };
    }
    return undefined;
  }

  private lookupFqdn(fqdn: string): string[] | undefined {
    const suffix = `.${clusterDomain}`;
    if (!fqdn.endsWith(suffix)) return undefined;
    const parts = fqdn.slice(0, -suffix.length).split('.');
    if (parts.length === 3 && parts[2] === 'pod') {
      const ip = parts[0].replace(/-/g, '.');
      return ipv4.test(ip) ? [ip] : undefined;
    }
    if (parts.length === 3 && parts[2] === 'svc') {
      const svc = this.client.get<Service>('v1/services', parts[1], parts[0]);
      if (!svc) return undefined;
      if (svc.spec?.type === 'ExternalName') return undefined;
      const ip = svc.spec?.clusterIP;
      if (ip && ip !== 'None') return [ip];
      return liveEndpoints(this.client, svc, undefined).map((e) => e.ip);
    }
    if (parts.length === 4 && parts[3] === 'svc') {
      const svc = this.client.get<Service>('v1/services', parts[2], parts[1]);
      if (!svc) return undefined;
      return liveEndpoints(this.client, svc, undefined).filter((e) => e.hostname === parts[0]).map((e) => e.ip);
    }
    return undefined;
  }

  /** The name PTR records give an address (for nslookup's answer lines), if any. */
  reverse(ip: string): string | undefined {
    const svc = this.services().find((s) => s.spec?.clusterIP === ip);
    if (svc) return `${svc.metadata?.name}.${svc.metadata?.namespace}.svc.${clusterDomain}`;
    const pod = this.podByIP(ip);
    return pod ? `${ip.replace(/\./g, '-')}.${pod.metadata?.namespace}.pod.${clusterDomain}` : undefined;
  }

  private podByIP(ip: string): Pod | undefined {
    return this.client.list<Pod>('v1/pods').find((p) => p.status?.podIP === ip && p.status.phase !== 'Succeeded' && p.status.phase !== 'Failed' && !p.spec?.hostNetwork);
  }

  /** Where a TCP connection to `ip:port` goes (a Service's ClusterIP picks its next ready endpoint). */
  connect(ip: string, port: number): Target {
    const svc = this.services().find((s) => s.spec?.clusterIP === ip);
    if (svc) {
      if (!(svc.spec?.ports ?? []).some((p) => p.port === port)) return { error: 'unreachable' };
      const eps = liveEndpoints(this.client, svc, port);
      if (!eps.length) return { error: 'refused' };
      const key = `${svc.metadata?.namespace}/${svc.metadata?.name}`;
      const i = (this.cursors.get(key) ?? 0) % eps.length;
      this.cursors.delete(key);
      if (this.cursors.size >= 1000) this.cursors.delete(this.cursors.keys().next().value!);
      this.cursors.set(key, i + 1);
      const pod = this.client.get<Pod>('v1/pods', eps[i].ns, eps[i].name) ?? this.podByIP(eps[i].ip);
      return pod ? { pod, port: eps[i].port } : { error: 'refused' };
    }
    const pod = this.podByIP(ip);
    if (!pod) return { error: 'unreachable' };
    return listens(pod, port) ? { pod, port } : { error: 'refused' };
  }
}

/** A pod answers on the ports its containers declare, or on any port when none is declared. */
export function listens(pod: Pod, port: number): boolean {
  const declared = (pod.spec?.containers ?? []).flatMap((c) => (c.ports ?? []).map((p) => p.containerPort));
  return !declared.length || declared.includes(port);
}
