// pods/log: text from the pod's simulated containers (a provider is installed by the kubelet simulation).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { badRequest } from '../machinery/errors.js';
import type { KObject } from '../machinery/types.js';
import type { Registry } from '../registry/registry.js';
import { query, str } from './query.js';

export type LogProvider = (pod: KObject, container: string) => string;
let provider: LogProvider | undefined;
export function setLogProvider(p: LogProvider | undefined): void {
  provider = p;
}

export function podLogs(reg: Registry, namespace: string, name: string, req: FastifyRequest, reply: FastifyReply): void {
  const pod = reg.get(reg.find('', 'v1', 'pods')!, namespace, name);
  const containers = ((pod.spec as { containers?: Array<{ name: string }> } | undefined)?.containers ?? []).map((c) => c.name);
  const q = query(req);
  let container = str(q, 'container');
  if (!container) {
    if (containers.length !== 1) throw badRequest(`a container name must be specified for pod ${name}, choose one of: [${containers.join(' ')}]`);
    container = containers[0];
  }
  if (!containers.includes(container)) throw badRequest(`container ${container} is not valid for pod ${name}`);
  if (!provider || !(pod.spec as { nodeName?: string }).nodeName) {
    throw badRequest(`container "${container}" in pod "${name}" is waiting to start: ContainerCreating`);
  }
  reply.type('text/plain').send(provider(pod, container));
}
