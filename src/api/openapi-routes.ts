// /openapi/v2 and /openapi/v3: the upstream documents for the groups we serve, with content hashes.
import type { FastifyInstance } from 'fastify';
import { listV3Paths, v2DocumentBytes, v3DocumentBytes, v3DocumentHash } from '../openapi/documents.js';
import { notFound } from '../machinery/errors.js';
import type { Registry } from '../registry/registry.js';
import { servedVersions } from '../registry/resource.js';

export function registerOpenApi(app: FastifyInstance, reg: Registry): void {
  const served = new Set<string>();
  for (const d of reg.defs) for (const v of servedVersions(d)) served.add(d.group ? `apis/${d.group}/${v}` : `api/${v}`);
  const paths = listV3Paths().filter((p) => served.has(p) || p === 'api' || p === 'apis' || p === 'version' || (p.startsWith('apis/') && p.split('/').length === 2 && [...served].some((s) => s.startsWith(`${p}/`))));
  let v2: Buffer | undefined;

  app.get('/openapi/v3', async (_req, reply) => {
    const out: Record<string, { serverRelativeURL: string }> = {};
    for (const p of paths) out[p] = { serverRelativeURL: `/openapi/v3/${p}?hash=${v3DocumentHash(p)}` };
    reply.header('Content-Type', 'application/json').send({ paths: out });
  });
  app.get('/openapi/v3/*', async (req, reply) => {
    const p = (req.params as { '*': string })['*'];
    const bytes = paths.includes(p) ? v3DocumentBytes(p) : undefined;
    if (!bytes) throw notFound({ group: '', resource: 'openapi' }, p);
    const hash = v3DocumentHash(p);
    const q = req.query as { hash?: string };
    reply.header('Cache-Control', q.hash === hash ? 'public, immutable' : 'no-cache, private');
    reply.header('Etag', `"${hash}"`).header('Content-Type', 'application/json').send(bytes);
  });
  app.get('/openapi/v2', async (req, reply) => {
    const accept = req.headers.accept ?? '';
    if (/protobuf/.test(accept) && !/json|\*\/\*/.test(accept)) {
      reply.code(406).send({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'only application/json is served', reason: 'NotAcceptable', code: 406 });
      return;
    }
    v2 ??= v2DocumentBytes();
    reply.header('Content-Type', 'application/json').send(v2);
  });
}
