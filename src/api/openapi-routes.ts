// /openapi/v2 and /openapi/v3: the upstream documents for the groups we serve, plus the published custom
// resources, with content hashes.
import type { FastifyInstance } from 'fastify';
import { listCustomV3Paths, listV3Paths, v2DocumentBytes, v3DocumentBytes, v3DocumentHash } from '../openapi/documents.js';
import { negotiateV2, v2ETag, v2ProtobufBytes, V2_PROTOBUF_CONTENT_TYPE } from '../openapi/v2-protobuf.js';
import { notAcceptable, notFound } from '../machinery/errors.js';
import type { Registry } from '../registry/registry.js';
import { servedVersions } from '../registry/resource.js';
import { customOpenApiOf } from '../openapi/custom-store.js';

/** The static documents' paths for the built-in groups `reg` serves (recomputed when its resources change). */
function staticPaths(reg: Registry, all: string[]): string[] {
  const served = new Set<string>();
  for (const d of reg.defs) for (const v of servedVersions(d)) served.add(d.group ? `apis/${d.group}/${v}` : `api/${v}`);
  return all.filter((p) => served.has(p) || p === 'api' || p === 'apis' || p === 'version' || (p.startsWith('apis/') && p.split('/').length === 2 && [...served].some((s) => s.startsWith(`${p}/`))));
}

export function registerOpenApi(app: FastifyInstance, reg: Registry): void {
  const custom = customOpenApiOf(reg);
  let all: string[] | undefined;
  let builtin: string[] | undefined;
  reg.onDefsChanged(() => (builtin = undefined));
  const builtinPaths = () => (builtin ??= staticPaths(reg, (all ??= listV3Paths())));
  /** Every served v3 path: built-in group-versions, then custom ones (a custom document takes the place of a static one). */
  const paths = (): string[] => {
    const b = builtinPaths();
    const extra = listCustomV3Paths(custom).filter((p) => !b.includes(p));
    return extra.length ? [...b, ...extra] : b;
  };

  app.get('/openapi/v3', async (_req, reply) => {
    const out: Record<string, { serverRelativeURL: string }> = {};
    for (const p of paths()) out[p] = { serverRelativeURL: `/openapi/v3/${p}?hash=${v3DocumentHash(custom, p)}` };
    return reply.header('Content-Type', 'application/json').send({ paths: out });
  });
  app.get('/openapi/v3/*', async (req, reply) => {
    const p = (req.params as { '*': string })['*'];
    const bytes = builtinPaths().includes(p) || listCustomV3Paths(custom).includes(p) ? v3DocumentBytes(custom, p) : undefined;
    if (!bytes) throw notFound({ group: '', resource: 'openapi' }, p);
    const hash = v3DocumentHash(custom, p);
    const q = req.query as { hash?: string };
    reply.header('Cache-Control', q.hash === hash ? 'public, immutable' : 'no-cache, private');
    return reply.header('Etag', `"${hash}"`).header('Content-Type', 'application/json').send(bytes);
  });
  app.get('/openapi/v2', async (req, reply) => {
    const format = negotiateV2(req.headers.accept);
    reply.header('Vary', 'Accept');
    if (!format) {
      const status = notAcceptable('only application/json and application/com.github.proto-openapi.spec.v2.v1.0+protobuf are served');
      return reply.code(status.code).send(status.toStatus());
    }
    const etag = v2ETag(custom);
    reply.header('Etag', etag).header('Content-Type', format === 'json' ? 'application/json' : V2_PROTOBUF_CONTENT_TYPE);
    if (req.headers['if-none-match']?.split(',').some((t) => t.trim() === etag)) {
      return reply.code(304).send();
    }
    return reply.send(format === 'json' ? v2DocumentBytes(custom) : v2ProtobufBytes(custom));
  });
}
