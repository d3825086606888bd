// Subresources: status, scale, resize, ephemeralcontainers, binding, eviction, log, finalize, token; exec, attach and
// portforward upgrade to the streaming protocols (src/api/streaming, loaded on first use); proxy answers 400.
import { promised } from '../util/steps.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Scale } from '../generated/k8s/autoscaling/v1.js';
import { badRequest, conflict, methodNotAllowed } from '../machinery/errors.js';
import { formatLabelSelector } from '../machinery/labels.js';
import { isRecord, type KObject, type LabelSelector } from '../machinery/types.js';
import type { Registry } from '../registry/registry.js';
import type { PartialWrite, ResourceDef } from '../registry/resource.js';
import { matchesResourceVersion } from '../registry/update-merge.js';
import { objectBody } from './body.js';
import { decodeObject } from './decode-object.js';
import { convertedForRead, convertedForWrite, needsConversion } from './converted.js';
import { served } from './output.js';
import { applyPatch, handlePatch } from './patch-handler.js';
import { checkWriteOptions, dryRun, fieldValidation, query, str } from './query.js';
import { pathNotFound, type RequestInfo } from './request-info.js';
import type { HandlerContext } from './handler-context.js';
import { sendWarnings, withWarnings } from './replies.js';
import { evictPod } from '../registry/pod-eviction.js';
import { deleteOptions } from './delete-options.js';
import { bindPod } from '../registry/pod-binding.js';
import { handleProxy } from './proxy.js';
import { podLogs } from './logs.js';
import { tokenRequest } from './token.js';
import { parseBody, mediaType, strategicMergeRefused, unsupportedPatchType } from './body.js';
import { patchTypeOf } from './patch/index.js';

interface Replicated {
  spec?: { replicas?: number; selector?: LabelSelector | Record<string, string> };
  status?: { replicas?: number; selector?: string };
}

function toScale(def: ResourceDef, obj: KObject): Scale {
  if (def.scale) return def.scale.get(obj);
  const r = obj as Replicated;
  const sel = r.spec?.selector;
  const selector = def.plural === 'replicationcontrollers'
    ? Object.entries((sel ?? {}) as Record<string, string>).map(([k, v]) => `${k}=${v}`).join(',')
    : formatLabelSelector(sel as LabelSelector | undefined);
  return {
    kind: 'Scale', apiVersion: 'autoscaling/v1',
    metadata: { name: obj.metadata.name, namespace: obj.metadata.namespace, uid: obj.metadata.uid, resourceVersion: obj.metadata.resourceVersion, creationTimestamp: obj.metadata.creationTimestamp },
    spec: { replicas: r.spec?.replicas ?? 0 },
    status: { replicas: r.status?.replicas ?? 0, selector },
  };
}

/** Admission sees a write of the scale subresource as an update of a Scale. */
const scaleAdmission = (def: ResourceDef) => ({ subresource: 'scale', kind: { group: 'autoscaling', version: 'v1', kind: 'Scale' }, view: (o: KObject) => toScale(def, o) });

function handleScale(reg: Registry, def: ResourceDef, info: RequestInfo, req: FastifyRequest, reply: FastifyReply): void | Promise<void> {
  const ns = info.namespace ?? '';
  const name = info.name ?? '';
  if (req.method === 'GET') return void reply.send(toScale(def, reg.get(def, ns, name)));
  if (req.method !== 'PUT' && req.method !== 'PATCH') throw methodNotAllowed();
  const q = query(req);
  const type = req.method === 'PATCH' ? patchTypeOf(mediaType(req.headers['content-type'])) : undefined;
  if (req.method === 'PATCH' && (!type || type === 'apply')) throw unsupportedPatchType();
  if (type === 'strategic' && def.noStrategicMerge) throw strategicMergeRefused();
  checkWriteOptions(q, req.method === 'PUT' ? 'UpdateOptions' : 'PatchOptions', type);
  const warnings: string[] = [];
  return promised(() => reg.update(def, ns, name, (cur) => {
    const scale = toScale(def, cur) as KObject;
    let next: KObject;
    if (req.method === 'PUT' || !type || type === 'apply') {
      next = objectBody(req.body as Buffer | undefined, req.headers['content-type']);
      if (next.kind && next.kind !== 'Scale') throw badRequest(`${next.kind} in version "v1" cannot be handled as a Scale`);
    } else {
      next = applyPatch(type === 'strategic' ? 'merge' : type, scale, parseBody(req.body as Buffer | undefined, 'application/json'), { group: 'autoscaling', version: 'v1', kind: 'Scale' });
    }
    const replicas = (next.spec as { replicas?: unknown } | undefined)?.replicas;
    if (typeof replicas !== 'number' || !Number.isInteger(replicas)) throw badRequest('spec.replicas: Required value');
    if (replicas < -(2 ** 31) || replicas > 2 ** 31 - 1) throw badRequest(`json: cannot unmarshal number ${replicas} into Go struct field ScaleSpec.spec.replicas of type int32`);
    if (!matchesResourceVersion(next.metadata?.resourceVersion, cur.metadata.resourceVersion)) throw conflict({ group: def.group, resource: def.plural }, name);
    if (def.scale) return def.scale.set(cur, replicas);
    const spec = { ...(cur.spec as object), replicas };
    return { ...cur, spec };
  }, { dryRun: dryRun(q, req.method === 'PUT' ? 'UpdateOptions' : 'PatchOptions'), fieldManager: str(q, 'fieldManager'), userAgent: req.headers['user-agent'] ?? '', version: info.version, admitAs: scaleAdmission(def), warnings }))
    .then((updated) => {
      sendWarnings(reply, warnings);
      reply.send(toScale(def, updated));
    }, (e) => withWarnings(reply, warnings, e));
}

/** status, resize, ephemeralcontainers and approval: the object itself, where a write may change only that subresource's part. */
async function handleObjectPart(reg: Registry, def: ResourceDef, info: RequestInfo, req: FastifyRequest, reply: FastifyReply, part: 'status' | PartialWrite): Promise<void> {
  const ns = info.namespace ?? '';
  const name = info.name ?? '';
  const q = query(req);
  const warnings: string[] = [];
  let out: KObject;
  try {
    if (req.method === 'GET') out = reg.get(def, ns, name);
    else if (req.method === 'PUT') {
      checkWriteOptions(q, 'UpdateOptions');
      const decoded = decodeObject(reg, def, info.version, req, fieldValidation(q, 'UpdateOptions'), warnings);
      const convert = needsConversion(def, info.version);
      const obj = convert ? await convertedForWrite(reg, def, decoded, warnings) : decoded;
      out = await reg.update(def, ns, name, () => obj, { dryRun: dryRun(q, 'UpdateOptions'), fieldManager: str(q, 'fieldManager'), userAgent: req.headers['user-agent'] ?? '', subresource: part, warnings, version: convert ? def.version : info.version });
    } else if (req.method === 'PATCH') out = (await handlePatch(reg, def, info.version, ns, name, req, part, warnings)).object;
    else throw methodNotAllowed();
    if (needsConversion(def, info.version)) [out] = await convertedForRead(reg, def, info.version, [out], warnings);
  } catch (e) {
    withWarnings(reply, warnings, e);
  }
  sendWarnings(reply, warnings);
  reply.send(served(def, info.version, out));
}

/** PUT namespaces/<name>/finalize: an update of the finalize subresource (the registry deletes a namespace it frees). */
async function handleFinalize(reg: Registry, def: ResourceDef, info: RequestInfo, req: FastifyRequest, reply: FastifyReply): Promise<void> {
  if (req.method !== 'PUT') throw methodNotAllowed();
  // Decoded as an update of the Namespace is (type errors in upstream's words); unknown fields are dropped.
  const body = decodeObject(reg, def, info.version, req, 'Ignore', []);
  const spec = { finalizers: (body.spec as { finalizers?: string[] } | undefined)?.finalizers ?? [] };
  const warnings: string[] = [];
  let out: KObject;
  try {
    out = await reg.update(def, '', info.name ?? '', (cur) => ({ ...cur, spec }), { subresource: 'finalize', pure: true, userAgent: req.headers['user-agent'] ?? '', warnings, version: info.version });
  } catch (e) {
    withWarnings(reply, warnings, e);
  }
  sendWarnings(reply, warnings);
  reply.send(served(def, info.version, { ...out, spec: { ...(out.spec as object), ...spec } }));
}

export function handleSubresource(ctx: HandlerContext, def: ResourceDef, info: RequestInfo, req: FastifyRequest, reply: FastifyReply): void | Promise<void> {
  const sub = info.subresource ?? '';
  const { reg } = ctx;
  if (!def.subresources?.includes(sub as never)) throw pathNotFound();
  switch (sub) {
    case 'status':
      return handleObjectPart(reg, def, info, req, reply, 'status');
    case 'scale':
      return handleScale(reg, def, info, req, reply);
    case 'resize':
    case 'ephemeralcontainers':
      return handleObjectPart(reg, def, info, req, reply, sub);
    case 'finalize':
      return handleFinalize(reg, def, info, req, reply);
    case 'binding':
      if (req.method !== 'POST') throw methodNotAllowed();
      return Promise.resolve(bindPod(reg, info.namespace ?? '', info.name ?? '', objectBody(req.body as Buffer | undefined, req.headers['content-type']), dryRun(query(req))))
        .then(() => void reply.code(201).send({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 }));
    case 'eviction': {
      if (req.method !== 'POST') throw methodNotAllowed();
      const body = parseBody(req.body as Buffer | undefined, req.headers['content-type']);
      return Promise.resolve(evictPod(reg, info.namespace ?? '', info.name ?? '', deleteOptions({}, isRecord(body) && isRecord(body.deleteOptions) ? body.deleteOptions : undefined), dryRun(query(req))))
        .then(() => void reply.code(201).send({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 }));
    }
    case 'token': {
      if (req.method !== 'POST') throw methodNotAllowed();
      const body = objectBody(req.body as Buffer | undefined, req.headers['content-type']);
      return tokenRequest(reg, info.namespace ?? '', info.name ?? '', body).then((out) => void reply.code(201).send(out));
    }
    case 'approval':
      return handleObjectPart(reg, def, info, req, reply, 'approval');
    case 'log':
      if (req.method !== 'GET') throw methodNotAllowed();
      return podLogs(reg, info.namespace ?? '', info.name ?? '', req, reply);
    case 'exec':
    case 'attach':
    case 'portforward':
      return import('./streaming/index.js').then((m) => m.serveStreaming(ctx, def, info, req, reply, sub));
    case 'proxy':
      return handleProxy(reg, def, info, req, reply);
    default:
      throw methodNotAllowed();
  }
}
