// Builders of nodes and pods for the scheduler unit tests.
import type { Node, Pod } from '../../src/generated/k8s/core/v1.js';
import type { Lookups } from '../../src/scheduler/framework.js';
import { NodeInfo } from '../../src/scheduler/node-info.js';
import { buildPodInfo } from '../../src/scheduler/pod-info.js';

type Json = Record<string, any>;

export function mkNode(name: string, o: { labels?: Record<string, string>; alloc?: Record<string, string>; taints?: Json[]; unschedulable?: boolean } = {}): NodeInfo {
  const n = new NodeInfo(name);
  const allocatable = { cpu: '4', memory: '8Gi', pods: '110', ...o.alloc };
  n.setNode({ metadata: { name, labels: { 'kubernetes.io/hostname': name, ...o.labels } }, spec: { taints: o.taints, unschedulable: o.unschedulable }, status: { allocatable } } as Node);
  return n;
}

let seq = 0;
export function mkPod(name: string, o: { ns?: string; labels?: Record<string, string>; requests?: Record<string, string>; spec?: Json; priority?: number } = {}): Pod {
  return {
    metadata: { name, namespace: o.ns ?? 'default', uid: `uid-${name}-${seq++}`, labels: o.labels ?? {}, creationTimestamp: '2026-01-01T00:00:00Z' },
    spec: { containers: [{ name: 'c', image: 'x', resources: { requests: o.requests ?? {} } }], priority: o.priority ?? 0, ...o.spec },
  } as Pod;
}

export const lookups: Lookups = { nsLabels: () => undefined, defaultSelector: () => undefined };

export function place(n: NodeInfo, p: Pod): void {
  n.addPod(buildPodInfo({ ...p, spec: { ...p.spec!, nodeName: n.name } }));
}

