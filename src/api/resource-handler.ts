// CRUD, list and watch on a resource collection or item; subresources are dispatched to their own module.
import { promised } from '../util/steps.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, methodNotAllowed } from '../machinery/errors.js';
import type { KObject } from '../machinery/types.js';
import type { Registry, DeleteOptions } from '../registry/registry.js';
import { allVerbs, type ResourceDef } from '../registry/resource.js';
import { parseBody } from './body.js';
import { decodeObject } from './decode-object.js';
import { listSpec, outputFormat, partialBody, served, tableBody } from './output.js';
import { sendList } from './list-stream.js';
import { handlePatch } from './patch-handler.js';
import { bool, checkWriteOptions, dryRun, fieldValidation, int, query, str } from './query.js';
import { checkPathSegments, pathNotFound, type RequestInfo } from './request-info.js';
import { handleSubresource } from './subresources.js';
import { sendWarnings, withWarnings } from './replies.js';
import { deleteOptions } from './delete-options.js';
import type { HandlerContext } from './handler-context.js';
import { streamWatch } from './watch-stream.js';
import { watchTimeoutMs } from './watch-timeout.js';
import { convertedForRead, convertedForWrite, needsConversion } from './converted.js';

/** deletecollection: each listed object in turn; one deleted meanwhile is skipped. */
async function deleteEach(reg: Registry, def: ResourceDef, items: KObject[], opts: DeleteOptions & { warnings: string[] }): Promise<void> {
  for (const o of items) {
    try {
      await reg.delete(def, o.metadata.namespace ?? '', o.metadata.name ?? '', opts);
    } catch (e) {
      if (!(e instanceof ApiError && e.code === 404)) throw e;
    }
  }
}

function verbAllowed(def: ResourceDef, verb: string): boolean {
  return (def.verbs ?? allVerbs).includes(verb);
}

/**
 * Sends `obj` in the requested form. `stored`: the object is the store's own, unchanged (a GET), so the text the store
 * keeps of it may be sent; otherwise only a write's own pending text is (a dry run's result shares its stored object's
 * resourceVersion, not its text).
 */
function respondObject(reg: Registry, req: FastifyRequest, reply: FastifyReply, def: ResourceDef, version: string, obj: KObject, code = 200, stored = false): void {
  const fmt = outputFormat(req.headers.accept);
  const q = query(req);
  if (fmt === 'table') reply.code(code).send(tableBody(def, version, [obj], { resourceVersion: obj.metadata.resourceVersion }, str(q, 'includeObject'), true, reg.clock.now()));
  else if (fmt === 'partial') reply.code(code).send(partialBody(served(def, version, obj)));
  else {
    const s = served(def, version, obj);
    // A text at hand is cheaper to send than serializing the object again.
    const json = s !== obj ? undefined : stored ? reg.textOf(def)(obj) : reg.pendingText(obj);
    if (json) reply.code(code).type('application/json').send(json);
    else reply.code(code).send(s);
  }
}

/** respondObject, once a CRD's conversion webhook has converted the object when `version` is not the stored one. */
function respond(reg: Registry, req: FastifyRequest, reply: FastifyReply, def: ResourceDef, version: string, obj: KObject, code = 200, stored = false): void | Promise<void> {
  if (!needsConversion(def, version)) return respondObject(reg, req, reply, def, version, obj, code, stored);
  const warnings: string[] = [];
  return convertedForRead(reg, def, version, [obj], warnings).then(([c]) => {
    sendWarnings(reply, warnings);
    respondObject(reg, req, reply, def, version, c, code);
  });
}

/** What a DELETE of a kind that does not return the deleted object answers once the object is gone. */
function deletedStatus(def: ResourceDef, obj: KObject): Record<string, unknown> {
  const details: Record<string, unknown> = { name: obj.metadata.name ?? '' };
  if (def.group) details.group = def.group;
  details.kind = def.plural; // upstream puts the resource here
  if (obj.metadata.uid) details.uid = obj.metadata.uid;
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details };
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
        if (needsConversion(def, version)) {
          return convertedForRead(reg, def, version, r.items, warnings, true).then((items) => {
            sendWarnings(reply, warnings);
            return sendList(req, reply, listSpec(def, version, items, meta, outputFormat(req.headers.accept), str(q, 'includeObject'), () => reg.clock.now(), (o) => reg.pendingText(o)));
          });
        }
        // Streamed as the client reads it: no list is ever built whole, in memory or as one string.
        return sendList(req, reply, listSpec(def, version, r.items, meta, outputFormat(req.headers.accept), str(q, 'includeObject'), () => reg.clock.now(), reg.textOf(def)));
      }
      case 'POST': {
        if (!verbAllowed(def, 'create')) throw methodNotAllowed();
        if (def.namespaced && ns === undefined) throw methodNotAllowed('the server does not allow this method on the requested resource');
        checkWriteOptions(q, 'CreateOptions');
        const decoded = decodeObject(reg, def, version, req, fieldValidation(q), warnings);
        const done = (created: KObject) => {
          sendWarnings(reply, warnings);
          return respond(reg, req, reply, def, version, created, 201);
        };
        if (needsConversion(def, version)) {
          return convertedForWrite(reg, def, decoded, warnings)
            .then((obj) => reg.create(def, ns ?? '', obj, { dryRun: dryRun(q), fieldManager: str(q, 'fieldManager'), userAgent: req.headers['user-agent'] ?? '', warnings, owned: true, version: def.version }))
            .then(done, (e) => withWarnings(reply, warnings, e));
        }
        const obj = decoded;
        let created: KObject | Promise<KObject>;
        try {
          created = reg.create(def, ns ?? '', obj, { dryRun: dryRun(q), fieldManager: str(q, 'fieldManager'), userAgent: req.headers['user-agent'] ?? '', warnings, owned: true, version });
        } catch (e) {
          return withWarnings(reply, warnings, e);
        }
        if (created instanceof Promise) return created.then(done, (e) => withWarnings(reply, warnings, e));
        return done(created);
      }
      case 'DELETE': {
        if (!verbAllowed(def, 'deletecollection')) throw methodNotAllowed();
        const opts = deleteOptions(q, parseBody(req.body as Buffer | undefined, req.headers['content-type']));
        const r = reg.list(def, ns, { labelSelector: str(q, 'labelSelector'), fieldSelector: str(q, 'fieldSelector') });
        // Upstream answers with the list it deleted, as it was listed (streamed like any list), in the version asked
        // for: a CRD's conversion webhook converts it once the objects are gone, as upstream encodes its answer.
        return deleteEach(reg, def, r.items, { ...opts, warnings })
          .then(() => (needsConversion(def, version) ? convertedForRead(reg, def, version, r.items, warnings, true) : r.items))
          .then((items) => {
            sendWarnings(reply, warnings);
            sendList(req, reply, listSpec(def, version, items, { resourceVersion: r.resourceVersion }, 'object', undefined, () => reg.clock.now(), (o) => reg.pendingText(o)), { force: true });
          }, (e) => withWarnings(reply, warnings, e));
      }
      default:
        throw methodNotAllowed();
    }
  }

  switch (method) {
    case 'GET': {
      if (!verbAllowed(def, 'get')) throw methodNotAllowed();
      return respond(reg, req, reply, def, version, reg.get(def, ns ?? '', name, str(q, 'resourceVersion')), 200, true);
    }
    case 'PUT': {
      if (!verbAllowed(def, 'update')) throw methodNotAllowed();
      checkWriteOptions(q, 'UpdateOptions');
      const decoded = decodeObject(reg, def, version, req, fieldValidation(q, 'UpdateOptions'), warnings);
      const writeVersion = needsConversion(def, version) ? def.version : version;
      const write = (obj: KObject) => promised(() => reg.update(def, ns ?? '', name, () => obj, { dryRun: dryRun(q, 'UpdateOptions'), fieldManager: str(q, 'fieldManager'), userAgent: req.headers['user-agent'] ?? '', warnings, version: writeVersion }));
      return (writeVersion === version ? write(decoded) : convertedForWrite(reg, def, decoded, warnings).then(write))
        .then((updated) => {
          sendWarnings(reply, warnings);
          return respond(reg, req, reply, def, version, updated);
        }, (e) => withWarnings(reply, warnings, e));
    }
    case 'PATCH': {
      if (!verbAllowed(def, 'patch')) throw methodNotAllowed();
      return handlePatch(reg, def, version, ns ?? '', name, req, undefined, warnings).then(({ object, created }) => {
        sendWarnings(reply, warnings);
        return respond(reg, req, reply, def, version, object, created ? 201 : 200);
      }, (e) => withWarnings(reply, warnings, e));
    }
    case 'DELETE': {
      if (!verbAllowed(def, 'delete')) throw methodNotAllowed();
      const opts = deleteOptions(q, parseBody(req.body as Buffer | undefined, req.headers['content-type']));
      return promised(() => reg.delete(def, ns ?? '', name, { ...opts, warnings })).then((r) => {
        sendWarnings(reply, warnings);
        // 202 when the object stays (finalizers, graceful deletion) and the client asked for cascading deletion.
        const code = !r.deleted && opts.orphanDependents === false ? 202 : 200;
        if (r.deleted && !def.returnDeletedObject) return void reply.code(code).send(deletedStatus(def, r.object));
        return respond(reg, req, reply, def, version, r.object, code);
      }, (e) => withWarnings(reply, warnings, e));
    }
    default:
      throw methodNotAllowed();
  }
}
