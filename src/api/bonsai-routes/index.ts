// The dashboard's JSON paths under /bonsai/v1 (documented in docs/dashboard.md):
// scheduling explanations and time travel over the change log.
import type { FastifyInstance } from 'fastify';
import type { Registry } from '../../registry/registry.js';
import { historyPath, schedulingPrefix } from './paths.js';
import { serveExplanation } from './scheduling.js';
import { serveBounds, serveChanges, serveState } from './history.js';

export function registerBonsaiRoutes(app: FastifyInstance, reg: Registry): void {
  // Reads see only committed writes, as the API's own GETs.
  const committed = async () => {
    if (reg.store.hasPending()) await reg.store.committed();
  };
  app.get(`${schedulingPrefix}namespaces/:ns/pods/:name`, async (req, reply) => {
    await committed();
    serveExplanation(reg, req, reply);
    return reply;
  });
  app.get(historyPath, async (req, reply) => {
    await committed();
    serveBounds(reg, req, reply);
    return reply;
  });
  app.get(`${historyPath}/state`, async (req, reply) => {
    await committed();
    serveState(reg, req, reply);
    return reply;
  });
  app.get(`${historyPath}/changes`, async (req, reply) => {
    await committed();
    serveChanges(reg, req, reply);
    return reply;
  });
}
