// Service rules: ClusterIP allocation from 10.96.0.0/12, node ports from 30000-32767, kept across updates.
import type { Service } from '../../generated/k8s/core/v1.js';
import { fieldInvalid, invalid } from '../../machinery/errors.js';
import type { KObject } from '../../machinery/types.js';
import type { ResourceDef, StrategyContext } from '../resource.js';

const base = (10 << 24) | (96 << 16); // 10.96.0.0
const size = 1 << 20; // /12

const ipToInt = (ip: string) => ip.split('.').reduce((a, p) => (a << 8) | Number(p), 0) >>> 0;
const intToIp = (n: number) => [24, 16, 8, 0].map((s) => (n >>> s) & 255).join('.');

function usedIps(ctx: StrategyContext): Set<string> {
  const used = new Set<string>();
  for (const s of ctx.registry.listStored('core/services')) {
    const ip = (s as Service).spec?.clusterIP;
    if (ip) used.add(ip);
  }
  return used;
}

function allocateIp(ctx: StrategyContext): string {
  const used = usedIps(ctx);
  for (let i = 0; i < 64; i++) {
    const ip = intToIp(base + 10 + Math.floor(Math.random() * (size - 12)));
    if (!used.has(ip)) return ip;
  }
  for (let n = base + 2; n < base + size - 1; n++) if (!used.has(intToIp(n))) return intToIp(n);
  throw invalid('Service', '', '', [fieldInvalid('spec.clusterIPs', '', 'failed to allocate IP: range is full')]);
}

const nodePortRange = { min: 30000, max: 32767 };

/** Node ports held by the stored Services, leaving out the one named `skip` (`namespace/name`). */
function nodePortsInUse(ctx: StrategyContext, skip?: string): Set<number> {
  const used = new Set<number>();
  for (const s of ctx.registry.listStored('core/services')) {
    if (skip !== undefined && `${s.metadata.namespace ?? ''}/${s.metadata.name ?? ''}` === skip) continue;
    for (const p of (s as Service).spec?.ports ?? []) if (p.nodePort) used.add(p.nodePort);
  }
  return used;
}

/** A free port of the range: a few random picks, then the first free one. */
function allocateNodePort(taken: ReadonlySet<number>): number {
  const { min, max } = nodePortRange;
  for (let i = 0; i < 200; i++) {
    const p = min + Math.floor(Math.random() * (max - min + 1));
    if (!taken.has(p)) return p;
  }
  for (let p = min; p <= max; p++) if (!taken.has(p)) return p;
  throw invalid('Service', '', '', [fieldInvalid('spec.ports[0].nodePort', 0, 'range is full')]);
}

/**
 * Node ports a client chose: inside the service-node-port-range and not held by another Service, as the
 * allocator checks them (ports outside 1-65535 are left for validation to report).
 */
function checkRequestedNodePorts(svc: Service, ctx: StrategyContext): void {
  const ports = svc.spec?.ports ?? [];
  if (!ports.some((p) => p.nodePort)) return;
  const taken = nodePortsInUse(ctx, `${svc.metadata?.namespace ?? ''}/${svc.metadata?.name ?? ''}`);
  ports.forEach((p, i) => {
    const np = p.nodePort;
    if (typeof np !== 'number' || np < 1 || np > 65535) return;
    const path = `spec.ports[${i}].nodePort`;
    if (np < nodePortRange.min || np > nodePortRange.max) {
      throw invalid('Service', '', svc.metadata?.name ?? '', [fieldInvalid(path, np, `provided port is not in the valid range. The range of valid ports is ${nodePortRange.min}-${nodePortRange.max}`)]);
    }
    if (taken.has(np)) throw invalid('Service', '', svc.metadata?.name ?? '', [fieldInvalid(path, np, 'provided port is already allocated')]);
  });
}

function assign(svc: Service, ctx: StrategyContext): void {
  const spec = svc.spec;
  if (!spec || spec.type === 'ExternalName') return;
  const name = svc.metadata?.name ?? '';
  if (!spec.clusterIP) spec.clusterIP = allocateIp(ctx);
  else if (spec.clusterIP !== 'None') {
    const n = ipToInt(spec.clusterIP);
    if (!/^\d+\.\d+\.\d+\.\d+$/.test(spec.clusterIP) || n < base || n >= base + size) {
      throw invalid('Service', '', name, [fieldInvalid('spec.clusterIPs[0]', spec.clusterIP, 'provided IP is not in the valid range. The range of valid IPs is 10.96.0.0/12')]);
    }
  }
  spec.clusterIPs = [spec.clusterIP];
  if (spec.type === 'NodePort' || spec.type === 'LoadBalancer') {
    checkRequestedNodePorts(svc, ctx);
    // Taken: the stored Services' node ports (this one's stored version included) and those allocated so far.
    let taken: Set<number> | undefined;
    for (const p of spec.ports ?? []) {
      if (p.nodePort) continue;
      taken ??= nodePortsInUse(ctx);
      p.nodePort = allocateNodePort(taken);
      taken.add(p.nodePort);
    }
  }
}

export const serviceStrategy: Partial<ResourceDef> = {
  // The new Service's status is the kind's emptyStatus, `{ loadBalancer: {} }`.
  prepareCreate(obj: KObject, ctx) {
    assign(obj as Service, ctx);
  },
  prepareUpdate(obj, old, ctx) {
    const svc = obj as Service;
    const prev = old as Service;
    if (svc.spec && prev.spec) {
      svc.spec.clusterIP ||= prev.spec.clusterIP;
      svc.spec.clusterIPs ??= prev.spec.clusterIPs;
      for (const p of svc.spec.ports ?? []) {
        if (p.nodePort) continue;
        const match = prev.spec.ports?.find((q) => q.port === p.port && (q.protocol ?? 'TCP') === (p.protocol ?? 'TCP'));
        if (match?.nodePort && (svc.spec.type === 'NodePort' || svc.spec.type === 'LoadBalancer')) p.nodePort = match.nodePort;
      }
    }
    assign(svc, ctx);
  },
};
