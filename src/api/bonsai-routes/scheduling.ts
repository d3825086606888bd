// GET /bonsai/v1/scheduling/namespaces/{ns}/pods/{name}: the scheduler's last decision on a pod, as it was made
// (see src/scheduler/decisions.ts). Whoever may `get` the pod may read it.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../machinery/errors.js';
import type { Registry } from '../../registry/registry.js';
import { decisionLogFor, explain } from '../../scheduler/decisions.js';
import { authorize } from './authorize.js';

interface Params {
  ns: string;
  name: string;
}

export function noDecision(ns: string, name: string): ApiError {
  return new ApiError(404, 'NotFound', `no scheduling decision is kept for pod "${name}" in namespace "${ns}"`, { name, kind: 'pods' });
}

export function serveExplanation(reg: Registry, req: FastifyRequest, reply: FastifyReply): void {
  const { ns, name } = req.params as Params;
  authorize(reg, req, { verb: 'get', group: '', version: 'v1', resource: 'pods', namespace: ns, name });
  const d = decisionLogFor(reg.clock).get(ns, name);
  if (!d) throw noDecision(ns, name);
  reply.header('Cache-Control', 'no-store').type('application/json').send(JSON.stringify(explain(d)));
}
