// Simulated resource use of running containers: an annotation when set, otherwise derived from requests.
import type { Container, Pod } from '../generated/k8s/core/v1.js';
import type { KObject } from '../machinery/types.js';
import { quantityValue } from '../machinery/resources.js';
import { simAnnotation } from './annotations.js';

export interface ContainerUsage {
  name: string;
  /** Cores. */
  cpu: number;
  /** Bytes. */
  memory: number;
}

const idleCpu = 0.001;
const idleMemory = 4 * 2 ** 20;

/** Use of one container: the annotation, else 40% of its cpu request and 60% of its memory request, else a small idle figure; cpu at most its limit. */
export function containerUsage(pod: Pod, c: Container): ContainerUsage {
  const obj = pod;
  const cpuAnn = simAnnotation(obj, 'cpuUsage', c.name);
  const memAnn = simAnnotation(obj, 'memoryUsage', c.name);
  const req = (c.resources?.requests ?? {}) as Record<string, unknown>;
  const wanted = cpuAnn !== undefined ? quantityValue(cpuAnn) : req.cpu !== undefined ? quantityValue(req.cpu) * 0.4 : idleCpu;
  // A cpu limit throttles: the container never uses more than it.
  const lim = (c.resources?.limits ?? {}) as Record<string, unknown>;
  const cpu = lim.cpu !== undefined ? Math.min(wanted, quantityValue(lim.cpu)) : wanted;
  const memory = memAnn !== undefined ? quantityValue(memAnn) : req.memory !== undefined ? quantityValue(req.memory) * 0.6 : idleMemory;
  return { name: c.name, cpu, memory };
}
