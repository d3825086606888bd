// CRUD, list and watch on a resource collection or item; subresources are dispatched to their own module.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, badRequest, fieldInvalid, fieldNotSupported, invalid, methodNotAllowed, type FieldError } from '../machinery/errors.js';
import { isRecord, type KObject } from '../machinery/types.js';
import type { Registry, DeleteOptions } from '../registry/registry.js';
import { allVerbs, type ResourceDef } from '../registry/resource.js';
import { parseBody } from './body.js';
import { decodeObject } from './decode-object.js';
import { listBody, listJson, outputFormat, partialBody, partialListBody, served, tableBody } from './output.js';
import { handlePatch } from './patch-handler.js';
import { bool, checkWriteOptions, dryRun, fieldValidation, int, query, str, type Query } from './query.js';
import { checkPathSegments, pathNotFound, type RequestInfo } from './request-info.js';
import { handleSubresource } from './subresources.js';
import { streamWatch } from './watch-stream.js';
import { watchTimeoutMs } from './watch-timeout.js';
import { storedJson } from '../storage/sqlite-store.js';

export interface HandlerContext {
  reg: Registry;
}

/** Adds `Warning: 299 - "text"` values to those the reply already carries. */
export function sendWarnings(reply: FastifyReply, warnings: string[]): void {
  if (!warnings.length) return;
  const have = reply.getHeader('Warning');
  const values = [...(typeof have === 'string' && have ? [have] : []), ...warnings.map((w) => `299 - ${JSON.stringify(w)}`)];
  reply.header('Warning', values.join(', '));
}

/** Sends the warnings admission gave before the request failed (upstream keeps them on errors too), then fails. */
export function withWarnings(reply: FastifyReply, warnings: string[], error: unknown): never {
  sendWarnings(reply, warnings);
  throw error;
}

/** deletecollection: each listed object in turn; one deleted meanwhile is skipped. */
async function deleteEach(reg: Registry, def: ResourceDef, items: KObject[], opts: DeleteOptions & { warnings: string[] }): Promise<void> {
  for (const o of items) {
    try {
      await reg.deleteAsync(def, o.metadata.namespace ?? '', o.metadata.name ?? '', opts);
    } catch (e) {
      if (!(e instanceof ApiError && e.code === 404)) throw e;
    }
  }
}

function verbAllowed(def: ResourceDef, verb: string): boolean {
  return (def.verbs ?? allVerbs).includes(verb);
}

function respondObject(reg: Registry, req: FastifyRequest, reply: FastifyReply, def: ResourceDef, version: string, obj: KObject, code = 200): void {
  const fmt = outputFormat(req.headers.accept);
  const q = query(req);
  if (fmt === 'table') reply.code(code).send(tableBody(def, version, [obj], { resourceVersion: obj.metadata.resourceVersion }, str(q, 'includeObject'), true, reg.clock.now()));
  else if (fmt === 'partial') reply.code(code).send(partialBody(served(def, version, obj)));
  else {
    const s = served(def, version, obj);
    const json = s === obj ? storedJson(obj) : undefined;
    if (json) reply.code(code).type('application/json').send(json);
    else reply.code(code).send(s);
  }
}

/** What a DELETE of a kind that does not return the deleted object answers once the object is gone. */
function deletedStatus(def: ResourceDef, obj: KObject): Record<string, unknown> {
  const details: Record<string, unknown> = { name: obj.metadata.name ?? '' };
  if (def.group) details.group = def.group;
  details.kind = def.plural; // upstream puts the resource here
  if (obj.metadata.uid) details.uid = obj.metadata.uid;
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details };
}

const jsonKind = (v: unknown) => (typeof v === 'number' ? `number ${v}` : Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v === 'object' ? 'object' : typeof v);
const typeError = (v: unknown, field: string, goType: string) => badRequest(`json: cannot unmarshal ${jsonKind(v)} into Go struct field DeleteOptions.${field} of type ${goType}`);
const propagationPolicies = ['Foreground', 'Background', 'Orphan'];

export function deleteOptions(q: Query, body: unknown): DeleteOptions {
  const opts: DeleteOptions = {};
  let policy: string | undefined;
  if (body !== undefined && body !== null && !isRecord(body)) throw badRequest('the body of a delete request must be a DeleteOptions object');
  if (isRecord(body)) {
    if (body.kind !== undefined && body.kind !== 'DeleteOptions') throw badRequest(`expected DeleteOptions, got ${String(body.kind)}`);
    const p = body.propagationPolicy;
    if (p !== undefined && p !== null) {
      if (typeof p !== 'string') throw typeError(p, 'propagationPolicy', 'v1.DeletionPropagation');
      policy = p;
    }
    const o = body.orphanDependents;
    if (o !== undefined && o !== null) {
      if (typeof o !== 'boolean') throw typeError(o, 'orphanDependents', 'bool');
      opts.orphanDependents = o;
    }
    const g = body.gracePeriodSeconds;
    if (g !== undefined && g !== null) {
      if (typeof g !== 'number' || !Number.isInteger(g) || Math.abs(g) >= 2 ** 63) throw typeError(g, 'gracePeriodSeconds', 'int64');
      opts.gracePeriodSeconds = g;
    }
    const pre = body.preconditions;
    if (pre !== undefined && pre !== null) {
      if (!isRecord(pre)) throw typeError(pre, 'preconditions', 'v1.Preconditions');
      for (const f of ['uid', 'resourceVersion']) {
        if (pre[f] !== undefined && pre[f] !== null && typeof pre[f] !== 'string') throw typeError(pre[f], `preconditions.${f}`, 'string');
      }
      opts.preconditions = pre as DeleteOptions['preconditions'];
    }
    const d = body.dryRun;
    if (d !== undefined && d !== null) {
      if (!Array.isArray(d) || d.some((x) => typeof x !== 'string')) throw typeError(d, 'dryRun', '[]string');
      if (d.some((x) => x !== 'All')) throw invalid('DeleteOptions', 'meta.k8s.io', '', [{ type: 'FieldValueNotSupported', field: 'dryRun', message: `Unsupported value: []string{${d.map((x) => JSON.stringify(x)).join(', ')}}: supported values: "All"` }]);
      if (d.length) opts.dryRun = true;
    }
  }
  const pp = str(q, 'propagationPolicy');
  if (pp !== undefined) policy = pp;
  const g = int(q, 'gracePeriodSeconds');
  if (g !== undefined) opts.gracePeriodSeconds = g;
  if (str(q, 'orphanDependents') !== undefined) opts.orphanDependents = bool(q, 'orphanDependents');
  if (dryRun(q, 'DeleteOptions')) opts.dryRun = true;
  // ValidateDeleteOptions: one of the three policies, and not together with the deprecated orphanDependents.
  const errs: FieldError[] = [];
  if (policy !== undefined && opts.orphanDependents !== undefined) {
    errs.push(fieldInvalid('propagationPolicy', policy, 'orphanDependents and deletionPropagation cannot be both set'));
  }
  if (policy !== undefined && !propagationPolicies.includes(policy)) errs.push(fieldNotSupported('propagationPolicy', policy, [...propagationPolicies, 'nil']));
  if (errs.length) throw invalid('DeleteOptions', 'meta.k8s.io', '', errs);
  if (policy !== undefined) opts.propagationPolicy = policy as DeleteOptions['propagationPolicy'];
  return opts;
}

export function handleResource(ctx: HandlerContext, info: RequestInfo, req: FastifyRequest, reply: FastifyReply): void | Promise<void> {
  const def = ctx.reg.find(info.group, info.version, info.resource ?? '');
  if (!def) throw pathNotFound();
  if (info.namespace !== undefined && !def.namespaced) throw pathNotFound();
  checkPathSegments(info);
  if (def.load && (req.method === 'POST' || req.method === 'PUT' || req.method === 'PATCH')) return def.load().then(() => handleLoaded(ctx, def, info, req, reply));
  return handleLoaded(ctx, def, info, req, reply);
}

function handleLoaded(ctx: HandlerContext, def: ResourceDef, info: RequestInfo, req: FastifyRequest, reply: FastifyReply): void | Promise<void> {
  const { reg } = ctx;
  const ns = def.namespaced ? info.namespace : undefined;
  // Upstream adds a deprecated API's warning before it handles the request, so even errors carry it.
  if (def.deprecationWarning) sendWarnings(reply, [def.deprecationWarning]);
  if (info.subresource) return handleSubresource(ctx, def, info, req, reply);
  const q = query(req);
  const method = req.method;
  const version = info.version;
  const warnings: string[] = [];
  const name = info.name;

  if (method === 'GET' && (info.watchPath || bool(q, 'watch'))) {
    if (!verbAllowed(def, 'watch')) throw methodNotAllowed();
    const fieldSelector = name ? [`metadata.name=${name}`, str(q, 'fieldSelector')].filter(Boolean).join(',') : str(q, 'fieldSelector');
    const sendInitial = str(q, 'sendInitialEvents');
    // The watch stream writes its head on the raw response: hand it the warnings set so far.
    const warning = reply.getHeader('Warning');
    if (warning !== undefined) reply.raw.setHeader('Warning', warning);
    return streamWatch(reg, {
      def, version, namespace: ns,
      opts: { labelSelector: str(q, 'labelSelector'), fieldSelector, resourceVersion: str(q, 'resourceVersion'), resourceVersionMatch: str(q, 'resourceVersionMatch'), sendInitialEvents: sendInitial === undefined ? undefined : sendInitial === 'true' },
      format: outputFormat(req.headers.accept), includeObject: str(q, 'includeObject'),
      bookmarks: bool(q, 'allowWatchBookmarks'), timeoutMs: watchTimeoutMs(q),
    }, req, reply);
  }

  if (name === undefined) {
    switch (method) {
      case 'GET': {
        if (!verbAllowed(def, 'list')) throw methodNotAllowed();
        const r = reg.list(def, ns, {
          labelSelector: str(q, 'labelSelector'), fieldSelector: str(q, 'fieldSelector'), limit: int(q, 'limit'),
          continue: str(q, 'continue'), resourceVersion: str(q, 'resourceVersion'), resourceVersionMatch: str(q, 'resourceVersionMatch'),
        });
        const meta = { resourceVersion: r.resourceVersion, continue: r.continue, remainingItemCount: r.remainingItemCount };
        const fmt = outputFormat(req.headers.accept);
        if (fmt === 'table') reply.send(tableBody(def, version, r.items, meta, str(q, 'includeObject'), true, reg.clock.now()));
        else if (fmt === 'partial') reply.send(partialListBody(r.items, meta));
        else reply.type('application/json').send(listJson(def, version, r.items, meta));
        return;
      }
      case 'POST': {
        if (!verbAllowed(def, 'create')) throw methodNotAllowed();
        if (def.namespaced && ns === undefined) throw methodNotAllowed('the server does not allow this method on the requested resource');
        checkWriteOptions(q, 'CreateOptions');
        const obj = decodeObject(reg, def, version, req, fieldValidation(q), warnings);
        return reg.createAsync(def, ns ?? '', obj, { dryRun: dryRun(q), fieldManager: str(q, 'fieldManager'), warnings, owned: true, version }).then((created) => {
          sendWarnings(reply, warnings);
          respondObject(reg, req, reply, def, version, created, 201);
        }, (e) => withWarnings(reply, warnings, e));
      }
      case 'DELETE': {
        if (!verbAllowed(def, 'deletecollection')) throw methodNotAllowed();
        const opts = deleteOptions(q, parseBody(req.body as Buffer | undefined, req.headers['content-type']));
        const r = reg.list(def, ns, { labelSelector: str(q, 'labelSelector'), fieldSelector: str(q, 'fieldSelector') });
        return deleteEach(reg, def, r.items, { ...opts, warnings }).then(() => {
          sendWarnings(reply, warnings);
          // Upstream answers with the list it deleted, as it was listed.
          reply.send(listBody(def, version, r.items, { resourceVersion: r.resourceVersion }));
        }, (e) => withWarnings(reply, warnings, e));
      }
      default:
        throw methodNotAllowed();
    }
  }

  switch (method) {
    case 'GET': {
      if (!verbAllowed(def, 'get')) throw methodNotAllowed();
      return respondObject(reg, req, reply, def, version, reg.get(def, ns ?? '', name, str(q, 'resourceVersion')));
    }
    case 'PUT': {
      if (!verbAllowed(def, 'update')) throw methodNotAllowed();
      checkWriteOptions(q, 'UpdateOptions');
      const obj = decodeObject(reg, def, version, req, fieldValidation(q, 'UpdateOptions'), warnings);
      return reg.guaranteedUpdateAsync(def, ns ?? '', name, () => obj, { dryRun: dryRun(q, 'UpdateOptions'), fieldManager: str(q, 'fieldManager'), warnings, version }).then((updated) => {
        sendWarnings(reply, warnings);
        respondObject(reg, req, reply, def, version, updated);
      }, (e) => withWarnings(reply, warnings, e));
    }
    case 'PATCH': {
      if (!verbAllowed(def, 'patch')) throw methodNotAllowed();
      return handlePatch(reg, def, version, ns ?? '', name, req, undefined, warnings).then(({ object, created }) => {
        sendWarnings(reply, warnings);
        respondObject(reg, req, reply, def, version, object, created ? 201 : 200);
      }, (e) => withWarnings(reply, warnings, e));
    }
    case 'DELETE': {
      if (!verbAllowed(def, 'delete')) throw methodNotAllowed();
      const opts = deleteOptions(q, parseBody(req.body as Buffer | undefined, req.headers['content-type']));
      return reg.deleteAsync(def, ns ?? '', name, { ...opts, warnings }).then((r) => {
        sendWarnings(reply, warnings);
        // 202 when the object stays (finalizers, graceful deletion) and the client asked for cascading deletion.
        const code = !r.deleted && opts.orphanDependents === false ? 202 : 200;
        if (r.deleted && !def.returnDeletedObject) return void reply.code(code).send(deletedStatus(def, r.object));
        respondObject(reg, req, reply, def, version, r.object, code);
      }, (e) => withWarnings(reply, warnings, e));
    }
    default:
      throw methodNotAllowed();
  }
}
