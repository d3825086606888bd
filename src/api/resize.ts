// pods/resize: GET, PUT and PATCH of a pod where only container resources (and resize policies) may change.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { badRequest, methodNotAllowed, unsupportedMediaType } from '../machinery/errors.js';
import type { KObject } from '../machinery/types.js';
import type { Registry } from '../registry/registry.js';
import type { ResourceDef } from '../registry/resource.js';
import { mediaType, parseBody } from './body.js';
import { decodeObject, validateFields } from './decode-object.js';
import { served, toStorage } from './output.js';
import { applyPatch } from './patch-handler.js';
import { patchTypeOf } from './patch/index.js';
import { dryRun, fieldValidation, query } from './query.js';
import type { RequestInfo } from './request-info.js';
import { sendWarnings } from './resource-handler.js';

export function handleResize(reg: Registry, def: ResourceDef, info: RequestInfo, req: FastifyRequest, reply: FastifyReply): void {
  const ns = info.namespace ?? '';
  const name = info.name ?? '';
  const q = query(req);
  const warnings: string[] = [];
  let out: KObject;
  if (req.method === 'GET') out = reg.get(def, ns, name);
  else if (req.method === 'PUT') {
    const obj = decodeObject(def, info.version, req, fieldValidation(q, 'UpdateOptions'), warnings);
    out = reg.update(def, ns, name, obj, { dryRun: dryRun(q, 'UpdateOptions'), subresource: 'resize', warnings });
  } else if (req.method === 'PATCH') {
    const type = patchTypeOf(mediaType(req.headers['content-type']));
    if (!type || type === 'apply') throw unsupportedMediaType(mediaType(req.headers['content-type']));
    const patch = parseBody(req.body as Buffer | undefined, 'application/json');
    if (patch === undefined) throw badRequest('the body of the request was empty');
    const gvk = { group: def.group, version: info.version, kind: def.kind };
    const mode = fieldValidation(q, 'PatchOptions');
    out = reg.guaranteedUpdate(def, ns, name, (cur) => {
      const patched = applyPatch(type, served(def, info.version, cur), patch, gvk);
      validateFields(def, info.version, patched, mode, warnings);
      return toStorage(def, info.version, patched);
    }, { dryRun: dryRun(q, 'PatchOptions'), subresource: 'resize', warnings });
  } else throw methodNotAllowed();
  sendWarnings(reply, warnings);
  reply.send(served(def, info.version, out));
}
