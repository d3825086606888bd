// NodeUnschedulable, NodeName and NodePorts: simple per-node filters.
import type { Failure, FilterPlugin } from '../framework.js';
import { tolerates } from '../../machinery/conditions.js';

const unschedulableTaint = { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' };

const unschedulable: Failure = { plugin: 'NodeUnschedulable', code: 'UnschedulableAndUnresolvable', reasons: ['node(s) were unschedulable'] };
export const nodeUnschedulable: FilterPlugin = {
  name: 'NodeUnschedulable',
  filter(s, n) {
    if (!n.unschedulable) return undefined;
    return s.pi.tolerations.some((t) => tolerates(t, unschedulableTaint)) ? undefined : unschedulable;
  },
};

const otherName: Failure = { plugin: 'NodeName', code: 'UnschedulableAndUnresolvable', reasons: ["node(s) didn't match the requested node name"] };
export const nodeName: FilterPlugin = {
  name: 'NodeName',
  filter(s, n) {
    const want = s.pi.pod.spec?.nodeName;
    return want && want !== n.name ? otherName : undefined;
  },
  skips: (s) => !s.pi.pod.spec?.nodeName,
};

/** Whether two `protocol/port/ip` host ports collide (the same port, and the same IP or a wildcard). */
export function portsConflict(a: string, b: string): boolean {
  const [pa, na, ia] = a.split('/');
  const [pb, nb, ib] = b.split('/');
  if (pa !== pb || na !== nb) return false;
  return ia === ib || ia === '0.0.0.0' || ib === '0.0.0.0';
}

const portsTaken: Failure = { plugin: 'NodePorts', code: 'Unschedulable', reasons: ["node(s) didn't have free ports for the requested pod ports"] };
export const nodePorts: FilterPlugin = {
  name: 'NodePorts',
  filter(s, n) {
    if (!s.pi.hostPorts.length || !n.usedPorts.size) return undefined;
    for (const want of s.pi.hostPorts) for (const used of n.usedPorts.keys()) if (portsConflict(want, used)) return portsTaken;
    return undefined;
  },
  skips: (s) => !s.pi.hostPorts.length,
};
