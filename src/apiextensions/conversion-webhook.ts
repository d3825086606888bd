// Conversion of custom resources between versions by their CRD's conversion webhook (strategy Webhook), as
// apiextensions-apiserver's webhook converter does: one ConversionReview (apiextensions.k8s.io/v1, or v1beta1 when the
// CRD lists only that) for the objects not yet in the desired version, its answer checked (uid, result, count, each
// object's apiVersion, kind, name, namespace and uid), and every converted object's metadata taken from the original
// but for its labels and annotations. Failures are 500s with upstream's message. A webhook served by simulated pods
// (with --simulated-webhooks=allow) is not called: the fields are carried over, and the request is warned.
import { randomUUID } from 'node:crypto';
import { ApiError } from '../machinery/errors.js';
import { apiVersionOf, isRecord, type KObject } from '../machinery/types.js';
import type { Registry } from '../registry/registry.js';
import type { ResourceDef } from '../registry/resource.js';
import { validateAnnotations, validateLabels } from '../registry/validation/common.js';
import { postReview, resolveTarget } from '../admission/webhook/client.js';
import { jsonDepth } from '../util/json-tree.js';
import { jsonTooDeep, maxObjectDepth } from '../machinery/depth-limits.js';
import { awaitingOutbound } from '../flowcontrol/dispatch/outbound.js';

/** What a CRD with conversion strategy Webhook declares (spec.conversion.webhook). */
export interface ConversionWebhook {
  clientConfig: unknown;
  conversionReviewVersions: string[];
}

/** Upstream's client gives conversion webhooks no per-call timeout of their own; its rest client's default is 30 s. */
const timeoutSeconds = 30;

/** True when a read or write in `version` needs the webhook (another version than the stored one). */
export function needsConversion(def: ResourceDef, version: string): boolean {
  return def.conversionWebhook !== undefined && version !== def.version;
}

const failure = (message: string) => new ApiError(500, '', message);

/** The review's answer checked as upstream checks it; returns the converted objects or throws the reason. */
function convertedObjects(review: unknown, reviewVersion: string, uid: string): unknown[] {
  if (!isRecord(review)) throw new Error('no response provided');
  if (reviewVersion === 'v1') {
    const gv = text(review.apiVersion);
    if (gv !== 'apiextensions.k8s.io/v1' || review.kind !== 'ConversionReview') {
      // Go prints a GroupVersionKind as group/version, Kind=kind (the group empty for a bare version).
      throw new Error(`expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got ${gv.includes('/') ? gv : `/${gv}`}, Kind=${text(review.kind)}`);
    }
  }
  const response = review.response;
  if (!isRecord(response)) throw new Error('no response provided');
  const got = typeof response.uid === 'string' ? response.uid : '';
  if (reviewVersion === 'v1' && got !== uid) throw new Error(`expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(got)}`);
  const result = isRecord(response.result) ? response.result : {};
  if (result.status !== 'Success') {
    if (typeof result.message === 'string' && result.message) throw new Error(result.message);
    throw new Error(`response.result.status was '${typeof result.status === 'string' ? result.status : ''}', not 'Success'`);
  }
  return Array.isArray(response.convertedObjects) ? response.convertedObjects : [];
}

const text = (v: unknown) => (typeof v === 'string' ? v : '');
const meta = (o: unknown): Record<string, unknown> => (isRecord(o) && isRecord(o.metadata) ? o.metadata : {});

/** The converted object with the original's metadata but the webhook's labels and annotations (checked). */
function restoreMetadata(original: KObject, converted: Record<string, unknown>): KObject {
  if (!('metadata' in converted) || converted.metadata === undefined) throw new Error('missing metadata in converted object');
  if (!isRecord(converted.metadata)) throw new Error(`invalid metadata of type ${Array.isArray(converted.metadata) ? '[]interface {}' : typeof converted.metadata} in converted object`);
  const answered = converted.metadata;
  const out: Record<string, unknown> = structuredClone(original.metadata) as Record<string, unknown>;
  for (const field of ['labels', 'annotations'] as const) {
    const value = answered[field];
    if (value === undefined || value === null) {
      delete out[field];
      continue;
    }
    if (!isRecord(value)) throw new Error(`invalid metadata.${field} of type ${Array.isArray(value) ? '[]interface {}' : typeof value} in converted object`);
    const before = isRecord(out[field]) ? out[field] as Record<string, unknown> : {};
    let changed = Object.keys(before).length !== Object.keys(value).length;
    for (const [k, v] of Object.entries(value)) {
      if (typeof v !== 'string') throw new Error(`metadata.${field}[${k}] must be a string, but is ${v === null ? '<nil>' : typeof v} in converted object`);
      if (before[k] !== v) changed = true;
    }
    if (changed) {
      const errs = field === 'labels' ? validateLabels(value, 'metadata.labels') : validateAnnotations(value, 'metadata.annotation');
      if (errs.length === 1) throw new Error(`${errs[0].field}: ${errs[0].message}`);
      if (errs.length > 1) throw new Error(`[${errs.map((e) => `${e.field}: ${e.message}`).join(', ')}]`);
    }
    const copy: Record<string, string> = Object.create(null) as Record<string, string>;
    for (const [k, v] of Object.entries(value)) copy[k] = v as string;
    out[field] = { ...copy };
  }
  return { ...converted, metadata: out } as KObject;
}

/** Refuses a converted object whose identity differs from the original's (upstream's validateConvertedObject). */
function checkIdentity(original: KObject, converted: Record<string, unknown>): void {
  const o = meta(original);
  const c = meta(converted);
  const pairs: [string, unknown, unknown][] = [
    ['kind', original.kind, converted.kind], ['name', o.name, c.name], ['namespace', o.namespace, c.namespace], ['UID', o.uid, c.uid],
  ];
  for (const [what, a, b] of pairs) if (text(a) !== text(b)) throw new Error(`must have the same ${what}: ${text(a)} != ${text(b)}`);
}

/** One answered object, checked against its original and with the original's metadata restored. */
function acceptConverted(original: KObject, raw: unknown, desired: string, index: number, prefix: string, list: boolean): KObject {
  const at = list ? ` at index ${index}` : ' at index 0';
  if (!isRecord(raw)) throw failure(`${prefix} returned invalid converted object${at}: Object 'Kind' is missing in '${JSON.stringify(raw)?.slice(0, 256)}'`);
  const gv = text(raw.apiVersion);
  if (gv !== desired) throw failure(`${prefix} returned invalid ${list ? 'converted ' : ''}object${at}: invalid groupVersion (expected ${desired}, received ${gv})`);
  if (text(raw.kind) !== text(original.kind)) throw failure(`${prefix} returned invalid ${list ? 'converted ' : ''}object${at}: invalid kind (expected ${text(original.kind)}, received ${text(raw.kind)})`);
  try {
    checkIdentity(original, raw);
  } catch (e) {
    throw failure(`${prefix} returned invalid ${list ? 'converted object at index ' + index : 'object'}: ${(e as Error).message}`);
  }
  try {
    return restoreMetadata(original, raw);
  } catch (e) {
    throw failure(`${prefix} returned invalid metadata${list ? ` in object at index ${index}` : ''}: ${(e as Error).message}`);
  }
}

/**
 * `objs` in `version` of `def` (a CRD with a conversion webhook): the ones already there as they are, the others
 * converted by one call of the webhook. `list` words errors as upstream does for lists. Throws a 500 ApiError.
 */
export async function convertByWebhook(reg: Registry, def: ResourceDef, objs: readonly KObject[], version: string, warnings: string[] | undefined, list = false): Promise<KObject[]> {
  const hook = def.conversionWebhook;
  const desired = apiVersionOf(def.group, version);
  const pending = objs.map((o, i) => ({ o, i })).filter(({ o }) => o.apiVersion !== desired);
  if (!hook || pending.length === 0) return [...objs];
  const from = text(pending[0].o.apiVersion);
  const prefix = `conversion webhook for ${from}, Kind=${def.kind}`;
  const reviewVersion = hook.conversionReviewVersions.find((v) => v === 'v1' || v === 'v1beta1');
  if (!reviewVersion) throw failure('no supported conversion review versions');
  const uid = randomUUID();
  let review: unknown;
  try {
    const target = resolveTarget(reg, hook.clientConfig, timeoutSeconds);
    if ('simulated' in target) {
      const warning = `conversion webhook for ${def.group}/${def.kind} is served by simulated pods (service ${target.simulated}): converted without calling it`;
      if (warnings) warnings.push(warning);
      else reg.log.debug({ crd: `${def.plural}.${def.group}` }, warning);
      return objs.map((o) => (o.apiVersion === desired ? o : { ...o, apiVersion: desired }));
    }
    const body = JSON.stringify({
      kind: 'ConversionReview', apiVersion: `apiextensions.k8s.io/${reviewVersion}`,
      request: { uid, desiredAPIVersion: desired, objects: pending.map(({ o }) => o) },
    });
    const caBundle = isRecord(hook.clientConfig) ? hook.clientConfig.caBundle : undefined;
    review = await awaitingOutbound(reg, () => postReview(target, caBundle, body, timeoutSeconds));
  } catch (e) {
    throw failure(`${prefix} failed: ${e instanceof Error ? e.message : String(e)}`);
  }
  let answered: unknown[];
  try {
    answered = convertedObjects(review, reviewVersion, uid);
  } catch (e) {
    throw failure(`${prefix} failed: ${(e as Error).message}`);
  }
  // Stored objects are held to maxObjectDepth (V8 copies and serializes recursively); deeper answers are refused.
  if (answered.some((o) => jsonDepth(o, maxObjectDepth) > maxObjectDepth)) throw failure(`${prefix} failed: json: ${jsonTooDeep('object')}`);
  if (answered.length !== pending.length) throw failure(`${prefix} returned ${answered.length} objects, expected ${pending.length}`);
  const out = [...objs];
  pending.forEach(({ o, i }, n) => { out[i] = acceptConverted(o, answered[n], desired, n, prefix, list); });
  return out;
}
